package resp

import (
	"bytes"
	"errors"
	"math"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/services"
	"github.com/tandemkv/tandem/snapshot"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

// DUMP, RESTORE and MIGRATE: a key's value serialized as redis-server 7.0
// serializes it (snapshot/rdb's DUMP payloads), so payloads and MIGRATE go
// both ways between Tandem and Redis.
//
// DUMP hands the engine's view of the key (engine.DB.Dump: elements and
// encoding, under the shard lock) to rdb.AppendDump, which writes the RDB
// type Redis would choose for that encoding, built as Redis builds it.
// RESTORE checks what Redis checks, in Redis's order (options, BUSYKEY,
// the TTL, the footer, the value), and writes the key with
// engine.DB.RestoreKey, replacing and storing in one step. MIGRATE
// (cmd_dump_migrate.go) dumps the keys, sends RESTOREs to the target and
// deletes what the target took.

// dumpCommands are DUMP, RESTORE, RESTORE-ASKING and MIGRATE, Redis's
// "generic" group (RESTORE-ASKING is in "server"). Arity, flags, key
// positions, since and summary are redis 7.0's COMMAND INFO and COMMAND
// DOCS.
func dumpCommands() []*Command {
	const g = "generic"
	return []*Command{
		{Name: "dump", Arity: 2, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksROAccess},
			Group: g, Since: "2.6.0", Summary: "Return a serialized version of the value stored at the specified key.", Run: cmdDump},
		{Name: "restore", Arity: -4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate},
			Group: g, ACL: []string{"@dangerous"}, Since: "2.6.0", Summary: "Create a key using the provided serialized value, previously obtained using DUMP.", Run: cmdRestore},
		{Name: "restore-asking", Arity: -4, Flags: FlagWrite | FlagDenyOOM | FlagAsking, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate},
			Group: "server", ACL: []string{"@keyspace", "@dangerous"}, Since: "3.0.0", Summary: "An internal command for migrating keys in a cluster", Run: cmdRestore},
		{Name: "migrate", Arity: -6, Flags: FlagWrite, FirstKey: 3, LastKey: 3, KeyStep: 1, Keys: migrateKeys, KeyFlags: []KeyFlag{ksRWAccessDel},
			Group: g, ACL: []string{"@dangerous"}, Since: "2.6.0", Summary: "Atomically transfer a key from a Redis instance to another one.", Run: cmdMigrate},
	}
}

// Dump family: error texts of cmd_dump.go and cmd_dump_migrate.go, checked
// against redis-server 7.0.15.
const (
	ErrBusyKey         = "BUSYKEY Target key name already exists."
	ErrDumpPayload     = "ERR DUMP payload version or checksum are wrong"
	ErrBadDataFormat   = "ERR Bad data format"
	ErrInvalidTTL      = "ERR Invalid TTL value, must be >= 0"
	ErrInvalidIdletime = "ERR Invalid IDLETIME value, must be >= 0"
	ErrInvalidFreq     = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	// ErrMigrateKeysArg: MIGRATE ... KEYS with a key argument that is not "".
	ErrMigrateKeysArg = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	// MIGRATE's transport errors; Redis's own texts ("to the client" and
	// "reading to" included).
	ErrMigrateConnect = "IOERR error or timeout connecting to the client"
	ErrMigrateWrite   = "IOERR error or timeout writing to target instance"
	ErrMigrateRead    = "IOERR error or timeout reading to target instance"
	// ErrMigrateTarget is followed by the target's error line without its '-'.
	ErrMigrateTarget = "ERR Target instance replied with error: "
)

// dumpOptions are the payload encoding the configuration asks for now.
func (c *Client) dumpOptions() rdb.DumpOptions {
	return rdb.DumpOptions{Compress: c.fe.cfg.RDBCompression(), ListFill: c.fe.cfg.ListMaxListpackSize(),
		PackedThreshold: int(c.fe.debug.packedThreshold.Load())}
}

