package engine

import (
	"hash/maphash"
	"sort"
	"sync/atomic"
)

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	Databases int   // number of databases (Redis "databases"); default 16
	ShardBits int   // 2^ShardBits shards per database; default 10
	Clock     Clock // default SystemClock
	MaxMemory int64 // bytes; 0 = unlimited
}

// Engine is the whole keyspace. All methods are safe for concurrent use.
type Engine struct {
	shards    []shard // databases × perDB, database-major
	perDB     int
	shardBits uint
	databases int
	seed      maphash.Seed
	clock     Clock
	startMs   int64

	used      atomic.Int64  // accounted bytes of all entries
	maxMemory atomic.Int64  // 0 = unlimited
	dirty     atomic.Int64  // writes since start (Redis's server.dirty)
	casSeq    atomic.Uint64 // last CAS unique handed out

	expireNext atomic.Uint64 // shard where the next ActiveExpireCycle starts

	gate Gate // exclusive sections: EXEC, scripts, the snapshot barrier

	eviction atomic.Pointer[Eviction]
	comp     atomic.Pointer[compressConf] // value compression (compress.go); nil = none
	evictor  evictor
	// evictFailed: the last FreeMemory found nothing to evict.
	evictFailed atomic.Bool

	stats counters

	notify notifier // keyspace notifications (notify.go)
}

// counters are the keyspace statistics INFO and memcached stats report.
type counters struct {
	hits, misses, expired, evicted atomic.Int64
	// expired and evicted keys that were never read (fetched.go)
	expiredUnfetched, evictedUnfetched atomic.Int64
}

// New returns an empty engine.
func New(o Options) *Engine {
	if o.Databases <= 0 {
		o.Databases = 16
	}
	if o.ShardBits <= 0 {
		o.ShardBits = 10
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	e := &Engine{
		perDB:     1 << o.ShardBits,
		shardBits: uint(o.ShardBits),
		databases: o.Databases,
		seed:      maphash.MakeSeed(),
		clock:     o.Clock,
	}
	e.shards = make([]shard, e.databases*e.perDB)
	for i := range e.shards {
		e.shards[i].id = i
	}
	e.startMs = e.clock.NowMs()
	e.maxMemory.Store(o.MaxMemory)
	e.gate.init(e)
	e.SetEviction(Eviction{Policy: NoEviction, Samples: 5, LFULogFactor: 10, LFUDecayTime: 1})
	return e
}

// Databases returns the number of databases.
func (e *Engine) Databases() int { return e.databases }

// Clock returns the engine's clock, so front-ends compute relative times
// ("EX 10", memcached exptime) against the same now as the engine.
func (e *Engine) Clock() Clock { return e.clock }

// SetMaxMemory changes the memory bound; 0 means unlimited.
func (e *Engine) SetMaxMemory(n int64) { e.maxMemory.Store(n) }

// UsedMemory returns the bytes the keyspace accounts for.
func (e *Engine) UsedMemory() int64 { return e.used.Load() }

// Changes returns the number of writes since start; snapshot rules compare
// it with its value at the last save.
func (e *Engine) Changes() int64 { return e.dirty.Load() }

// Stats is a copy of the keyspace counters.
type Stats struct {
	Hits, Misses, ExpiredKeys, EvictedKeys int64
	// ExpiredUnfetched and EvictedUnfetched count the expired and evicted
	// keys whose value was never read (memcached's expired_unfetched,
	// evicted_unfetched; fetched.go).
	ExpiredUnfetched, EvictedUnfetched int64
}

// Stats returns the keyspace counters.
func (e *Engine) Stats() Stats {
	return Stats{
		Hits:        e.stats.hits.Load(),
		Misses:      e.stats.misses.Load(),
		ExpiredKeys: e.stats.expired.Load(),
		EvictedKeys: e.stats.evicted.Load(),

		ExpiredUnfetched: e.stats.expiredUnfetched.Load(),
		EvictedUnfetched: e.stats.evictedUnfetched.Load(),
	}
}

// ResetStats zeroes the counters (CONFIG RESETSTAT).
func (e *Engine) ResetStats() {
	e.stats.hits.Store(0)
	e.stats.misses.Store(0)
	e.stats.expired.Store(0)
	e.stats.evicted.Store(0)
	e.stats.expiredUnfetched.Store(0)
	e.stats.evictedUnfetched.Store(0)
}

// DB returns a handle on database n, which must be in [0, Databases()).
func (e *Engine) DB(n int) DB {
	return DB{e: e, num: n, base: n * e.perDB}
}

// DB is a handle on one database; a small value, cheap to copy. NoTouch
// makes reads leave the keys' access time alone (CLIENT NO-TOUCH).
type DB struct {
	e       *Engine
	num     int
	base    int
	NoTouch bool
	events  *EventQueue // events for after the command (notify.go); nil: at once
}

// Num returns the database index.
func (d DB) Num() int { return d.num }

// Engine returns the engine the handle belongs to.
func (d DB) Engine() *Engine { return d.e }

// hashTag returns the part of key that chooses its shard: the bytes between
// the first '{' and the next '}' when non-empty, else the whole key (Redis
// Cluster's rule).
func hashTag(key []byte) []byte {
	for i, c := range key {
		if c == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j == i+1 {
						return key
					}
					return key[i+1 : j]
				}
			}
			return key
		}
	}
	return key
}

