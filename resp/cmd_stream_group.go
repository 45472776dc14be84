package resp

import (
	"fmt"
	"math"
	"strings"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/propagate"
)

// streamGroupCommands are the consumer-group commands and XINFO, with
// redis 7.0.15's rows.
func streamGroupCommands() []*Command {
	const (
		w  = FlagWrite
		ro = FlagReadonly
		f  = FlagFast
		g  = "stream"
	)
	acl := []string{"@stream"}
	return []*Command{
		{Name: "xgroup", Arity: -2, Group: g, Since: "5.0.0", Summary: "A container for consumer groups commands", Run: cmdXGroupContainer,
			Subcommands: []*Command{
				{Name: "xgroup|create", Arity: -5, Flags: w | FlagDenyOOM, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Create a consumer group.", Run: cmdXGroup},
				{Name: "xgroup|createconsumer", Arity: 5, Flags: w | FlagDenyOOM, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "6.2.0", Summary: "Create a consumer in a consumer group.", Run: cmdXGroup},
				{Name: "xgroup|delconsumer", Arity: 5, Flags: w, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Delete a consumer from a consumer group.", Run: cmdXGroup},
				{Name: "xgroup|destroy", Arity: 4, Flags: w, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Destroy a consumer group.", Run: cmdXGroup},
				{Name: "xgroup|setid", Arity: -5, Flags: w, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRWUpdate}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Set a consumer group to an arbitrary last delivered ID value.", Run: cmdXGroup},
				{Name: "xgroup|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: g, ACL: acl, Since: "5.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdXGroup},
			}},
		{Name: "xreadgroup", Arity: -7, Flags: w | FlagBlocking, Keys: xreadKeys, KeyFlags: []KeyFlag{ksROAccess},
			Group: g, ACL: acl, Since: "5.0.0", Summary: "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.", Run: cmdXReadGroup},
		{Name: "xack", Arity: -4, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWUpdate}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.", Run: cmdXAck},
		{Name: "xpending", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksROAccess}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.", Run: cmdXPending},
		{Name: "xclaim", Arity: -6, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWUpdate}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.", Run: cmdXClaim},
		{Name: "xautoclaim", Arity: -6, Flags: w | f, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWDelete}, Group: g, ACL: acl, Since: "6.2.0", Summary: "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.", Run: cmdXAutoClaim},
		{Name: "xinfo", Arity: -2, Group: g, Since: "5.0.0", Summary: "A container for stream introspection commands", Run: cmdXInfoContainer,
			Subcommands: []*Command{
				{Name: "xinfo|consumers", Arity: 4, Flags: ro, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksROAccess}, Group: g, ACL: acl, Since: "5.0.0", Summary: "List the consumers in a consumer group", Run: cmdXInfo},
				{Name: "xinfo|groups", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksROAccess}, Group: g, ACL: acl, Since: "5.0.0", Summary: "List the consumer groups of a stream", Run: cmdXInfo},
				{Name: "xinfo|stream", Arity: -3, Flags: ro, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksROAccess}, Group: g, ACL: acl, Since: "5.0.0", Summary: "Get information about a stream", Run: cmdXInfo},
				{Name: "xinfo|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: g, ACL: acl, Since: "5.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdXInfo},
			}},
	}
}

// Group errors, checked against redis-server 7.0.15.
const (
	ErrStreamEntriesRead  = "ERR value for ENTRIESREAD must be positive or -1"
	ErrStreamGroupKey     = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	ErrStreamNoGroupOfKey = "NOGROUP No such consumer group '%s' for key name '%s'"
	ErrStreamBusyGroup    = "BUSYGROUP Consumer Group name already exists"
	ErrStreamNoGroup      = "NOGROUP No such key '%s' or consumer group '%s'"
	ErrStreamClaimMinIdle = "ERR Invalid min-idle-time argument for XCLAIM"
	ErrStreamClaimIdle    = "ERR Invalid IDLE option argument for XCLAIM"
	ErrStreamClaimTime    = "ERR Invalid TIME option argument for XCLAIM"
	ErrStreamClaimRetry   = "ERR Invalid RETRYCOUNT option argument for XCLAIM"
	ErrStreamClaimOption  = "ERR Unrecognized XCLAIM option '%s'"
	ErrStreamAutoMinIdle  = "ERR Invalid min-idle-time argument for XAUTOCLAIM"
	ErrStreamAutoCount    = "ERR COUNT must be > 0"
	ErrStreamAutoCountMem = "ERR Insufficient memory, failed allocating transient memory, COUNT too high."
	// xautoclaimMaxAlloc is the largest array of deleted IDs (16 bytes
	// each) XAUTOCLAIM's COUNT may ask for: Redis allocates it up front
	// and fails past what the allocator grants (the machine's memory);
	// Tandem refuses past 1 TB.
	xautoclaimMaxAlloc     = 1 << 40
	ErrStreamSubcmdSyntax  = "ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP."
	streamNameBudget       = 128
	xautoclaimAttemptsMult = 10
)

