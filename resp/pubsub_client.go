package resp

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/pubsub"
)

// The client side of pub/sub.
//
// A client that subscribes gets a subscriber, its pubsub.Subscriber, kept
// for the client's life (c.ps). Publishers on any goroutine call Deliver,
// which formats the message in the client's protocol and appends it to
// the subscriber's outbox, a byte buffer under its own mutex; if the
// outbox was empty and the client's loop is not inside Serve, the loop is
// woken (server.Peer.Wake) and Serve moves the outbox into the reply
// before anything else. While the loop runs the client's commands,
// deliveries only queue: after each command, whatever arrived during it
// (a message the client published to itself, a keyspace event its own
// write caused) goes in front of the command's reply, where Redis writes
// it; and the (un)subscribe confirmations the command pushed go there too,
// so that CLIENT REPLY OFF, which drops replies, keeps them, as in 7.0.
//
// Clients that never subscribed pay one nil check per command and per
// Serve. Once a client has no subscription left and its outbox is empty,
// nothing can deliver to it any more (the Hub's Unsubscribe waits out
// every Publish in flight) and it goes back to that single check.
//
// Output limit: a subscribed client is a "pubsub" client for
// client-output-buffer-limit. Its pending output is its outbox plus what
// gnet still holds for the socket (sampled by the loop at each Serve).
// Passing the hard limit, or staying over the soft limit for more than
// the soft seconds, closes the client: the outbox is dropped at once, and
// nothing more is queued, so a reader that stopped reading costs at most
// about the limit.

// subscriber is a client's pub/sub state.
type subscriber struct {
	c *Client

	// Loop-local.
	active   bool          // subscribed, or may still hold output: Serve must look
	counts   pubsub.Counts // this client's subscriptions
	pushes   []byte        // pushes of the running command, placed before its reply
	switched bool          // the running command changed the protocol

	// For other goroutines (CLIENT LIST, the idle sweep).
	nChan, nPat, nShard atomic.Int32
	held                atomic.Int64 // bytes gnet held for the socket at the loop's last look

	mu        sync.Mutex
	outbox    []byte
	proto     int       // protocol the outbox is written in
	busy      bool      // the loop is inside Serve: no wake needed
	dead      bool      // closed for its output limit: drop everything
	softSince time.Time // when pending output first went over the soft limit; zero: not over

	// monitoring: in MONITOR mode (cmd_monitor.go); set on the loop, under mu.
	monitoring bool
}

// subscriber returns the client's subscriber, making it active.
func (c *Client) subscriber() *subscriber {
	s := c.ps
	if s == nil {
		s = &subscriber{c: c, proto: c.w.Proto}
		c.mu.Lock()
		c.ps = s // c.mu: kill() reads it from other goroutines
		c.mu.Unlock()
	}
	if !s.active {
		s.active = true
		s.mu.Lock()
		s.busy = true // we are inside Serve; its end clears it
		s.proto = c.w.Proto
		s.mu.Unlock()
	}
	return s
}

func (s *subscriber) setCounts(n pubsub.Counts) {
	s.counts = n
	s.nChan.Store(int32(n.Channels))
	s.nPat.Store(int32(n.Patterns))
	s.nShard.Store(int32(n.Shard))
}

// inSubscribeMode reports whether the client has a subscription (Redis's
// CLIENT_PUBSUB flag). Loop-local.
func (c *Client) inSubscribeMode() bool { return c.ps != nil && c.ps.counts.Total() > 0 }

// pubsubCounts returns the client's subscriptions as other goroutines see
// them (CLIENT LIST, the idle sweep).
func (c *Client) pubsubCounts() (channels, patterns, shard int) {
	c.mu.Lock()
	s := c.ps
	c.mu.Unlock()
	if s == nil {
		return 0, 0, 0
	}
	return int(s.nChan.Load()), int(s.nPat.Load()), int(s.nShard.Load())
}

// isPubSub reports whether the client is of the pubsub type (CLIENT LIST
// TYPE, CLIENT KILL TYPE, the idle sweep's exemption). Any goroutine.
func (c *Client) isPubSub() bool {
	ch, pat, sh := c.pubsubCounts()
	return ch+pat+sh > 0
}