// locate returns the global shard index for key and the key's hash.
func (d DB) locate(key []byte) (int, uint64) {
	h := maphash.Bytes(d.e.seed, key)
	sh := h
	if tag := hashTag(key); len(tag) != len(key) {
		sh = maphash.Bytes(d.e.seed, tag)
	}
	return d.base + int(sh>>(64-d.e.shardBits)), h
}

// shardOf returns the shard for key, its global index and the key's hash.
func (d DB) shardOf(key []byte) (*shard, uint64) {
	i, h := d.locate(key)
	return &d.e.shards[i], h
}

// lruNow is the access clock: seconds since the engine started.
func (e *Engine) lruNow(now int64) uint32 { return uint32((now - e.startMs) / 1000) }

// find returns the slot of a live key, reclaiming it first if it has
// expired (lazy expiry). The shard must be locked.
func (d DB) find(s *shard, key []byte, h uint64, now int64) int {
	slot := s.lookup(key, h)
	if slot < 0 {
		return -1
	}
	if s.entries[slot].isExpired(now) {
		d.e.reclaim(s, slot, h, d.num)
		return -1
	}
	return slot
}

// reclaim removes an expired entry of database db and reports it
// ("expired" event).
func (e *Engine) reclaim(s *shard, slot int, h uint64, db int) {
	key := s.entries[slot].key() // the allocation outlives the removal
	if !s.entries[slot].fetched() {
		e.stats.expiredUnfetched.Add(1)
	}
	e.used.Add(-s.unlink(slot, h))
	e.stats.expired.Add(1)
	e.dirty.Add(1)
	e.notifyExpired(db, key)
}

// removeKey deletes a live entry as a write.
func (e *Engine) removeKey(s *shard, slot int, h uint64) {
	e.used.Add(-s.remove(slot, h))
	e.dirty.Add(1)
}

// touch records a read access unless the handle says not to.
func (d DB) touch(en *entry, now int64) {
	if !d.NoTouch {
		d.e.onRead(en, now)
	}
}

// nextCAS hands out a fresh CAS unique.
func (e *Engine) nextCAS() uint64 { return e.casSeq.Add(1) }

// overLimit reports whether writes that grow memory must be refused: over
// maxmemory under noeviction, or when eviction found nothing to evict.
// Otherwise the front-end made room before the command (FreeMemory) and
// the command may overshoot, as in Redis, so a client never sees an error
// for a full cache.
func (e *Engine) overLimit() bool {
	max := e.maxMemory.Load()
	return max > 0 && e.used.Load() > max && (e.evictionConfig().Policy == NoEviction || e.evictFailed.Load())
}

// store writes a string value under key in a locked shard: a new entry
// when slot < 0, else it replaces the entry's value (and resets its type).
// It returns the slot.
// The value is compressed when the compression settings ask for it
// (compress.go); storePlain never compresses.
func (d DB) store(s *shard, slot int, key []byte, h uint64, value []byte, enc Encoding, now int64) int {
	kv, enc := d.e.packKV(key, value, enc)
	return d.storeKV(s, slot, h, kv, len(key), enc, now)
}

// storePlain is store without compression, for the commands that rewrite
// a value bit by bit (compress.go).
func (d DB) storePlain(s *shard, slot int, key []byte, h uint64, value []byte, enc Encoding, now int64) int {
	return d.storeKV(s, slot, h, joinKV(key, value), len(key), enc, now)
}

// itemOf copies an entry's readable state; a compressed value is
// decompressed into a pooled buffer (Item.Release).
func itemOf(en *entry) Item {
	v, buf := en.plainValue(true)
	return Item{
		Value:    v,
		ExpireAt: en.expireAt,
		CAS:      en.cas,
		Flags:    en.flags,
		Type:     en.typ,
		Encoding: en.encoding(),
		buf:      buf,
	}
}

// lockSet locks several shards in ascending global order, the one order
// every multi-shard operation uses, so two of them can never deadlock.
type lockSet struct {
	idx   []int
	e     *Engine
	stack [16]int
}

func (e *Engine) newLockSet() *lockSet {
	ls := &lockSet{e: e}
	ls.idx = ls.stack[:0]
	return ls
}

func (ls *lockSet) add(i int) { ls.idx = append(ls.idx, i) }

func (ls *lockSet) lock() {
	sort.Ints(ls.idx)
	out := ls.idx[:0]
	for i, v := range ls.idx {
		if i == 0 || v != ls.idx[i-1] {
			out = append(out, v)
		}
	}
	ls.idx = out
	for _, i := range ls.idx {
		ls.e.shards[i].lock()
	}
}

func (ls *lockSet) unlock() {
	for j := len(ls.idx) - 1; j >= 0; j-- {
		ls.e.shards[ls.idx[j]].mu.Unlock()
	}
}
