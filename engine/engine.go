package engine

import (
	"hash/maphash"
	"sort"
	"sync/atomic"
	"time"
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

	// used and dead lag the shards' parts by up to sumStep each (tally.go).
	used    atomic.Int64 // accounted bytes of all entries, and ChargeMemory's
	dead    atomic.Int64 // bytes of dead records awaiting compaction (arena.go)
	sumStep atomic.Int64 // what each shard may hold back of used and dead
	// dbKeys counts the keys of each database, kept by its shards (DBSIZE,
	// eviction sampling).
	dbKeys []atomic.Int64
	// compactNext is the shard where FreeMemory's next compaction pass
	// starts.
	compactNext atomic.Uint64
	// compactFutile is the dead bytes when a compaction pass last found
	// no shard dead enough to compact (evict.go); 0 after one that did.
	compactFutile atomic.Int64
	maxMemory     atomic.Int64  // 0 = unlimited
	casSeq        atomic.Uint64 // last CAS unique handed out
	// s3Clock counts the keys inserted: S3-FIFO's insertion order (evict.go).
	s3Clock atomic.Uint32

	expireNext atomic.Uint64 // shard where the next ActiveExpireCycle starts
	// expireObserver is told each expiry cycle's duration (OnExpireCycle).
	expireObserver atomic.Pointer[func(time.Duration)]
	// noActiveExpire: DEBUG SET-ACTIVE-EXPIRE 0 stopped the cycle (pause.go).
	noActiveExpire atomic.Bool
	// expiryByMaster: a replica's keys expire by its master's DELs
	// (SetExpiryByMaster), but for those its own clients gave a TTL,
	// ownExpires (replica_expire.go).
	expiryByMaster atomic.Bool
	ownExpires     ownExpires

	gate Gate // exclusive sections: EXEC, scripts, the snapshot barrier

	eviction atomic.Pointer[Eviction]
	comp     atomic.Pointer[compressConf] // value compression (compress.go); nil = none
	evictor  evictor
	// evictFailed: the last FreeMemory found nothing to evict.
	evictFailed atomic.Bool

	stats counters

	notify notifier    // keyspace notifications (notify.go)
	hooks  changeHooks // client-side caching's change hook (track.go)
	// effects hears of the keys the engine removes on its own (effects.go).
	effects atomic.Pointer[effectBox]
	// evictHook hears of evictions (evicthook.go): memcached's watch.
	evictHook evictHookPtr
}