var xgroupHelp = []string{
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
}

var xinfoHelp = []string{
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
}

// cs is a name as C's %s prints it.
func cs(b []byte) string { return cutC(string(b), len(b)) }

// streamGroupError replies an engine error of the group commands.
func (c *Client) streamGroupError(err error) {
	switch err {
	case engine.ErrStreamGroupKey:
		c.w.Error(ErrStreamGroupKey)
	case engine.ErrStreamBusyGroup:
		c.w.Error(ErrStreamBusyGroup)
	default:
		c.engineError(err)
	}
}

// subcmdSyntaxError is Redis's addReplySubcommandSyntaxError.
func (c *Client) subcmdSyntaxError(args [][]byte) {
	c.w.Error(fmt.Sprintf(ErrStreamSubcmdSyntax, cutC(string(args[1]), streamNameBudget), strings.ToUpper(cs(args[0]))))
}

func cmdXGroupContainer(c *Client, args [][]byte) {
	if len(args) < 2 {
		c.w.Error(WrongArgs("xgroup"))
		return
	}
	c.w.Error(UnknownSubcommand("xgroup", args[1]))
}

func cmdXInfoContainer(c *Client, args [][]byte) {
	if len(args) < 2 {
		c.w.Error(WrongArgs("xinfo"))
		return
	}
	c.w.Error(UnknownSubcommand("xinfo", args[1]))
}

// groupIDArg parses XGROUP CREATE's and SETID's ID ("$", strict for
// CREATE); an invalid one is reported by the engine after its checks.
func groupIDArg(b []byte, strict bool) engine.XGroupID {
	if string(b) == "$" {
		return engine.XGroupID{Dollar: true}
	}
	id, _, ok := parseStreamID(b, 0, strict, false)
	return engine.XGroupID{ID: id, Invalid: !ok}
}

// cmdXGroup is every XGROUP subcommand, as Redis's xgroupCommand: the
// options first, then the key, the group, the subcommand's own checks.
func cmdXGroup(c *Client, args [][]byte) {
	sub := args[1]
	if argIsC(sub, "HELP") && len(args) == 2 {
		c.help(args[0], xgroupHelp)
		return
	}
	mkstream := false
	entriesRead := int64(-1)
	create, setid := argIsC(sub, "CREATE"), argIsC(sub, "SETID")
	for i := 5; i < len(args); {
		switch {
		case create && argIsC(args[i], "MKSTREAM"):
			mkstream = true
			i++
		case (create || setid) && argIsC(args[i], "ENTRIESREAD") && i+1 < len(args):
			n, ok := c.intArg(args[i+1])
			if !ok {
				return
			}
			if n < 0 && n != -1 {
				c.w.Error(ErrStreamEntriesRead)
				return
			}
			entriesRead = n
			i += 2
		default:
			c.subcmdSyntaxError(args)
			return
		}
	}
	key, group := args[2], args[3]
	var err error
	switch {
	case create && len(args) <= 8:
		if err = c.db.XGroupCreate(key, group, groupIDArg(args[4], true), mkstream, entriesRead); err == nil {
			c.w.Status("OK")
			c.notify(evStream, "xgroup-create", key)
		}
	case setid && (len(args) == 5 || len(args) == 7):
		if err = c.db.XGroupSetID(key, group, groupIDArg(args[4], false), entriesRead); err == nil {
			c.w.Status("OK")
			c.notify(evStream, "xgroup-setid", key)
		}
	case argIsC(sub, "DESTROY"):
		var gone bool
		if gone, err = c.db.XGroupDestroy(key, group); err == nil {
			if gone {
				c.w.Int(1)
				c.notify(evStream, "xgroup-destroy", key)
			} else {
				c.w.Int(0)
			}
		}
	case argIsC(sub, "CREATECONSUMER"):
		var created bool
		if created, err = c.db.XGroupCreateConsumer(key, group, args[4]); err == nil {
			if created {
				c.w.Int(1)
				c.notify(evStream, "xgroup-createconsumer", key)
			} else {
				c.w.Int(0)
			}
		}
	case argIsC(sub, "DELCONSUMER"):
		var pending int64
		var existed bool
		if pending, existed, err = c.db.XGroupDelConsumer(key, group, args[4]); err == nil {
			c.w.Int(pending)
			if existed {
				c.notify(evStream, "xgroup-delconsumer", key)
			}
		}
	default:
		// CREATE with too many MKSTREAMs: the key checks come first in
		// Redis, then the arity of the form.
		var found bool
		if _, found, err = c.db.XInfoGroups(key); err == nil {
			if !found && !mkstream {
				err = engine.ErrStreamGroupKey
			} else {
				c.subcmdSyntaxError(args)
				return
			}
		}
	}
	switch err {
	case nil:
	case engine.ErrStreamNoGroupOfKey:
		c.w.Error(fmt.Sprintf(ErrStreamNoGroupOfKey, cs(group), cs(key)))
	default:
		c.streamError(err)
	}
}

