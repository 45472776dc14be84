package resp

import (
	"bytes"
	"math"

	"github.com/tandemkv/tandem/engine"
)

// keyCommands is the generic key family (Redis group "generic"). Arity,
// flags, key positions, since and summary are redis 7.0's COMMAND INFO and
// COMMAND DOCS.
func keyCommands() []*Command {
	const g = "generic"
	return []*Command{
		{Name: "del", Arity: -2, Flags: FlagWrite, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksRMDelete}, Group: g, Since: "1.0.0", Summary: "Delete a key", Run: cmdDel},
		{Name: "unlink", Arity: -2, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksRMDelete}, Group: g, Since: "4.0.0", Summary: "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.", Run: cmdDel},
		{Name: "exists", Arity: -2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, Since: "1.0.0", Summary: "Determine if a key exists", Run: cmdExists},
		{Name: "expire", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "1.0.0", Summary: "Set a key's time to live in seconds", Run: cmdExpire},
		{Name: "pexpire", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "2.6.0", Summary: "Set a key's time to live in milliseconds", Run: cmdPexpire},
		{Name: "expireat", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "1.2.0", Summary: "Set the expiration for a key as a UNIX timestamp", Run: cmdExpireat},
		{Name: "pexpireat", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "2.6.0", Summary: "Set the expiration for a key as a UNIX timestamp specified in milliseconds", Run: cmdPexpireat},
		{Name: "ttl", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "1.0.0", Summary: "Get the time to live for a key in seconds", Run: cmdTTL},
		{Name: "pttl", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "2.6.0", Summary: "Get the time to live for a key in milliseconds", Run: cmdPTTL},
		{Name: "expiretime", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "7.0.0", Summary: "Get the expiration Unix timestamp for a key", Run: cmdExpiretime},
		{Name: "pexpiretime", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "7.0.0", Summary: "Get the expiration Unix timestamp for a key in milliseconds", Run: cmdPexpiretime},
		{Name: "persist", Arity: 2, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, Since: "2.2.0", Summary: "Remove the expiration from a key", Run: cmdPersist},
		{Name: "type", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, Since: "1.0.0", Summary: "Determine the type stored at key", Run: cmdType},
		{Name: "keys", Arity: 2, Flags: FlagReadonly, Group: g, ACL: []string{"@dangerous"}, Since: "1.0.0", Summary: "Find all keys matching the given pattern", Run: cmdKeys},
		{Name: "scan", Arity: -2, Flags: FlagReadonly, Group: g, Since: "2.8.0", Summary: "Incrementally iterate the keys space", Run: cmdScan},
		{Name: "randomkey", Arity: 1, Flags: FlagReadonly, Group: g, Since: "1.0.0", Summary: "Return a random key from the keyspace", Run: cmdRandomKey},
		{Name: "rename", Arity: 3, Flags: FlagWrite, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel, ksOWUpdate}, Group: g, Since: "1.0.0", Summary: "Rename a key", Run: cmdRename},
		{Name: "renamenx", Arity: 3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel, ksOWInsert}, Group: g, Since: "1.0.0", Summary: "Rename a key, only if the new key does not exist", Run: cmdRenameNX},
		{Name: "touch", Arity: -2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, Since: "3.2.1", Summary: "Alters the last access time of a key(s). Returns the number of existing keys specified.", Run: cmdTouch},
		{Name: "copy", Arity: -3, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksROAccess, ksOWUpdate}, Group: g, Since: "6.2.0", Summary: "Copy a key", Run: cmdCopy},
		{Name: "move", Arity: 3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: g, Since: "1.0.0", Summary: "Move a key to another database", Run: cmdMove},
	}
}

// cmdDel is DEL and UNLINK: the engine frees values without blocking the
// loop either way, so UNLINK needs no thread of its own.
func cmdDel(c *Client, args [][]byte) {
	// One key at a time, as Redis: a key's "del" comes before the next
	// key's lazy "expired".
	n := 0
	for _, k := range args[1:] {
		if c.db.Delete(k) > 0 {
			n++
			c.notify(evGeneric, "del", k)
		}
	}
	c.w.Int(int64(n))
}

// cmdExists counts a key given twice twice, as Redis does.
func cmdExists(c *Client, args [][]byte) {
	c.w.Int(int64(c.db.Exists(args[1:]...)))
}

func cmdTouch(c *Client, args [][]byte) {
	c.w.Int(int64(c.db.Touch(args[1:]...)))
}

func cmdExpire(c *Client, args [][]byte)    { expireGeneric(c, args, "expire", c.nowMs(), true) }
func cmdPexpire(c *Client, args [][]byte)   { expireGeneric(c, args, "pexpire", c.nowMs(), false) }
func cmdExpireat(c *Client, args [][]byte)  { expireGeneric(c, args, "expireat", 0, true) }
func cmdPexpireat(c *Client, args [][]byte) { expireGeneric(c, args, "pexpireat", 0, false) }