// counters are the keyspace statistics INFO and memcached stats report.
// The hits and misses of single-key reads are the shards' (tally.go);
// these are CountLookups'.
type counters struct {
	hits, misses, expired, evicted atomic.Int64
	evictedBy                      [NumPolicies]atomic.Int64 // evicted, by the policy that chose them
	// expired and evicted keys that were never read (fetched.go)
	expiredUnfetched, evictedUnfetched atomic.Int64
	// compactions counts arena compactions (arena.go): rare, off the
	// write path's common case.
	compactions atomic.Int64
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
	e.dbKeys = make([]atomic.Int64, e.databases)
	for i := range e.shards {
		s := &e.shards[i]
		s.id, s.eng, s.db, s.seed = i, e, i/e.perDB, e.seed
	}
	e.startMs = e.clock.NowMs()
	e.SetMaxMemory(o.MaxMemory)
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
func (e *Engine) SetMaxMemory(n int64) {
	e.setSumStep(n)
	e.maxMemory.Store(n)
}

// UsedMemory returns the bytes the keyspace accounts for, as the memory
// bound sees them: within maxmemory/64 of UsedMemoryExact, and cheap enough
// to read before every write.
func (e *Engine) UsedMemory() int64 { return e.used.Load() }

// ChargeMemory adds delta bytes held outside the keyspace to used memory,
// so that maxmemory counts them as Redis's used_memory does: the script
// cache and the FUNCTION libraries (scripting.Engine.SetMemoryCharge).
func (e *Engine) ChargeMemory(delta int64) { e.used.Add(delta) }

// UsedMemoryExact is UsedMemory with what the shards hold back (tally.go),
// for reports: INFO used_memory, memcached's bytes.
func (e *Engine) UsedMemoryExact() int64 {
	return e.used.Load() + e.tallies().used
}

// Changes returns the number of writes since start; snapshot rules compare
// it with its value at the last save.
func (e *Engine) Changes() int64 {
	return e.tallies().changes
}

// Stats is a copy of the keyspace counters.
type Stats struct {
	Hits, Misses, ExpiredKeys, EvictedKeys int64
	// ExpiredUnfetched and EvictedUnfetched count the expired and evicted
	// keys whose value was never read (memcached's expired_unfetched,
	// evicted_unfetched; fetched.go).
	ExpiredUnfetched, EvictedUnfetched int64
	// EvictedByPolicy splits EvictedKeys by the policy in force when each
	// key was evicted (indexed by Policy).
	EvictedByPolicy [NumPolicies]int64
}

// Stats returns the keyspace counters.
func (e *Engine) Stats() Stats {
	t := e.tallies()
	st := Stats{
		Hits:        e.stats.hits.Load() + t.hits,
		Misses:      e.stats.misses.Load() + t.misses,
		ExpiredKeys: e.stats.expired.Load(),
		EvictedKeys: e.stats.evicted.Load(),

		ExpiredUnfetched: e.stats.expiredUnfetched.Load(),
		EvictedUnfetched: e.stats.evictedUnfetched.Load(),
	}
	for p := range st.EvictedByPolicy {
		st.EvictedByPolicy[p] = e.stats.evictedBy[p].Load()
	}
	return st
}

// ResetStats zeroes the counters (CONFIG RESETSTAT).
func (e *Engine) ResetStats() {
	e.stats.hits.Store(0)
	e.stats.misses.Store(0)
	for i := range e.shards {
		s := &e.shards[i]
		s.mu.Lock()
		s.tally.hits, s.tally.misses = 0, 0
		s.mu.Unlock()
	}
	e.stats.expired.Store(0)
	e.stats.evicted.Store(0)
	for p := range e.stats.evictedBy {
		e.stats.evictedBy[p].Store(0)
	}
	e.stats.expiredUnfetched.Store(0)
	e.stats.evictedUnfetched.Store(0)
}

// DB returns a handle on database n, which must be in [0, Databases()).
func (e *Engine) DB(n int) DB {
	return DB{e: e, num: n, base: n * e.perDB}
}

// DB is a handle on one database; a small value, cheap to copy. NoTouch
// makes reads leave the keys' access time alone (CLIENT NO-TOUCH).
// TrackCAS is for memcached: its writes give keys a CAS unique at once,
// and its reads report them (Item.CAS, KeyInfo.CAS). Other handles leave
// a key without one until something asks for it (casOf): a Redis key
// costs 8 bytes less.
type DB struct {
	e        *Engine
	num      int
	base     int
	NoTouch  bool
	TrackCAS bool
	// MayOvershoot lets writes through this handle grow memory past
	// maxmemory: the caller already decided they may (a script flagged
	// allow-oom, which Redis lets run any command at the bound).
	MayOvershoot bool
	// FromMaster: the handle's writes are a master's, replayed (its link,
	// an AOF, a dump loaded): a replica remembers none of the expiries
	// they set as its own to reclaim itself (replica_expire.go).
	FromMaster bool
	events     *EventQueue   // events for after the command (notify.go); nil: at once
	writes     *WriteCounter // counts the writes made through the handle (effects.go); nil: none
	// expiryAt, when not 0, is the unix ms at which keys are judged
	// expired through this handle (At).
	expiryAt int64
}

// SetExpiryByMaster makes keys expire only by their master's DELs, as on
// a Redis replica: an expired key reads as missing but stays (lookups,
// SCAN and RANDOMKEY reclaim nothing), and the active expiry cycle
// reclaims only the keys the replica's own clients gave a TTL (a writable
// replica's: replica_expire.go). Otherwise a replica that expired a key a
// moment before its master would lose it for good when the master
// extends its TTL, or writes to it, a moment later. A client's write to
// an expired key replaces the entry left in place (shardData.insert), as
// Redis's lookupKeyWrite deletes it on a writable replica. The master's
// own commands see no key expired (a handle At(1): Redis's lookups for
// its master). Turning it off forgets the remembered keys: the cycle then
// sees every key again.
func (e *Engine) SetExpiryByMaster(on bool) {
	e.expiryByMaster.Store(on)
	if !on {
		e.ownExpires.reset()
	}
}

// At returns the handle with expiry judged at unix ms (0: the clock's
// time again). Redis 7.0 stops the clock its keys expire by while a
// transaction or a script runs, so that a key one command of it found
// is still there for the next one (db.c keyIsExpired); everything else
// — the TTLs replied, the expiry a SET gives — reads the clock as usual.
func (d DB) At(ms int64) DB {
	d.expiryAt = ms
	return d
}

// expiryNow is the time expiry is judged at, given the time now read.
func (d DB) expiryNow(now int64) int64 {
	if d.expiryAt != 0 {
		return d.expiryAt
	}
	return now
}

// own reports whether the handle's writes are this server's own rather
// than its master's (shard.own).
func (d DB) own() bool { return !d.FromMaster }

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
	if s.isExpired(&s.entries[slot], d.expiryNow(now)) {
		d.e.reclaim(s, slot, h, d.num)
		return -1
	}
	return slot
}

