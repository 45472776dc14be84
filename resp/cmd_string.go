package resp

import (
	"bytes"
	"fmt"
	"math"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/propagate"
)

// stringCommands is the string family (Redis group "string"). Arity, flags,
// key positions, since and summary are redis 7.0.15's (COMMAND INFO and
// COMMAND DOCS).
func stringCommands() []*Command {
	const (
		w  = FlagWrite
		wd = FlagWrite | FlagDenyOOM
		ro = FlagReadonly
		f  = FlagFast
	)
	return []*Command{
		{Name: "get", Arity: 2, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: "string", Since: "1.0.0", Summary: "Get the value of a key", Run: cmdGet},
		{Name: "set", Arity: -3, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksVarAccessUpd}, VarKeyFlags: setKeyFlags, Group: "string", Since: "1.0.0", Summary: "Set the string value of a key", Run: cmdSet},
		{Name: "setnx", Arity: 3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksOWInsert}, Group: "string", Since: "1.0.0", Summary: "Set the value of a key, only if the key does not exist", Run: cmdSetNX},
		{Name: "setex", Arity: 4, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate}, Group: "string", Since: "2.0.0", Summary: "Set the value and expiration of a key", Run: cmdSetEX},
		{Name: "psetex", Arity: 4, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate}, Group: "string", Since: "2.6.0", Summary: "Set the value and expiration in milliseconds of a key", Run: cmdPSetEX},
		{Name: "mget", Arity: -2, Flags: ro | f, FirstKey: 1, LastKey: -1, KeyStep: 1, Group: "string", Since: "1.0.0", Summary: "Get the values of all the given keys", Run: cmdMGet},
		{Name: "mset", Arity: -3, Flags: wd, FirstKey: 1, LastKey: -1, KeyStep: 2, KeyFlags: []KeyFlag{ksOWUpdate}, Group: "string", Since: "1.0.1", Summary: "Set multiple keys to multiple values", Run: cmdMSet},
		{Name: "msetnx", Arity: -3, Flags: wd, FirstKey: 1, LastKey: -1, KeyStep: 2, KeyFlags: []KeyFlag{ksOWInsert}, Group: "string", Since: "1.0.1", Summary: "Set multiple keys to multiple values, only if none of the keys exist", Run: cmdMSetNX},
		{Name: "getset", Arity: 3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: "string", Since: "1.0.0", Summary: "Set the string value of a key and return its old value", Run: cmdGetSet},
		{Name: "getdel", Arity: 2, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: "string", Since: "6.2.0", Summary: "Get the value of a key and delete the key", Run: cmdGetDel},
		{Name: "getex", Arity: -2, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: "string", Since: "6.2.0", Summary: "Get the value of a key and optionally set its expiration", Run: cmdGetEx},
		{Name: "append", Arity: 3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: "string", Since: "2.0.0", Summary: "Append a value to a key", Run: cmdAppend},
		{Name: "strlen", Arity: 2, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: "string", Since: "2.2.0", Summary: "Get the length of the value stored in a key", Run: cmdStrlen},
		{Name: "incr", Arity: 2, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: "string", Since: "1.0.0", Summary: "Increment the integer value of a key by one", Run: cmdIncr},
		{Name: "decr", Arity: 2, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: "string", Since: "1.0.0", Summary: "Decrement the integer value of a key by one", Run: cmdDecr},
		{Name: "incrby", Arity: 3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: "string", Since: "1.0.0", Summary: "Increment the integer value of a key by the given amount", Run: cmdIncrBy},
		{Name: "decrby", Arity: 3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: "string", Since: "1.0.0", Summary: "Decrement the integer value of a key by the given number", Run: cmdDecrBy},
		{Name: "incrbyfloat", Arity: 3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: "string", Since: "2.6.0", Summary: "Increment the float value of a key by the given amount", Run: cmdIncrByFloat},
		{Name: "getrange", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: "string", Since: "2.4.0", Summary: "Get a substring of the string stored at a key", Run: cmdGetRange},
		{Name: "substr", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: "string", Since: "1.0.0", Summary: "Get a substring of the string stored at a key", Run: cmdGetRange},
		{Name: "setrange", Arity: 4, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: "string", Since: "2.2.0", Summary: "Overwrite part of a string at key starting at the specified offset", Run: cmdSetRange},
		{Name: "lcs", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 2, KeyStep: 1, Group: "string", Since: "7.0.0", Summary: "Find longest common substring", Run: cmdLCS},
	}
}

