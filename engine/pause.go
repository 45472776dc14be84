package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// CLIENT PAUSE, for both protocols: while a pause is in force the
// front-ends hold back the commands it covers (every command under
// PauseAll, those that may write under PauseWrite) before they run, and
// the dataset stays as it is, as in Redis: the active expiry cycle and
// eviction do nothing, and an expired key a read meets is reported
// missing but not reclaimed (Engine.reclaim), so no "expired" event, no
// DBSIZE change, until the pause ends.
//
// A pause starts inside an exclusive section of the gate (Gate.Pause's
// caller), so
// that no write is half done when it does: every write that runs later has
// checked the pause first, and none runs while it is in force. An insert
// that meets an unreclaimed expired key (only writes that do not come from
// a client could: DEBUG RELOAD NOFLUSH) reclaims it first (shard.insert).
//
// The pause in force is read with one atomic load on every command (its
// mode; its end, in engine clock milliseconds, only while one is in
// force). It is made of the pauses of each purpose (CLIENT PAUSE,
// SHUTDOWN, FAILOVER: PausePurpose). A pause is over once the clock
// passes its end; clients held back park a wake-up (Gate.WhenUnpaused),
// called by a timer when the pause ends or loosens, or by UnpauseFor.

// PauseMode is what a pause holds back.
type PauseMode uint8

// Pause modes, Redis's CLIENT_PAUSE_OFF, _WRITE and _ALL, in order of
// strictness.
const (
	PauseOff   PauseMode = iota
	PauseWrite           // commands that may write
	PauseAll             // every command
)

// PausePurpose is who paused, Redis's pause_purpose: each purpose has a
// pause of its own and lifts only its own (CLIENT UNPAUSE does not end
// FAILOVER's pause, nor FAILOVER's end a CLIENT PAUSE). The pause in
// force is the strictest mode among them, until the furthest end among
// the purposes of that mode (updateClientPauseTypeAndEndTime).
type PausePurpose uint8

// The purposes.
const (
	PauseByClient       PausePurpose = iota // CLIENT PAUSE
	PauseDuringShutdown                     // SHUTDOWN's wait for its replicas
	PauseDuringFailover                     // FAILOVER
	numPausePurposes
)

// pauseEvent is one purpose's pause; mode PauseOff when it has none.
type pauseEvent struct {
	mode PauseMode
	end  int64
}

// pauseState is the gate's CLIENT PAUSE.
type pauseState struct {
	mode atomic.Uint32 // PauseMode in force; PauseOff when none
	end  atomic.Int64  // its end, unix ms on the engine's clock

	pmu      sync.Mutex // guards purposes; never held while taking mu
	purposes [numPausePurposes]pauseEvent
	loosened bool // under pmu: the pause loosened since the parked were last woken

	mu     sync.Mutex // guards parked and timer
	parked []func()
	timer  *time.Timer
}

// Pause is PauseFor(PauseByClient, …): CLIENT PAUSE's.
func (g *Gate) Pause(mode PauseMode, end int64) { g.PauseFor(PauseByClient, mode, end) }

// PauseFor pauses clients as Redis's pauseClients: until end (unix ms on
// the engine's clock) for mode, for purpose; that purpose's pause already
// in force keeps the later end and the stricter mode. An end already
// passed pauses nothing (and ends nothing in force). The caller runs it
// in an exclusive section of the gate, so that no write is under way
// when the pause starts.
func (g *Gate) PauseFor(purpose PausePurpose, mode PauseMode, end int64) {
	p := &g.pause
	now := g.e.clock.NowMs()
	p.pmu.Lock()
	ev := &p.purposes[purpose]
	if ev.mode != PauseOff && ev.end >= now {
		mode, end = max(mode, ev.mode), max(end, ev.end)
	}
	*ev = pauseEvent{mode: mode, end: end}
	g.updatePauseLocked(now)
	inForce, until, loosened := PauseMode(p.mode.Load()), p.end.Load(), p.loosened
	p.loosened = false
	p.pmu.Unlock()
	if loosened { // an expired purpose's pause was dropped
		g.wakePaused()
	}
	if inForce != PauseOff {
		g.armPauseTimer(until - now)
	}
}

// Unpause ends CLIENT PAUSE's pause, as CLIENT UNPAUSE, and wakes the
// clients held back (they check again: another purpose may still hold
// them).
func (g *Gate) Unpause() { g.UnpauseFor(PauseByClient) }

