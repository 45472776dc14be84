package resp

import (
	"math"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
)

// CLIENT PAUSE, CLIENT UNPAUSE and CLIENT UNBLOCK.
//
// A pause is the engine's (engine.Gate.Pause, pause.go), so that both
// protocols pause through one mechanism: memcached requests wait as Redis
// commands do (memproto/pause.go). A command the pause covers (every one
// under ALL, those that may write under WRITE, as Redis's processCommand
// decides: write and may-replicate commands, a script by the flags it
// declared, EXEC by the commands it queued) is checked last, after every
// refusal, exactly where Redis checks it. It is then not consumed: Serve
// stops before it, the server keeps it with what follows, and once the
// pause ends the client's loop is woken and the command runs from the
// start, every check again, as Redis re-processes a postponed client.
//
// CLIENT UNBLOCK runs on the caller's loop; the client it unblocks is on
// another. It leaves a request the blocked client's loop takes the next
// time it serves it (resumeBlocked), and wakes it: the reply the request
// asks for (the command's timeout reply, or the UNBLOCKED error) is
// written there, unless what the client waited for arrived first.

// CLIENT PAUSE and UNBLOCK's error texts, redis 7.0's.
const (
	errPauseMode       = "ERR CLIENT PAUSE mode must be WRITE or ALL"
	errTimeoutNotInt   = "ERR timeout is not an integer or out of range"
	errTimeoutNeg      = "ERR timeout is negative"
	errUnblockReason   = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"
	errUnblockedByUser = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
)

// cmdClientPause is CLIENT PAUSE timeout [WRITE|ALL]: the mode is checked
// before the timeout, milliseconds from now (0 pauses nothing), as Redis's
// clientCommand; a pause in force keeps the later end and the stricter
// mode. The pause starts in an exclusive section, so that no write of
// either protocol is half done when it does.
func cmdClientPause(c *Client, args [][]byte) {
	if len(args) > 4 {
		c.subcommandSyntaxError(args)
		return
	}
	mode := engine.PauseAll
	if len(args) == 4 {
		switch {
		case argIs(args[3], "WRITE"):
			mode = engine.PauseWrite
		case argIs(args[3], "ALL"):
		default:
			c.w.Error(errPauseMode)
			return
		}
	}
	ms, ok := num.ParseInt(args[2])
	if !ok {
		c.w.Error(errTimeoutNotInt)
		return
	}
	if ms < 0 {
		c.w.Error(errTimeoutNeg)
		return
	}
	var end int64
	if ms > 0 {
		// Redis adds mstime() to the timeout in a long long: past its
		// range the sum wraps to a time long gone, and nothing pauses.
		if ms > math.MaxInt64-c.nowMs() {
			end = math.MinInt64
		} else {
			end = ms + c.nowMs()
		}
	}
	gate := c.fe.eng.Gate()
	c.exclusive(func() { gate.Pause(mode, end) })
	c.w.Status("OK")
}

func cmdClientUnpause(c *Client, _ [][]byte) {
	c.fe.eng.Gate().Unpause()
	c.w.Status("OK")
}

// pausedFor reports whether a pause holds back args, a call of cmd, and
// if so parks the client until the pause ends: exec then returns without
// running it and Serve leaves it unconsumed (postponed). While parked the
// client counts as blocked, as Redis's postponed clients do (INFO
// blocked_clients, and the idle timeout spares it). One atomic load when
// no pause is in force.
func (c *Client) pausedFor(cmd *Command, args [][]byte) bool {
	gate := c.fe.eng.Gate()
	// EXEC's queue and a script's calls run as one: Redis checks the pause
	// for EXEC and the script, not for what they run.
	if !gate.Paused(true) || c.inExclusive || !gate.Paused(c.mayReplicate(cmd, args)) {
		return false
	}
	c.postponed = true
	c.blocked.Store(blockedPaused)
	if c.pauseParked.CompareAndSwap(false, true) {
		gate.WhenUnpaused(func() {
			c.pauseParked.Store(false)
			c.wake()
		})
	}
	return true
}

// unblockRequest is a CLIENT UNBLOCK for the blocking command a client
// runs: gen tells it from a later one.
type unblockRequest struct {
	gen       uint64
	withError bool
	// roleChange: this master turned replica (UnblockForReplica); the
	// client gets Redis's UNBLOCKED error and is closed after it.
	roleChange bool
}

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 if the client
// is blocked by a blocking command (a client a pause holds back is not:
// Redis 7.0 would crash on TIMEOUT and run the command later anyway), 0
// otherwise. The reason is checked before the id, as Redis does.
func cmdClientUnblock(c *Client, args [][]byte) {
	if len(args) > 4 {
		c.subcommandSyntaxError(args)
		return
	}
	withError := false
	if len(args) == 4 {
		switch {
		case argIs(args[3], "TIMEOUT"):
		case argIs(args[3], "ERROR"):
			withError = true
		default:
			c.w.Error(errUnblockReason)
			return
		}
	}
	id, ok := c.intArg(args[2])
	if !ok {
		return
	}
	v, found := c.fe.clients.Load(uint64(id))
	if !found || id <= 0 {
		c.w.Int(0)
		return
	}
	t := v.(*Client)
	if b := t.blocked.Load(); b != blockedForever && b != blockedWithTimeout {
		c.w.Int(0)
		return
	}
	t.unblockReq.Store(&unblockRequest{gen: t.blockGen.Load(), withError: withError})
	t.wake()
	c.w.Int(1)
}

// takeUnblock runs when the blocked client's loop serves it: a CLIENT
// UNBLOCK for its blocking command b ends it with the timeout reply or
// the UNBLOCKED error, unless a hand-off came first (then delivered). It
// reports whether b is done.
func (c *Client) takeUnblock(b *blockState) bool {
	r := c.unblockReq.Swap(nil)
	if r == nil || r.gen != c.blockGen.Load() {
		return false // none, or one for an earlier blocking command
	}
	if b.timedOut == nil {
		// No blocking command: a parked SHUTDOWN, FAILOVER ABORT or
		// promotion, which nothing unblocks; or WAIT, which a role change
		// ends.
		if !r.roleChange || b.endOnRoleChange == nil {
			return false
		}
		b.endOnRoleChange()
		c.w.Error(errUnblockedRoleChange)
		c.closeAfter = true
		return true
	}
	if b.w != nil && !b.w.Cancel() {
		b.resume() // what it waited for arrived first
		return true
	}
	switch {
	case r.roleChange:
		c.w.Error(errUnblockedRoleChange)
		c.closeAfter = true
	case r.withError:
		c.w.Error(errUnblockedByUser)
	default:
		b.timedOut()
	}
	return true
}
