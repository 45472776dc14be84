package resp

import (
	"bytes"
	"strconv"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/propagate"
)

// Effects: while the write stream has a sink (the AOF, a replica; package
// propagate), every command runs under the stream's order lock, and a
// write command that changed the keyspace — its handle's write count
// moved, Redis's server.dirty — records its effect: its own arguments, or
// the form its handler records instead (propagateAs: EXPIRE as PEXPIREAT,
// SET EX as SET PXAT, SPOP as SREM…, as Redis's rewriteClientCommandVector).
// The effects of a transaction or a script are fed together at the end
// of its exclusive section, wrapped in MULTI … EXEC when there are
// several; a lone command's at its end.

// effects is what the running command (and the transaction or script it
// is part of) will feed to the stream.
type effects struct {
	ops propagate.Ops
	// recorded: the running command recorded its effect itself
	// (propagateAs), so its arguments are not recorded.
	recorded bool
}

// orderCommand takes the stream's order lock for a command when the
// stream is on, unless the client holds it or runs in an exclusive
// section (which excludes every other command, and must not be entered
// holding the lock: exclusive releases it). It reports whether it took it.
func (c *Client) orderCommand() bool {
	if c.ordered || c.inExclusive || !c.fe.stream.Active() {
		return false
	}
	c.fe.stream.Lock()
	c.ordered = true
	return true
}

// endOrdered feeds the command's effects and releases the order lock,
// if the client still holds it (see releaseOrder).
func (c *Client) endOrdered() {
	if c.ordered {
		c.emitNow()
		c.releaseOrder()
	}
}

// emitNow feeds the effects recorded so far at once, when the command
// runs alone under the order lock, for a handler whose later work feeds
// the stream directly (SWAPDB's serving of blocked clients, whose lazy
// expiries follow the swap). In a transaction or a script they stay
// with the others, fed at its end.
func (c *Client) emitNow() {
	if c.ordered {
		c.emitted = c.fe.stream.Emit(&c.fx.ops) || c.emitted
	}
}

// syncStream, at the end of a batch that fed the stream, lets the AOF
// write those effects before the batch's replies go out. Under
// appendfsync always the replies from the batch's start (from) are held
// back until the writes are on disk, the wait running off the event
// loop, which serves other connections meanwhile; the client's next
// Serve sends them (releaseHeld). A connection about to close waits here.
func (c *Client) syncStream(from int) {
	if !c.emitted {
		return
	}
	c.emitted = false
	if c.closeAfter {
		c.fe.stream.SyncWait()
		return
	}
	if c.held = c.fe.stream.Hold(c.w.Buf[from:], c.peer); c.held != nil {
		c.w.Buf = c.w.Buf[:from]
	}
}

// releaseHeld appends the held replies once their writes are durable; it
// reports false while they still wait (the client reads nothing more).
func (c *Client) releaseHeld() bool {
	if c.held == nil {
		return true
	}
	if !c.held.Released() {
		return false
	}
	c.w.Buf = append(c.w.Buf, c.held.Replies()...)
	c.held = nil
	return true
}

// releaseOrder releases the order lock if the client holds it, before
// an exclusive section: the section waits for other loops' batches,
// which may be waiting for the lock. It reports whether it held it.
func (c *Client) releaseOrder() bool {
	if !c.ordered {
		return false
	}
	c.ordered = false
	c.fe.stream.Unlock()
	return true
}

// recordEffect records what cmd, run with args, propagates: its own
// arguments when it is a write command that wrote (or one propagated
// whenever it succeeds), unless its handler recorded another form.
func (c *Client) recordEffect(cmd *Command, args [][]byte, writesBefore uint64, reply []byte) {
	fx := c.fx
	defer c.recordHandoffs() // the blocked clients the command served, after it
	if fx.recorded {
		fx.recorded = false
		return
	}
	if !c.fe.stream.Active() {
		return
	}
	switch {
	case cmd.Internal&PropagatedOnSuccess != 0:
		if len(reply) > 0 && reply[0] == '-' {
			return
		}
	case cmd.Flags&FlagWrite == 0 || c.writesTo.Count() == writesBefore:
		return
	}
	fx.ops.Add(c.db.Num(), args...)
}

// recordHandoffs records the pops of the blocked clients the running
// command's writes served (engine.Handoff), after its own effect: a
// replica pops what this server handed over.
func (c *Client) recordHandoffs() {
	hs := c.writesTo.TakeHandoffs()
	if len(hs) == 0 || !c.fe.stream.Active() {
		return
	}
	for _, h := range hs {
		for _, cmd := range propagate.HandoffCommands(h) {
			c.fx.ops.AddAfter(h.DB, cmd)
		}
	}
}