// expireGeneric is Redis's expireGenericCommand: the options are checked
// first, then the time (an integer, which may be negative: a time in the
// past deletes the key and replies 1); only an overflow of the unit
// conversion or of base+time is an error. base is now for the relative
// forms and 0 for the absolute ones.
func expireGeneric(c *Client, args [][]byte, name string, base int64, seconds bool) {
	var cond engine.ExpireCond
	for _, a := range args[3:] {
		switch {
		case argIsC(a, "NX"):
			cond |= engine.ExpireNX
		case argIsC(a, "XX"):
			cond |= engine.ExpireXX
		case argIsC(a, "GT"):
			cond |= engine.ExpireGT
		case argIsC(a, "LT"):
			cond |= engine.ExpireLT
		default:
			c.w.Error(ErrUnsupportedOption + cutC(string(a), len(a)))
			return
		}
	}
	if cond&engine.ExpireNX != 0 && cond&(engine.ExpireXX|engine.ExpireGT|engine.ExpireLT) != 0 {
		c.w.Error(ErrExpireNXConflict)
		return
	}
	if cond&engine.ExpireGT != 0 && cond&engine.ExpireLT != 0 {
		c.w.Error(ErrExpireGTLT)
		return
	}
	when, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.w.Error(invalidExpire(name))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		c.w.Error(invalidExpire(name))
		return
	}
	when += base
	ok, deleted := c.db.Expire(args[1], when, cond)
	switch { // propagated as Redis's expireGenericCommand rewrites it
	case deleted:
		c.notify(evGeneric, "del", args[1])
		c.propagateAs(delArg(c.fe.cfg.LazyfreeLazyExpire()), args[1])
	case ok:
		c.notify(evGeneric, "expire", args[1])
		if c.propagating() && name != "pexpireat" { // PEXPIREAT goes as it came

			pargs := append([][]byte{argPEXPIREAT, args[1], msArg(when)}, args[3:]...)
			c.propagateAs(pargs...)
		}
	}
	c.w.Int(int01(ok))
}

func cmdTTL(c *Client, args [][]byte)         { ttlGeneric(c, args[1], false, false) }
func cmdPTTL(c *Client, args [][]byte)        { ttlGeneric(c, args[1], true, false) }
func cmdExpiretime(c *Client, args [][]byte)  { ttlGeneric(c, args[1], false, true) }
func cmdPexpiretime(c *Client, args [][]byte) { ttlGeneric(c, args[1], true, true) }

// ttlGeneric is Redis's ttlGenericCommand: -2 for a missing key, -1 for no
// expiry, else the time left (or the absolute time with abs), in ms or
// rounded to the nearest second as (ms+500)/1000, which rounds EXPIRETIME
// too. The sum is unsigned, as redis-server's compiled code does it (the
// time is never negative there): an expiry near 2^63 ms rounds up to
// 9223372036854776, not round a wrapped, negative sum.
func ttlGeneric(c *Client, key []byte, ms, abs bool) {
	info, ok := c.db.Info(key)
	c.countLookup(ok)
	switch {
	case !ok:
		c.w.Int(-2)
		return
	case info.ExpireAt == 0:
		c.w.Int(-1)
		return
	}
	t := info.ExpireAt
	if !abs {
		t = max(t-c.nowMs(), 0)
	}
	if !ms {
		t = int64((uint64(t) + 500) / 1000)
	}
	c.w.Int(t)
}

// countLookup records a TTL/TYPE/OBJECT read in the keyspace hit and miss
// counters, which Redis counts for these commands.
func (c *Client) countLookup(hit bool) {
	if hit {
		c.db.CountLookups(1, 0)
	} else {
		c.db.CountLookups(0, 1)
	}
}

func cmdPersist(c *Client, args [][]byte) {
	ok := c.db.Persist(args[1])
	if ok {
		c.notify(evGeneric, "persist", args[1])
	}
	c.w.Int(int01(ok))
}

func cmdType(c *Client, args [][]byte) {
	info, ok := c.db.Info(args[1])
	c.countLookup(ok)
	c.w.Status(info.Type.String()) // TypeNone is "none"
}

// cmdKeys replies every live key matching the pattern, in no set order.
// Keys are gathered into a side buffer because the array header needs the
// count first and the engine's callback runs under a shard lock.
func cmdKeys(c *Client, args [][]byte) {
	tmp := Writer{Proto: c.w.Proto}
	n := 0
	c.db.Keys(args[1], func(k []byte) {
		tmp.Bulk(k)
		n++
	})
	c.w.Array(n)
	c.w.Raw(tmp.Buf)
}

