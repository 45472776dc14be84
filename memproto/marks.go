package memproto

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// markTable keeps the two memcached item bits the engine does not store,
// both used by the meta commands' anti-stampede protocol:
//
//   - stale: the item was invalidated (md I, or ms I with an older CAS);
//     mg then returns X, and W to the first client;
//   - won: a client was already handed the W (win) flag for this item;
//     mg then returns Z to the others.
//
// A mark holds the CAS unique the item had when it was set. Every write
// through either protocol changes the CAS, so a mark lapses by itself when
// the value it describes is replaced or deleted; lookups drop lapsed marks
// and a full shard is swept against the engine.
//
// The table is empty unless clients use N, R or I, and mg looks at it only
// then (one atomic load otherwise).
type markTable struct {
	count  atomic.Int64
	seed   maphash.Seed
	shards [markShards]markShard
}

const (
	markShards = 64
	// markSweepAt: a shard this full is swept of lapsed marks on insert.
	markSweepAt = 4096
)

type markShard struct {
	mu sync.Mutex
	m  map[string]mark
}

type mark struct {
	cas   uint64
	stale bool
	won   bool
}

func (t *markTable) init() { t.seed = maphash.MakeSeed() }

// empty reports whether no key has a mark (a hint; check under the lock).
func (t *markTable) empty() bool { return t.count.Load() == 0 }

// lock locks and returns the shard of key. Commands that read and update a
// mark hold it across their engine calls, so two mg racing for the W flag
// cannot both win. Lock order: a mark shard, then engine shards; the engine
// never calls back.
func (t *markTable) lock(key []byte) *markShard {
	sh := &t.shards[maphash.Bytes(t.seed, key)%markShards]
	sh.mu.Lock()
	return sh
}

func (sh *markShard) unlock() { sh.mu.Unlock() }

// get returns key's mark if it still describes the item with CAS unique
// cas; the shard must be locked.
func (t *markTable) get(sh *markShard, key []byte, cas uint64) mark {
	m, ok := sh.m[string(key)]
	if !ok {
		return mark{}
	}
	if m.cas != cas {
		delete(sh.m, string(key))
		t.count.Add(-1)
		return mark{}
	}
	return m
}

// set records key's mark (a zero stale/won mark removes it); the shard must
// be locked. isLive reports whether a marked key still holds the CAS its
// mark has; it is used to sweep a full shard.
func (t *markTable) set(sh *markShard, key []byte, m mark, isLive func(key string, cas uint64) bool) {
	_, had := sh.m[string(key)]
	if !m.stale && !m.won {
		if had {
			delete(sh.m, string(key))
			t.count.Add(-1)
		}
		return
	}
	if sh.m == nil {
		sh.m = make(map[string]mark)
	}
	if !had && len(sh.m) >= markSweepAt {
		for k, v := range sh.m {
			if !isLive(k, v.cas) {
				delete(sh.m, k)
				t.count.Add(-1)
			}
		}
	}
	sh.m[string(key)] = m
	if !had {
		t.count.Add(1)
	}
}

// clear drops every mark (flush_all).
func (t *markTable) clear() {
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		t.count.Add(-int64(len(sh.m)))
		sh.m = nil
		sh.mu.Unlock()
	}
}

// markLive reports whether key still holds the item with CAS unique cas.
func (fe *Frontend) markLive(key string, cas uint64) bool {
	info, ok := fe.db.Info([]byte(key))
	return ok && info.CAS == cas
}
