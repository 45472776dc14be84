package resp

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
)

// streamCommands is the stream family (Redis group "stream"): XADD,
// XRANGE, XREVRANGE, XLEN, XDEL, XTRIM, XSETID and XREAD here; consumer
// groups (XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM) and
// XINFO in cmd_stream_group.go. Arity, flags, key specs, tips, since and
// summary are redis 7.0.15's (COMMAND INFO and COMMAND DOCS).
func streamCommands() []*Command {
	const (
		w  = FlagWrite
		ro = FlagReadonly
		f  = FlagFast
		g  = "stream"
	)
	acl := []string{"@stream"}
	cmds := []*Command{
		{Name: "xadd", Arity: -5, Flags: w | FlagDenyOOM | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWUpdate}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Appends a new entry to a stream", Run: cmdXAdd},
		{Name: "xrange", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksROAccess}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Return a range of elements in a stream, with IDs matching the specified IDs interval", Run: cmdXRange},
		{Name: "xrevrange", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksROAccess}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE", Run: cmdXRevRange},
		{Name: "xlen", Arity: 2, Flags: ro | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Return the number of entries in a stream", Run: cmdXLen},
		{Name: "xdel", Arity: -3, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.", Run: cmdXDel},
		{Name: "xtrim", Arity: -4, Flags: w, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Trims the stream to (approximately if '~' is passed) a certain size", Run: cmdXTrim},
		{Name: "xsetid", Arity: -3, Flags: w | FlagDenyOOM | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWUpdate}, Group: g, ACL: acl, Since: "5.0.0", Summary: "An internal command for replicating stream values", Run: cmdXSetID},
		{Name: "xread", Arity: -4, Flags: ro | FlagBlocking, Keys: xreadKeys, KeyFlags: []KeyFlag{ksROAccess},
			Group: g, ACL: acl, Since: "5.0.0", Summary: "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.", Run: cmdXRead},
	}
	return append(cmds, streamGroupCommands()...)
}

// Stream errors, checked against redis-server 7.0.15.
const (
	ErrStreamBadID          = "ERR Invalid stream ID specified as stream command argument"
	ErrStreamMaxLenMinID    = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	ErrStreamMaxLenNegative = "ERR The MAXLEN argument must be >= 0."
	ErrStreamLimitNegative  = "ERR The LIMIT argument must be >= 0."
	ErrStreamLimitNoTrim    = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	ErrStreamXTrimNoTrim    = "ERR syntax error, XTRIM must be called with a trimming strategy"
	ErrStreamLimitNoApprox  = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	ErrStreamIDZero         = "ERR The ID specified in XADD must be greater than 0-0"
	ErrStreamExhausted      = "ERR The stream has exhausted the last possible ID, unable to add more items"
	ErrStreamIDTooSmall     = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	ErrStreamTooLarge       = "ERR Elements are too large to be stored"
	ErrStreamBadStart       = "ERR invalid start ID for the interval"
	ErrStreamBadEnd         = "ERR invalid end ID for the interval"
	ErrStreamEntriesAdded   = "ERR entries_added must be positive"
	ErrStreamSetIDMaxDel    = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
	ErrStreamSetIDSmall     = "ERR The ID specified in XSETID is smaller than the target stream top item"
	ErrStreamSetIDEntries   = "ERR The entries_added specified in XSETID is smaller than the target stream length"
	ErrStreamUnbalanced     = "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."
	ErrStreamGroupInXRead   = "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
	ErrStreamNoAckInXRead   = "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."
	ErrStreamMissingGroup   = "ERR Missing GROUP option for XREADGROUP"
	ErrStreamNoGroupRead    = "NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option"
	ErrStreamDollarInGroup  = "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."
	ErrStreamNewInXRead     = "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."
	ErrStreamBlockInScript  = "ERR %s command is not allowed with BLOCK option from scripts"
	ErrStreamGroupGone      = "NOGROUP the consumer group this client was blocked on no longer exists"
	ErrStreamKeyGone        = "UNBLOCKED the stream key no longer exists"
	ErrTimeoutNotInteger    = "ERR timeout is not an integer or out of range"
)

// evStream is the stream event class (notify.go has the others).
const evStream = engine.ClassStream

// streamError replies an engine error of the family.
func (c *Client) streamError(err error) {
	switch err {
	case engine.ErrStreamIDTooSmall:
		c.w.Error(ErrStreamIDTooSmall)
	case engine.ErrStreamExhausted:
		c.w.Error(ErrStreamExhausted)
	case engine.ErrStreamTooLarge:
		c.w.Error(ErrStreamTooLarge)
	case engine.ErrStreamSetIDSmall:
		c.w.Error(ErrStreamSetIDSmall)
	case engine.ErrStreamSetIDEntries:
		c.w.Error(ErrStreamSetIDEntries)
	case engine.ErrStreamBadID:
		c.w.Error(ErrStreamBadID)
	case engine.ErrStreamGroupGone:
		c.w.Error(ErrStreamGroupGone)
	case engine.ErrStreamKeyGone:
		c.w.Error(ErrStreamKeyGone)
	default:
		c.streamGroupError(err)
	}
}

// streamLimits are stream-node-max-bytes and stream-node-max-entries now.
func (c *Client) streamLimits() engine.StreamLimits {
	return engine.StreamLimits{NodeMaxBytes: c.fe.cfg.StreamNodeMaxBytes(), NodeMaxEntries: c.fe.cfg.StreamNodeMaxEntries()}
}

// --- IDs ---

// parseStreamID parses an ID as Redis's streamGenericParseIDOrReply:
// "ms-seq", or "ms" with seq missingSeq; "-" and "+" (0-0 and the largest
// ID) unless strict; "ms-*" when seqStar (then seqGiven is false). The
// argument is read as a C string (up to a NUL) of at most 127 bytes, and
// each part as Redis's string2ull.
func parseStreamID(b []byte, missingSeq uint64, strict, seqStar bool) (id engine.StreamID, seqGiven, ok bool) {
	if len(b) > 127 {
		return id, false, false
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if strict {
			return id, false, false
		}
		if b[0] == '+' {
			return engine.MaxStreamID, true, true
		}
		return id, true, true
	}
	seqGiven = true
	msPart, seqPart, dash := bytes.Cut(b, []byte{'-'})
	ms, ok := string2ull(msPart)
	if !ok {
		return id, false, false
	}
	seq := missingSeq
	if dash {
		if seqStar && len(seqPart) == 1 && seqPart[0] == '*' {
			seq, seqGiven = 0, false
		} else if seq, ok = string2ull(seqPart); !ok {
			return id, false, false
		}
	}
	return engine.StreamID{Ms: ms, Seq: seq}, seqGiven, true
}

// string2ull is Redis's: a canonical int64 that is not negative, else
// what strtoull accepts whole (leading space, a sign, leading zeros; a
// negative value wraps), refusing overflow and empty input.
func string2ull(b []byte) (uint64, bool) {
	if v, ok := num.ParseInt(b); ok {
		return uint64(v), v >= 0
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(d))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(d)
	}
	if neg {
		v = -v
	}
	return v, true
}

// streamIDArg parses a strict ID ("-" and "+" refused) or replies the
// error.
func (c *Client) streamIDArg(b []byte, missingSeq uint64) (engine.StreamID, bool) {
	id, _, ok := parseStreamID(b, missingSeq, true, false)
	if !ok {
		c.w.Error(ErrStreamBadID)
	}
	return id, ok
}

// streamRangeArg parses an end of XRANGE's interval as Redis's
// streamParseIntervalIDOrReply: "(" makes it exclusive (and strict).
func (c *Client) streamRangeArg(b []byte, missingSeq uint64) (id engine.StreamID, ex, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		id, ok = c.streamIDArg(b[1:], missingSeq)
		return id, true, ok
	}
	id, _, ok = parseStreamID(b, missingSeq, false, false)
	if !ok {
		c.w.Error(ErrStreamBadID)
	}
	return id, false, ok
}

