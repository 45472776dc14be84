package resp

import (
	"math"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
)

// objectCommands is OBJECT (Redis group "generic"): ENCODING, FREQ,
// IDLETIME, REFCOUNT and HELP, with redis 7.0's rows (arity, flags, key
// specs, tips). Each reads the key's metadata without counting as an
// access (engine.DB.Info), as Redis's objectCommandLookup.
func objectCommands() []*Command {
	const g = "generic"
	return []*Command{
		{Name: "object", Arity: -2, Group: g, Since: "2.2.3", Summary: "A container for object introspection commands", Run: cmdObjectContainer,
			Subcommands: []*Command{
				{Name: "object|encoding", Arity: 3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, Since: "2.2.3", Summary: "Inspect the internal encoding of a Redis object", Run: cmdObjectEncoding},
				{Name: "object|freq", Arity: 3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, Since: "4.0.0", Summary: "Get the logarithmic access frequency counter of a Redis object", Run: cmdObjectFreq},
				{Name: "object|idletime", Arity: 3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, Since: "2.2.3", Summary: "Get the time since a Redis object was last accessed", Run: cmdObjectIdletime},
				{Name: "object|refcount", Arity: 3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, Since: "2.2.3", Summary: "Get the number of references to the value of the key", Run: cmdObjectRefcount},
				{Name: "object|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: g, Since: "6.2.0", Summary: "Show helpful text about the different subcommands", Run: cmdObjectHelp},
			}},
	}
}

// cmdObjectContainer runs only if dispatch hands over OBJECT without a
// subcommand it resolved; arity and subcommand lookup normally answer
// before.
func cmdObjectContainer(c *Client, args [][]byte) {
	if len(args) < 2 {
		c.w.Error(WrongArgs("object"))
		return
	}
	c.w.Error(UnknownSubcommand("object", args[1]))
}

// objectLookup is Redis's objectCommandLookupOrReply: the key's metadata
// without touching it, or a null reply. It counts a hit or a miss.
func objectLookup(c *Client, key []byte) (engine.KeyInfo, bool) {
	info, ok := c.db.Info(key)
	c.countLookup(ok)
	if !ok {
		c.w.Null()
	}
	return info, ok
}

func cmdObjectEncoding(c *Client, args [][]byte) {
	if info, ok := objectLookup(c, args[2]); ok {
		c.w.BulkString(info.Encoding.String())
	}
}

// lfuPolicy and lruPolicy classify maxmemory-policy as Redis's
// MAXMEMORY_FLAG_LFU and MAXMEMORY_FLAG_LRU do.
func lfuPolicy(p conf.MaxMemoryPolicy) bool {
	return p == conf.VolatileLFU || p == conf.AllKeysLFU
}

func lruPolicy(p conf.MaxMemoryPolicy) bool {
	return p == conf.VolatileLRU || p == conf.AllKeysLRU
}

// cmdObjectFreq needs an LFU policy. The engine keeps an access time but
// no LFU counter, so the reply is Redis's counter for a key that was
// written and not read since: LFU_INIT_VAL decayed by one per
// lfu-decay-time minutes of idleness.
func cmdObjectFreq(c *Client, args [][]byte) {
	info, ok := objectLookup(c, args[2])
	if !ok {
		return
	}
	if !lfuPolicy(c.fe.cfg.MaxMemoryPolicy()) {
		c.w.Error(ErrLFUNotSelected)
		return
	}
	c.w.Int(info.Freq)
}

// cmdObjectIdletime replies whole seconds since the last access; under an
// LFU policy Redis does not track it and says so.
func cmdObjectIdletime(c *Client, args [][]byte) {
	info, ok := objectLookup(c, args[2])
	if !ok {
		return
	}
	if lfuPolicy(c.fe.cfg.MaxMemoryPolicy()) {
		c.w.Error(ErrLFUSelected)
		return
	}
	c.w.Int(info.IdleMs / 1000)
}

// sharedRefcount is Redis's OBJ_SHARED_REFCOUNT (INT_MAX), what OBJECT
// REFCOUNT shows for its shared integer objects.
const sharedRefcount = math.MaxInt32

// sharedIntegers is Redis's OBJ_SHARED_INTEGERS: values 0..9999 written as
// integers share one object each.
const sharedIntegers = 10000

// cmdObjectRefcount is OBJECT REFCOUNT key (refcountOf).
func cmdObjectRefcount(c *Client, args [][]byte) {
	if info, ok := objectLookup(c, args[2]); ok {
		c.w.Int(refcountOf(c, info.Type, info.Encoding, info.Value))
	}
}

// refcountOf mirrors Redis 7.0's object sharing: a string holding an
// integer in [0, 10000) is a shared object (refcount INT_MAX) unless
// maxmemory is set with an LRU or LFU policy
// (MAXMEMORY_FLAG_NO_SHARED_INTEGERS); every other value has refcount 1.
// Redis decides when the value is written; Tandem decides from the
// configuration at the time of the call.
func refcountOf(c *Client, typ engine.Type, enc engine.Encoding, value []byte) int64 {
	p := c.fe.cfg.MaxMemoryPolicy()
	shares := c.fe.cfg.MaxMemory() == 0 || !(lruPolicy(p) || lfuPolicy(p))
	if typ == engine.TypeString && enc == engine.EncInt && shares {
		if v, ok := num.ParseInt(value); ok && v >= 0 && v < sharedIntegers {
			return sharedRefcount
		}
	}
	return 1
}

// objectHelp is OBJECT HELP's text, line for line as redis 7.0 prints it.
var objectHelp = []string{
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
}

func cmdObjectHelp(c *Client, args [][]byte) { c.help(args[0], objectHelp) }
