package resp

import (
	"math"
	"math/big"
	"time"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
)

// Blocked clients (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH; BZPOPMIN,
// BZPOPMAX and BZMPOP reuse this).
//
// An event loop must never wait, so a blocking command that finds nothing
// parks its client instead: it queues an engine.Waiter on its keys and
// calls block, which keeps what the command needs to finish (copies of its
// arguments inside the resume closure). Serve then stops at that command:
// the bytes of later pipelined commands stay unconsumed, kept pending by
// the server, and nothing more runs for the client, as in Redis.
//
// The client is woken through server.Peer.Wake, which makes its loop call
// Serve again: by the engine when a push handed it elements or when a key
// it retries on (BLMOVE) may be ready, and by a timer at the deadline. Each
// Serve while blocked first calls resume, which writes the reply and
// reports whether the command is done; if not and the deadline passed, the
// waiter is cancelled and the timeout reply written. A hand-off that races
// with the timeout wins: Cancel then reports it and resume delivers it.
// Closed cancels the waiter, so a disconnected client leaves no trace.

// blockState is a parked client's blocking command.
type blockState struct {
	w        *engine.Waiter
	deadline int64 // engine ms after which the command times out; 0 = never
	timer    *time.Timer
	// resume writes the command's reply and returns true when it is done
	// (a hand-off arrived, or a retry succeeded or failed with an error).
	resume func() bool
	// timedOut writes the reply of a timeout.
	timedOut func()
	// skipReply: CLIENT REPLY OFF/SKIP applied to the command.
	skipReply bool
	// cmd and start are the command and when it began, for its latency
	// histogram once it is done (trackLatency).
	cmd   *Command
	start time.Duration
	// cancel, when set, forgets what the client waits for when it goes
	// away (WAIT's acknowledgements).
	cancel func()
	// endOnRoleChange, when set, lets a master turning replica end what
	// is no blocking command (WAIT): it forgets what it waited for.
	endOnRoleChange func()
}

// Client.blocked values: what INFO and the idle sweep, on other
// goroutines, may know of a client's blocking state.
const (
	notBlocked int32 = iota
	blockedForever
	blockedWithTimeout
	blockedPaused // a CLIENT PAUSE holds back its command (cmd_pause.go)
	// blockedParked: WAIT, or a SHUTDOWN waiting for the replicas, runs
	// off the loop (cmd_replication.go, cmd_persistence.go); counted
	// blocked as Redis's BLOCKED_WAIT and BLOCKED_SHUTDOWN, not one CLIENT
	// UNBLOCK ends.
	blockedParked
)

// maxTimerWait bounds one timer; a longer timeout re-arms when it fires.
const maxTimerWait = time.Hour

// canBlock reports whether a command may block. Redis runs blocking
// commands inside MULTI/EXEC and scripts as non-blocking ones (a timeout at
// once, CLIENT_DENY_BLOCKING).
func (c *Client) canBlock() bool { return !c.inExclusive }

// newWaiter returns a waiter that wakes this client's loop, or nil when
// the client may not block (the engine call then does not queue it).
func (c *Client) newWaiter() *engine.Waiter {
	if !c.canBlock() {
		return nil
	}
	peer := c.peer
	return c.fe.eng.NewWaiter(func() { _ = peer.Wake() })
}

// block parks the client on w until resume reports the command done or
// timeoutMs (0: never) passes.
func (c *Client) block(w *engine.Waiter, timeoutMs int64, resume func() bool, timedOut func()) {
	b := &blockState{w: w, resume: resume, timedOut: timedOut, skipReply: c.replyOff || c.replySkip}
	if timeoutMs > 0 {
		now := c.nowMs()
		if timeoutMs <= math.MaxInt64-now {
			b.deadline = now + timeoutMs
		}
		// Past int64 Redis's absolute timeout overflows and never fires.
	}
	c.blk = b
	c.blockGen.Add(1) // a CLIENT UNBLOCK for an earlier command is void (cmd_pause.go)
	if b.deadline != 0 {
		c.blocked.Store(blockedWithTimeout)
	} else {
		c.blocked.Store(blockedForever)
	}
	c.armTimer()
}

// blockingPop ends a blocking pop (BLPOP, BLMPOP, BZPOPMIN, BZMPOP…) that
// the engine has tried with waiter w, nil when the client may not block.
// An error, replied by fail, or a result popped at once, given to popped
// (which notifies) and replied by write, releases w. With nothing popped
// the client blocks until handed returns what a push gave it, replied by
// write; a timeout, or a client that may not block, replies a null array.
func blockingPop[R any](c *Client, w *engine.Waiter, timeout int64, res *R, err error,
	fail func(error), popped func(*R), handed func() *R, write func(*R)) {
	switch {
	case err != nil:
		if w != nil {
			w.Done()
		}
		fail(err)
	case res != nil:
		if w != nil {
			w.Done()
		}
		popped(res)
		write(res)
	case w == nil:
		c.w.NullArray()
	default:
		c.block(w, timeout, func() bool {
			r := handed()
			if r != nil {
				write(r)
			}
			return r != nil
		}, c.w.NullArray)
	}
}