// keyAt is a key looked up in its shard, which the caller holds locked:
// what nearly every single-key operation starts from (lockKey, KeyTx.at).
// slot stays good while the shard is locked and the key not removed
// (shard.unlock may move keys); an *entry taken from it, until the next
// insert into the shard, which may grow the entries.
type keyAt struct {
	s    *shard
	h    uint64 // the key's hash
	now  int64  // the operation's time, read once
	slot int    // the live key's slot; -1 when missing (or expired, and so just reclaimed)
}

// lockKey locks key's shard and finds the key in it, as find does (lazy
// expiry included). The caller unlocks: defer k.s.unlock(). It returns a
// small struct rather than taking a closure so that the GET/SET path
// stays a plain call, with nothing to allocate.
// It repeats lockKeyAt's lines rather than calling it, which keeps GET
// and SET one call shallower.
func (d DB) lockKey(key []byte) keyAt {
	s, h := d.shardOf(key)
	now := d.e.clock.NowMs()
	s.lock()
	s.origin, s.own = d.origin(), d.own()
	return keyAt{s: s, h: h, now: now, slot: d.find(s, key, h, now)}
}

// lockKeyAt is lockKey at a time the caller read, for operations on many
// keys that see them all at one now (DEL, EXISTS, TOUCH).
func (d DB) lockKeyAt(key []byte, now int64) keyAt {
	s, h := d.shardOf(key)
	s.lock()
	s.origin, s.own = d.origin(), d.own()
	return keyAt{s: s, h: h, now: now, slot: d.find(s, key, h, now)}
}

// reclaim removes an expired entry of database db and reports it
// ("expired" event); while a CLIENT PAUSE keeps the dataset as it is
// (pause.go), or the master's DELs expire the keys (SetExpiryByMaster),
// it leaves the entry, which lookups go on finding missing.
func (e *Engine) reclaim(s *shard, slot int, h uint64, db int) {
	if e.gate.frozen() || e.expiryByMaster.Load() {
		return
	}
	e.reclaimNow(&s.shardData, slot, h, db)
}

// reclaimNow is reclaim whatever a pause says.
func (e *Engine) reclaimNow(s *shardData, slot int, h uint64, db int) {
	key := s.key(&s.entries[slot]) // the record's bytes outlive the removal
	if !s.entries[slot].fetched() {
		e.stats.expiredUnfetched.Add(1)
	}
	s.unlink(slot, h)
	e.stats.expired.Add(1)
	s.changed(1)
	e.notifyExpired(db, key)
	s.keyExpired(key)
	e.removed(db, key, false)
}

// removeKey deletes a live entry as a write through d.
func (d DB) removeKey(s *shard, slot int, h uint64) {
	s.remove(slot, h)
	s.changed(1)
	d.wrote()
}

// touch records a read access unless the handle says not to.
func (d DB) touch(en *entry, now int64) {
	if !d.NoTouch {
		d.e.onRead(en, now)
	}
}

// nextCAS hands out a fresh CAS unique.
func (e *Engine) nextCAS() uint64 { return e.casSeq.Add(1) }

// casOf returns en's CAS unique, giving it one if it has none yet. Keys
// written through RESP carry none until something asks: memcached's gets
// and mg, WATCH, a snapshot of a key memcached wrote.
func (e *Engine) casOf(s *shardData, en *entry) uint64 {
	if c := s.cas(en); c != 0 {
		return c
	}
	c := e.nextCAS()
	s.setCAS(en, c)
	return c
}

// newVersion records a change of en's value made in place (an aggregate):
// a key that has a CAS unique gets a new one.
func (e *Engine) newVersion(s *shardData, en *entry) {
	if en.bits&entryHasCAS != 0 {
		s.setCAS(en, e.nextCAS())
	}
	s.keyChanged(s.key(en))
}