// cmdXReadGroup is XREADGROUP GROUP group consumer [COUNT n] [BLOCK ms]
// [NOACK] STREAMS key ... id ...
func cmdXReadGroup(c *Client, args [][]byte) {
	if a, ok := c.parseXRead(args, true); ok {
		a.Effects = c.propagating()
		c.xread(&a)
	}
}

// propagateGroupRead records what an XREADGROUP served at once did to its
// groups, key after key, as Redis propagates it — never the command
// itself (a read served after blocking is propagated by the write that
// served it: Handoff.Group).
func (c *Client) propagateGroupRead(res []engine.StreamReadResult) {
	var forms [][][]byte
	for i := range res {
		if fx := res[i].Group; fx != nil {
			forms = append(forms, propagate.StreamGroupForms(res[i].Key, fx, nil)...)
		}
	}
	c.propagateForms(forms)
}

// cmdXAck is XACK key group id [id ...]: the key and group are looked up
// before the IDs are parsed.
func cmdXAck(c *Client, args [][]byte) {
	ids := make([]engine.StreamID, 0, len(args)-3)
	bad := false
	for _, a := range args[3:] {
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
	found, n, err := c.db.XAck(args[1], args[2], ids)
	switch {
	case err != nil:
		c.streamError(err)
	case !found:
		c.w.Int(0)
	case bad:
		c.w.Error(ErrStreamBadID)
	default:
		c.w.Int(n)
	}
}

// cmdXPending is XPENDING key group [[IDLE min-idle-time] start end count
// [consumer]].
func cmdXPending(c *Client, args [][]byte) {
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		c.w.Error(ErrSyntax)
		return
	}
	var r *engine.XPendingRange
	if len(args) >= 6 {
		r = &engine.XPendingRange{}
		at := 3
		if argIsC(args[3], "IDLE") {
			n, ok := c.intArg(args[4])
			if !ok {
				return
			}
			if len(args) < 8 {
				c.w.Error(ErrSyntax)
				return
			}
			r.MinIdle = n
			at += 2
		}
		n, ok := c.intArg(args[at+2])
		if !ok {
			return
		}
		r.Count = max(n, 0)
		start, ex, ok := c.streamRangeArg(args[at], 0)
		if !ok {
			return
		}
		if ex {
			if start, ok = start.Next(); !ok {
				c.w.Error(ErrStreamBadStart)
				return
			}
		}
		end, ex, ok := c.streamRangeArg(args[at+1], math.MaxUint64)
		if !ok {
			return
		}
		if ex {
			if end, ok = end.Prev(); !ok {
				c.w.Error(ErrStreamBadEnd)
				return
			}
		}
		r.Start, r.End = start, end
		if at+3 < len(args) {
			r.Consumer = args[at+3]
		}
	}
	sum, list, err := c.db.XPending(args[1], args[2], r)
	switch {
	case err == engine.ErrStreamNoGroup:
		c.w.Error(fmt.Sprintf(ErrStreamNoGroup, cs(args[1]), cs(args[2])))
	case err != nil:
		c.streamError(err)
	case r == nil:
		c.w.Array(4)
		c.w.Int(sum.Count)
		if sum.Count == 0 {
			c.w.Null()
			c.w.Null()
			c.w.NullArray()
			return
		}
		c.writeStreamID(sum.Min)
		c.writeStreamID(sum.Max)
		c.w.Array(len(sum.PerConsume))
		for _, pc := range sum.PerConsume {
			c.w.Array(2)
			c.w.Bulk(pc.Name)
			c.w.BulkInt(pc.Count)
		}
	default:
		now := c.nowMs()
		c.w.Array(len(list))
		for _, p := range list {
			c.w.Array(4)
			c.writeStreamID(p.ID)
			c.w.Bulk(p.Consumer)
			c.w.Int(max(now-p.Delivered, 0))
			c.w.Int(int64(p.Count))
		}
	}
}