// propagatePop records a pop a blocking command (or LMPOP, ZMPOP) made
// at once as Redis propagates it: event's command ("lpop", "zpopmax"…)
// on key, with count unless it is the single-element form (count < 0).
func (c *Client) propagatePop(event string, key []byte, count int64) {
	if c.propagating() {
		c.fx.recorded = true
		c.fx.ops.AddEncoded(c.db.Num(), propagate.AppendHandoff(nil, engine.Handoff{Key: key, Event: event, Count: int(count)}))
	}
}

// propagateAs records args, in the client's database, as (part of) the
// running command's effect instead of its own arguments. A handler calls
// it only after its write succeeded; several calls record several ops.
func (c *Client) propagateAs(args ...[]byte) {
	c.fx.recorded = true
	if c.fe.stream.Active() {
		c.fx.ops.Add(c.db.Num(), args...)
	}
}

// propagateForms records forms (each a command's arguments) as the
// running command's whole effect, nothing at all when there are none:
// the commands Redis propagates only through alsoPropagate, under
// preventCommandPropagation (the stream group commands).
func (c *Client) propagateForms(forms [][][]byte) {
	c.propagateNothing()
	for _, f := range forms {
		c.propagateAs(f...)
	}
}

// propagateNothing marks the running command as recording no effect
// although it wrote (a write that Redis does not propagate).
func (c *Client) propagateNothing() { c.fx.recorded = true }

// propagating reports whether effects are being collected, so a handler
// can skip building a rewritten form nobody reads.
func (c *Client) propagating() bool { return c.fe.stream.Active() }

// Shared arguments of the rewritten forms.
var (
	argSET       = []byte("SET")
	argDEL       = []byte("DEL")
	argUNLINK    = []byte("UNLINK")
	argPXAT      = []byte("PXAT")
	argPEXPIREAT = []byte("PEXPIREAT")
	argPERSIST   = []byte("PERSIST")
	argKEEPTTL   = []byte("KEEPTTL")
)

// msArg is a unix-ms time as an argument.
func msArg(ms int64) []byte { return strconv.AppendInt(nil, ms, 10) }

// delArg is the command a deletion that Redis makes "lazy" under lazy
// (a lazyfree-lazy-* directive) propagates as: UNLINK or DEL.
func delArg(lazy bool) []byte {
	if lazy {
		return argUNLINK
	}
	return argDEL
}

// countWrites gives the client's handle its write counter.
func (c *Client) countWrites(db engine.DB) engine.DB { return db.CountWrites(c.writesTo) }

// bulksOf returns the bulk strings of reply, a RESP aggregate's elements
// as a handler wrote them (without its header): the members an SPOP
// popped, for its propagated SREM.
func bulksOf(reply []byte) [][]byte {
	var out [][]byte
	for len(reply) > 0 && reply[0] == '$' {
		i := bytes.IndexByte(reply, '\r')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(string(reply[1:i]))
		if err != nil || n < 0 || i+2+n+2 > len(reply) {
			break
		}
		out = append(out, reply[i+2:i+2+n])
		reply = reply[i+2+n+2:]
	}
	return out
}

// popCount is the count a pop propagates with: the elements it took,
// or -1 for the single-element form (requested < 0).
func popCount(requested int64, took int) int64 {
	if requested < 0 {
		return -1
	}
	return int64(took)
}

// propagateMove records a blocking move (BLMOVE, BRPOPLPUSH) as Redis
// propagates it: RPOPLPUSH src dst, or LMOVE src dst from to — with the
// directions as the client typed them when it moved at once (ends),
// Redis's "left"/"right" when it moved after blocking (ends nil).
func (c *Client) propagateMove(src, dst []byte, from, to engine.ListEnd, ends [][]byte) {
	if !c.propagating() {
		return
	}
	if cmd := c.lastCmd.Load(); cmd != nil && cmd.Name == "brpoplpush" {
		c.propagateAs([]byte("RPOPLPUSH"), src, dst)
		return
	}
	if ends == nil {
		name := func(e engine.ListEnd) []byte {
			if e == engine.ListLeft {
				return []byte("left")
			}
			return []byte("right")
		}
		ends = [][]byte{name(from), name(to)}
	}
	c.propagateAs([]byte("LMOVE"), src, dst, ends[0], ends[1])
}
