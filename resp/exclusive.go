package resp

import (
	"log/slog"
	"runtime/debug"
	"time"
)

// exclusive runs fn atomically with respect to every other client of both
// protocols (engine.Gate): EXEC's queue, a script. The caller is inside the
// gate (Serve entered it); it leaves, runs fn exclusively and comes back.
// A section inside a section (EVAL inside EXEC) simply runs.
func (c *Client) exclusive(fn func()) {
	if c.inExclusive {
		fn()
		return
	}
	gate := c.fe.eng.Gate()
	ordered := c.releaseOrder() // never wait for the gate holding it (effects.go)
	gate.Leave()
	c.inExclusive = true
	defer func() {
		c.inExclusive = false
		// Back to where Serve was: inside, even if a busy script started
		// meanwhile on another loop, since this client is mid-batch.
		gate.EnterWait()
		if ordered {
			c.orderCommand()
		}
	}()
	gate.Exclusive(func() {
		fn()
		c.emitted = c.fe.stream.Emit(&c.fx.ops) || c.emitted // the section's effects, before any other command's
	})
}

// wake makes the client's loop serve it again.
func (c *Client) wake() { _ = c.peer.Wake() }

// exclusiveDetached runs fn in an exclusive section on a goroutine of its
// own, fn writing the reply into a writer of the client's protocol. When
// fn ends within wait (busy-reply-threshold) the reply is appended at once,
// as exclusive would. Otherwise the client parks, like a blocked one, and
// this event loop goes back to its other connections — which, once the
// section is busy, get BUSY or may run SCRIPT KILL — and the reply is
// written when fn ends. Without this a script looping forever would make
// its whole loop deaf to SCRIPT KILL. fn's arguments must not alias the
// read buffer (copyArgs). Inside another section (EVAL in EXEC) it simply
// runs.
func (c *Client) exclusiveDetached(wait time.Duration, fn func(w *Writer)) {
	if c.inExclusive || !c.gateHeld {
		c.exclusive(func() { fn(&c.w) })
		return
	}
	gate := c.fe.eng.Gate()
	out := &Writer{Proto: c.w.Proto}
	done := make(chan struct{})
	c.releaseOrder() // fn feeds its own effects inside its section (runExclusive)
	gate.Leave()
	c.gateHeld = false
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil { // the loop's recover cannot see this goroutine
				slog.Error("panic running a script; its client gets an error", "id", c.id, "panic", r, "stack", string(debug.Stack()))
				out.Buf = out.Buf[:0]
				out.Error("ERR internal error running the script")
			}
		}()
		gate.Exclusive(func() { fn(out) })
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
		gate.EnterWait()
		c.gateHeld = true
		c.w.Buf = append(c.w.Buf, out.Buf...)
	case <-t.C:
		peer := c.peer
		go func() {
			<-done
			_ = peer.Wake()
		}()
		c.blk = &blockState{skipReply: c.replyOff || c.replySkip, resume: func() bool {
			select {
			case <-done:
				c.w.Buf = append(c.w.Buf, out.Buf...)
				return true
			default:
				return false
			}
		}}
	}
}