// cmdGet is GET key. It allocates nothing: the engine hands back the
// stored (immutable) value and the writer appends it to the reply buffer;
// a compressed value comes in a pooled buffer, handed back once copied.
func cmdGet(c *Client, args [][]byte) {
	it, ok, err := c.db.Get(args[1])
	switch {
	case err != nil:
		c.engineError(err)
	case !ok:
		c.w.Null()
	default:
		c.w.Bulk(it.Value)
		it.Release()
	}
}

// expireWord is which of EX, PX, EXAT, PXAT an expiry was given with.
type expireWord uint8

const (
	expNone expireWord = iota
	expEX
	expPX
	expEXAT
	expPXAT
)

// expireWordOf returns the expiry word opt spells, expNone if none.
func expireWordOf(opt []byte) expireWord {
	switch {
	case argIs(opt, "EX"):
		return expEX
	case argIs(opt, "PX"):
		return expPX
	case argIs(opt, "EXAT"):
		return expEXAT
	case argIs(opt, "PXAT"):
		return expPXAT
	}
	return expNone
}

// stringOptions are the options SET and GETEX share, as Redis 7.0's
// parseExtendedStringArgumentsOrReply collects them. The expiry value is
// kept unparsed: Redis reads it only after every option word is accepted
// ("SET k v EX abc NX XX" is a syntax error, not a number error).
type stringOptions struct {
	nx, xx, get, keepTTL, persist bool
	exp                           expireWord
	expArg                        []byte
}

// cWord returns the bytes of arg that C's strcasecmp sees: those before
// its first NUL. Redis 7.0 takes "NX\x00junk" for NX.
func cWord(arg []byte) []byte {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		return arg[:i]
	}
	return arg
}

// parseStringOptions reads the option words of SET (forSet) or GETEX from
// args[start:], with Redis 7.0's rules: NX and XX exclude each other;
// KEEPTTL (SET) and PERSIST (GETEX) exclude any expiry word; two different
// expiry words are a syntax error while a repeated one is accepted, the
// last value winning; a word that does not belong to the command is a
// syntax error. It replies the error itself.
func (c *Client) parseStringOptions(args [][]byte, start int, forSet bool) (stringOptions, bool) {
	var o stringOptions
	for j := start; j < len(args); j++ {
		opt := cWord(args[j])
		hasNext := j+1 < len(args)
		switch {
		case forSet && argIs(opt, "NX") && !o.xx:
			o.nx = true
		case forSet && argIs(opt, "XX") && !o.nx:
			o.xx = true
		case forSet && argIs(opt, "GET"):
			o.get = true
		case forSet && argIs(opt, "KEEPTTL") && o.exp == expNone:
			o.keepTTL = true
		case !forSet && argIs(opt, "PERSIST") && o.exp == expNone:
			o.persist = true
		default:
			w := expireWordOf(opt)
			if w == expNone || o.keepTTL || o.persist || (o.exp != expNone && o.exp != w) || !hasNext {
				c.w.Error(ErrSyntax)
				return o, false
			}
			o.exp, o.expArg = w, args[j+1]
			j++
		}
	}
	return o, true
}

// expireAtMs converts an expiry value to unix ms as Redis 7.0's
// getExpireMillisecondsOrReply: an integer above zero whose time in ms
// does not overflow. On failure it returns the error text and replies
// nothing, since GETEX must look the key up before it may complain.
func (c *Client) expireAtMs(w expireWord, arg []byte, cmdName string) (int64, string) {
	v, ok := num.ParseInt(arg)
	if !ok {
		return 0, ErrNotInteger
	}
	seconds := w == expEX || w == expEXAT
	if v <= 0 || (seconds && v > math.MaxInt64/1000) {
		return 0, invalidExpire(cmdName)
	}
	if seconds {
		v *= 1000
	}
	if w == expEX || w == expPX {
		now := c.nowMs()
		if v > math.MaxInt64-now {
			return 0, invalidExpire(cmdName)
		}
		v += now
	}
	return v, ""
}