// writeStreamID replies an ID as a bulk string.
func (c *Client) writeStreamID(id engine.StreamID) {
	var buf [48]byte
	c.w.Bulk(id.AppendTo(buf[:0]))
}

// writeStreamEntry replies [id, [field, value, ...]], or [id, nil] for a
// PEL entry whose message is gone.
func (c *Client) writeStreamEntry(e *engine.StreamEntry) {
	c.w.Array(2)
	c.writeStreamID(e.ID)
	if e.Fields == nil {
		c.w.NullArray()
		return
	}
	c.w.Array(len(e.Fields))
	for _, f := range e.Fields {
		c.w.Bulk(f)
	}
}

// --- XADD, XTRIM ---

// trimArgs is what XADD and XTRIM parse, as streamParseAddOrTrimArgsOrReply.
type trimArgs struct {
	trim       engine.StreamTrim
	id         engine.StreamID
	idGiven    bool
	seqGiven   bool
	noMkStream bool
}

// parseTrimArgs parses args[2:] of XADD (xadd) or XTRIM; for XADD it
// returns the position of the ID. It replies the error itself.
func (c *Client) parseTrimArgs(args [][]byte, xadd bool) (a trimArgs, idPos int, ok bool) {
	limitGiven := false
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && len(opt) > 0 && opt[0] == '*' && (len(opt) == 1 || opt[1] == 0):
			return c.finishTrimArgs(a, limitGiven, xadd, i)
		case argIsC(opt, "MAXLEN") && more > 0, argIsC(opt, "MINID") && more > 0:
			if a.trim.Strategy != engine.TrimNone {
				c.w.Error(ErrStreamMaxLenMinID)
				return a, 0, false
			}
			a.trim.Approx = false
			if next := args[i+1]; more >= 2 && len(next) > 0 && (next[0] == '~' || next[0] == '=') && (len(next) == 1 || next[1] == 0) {
				a.trim.Approx = next[0] == '~'
				i++
			}
			if argIsC(opt, "MAXLEN") {
				n, ok := c.intArg(args[i+1])
				if !ok {
					return a, 0, false
				}
				if n < 0 {
					c.w.Error(ErrStreamMaxLenNegative)
					return a, 0, false
				}
				a.trim.Strategy, a.trim.MaxLen = engine.TrimMaxLen, n
			} else {
				id, ok := c.streamIDArg(args[i+1], 0)
				if !ok {
					return a, 0, false
				}
				a.trim.Strategy, a.trim.MinID = engine.TrimMinID, id
			}
			i++
		case argIsC(opt, "LIMIT") && more > 0:
			n, ok := c.intArg(args[i+1])
			if !ok {
				return a, 0, false
			}
			if n < 0 {
				c.w.Error(ErrStreamLimitNegative)
				return a, 0, false
			}
			a.trim.Limit, limitGiven = n, true
			i++
		case xadd && argIsC(opt, "NOMKSTREAM"):
			a.noMkStream = true
		case xadd:
			id, seqGiven, ok := parseStreamID(opt, 0, true, true)
			if !ok {
				c.w.Error(ErrStreamBadID)
				return a, 0, false
			}
			a.id, a.seqGiven, a.idGiven = id, seqGiven, true
			return c.finishTrimArgs(a, limitGiven, xadd, i)
		default:
			c.w.Error(ErrSyntax)
			return a, 0, false
		}
	}
	return c.finishTrimArgs(a, limitGiven, xadd, i)
}

