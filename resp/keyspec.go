package resp

import "github.com/tandemkv/tandem/users"

// Key access flags: how a command uses each of its keys, Redis 7.0's
// key-spec flags. The command table declares them (Command.KeyFlags, and
// VarKeyFlags where they depend on the arguments); COMMAND INFO's key
// specs, COMMAND GETKEYSANDFLAGS and the ACL check of %R~ / %W~ patterns
// all read them from there, so the three agree.
//
// A row that declares none gets flags derived from its command flags, the
// most common case of each kind: a read-only command reads its keys ("RO
// access"), a writing one updates them ("RW update"), any other touches
// them without reading or writing ("RO").

// KeyFlag is one of Redis's key-spec flags.
type KeyFlag uint16

// Key-spec flags, in the order Redis prints them.
const (
	KeyRO            KeyFlag = 1 << iota // read-only: the key's value is not changed
	KeyRW                                // read-write: the value is changed, possibly from itself
	KeyOW                                // overwrite: the value is replaced, whatever it was
	KeyRM                                // remove: the key is deleted
	KeyAccess                            // the value (or part of it) is returned or used
	KeyUpdate                            // the value is changed
	KeyInsert                            // data is added, nothing removed or changed
	KeyDelete                            // data is removed
	KeyNotKey                            // not a key: a shard channel (SSUBSCRIBE, SPUBLISH)
	KeyIncomplete                        // the spec may not find every key
	KeyVariableFlags                     // the flags depend on the arguments (VarKeyFlags)
)

var keyFlagNames = []string{"RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
	"not_key", "incomplete", "variable_flags"}

// Names returns the flags in Redis's spelling and order.
func (f KeyFlag) Names() []string {
	var out []string
	for i, n := range keyFlagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// The combinations the command table uses, named as Redis prints them.
const (
	ksRO           = KeyRO                            // RO (EXISTS, TYPE, LLEN…)
	ksROAccess     = KeyRO | KeyAccess                // RO access (GET)
	ksRWAccess     = KeyRW | KeyAccess                // RW access (PFCOUNT)
	ksRWUpdate     = KeyRW | KeyUpdate                // RW update (EXPIRE, HSET)
	ksRWAccessUpd  = KeyRW | KeyAccess | KeyUpdate    // RW access update (INCR)
	ksRWInsert     = KeyRW | KeyInsert                // RW insert (LPUSH, SADD)
	ksRWDelete     = KeyRW | KeyDelete                // RW delete (LREM, HDEL)
	ksRWAccessDel  = KeyRW | KeyAccess | KeyDelete    // RW access delete (LPOP, GETDEL)
	ksRWAccessIns  = KeyRW | KeyAccess | KeyInsert    // RW access insert (PFMERGE's destination)
	ksOWUpdate     = KeyOW | KeyUpdate                // OW update (MSET, a STORE destination)
	ksOWInsert     = KeyOW | KeyInsert                // OW insert (SETNX, RENAMENX's destination)
	ksRMDelete     = KeyRM | KeyDelete                // RM delete (DEL)
	ksVarAccessUpd = ksRWAccessUpd | KeyVariableFlags // SET, BITFIELD (VarKeyFlags)
)

// defaultKeyFlags are the flags of a row that declares none.
func (cmd *Command) defaultKeyFlags() KeyFlag {
	switch {
	case cmd.Flags&FlagPubSub != 0: // SSUBSCRIBE's shard channels: not keys
		return KeyNotKey
	case cmd.Flags&FlagWrite != 0:
		return ksRWUpdate
	case cmd.Flags&FlagReadonly != 0:
		return ksROAccess
	}
	return ksRO
}

// specKeyFlags are the flags of the command's key specs, one per spec
// (the last covering the keys after it).
func (cmd *Command) specKeyFlags() []KeyFlag {
	if len(cmd.KeyFlags) > 0 {
		return cmd.KeyFlags
	}
	return []KeyFlag{cmd.defaultKeyFlags()}
}

// KeyFlagsFor returns the flags of each key KeysOf found at keys (the
// positions in args), as COMMAND GETKEYSANDFLAGS reports them.
func (cmd *Command) KeyFlagsFor(args [][]byte, keys []int) []KeyFlag {
	if cmd.VarKeyFlags != nil {
		if f := cmd.VarKeyFlags(args, keys); f != nil {
			return f
		}
	}
	spec := cmd.specKeyFlags()
	out := make([]KeyFlag, len(keys))
	for i := range keys {
		out[i] = spec[min(i, len(spec)-1)]
	}
	return out
}

// aclKeyAccess is what ACL rules require of a key with flags f, as
// Redis's ACLSelectorCheckKey: read permission for access, write
// permission for insert, delete or update, none for a key merely touched.
func aclKeyAccess(f KeyFlag) users.KeyAccess {
	var a users.KeyAccess
	if f&KeyAccess != 0 {
		a |= users.KeyRead
	}
	if f&(KeyInsert|KeyDelete|KeyUpdate) != 0 {
		a |= users.KeyWrite
	}
	return a
}

// numkeysFallbackFlags is the VarKeyFlags of a command whose keys follow a
// count at countAt (numkeysKeys): when the key specs cannot read the
// count, Redis finds the keys with its getkeys helper, which reports no
// flag for any of them.
func numkeysFallbackFlags(countAt int) func(args [][]byte, keys []int) []KeyFlag {
	return func(args [][]byte, keys []int) []KeyFlag {
		if _, _, ok := numkeysBySpec(args, countAt); ok {
			return nil
		}
		return make([]KeyFlag, len(keys))
	}
}

// setKeyFlags is SET's VarKeyFlags, as Redis's setGetKeys: with GET the
// old value is read (RW access update), without it overwritten (OW
// update).
func setKeyFlags(args [][]byte, keys []int) []KeyFlag {
	for _, a := range args[3:] {
		if argIsC(a, "GET") {
			return []KeyFlag{ksRWAccessUpd}
		}
	}
	return []KeyFlag{ksOWUpdate}
}

// bitfieldKeyFlags is BITFIELD's VarKeyFlags, as Redis's bitfieldGetKeys:
// GET and OVERFLOW with their arguments read the key (RO access); SET,
// INCRBY or anything unparsable writes it (RW access update).
func bitfieldKeyFlags(args [][]byte, keys []int) []KeyFlag {
	for i := 2; i < len(args); i++ {
		left := len(args) - i - 1
		switch a := args[i]; {
		case argIsC(a, "GET") && left >= 2:
			i += 2
		case argIsC(a, "OVERFLOW") && left >= 1:
			i++
		default: // SET, INCRBY, or a syntax error Redis treats as a write
			return []KeyFlag{ksRWAccessUpd}
		}
	}
	return []KeyFlag{ksROAccess}
}