func invalidExpire(cmdName string) string {
	return fmt.Sprintf(ErrInvalidExpire, cmdName)
}

// cmdSet is SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ts|KEEPTTL].
func cmdSet(c *Client, args [][]byte) {
	o, ok := c.parseStringOptions(args, 3, true)
	if !ok {
		return
	}
	c.setGeneric(args[1], args[2], o, "set", false)
}

// cmdSetNX is SETNX key value: :1 when set, :0 when the key existed.
func cmdSetNX(c *Client, args [][]byte) {
	c.setGeneric(args[1], args[2], stringOptions{nx: true}, "setnx", true)
}

// cmdSetEX is SETEX key seconds value.
func cmdSetEX(c *Client, args [][]byte) {
	c.setGeneric(args[1], args[3], stringOptions{exp: expEX, expArg: args[2]}, "setex", false)
}

// cmdPSetEX is PSETEX key milliseconds value.
func cmdPSetEX(c *Client, args [][]byte) {
	c.setGeneric(args[1], args[3], stringOptions{exp: expPX, expArg: args[2]}, "psetex", false)
}

// setGeneric is Redis's setGenericCommand: the expiry value is checked
// first, then GET reads the old value (a key of another type is
// WRONGTYPE, before NX/XX are looked at), then the write happens if NX/XX
// allow. The reply is the old value with GET; otherwise +OK or a null, or
// :1 and :0 for SETNX (intReply).
func (c *Client) setGeneric(key, value []byte, o stringOptions, cmdName string, intReply bool) {
	var so engine.SetOptions
	if o.exp != expNone {
		at, msg := c.expireAtMs(o.exp, o.expArg, cmdName)
		if msg != "" {
			c.w.Error(msg)
			return
		}
		so.TTL, so.ExpireAt = engine.TTLSet, at
	} else if o.keepTTL {
		so.TTL = engine.TTLKeep
	}
	switch {
	case o.nx:
		so.Cond = engine.CondAbsent
	case o.xx:
		so.Cond = engine.CondPresent
	}
	so.GetOld = o.get
	res, err := c.db.Set(key, value, so)
	if err == nil && res.Stored {
		c.notifySet(key, so.TTL == engine.TTLSet, res.Expired)
		c.propagateSet(key, value, so, o)
		if res.Expired && c.propagating() {
			// Gone at once (its expiry passed while it ran): the DEL its
			// expiry would have fed, as Redis's stream has it.
			c.fx.ops.AddAfter(c.db.Num(), propagate.AppendCommand(nil, delArg(c.fe.cfg.LazyfreeLazyExpire()), key))
		}
	}
	switch {
	case err != nil:
		c.engineError(err)
	case o.get && res.Existed:
		c.w.Bulk(res.Old.Value)
	case o.get:
		c.w.Null()
	case intReply && res.Stored:
		c.w.Int(1)
	case intReply:
		c.w.Int(0)
	case res.Stored:
		c.w.Status("OK")
	default:
		c.w.Null()
	}
}

// propagateSet records a stored SET's effect as Redis's setGenericCommand
// rewrites it: with an expiry, SET key value PXAT <ms> (every other
// option dropped: it held); with GET, the command without GET.
func (c *Client) propagateSet(key, value []byte, so engine.SetOptions, o stringOptions) {
	switch {
	case !c.propagating():
	case so.TTL == engine.TTLSet:
		c.propagateAs(argSET, key, value, argPXAT, msArg(so.ExpireAt))
	case o.get:
		args := [][]byte{argSET, key, value}
		if o.nx {
			args = append(args, []byte("NX"))
		}
		if o.xx {
			args = append(args, []byte("XX"))
		}
		if o.keepTTL {
			args = append(args, argKEEPTTL)
		}
		c.propagateAs(args...)
	}
}