// finishTrimArgs checks the combination of options and sets the default
// LIMIT of an approximate trim.
func (c *Client) finishTrimArgs(a trimArgs, limitGiven, xadd bool, idPos int) (trimArgs, int, bool) {
	t := &a.trim
	switch {
	case t.Limit != 0 && t.Strategy == engine.TrimNone:
		c.w.Error(ErrStreamLimitNoTrim)
		return a, 0, false
	case !xadd && t.Strategy == engine.TrimNone:
		c.w.Error(ErrStreamXTrimNoTrim)
		return a, 0, false
	case limitGiven && !t.Approx && c.obeys:
		t.Limit = 0 // a propagated exact trim keeps its LIMIT, as Redis's (mustObeyClient)
	case limitGiven && !t.Approx:
		c.w.Error(ErrStreamLimitNoApprox)
		return a, 0, false
	case !limitGiven && t.Approx:
		t.Limit = 100 * c.fe.cfg.StreamNodeMaxEntries() // wraps as C's does
		if t.Limit <= 0 {
			t.Limit = 10000
		}
		t.Limit = min(t.Limit, 1000000)
	case !limitGiven:
		t.Limit = 0
	}
	return a, idPos, true
}

// cmdXAdd is XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT
// count]] *|id field value [field value ...]: the new entry's ID, or nil
// with NOMKSTREAM on a missing key.
func cmdXAdd(c *Client, args [][]byte) {
	a, idPos, ok := c.parseTrimArgs(args, true)
	if !ok {
		return
	}
	fields := args[min(idPos+1, len(args)):]
	if len(fields) < 2 || len(fields)%2 == 1 {
		c.w.Error(WrongArgs("xadd"))
		return
	}
	if a.idGiven && a.seqGiven && a.id.IsZero() {
		c.w.Error(ErrStreamIDZero)
		return
	}
	res, err := c.db.XAdd(args[1], &engine.XAddArgs{ID: a.id, IDGiven: a.idGiven, SeqGiven: a.seqGiven,
		NoMkStream: a.noMkStream, Trim: a.trim, Fields: fields, Limits: c.streamLimits()})
	switch {
	case err != nil:
		c.streamError(err)
	case !res.Added:
		c.w.Null()
	default:
		c.writeStreamID(res.ID)
		c.notify(evStream, "xadd", args[1])
		if res.Trimmed > 0 {
			c.notify(evStream, "xtrim", args[1])
		}
		if c.propagating() {
			pargs := append([][]byte(nil), args...)
			if !a.idGiven || !a.seqGiven { // the ID made here, as Redis rewrites it
				pargs[idPos] = res.ID.AppendTo(nil)
			}
			c.propagateAs(c.exactTrimArgs(pargs, a.trim)...)
		}
	}
}