// Deliver implements pubsub.Subscriber: queue the message in the client's
// protocol, wake its loop when needed, or close the client when its
// output passes the pubsub limits.
func (s *subscriber) Deliver(m *pubsub.Message) {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return
	}
	wasEmpty := len(s.outbox) == 0
	w := Writer{Buf: s.outbox, Proto: s.proto}
	switch m.Kind {
	case pubsub.Pattern:
		w.Push(4)
		w.BulkString("pmessage")
		w.Bulk(m.Pattern)
	case pubsub.Shard:
		w.Push(3)
		w.BulkString("smessage")
	default:
		w.Push(3)
		w.BulkString("message")
	}
	w.Bulk(m.Channel)
	w.Bulk(m.Payload)
	s.outbox = w.Buf
	if s.overLimitLocked(len(s.outbox) + int(s.held.Load())) {
		s.mu.Unlock()
		s.c.closeForOutputLimit()
		return
	}
	wake := wasEmpty && !s.busy
	s.mu.Unlock()
	if wake {
		_ = s.c.peer.Wake()
	}
}

// overLimitLocked applies the pubsub output limits to pending bytes, as
// Redis's checkClientOutputBufferLimits; when they are passed it marks the
// subscriber dead and frees the outbox. s.mu is held.
func (s *subscriber) overLimitLocked(pending int) bool {
	over := overBufferLimit(s.c.fe.cfg.ClientOutputBufferLimit(s.limitClass()), int64(pending), &s.softSince)
	if over {
		s.dead = true
		s.outbox = nil
	}
	return over
}

// overBufferLimit applies one class of client-output-buffer-limit to
// pending bytes, as Redis's checkClientOutputBufferLimits: over when past
// the hard limit, or over the soft limit for longer than its seconds;
// softSince keeps when pending first went over the soft limit.
func overBufferLimit(lim conf.BufferLimit, pending int64, softSince *time.Time) bool {
	over := lim.Hard > 0 && pending >= lim.Hard
	if lim.Soft > 0 && pending >= lim.Soft {
		now := time.Now()
		if softSince.IsZero() {
			*softSince = now
		} else if now.Sub(*softSince) > time.Duration(lim.SoftSeconds)*time.Second {
			over = true
		}
	} else {
		*softSince = time.Time{}
	}
	return over
}

// closeForOutputLimit closes a client over its output limit, from any
// goroutine (a publisher's, with the Hub's lock held: its subscriptions
// are dropped later, by Closed on its own loop).
func (c *Client) closeForOutputLimit() {
	info := c.appendInfoLine(nil, time.Now(), nil, nil) // from any goroutine: no live view
	c.mu.Lock()
	already := c.killed
	c.killed = true
	c.mu.Unlock()
	if already {
		return
	}
	c.fe.log.Warn(fmt.Sprintf("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", info))
	c.fe.clients.Delete(c.id)
	c.peer.Close()
}

// Serve implements server.Session: parse and run every complete command in
// in, appending replies to out. For a subscriber, what was delivered while
// the loop was away goes out first, and what arrives while the commands
// run follows them.
func (c *Client) Serve(in, out []byte) (int, []byte, bool) {
	out = c.trackingServeBegin(out) // invalidations (tracking_client.go)
	if s := c.ps; s != nil && s.active {
		var ok bool
		if out, ok = s.begin(out); !ok {
			return len(in), out, true
		}
	}
	n, out, closeAfter := c.serve(in, out)
	out = c.trackingServeEnd(out)
	if s := c.ps; s != nil && s.active {
		out = s.end(out)
	}
	return n, out, closeAfter
}

// begin moves the outbox into out and marks the loop inside Serve; false
// when the client is over its output limit and must close.
func (s *subscriber) begin(out []byte) ([]byte, bool) {
	held := s.c.peer.OutboundBuffered()
	s.held.Store(int64(held))
	s.mu.Lock()
	s.busy = true
	if s.dead || s.overLimitLocked(len(s.outbox)+held) {
		s.mu.Unlock()
		s.c.closeForOutputLimit()
		return out, false
	}
	n := len(out)
	out = s.takeLocked(out)
	s.mu.Unlock()
	s.c.fe.stats.netOutput.Add(s.c.stripe, int64(len(out)-n))
	return out, true
}

// end moves what arrived meanwhile into out and lets deliveries wake the
// loop again. A client left without subscriptions goes idle: nothing can
// deliver to it any more.
func (s *subscriber) end(out []byte) []byte {
	n := len(out)
	s.mu.Lock()
	out = s.takeLocked(out)
	s.busy = false
	s.mu.Unlock()
	s.c.fe.stats.netOutput.Add(s.c.stripe, int64(len(out)-n))
	if s.counts.Total() == 0 && !s.monitoring {
		s.active = false
	}
	return out
}