// cmdGetSet is GETSET key value: SET GET without options, so the key's
// expiry is cleared.
func cmdGetSet(c *Client, args [][]byte) {
	res, err := c.db.Set(args[1], args[2], engine.SetOptions{GetOld: true})
	if err == nil {
		c.notify(evString, "set", args[1])
		c.propagateAs(argSET, args[1], args[2]) // as Redis's getsetCommand
	}
	switch {
	case err != nil:
		c.engineError(err)
	case res.Existed:
		c.w.Bulk(res.Old.Value)
	default:
		c.w.Null()
	}
}

// cmdGetDel is GETDEL key.
func cmdGetDel(c *Client, args [][]byte) {
	c.getEx(args[1], engine.ExpireChange{Mode: engine.TTLKeep}, true)
}

// cmdGetEx is GETEX key [EX s|PX ms|EXAT ts|PXAT ts|PERSIST]. As in Redis
// 7.0 the key is looked up before the expiry value is checked: a missing
// key answers null and another type WRONGTYPE whatever the value says.
func cmdGetEx(c *Client, args [][]byte) {
	o, ok := c.parseStringOptions(args, 2, false)
	if !ok {
		return
	}
	ch := engine.ExpireChange{Mode: engine.TTLKeep}
	switch {
	case o.exp != expNone:
		at, msg := c.expireAtMs(o.exp, o.expArg, "getex")
		if msg != "" {
			_, found, err := c.db.Get(args[1])
			switch {
			case err != nil:
				c.engineError(err)
			case !found:
				c.w.Null()
			default:
				c.w.Error(msg)
			}
			return
		}
		ch = engine.ExpireChange{Mode: engine.TTLSet, At: at}
	case o.persist:
		ch.Mode = engine.TTLClear
	}
	c.getEx(args[1], ch, false)
}

func (c *Client) getEx(key []byte, ch engine.ExpireChange, del bool) {
	it, found, err := c.db.GetEx(key, ch, del)
	if err == nil && found {
		// Propagated as Redis's getexCommand and getdelCommand rewrite it.
		lazy := c.fe.cfg.LazyfreeLazyUserDel()
		switch {
		case del:
			c.notify(evGeneric, "del", key)
			c.propagateAs(delArg(lazy), key)
		case ch.Mode == engine.TTLSet && ch.At <= c.nowMs():
			c.notify(evGeneric, "del", key) // an EXAT/PXAT already past
			c.propagateAs(delArg(c.fe.cfg.LazyfreeLazyExpire()), key)
		case ch.Mode == engine.TTLSet:
			c.notify(evGeneric, "expire", key)
			c.propagateAs(argPEXPIREAT, key, msArg(ch.At))
		case ch.Mode == engine.TTLClear && it.ExpireAt != 0:
			c.notify(evGeneric, "persist", key)
			c.propagateAs(argPERSIST, key)
		}
	}
	switch {
	case err != nil:
		c.engineError(err)
	case !found:
		c.w.Null()
	default:
		c.w.Bulk(it.Value)
	}
}

// cmdMGet is MGET key [key ...]: a null for a missing key or one of
// another type, never an error.
func cmdMGet(c *Client, args [][]byte) {
	keys := args[1:]
	c.w.Array(len(keys))
	c.db.MGet(keys, func(_ int, it engine.Item, ok bool) {
		if ok {
			c.w.Bulk(it.Value)
			it.Release()
		} else {
			c.w.Null()
		}
	})
}

// cmdMSet is MSET key value [key value ...]; keys of any type are replaced
// and lose their expiry.
func cmdMSet(c *Client, args [][]byte) {
	if len(args)%2 == 0 {
		c.w.Error(WrongArgs("mset"))
		return
	}
	if _, err := c.db.MSet(args[1:], false); err != nil {
		c.engineError(err)
		return
	}
	c.notifyMSet(args[1:])
	c.w.Status("OK")
}