// UnpauseFor ends purpose's pause (unpauseClients).
func (g *Gate) UnpauseFor(purpose PausePurpose) {
	p := &g.pause
	p.pmu.Lock()
	p.purposes[purpose] = pauseEvent{}
	g.updatePauseLocked(g.e.clock.NowMs())
	p.loosened = false // woken now
	p.pmu.Unlock()
	g.wakePaused()
}

// updatePauseLocked recomputes the pause in force from the purposes',
// forgetting those past their end; the caller holds pmu. It returns the
// modes in force before and after.
func (g *Gate) updatePauseLocked(now int64) (before, after PauseMode) {
	p := &g.pause
	before = PauseMode(p.mode.Load())
	for i := range p.purposes {
		ev := &p.purposes[i]
		if ev.mode != PauseOff && ev.end < now {
			*ev = pauseEvent{}
		}
		after = max(after, ev.mode)
	}
	var end int64
	for _, ev := range p.purposes {
		if after != PauseOff && ev.mode == after {
			end = max(end, ev.end)
		}
	}
	p.end.Store(end)
	p.mode.Store(uint32(after))
	if after < before {
		p.loosened = true
	}
	return before, after
}

// pauseMode is the pause in force at now. Past the stored end another
// purpose's pause may still be in force: it is recomputed then (the timer
// wakes the clients a loosened pause lets go).
func (g *Gate) pauseMode(now int64) PauseMode {
	p := &g.pause
	m := PauseMode(p.mode.Load())
	if m == PauseOff || now <= p.end.Load() {
		return m
	}
	p.pmu.Lock()
	defer p.pmu.Unlock()
	if PauseMode(p.mode.Load()) == PauseOff || now <= p.end.Load() {
		return PauseMode(p.mode.Load()) // another caller recomputed it
	}
	_, m = g.updatePauseLocked(now)
	return m
}

// Paused reports whether a command must wait for the pause in force: any
// command under PauseAll, one that may write under PauseWrite. One atomic
// load when no pause is in force.
func (g *Gate) Paused(write bool) bool {
	if g.pause.mode.Load() == uint32(PauseOff) {
		return false
	}
	switch g.pauseMode(g.e.clock.NowMs()) {
	case PauseAll:
		return true
	case PauseWrite:
		return write
	}
	return false
}

// frozen reports whether a pause keeps the dataset as it is (any mode).
func (g *Gate) frozen() bool {
	return g.pause.mode.Load() != uint32(PauseOff) && g.pauseMode(g.e.clock.NowMs()) != PauseOff
}

// WhenUnpaused calls wake once the pause in force ends, is lifted or is
// loosened (at once if none is in force). wake must not block; a woken
// client checks again and may park again.
func (g *Gate) WhenUnpaused(wake func()) {
	p := &g.pause
	p.mu.Lock()
	if g.pauseMode(g.e.clock.NowMs()) == PauseOff {
		p.mu.Unlock()
		wake()
		return
	}
	p.parked = append(p.parked, wake)
	p.mu.Unlock()
}

// wakePaused calls every parked wake-up.
func (g *Gate) wakePaused() {
	p := &g.pause
	p.mu.Lock()
	parked := p.parked
	p.parked = nil
	p.mu.Unlock()
	for _, wake := range parked {
		wake()
	}
}

// armPauseTimer (re)arms the timer that looks at the pause after ms: if
// it is over or loosened by then, its parked clients are woken; if the
// clock says not yet (a manual clock, or an end moved later), it arms
// again.
func (g *Gate) armPauseTimer(ms int64) {
	p := &g.pause
	wait := time.Duration(min(ms+1, int64(time.Hour/time.Millisecond))) * time.Millisecond
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer == nil {
		p.timer = time.AfterFunc(wait, g.pauseTimerFired)
		return
	}
	p.timer.Reset(wait)
}

func (g *Gate) pauseTimerFired() {
	p := &g.pause
	now := g.e.clock.NowMs()
	p.pmu.Lock()
	if now > p.end.Load() {
		g.updatePauseLocked(now)
	}
	inForce, until, loosened := PauseMode(p.mode.Load()), p.end.Load(), p.loosened
	p.loosened = false
	p.pmu.Unlock()
	if loosened { // over, or a purpose's stricter pause ended (here or in pauseMode)
		g.wakePaused()
	}
	if inForce != PauseOff {
		g.armPauseTimer(until - now) // moved later, another purpose's, or a clock that has not got there
	}
}

// SetActiveExpire turns the active expiry cycle on or off (DEBUG
// SET-ACTIVE-EXPIRE); lazy expiry goes on either way.
func (e *Engine) SetActiveExpire(on bool) { e.noActiveExpire.Store(!on) }