// exactTrimArgs is args (of XADD or XTRIM) as Redis propagates an
// approximate trim, so that a replica or a reload trims exactly as here
// whatever its stream-node-max-entries (streamRewriteApproxSpecifier,
// streamRewriteTrimArgument): "MAXLEN = <the length it left>", "MINID =
// <the first ID it left>" (XFirstStored: a leading tombstone's, or the
// largest ID when it left none). Its LIMIT
// stays, which an obeyed client ignores (finishTrimArgs). args itself is
// not changed.
func (c *Client) exactTrimArgs(args [][]byte, t engine.StreamTrim) [][]byte {
	out := append([][]byte(nil), args...)
	if !t.Approx {
		return out
	}
	var left []byte
	switch t.Strategy {
	case engine.TrimMaxLen:
		n, err := c.db.XLen(args[1])
		if err != nil {
			return out
		}
		left = strconv.AppendInt(nil, n, 10)
	default:
		first, err := c.db.XFirstStored(args[1])
		if err != nil {
			return out
		}
		left = first.AppendTo(nil)
	}
	kept := out[:2]
	for i := 2; i < len(out); i++ {
		switch {
		case (argIsC(out[i], "MAXLEN") || argIsC(out[i], "MINID")) && i+2 < len(out) && string(out[i+1]) == "~":
			kept = append(kept, out[i], []byte("="), left)
			i += 2
		default:
			kept = append(kept, out[i])
		}
	}
	return kept
}

