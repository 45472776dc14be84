package engine

import (
	"context"
	"hash/maphash"
	"time"
)

// expireSweepPerShard bounds how many slots one cycle looks at in a shard
// before moving on, so a cycle spreads over all shards.
const expireSweepPerShard = 64

// ActiveExpireCycle reclaims expired keys until it has swept every shard
// that has volatile keys once, or budget has passed. Lazy expiry handles
// keys that are read; this catches those that never are. A sweep (not
// Redis's random sampling) means every expired key is found within a
// bounded number of cycles. A cycle cut short by its budget leaves off
// where the next one starts, so no shard waits behind the others. It
// returns how many keys it reclaimed. It runs inside the gate, so never
// in the middle of an EXEC or a script, and skips its turn while a busy
// script holds the keyspace.
func (e *Engine) ActiveExpireCycle(budget time.Duration) int {
	if e.noActiveExpire.Load() || e.gate.frozen() { // DEBUG SET-ACTIVE-EXPIRE 0, CLIENT PAUSE (pause.go)
		return 0
	}
	if !e.gate.Enter() {
		return 0
	}
	defer e.gate.Leave()
	if e.expiryByMaster.Load() { // a replica: only the keys its own clients gave a TTL
		return e.expireOwnKeys(e.clock.NowMs())
	}
	start := time.Now()
	if fn := e.expireObserver.Load(); fn != nil {
		defer func() { (*fn)(time.Since(start)) }()
	}
	now := e.clock.NowMs()
	reclaimed := 0
	fx := e.effectHook()
	first := int(e.expireNext.Load() % uint64(len(e.shards)))
	for k := range e.shards {
		i := (first + k) % len(e.shards)
		if k%64 == 63 && time.Since(start) > budget {
			e.expireNext.Store(uint64(i))
			break
		}
		s := &e.shards[i]
		if fx != nil {
			// The stream orders this shard's DELs with the commands' writes
			// (effects.go), under its order lock, which every command takes
			// while the stream has a sink: a shard without expiring keys
			// does not take it.
			s.lock()
			volatile := s.volatile
			s.unlock()
			if volatile == 0 {
				continue
			}
			fx.Lock()
		}
		s.lock()
		if s.volatile > 0 {
			n := len(s.entries)
			for j := 0; j < expireSweepPerShard && j < n; j++ {
				slot := int(s.sweep) % n
				s.sweep = uint32((slot + 1) % n)
				en := &s.entries[slot]
				if en.typ != TypeNone && s.isExpired(en, now) {
					e.reclaim(s, slot, maphash.Bytes(e.seed, s.key(en)), i/e.perDB)
					reclaimed++
				}
			}
		}
		s.unlock()
		if fx != nil {
			fx.Unlock()
		}
	}
	return reclaimed
}

// OnExpireCycle makes fn hear how long each active expiry cycle took
// (the latency monitor's expire-cycle event, as Redis's
// activeExpireCycle reports it); nil stops it. fn runs on the cycle's
// goroutine, inside the gate, and must not call into the engine.
func (e *Engine) OnExpireCycle(fn func(time.Duration)) {
	if fn == nil {
		e.expireObserver.Store(nil)
		return
	}
	e.expireObserver.Store(&fn)
}

// RunActiveExpiry runs ActiveExpireCycle hz times a second, using at most a
// quarter of each period (Redis's ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC), and
// repeats at once while cycles keep finding many expired keys. It returns
// when ctx is done.
func (e *Engine) RunActiveExpiry(ctx context.Context, hz int) {
	if hz <= 0 {
		hz = 10
	}
	period := time.Second / time.Duration(hz)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for e.ActiveExpireCycle(period/4) > 1000 && ctx.Err() == nil {
			}
		}
	}
}