// takeLocked appends the outbox to b and empties it; s.mu is held.
func (s *subscriber) takeLocked(b []byte) []byte {
	if len(s.outbox) == 0 {
		return b
	}
	b = append(b, s.outbox...)
	if cap(s.outbox) > 64<<10 {
		s.outbox = nil // don't pin a burst's buffer
	} else {
		s.outbox = s.outbox[:0]
	}
	return b
}

// pushWriter returns where the running command writes its pushes: the
// subscriber's push buffer, placed before the reply when the command ends,
// or, inside EXEC, the reply itself, as Redis does. Messages already
// queued go first.
func (c *Client) pushWriter() *Writer {
	s := c.ps
	if c.inExclusive {
		s.mu.Lock()
		c.w.Buf = s.takeLocked(c.w.Buf)
		s.mu.Unlock()
		return &c.w
	}
	s.mu.Lock()
	s.pushes = s.takeLocked(s.pushes)
	s.mu.Unlock()
	return &Writer{Buf: s.pushes, Proto: c.w.Proto}
}

// pushDone stores what was written through a pushWriter.
func (c *Client) pushDone(w *Writer) {
	if w != &c.w {
		c.ps.pushes = w.Buf
	}
}

// afterCommand places the pushes of the command that just ran, and the
// messages delivered while it ran, in front of its reply, which starts at
// mark. Messages that arrived after the command switched protocol (HELLO)
// follow the reply instead, as they were written in the new protocol.
func (c *Client) afterCommand(mark int) {
	s := c.ps
	s.mu.Lock()
	var late []byte
	if s.switched {
		late = s.takeLocked(nil)
	} else {
		s.pushes = s.takeLocked(s.pushes)
	}
	s.mu.Unlock()
	s.switched = false
	if len(s.pushes) > 0 {
		n := len(s.pushes)
		c.w.Buf = append(c.w.Buf, s.pushes...) // grow by n
		copy(c.w.Buf[mark+n:], c.w.Buf[mark:len(c.w.Buf)-n])
		copy(c.w.Buf[mark:], s.pushes)
		if cap(s.pushes) > 64<<10 {
			s.pushes = nil
		} else {
			s.pushes = s.pushes[:0]
		}
	}
	c.w.Buf = append(c.w.Buf, late...)
}

// pubsubSetProto is called when the client switches protocol: messages
// queued so far keep the old one and go before the command's reply.
func (c *Client) pubsubSetProto(v int) {
	s := c.ps
	if s == nil {
		return
	}
	s.mu.Lock()
	s.pushes = s.takeLocked(s.pushes)
	s.proto = v
	s.mu.Unlock()
	s.switched = s.active
}

// pubsubDenied applies RESP2's subscribe mode: while subscribed, only the
// commands marked AllowedSubscribed ((un)subscribe, PING, QUIT, RESET)
// run. It returns the error for any other command, "" when cmd may run.
func (c *Client) pubsubDenied(cmd *Command) string {
	if c.ps == nil || c.w.Proto == 3 || !c.inSubscribeMode() {
		return ""
	}
	if cmd.Internal&AllowedSubscribed != 0 {
		return ""
	}
	return "ERR Can't execute '" + cmd.Name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
}

// pubsubPing is PING in RESP2's subscribe mode: a "pong" push-like array.
// It reports false when the client is not in that mode.
func (c *Client) pubsubPing(args [][]byte) bool {
	if c.w.Proto == 3 || !c.inSubscribeMode() {
		return false
	}
	c.w.Array(2)
	c.w.BulkString("pong")
	if len(args) == 2 {
		c.w.Bulk(args[1])
	} else {
		c.w.BulkString("")
	}
	return true
}

// resetPubSub drops every subscription without a push (RESET). Messages
// delivered before go out before RESET's reply.
func (c *Client) resetPubSub() {
	s := c.ps
	if s == nil || !s.active {
		return
	}
	c.fe.hub.Remove(s)
	s.setCounts(pubsub.Counts{})
	s.mu.Lock()
	s.pushes = s.takeLocked(s.pushes)
	s.mu.Unlock()
}

// dropSubscriptions removes the client from the Hub (connection closed,
// CLIENT KILL). Any goroutine.
func (c *Client) dropSubscriptions() {
	c.mu.Lock()
	s := c.ps
	c.mu.Unlock()
	if s != nil {
		c.fe.hub.Remove(s)
		s.nChan.Store(0)
		s.nPat.Store(0)
		s.nShard.Store(0)
	}
}