// cmdXTrim is XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]: the
// entries removed.
func cmdXTrim(c *Client, args [][]byte) {
	a, _, ok := c.parseTrimArgs(args, false)
	if !ok {
		return
	}
	n, err := c.db.XTrim(args[1], a.trim)
	if err == nil && n > 0 {
		c.notify(evStream, "xtrim", args[1])
		if c.propagating() {
			c.propagateAs(c.exactTrimArgs(args, a.trim)...)
		}
	}
	intReply(c, n, err, c.streamError)
}

// --- XRANGE, XREVRANGE, XLEN ---

func cmdXRange(c *Client, args [][]byte)    { xrange(c, args, false) }
func cmdXRevRange(c *Client, args [][]byte) { xrange(c, args, true) }

// xrange is XRANGE key start end [COUNT n] and XREVRANGE key end start
// [COUNT n]: the IDs are parsed first ("(" exclusive, a missing sequence
// 0 at the start and the largest at the end), then COUNT, then the key.
func xrange(c *Client, args [][]byte, rev bool) {
	startArg, endArg := args[2], args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ex, ok := c.streamRangeArg(startArg, 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Next(); !ok {
			c.w.Error(ErrStreamBadStart)
			return
		}
	}
	end, ex, ok := c.streamRangeArg(endArg, math.MaxUint64)
	if !ok {
		return
	}
	if ex {
		if end, ok = end.Prev(); !ok {
			c.w.Error(ErrStreamBadEnd)
			return
		}
	}
	count := int64(-1)
	for j := 4; j < len(args); j++ {
		if !argIsC(args[j], "COUNT") || j+1 >= len(args) {
			c.w.Error(ErrSyntax)
			return
		}
		n, ok := c.intArg(args[j+1])
		if !ok {
			return
		}
		count = max(n, 0)
		j++
	}
	engCount := count
	switch count {
	case -1:
		engCount = 0
	case 0:
		engCount = -1
	}
	tmp := Writer{Proto: c.w.Proto}
	n := 0
	found, err := c.db.XRange(args[1], start, end, engCount, rev, func(e *engine.StreamEntry) {
		w := c.w
		c.w = tmp
		c.writeStreamEntry(e)
		tmp, c.w = c.w, w
		n++
	})
	switch {
	case err != nil:
		c.streamError(err)
	case !found:
		c.w.Array(0)
	case count == 0:
		c.w.NullArray()
	default:
		c.w.Array(n)
		c.w.Raw(tmp.Buf)
	}
}

// cmdXLen is XLEN key.
func cmdXLen(c *Client, args [][]byte) {
	n, err := c.db.XLen(args[1])
	intReply(c, n, err, c.streamError)
}

// --- XDEL, XSETID ---

// cmdXDel is XDEL key id [id ...]: the key is looked up before the IDs
// are parsed, so a missing key answers 0 whatever they are.
func cmdXDel(c *Client, args [][]byte) {
	ids := make([]engine.StreamID, 0, len(args)-2)
	bad := false
	for _, a := range args[2:] {
		id, _, ok := parseStreamID(a, 0, true, false)
		if !ok {
			bad = true
			break
		}
		ids = append(ids, id)
	}
	if bad {
		ids = nil
	}
	found, n, err := c.db.XDel(args[1], ids)
	switch {
	case err != nil:
		c.streamError(err)
	case !found:
		c.w.Int(0)
	case bad:
		c.w.Error(ErrStreamBadID)
	default:
		if n > 0 {
			c.notify(evStream, "xdel", args[1])
		}
		c.w.Int(n)
	}
}

