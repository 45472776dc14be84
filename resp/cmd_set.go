package resp

import (
	"math"
	"slices"
	"strconv"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/glob"
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/services"
)

// setCommands is the set family (Redis group "set"). Arity, flags, key
// positions, since and summary are redis 7.0.15's (COMMAND INFO and
// COMMAND DOCS). SINTERCARD's keys are movable (numkeys): like Redis's
// legacy fields it declares none, and sinterCardKeys finds them.
func setCommands() []*Command {
	const (
		g  = "set"
		w  = FlagWrite
		wd = FlagWrite | FlagDenyOOM
		ro = FlagReadonly
		f  = FlagFast
	)
	acl := []string{"@set"}
	return []*Command{
		{Name: "sadd", Arity: -3, Flags: wd | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Add one or more members to a set", Run: cmdSAdd},
		{Name: "srem", Arity: -3, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Remove one or more members from a set", Run: cmdSRem},
		{Name: "smembers", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.0", Summary: "Get all the members in a set", Run: cmdSMembers},
		{Name: "sismember", Arity: 3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Determine if a given value is a member of a set", Run: cmdSIsMember},
		{Name: "smismember", Arity: -3, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "6.2.0", Summary: "Returns the membership associated with the given elements for a set", Run: cmdSMIsMember},
		{Name: "scard", Arity: 2, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Get the number of members in a set", Run: cmdSCard},
		{Name: "spop", Arity: -2, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Remove and return one or multiple random members from a set", Run: cmdSPop},
		{Name: "srandmember", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.0", Summary: "Get one or multiple random members from a set", Run: cmdSRandMember},
		{Name: "smove", Arity: 4, Flags: w | f, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessDel, ksRWInsert}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Move a member from one set to another", Run: cmdSMove},
		{Name: "sinter", Arity: -2, Flags: ro, FirstKey: 1, LastKey: -1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.0", Summary: "Intersect multiple sets", Run: cmdSInter},
		{Name: "sintercard", Arity: -3, Flags: ro, Keys: sinterCardKeys, KeyFlags: []KeyFlag{ksROAccess}, VarKeyFlags: numkeysFallbackFlags(1), Group: g, ACL: acl, Since: "7.0.0", Summary: "Intersect multiple sets and return the cardinality of the result", Run: cmdSInterCard},
		{Name: "sinterstore", Arity: -3, Flags: wd, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWUpdate, ksROAccess}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Intersect multiple sets and store the resulting set in a key", Run: cmdSInterStore},
		{Name: "sunion", Arity: -2, Flags: ro, FirstKey: 1, LastKey: -1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.0", Summary: "Add multiple sets", Run: cmdSUnion},
		{Name: "sunionstore", Arity: -3, Flags: wd, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate, ksROAccess}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Add multiple sets and store the resulting set in a key", Run: cmdSUnionStore},
		{Name: "sdiff", Arity: -2, Flags: ro, FirstKey: 1, LastKey: -1, KeyStep: 1, Group: g, ACL: acl, Since: "1.0.0", Summary: "Subtract multiple sets", Run: cmdSDiff},
		{Name: "sdiffstore", Arity: -3, Flags: wd, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate, ksROAccess}, Group: g, ACL: acl, Since: "1.0.0", Summary: "Subtract multiple sets and store the resulting set in a key", Run: cmdSDiffStore},
		{Name: "sscan", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.8.0", Summary: "Incrementally iterate Set elements", Run: cmdSScan},
	}
}

// setLimits are the encoding thresholds in force for this command.
func (c *Client) setLimits() engine.SetLimits {
	return services.SetLimits(c.fe.cfg)
}

// memberWriter is the client's Writer as the engine's MemberSink: members
// become bulk strings. Converting &c.w to it allocates nothing.
type memberWriter Writer

func (mw *memberWriter) Member(m []byte)   { (*Writer)(mw).Bulk(m) }
func (mw *memberWriter) IntMember(v int64) { (*Writer)(mw).BulkInt(v) }

func (c *Client) members() *memberWriter { return (*memberWriter)(&c.w) }

// finishMembers completes a reply whose members the engine wrote from
// offset start on: its length is known only now, so the aggregate header
// (a set in RESP3 when asSet, else an array) goes in front of them, as
// Redis's deferred lengths do. On an error the members are dropped and the
// error replied instead.
func (c *Client) finishMembers(start, n int, err error, asSet bool) {
	if err != nil {
		c.w.Buf = c.w.Buf[:start]
		c.engineError(err)
		return
	}
	prefix := byte('*')
	if asSet && c.w.Proto == 3 {
		prefix = '~'
	}
	var tmp [24]byte
	c.w.Buf = slices.Insert(c.w.Buf, start, appendHeader(tmp[:0], prefix, int64(n))...)
}

func cmdSAdd(c *Client, args [][]byte) {
	n, err := c.db.SAdd(args[1], args[2:], c.setLimits())
	changedReply(c, n, err, c.engineError, evSet, "sadd", args[1])
}

func cmdSRem(c *Client, args [][]byte) {
	n, err := c.db.SRem(args[1], args[2:])
	changedReply(c, n, err, c.engineError, evSet, "srem", args[1])
}

// cmdSMembers replies a set (RESP3 ~); an intset's members ascend.
func cmdSMembers(c *Client, args [][]byte) {
	start := len(c.w.Buf)
	n, err := c.db.SMembers(args[1], c.members())
	c.finishMembers(start, n, err, true)
}

func cmdSIsMember(c *Client, args [][]byte) {
	ok, err := c.db.SIsMember(args[1], args[2])
	if err != nil {
		c.engineError(err)
		return
	}
	c.w.Int(b2i(ok))
}

func cmdSMIsMember(c *Client, args [][]byte) {
	var stack [16]bool
	res, err := c.db.SMIsMember(args[1], args[2:], stack[:0])
	if err != nil {
		c.engineError(err)
		return
	}
	c.w.Array(len(res))
	for _, ok := range res {
		c.w.Int(b2i(ok))
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmdSCard(c *Client, args [][]byte) {
	n, err := c.db.SCard(args[1])
	intReply(c, n, err, c.engineError)
}

// cmdSPop is SPOP key [count]. The count is checked before the key, as in
// Redis: anything but an integer in [0, LONG_MAX] is "must be positive".
// With a count the reply is a set (RESP3 ~), empty for a missing key.
func cmdSPop(c *Client, args [][]byte) {
	switch len(args) {
	case 2:
		var tmp [64]byte
		m, ok, err := c.db.SPopOne(args[1], tmp[:0])
		switch {
		case err != nil:
			c.engineError(err)
		case !ok:
			c.w.Null()
		default:
			c.notify(evSet, "spop", args[1])
			c.propagateAs(argSREM, args[1], m)
			c.w.Bulk(m)
		}
		return
	case 3:
	default:
		c.w.Error(ErrSyntax)
		return
	}
	count, ok := num.ParseInt(args[2])
	if !ok || count < 0 {
		c.w.Error(ErrSetPopCount)
		return
	}
	start := len(c.w.Buf)
	n, err := c.db.SPop(args[1], uint64(count), c.setLimits(), c.members())
	if err == nil && n > 0 {
		c.notify(evSet, "spop", args[1])
		c.propagateSPop(args[1], c.w.Buf[start:])
	}
	c.finishMembers(start, n, err, true)
}

// argSREM is SPOP's propagated form.
var argSREM = []byte("SREM")

// propagateSPop records SPOP key count's effect as Redis's
// spopWithCountCommand: a DEL (UNLINK under lazyfree-lazy-server-del)
// when it emptied the set, else SREMs of the popped members — those
// written to the reply from popped on — at most 1024 a command.
func (c *Client) propagateSPop(key, popped []byte) {
	if !c.propagating() {
		return
	}
	if c.db.Exists(key) == 0 {
		c.propagateAs(delArg(c.fe.cfg.LazyfreeLazyServerDel()), key)
		return
	}
	members := bulksOf(popped)
	for len(members) > 0 {
		batch := members[:min(len(members), 1024)]
		members = members[len(batch):]
		c.propagateAs(append([][]byte{argSREM, key}, batch...)...)
	}
}

// cmdSRandMember is SRANDMEMBER key [count]: with a count, an array (never
// a set) of distinct members, or of -count members that may repeat.
func cmdSRandMember(c *Client, args [][]byte) {
	switch len(args) {
	case 2:
		var tmp [64]byte
		m, ok, err := c.db.SRandMember(args[1], tmp[:0])
		switch {
		case err != nil:
			c.engineError(err)
		case !ok:
			c.w.Null()
		default:
			c.w.Bulk(m)
		}
		return
	case 3:
	default:
		c.w.Error(ErrSyntax)
		return
	}
	count, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if count == math.MinInt64 {
		c.w.Error(ErrSetRandCountRange)
		return
	}
	start := len(c.w.Buf)
	n, err := c.db.SRandMembers(args[1], count, c.members())
	c.finishMembers(start, n, err, false)
}

func cmdSMove(c *Client, args [][]byte) {
	moved, added, err := c.db.SMove(args[1], args[2], args[3], c.setLimits())
	if err != nil {
		c.engineError(err)
		return
	}
	if moved && string(args[1]) != string(args[2]) {
		c.notify(evSet, "srem", args[1])
		c.events.Flush() // "del" of an emptied source comes before "sadd"
		if added {
			c.notify(evSet, "sadd", args[2])
		}
	}
	c.w.Int(b2i(moved))
}

func cmdSInter(c *Client, args [][]byte) { setCombine(c, engine.SetInter, args[1:]) }
func cmdSUnion(c *Client, args [][]byte) { setCombine(c, engine.SetUnion, args[1:]) }
func cmdSDiff(c *Client, args [][]byte)  { setCombine(c, engine.SetDiff, args[1:]) }

// setCombine replies SINTER, SUNION or SDIFF as a set (RESP3 ~). The order
// is Redis's where Redis's is not arbitrary: ascending when the result (or,
// for SINTER, the smallest set) is an intset.
func setCombine(c *Client, op engine.SetOp, keys [][]byte) {
	start := len(c.w.Buf)
	n, err := c.db.SCombine(op, keys, c.setLimits(), c.members())
	c.finishMembers(start, n, err, true)
}

func cmdSInterStore(c *Client, args [][]byte) { setStore(c, engine.SetInter, args) }
func cmdSUnionStore(c *Client, args [][]byte) { setStore(c, engine.SetUnion, args) }
func cmdSDiffStore(c *Client, args [][]byte)  { setStore(c, engine.SetDiff, args) }

// setStore replies the size of the stored result; an empty result deletes
// the destination, whatever type it held.
func setStore(c *Client, op engine.SetOp, args [][]byte) {
	n, err := c.db.SCombineStore(op, args[1], args[2:], c.setLimits())
	changedReply(c, n, err, c.engineError, evSet, setStoreEvent(op), args[1])
}

// cmdSInterCard is SINTERCARD numkeys key [key ...] [LIMIT limit]. Errors
// come in Redis's order: numkeys, then the options, then the keys' types.
func cmdSInterCard(c *Client, args [][]byte) {
	keys, ok := c.numkeysArg(args, 1, 0, ErrSetNumkeys, ErrSetNumkeysArgs)
	if !ok {
		return
	}
	var limit int64
	for i := 2 + len(keys); i < len(args); i++ {
		if argIsC(args[i], "LIMIT") && i+1 < len(args) {
			i++
			if limit, ok = c.countArg(args[i], 0, ErrSetLimitNegative); !ok {
				return
			}
			continue
		}
		c.w.Error(ErrSyntax)
		return
	}
	n, err := c.db.SInterCard(keys, limit)
	intReply(c, n, err, c.engineError)
}

// cmdSScan is SSCAN key cursor [MATCH pattern] [COUNT count]. Redis checks
// the cursor, then the key (a missing one replies an empty scan whatever
// the options; another type is WRONGTYPE), then the options. An intset
// comes whole with cursor 0; a hashtable in batches of about count.
func cmdSScan(c *Client, args [][]byte) {
	cursor, ok := c.scanCursorArg(args[2])
	if !ok {
		return
	}
	o, optErr := scanOptions(args, 3, false)
	if optErr != "" {
		n, err := c.db.SCard(args[1])
		c.scanOptionError(n, err, c.engineError, optErr)
		return
	}
	var match func([]byte) bool
	if o.pattern != nil {
		match = func(m []byte) bool { return glob.Match(o.pattern, m, false) }
	}
	start := len(c.w.Buf)
	next, n, err := c.db.SScan(args[1], cursor, o.batch(), match, c.members())
	if err != nil {
		c.w.Buf = c.w.Buf[:start]
		c.engineError(err)
		return
	}
	var tmp [64]byte
	var num [20]byte
	head := appendHeader(tmp[:0], '*', 2)
	cur := strconv.AppendUint(num[:0], next, 10)
	head = appendHeader(head, '$', int64(len(cur)))
	head = append(append(head, cur...), '\r', '\n')
	head = appendHeader(head, '*', int64(n))
	c.w.Buf = slices.Insert(c.w.Buf, start, head...)
}

// sinterCardKeys finds SINTERCARD's keys (numkeys key ...), as Redis's
// sintercardGetKeys.
func sinterCardKeys(args [][]byte) []int { return numkeysKeys(args, 0, 1) }