// appendPayload appends the DUMP payload of a dumped key.
func appendPayload(dst []byte, it *engine.SnapItem, info engine.DumpInfo, o rdb.DumpOptions) ([]byte, error) {
	v := rdb.Value{Str: it.Value, Elems: it.Elems, Fields: it.Fields, Values: it.Values, IntsetWidth: info.IntsetWidth}
	switch it.Type {
	case engine.TypeString:
		v.Type = rdb.String
	case engine.TypeList:
		v.Type = rdb.List
	case engine.TypeSet:
		v.Type = rdb.Set
	case engine.TypeHash:
		v.Type = rdb.Hash
	case engine.TypeZSet:
		v.Type = rdb.ZSet
		v.Members = make([]rdb.Member, len(it.Members))
		for i, m := range it.Members {
			v.Members[i] = rdb.Member{Member: m.Member, Score: m.Score}
		}
	case engine.TypeStream:
		v.Type = rdb.StreamType
		v.Stream = snapshot.StreamToRDB(it.Stream)
	}
	switch info.Encoding {
	case engine.EncQuicklist:
		v.Encoding = rdb.EncodingQuicklist
	case engine.EncIntset:
		v.Encoding = rdb.EncodingIntset
	case engine.EncHashtable:
		v.Encoding = rdb.EncodingHashtable
	case engine.EncListpack:
		v.Encoding = rdb.EncodingListpack
	case engine.EncSkiplist:
		v.Encoding = rdb.EncodingSkiplist
	}
	return rdb.AppendDump(dst, &v, o)
}

// dumpKey returns key's payload and expiry (unix ms, 0 for none); ok is
// false for a missing key. The lookup is a read (an access, a keyspace
// hit or miss), as Redis's.
func (c *Client) dumpKey(key []byte, o rdb.DumpOptions) (payload []byte, expireAt int64, ok bool, err error) {
	ok = c.db.Dump(key, func(it *engine.SnapItem, info engine.DumpInfo) {
		payload, err = appendPayload(nil, it, info, o)
		expireAt = it.ExpireAt
	})
	return payload, expireAt, ok, err
}

// cmdDump is DUMP key: the payload, or a null for a missing key.
func cmdDump(c *Client, args [][]byte) {
	payload, _, ok, err := c.dumpKey(args[1], c.dumpOptions())
	switch {
	case !ok:
		c.w.Null()
	case err != nil: // an engine value no payload holds: a bug
		c.w.Error("ERR " + err.Error())
	default:
		c.w.Bulk(payload)
	}
}

// restoreArgs are RESTORE's options.
type restoreArgs struct {
	replace, absTTL bool
	idle            int64 // IDLETIME seconds; -1 = not given
	freq            int64 // FREQ; -1 = not given
}

// parseRestoreOptions reads the options after the payload as Redis's
// restoreCommand: REPLACE and ABSTTL any number of times; IDLETIME and
// FREQ each need a value and exclude each other (the second one given is
// a syntax error); a value that is not an integer is ErrNotInteger,
// one out of range its own error, checked as it is met.
func (c *Client) parseRestoreOptions(opts [][]byte) (restoreArgs, bool) {
	o := restoreArgs{idle: -1, freq: -1}
	for j := 0; j < len(opts); j++ {
		more := len(opts) - j - 1
		switch a := opts[j]; {
		case argIsC(a, "REPLACE"):
			o.replace = true
		case argIsC(a, "ABSTTL"):
			o.absTTL = true
		case argIsC(a, "IDLETIME") && more >= 1 && o.freq == -1:
			v, ok := c.intArg(opts[j+1])
			if !ok {
				return o, false
			}
			if v < 0 {
				c.w.Error(ErrInvalidIdletime)
				return o, false
			}
			o.idle = v
			j++
		case argIsC(a, "FREQ") && more >= 1 && o.idle == -1:
			v, ok := c.intArg(opts[j+1])
			if !ok {
				return o, false
			}
			if v < 0 || v > 255 {
				c.w.Error(ErrInvalidFreq)
				return o, false
			}
			o.freq = v
			j++
		default:
			c.w.Error(ErrSyntax)
			return o, false
		}
	}
	return o, true
}