// armTimer (re)starts the timer that wakes the client at its deadline.
func (c *Client) armTimer() {
	b := c.blk
	if b.deadline == 0 {
		return
	}
	// Redis times out once now > deadline: wake one millisecond after.
	wait := min(time.Duration(b.deadline-c.nowMs()+1)*time.Millisecond, maxTimerWait)
	if b.timer == nil {
		peer := c.peer
		b.timer = time.AfterFunc(wait, func() { _ = peer.Wake() })
		return
	}
	b.timer.Reset(wait)
}

// resumeBlocked runs when a blocked client's loop calls Serve: it finishes
// the command if it can and reports whether the client is unblocked.
func (c *Client) resumeBlocked() bool {
	b := c.blk
	mark := len(c.w.Buf)
	// A retried command (BLMOVE) writes now: under the stream's order,
	// its effect fed (effects.go). A hand-off's pop was fed by the write
	// that served it.
	if c.orderCommand() {
		defer c.endOrdered()
	}
	defer func() { c.fx.recorded = false }()
	done := b.resume()
	if !done && c.unblockReq.Load() != nil {
		done = c.takeUnblock(b) // CLIENT UNBLOCK (cmd_pause.go)
	}
	if !done && b.deadline != 0 && c.nowMs() > b.deadline {
		if b.w.Cancel() {
			b.timedOut()
		} else {
			b.resume() // a hand-off came first
		}
		done = true
	}
	if !done {
		c.armTimer()
		return false
	}
	if len(c.w.Buf) > mark && c.w.Buf[mark] == '-' {
		c.countReplyError(c.w.Buf[mark+1:])
		// A failed call too, as Redis's updateStatsOnUnblock: the call
		// itself was counted when it blocked (countRun).
		if b.cmd != nil {
			b.cmd.stats[c.stripe].failed.Add(1)
		}
	}
	if b.skipReply {
		c.w.Buf = c.w.Buf[:mark]
	}
	c.trackUnblocked(b) // cmd_latency.go
	c.unblock()
	// The invalidations the command's own write caused follow its reply
	// at once, before the reply of a command read in the same batch, as
	// after any command (trackingAfterCommand).
	c.trackingFlushBox()
	return true
}

// unblock forgets the blocking command; its waiter leaves every queue.
func (c *Client) unblock() {
	b := c.blk
	if b.timer != nil {
		b.timer.Stop()
	}
	if b.w != nil {
		b.w.Done()
	}
	c.blk = nil
	c.blocked.Store(notBlocked)
}

// abortBlocked drops the blocking command of a client that is going away.
func (c *Client) abortBlocked() {
	if c.blk == nil {
		return
	}
	if c.blk.w != nil {
		c.blk.w.Cancel()
	}
	if c.blk.cancel != nil {
		c.blk.cancel()
	}
	c.unblock()
}

// blockedClients counts the clients parked by a blocking command, and
// those of them with a timeout (INFO clients).
func (f *Frontend) blockedClients() (blocked, withTimeout int) {
	f.clients.Range(func(_, v any) bool {
		switch v.(*Client).blocked.Load() {
		case blockedForever, blockedPaused, blockedParked:
			blocked++
		case blockedWithTimeout:
			blocked++
			withTimeout++
		}
		return true
	})
	return blocked, withTimeout
}

// timeoutArg parses a blocking command's timeout in seconds as redis 7.0's
// getTimeoutFromObjectOrReply: a long double (strtold) times 1000, rounded
// up to whole milliseconds; C's conversion of an out-of-range value (inf,
// 1e30) gives LLONG_MIN, so those are "negative"; -0.0009 rounds up to 0,
// which blocks forever. It returns the milliseconds (0: no timeout) or
// replies the error.
func (c *Client) timeoutArg(b []byte) (int64, bool) {
	v, inf, ok := num.ParseLongDouble(b)
	if !ok {
		c.w.Error(ErrTimeoutNotFloat)
		return 0, false
	}
	if inf != 0 {
		c.w.Error(ErrTimeoutNegative)
		return 0, false
	}
	ms := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).Mul(v, big.NewFloat(1000))
	whole, acc := ms.Int(nil) // truncated towards zero: ceil for negatives
	if acc == big.Below && ms.Sign() > 0 {
		whole.Add(whole, big.NewInt(1))
	}
	if !whole.IsInt64() || whole.Sign() < 0 {
		c.w.Error(ErrTimeoutNegative)
		return 0, false
	}
	return whole.Int64(), true
}
