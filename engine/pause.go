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
// The pause state is one word, read with one atomic load on every command:
// the mode and the end, in engine clock milliseconds. A pause is over once
// the clock passes its end; clients held back park a wake-up
// (Gate.WhenUnpaused), called by a timer when the pause ends or by
// Unpause (CLIENT UNPAUSE).

// PauseMode is what a pause holds back.
type PauseMode uint8

// Pause modes, Redis's CLIENT_PAUSE_OFF, _WRITE and _ALL, in order of
// strictness.
const (
	PauseOff   PauseMode = iota
	PauseWrite           // commands that may write
	PauseAll             // every command
)

// pauseState is the gate's CLIENT PAUSE.
type pauseState struct {
	mode atomic.Uint32 // PauseMode; PauseOff when none
	end  atomic.Int64  // unix ms on the engine's clock

	mu     sync.Mutex // guards parked and timer
	parked []func()
	timer  *time.Timer
}

// Pause pauses clients as Redis's pauseClients: until end (unix ms on the
// engine's clock) for mode; a pause already in force keeps the later end
// and the stricter mode. An end already passed pauses nothing (and ends
// nothing in force). The caller runs it in an exclusive section of the
// gate, so that no write is under way when the pause starts.
func (g *Gate) Pause(mode PauseMode, end int64) {
	p := &g.pause
	now := g.e.clock.NowMs()
	if old := g.pauseMode(now); old != PauseOff {
		mode = max(mode, old)
		end = max(end, p.end.Load())
	}
	if end < now || mode == PauseOff {
		return
	}
	p.end.Store(end)
	p.mode.Store(uint32(mode))
	g.armPauseTimer(end - now)
}

// Unpause ends the pause in force, as CLIENT UNPAUSE, and wakes the
// clients it held back.
func (g *Gate) Unpause() {
	g.pause.mode.Store(uint32(PauseOff))
	g.wakePaused()
}

// pauseMode is the pause in force at now: a pause past its end is over,
// though its mode stays stored until the timer sees it (pauseTimerFired).
func (g *Gate) pauseMode(now int64) PauseMode {
	p := &g.pause
	m := PauseMode(p.mode.Load())
	if m == PauseOff || now > p.end.Load() {
		return PauseOff
	}
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
// it is over by then, its parked clients are woken; if the clock says
// not yet (a manual clock, or an end moved later), it arms again.
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
	m := p.mode.Load()
	if m == uint32(PauseOff) {
		return // lifted: Unpause woke everyone
	}
	if end := p.end.Load(); now <= end {
		g.armPauseTimer(end - now) // moved later, or a clock that has not got there
		return
	}
	if p.mode.CompareAndSwap(m, uint32(PauseOff)) {
		g.wakePaused()
	}
}

// SetActiveExpire turns the active expiry cycle on or off (DEBUG
// SET-ACTIVE-EXPIRE); lazy expiry goes on either way.
func (e *Engine) SetActiveExpire(on bool) { e.noActiveExpire.Store(!on) }