// noSuchType is a type no entry has: SCAN TYPE with a name Redis 7.0 does
// not know matches nothing
// but still walks the keyspace and returns a cursor, as Redis does.
const noSuchType = engine.Type(0xff)

// scanTypeByName maps a SCAN TYPE argument to an engine type as Redis 7.0
// compares it: strcasecmp against the type name, so only the bytes before
// a NUL count.
func scanTypeByName(a []byte) engine.Type {
	for _, t := range []engine.Type{engine.TypeString, engine.TypeList, engine.TypeHash, engine.TypeSet, engine.TypeZSet, engine.TypeStream} {
		if argIsC(a, upperASCII(t.String())) {
			return t
		}
	}
	return noSuchType
}

// upperASCII upper-cases a short ASCII word for argIs.
func upperASCII(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if ch >= 'a' && ch <= 'z' {
			b[i] = ch - ('a' - 'A')
		}
	}
	return string(b)
}

// cmdScan is SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. The
// cursor is the engine's opaque position, replied as a decimal bulk
// string; a key present for the whole iteration is returned at least once.
func cmdScan(c *Client, args [][]byte) {
	cursor, ok := c.scanCursorArg(args[1])
	if !ok {
		return
	}
	o, optErr := scanOptions(args, 2, true)
	if optErr != "" {
		c.w.Error(optErr)
		return
	}
	tmp := Writer{Proto: c.w.Proto}
	n := 0
	next := c.db.Scan(cursor, o.batch(), o.pattern, o.typ, func(k []byte) {
		tmp.Bulk(k)
		n++
	})
	c.writeScanPage(next, n, tmp.Buf)
}

func cmdRandomKey(c *Client, _ [][]byte) {
	if k, ok := c.db.RandomKey(); ok {
		c.w.Bulk(k)
		return
	}
	c.w.Null()
}

// cmdRename replies OK, also for RENAME k k when k exists.
func cmdRename(c *Client, args [][]byte) {
	if _, err := c.db.Rename(args[1], args[2], false); err != nil {
		c.engineError(err)
		return
	}
	c.notifyRename(args[1], args[2])
	c.w.Status("OK")
}

// cmdRenameNX replies 0 when the destination exists, and for RENAMENX k k.
func cmdRenameNX(c *Client, args [][]byte) {
	done, err := c.db.Rename(args[1], args[2], true)
	if err != nil {
		c.engineError(err)
		return
	}
	if done {
		c.notifyRename(args[1], args[2])
	}
	c.w.Int(int01(done))
}

// cmdCopy is COPY source destination [DB n] [REPLACE]. As in Redis, the
// options are checked first, then "same object" (before the source's
// existence: COPY nokey nokey is an error, not 0).
func cmdCopy(c *Client, args [][]byte) {
	dstNum := c.db.Num()
	replace := false
	for j := 3; j < len(args); j++ {
		switch {
		case argIsC(args[j], "REPLACE"):
			replace = true
		case argIsC(args[j], "DB") && j+1 < len(args):
			n, ok := c.targetDBArg(args[j+1])
			if !ok {
				return
			}
			dstNum = n
			j++
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	if dstNum == c.db.Num() && bytes.Equal(args[1], args[2]) {
		c.w.Error(ErrSameObject)
		return
	}
	dst := c.fe.eng.DB(dstNum).WithEvents(&c.events)
	dst.NoTouch = c.db.NoTouch
	done, err := c.db.Copy(args[1], dst, args[2], replace)
	if err != nil {
		c.engineError(err)
		return
	}
	if done {
		dst.Notify(evGeneric, "copy_to", args[2])
	}
	c.w.Int(int01(done))
}

// targetDBArg parses a database index argument as COPY and MOVE do: an int
// (ErrNotInteger, ErrIntRange), then within the configured databases
// (ErrDBIndex).
func (c *Client) targetDBArg(b []byte) (int, bool) {
	n, ok := c.int32Arg(b)
	if !ok {
		return 0, false
	}
	if n < 0 || n >= c.fe.databases() {
		c.w.Error(ErrDBIndex)
		return 0, false
	}
	return n, true
}

// cmdMove replies 0 when the key is missing or exists in the target
// database; moving to the current database is an error even for a missing
// key.
func cmdMove(c *Client, args [][]byte) {
	n, ok := c.targetDBArg(args[2])
	if !ok {
		return
	}
	dst := c.fe.eng.DB(n).WithEvents(&c.events)
	dst.NoTouch = c.db.NoTouch
	done, err := c.db.Move(args[1], dst)
	if err != nil {
		c.engineError(err)
		return
	}
	if done {
		c.notify(evGeneric, "move_from", args[1])
		dst.Notify(evGeneric, "move_to", args[1])
	}
	c.w.Int(int01(done))
}

// int01 is the 1 or 0 integer these commands reply in RESP2 and RESP3
// alike (Redis sends them as integers, not RESP3 booleans).
func int01(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
