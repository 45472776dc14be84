package resp

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/services"
)

// zsetCommands is the sorted-set family (Redis group "sorted-set"); the
// blocking BZPOPMIN, BZPOPMAX and BZMPOP run in cmd_zset_blocking.go.
// Arity, flags, key positions, since and summary are redis
// 7.0.15's (COMMAND INFO and COMMAND DOCS); the commands Redis marks
// movablekeys (ZUNION, ZMPOP…) declare its legacy key triple and find
// their keys with Keys (zsetNumkeysKeys, zsetStoreKeys, bzmpopKeys).
func zsetCommands() []*Command {
	const (
		w  = FlagWrite
		wd = FlagWrite | FlagDenyOOM
		ro = FlagReadonly
		f  = FlagFast
		g  = "sorted-set"
	)
	acl := []string{"@sortedset"}
	return []*Command{
		{Name: "zadd", Arity: -4, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.2.0", Summary: "Add one or more members to a sorted set, or update its score if it already exists", Run: cmdZAdd},
		{Name: "zincrby", Arity: 4, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: g, ACL: acl, Since: "1.2.0", Summary: "Increment the score of a member in a sorted set", Run: cmdZIncrBy},
		{Name: "zrem", Arity: -3, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "1.2.0", Summary: "Remove one or more members from a sorted set", Run: cmdZRem},
		{Name: "zscore", Arity: 3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.2.0", Summary: "Get the score associated with the given member in a sorted set", Run: cmdZScore},
		{Name: "zmscore", Arity: -3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "6.2.0", Summary: "Get the score associated with the given members in a sorted set", Run: cmdZMScore},
		{Name: "zcard", Arity: 2, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, ACL: acl, Since: "1.2.0", Summary: "Get the number of members in a sorted set", Run: cmdZCard},
		{Name: "zcount", Arity: 4, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Count the members in a sorted set with scores within the given values", Run: cmdZCount},
		{Name: "zlexcount", Arity: 4, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.8.9", Summary: "Count the number of members in a sorted set between a given lexicographical range", Run: cmdZLexCount},
		{Name: "zrange", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.2.0", Summary: "Return a range of members in a sorted set", Run: cmdZRange},
		{Name: "zrangestore", Arity: -5, Flags: wd, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate, ksROAccess}, Group: g, ACL: acl, Since: "6.2.0", Summary: "Store a range of members from sorted set into another key", Run: cmdZRangeStore},
		{Name: "zrevrange", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.2.0", Summary: "Return a range of members in a sorted set, by index, with scores ordered from high to low", Run: cmdZRevRange},
		{Name: "zrangebyscore", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.5", Summary: "Return a range of members in a sorted set, by score", Run: cmdZRangeByScore},
		{Name: "zrevrangebyscore", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.2.0", Summary: "Return a range of members in a sorted set, by score, with scores ordered from high to low", Run: cmdZRevRangeByScore},
		{Name: "zrangebylex", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.8.9", Summary: "Return a range of members in a sorted set, by lexicographical range", Run: cmdZRangeByLex},
		{Name: "zrevrangebylex", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.8.9", Summary: "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", Run: cmdZRevRangeByLex},
		{Name: "zrank", Arity: 3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Determine the index of a member in a sorted set", Run: cmdZRank},
		{Name: "zrevrank", Arity: 3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.0.0", Summary: "Determine the index of a member in a sorted set, with scores ordered from high to low", Run: cmdZRevRank},
		{Name: "zremrangebyrank", Arity: 4, Flags: w, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "2.0.0", Summary: "Remove all members in a sorted set within the given indexes", Run: cmdZRemRangeByRank},
		{Name: "zremrangebyscore", Arity: 4, Flags: w, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "1.2.0", Summary: "Remove all members in a sorted set within the given scores", Run: cmdZRemRangeByScore},
		{Name: "zremrangebylex", Arity: 4, Flags: w, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "2.8.9", Summary: "Remove all members in a sorted set between the given lexicographical range", Run: cmdZRemRangeByLex},
		{Name: "zpopmin", Arity: -2, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Remove and return members with the lowest scores in a sorted set", Run: cmdZPopMin},
		{Name: "zpopmax", Arity: -2, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Remove and return members with the highest scores in a sorted set", Run: cmdZPopMax},
		{Name: "zmpop", Arity: -4, Flags: w, Keys: zsetNumkeysKeys, KeyFlags: []KeyFlag{ksRWAccessDel}, VarKeyFlags: numkeysFallbackFlags(1), Group: g, ACL: acl, Since: "7.0.0", Summary: "Remove and return members with scores in a sorted set", Run: cmdZMPop},
		{Name: "zunion", Arity: -3, Flags: ro, Keys: zsetNumkeysKeys, KeyFlags: []KeyFlag{ksROAccess}, VarKeyFlags: numkeysFallbackFlags(1), Group: g, ACL: acl, Since: "6.2.0", Summary: "Add multiple sorted sets", Run: cmdZUnion},
		{Name: "zinter", Arity: -3, Flags: ro, Keys: zsetNumkeysKeys, KeyFlags: []KeyFlag{ksROAccess}, VarKeyFlags: numkeysFallbackFlags(1), Group: g, ACL: acl, Since: "6.2.0", Summary: "Intersect multiple sorted sets", Run: cmdZInter},
		{Name: "zdiff", Arity: -3, Flags: ro, Keys: zsetNumkeysKeys, KeyFlags: []KeyFlag{ksROAccess}, VarKeyFlags: numkeysFallbackFlags(1), Group: g, ACL: acl, Since: "6.2.0", Summary: "Subtract multiple sorted sets", Run: cmdZDiff},
		{Name: "zunionstore", Arity: -4, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, Keys: zsetStoreKeys, KeyFlags: []KeyFlag{ksOWUpdate, ksROAccess}, VarKeyFlags: numkeysFallbackFlags(2), Group: g, ACL: acl, Since: "2.0.0", Summary: "Add multiple sorted sets and store the resulting sorted set in a new key", Run: cmdZUnionStore},
		{Name: "zinterstore", Arity: -4, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, Keys: zsetStoreKeys, KeyFlags: []KeyFlag{ksOWUpdate, ksROAccess}, VarKeyFlags: numkeysFallbackFlags(2), Group: g, ACL: acl, Since: "2.0.0", Summary: "Intersect multiple sorted sets and store the resulting sorted set in a new key", Run: cmdZInterStore},
		{Name: "zdiffstore", Arity: -4, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, Keys: zsetStoreKeys, KeyFlags: []KeyFlag{ksOWUpdate, ksROAccess}, VarKeyFlags: numkeysFallbackFlags(2), Group: g, ACL: acl, Since: "6.2.0", Summary: "Subtract multiple sorted sets and store the resulting sorted set in a new key", Run: cmdZDiffStore},
		{Name: "zintercard", Arity: -3, Flags: ro, Keys: zsetNumkeysKeys, KeyFlags: []KeyFlag{ksROAccess}, VarKeyFlags: numkeysFallbackFlags(1), Group: g, ACL: acl, Since: "7.0.0", Summary: "Intersect multiple sorted sets and return the cardinality of the result", Run: cmdZInterCard},
		{Name: "zrandmember", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "6.2.0", Summary: "Get one or multiple random elements from a sorted set", Run: cmdZRandMember},
		{Name: "zscan", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.8.0", Summary: "Incrementally iterate sorted sets elements and associated scores", Run: cmdZScan},
		{Name: "bzpopmin", Arity: -3, Flags: w | f | FlagNoScript | FlagBlocking, FirstKey: 1, LastKey: -2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", Run: cmdBZPopMin},
		{Name: "bzpopmax", Arity: -3, Flags: w | f | FlagNoScript | FlagBlocking, FirstKey: 1, LastKey: -2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", Run: cmdBZPopMax},
		{Name: "bzmpop", Arity: -5, Flags: w | FlagBlocking, Keys: bzmpopKeys, KeyFlags: []KeyFlag{ksRWAccessDel}, VarKeyFlags: numkeysFallbackFlags(2), Group: g, ACL: acl, Since: "7.0.0", Summary: "Remove and return members with scores in a sorted set or block until one is available", Run: cmdBZMPop},
	}
}

// zsetLimits are the conversion thresholds now configured.
func (c *Client) zsetLimits() engine.ZsetLimits {
	return services.ZsetLimits(c.fe.cfg)
}

// zsetError replies an engine error of the family.
func (c *Client) zsetError(err error) {
	if err == engine.ErrZsetNaN {
		c.w.Error(ErrZsetNaN)
		return
	}
	c.engineError(err)
}

// --- number and range parsing ---

// zsetRangeBound parses one end of a score range as Redis's zslParseRange:
// "(" makes it exclusive; then strtod, which skips leading white space,
// takes an empty string as 0 and overflow as infinity; the argument may
// end at a NUL byte; NaN is refused.
func zsetRangeBound(b []byte) (v float64, ex bool, ok bool) {
	if len(b) > 0 && b[0] == '(' {
		b, ex = b[1:], true
	}
	v, n, _ := num.Strtod(b)
	if n < len(b) && b[n] != 0 || math.IsNaN(v) {
		return 0, false, false
	}
	return v, ex, true
}

func zsetScoreRange(min, max []byte) (engine.ZScoreRange, bool) {
	var r engine.ZScoreRange
	var ok1, ok2 bool
	r.Min, r.MinEx, ok1 = zsetRangeBound(min)
	r.Max, r.MaxEx, ok2 = zsetRangeBound(max)
	return r, ok1 && ok2
}

// zsetLexBound parses one end of a lex range as Redis's
// zslParseLexRangeItem: "-" and "+" alone (or followed by a NUL byte),
// "[member" or "(member".
func zsetLexBound(b []byte) (engine.ZLexBound, bool) {
	if len(b) == 0 {
		return engine.ZLexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return engine.ZLexBound{}, false
		}
		if b[0] == '+' {
			return engine.ZLexBound{Kind: engine.ZLexMax}, true
		}
		return engine.ZLexBound{Kind: engine.ZLexMin}, true
	case '[':
		return engine.ZLexBound{Kind: engine.ZLexIncl, Value: b[1:]}, true
	case '(':
		return engine.ZLexBound{Kind: engine.ZLexExcl, Value: b[1:]}, true
	}
	return engine.ZLexBound{}, false
}

func zsetLexRange(min, max []byte) (engine.ZLexRange, bool) {
	lo, ok1 := zsetLexBound(min)
	hi, ok2 := zsetLexBound(max)
	return engine.ZLexRange{Min: lo, Max: hi}, ok1 && ok2
}

// zsetRangeArgs parses min and max into q as a range of q.By: indexes,
// scores or lex bounds, each kind with its error reply.
func (c *Client) zsetRangeArgs(q *engine.ZRangeSpec, min, max []byte) bool {
	ok := false
	switch q.By {
	case engine.ZByRank:
		q.Start, q.Stop, ok = c.rangeArgs(min, max)
	case engine.ZByScore:
		if q.Score, ok = zsetScoreRange(min, max); !ok {
			c.w.Error(ErrZsetMinMaxNotFloat)
		}
	case engine.ZByLex:
		if q.Lex, ok = zsetLexRange(min, max); !ok {
			c.w.Error(ErrZsetLexRange)
		}
	}
	return ok
}

// --- reply helpers ---

// zsetArray writes the header of n members, with or without scores: a
// flat array of 2n in RESP2, n [member, score] pairs in RESP3.
func (c *Client) zsetArray(n int, withScores bool) {
	if withScores && !c.w.resp3() {
		c.w.Array(2 * n)
		return
	}
	c.w.Array(n)
}

// zsetMember writes a member (and score) of an array begun by zsetArray.
func (c *Client) zsetMember(m []byte, score float64, withScores bool) {
	if withScores && c.w.resp3() {
		c.w.Array(2)
	}
	c.w.Bulk(m)
	if withScores {
		c.w.Double(score)
	}
}

// appendListpackScore appends a score as a listpack stores it and ZSCAN
// replies it: Redis's d2string, which writes an integral score within
// ±2^62 as an integer ("123456789012345680", not %.17g's
// "1.2345678901234568e+17").
func appendListpackScore(b []byte, s float64) []byte {
	const lim = 1 << 62
	if s >= -lim && s <= lim && s == math.Trunc(s) {
		return strconv.AppendInt(b, int64(s), 10)
	}
	return appendDouble(b, s)
}

// --- commands ---

func cmdZAdd(c *Client, args [][]byte)    { zaddGeneric(c, args, 0) }
func cmdZIncrBy(c *Client, args [][]byte) { zaddGeneric(c, args, engine.ZAddIncr) }

// zaddGeneric is ZADD and ZINCRBY, parsed as Redis's zaddGenericCommand:
// option words first (ZINCRBY takes them too, so "ZINCRBY k nx m" is a
// syntax error), then score-member pairs; option conflicts are reported
// before any score is parsed, and nothing is written unless every score
// parses.
func zaddGeneric(c *Client, args [][]byte, flags engine.ZAddFlags) {
	ch := false
	i := 2
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case argIsC(a, "NX"):
			flags |= engine.ZAddNX
		case argIsC(a, "XX"):
			flags |= engine.ZAddXX
		case argIsC(a, "CH"):
			ch = true
		case argIsC(a, "INCR"):
			flags |= engine.ZAddIncr
		case argIsC(a, "GT"):
			flags |= engine.ZAddGT
		case argIsC(a, "LT"):
			flags |= engine.ZAddLT
		default:
			goto pairs
		}
	}
pairs:
	elements := len(args) - i
	if elements%2 != 0 || elements == 0 {
		c.w.Error(ErrSyntax)
		return
	}
	has := func(f engine.ZAddFlags) bool { return flags&f != 0 }
	switch {
	case has(engine.ZAddNX) && has(engine.ZAddXX):
		c.w.Error(ErrZaddNXXX)
		return
	case (has(engine.ZAddGT) && has(engine.ZAddNX)) || (has(engine.ZAddLT) && has(engine.ZAddNX)) || (has(engine.ZAddGT) && has(engine.ZAddLT)):
		c.w.Error(ErrZaddGTLTNX)
		return
	case has(engine.ZAddIncr) && elements > 2:
		c.w.Error(ErrZaddIncrPair)
		return
	}
	members := make([]engine.ZMember, elements/2)
	for j := range members {
		s, ok := num.ParseFloat(args[i+2*j])
		if !ok {
			c.w.Error(ErrNotFloat)
			return
		}
		members[j] = engine.ZMember{Member: args[i+2*j+1], Score: s}
	}
	res, err := c.db.ZAdd(args[1], flags, members, c.zsetLimits())
	if err == nil && res.Added+res.Updated > 0 {
		if has(engine.ZAddIncr) {
			c.notify(evZSet, "zincr", args[1])
		} else {
			c.notify(evZSet, "zadd", args[1])
		}
	}
	switch {
	case err != nil:
		c.zsetError(err)
	case has(engine.ZAddIncr) && res.Processed > 0:
		c.w.Double(res.Score)
	case has(engine.ZAddIncr):
		c.w.Null()
	case ch:
		c.w.Int(int64(res.Added + res.Updated))
	default:
		c.w.Int(int64(res.Added))
	}
}

func cmdZRem(c *Client, args [][]byte) {
	n, err := c.db.ZRem(args[1], args[2:])
	changedReply(c, n, err, c.zsetError, evZSet, "zrem", args[1])
}

func cmdZScore(c *Client, args [][]byte) {
	s, ok, err := c.db.ZScore(args[1], args[2])
	switch {
	case err != nil:
		c.zsetError(err)
	case !ok:
		c.w.Null()
	default:
		c.w.Double(s)
	}
}

func cmdZMScore(c *Client, args [][]byte) {
	started := false
	err := c.db.ZMScore(args[1], args[2:], func(s float64, ok bool) {
		if !started {
			c.w.Array(len(args) - 2)
			started = true
		}
		if ok {
			c.w.Double(s)
		} else {
			c.w.Null()
		}
	})
	if err != nil {
		c.zsetError(err)
	}
}

func cmdZCard(c *Client, args [][]byte) {
	n, err := c.db.ZCard(args[1])
	intReply(c, n, err, c.zsetError)
}

func cmdZCount(c *Client, args [][]byte)    { zcount(c, args, engine.ZByScore) }
func cmdZLexCount(c *Client, args [][]byte) { zcount(c, args, engine.ZByLex) }

// zcount is ZCOUNT and ZLEXCOUNT key min max: the range is parsed before
// the key is looked at.
func zcount(c *Client, args [][]byte, by engine.ZRangeBy) {
	q := engine.ZRangeSpec{By: by}
	if !c.zsetRangeArgs(&q, args[2], args[3]) {
		return
	}
	n, err := c.db.ZCount(args[1], q)
	intReply(c, n, err, c.zsetError)
}

// zrangeKind is how a ZRANGE-like command fixes its range type and
// direction; zero values leave them to BYSCORE, BYLEX and REV.
type zrangeKind struct {
	by    engine.ZRangeBy
	bySet bool
	rev   bool
	dir   bool // the direction is fixed (rev says which)
}

func cmdZRange(c *Client, args [][]byte) { zrangeGeneric(c, args, 1, false, zrangeKind{}) }
func cmdZRangeStore(c *Client, args [][]byte) {
	zrangeGeneric(c, args, 2, true, zrangeKind{})
}
func cmdZRevRange(c *Client, args [][]byte) {
	zrangeGeneric(c, args, 1, false, zrangeKind{by: engine.ZByRank, bySet: true, rev: true, dir: true})
}
func cmdZRangeByScore(c *Client, args [][]byte) {
	zrangeGeneric(c, args, 1, false, zrangeKind{by: engine.ZByScore, bySet: true, dir: true})
}
func cmdZRevRangeByScore(c *Client, args [][]byte) {
	zrangeGeneric(c, args, 1, false, zrangeKind{by: engine.ZByScore, bySet: true, rev: true, dir: true})
}
func cmdZRangeByLex(c *Client, args [][]byte) {
	zrangeGeneric(c, args, 1, false, zrangeKind{by: engine.ZByLex, bySet: true, dir: true})
}
func cmdZRevRangeByLex(c *Client, args [][]byte) {
	zrangeGeneric(c, args, 1, false, zrangeKind{by: engine.ZByLex, bySet: true, rev: true, dir: true})
}

// zrangeGeneric is ZRANGE, ZRANGESTORE and the older range commands, as
// Redis's zrangeGenericCommand: the options after <key> <min> <max> in any
// order (LIMIT's numbers parsed as they are met), then the conflicts
// (LIMIT with an index range, WITHSCORES with BYLEX), then the range,
// then the key.
func zrangeGeneric(c *Client, args [][]byte, keyIdx int, store bool, k zrangeKind) {
	var (
		withScores bool
		offset     int64
		limit      int64 = -1
	)
	for j := keyIdx + 3; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case !store && argIsC(a, "WITHSCORES"):
			withScores = true
		case argIsC(a, "LIMIT") && left >= 2:
			var ok bool
			if offset, ok = c.intArg(args[j+1]); !ok {
				return
			}
			if limit, ok = c.intArg(args[j+2]); !ok {
				return
			}
			j += 2
		case !k.dir && argIsC(a, "REV"):
			k.rev, k.dir = true, true
		case !k.bySet && argIsC(a, "BYLEX"):
			k.by, k.bySet = engine.ZByLex, true
		case !k.bySet && argIsC(a, "BYSCORE"):
			k.by, k.bySet = engine.ZByScore, true
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	if limit != -1 && k.by == engine.ZByRank {
		c.w.Error(ErrZrangeLimitByRank)
		return
	}
	if withScores && k.by == engine.ZByLex {
		c.w.Error(ErrZrangeLexScores)
		return
	}
	minArg, maxArg := args[keyIdx+1], args[keyIdx+2]
	if k.rev && k.by != engine.ZByRank {
		minArg, maxArg = maxArg, minArg // given as max, min
	}
	q := engine.ZRangeSpec{By: k.by, Rev: k.rev, Offset: offset, Limit: limit}
	if k.by == engine.ZByRank {
		q.Offset, q.Limit = 0, -1
	}
	if !c.zsetRangeArgs(&q, minArg, maxArg) {
		return
	}
	if store {
		n, err := c.db.ZRangeStore(args[1], args[2], &q, c.zsetLimits())
		changedReply(c, n, err, c.zsetError, evZSet, "zrangestore", args[1])
		return
	}
	found, err := c.db.ZRange(args[keyIdx], &q, func(n int) { c.zsetArray(n, withScores) },
		func(m []byte, s float64) { c.zsetMember(m, s, withScores) })
	switch {
	case err != nil:
		c.zsetError(err)
	case !found:
		c.w.Array(0)
	}
}

func cmdZRank(c *Client, args [][]byte)    { zrankGeneric(c, args, false) }
func cmdZRevRank(c *Client, args [][]byte) { zrankGeneric(c, args, true) }

func zrankGeneric(c *Client, args [][]byte, rev bool) {
	r, ok, err := c.db.ZRank(args[1], args[2], rev)
	switch {
	case err != nil:
		c.zsetError(err)
	case !ok:
		c.w.Null()
	default:
		c.w.Int(int64(r))
	}
}

func cmdZRemRangeByRank(c *Client, args [][]byte)  { zremRange(c, args, engine.ZByRank) }
func cmdZRemRangeByScore(c *Client, args [][]byte) { zremRange(c, args, engine.ZByScore) }
func cmdZRemRangeByLex(c *Client, args [][]byte)   { zremRange(c, args, engine.ZByLex) }

// zremRange is ZREMRANGEBYRANK, ZREMRANGEBYSCORE and ZREMRANGEBYLEX key
// min max: the range is parsed before the key is looked at.
func zremRange(c *Client, args [][]byte, by engine.ZRangeBy) {
	q := engine.ZRangeSpec{By: by}
	if !c.zsetRangeArgs(&q, args[2], args[3]) {
		return
	}
	n, err := c.db.ZRemRange(args[1], q)
	changedReply(c, n, err, c.zsetError, evZSet, zremRangeEvent(q.By), args[1])
}

func cmdZPopMin(c *Client, args [][]byte) { zpopMinMax(c, args, false) }
func cmdZPopMax(c *Client, args [][]byte) { zpopMinMax(c, args, true) }

// zpopMinMax is ZPOPMIN and ZPOPMAX key [count]. Without a count the
// reply is [member, score]; with one it is a flat array in RESP2 and an
// array of pairs in RESP3; a missing key gives an empty array.
func zpopMinMax(c *Client, args [][]byte, max bool) {
	if len(args) > 3 {
		c.w.Error(ErrSyntax)
		return
	}
	count, nested := int64(1), false
	if len(args) == 3 {
		var ok bool
		if count, ok = c.countArg(args[2], 0, ErrZsetNotPositive); !ok {
			return
		}
		nested = c.w.resp3()
	}
	popped := 0
	idx, err := c.db.ZPop(args[1:2], max, int(min(count, math.MaxInt)), func(_, n int) {
		popped = n
		if nested {
			c.w.Array(n)
		} else {
			c.w.Array(2 * n)
		}
	}, func(m []byte, s float64) {
		if nested {
			c.w.Array(2)
		}
		c.w.Bulk(m)
		c.w.Double(s)
	})
	if err == nil && idx >= 0 && popped > 0 {
		c.notify(evZSet, zpopEvent(max), args[1])
	}
	switch {
	case err != nil:
		c.zsetError(err)
	case idx < 0:
		c.w.Array(0)
	}
}

// cmdZMPop is ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]: the reply
// is [key, [[member, score], ...]], or a null array when every key is
// empty.
func cmdZMPop(c *Client, args [][]byte) {
	keys, max, count, ok := c.zmpopArgs(args, 1)
	if !ok {
		return
	}
	popped := 0
	idx, err := c.db.ZPop(keys, max, int(min(count, math.MaxInt)), func(k, n int) {
		popped = n
		c.mpopHeader(keys[k], n)
	}, c.zsetPair)
	if err == nil && idx >= 0 && popped > 0 {
		c.notify(evZSet, zpopEvent(max), keys[idx])
		c.propagatePop(zpopEvent(max), keys[idx], int64(popped)) // as ZPOPMIN/ZPOPMAX key count
	}
	switch {
	case err != nil:
		c.zsetError(err)
	case idx < 0:
		c.w.NullArray()
	}
}

func cmdZUnion(c *Client, args [][]byte) {
	zcombineGeneric(c, args, "zunion", engine.ZUnion, false, false)
}
func cmdZInter(c *Client, args [][]byte) {
	zcombineGeneric(c, args, "zinter", engine.ZInter, false, false)
}
func cmdZDiff(c *Client, args [][]byte) {
	zcombineGeneric(c, args, "zdiff", engine.ZDiff, false, false)
}
func cmdZUnionStore(c *Client, args [][]byte) {
	zcombineGeneric(c, args, "zunionstore", engine.ZUnion, true, false)
}
func cmdZInterStore(c *Client, args [][]byte) {
	zcombineGeneric(c, args, "zinterstore", engine.ZInter, true, false)
}
func cmdZDiffStore(c *Client, args [][]byte) {
	zcombineGeneric(c, args, "zdiffstore", engine.ZDiff, true, false)
}
func cmdZInterCard(c *Client, args [][]byte) {
	zcombineGeneric(c, args, "zintercard", engine.ZInter, false, true)
}

// zcombineGeneric is ZUNION, ZINTER, ZDIFF, their STORE forms and
// ZINTERCARD, as Redis's zunionInterDiffGenericCommand: numkeys, then the
// keys are looked up (a key of another type is WRONGTYPE, before any
// option error), then the options: WEIGHTS and AGGREGATE (not for ZDIFF
// or ZINTERCARD), WITHSCORES (not for the STORE forms), LIMIT (ZINTERCARD
// only), each as often as given.
func zcombineGeneric(c *Client, args [][]byte, name string, op engine.ZSetOp, store, card bool) {
	numIdx := 1
	if store {
		numIdx = 2
	}
	setnum, ok := c.intArg(args[numIdx])
	if !ok {
		return
	}
	if setnum < 1 {
		c.w.Error(fmt.Sprintf(ErrZsetNeedKey, name))
		return
	}
	if setnum > int64(len(args)-numIdx-1) {
		c.w.Error(ErrSyntax)
		return
	}
	keys := args[numIdx+1 : numIdx+1+int(setnum)]
	spec := engine.ZCombineSpec{Op: op}
	var (
		withScores bool
		limit      int64
		optErr     string
	)
options:
	for j := numIdx + 1 + int(setnum); j < len(args); {
		remaining := len(args) - j
		a := args[j]
		switch {
		case op != engine.ZDiff && !card && remaining >= int(setnum)+1 && argIsC(a, "WEIGHTS"):
			j++
			spec.Weights = make([]float64, setnum)
			for i := range spec.Weights {
				w, ok := num.ParseFloat(args[j])
				if !ok {
					optErr = ErrZsetWeightNotFloat
					break options
				}
				spec.Weights[i] = w
				j++
			}
		case op != engine.ZDiff && !card && remaining >= 2 && argIsC(a, "AGGREGATE"):
			switch v := args[j+1]; {
			case argIsC(v, "SUM"):
				spec.Agg = engine.ZAggSum
			case argIsC(v, "MIN"):
				spec.Agg = engine.ZAggMin
			case argIsC(v, "MAX"):
				spec.Agg = engine.ZAggMax
			default:
				optErr = ErrSyntax
				break options
			}
			j += 2
		case !store && !card && argIsC(a, "WITHSCORES"):
			withScores = true
			j++
		case card && remaining >= 2 && argIsC(a, "LIMIT"):
			v, ok := num.ParseInt(args[j+1])
			if !ok || v < 0 {
				optErr = ErrZsetLimitNegative
				break options
			}
			limit = v
			j += 2
		default:
			optErr = ErrSyntax
			break options
		}
	}
	if optErr != "" {
		if err := c.db.ZCheckSources(keys); err != nil {
			c.zsetError(err)
			return
		}
		c.w.Error(optErr)
		return
	}
	switch {
	case card:
		n, err := c.db.ZInterCard(keys, limit)
		intReply(c, n, err, c.zsetError)
	case store:
		n, err := c.db.ZCombineStore(args[1], keys, &spec, c.zsetLimits())
		changedReply(c, n, err, c.zsetError, evZSet, name, args[1])
	default:
		err := c.db.ZCombine(keys, &spec, func(n int) { c.zsetArray(n, withScores) },
			func(m []byte, s float64) { c.zsetMember(m, s, withScores) })
		if err != nil {
			c.zsetError(err)
		}
	}
}

// cmdZRandMember is ZRANDMEMBER key [count [WITHSCORES]].
func cmdZRandMember(c *Client, args [][]byte) {
	if len(args) == 2 {
		found, err := c.db.ZRandMember(args[1], 0, false, nil, func(m []byte, _ float64) { c.w.Bulk(m) })
		switch {
		case err != nil:
			c.zsetError(err)
		case !found:
			c.w.Null()
		}
		return
	}
	count, withScores, ok := c.randCountArgs(args, "WITHSCORES", ErrZsetRandCountRange, ErrZsetRandScoresRange)
	if !ok {
		return
	}
	found, err := c.db.ZRandMember(args[1], count, true, func(n int) { c.zsetArray(n, withScores) },
		func(m []byte, s float64) { c.zsetMember(m, s, withScores) })
	switch {
	case err != nil:
		c.zsetError(err)
	case !found:
		c.w.Array(0)
	}
}

// cmdZScan is ZSCAN key cursor [MATCH pattern] [COUNT count]. As in
// Redis, the cursor is checked first, then the key (a missing key gives an
// empty scan whatever the options), then the options. Scores are bulk
// strings in both protocols.
func cmdZScan(c *Client, args [][]byte) {
	cursor, ok := c.scanCursorArg(args[2])
	if !ok {
		return
	}
	o, optErr := scanOptions(args, 3, false)
	if optErr != "" {
		n, err := c.db.ZCard(args[1])
		c.scanOptionError(n, err, c.zsetError, optErr)
		return
	}
	tmp := Writer{Proto: c.w.Proto}
	n := 0
	var buf [32]byte
	next, err := c.db.ZScan(args[1], cursor, o.batch(), o.pattern, func(m []byte, s float64, listpack bool) {
		tmp.Bulk(m)
		if listpack {
			tmp.Bulk(appendListpackScore(buf[:0], s))
		} else {
			tmp.Bulk(appendDouble(buf[:0], s))
		}
		n += 2
	})
	if err != nil {
		c.zsetError(err)
		return
	}
	c.writeScanPage(next, n, tmp.Buf)
}

// zsetNumkeysKeys finds the keys of ZUNION, ZINTER, ZDIFF, ZINTERCARD and
// ZMPOP (numkeys key ...), as Redis's zunionInterDiffGetKeys and
// zmpopGetKeys.
func zsetNumkeysKeys(args [][]byte) []int { return numkeysKeys(args, 0, 1) }

// zsetStoreKeys finds the keys of ZUNIONSTORE, ZINTERSTORE and ZDIFFSTORE
// (destination numkeys key ...), as zunionInterDiffStoreGetKeys.
func zsetStoreKeys(args [][]byte) []int { return numkeysKeys(args, 1, 2) }

// bzmpopKeys finds BZMPOP's keys (timeout numkeys key ...), as
// bzmpopGetKeys.
func bzmpopKeys(args [][]byte) []int { return numkeysKeys(args, 0, 2) }

// zmpopArgs reads numkeys key... MIN|MAX [COUNT count] from args[at:],
// the arguments ZMPOP and BZMPOP share, as Redis's zmpopGenericCommand: a
// bad numkeys, too few arguments, neither MIN nor MAX, a bad or repeated
// COUNT are errors, in that order; it replies the error itself.
func (c *Client) zmpopArgs(args [][]byte, at int) (keys [][]byte, max bool, count int64, ok bool) {
	if keys, ok = c.numkeysArg(args, at, 1, ErrZsetNumkeys, ErrSyntax); !ok {
		return nil, false, 0, false
	}
	whereAt := at + 1 + len(keys)
	switch {
	case argIsC(args[whereAt], "MIN"):
	case argIsC(args[whereAt], "MAX"):
		max = true
	default:
		c.w.Error(ErrSyntax)
		return nil, false, 0, false
	}
	if count, ok = c.mpopCountArg(args, whereAt+1, ErrZsetCountPositive); !ok {
		return nil, false, 0, false
	}
	return keys, max, count, true
}

// zsetPair writes [member, score], an element of ZMPOP's and BZMPOP's
// replies in both protocols.
func (c *Client) zsetPair(m []byte, score float64) {
	c.w.Array(2)
	c.w.Bulk(m)
	c.w.Double(score)
}
