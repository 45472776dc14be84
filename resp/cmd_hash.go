package resp

import (
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/services"
)

// hashCommands is the hash family (Redis group "hash"). Arity, flags, key
// positions, ACL categories, since and summary are redis 7.0.15's (COMMAND
// INFO and COMMAND DOCS).
func hashCommands() []*Command {
	const (
		wd = FlagWrite | FlagDenyOOM
		w  = FlagWrite
		ro = FlagReadonly
		f  = FlagFast
		g  = "hash"
	)
	acl := []string{"@hash"}
	return []*Command{
		{Name: "hset", Arity: -4, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Set the string value of a hash field", Run: cmdHSet},
		{Name: "hsetnx", Arity: 4, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "2.0.0", Summary: "Set the value of a hash field, only if the field does not exist", Run: cmdHSetNX},
		{Name: "hmset", Arity: -4, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Set multiple hash fields to multiple values", Run: cmdHSet},
		{Name: "hget", Arity: 3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Get the value of a hash field", Run: cmdHGet},
		{Name: "hmget", Arity: -3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Get the values of all the given hash fields", Run: cmdHMGet},
		{Name: "hgetall", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Get all the fields and values in a hash", Run: cmdHGetAll},
		{Name: "hdel", Arity: -3, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "2.0.0", Summary: "Delete one or more hash fields", Run: cmdHDel},
		{Name: "hexists", Arity: 3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, ACL: acl, Since: "2.0.0", Summary: "Determine if a hash field exists", Run: cmdHExists},
		{Name: "hlen", Arity: 2, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, ACL: acl, Since: "2.0.0", Summary: "Get the number of fields in a hash", Run: cmdHLen},
		{Name: "hkeys", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Get all the fields in a hash", Run: cmdHKeys},
		{Name: "hvals", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Get all the values in a hash", Run: cmdHVals},
		{Name: "hstrlen", Arity: 3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, ACL: acl, Since: "3.2.0", Summary: "Get the length of the value of a hash field", Run: cmdHStrlen},
		{Name: "hincrby", Arity: 4, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: g, ACL: acl, Since: "2.0.0", Summary: "Increment the integer value of a hash field by the given number", Run: cmdHIncrBy},
		{Name: "hincrbyfloat", Arity: 4, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: g, ACL: acl, Since: "2.6.0", Summary: "Increment the float value of a hash field by the given amount", Run: cmdHIncrByFloat},
		{Name: "hrandfield", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "6.2.0", Summary: "Get one or multiple random fields from a hash", Run: cmdHRandField},
		{Name: "hscan", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.8.0", Summary: "Incrementally iterate hash fields and associated values", Run: cmdHScan},
	}
}

// hashLimits reads the conversion thresholds for this command, so that a
// CONFIG SET applies from the next write on.
func (c *Client) hashLimits() engine.HashLimits {
	return services.HashLimits(c.fe.cfg)
}

// hashError replies an error of a hash command.
func (c *Client) hashError(err error) {
	switch err {
	case engine.ErrHashNotInteger:
		c.w.Error(ErrHashNotInteger)
	case engine.ErrHashNotFloat:
		c.w.Error(ErrHashNotFloat)
	default:
		c.engineError(err)
	}
}

// cmdHSet is HSET key field value [field value ...] (the number of new
// fields) and HMSET, its older form (+OK). An unpaired field is an arity
// error naming the command as sent.
func cmdHSet(c *Client, args [][]byte) {
	if len(args)%2 == 1 {
		c.w.Error(WrongArgs(string(args[0])))
		return
	}
	added, err := c.db.HSet(args[1], args[2:], c.hashLimits())
	if err == nil {
		c.notify(evHash, "hset", args[1])
	}
	switch {
	case err != nil:
		c.hashError(err)
	case argIs(args[0], "HMSET"):
		c.w.Status("OK")
	default:
		c.w.Int(int64(added))
	}
}

func cmdHSetNX(c *Client, args [][]byte) {
	set, err := c.db.HSetNX(args[1], args[2], args[3], c.hashLimits())
	if err != nil {
		c.hashError(err)
		return
	}
	if set {
		c.notify(evHash, "hset", args[1])
	}
	c.w.Int(int01(set))
}

func cmdHGet(c *Client, args [][]byte) {
	found, err := c.db.HView(args[1], func(h engine.HashView) {
		if v, ok := h.Get(args[2]); ok {
			c.w.Bulk(v)
		} else {
			c.w.Null()
		}
	})
	switch {
	case err != nil:
		c.hashError(err)
	case !found:
		c.w.Null()
	}
}

// cmdHMGet replies one value or null per field; a missing key is all nulls.
func cmdHMGet(c *Client, args [][]byte) {
	fields := args[2:]
	found, err := c.db.HView(args[1], func(h engine.HashView) {
		c.w.Array(len(fields))
		for _, f := range fields {
			if v, ok := h.Get(f); ok {
				c.w.Bulk(v)
			} else {
				c.w.Null()
			}
		}
	})
	switch {
	case err != nil:
		c.hashError(err)
	case !found:
		c.w.Array(len(fields))
		for range fields {
			c.w.Null()
		}
	}
}

// What HGETALL, HKEYS and HVALS reply.
const (
	hashKeys   = 1
	hashValues = 2
)

// hashGetAll is Redis's genericHgetallCommand: fields and values as a map
// (RESP2: a flat array), or fields or values alone as an array, in the
// hash's order.
func hashGetAll(c *Client, key []byte, what int) {
	found, err := c.db.HView(key, func(h engine.HashView) {
		if what == hashKeys|hashValues {
			c.w.Map(h.Len())
		} else {
			c.w.Array(h.Len())
		}
		h.Each(func(f, v []byte) {
			if what&hashKeys != 0 {
				c.w.Bulk(f)
			}
			if what&hashValues != 0 {
				c.w.Bulk(v)
			}
		})
	})
	switch {
	case err != nil:
		c.hashError(err)
	case !found && what == hashKeys|hashValues:
		c.w.Map(0)
	case !found:
		c.w.Array(0)
	}
}

func cmdHGetAll(c *Client, args [][]byte) { hashGetAll(c, args[1], hashKeys|hashValues) }
func cmdHKeys(c *Client, args [][]byte)   { hashGetAll(c, args[1], hashKeys) }
func cmdHVals(c *Client, args [][]byte)   { hashGetAll(c, args[1], hashValues) }

func cmdHDel(c *Client, args [][]byte) {
	n, err := c.db.HDel(args[1], args[2:])
	changedReply(c, n, err, c.hashError, evHash, "hdel", args[1])
}

// hashInt replies an integer computed from the hash at key, 0 when the key
// does not exist.
func hashInt(c *Client, key []byte, fn func(h engine.HashView) int64) {
	var n int64
	_, err := c.db.HView(key, func(h engine.HashView) { n = fn(h) })
	intReply(c, n, err, c.hashError)
}

func cmdHLen(c *Client, args [][]byte) {
	hashInt(c, args[1], func(h engine.HashView) int64 { return int64(h.Len()) })
}

// cmdHExists replies :1 or :0, an integer in RESP3 too, as Redis does.
func cmdHExists(c *Client, args [][]byte) {
	hashInt(c, args[1], func(h engine.HashView) int64 {
		_, ok := h.Get(args[2])
		return int01(ok)
	})
}

func cmdHStrlen(c *Client, args [][]byte) {
	hashInt(c, args[1], func(h engine.HashView) int64 {
		v, _ := h.Get(args[2])
		return int64(len(v))
	})
}

// cmdHIncrBy is HINCRBY key field increment. The increment is parsed before
// the key is looked up, as in Redis.
func cmdHIncrBy(c *Client, args [][]byte) {
	delta, ok := c.intArg(args[3])
	if !ok {
		return
	}
	n, err := c.db.HIncrBy(args[1], args[2], delta, c.hashLimits())
	if err != nil {
		c.hashError(err)
		return
	}
	c.notify(evHash, "hincrby", args[1])
	c.w.Int(n)
}

// cmdHIncrByFloat is HINCRBYFLOAT key field increment: long double
// arithmetic and printing, as INCRBYFLOAT; the result is a bulk string in
// both protocols. The increment is checked first (not a number, then
// infinite), then the key.
func cmdHIncrByFloat(c *Client, args [][]byte) {
	delta, inf, ok := num.ParseLongDouble(args[3])
	if !ok {
		c.w.Error(ErrNotFloat)
		return
	}
	if inf != 0 {
		c.w.Error(ErrHashIncrNaNOrInf)
		return
	}
	v, err := c.db.HIncrByFloat(args[1], args[2], delta, c.hashLimits())
	if err != nil {
		c.hashError(err)
		return
	}
	c.notify(evHash, "hincrbyfloat", args[1])
	c.propagateAs([]byte("HSET"), args[1], args[2], v) // the final value, as Redis
	c.w.Bulk(v)
}

// maxRandReplyBytes bounds an HRANDFIELD reply when the normal clients'
// output buffer is unlimited: a count of -4611686018427387903 would
// otherwise grow the reply until the process dies (redis-server 7.0 does).
// Past the bound, as past an output buffer limit in Redis, the reply is
// cut short and the connection closed.
const maxRandReplyBytes = 1 << 30

// replyLimit is the size past which a reply being built is abandoned and
// the client closed.
func (c *Client) replyLimit() int {
	if hard := c.fe.cfg.ClientOutputBufferLimit(conf.ClientNormal).Hard; hard > 0 && hard < maxRandReplyBytes {
		return int(hard)
	}
	return maxRandReplyBytes
}

// cmdHRandField is HRANDFIELD key [count [WITHVALUES]], after Redis 7.0's
// hrandfieldCommand. The checks run in its order: count is an integer
// other than LLONG_MIN, then the option word, then with WITHVALUES |count|
// at most LLONG_MAX/2; only then the key. Without count the reply is one
// field or null. With it: count 0 is empty; a negative count (or 1) gives
// |count| fields drawn with repetition; a count at least the size gives
// the whole hash in its order; a smaller one distinct random fields. With
// WITHVALUES each field is followed by its value, as a [field, value]
// pair in RESP3.
func cmdHRandField(c *Client, args [][]byte) {
	if len(args) == 2 {
		found, err := c.db.HView(args[1], func(h engine.HashView) {
			f, _ := h.Random()
			c.w.Bulk(f)
		})
		switch {
		case err != nil:
			c.hashError(err)
		case !found:
			c.w.Null()
		}
		return
	}
	l, withValues, ok := c.randCountArgs(args, "WITHVALUES", ErrHashCountRange, ErrHashWithValuesRange)
	if !ok {
		return
	}
	flat := withValues && !c.w.resp3() // RESP2: field, value, field, value…
	header := func(n int64) {
		if flat {
			n *= 2
		}
		c.w.Buf = appendHeader(c.w.Buf, '*', n)
	}
	pair := func(f, v []byte) {
		if withValues && !flat {
			c.w.Array(2)
		}
		c.w.Bulk(f)
		if withValues {
			c.w.Bulk(v)
		}
	}
	found, err := c.db.HView(args[1], func(h engine.HashView) {
		size := int64(h.Len())
		switch {
		case l == 0:
			c.w.Array(0)
		case l < 0 || l == 1:
			count := l
			if count < 0 {
				count = -count
			}
			header(count)
			limit := c.replyLimit()
			h.RandomRepeat(count, func(f, v []byte) bool {
				pair(f, v)
				if len(c.w.Buf) > limit {
					c.closeAfter = true
					return false
				}
				return true
			})
		case l >= size:
			header(size)
			h.Each(pair)
		default:
			header(l)
			h.RandomDistinct(int(l), pair)
		}
	})
	switch {
	case err != nil:
		c.hashError(err)
	case !found:
		c.w.Array(0)
	}
}

// cmdHScan is HSCAN key cursor [MATCH pattern] [COUNT count]. Redis's
// order: the cursor, then the key (a missing key is an empty scan whatever
// the options), then the options. A listpack hash comes back whole with
// cursor 0; a hashtable in batches of about COUNT fields.
func cmdHScan(c *Client, args [][]byte) {
	cursor, ok := c.scanCursorArg(args[2])
	if !ok {
		return
	}
	o, optErr := scanOptions(args, 3, false)
	var next uint64
	tmp := Writer{Proto: c.w.Proto}
	n := 0
	found, err := c.db.HView(args[1], func(h engine.HashView) {
		if optErr != "" {
			return
		}
		next = h.Scan(cursor, o.batch(), o.pattern, func(f, v []byte) {
			tmp.Bulk(f)
			tmp.Bulk(v)
			n += 2
		})
	})
	switch {
	case err != nil:
		c.hashError(err)
		return
	case found && optErr != "":
		c.w.Error(optErr)
		return
	}
	c.writeScanPage(next, n, tmp.Buf)
}