// cmdXSetID is XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id].
func cmdXSetID(c *Client, args [][]byte) {
	id, ok := c.streamIDArg(args[2], 0)
	if !ok {
		return
	}
	a := engine.XSetIDArgs{ID: id, EntriesAdded: -1}
	for i := 3; i < len(args); i += 2 {
		more := len(args) - 1 - i
		switch {
		case argIsC(args[i], "ENTRIESADDED") && more > 0:
			n, ok := c.intArg(args[i+1])
			if !ok {
				return
			}
			if n < 0 {
				c.w.Error(ErrStreamEntriesAdded)
				return
			}
			a.EntriesAdded = n
		case argIsC(args[i], "MAXDELETEDID") && more > 0:
			md, ok := c.streamIDArg(args[i+1], 0)
			if !ok {
				return
			}
			if id.Cmp(md) < 0 {
				c.w.Error(ErrStreamSetIDMaxDel)
				return
			}
			a.MaxDeleted = md
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	found, err := c.db.XSetID(args[1], a)
	switch {
	case err != nil:
		c.streamError(err)
	case !found:
		c.w.Error(ErrNoSuchKey)
	default:
		c.w.Status("OK")
		c.notify(evStream, "xsetid", args[1])
	}
}

// --- XREAD ---

// xreadKeys finds XREAD's and XREADGROUP's keys as Redis's
// xreadGetKeys: the first half of what follows STREAMS, once the options
// before it are skipped.
func xreadKeys(args [][]byte) []int {
	pos := -1
loop:
	for i := 1; i < len(args); i++ {
		switch {
		case argIsC(args[i], "BLOCK"), argIsC(args[i], "COUNT"):
			i++
		case argIsC(args[i], "GROUP"):
			i += 2
		case argIsC(args[i], "NOACK"):
		case argIsC(args[i], "STREAMS"):
			pos = i
			break loop
		default:
			break loop
		}
	}
	if pos < 0 {
		return nil
	}
	n := len(args) - pos - 1
	if n == 0 || n%2 != 0 {
		return nil
	}
	keys := make([]int, n/2)
	for i := range keys {
		keys[i] = pos + 1 + i
	}
	return keys
}

// xreadArgs is what XREAD and XREADGROUP parse.
type xreadArgs struct {
	engine.XReadArgs
	timeout int64 // ms; -1: no BLOCK
}

// inScript reports whether the client is a script's (it has no
// connection, so no parser).
func (c *Client) inScript() bool { return c.parser == nil }

// parseXRead parses XREAD [COUNT n] [BLOCK ms] STREAMS key ... id ... and
// XREADGROUP GROUP group consumer [COUNT n] [BLOCK ms] [NOACK] STREAMS
// ..., as Redis's xreadCommand, replying the error itself.
func (c *Client) parseXRead(args [][]byte, group bool) (a xreadArgs, ok bool) {
	a.timeout = -1
	streamsAt := 0
	for i := 1; i < len(args) && streamsAt == 0; i++ {
		more := len(args) - i - 1
		o := args[i]
		switch {
		case argIsC(o, "BLOCK") && more > 0:
			if c.inScript() {
				c.w.Error(fmt.Sprintf(ErrStreamBlockInScript, cutC(string(args[0]), len(args[0]))))
				return a, false
			}
			i++
			n, ok := num.ParseInt(args[i])
			if !ok {
				c.w.Error(ErrTimeoutNotInteger)
				return a, false
			}
			if n < 0 {
				c.w.Error(ErrTimeoutNegative)
				return a, false
			}
			a.timeout = n
		case argIsC(o, "COUNT") && more > 0:
			i++
			n, ok := c.intArg(args[i])
			if !ok {
				return a, false
			}
			a.Count = max(n, 0)
		case argIsC(o, "STREAMS") && more > 0:
			streamsAt = i + 1
			if (len(args)-streamsAt)%2 != 0 {
				c.w.Error(ErrStreamUnbalanced)
				return a, false
			}
		case argIsC(o, "GROUP") && more >= 2:
			if !group {
				c.w.Error(ErrStreamGroupInXRead)
				return a, false
			}
			a.Group, a.Consumer = args[i+1], args[i+2]
			i += 2
		case argIsC(o, "NOACK"):
			if !group {
				c.w.Error(ErrStreamNoAckInXRead)
				return a, false
			}
			a.NoAck = true
		default:
			c.w.Error(ErrSyntax)
			return a, false
		}
	}
	if streamsAt == 0 {
		c.w.Error(ErrSyntax)
		return a, false
	}
	if group && a.Group == nil {
		c.w.Error(ErrStreamMissingGroup)
		return a, false
	}
	n := (len(args) - streamsAt) / 2
	a.Keys = args[streamsAt : streamsAt+n]
	a.IDs = make([]engine.XReadID, n)
	for i, b := range args[streamsAt+n:] {
		switch {
		case string(b) == "$" || len(b) > 1 && b[0] == '$' && b[1] == 0:
			a.IDs[i].Kind = engine.XReadDollar
		case string(b) == ">" || len(b) > 1 && b[0] == '>' && b[1] == 0:
			a.IDs[i].Kind = engine.XReadNew
		default:
			id, _, ok := parseStreamID(b, 0, true, false)
			if !ok {
				a.IDs[i].Kind = engine.XReadInvalid
			}
			a.IDs[i].ID = id
		}
	}
	return a, true
}

// cmdXRead is XREAD.
func cmdXRead(c *Client, args [][]byte) {
	if a, ok := c.parseXRead(args, false); ok {
		c.xread(&a)
	}
}

// xread reads (or blocks) for XREAD and XREADGROUP and replies: per key
// with something, [key, entries] (a map in RESP3), or a null array.
func (c *Client) xread(a *xreadArgs) {
	var w *engine.Waiter
	if a.timeout >= 0 {
		w = c.newWaiter()
	}
	res, err := c.db.XRead(&a.XReadArgs, w)
	if a.Group != nil {
		c.propagateGroupRead(res)
	}
	switch {
	case err != nil:
		if w != nil {
			w.Done()
		}
		c.xreadError(a, err)
	case len(res) > 0:
		if w != nil {
			w.Done()
		}
		c.writeStreamRead(res)
	case w == nil:
		c.w.NullArray()
	default:
		c.block(w, a.timeout, func() bool {
			r := w.StreamResult()
			if r == nil {
				return false
			}
			if r.Err != nil {
				c.streamError(r.Err)
			} else {
				c.writeStreamRead(r.Read)
			}
			return true
		}, c.w.NullArray)
	}
}

// xreadError replies an XREAD error met at a key.
func (c *Client) xreadError(a *xreadArgs, err error) {
	xe, ok := err.(*engine.XReadError)
	if !ok {
		c.streamError(err)
		return
	}
	switch xe.Err {
	case engine.ErrStreamNoGroup:
		c.w.Error(fmt.Sprintf(ErrStreamNoGroupRead, cutC(string(a.Keys[xe.Key]), len(a.Keys[xe.Key])), cutC(string(a.Group), len(a.Group))))
	case engine.ErrStreamDollarInGroup:
		c.w.Error(ErrStreamDollarInGroup)
	case engine.ErrStreamNewWithoutGrp:
		c.w.Error(ErrStreamNewInXRead)
	default:
		c.streamError(xe.Err)
	}
}

// writeStreamRead replies what XREAD read.
func (c *Client) writeStreamRead(res []engine.StreamReadResult) {
	if c.w.Proto == 3 {
		c.w.Map(len(res))
	} else {
		c.w.Array(len(res))
	}
	for i := range res {
		r := &res[i]
		if c.w.Proto != 3 {
			c.w.Array(2)
		}
		c.w.Bulk(r.Key)
		c.w.Array(len(r.Entries))
		for j := range r.Entries {
			c.writeStreamEntry(&r.Entries[j])
		}
	}
}