// cmdMSetNX is MSETNX key value [key value ...]: :1 when all were set, :0
// (nothing set) when any key exists, whatever its type.
func cmdMSetNX(c *Client, args [][]byte) {
	if len(args)%2 == 0 {
		c.w.Error(WrongArgs("msetnx"))
		return
	}
	ok, err := c.db.MSet(args[1:], true)
	if err == nil && ok {
		c.notifyMSet(args[1:])
	}
	switch {
	case err != nil:
		c.engineError(err)
	case ok:
		c.w.Int(1)
	default:
		c.w.Int(0)
	}
}

// cmdAppend is APPEND key value: the length afterwards. Growing an
// existing string past proto-max-bulk-len is refused.
func cmdAppend(c *Client, args [][]byte) {
	res, err := c.db.Append(args[1], args[2], engine.AppendOptions{}, c.fe.cfg.ProtoMaxBulkLen())
	if err != nil {
		c.engineError(err)
		return
	}
	c.notify(evString, "append", args[1])
	c.w.Int(int64(res.Len))
}

// cmdStrlen is STRLEN key: 0 for a missing key. A compressed value's
// length is read from its header, without decompressing it.
func cmdStrlen(c *Client, args [][]byte) {
	n, err := c.db.StrLen(args[1])
	intReply(c, n, err, c.engineError)
}

func cmdIncr(c *Client, args [][]byte) { c.incrBy(args[1], 1) }
func cmdDecr(c *Client, args [][]byte) { c.incrBy(args[1], -1) }

// cmdIncrBy is INCRBY key increment.
func cmdIncrBy(c *Client, args [][]byte) {
	if delta, ok := c.intArg(args[2]); ok {
		c.incrBy(args[1], delta)
	}
}

// cmdDecrBy is DECRBY key decrement; LLONG_MIN cannot be negated and has
// its own error, given before the key is looked at.
func cmdDecrBy(c *Client, args [][]byte) {
	delta, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if delta == math.MinInt64 {
		c.w.Error(ErrDecrOverflow)
		return
	}
	c.incrBy(args[1], -delta)
}

// incrBy adds delta to the integer at key and replies the result. The
// engine checks in Redis's order: type, stored value, overflow.
func (c *Client) incrBy(key []byte, delta int64) {
	n, err := c.db.IncrBy(key, delta)
	if err != nil {
		c.engineError(err)
		return
	}
	c.notify(evString, "incrby", key)
	c.w.Int(n)
}

// cmdIncrByFloat is INCRBYFLOAT key increment: the new value as a bulk
// string in both protocols (Redis does not send a RESP3 double here).
func cmdIncrByFloat(c *Client, args [][]byte) {
	v, err := c.db.IncrByFloat(args[1], args[2])
	if err != nil {
		c.engineError(err)
		return
	}
	c.notify(evString, "incrbyfloat", args[1])
	// As Redis: the final value, so float formatting never differs.
	c.propagateAs(argSET, args[1], v, argKEEPTTL)
	c.w.Bulk(v)
}

// cmdGetRange is GETRANGE key start end (and SUBSTR, its old name), with
// Redis 7.0's index rules: negative indexes count from the end, both
// negative with start > end is empty, the range is clamped to the string.
// A missing key is an empty string. The indexes are parsed before the key
// is looked up.
func cmdGetRange(c *Client, args [][]byte) {
	start, end, ok := c.rangeArgs(args[2], args[3])
	if !ok {
		return
	}
	it, _, err := c.db.Get(args[1])
	if err != nil {
		c.engineError(err)
		return
	}
	v := it.Value
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		c.w.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.w.Bulk(nil)
		return
	}
	c.w.Bulk(v[start : end+1])
}

// cmdSetRange is SETRANGE key offset value: the length afterwards. Redis's
// order: offset parse, negative offset, type, empty value (nothing written,
// no size check), size against proto-max-bulk-len.
func cmdSetRange(c *Client, args [][]byte) {
	offset, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if offset < 0 {
		c.w.Error(ErrOffsetOutOfRange)
		return
	}
	n, err := c.db.SetRange(args[1], offset, args[3], c.fe.cfg.ProtoMaxBulkLen())
	if err != nil {
		c.engineError(err)
		return
	}
	if len(args[3]) > 0 { // an empty value writes nothing
		c.notify(evString, "setrange", args[1])
	}
	c.w.Int(int64(n))
}