// cmdXClaim is XCLAIM key group consumer min-idle-time id [id ...]
// [IDLE ms] [TIME unix-ms] [RETRYCOUNT n] [FORCE] [JUSTID] [LASTID id].
// The key and group are checked first, then the arguments; the IDs end
// at the first argument that is not one.
func cmdXClaim(c *Client, args [][]byte) {
	a := engine.XClaimArgs{Consumer: args[3], DeliveryTime: -1, RetryCount: -1}
	errMsg := ""
	minIdle, ok := num.ParseInt(args[4])
	if !ok {
		errMsg = ErrStreamClaimMinIdle
	}
	a.MinIdle = max(minIdle, 0)
	now := c.nowMs()
	j := 5
	if errMsg == "" {
		for ; j < len(args); j++ {
			id, _, ok := parseStreamID(args[j], 0, true, false)
			if !ok {
				break
			}
			a.IDs = append(a.IDs, id)
		}
	}
	for ; errMsg == "" && j < len(args); j++ {
		more := len(args) - 1 - j
		opt := args[j]
		intOpt := func(msg string) int64 {
			j++
			n, ok := num.ParseInt(args[j])
			if !ok {
				errMsg = msg
			}
			return n
		}
		switch {
		case argIsC(opt, "FORCE"):
			a.Force = true
		case argIsC(opt, "JUSTID"):
			a.JustID = true
		case argIsC(opt, "IDLE") && more > 0:
			n := intOpt(ErrStreamClaimIdle)
			a.DeliveryTime = now - n
		case argIsC(opt, "TIME") && more > 0:
			a.DeliveryTime = intOpt(ErrStreamClaimTime)
		case argIsC(opt, "RETRYCOUNT") && more > 0:
			a.RetryCount = intOpt(ErrStreamClaimRetry)
		case argIsC(opt, "LASTID") && more > 0:
			j++
			id, _, ok := parseStreamID(args[j], 0, true, false)
			if !ok {
				errMsg = ErrStreamBadID
			}
			a.LastID = id
		default:
			errMsg = fmt.Sprintf(ErrStreamClaimOption, cs(opt))
		}
	}
	a.CheckOnly = errMsg != ""
	if c.propagating() {
		a.Effects = &engine.StreamGroupEffects{}
	}
	out, err := c.db.XClaim(args[1], args[2], &a)
	switch {
	case err == engine.ErrStreamNoGroup:
		c.w.Error(fmt.Sprintf(ErrStreamNoGroup, cs(args[1]), cs(args[2])))
	case err != nil:
		c.streamError(err)
	case errMsg != "":
		c.w.Error(errMsg)
	default:
		if a.Effects != nil {
			c.propagateForms(propagate.StreamGroupForms(args[1], a.Effects, args[5:5+len(a.IDs)]))
		}
		c.w.Array(len(out))
		for i := range out {
			if a.JustID {
				c.writeStreamID(out[i].ID)
			} else {
				c.writeStreamEntry(&out[i])
			}
		}
	}
}

