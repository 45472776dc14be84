package engine

import (
	"sync"
	"sync/atomic"
)

// Gate makes some work atomic with respect to all other work on the
// keyspace: EXEC, Lua scripts and the snapshot barrier run exclusively,
// everything else (each batch a connection's loop serves, a cycle of
// active expiry) runs shared.
//
// Shard locks already make every single command atomic; the gate adds what
// they cannot give cheaply: a section of many commands whose keys are not
// known in advance (a script may touch any key). Shared entry costs one
// uncontended read-lock per batch of commands, not per command, and an
// exclusive section waits only for the batches in flight to finish.
//
// A script that runs past busy-reply-threshold marks the gate busy: from
// then on Enter returns false at once instead of waiting, so other loops
// stay responsive and can answer BUSY or run SCRIPT KILL, which must not
// touch the keyspace. WhenOpen lets a connection that cannot answer BUSY
// (memcached) park until the section ends.
//
// While an exclusive section runs, serving blocked clients (BLPOP…) is
// deferred to its end, as Redis serves them after EXEC or a script: a push
// followed by a pop in one transaction leaves nothing for a waiter.
type Gate struct {
	e  *Engine
	rw sync.RWMutex

	mu     sync.Mutex // guards gen and parked; cond waits on it
	cond   sync.Cond
	gen    uint64 // bumps when an exclusive section ends or turns busy
	parked []func()
	busy   atomic.Bool

	// deferMu guards deferring and deferred: keys whose waiters the
	// exclusive section must serve at its end. The section's own commands
	// add to them, and so does a Waiter released outside the gate (a
	// blocked client's connection closing) while the section runs on
	// another goroutine. A leaf: taken under a shard lock, nothing under
	// it.
	deferMu   sync.Mutex
	deferring bool
	deferred  []deferredServe

	pause pauseState // CLIENT PAUSE (pause.go)
}

// deferredServe is a key whose waiters an exclusive section must serve.
type deferredServe struct {
	db  int
	key string
}

func (g *Gate) init(e *Engine) {
	g.e = e
	g.cond.L = &g.mu
}

// Gate returns the engine's gate.
func (e *Engine) Gate() *Gate { return &e.gate }

// Enter admits the caller to shared work, waiting while an exclusive
// section runs. It returns false, without entering, when that section is
// busy: the caller must then not touch the keyspace (and not call Leave).
func (g *Gate) Enter() bool {
	if g.rw.TryRLock() {
		return true
	}
	for {
		g.mu.Lock()
		gen := g.gen
		g.mu.Unlock()
		if g.rw.TryRLock() {
			return true
		}
		if g.busy.Load() {
			return false
		}
		g.mu.Lock()
		for g.gen == gen {
			g.cond.Wait()
		}
		g.mu.Unlock()
	}
}

// EnterWait admits the caller to shared work, waiting even for a busy
// section. Only for callers that cannot stop half way (a loop coming back
// from its own exclusive section) or that run off the event loops.
func (g *Gate) EnterWait() { g.rw.RLock() }

// Leave ends shared work begun by Enter or EnterWait, and tells the
// change hook the batch ended (track.go).
func (g *Gate) Leave() {
	g.rw.RUnlock()
	if g.e != nil {
		g.e.batchEnd()
	}
}

// Exclusive runs fn while no shared work runs. The caller must not be
// inside the gate (Leave first) and fn must not call Exclusive.
func (g *Gate) Exclusive(fn func()) {
	g.rw.Lock()
	g.deferMu.Lock()
	g.deferring = true
	g.deferMu.Unlock()
	defer g.endExclusive()
	fn()
}

// endExclusive serves the waiters writes inside the section made ready,
// then lets everyone in and wakes parked connections.
func (g *Gate) endExclusive() {
	// One critical section ends the deferring and takes what was
	// deferred: a release outside the gate (a Waiter cancelled as its
	// connection closes) either added its key before, and it is served
	// here, or sees deferring false and serves it itself; the section's
	// commands are all done either way.
	g.deferMu.Lock()
	g.deferring = false
	todo := g.deferred
	g.deferred = nil
	g.deferMu.Unlock()
	for _, k := range todo {
		d := g.e.DB(k.db)
		key := []byte(k.key)
		s, h := d.shardOf(key)
		s.lock()
		d.serveWaitersLocked(s, key, h, g.e.clock.NowMs())
		s.unlock()
	}
	g.busy.Store(false)
	g.rw.Unlock()
	g.mu.Lock()
	g.gen++
	g.cond.Broadcast()
	parked := g.parked
	g.parked = nil
	g.mu.Unlock()
	for _, wake := range parked {
		wake()
	}
}

// deferServe records key for serving at the end of the exclusive section;
// it reports false when no section runs (serve now). The caller holds the
// key's shard lock, so a section that starts after deferServe said "serve
// now" touches that key only after the serving is done.
func (g *Gate) deferServe(db int, key []byte) bool {
	g.deferMu.Lock()
	defer g.deferMu.Unlock()
	if !g.deferring {
		return false
	}
	for _, k := range g.deferred {
		if k.db == db && k.key == string(key) {
			return true
		}
	}
	g.deferred = append(g.deferred, deferredServe{db: db, key: string(key)})
	return true
}

// SetBusy marks the running exclusive section busy (a script past
// busy-reply-threshold): waiting Enter calls return false from now on.
// Only the section's owner calls it; the section's end clears it.
func (g *Gate) SetBusy() {
	g.busy.Store(true)
	g.mu.Lock()
	g.gen++
	g.cond.Broadcast()
	g.mu.Unlock()
}

// Busy reports whether a busy exclusive section runs.
func (g *Gate) Busy() bool { return g.busy.Load() }

// WhenOpen calls wake once the busy section ends (at once if none is
// busy). wake must not block.
func (g *Gate) WhenOpen(wake func()) {
	g.mu.Lock()
	if !g.busy.Load() {
		g.mu.Unlock()
		wake()
		return
	}
	g.parked = append(g.parked, wake)
	g.mu.Unlock()
}