// lcsRange is one matching range LCS IDX reports: a[aStart..aEnd] equals
// b[bStart..bEnd].
type lcsRange struct {
	aStart, aEnd, bStart, bEnd uint32
}

// cmdLCS is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN],
// a transcription of Redis 7.0's lcsCommand: the keys' types are checked
// before the options; a missing key is an empty string; the dynamic
// programming table may not be larger than proto-max-bulk-len bytes.
func cmdLCS(c *Client, args [][]byte) {
	ia, _, errA := c.db.Get(args[1])
	ib, _, errB := c.db.Get(args[2])
	if errA != nil || errB != nil {
		if errA == engine.ErrWrongType || errB == engine.ErrWrongType {
			c.w.Error(ErrLCSNotString)
		} else if errA != nil {
			c.engineError(errA)
		} else {
			c.engineError(errB)
		}
		return
	}
	var (
		getLen, getIdx, withMatchLen bool
		minMatchLen                  int64
	)
	for j := 3; j < len(args); j++ {
		opt := cWord(args[j])
		switch {
		case argIs(opt, "IDX"):
			getIdx = true
		case argIs(opt, "LEN"):
			getLen = true
		case argIs(opt, "WITHMATCHLEN"):
			withMatchLen = true
		case argIs(opt, "MINMATCHLEN") && j+1 < len(args):
			v, ok := c.intArg(args[j+1])
			if !ok {
				return
			}
			minMatchLen = max(v, 0)
			j++
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.w.Error(ErrLCSIdxAndLen)
		return
	}
	a, b := ia.Value, ib.Value
	if len(a) >= math.MaxUint32-1 || len(b) >= math.MaxUint32-1 {
		c.w.Error(ErrLCSTooLong)
		return
	}
	alen, blen := uint32(len(a)), uint32(len(b))
	cells := uint64(alen+1) * uint64(blen+1)
	if cells*4 > uint64(c.fe.cfg.ProtoMaxBulkLen()) {
		c.w.Error(ErrLCSMemory)
		return
	}
	// lcs[i*(blen+1)+j] is the LCS length of a[:i] and b[:j].
	lcs := make([]uint32, cells)
	stride := blen + 1
	for i := uint32(1); i <= alen; i++ {
		row, prev := lcs[i*stride:(i+1)*stride], lcs[(i-1)*stride:i*stride]
		ai := a[i-1]
		for j := uint32(1); j <= blen; j++ {
			switch {
			case ai == b[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] > row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
	total := lcs[alen*stride+blen]
	if getLen {
		c.w.Int(int64(total))
		return
	}

	// Walk back from the end, building the LCS string and, with IDX, the
	// ranges of contiguous matches in the order Redis emits them (last
	// first).
	result := make([]byte, total)
	var ranges []lcsRange
	idx := total
	aStart, aEnd, bStart, bEnd := alen, uint32(0), uint32(0), uint32(0) // aStart == alen: no range open
	i, j := alen, blen
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if lcs[(i-1)*stride+j] > lcs[i*stride+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			if minMatchLen == 0 || int64(aEnd-aStart+1) >= minMatchLen {
				if getIdx {
					ranges = append(ranges, lcsRange{aStart, aEnd, bStart, bEnd})
				}
			}
			aStart = alen
		}
	}
	if !getIdx {
		c.w.Bulk(result)
		return
	}
	c.w.Map(2)
	c.w.BulkString("matches")
	c.w.Array(len(ranges))
	for _, r := range ranges {
		if withMatchLen {
			c.w.Array(3)
		} else {
			c.w.Array(2)
		}
		c.w.Array(2)
		c.w.Int(int64(r.aStart))
		c.w.Int(int64(r.aEnd))
		c.w.Array(2)
		c.w.Int(int64(r.bStart))
		c.w.Int(int64(r.bEnd))
		if withMatchLen {
			c.w.Int(int64(r.aEnd - r.aStart + 1))
		}
	}
	c.w.BulkString("len")
	c.w.Int(int64(total))
}
