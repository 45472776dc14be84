package engine

import "sync/atomic"

// The eviction hook: memcached's "watch evictions" (package mclog, through
// services) hears of every key eviction removes, with what memcached's
// eviction line shows of it. Without a hook an eviction costs one atomic
// load more.

// Evicted is a key eviction is about to remove, as the hook sees it. Key
// is valid only during the call.
type Evicted struct {
	DB       int
	Key      []byte
	Type     Type
	Fetched  bool  // memcached's fetched bit (fetched.go)
	ExpireAt int64 // unix ms; 0 = none
	IdleSec  int64 // seconds since the last access, on the LRU clock
	Size     int   // a string's length (uncompressed); 0 for other types
	NowMs    int64 // the engine clock when it went
}

// EvictHook is called under the evicted key's shard lock: it must not call
// back into the engine and must not block.
type EvictHook func(*Evicted)

type evictHookBox struct{ fn EvictHook }

// SetEvictHook installs fn; nil removes it.
func (e *Engine) SetEvictHook(fn EvictHook) {
	if fn == nil {
		e.evictHook.Store(nil)
		return
	}
	e.evictHook.Store(&evictHookBox{fn})
}

// reportEvicted tells the hook about the entry at slot, before it goes;
// s is locked.
func (e *Engine) reportEvicted(s *shard, shardIdx int, en *entry) {
	hb := e.evictHook.Load()
	if hb == nil {
		return
	}
	now := e.clock.NowMs()
	ev := Evicted{DB: shardIdx / e.perDB, Key: s.arena.view(en).key, Type: en.typ, Fetched: en.fetched(),
		ExpireAt: s.arena.expireAt(en), IdleSec: int64(e.lruNow(now) - en.access), NowMs: now}
	if en.typ == TypeString {
		ev.Size = s.arena.plainSize(en)
	}
	hb.fn(&ev)
}

// evictHookPtr is the engine's installed hook.
type evictHookPtr = atomic.Pointer[evictHookBox]