// newMeta is the metadata of a key a write creates: a CAS unique at once
// for memcached (TrackCAS).
func (d DB) newMeta() recordMeta {
	var m recordMeta
	if d.TrackCAS {
		m.cas = d.e.nextCAS()
	}
	return m
}

// overLimit reports whether writes that grow memory must be refused: over
// maxmemory under noeviction, or when eviction found nothing to evict.
// Otherwise the front-end made room before the command (FreeMemory) and
// the command may overshoot, as in Redis, so a client never sees an error
// for a full cache.
func (e *Engine) overLimit() bool {
	max := e.maxMemory.Load()
	return max > 0 && e.used.Load() > max && (e.evictionConfig().Policy == NoEviction || e.evictFailed.Load())
}

// overLimit is the engine's overLimit unless the handle may overshoot.
func (d DB) overLimit() bool { return !d.MayOvershoot && d.e.overLimit() }

// keepMeta, passed to store, keeps the key's expiry and memcached flags.
var keepMeta *recordMeta

// store writes a string value under key in a locked shard: a new entry
// when slot < 0, else it replaces the entry's value (and resets its type).
// m gives the key's expiry and flags; keepMeta (nil) keeps those it had.
// It returns the slot. The value is compressed when the compression
// settings ask for it (compress.go); storePlain never compresses.
func (d DB) store(s *shard, slot int, key []byte, h uint64, value []byte, enc Encoding, m *recordMeta, now int64) int {
	value, enc, buf := d.e.packValue(value, enc)
	slot = d.storePlain(s, slot, key, h, value, enc, m, now)
	putScratch(buf)
	return slot
}

// storePlain is store without compression, for the commands that rewrite
// a value bit by bit (compress.go). value is copied.
func (d DB) storePlain(s *shard, slot int, key []byte, h uint64, value []byte, enc Encoding, m *recordMeta, now int64) int {
	var meta recordMeta
	switch {
	case m != nil:
		meta = *m
	case slot >= 0:
		meta = s.meta(&s.entries[slot])
	}
	// A new version: a new CAS unique if the key had one (someone may hold
	// the old), or if memcached writes it.
	meta.cas = 0
	if d.TrackCAS || slot >= 0 && s.entries[slot].bits&entryHasCAS != 0 {
		meta.cas = d.e.nextCAS()
	}
	if slot < 0 {
		slot = s.insert(h, key, value, TypeString, meta)
	} else {
		s.dropAgg(slot)
		s.countCompressed(&s.entries[slot], -1)
		s.rewrite(slot, value, meta)
	}
	en := &s.entries[slot]
	en.typ = TypeString
	en.enc = enc
	s.countCompressed(en, 1)
	en.bits &^= entryFetched // a new value, not read yet
	d.e.onWrite(&s.shardData, en, now)
	s.changed(1)
	d.wrote()
	return slot
}

// itemOf copies an entry's readable state; a compressed value is
// decompressed into a pooled buffer (Item.Release). The CAS unique is
// reported (and given to a key that has none) for memcached only.
func (d DB) itemOf(s *shardData, en *entry) Item {
	r := s.view(en)
	en.bits |= entryShared // it.Value is the record's bytes (arena.go)
	it := Item{
		Value:    r.value,
		ExpireAt: r.expireAt,
		Flags:    r.flags,
		Type:     en.typ,
		Encoding: en.encoding(),
	}
	if en.codec() != CodecNone {
		it.Value, it.buf = s.plainValue(en, true)
	}
	if d.TrackCAS {
		it.CAS = r.cas
		if it.CAS == 0 {
			it.CAS = d.e.casOf(s, en)
		}
	}
	return it
}

// lockSet locks several shards in ascending global order, the one order
// every multi-shard operation uses, so two of them can never deadlock.
type lockSet struct {
	idx    []int
	e      *Engine
	origin uint64 // the locked shards' origin (track.go)
	own    bool   // shard.own of the locked shards
	stack  [16]int
}

// newLockSet is a lock set for the handle's operation: its changes have
// the handle's origin.
func (d DB) newLockSet() *lockSet {
	ls := d.e.newLockSet()
	ls.origin, ls.own = d.origin(), d.own()
	return ls
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
		ls.e.shards[i].origin, ls.e.shards[i].own = ls.origin, ls.own
	}
}

func (ls *lockSet) unlock() {
	for j := len(ls.idx) - 1; j >= 0; j-- {
		ls.e.shards[ls.idx[j]].unlock()
	}
}
