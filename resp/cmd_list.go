package resp

import (
	"bytes"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
)

// listCommands is the list family (Redis group "list"). Arity, flags, key
// positions, ACL categories, since and summary are redis 7.0.15's (COMMAND
// INFO and COMMAND DOCS). LMPOP and BLMPOP have movable keys (after
// numkeys): their table key positions are zero, as COMMAND INFO shows them,
// and lmpopKeys and blmpopKeys find them.
func listCommands() []*Command {
	const (
		wd = FlagWrite | FlagDenyOOM
		w  = FlagWrite
		ro = FlagReadonly
		f  = FlagFast
		bl = FlagNoScript | FlagBlocking
		g  = "list"
	)
	acl := []string{"@list"}
	return []*Command{
		{Name: "lpush", Arity: -3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Prepend one or multiple elements to a list", Run: cmdLPush},
		{Name: "rpush", Arity: -3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Append one or multiple elements to a list", Run: cmdRPush},
		{Name: "lpushx", Arity: -3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "2.2.0", Summary: "Prepend an element to a list, only if the list exists", Run: cmdLPushX},
		{Name: "rpushx", Arity: -3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "2.2.0", Summary: "Append an element to a list, only if the list exists", Run: cmdRPushX},
		{Name: "lpop", Arity: -2, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Remove and get the first elements in a list", Run: cmdLPop},
		{Name: "rpop", Arity: -2, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Remove and get the last elements in a list", Run: cmdRPop},
		{Name: "llen", Arity: 2, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Get the length of a list", Run: cmdLLen},
		{Name: "lrange", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.0", Summary: "Get a range of elements from a list", Run: cmdLRange},
		{Name: "lindex", Arity: 3, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.0", Summary: "Get an element from a list by its index", Run: cmdLIndex},
		{Name: "lset", Arity: 4, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.0", Summary: "Set the value of an element in a list by its index", Run: cmdLSet},
		{Name: "linsert", Arity: 5, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "2.2.0", Summary: "Insert an element before or after another element in a list", Run: cmdLInsert},
		{Name: "lrem", Arity: 4, Flags: w, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Remove elements from a list", Run: cmdLRem},
		{Name: "ltrim", Arity: 4, Flags: w, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Trim a list to the specified range", Run: cmdLTrim},
		{Name: "lpos", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "6.0.6", Summary: "Return the index of matching elements on a list", Run: cmdLPos},
		{Name: "lmove", Arity: 5, Flags: wd, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel, ksRWInsert}, Group: g, ACL: acl, Since: "6.2.0", Summary: "Pop an element from a list, push it to another list and return it", Run: cmdLMove},
		{Name: "rpoplpush", Arity: 3, Flags: wd, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel, ksRWInsert}, Group: g, ACL: acl, Since: "1.2.0", Summary: "Remove the last element in a list, prepend it to another list and return it", Run: cmdRPopLPush},
		{Name: "lmpop", Arity: -4, Flags: w, Keys: lmpopKeys, KeyFlags: []KeyFlag{ksRWAccessDel}, VarKeyFlags: numkeysFallbackFlags(1), Group: g, ACL: acl, Since: "7.0.0", Summary: "Pop elements from a list", Run: cmdLMPop},
		{Name: "blpop", Arity: -3, Flags: w | bl, FirstKey: 1, LastKey: -2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "2.0.0", Summary: "Remove and get the first element in a list, or block until one is available", Run: cmdBLPop},
		{Name: "brpop", Arity: -3, Flags: w | bl, FirstKey: 1, LastKey: -2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "2.0.0", Summary: "Remove and get the last element in a list, or block until one is available", Run: cmdBRPop},
		{Name: "blmove", Arity: 6, Flags: wd | bl, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel, ksRWInsert}, Group: g, ACL: acl, Since: "6.2.0", Summary: "Pop an element from a list, push it to another list and return it; or block until one is available", Run: cmdBLMove},
		{Name: "brpoplpush", Arity: 4, Flags: wd | bl, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel, ksRWInsert}, Group: g, ACL: acl, Since: "2.2.0", Summary: "Pop an element from a list, push it to another list and return it; or block until one is available", Run: cmdBRPopLPush},
		{Name: "blmpop", Arity: -5, Flags: w | FlagBlocking, Keys: blmpopKeys, KeyFlags: []KeyFlag{ksRWAccessDel}, VarKeyFlags: numkeysFallbackFlags(2), Group: g, ACL: acl, Since: "7.0.0", Summary: "Pop elements from a list, or block until one is available", Run: cmdBLMPop},
	}
}

// listError replies an error of a list command.
func (c *Client) listError(err error) {
	if err == engine.ErrIndexOutOfRange {
		c.w.Error(ErrListIndexRange)
		return
	}
	c.engineError(err)
}

// listEndArg parses LEFT or RIGHT as Redis's
// getListPositionFromObjectOrReply (strcasecmp: bytes after a NUL do not
// count), or replies a syntax error.
func (c *Client) listEndArg(b []byte) (engine.ListEnd, bool) {
	switch {
	case argIsC(b, "LEFT"):
		return engine.ListLeft, true
	case argIsC(b, "RIGHT"):
		return engine.ListRight, true
	}
	c.w.Error(ErrSyntax)
	return 0, false
}

// listEndsArgs parses LMOVE's and BLMOVE's wherefrom and whereto, in that
// order, as listEndArg.
func (c *Client) listEndsArgs(from, to []byte) (engine.ListEnd, engine.ListEnd, bool) {
	f, ok := c.listEndArg(from)
	if !ok {
		return 0, 0, false
	}
	t, ok := c.listEndArg(to)
	return f, t, ok
}

// listVisit writes list elements as an array reply.
func (c *Client) listVisit(total, i int, v []byte) {
	if i == 0 {
		c.w.Array(total)
	}
	c.w.Bulk(v)
}

func cmdLPush(c *Client, args [][]byte)  { c.push(args, engine.ListLeft, false) }
func cmdRPush(c *Client, args [][]byte)  { c.push(args, engine.ListRight, false) }
func cmdLPushX(c *Client, args [][]byte) { c.push(args, engine.ListLeft, true) }
func cmdRPushX(c *Client, args [][]byte) { c.push(args, engine.ListRight, true) }

// push is LPUSH, RPUSH, LPUSHX and RPUSHX: the length after the push.
func (c *Client) push(args [][]byte, end engine.ListEnd, onlyIfExists bool) {
	n, err := c.db.LPushEnd(args[1], end, args[2:], onlyIfExists)
	changedReply(c, n, err, c.listError, evList, pushEvent(end), args[1])
}

func cmdLPop(c *Client, args [][]byte) { c.pop(args, engine.ListLeft) }
func cmdRPop(c *Client, args [][]byte) { c.pop(args, engine.ListRight) }

// pop is LPOP/RPOP key [count]: without a count a bulk (null when the key
// is missing); with one an array in pop order (a null array when missing,
// empty for count 0). The count is checked before the key.
func (c *Client) pop(args [][]byte, end engine.ListEnd) {
	if len(args) > 3 {
		c.w.Error(WrongArgs(string(args[0])))
		return
	}
	count := int64(-1)
	if len(args) == 3 {
		var ok bool
		if count, ok = c.countArg(args[2], 0, ErrListPositive); !ok {
			return
		}
	}
	n := int(count)
	if count < 0 {
		n = 1
	}
	popped := false
	found, err := c.db.LPopEnd(args[1], end, n, func(total, i int, v []byte) {
		if count >= 0 {
			c.listVisit(total, i, v)
		} else {
			c.w.Bulk(v)
		}
		popped = true
	})
	if popped {
		c.notify(evList, popEvent(end), args[1])
	}
	switch {
	case err != nil:
		c.listError(err)
	case !found && count >= 0:
		c.w.NullArray()
	case !found:
		c.w.Null()
	case !popped:
		c.w.Array(0)
	}
}

// cmdLLen is LLEN key.
func cmdLLen(c *Client, args [][]byte) {
	n, err := c.db.LLen(args[1])
	intReply(c, n, err, c.listError)
}

// cmdLRange is LRANGE key start stop; the indexes are parsed before the
// key is looked at.
func cmdLRange(c *Client, args [][]byte) {
	start, stop, ok := c.rangeArgs(args[2], args[3])
	if !ok {
		return
	}
	n, err := c.db.LRange(args[1], start, stop, c.listVisit)
	switch {
	case err != nil:
		c.listError(err)
	case n == 0:
		c.w.Array(0)
	}
}

// badIndexAfterLookup replies as Redis does when the index of LINDEX or
// LSET is not an integer: those commands look the key up first, so a
// missing key or another type answers before the index.
func (c *Client) badIndexAfterLookup(key []byte, read bool, missing func()) {
	info, ok := c.db.Info(key)
	if read { // LINDEX's lookup counts as a keyspace hit or miss
		if ok {
			c.db.CountLookups(1, 0)
		} else {
			c.db.CountLookups(0, 1)
		}
	}
	switch {
	case !ok:
		missing()
	case info.Type != engine.TypeList:
		c.w.Error(ErrWrongType)
	default:
		c.w.Error(ErrNotInteger)
	}
}

// cmdLIndex is LINDEX key index: the element, or a null.
func cmdLIndex(c *Client, args [][]byte) {
	idx, ok := num.ParseInt(args[2])
	if !ok {
		c.badIndexAfterLookup(args[1], true, c.w.Null)
		return
	}
	found, err := c.db.LIndex(args[1], idx, c.w.Bulk)
	switch {
	case err != nil:
		c.listError(err)
	case !found:
		c.w.Null()
	}
}

// cmdLSet is LSET key index element.
func cmdLSet(c *Client, args [][]byte) {
	idx, ok := num.ParseInt(args[2])
	if !ok {
		c.badIndexAfterLookup(args[1], false, func() { c.w.Error(ErrNoSuchKey) })
		return
	}
	if err := c.db.LSet(args[1], idx, args[3]); err != nil {
		c.listError(err)
		return
	}
	c.notify(evList, "lset", args[1])
	c.w.Status("OK")
}

// cmdLInsert is LINSERT key BEFORE|AFTER pivot element: the new length, 0
// for a missing key, -1 when the pivot is not there.
func cmdLInsert(c *Client, args [][]byte) {
	var after bool
	switch {
	case argIsC(args[2], "AFTER"):
		after = true
	case argIsC(args[2], "BEFORE"):
	default:
		c.w.Error(ErrSyntax)
		return
	}
	n, err := c.db.LInsert(args[1], after, args[3], args[4])
	changedReply(c, n, err, c.listError, evList, "linsert", args[1])
}

// cmdLRem is LREM key count element.
func cmdLRem(c *Client, args [][]byte) {
	count, ok := c.intArg(args[2])
	if !ok {
		return
	}
	n, err := c.db.LRem(args[1], count, args[3])
	changedReply(c, n, err, c.listError, evList, "lrem", args[1])
}

// cmdLTrim is LTRIM key start stop.
func cmdLTrim(c *Client, args [][]byte) {
	start, stop, ok := c.rangeArgs(args[2], args[3])
	if !ok {
		return
	}
	found, err := c.db.LTrim(args[1], start, stop)
	if err != nil {
		c.listError(err)
		return
	}
	if found {
		c.notify(evList, "ltrim", args[1])
	}
	c.w.Status("OK")
}

// cmdLPos is LPOS key element [RANK rank] [COUNT num] [MAXLEN len]: one
// index or a null, or with COUNT an array. Options are checked, in order,
// before the key.
func cmdLPos(c *Client, args [][]byte) {
	o := engine.ListPosOptions{Rank: 1, Count: -1}
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case argIsC(args[j], "RANK") && more:
			j++
			v, ok := c.intArg(args[j])
			if !ok {
				return
			}
			if v == 0 {
				c.w.Error(ErrListRankZero)
				return
			}
			o.Rank = v
		case argIsC(args[j], "COUNT") && more:
			j++
			var ok bool
			if o.Count, ok = c.countArg(args[j], 0, ErrListCountNegative); !ok {
				return
			}
		case argIsC(args[j], "MAXLEN") && more:
			j++
			var ok bool
			if o.MaxLen, ok = c.countArg(args[j], 0, ErrListMaxLenNegative); !ok {
				return
			}
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	pos, err := c.db.LPos(args[1], args[2], o)
	switch {
	case err != nil:
		c.listError(err)
	case o.Count >= 0:
		c.w.Array(len(pos))
		for _, p := range pos {
			c.w.Int(p)
		}
	case len(pos) == 0:
		c.w.Null()
	default:
		c.w.Int(pos[0])
	}
}

// cmdLMove is LMOVE source destination LEFT|RIGHT LEFT|RIGHT.
func cmdLMove(c *Client, args [][]byte) {
	from, to, ok := c.listEndsArgs(args[3], args[4])
	if !ok {
		return
	}
	c.move(args[1], args[2], from, to)
}

// cmdRPopLPush is RPOPLPUSH source destination.
func cmdRPopLPush(c *Client, args [][]byte) {
	c.move(args[1], args[2], engine.ListRight, engine.ListLeft)
}

// move is LMOVE: the element moved, or a null.
func (c *Client) move(src, dst []byte, from, to engine.ListEnd) {
	v, err := c.db.LMove(src, dst, from, to)
	switch {
	case err != nil:
		c.listError(err)
	case v == nil:
		c.w.Null()
	default:
		c.notifyMove(src, dst, from, to)
		c.w.Bulk(v)
	}
}

// mpopArgs are LMPOP's and BLMPOP's numkeys, keys, direction and COUNT.
type mpopArgs struct {
	keys  [][]byte
	end   engine.ListEnd
	count int64
}

// parseMPop reads numkeys key... LEFT|RIGHT [COUNT n] from args[at:] as
// Redis's lmpopGenericCommand: a bad numkeys, too few arguments, a bad
// direction, a bad or repeated COUNT are errors, in that order.
func (c *Client) parseMPop(args [][]byte, at int) (mpopArgs, bool) {
	var m mpopArgs
	var ok bool
	if m.keys, ok = c.numkeysArg(args, at, 1, ErrListNumkeys, ErrSyntax); !ok {
		return m, false
	}
	whereAt := at + 1 + len(m.keys)
	if m.end, ok = c.listEndArg(args[whereAt]); !ok {
		return m, false
	}
	m.count, ok = c.mpopCountArg(args, whereAt+1, ErrListCount)
	return m, ok
}

// cmdLMPop is LMPOP numkeys key... LEFT|RIGHT [COUNT count]: [key,
// [elements]] or a null array.
func cmdLMPop(c *Client, args [][]byte) {
	m, ok := c.parseMPop(args, 1)
	if !ok {
		return
	}
	var popped []byte
	n := 0
	found, err := c.db.LMPop(m.keys, m.end, int(m.count), func(key []byte, total, i int, v []byte) {
		if i == 0 {
			c.mpopHeader(key, total)
			popped, n = key, total
		}
		c.w.Bulk(v)
	})
	if popped != nil {
		c.notify(evList, popEvent(m.end), popped)
		c.propagatePop(popEvent(m.end), popped, int64(n)) // as [LR]POP key count, Redis's form
	}
	switch {
	case err != nil:
		c.listError(err)
	case !found:
		c.w.NullArray()
	}
}

// Blocking commands (blocking.go parks the client).

func cmdBLPop(c *Client, args [][]byte) { c.blockingPop(args, engine.ListLeft) }
func cmdBRPop(c *Client, args [][]byte) { c.blockingPop(args, engine.ListRight) }

// blockingPop is BLPOP/BRPOP key... timeout: [key, element], or after the
// timeout a null array.
func (c *Client) blockingPop(args [][]byte, end engine.ListEnd) {
	timeout, ok := c.timeoutArg(args[len(args)-1])
	if !ok {
		return
	}
	c.listBlockPop(args[1:len(args)-1], end, -1, timeout)
}

// cmdBLMPop is BLMPOP timeout numkeys key... LEFT|RIGHT [COUNT count]: as
// LMPOP, blocking while every list is empty; the timeout is checked after
// the other arguments.
func cmdBLMPop(c *Client, args [][]byte) {
	m, ok := c.parseMPop(args, 2)
	if !ok {
		return
	}
	timeout, ok := c.timeoutArg(args[1])
	if !ok {
		return
	}
	c.listBlockPop(m.keys, m.end, m.count, timeout)
}

// listBlockPop pops or blocks for BLPOP, BRPOP (count < 0) and BLMPOP.
func (c *Client) listBlockPop(keys [][]byte, end engine.ListEnd, count int64, timeout int64) {
	w := c.newWaiter()
	res, err := c.db.BLPopEnd(keys, end, int(count), w)
	blockingPop(c, w, timeout, res, err, c.listError,
		func(r *engine.ListPopResult) {
			c.notify(evList, popEvent(end), r.Key)
			c.propagatePop(popEvent(end), r.Key, popCount(count, len(r.Values))) // as [LR]POP, Redis's form
		},
		w.ListResult, func(r *engine.ListPopResult) { c.writePopResult(r, count) })
}

// writePopResult replies [key, element] (BLPOP, count < 0) or [key,
// [elements]] (BLMPOP).
func (c *Client) writePopResult(r *engine.ListPopResult, count int64) {
	if count < 0 {
		c.w.Array(2)
		c.w.Bulk(r.Key)
		c.w.Bulk(r.Values[0])
		return
	}
	c.mpopHeader(r.Key, len(r.Values))
	for _, v := range r.Values {
		c.w.Bulk(v)
	}
}

// cmdBLMove is BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout.
func cmdBLMove(c *Client, args [][]byte) {
	from, to, ok := c.listEndsArgs(args[3], args[4])
	if !ok {
		return
	}
	timeout, ok := c.timeoutArg(args[5])
	if !ok {
		return
	}
	c.blockingMove(args[1], args[2], from, to, timeout, args[3:5])
}

// cmdBRPopLPush is BRPOPLPUSH source destination timeout.
func cmdBRPopLPush(c *Client, args [][]byte) {
	timeout, ok := c.timeoutArg(args[3])
	if !ok {
		return
	}
	c.blockingMove(args[1], args[2], engine.ListRight, engine.ListLeft, timeout, nil)
}

// blockingMove is LMOVE that blocks while the source is missing. Woken by
// a push to the source, it runs again (the destination may be in another
// shard); after the timeout it replies a null array (a plain null when it
// may not block, as Redis inside MULTI).
// ends are BLMOVE's direction arguments, for its propagated form.
func (c *Client) blockingMove(src, dst []byte, from, to engine.ListEnd, timeout int64, ends [][]byte) {
	w := c.newWaiter()
	db := c.db
	attempt := func() bool {
		v, err := db.BLMove(src, dst, from, to, w)
		switch {
		case err != nil:
			c.listError(err)
		case v != nil:
			c.notifyMove(src, dst, from, to)
			c.propagateMove(src, dst, from, to, ends)
			c.w.Bulk(v)
		default:
			return false
		}
		return true
	}
	if attempt() {
		if w != nil {
			w.Done()
		}
		return
	}
	if w == nil {
		c.w.Null()
		return
	}
	src, dst, ends = bytes.Clone(src), bytes.Clone(dst), nil // a retry propagates Redis's "left"/"right"
	c.block(w, timeout, attempt, c.w.NullArray)
}

// lmpopKeys finds LMPOP's keys (numkeys key ...), as Redis's lmpopGetKeys.
func lmpopKeys(args [][]byte) []int { return numkeysKeys(args, 0, 1) }

// blmpopKeys finds BLMPOP's keys (timeout numkeys key ...), as Redis's
// blmpopGetKeys.
func blmpopKeys(args [][]byte) []int { return numkeysKeys(args, 0, 2) }