// cmdXAutoClaim is XAUTOCLAIM key group consumer min-idle-time start
// [COUNT n] [JUSTID]: its arguments are parsed before the key is looked
// at.
func cmdXAutoClaim(c *Client, args [][]byte) {
	minIdle, ok := num.ParseInt(args[4])
	if !ok {
		c.w.Error(ErrStreamAutoMinIdle)
		return
	}
	start, ex, ok := c.streamRangeArg(args[5], 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Next(); !ok {
			c.w.Error(ErrStreamBadStart)
			return
		}
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case argIsC(args[j], "COUNT") && more > 0:
			n, ok := num.ParseInt(args[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				c.w.Error(ErrStreamAutoCount)
				return
			}
			count = n
			j++
		case argIsC(args[j], "JUSTID"):
			justID = true
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	var fx *engine.StreamGroupEffects
	if c.propagating() {
		fx = &engine.StreamGroupEffects{}
	}
	res, err := c.db.XAutoClaim(args[1], args[2], args[3], max(minIdle, 0), start, count, justID, count > xautoclaimMaxAlloc/16, fx)
	switch {
	case err == engine.ErrStreamNoGroup:
		c.w.Error(fmt.Sprintf(ErrStreamNoGroup, cs(args[1]), cs(args[2])))
	case err != nil:
		c.streamError(err)
	case res == nil:
		c.w.Error(ErrStreamAutoCountMem)
	default:
		if fx != nil {
			c.propagateForms(propagate.StreamGroupForms(args[1], fx, nil))
		}
		c.w.Array(3)
		c.writeStreamID(res.Next)
		c.w.Array(len(res.Claimed))
		for i := range res.Claimed {
			if justID {
				c.writeStreamID(res.Claimed[i].ID)
			} else {
				c.writeStreamEntry(&res.Claimed[i])
			}
		}
		c.w.Array(len(res.Deleted))
		for _, id := range res.Deleted {
			c.writeStreamID(id)
		}
	}
}

// cmdXInfo is every XINFO subcommand, as Redis's xinfoCommand.
func cmdXInfo(c *Client, args [][]byte) {
	sub := args[1]
	if argIsC(sub, "HELP") {
		if len(args) != 2 {
			c.subcmdSyntaxError(args)
			return
		}
		c.help(args[0], xinfoHelp)
		return
	}
	key := args[2]
	switch {
	case argIsC(sub, "CONSUMERS") && len(args) == 4:
		cons, found, err := c.db.XInfoConsumers(key, args[3])
		if !c.xinfoFound(found, err, key, args[3]) {
			return
		}
		now := c.nowMs()
		c.w.Array(len(cons))
		for _, ci := range cons {
			c.w.Map(3)
			c.w.BulkString("name")
			c.w.Bulk(ci.Name)
			c.w.BulkString("pending")
			c.w.Int(int64(ci.Pending))
			c.w.BulkString("idle")
			c.w.Int(max(now-ci.SeenTime, 0))
		}
	case argIsC(sub, "GROUPS") && len(args) == 3:
		groups, found, err := c.db.XInfoGroups(key)
		if !c.xinfoFound(found, err, key, nil) {
			return
		}
		c.w.Array(len(groups))
		for i := range groups {
			gi := &groups[i]
			c.w.Map(6)
			c.w.BulkString("name")
			c.w.Bulk(gi.Name)
			c.w.BulkString("consumers")
			c.w.Int(int64(gi.Consumers))
			c.w.BulkString("pending")
			c.w.Int(int64(gi.Pending))
			c.w.BulkString("last-delivered-id")
			c.writeStreamID(gi.LastID)
			c.writeGroupCounters(gi)
		}
	case argIsC(sub, "STREAM"):
		c.xinfoStream(args)
	default:
		if _, found, err := c.db.XInfoGroups(key); c.xinfoFound(found, err, key, nil) {
			c.subcmdSyntaxError(args)
		}
	}
}

// xinfoFound replies the lookup's error (no such key, wrong type, no such
// group) and reports whether to go on.
func (c *Client) xinfoFound(found bool, err error, key, group []byte) bool {
	switch {
	case err == engine.ErrStreamNoGroupOfKey:
		c.w.Error(fmt.Sprintf(ErrStreamNoGroupOfKey, cs(group), cs(key)))
	case err != nil:
		c.streamError(err)
	case !found:
		c.w.Error(ErrNoSuchKey)
	default:
		return true
	}
	return false
}

// writeGroupCounters writes entries-read and lag, nil when unknown.
func (c *Client) writeGroupCounters(gi *engine.StreamGroupInfo) {
	c.w.BulkString("entries-read")
	if gi.EntriesRead != -1 {
		c.w.Int(gi.EntriesRead)
	} else {
		c.w.Null()
	}
	c.w.BulkString("lag")
	if gi.LagKnown {
		c.w.Int(gi.Lag)
	} else {
		c.w.Null()
	}
}

// xinfoStream is XINFO STREAM key [FULL [COUNT n]]: the key is looked up
// before the options are checked.
func (c *Client) xinfoStream(args [][]byte) {
	key := args[2]
	opts := args[3:]
	full := len(opts) > 0
	count := int64(10)
	info, found, err := c.db.XInfoStream(key, false, 0)
	if !c.xinfoFound(found, err, key, nil) {
		return
	}
	if full {
		if len(opts) != 1 && len(opts) != 3 || !argIsC(opts[0], "FULL") || len(opts) == 3 && !argIsC(opts[1], "COUNT") {
			c.subcmdSyntaxError(args)
			return
		}
		if len(opts) == 3 {
			n, ok := c.intArg(opts[2])
			if !ok {
				return
			}
			if count = n; count < 0 {
				count = 10
			}
		}
		if info, found, err = c.db.XInfoStream(key, true, count); !c.xinfoFound(found, err, key, nil) {
			return
		}
	}
	if full {
		c.w.Map(9)
	} else {
		c.w.Map(10)
	}
	c.w.BulkString("length")
	c.w.Int(int64(info.Length))
	c.w.BulkString("radix-tree-keys")
	c.w.Int(info.RadixKeys)
	c.w.BulkString("radix-tree-nodes")
	c.w.Int(info.RadixNodes)
	c.w.BulkString("last-generated-id")
	c.writeStreamID(info.LastID)
	c.w.BulkString("max-deleted-entry-id")
	c.writeStreamID(info.MaxDeleted)
	c.w.BulkString("entries-added")
	c.w.Int(int64(info.EntriesAdded))
	c.w.BulkString("recorded-first-entry-id")
	c.writeStreamID(info.FirstRec)
	if !full {
		c.w.BulkString("groups")
		c.w.Int(int64(info.GroupCount))
		c.w.BulkString("first-entry")
		c.writeOptEntry(info.First)
		c.w.BulkString("last-entry")
		c.writeOptEntry(info.Last)
		return
	}
	c.w.BulkString("entries")
	c.w.Array(len(info.Entries))
	for i := range info.Entries {
		c.writeStreamEntry(&info.Entries[i])
	}
	c.w.BulkString("groups")
	c.w.Array(len(info.Groups))
	for i := range info.Groups {
		gi := &info.Groups[i]
		c.w.Map(7)
		c.w.BulkString("name")
		c.w.Bulk(gi.Name)
		c.w.BulkString("last-delivered-id")
		c.writeStreamID(gi.LastID)
		c.writeGroupCounters(gi)
		c.w.BulkString("pel-count")
		c.w.Int(int64(gi.Pending))
		c.w.BulkString("pending")
		c.w.Array(len(gi.PEL))
		for _, p := range gi.PEL {
			c.w.Array(4)
			c.writeStreamID(p.ID)
			c.w.Bulk(p.Consumer)
			c.w.Int(p.Delivered)
			c.w.Int(int64(p.Count))
		}
		c.w.BulkString("consumers")
		c.w.Array(len(gi.ConsumersFull))
		for _, ci := range gi.ConsumersFull {
			c.w.Map(4)
			c.w.BulkString("name")
			c.w.Bulk(ci.Name)
			c.w.BulkString("seen-time")
			c.w.Int(ci.SeenTime)
			c.w.BulkString("pel-count")
			c.w.Int(int64(ci.Pending))
			c.w.BulkString("pending")
			c.w.Array(len(ci.PEL))
			for _, p := range ci.PEL {
				c.w.Array(3)
				c.writeStreamID(p.ID)
				c.w.Int(p.Delivered)
				c.w.Int(int64(p.Count))
			}
		}
	}
}

// writeOptEntry writes an entry, or nil.
func (c *Client) writeOptEntry(e *engine.StreamEntry) {
	if e == nil {
		c.w.Null()
		return
	}
	c.writeStreamEntry(e)
}
