package engine

import "sync/atomic"

// Change hook: client-side caching (Redis's CLIENT TRACKING) must hear of
// every change to a key, whichever front-end or background process made
// it: a Redis command, a memcached set, touch, delete or flush_all, an
// expiry (lazy or in the active cycle), an eviction. The engine reports
// each from the few places every change goes through, so neither
// front-end has to call anything per command:
//
//   - a key created (shardData.insert), removed (remove), its string value
//     replaced (rewrite, which every SET-like write and every in-place
//     string change ends in), its aggregate changed (newVersion, as for
//     WATCH), its expiry changed (setExpire): the same modifications
//     WATCH sees, which are Redis's signalModifiedKey;
//   - an expired key reclaimed (reclaim), after its "expired" event, as
//     Redis signals after notifying;
//   - a database flushed (FLUSHDB, FLUSHALL, flush_all): Flushed, once per
//     command, before the keys go. SWAPDB reports nothing, as Redis 7.0's
//     invalidates nothing (a client may keep the other database's values);
//   - the end of every batch of shared work (Gate.Leave: a connection's
//     batch of commands of either protocol, an expiry cycle): BatchEnd,
//     where Redis's beforeSleep sends the broadcast (BCAST) invalidations
//     of everything the event loop's iteration changed.
//
// A change carries its origin: the connection whose command made it (the
// EventQueue's Origin of the DB handle that locked the shard), 0 for the
// expiry cycle, eviction and a handle without one (memcached). Tracking
// needs it for NOLOOP, which spares a client the invalidations of its own
// writes. Shards locked by other paths report origin 0, which only ever
// sends an invalidation NOLOOP would have spared.
//
// The hook runs under the key's shard lock (KeyChanged) or with no engine
// lock held (Flushed, BatchEnd): like the notification Sink it must not
// call back into the engine and must not block. Without a hook, or with a
// hook that has nothing to track, a change costs an atomic load and a
// call.

// ChangeHook hears of changes to keys (services.Tracking: the tracking
// table). Keys are the same in every database to it, as to Redis's
// tracking table.
type ChangeHook interface {
	// KeyChanged reports a change to key by origin; expired tells a key
	// removed because it expired (Redis reports those with no client,
	// whoever's access found them). key is valid only during the call.
	KeyChanged(key []byte, origin uint64, expired bool)
	// Flushed reports that one database or all are being emptied.
	Flushed()
	// BatchEnd reports the end of a batch of shared work.
	BatchEnd()
}

type hookBox struct{ h ChangeHook }

// changeHooks is the engine's installed hook.
type changeHooks struct {
	p atomic.Pointer[hookBox]
}

// SetChangeHook installs the hook; nil removes it.
func (e *Engine) SetChangeHook(h ChangeHook) {
	if h == nil {
		e.hooks.p.Store(nil)
		return
	}
	e.hooks.p.Store(&hookBox{h})
}

// keyChanged reports a change to key, made under s's lock.
func (s *shardData) keyChanged(key []byte) { s.reportChange(key, false) }

// keyExpired reports the removal of an expired key, under s's lock.
func (s *shardData) keyExpired(key []byte) { s.reportChange(key, true) }

func (s *shardData) reportChange(key []byte, expired bool) {
	if s.eng == nil {
		return
	}
	if hb := s.eng.hooks.p.Load(); hb != nil {
		hb.h.KeyChanged(key, s.origin, expired)
	}
}

// flushed reports a flush, before the keys go.
func (e *Engine) flushed() {
	if hb := e.hooks.p.Load(); hb != nil {
		hb.h.Flushed()
	}
}

// batchEnd reports the end of a batch of shared work.
func (e *Engine) batchEnd() {
	if hb := e.hooks.p.Load(); hb != nil {
		hb.h.BatchEnd()
	}
}

// origin is the connection the handle's changes come from: its event
// queue's Origin, 0 without a queue.
func (d DB) origin() uint64 {
	if d.events != nil {
		return d.events.Origin
	}
	return 0
}