// cmdRestore is RESTORE (and RESTORE-ASKING, the same without a cluster)
// key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f].
func cmdRestore(c *Client, args [][]byte) {
	key := args[1]
	o, ok := c.parseRestoreOptions(args[4:])
	if !ok {
		return
	}
	if !o.replace {
		// Redis refuses an existing key before it looks at the TTL or
		// the payload; RestoreKey checks again, atomically.
		if _, exists := c.db.Info(key); exists {
			c.w.Error(ErrBusyKey)
			return
		}
	}
	ttl, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if ttl < 0 {
		c.w.Error(ErrInvalidTTL)
		return
	}
	v, err := rdb.DecodeDump(args[3])
	switch {
	case errors.Is(err, rdb.ErrDumpFooter):
		c.w.Error(ErrDumpPayload)
		return
	case err != nil:
		c.w.Error(ErrBadDataFormat)
		return
	}
	if ttl != 0 && !o.absTTL {
		ttl += c.nowMs() // wraps past int64 as Redis's does: then long expired
	}
	it := snapItemOf(key, v, ttl)
	lim := services.EncodingLimits(c.fe.cfg)
	if v.Encoding == rdb.EncodingListpack {
		// Redis keeps a listpack payload one unless it has too many
		// entries: it does not scan the values' lengths.
		lim.Hash.MaxListpackValue, lim.ZSet.MaxListpackValue = math.MaxInt, math.MaxInt
	}
	res, err := c.db.RestoreKey(it, engine.RestoreOptions{Replace: o.replace, Limits: lim,
		IdleSeconds: o.idle, Freq: int(o.freq), IntsetWidth: v.IntsetWidth})
	switch {
	case err == engine.ErrBusyKey:
		c.w.Error(ErrBusyKey)
		return
	case err != nil:
		c.engineError(err)
		return
	}
	switch { // propagated as Redis's restoreCommand rewrites it
	case res.Stored:
		c.notify(evGeneric, "restore", key)
		if ttl != 0 && !o.absTTL && c.propagating() {
			pargs := append([][]byte{args[0], key, msArg(ttl)}, args[3:]...)
			c.propagateAs(append(pargs, []byte("ABSTTL"))...)
		}
	case res.Replaced: // the replaced key is gone, the value already expired
		c.notify(evGeneric, "del", key)
		c.propagateAs(argDEL, key)
	}
	c.w.Status("OK")
}

// snapItemOf is the engine's form of a decoded payload for key.
func snapItemOf(key []byte, v *rdb.Value, expireAt int64) *engine.SnapItem {
	it := &engine.SnapItem{Key: key, ExpireAt: expireAt, Value: v.Str, Elems: v.Elems, Fields: v.Fields, Values: v.Values}
	switch v.Type {
	case rdb.String:
		it.Type = engine.TypeString
	case rdb.List:
		it.Type = engine.TypeList
	case rdb.Set:
		it.Type = engine.TypeSet
	case rdb.Hash:
		it.Type = engine.TypeHash
	case rdb.ZSet:
		it.Type = engine.TypeZSet
		it.Members = make([]engine.ZMember, len(v.Members))
		for i, m := range v.Members {
			it.Members[i] = engine.ZMember{Member: m.Member, Score: m.Score}
		}
	case rdb.StreamType:
		it.Type = engine.TypeStream
		it.Stream = snapshot.StreamFromRDB(v.Stream)
	}
	return it
}

// sameDump reports whether a dumped key still has the payload and expiry
// it had (MIGRATE deletes only what it sent).
func sameDump(payload []byte, expireAt int64, o rdb.DumpOptions) func(it *engine.SnapItem, info engine.DumpInfo) bool {
	return func(it *engine.SnapItem, info engine.DumpInfo) bool {
		if it.ExpireAt != expireAt {
			return false
		}
		now, err := appendPayload(nil, it, info, o)
		return err == nil && bytes.Equal(now, payload)
	}
}
