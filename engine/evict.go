package engine

import (
	"hash/maphash"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
)

// Eviction: when used memory passes maxmemory, writes first make room by
// removing keys the policy chooses (FreeMemory). Redis's eight policies are
// here with Redis's semantics, plus Tandem's default, allkeys-s3fifo.
//
// Like Redis, victims are found by sampling, not by keeping every key in a
// global list: each round looks at maxmemory-samples random keys, adds them
// to a small pool of the best candidates seen so far (Redis's eviction
// pool) and evicts the best. Expired keys met while sampling are reclaimed
// on the spot, so expired keys go before live ones.
//
// Scores, higher evicted first:
//   - lru: seconds idle (the entry's access clock, which OBJECT IDLETIME
//     also reads);
//   - lfu: 255 minus Redis's logarithmic access counter after its decay
//     (lfu-log-factor, lfu-decay-time), kept in the entry's evict word;
//   - ttl: how soon the key expires;
//   - random: one sample, no pool.
//
// allkeys-s3fifo follows S3-FIFO (Yang et al., SOSP'23): new keys enter a
// small probation queue; keys evicted from it without a second access are
// remembered in a ghost table of hash fingerprints, and come back straight
// into the main queue; main-queue keys carry a 2-bit frequency and get a
// second chance per access before eviction. The queues are not linked
// lists here: an entry's evict word holds its queue bit, its frequency and
// an insertion tick (the count of writes, a clock of writes), and sampling
// approximates FIFO order by age within each queue. Per key that is the
// 32-bit evict word the LFU policies also use, plus ~1 byte of ghost table.
// Unlike LRU it lets one-hit wonders and scans pass without flushing the
// hot set; docs/benchmarks-history.md has the hit ratios against Redis.

// Policy is maxmemory-policy.
type Policy uint8

// Eviction policies.
const (
	NoEviction Policy = iota
	AllKeysLRU
	AllKeysLFU
	AllKeysRandom
	VolatileLRU
	VolatileLFU
	VolatileRandom
	VolatileTTL
	AllKeysS3FIFO

	// NumPolicies is how many there are.
	NumPolicies = iota
)

var policyByName = map[string]Policy{
	"noeviction": NoEviction, "allkeys-lru": AllKeysLRU, "allkeys-lfu": AllKeysLFU,
	"allkeys-random": AllKeysRandom, "volatile-lru": VolatileLRU, "volatile-lfu": VolatileLFU,
	"volatile-random": VolatileRandom, "volatile-ttl": VolatileTTL, "allkeys-s3fifo": AllKeysS3FIFO,
}

// String is the policy's maxmemory-policy name.
func (p Policy) String() string {
	for name, q := range policyByName {
		if q == p {
			return name
		}
	}
	return "policy-" + strconv.Itoa(int(p))
}

// ParsePolicy returns the policy named as in maxmemory-policy.
func ParsePolicy(name string) (Policy, bool) {
	p, ok := policyByName[name]
	return p, ok
}

// LFU reports whether the policy tracks access frequency (OBJECT FREQ).
func (p Policy) LFU() bool { return p == AllKeysLFU || p == VolatileLFU }

func (p Policy) volatileOnly() bool {
	return p == VolatileLRU || p == VolatileLFU || p == VolatileRandom || p == VolatileTTL
}

// Eviction is the eviction configuration.
type Eviction struct {
	Policy       Policy
	Samples      int // maxmemory-samples
	LFULogFactor int // lfu-log-factor
	LFUDecayTime int // lfu-decay-time, minutes per counter decrement; 0 = never
}

// SetEviction changes the eviction configuration; it applies at once.
func (e *Engine) SetEviction(c Eviction) {
	if c.Samples < 1 {
		c.Samples = 5
	}
	e.eviction.Store(&c)
}

func (e *Engine) evictionConfig() *Eviction { return e.eviction.Load() }

// Policy returns the eviction policy.
func (e *Engine) Policy() Policy { return e.evictionConfig().Policy }

// evictor is the eviction state: the candidate pool and the S3-FIFO
// ghost table. mu serialises evictions (the pool is shared); the
// ghost table is read by inserts under their shard locks, so its slots are
// atomics.
type evictor struct {
	mu         sync.Mutex
	pool       []candidate
	smallShare float64 // running estimate of the keys in the small queue
	ghostAdds  int     // keys remembered so far
	ghostWant  int     // ghost table size for the keyspace, re-read every 4096 adds
	ghost      atomic.Pointer[[]atomic.Uint32]
}

// candidate is a key the pool may evict.
type candidate struct {
	score uint64
	shard int
	key   string
}

// evictPoolSize is Redis's EVPOOL_SIZE.
const evictPoolSize = 16

// LFU constants, Redis's.
const (
	lfuInitVal = 5
	lfuMaxVal  = 255
)

// S3-FIFO evict word: valid bit, main-queue bit, 2-bit frequency, 28-bit
// insertion tick. A zero word marks an entry no policy has seen yet.
const (
	s3Valid    = 1 << 31
	s3Main     = 1 << 30
	s3FreqSh   = 28
	s3TickMask = 1<<28 - 1
	// s3SmallShare is S3-FIFO's small-queue share of the cache.
	s3SmallShare = 0.10
)

// onWrite updates an entry's access state for a write; a new entry (evict
// word 0) is initialised. The shard is locked.
func (e *Engine) onWrite(s *shardData, en *entry, now int64) {
	en.access = e.lruNow(now)
	switch p := e.evictionConfig().Policy; {
	case p.LFU():
		if en.evict == 0 {
			en.evict = e.lfuNow(now)<<8 | lfuInitVal
		} else {
			e.lfuTouch(en, now)
		}
	case p == AllKeysS3FIFO:
		if en.evict&s3Valid == 0 {
			en.evict = e.s3Insert(s.key(en))
		} else {
			en.evict = s3Accessed(en.evict)
		}
	}
}

// onRead updates an entry's access state for a read. The shard is locked.
func (e *Engine) onRead(en *entry, now int64) {
	en.access = e.lruNow(now)
	switch p := e.evictionConfig().Policy; {
	case p.LFU():
		e.lfuTouch(en, now)
	case p == AllKeysS3FIFO:
		if en.evict&s3Valid != 0 {
			en.evict = s3Accessed(en.evict)
		}
	}
}

// lfuNow is Redis's LFUGetTimeInMinutes: 16 bits of minutes.
func (e *Engine) lfuNow(now int64) uint32 { return uint32(now/60000) & 0xffff }

// lfuCounter is Redis's LFUDecrAndReturn: the counter after decay.
func (e *Engine) lfuCounter(word uint32, now int64) uint32 {
	ldt, counter := word>>8&0xffff, word&0xff
	decay := e.evictionConfig().LFUDecayTime
	if decay <= 0 {
		return counter
	}
	cur := e.lfuNow(now)
	elapsed := cur - ldt
	if cur < ldt {
		elapsed = 65535 - ldt + cur
	}
	periods := elapsed / uint32(decay)
	if periods > counter {
		return 0
	}
	return counter - periods
}

// lfuTouch is Redis's updateLFU: decay, then a logarithmic increment.
func (e *Engine) lfuTouch(en *entry, now int64) {
	counter := e.lfuCounter(en.evict, now)
	if counter < lfuMaxVal {
		base := float64(counter) - lfuInitVal
		if base < 0 {
			base = 0
		}
		if rand.Float64() < 1/(base*float64(e.evictionConfig().LFULogFactor)+1) {
			counter++
		}
	}
	en.evict = e.lfuNow(now)<<8 | counter
}

// Freq returns OBJECT FREQ's answer for an entry's evict word.
func (e *Engine) freq(en *entry, now int64) int64 {
	if en.evict == 0 {
		return lfuInitVal
	}
	return int64(e.lfuCounter(en.evict, now))
}

// s3Tick is the S3-FIFO clock: the count of keys inserted (s3Insert), the
// order of S3-FIFO's queues.
func (e *Engine) s3Tick() uint32 { return e.s3Clock.Load() & s3TickMask }

// s3Insert is a new key's word: the small queue, unless the ghost table
// remembers it was evicted from there recently.
func (e *Engine) s3Insert(key []byte) uint32 {
	w := uint32(s3Valid) | e.s3Clock.Add(1)&s3TickMask
	if e.ghostTake(key) {
		w |= s3Main
	}
	return w
}

// s3Accessed adds one access to a word's 2-bit frequency.
func s3Accessed(w uint32) uint32 {
	if f := w >> s3FreqSh & 3; f < 3 {
		w += 1 << s3FreqSh
	}
	return w
}

// ghostFingerprint is a key's ghost-table tag: 32 hash bits, never 0.
func (e *Engine) ghostFingerprint(key []byte) (uint64, uint32) {
	h := maphash.Bytes(e.seed, key)
	return h, uint32(h>>32) | 1
}

// ghostTake reports whether the ghost table remembers key, forgetting it.
func (e *Engine) ghostTake(key []byte) bool {
	t := e.evictor.ghost.Load()
	if t == nil {
		return false
	}
	h, fp := e.ghostFingerprint(key)
	slot := &(*t)[h&uint64(len(*t)-1)]
	return slot.Load() == fp && slot.CompareAndSwap(fp, 0)
}

// ghostAdd remembers a key evicted from the small queue. The table is
// direct-mapped: a newer key overwrites an older one in its slot, which
// keeps roughly the most recent evictions, as S3-FIFO's ghost FIFO does.
// It is sized to the keyspace (a power of two >= keys/2, at most 4M
// slots) and replaced, empty, when the keyspace doubles. Under evictor.mu.
func (e *Engine) ghostAdd(key []byte) {
	ev := &e.evictor
	t := ev.ghost.Load()
	if ev.ghostAdds%4096 == 0 {
		ev.ghostWant = ghostSize(e.keyCount())
	}
	ev.ghostAdds++
	want := ev.ghostWant
	if t == nil || len(*t) < want/2 || len(*t) > want*2 {
		nt := make([]atomic.Uint32, want)
		if t != nil {
			e.used.Add(-int64(len(*t)) * 4)
		}
		e.used.Add(int64(want) * 4)
		e.evictor.ghost.Store(&nt)
		t = &nt
	}
	h, fp := e.ghostFingerprint(key)
	(*t)[h&uint64(len(*t)-1)].Store(fp)
}

func ghostSize(keys int) int {
	n := 1 << 8
	for n < keys/2 && n < 1<<22 {
		n <<= 1
	}
	return n
}

// keyCount is the number of keys in all databases.
func (e *Engine) keyCount() int {
	n := 0
	for i := range e.dbKeys {
		n += int(e.dbKeys[i].Load())
	}
	return n
}

// randomShard picks a shard for sampling: of a database chosen in
// proportion to its keys, so that the empty databases' shards (15 of 16
// with one database in use) cost nothing.
func (e *Engine) randomShard() int {
	if total := e.keyCount(); total > 0 {
		r := rand.IntN(total)
		for db := range e.dbKeys {
			if r -= int(e.dbKeys[db].Load()); r < 0 {
				return db*e.perDB + rand.IntN(e.perDB)
			}
		}
	}
	return rand.IntN(len(e.shards))
}

// FreeMemory makes used memory fit maxmemory by evicting keys as the policy
// says, after compacting dead records away when they hold more than their
// allowance. It reports false when it cannot (noeviction, or nothing the policy
// may evict): the write must then be refused with an OOM error. Front-ends
// call it before a command that may grow memory, holding no shard lock.
func (e *Engine) FreeMemory() bool {
	max := e.maxMemory.Load()
	if max <= 0 || e.used.Load() <= max && e.dead.Load() <= max/deadShare {
		return true
	}
	if e.gate.frozen() { // CLIENT PAUSE keeps the dataset as it is, and refuses nothing (pause.go)
		return true
	}
	ev := &e.evictor
	ev.mu.Lock()
	defer ev.mu.Unlock()
	// Dead records first: reclaiming them costs no key. When the last
	// pass found no shard dead enough to compact (dead records spread thin
	// over many shards), the next waits until another eighth of the
	// allowance has died: a pass locks up to compactPerCall shards, and
	// ran at every write at the bound (a third of the server's time with
	// maxmemory at a few MB).
	if d := e.dead.Load(); d > max/deadShare && d > e.compactFutile.Load()+max/deadShare/8 {
		if e.compactUntil(max / deadShare / 2) {
			e.compactFutile.Store(0)
		} else {
			e.compactFutile.Store(e.dead.Load())
		}
	}
	if e.used.Load() <= max {
		return true
	}
	cfg := e.evictionConfig()
	if cfg.Policy == NoEviction {
		return false
	}
	for e.used.Load() > max {
		if !e.evictOne(cfg) {
			e.evictFailed.Store(true)
			return false
		}
	}
	e.evictFailed.Store(false)
	return true
}

// Dead records may hold up to maxmemory/deadShare beyond used_memory (the
// memory bound's allowance for them, 6 %) before FreeMemory compacts
// them away, down to half that. A shard an eviction leaves at least
// 1/2^evictCompactShift dead is compacted at once; evictions spread
// evenly thus hold about half of that dead, under the allowance.
const (
	deadShare         = 16
	evictCompactShift = 3
	// compactPerCall bounds the shards one FreeMemory looks at for
	// compaction; the next call goes on from there.
	compactPerCall = 256
)

// compactUntil compacts the shards whose arena is at least a sixteenth
// dead, in turn from where the last pass stopped, until dead bytes are
// down to target. With more than a sixteenth of all records dead, such
// shards exist, unless the dead records are spread thin. Under
// evictor.mu; it reports whether it compacted any shard.
func (e *Engine) compactUntil(target int64) (compacted bool) {
	n := uint64(len(e.shards))
	start := e.compactNext.Load()
	for k := uint64(0); k < compactPerCall && e.dead.Load() > target; k++ {
		s := &e.shards[(start+k)%n]
		s.lock()
		if s.maybeCompact(4) {
			compacted = true
		}
		s.flushSums()
		s.unlock()
		e.compactNext.Store(start + k + 1)
	}
	return compacted
}

// evictOne removes one key (or reclaims expired ones); false when the
// policy finds nothing to evict.
func (e *Engine) evictOne(cfg *Eviction) bool {
	ev := &e.evictor
	for round := 0; round < 16; round++ {
		freed, seen := e.sample(cfg)
		if freed {
			return true
		}
		for len(ev.pool) > 0 {
			c := ev.pool[len(ev.pool)-1]
			ev.pool = ev.pool[:len(ev.pool)-1]
			if e.evictCandidate(cfg, c) {
				return true
			}
		}
		if !seen {
			return false // sampling found no evictable key at all
		}
	}
	return false
}

// sample looks at cfg.Samples random keys (of the policy's kind) and adds
// them to the pool. It reports whether it reclaimed expired keys (memory
// freed without evicting) and whether it saw any candidate.
//
// Random shards and slots find keys fast in a full keyspace; in a sparse
// one (a few keys over thousands of shards) they may all miss, and a
// policy that may evict would then answer OOM with keys left. So when
// they saw nothing, a walk from a random shard looks at every slot of
// each shard until it has its samples, as Redis's dictGetSomeKeys always
// finds keys there are.
func (e *Engine) sample(cfg *Eviction) (freed, seen bool) {
	sm := sampling{e: e, cfg: cfg, now: e.clock.NowMs(), tick: e.s3Tick()}
	for tries := 0; sm.got < cfg.Samples && tries < cfg.Samples*64; tries++ {
		if sm.shard(e.randomShard(), false) {
			return true, sm.got > 0
		}
	}
	if sm.got > 0 || e.keyCount() == 0 {
		return false, sm.got > 0
	}
	first := rand.IntN(len(e.shards))
	for i := 0; i < len(e.shards) && sm.got < cfg.Samples; i++ {
		if sm.shard((first+i)%len(e.shards), true) {
			return true, sm.got > 0
		}
	}
	return false, sm.got > 0
}

// sampling is one sample's state.
type sampling struct {
	e    *Engine
	cfg  *Eviction
	now  int64
	tick uint32
	got  int // candidates seen
}

// shard samples shard si: 8 random slots, or every slot with all. It
// reports whether it reclaimed expired keys, which ends the sample.
func (sm *sampling) shard(si int, all bool) (freed bool) {
	e, cfg := sm.e, sm.cfg
	s := &e.shards[si]
	s.lock()
	defer s.unlock()
	n := len(s.entries)
	if s.keys == 0 || (cfg.Policy.volatileOnly() && s.volatile == 0) {
		return false
	}
	probes := 8
	if all {
		probes = n
	}
	for probe := 0; probe < probes && sm.got < cfg.Samples; probe++ {
		slot := probe
		if !all {
			slot = rand.IntN(n)
		}
		en := &s.entries[slot]
		if en.typ == TypeNone || (cfg.Policy.volatileOnly() && s.expireAt(en) == 0) {
			continue
		}
		if s.isExpired(en, sm.now) {
			e.reclaim(s, slot, maphash.Bytes(e.seed, s.key(en)), si/e.perDB)
			freed = true
			continue
		}
		sm.got++
		if cfg.Policy == AllKeysRandom || cfg.Policy == VolatileRandom {
			e.evictor.offer(1, si, s.key(en), true)
			continue
		}
		// The key is read (a cache miss on its record) only for a
		// candidate the pool takes.
		if sc := e.score(cfg, &s.shardData, en, sm.now, sm.tick); e.evictor.accepts(sc) {
			e.evictor.offer(sc, si, s.key(en), false)
		}
	}
	if freed {
		s.flushSums()
	}
	return freed
}

// score rates a sampled entry; higher is evicted first. For S3-FIFO it
// also performs the queue moves sampling stands in for: a small-queue key
// accessed again moves to the main queue, a main-queue key with accesses
// left spends one and goes back to the queue's head.
func (e *Engine) score(cfg *Eviction, s *shardData, en *entry, now int64, tick uint32) uint64 {
	switch cfg.Policy {
	case AllKeysLRU, VolatileLRU:
		return uint64(e.lruNow(now) - en.access)
	case AllKeysLFU, VolatileLFU:
		return uint64(lfuMaxVal - e.freq(en, now))
	case VolatileTTL:
		return ^uint64(s.expireAt(en))
	}
	w := en.evict
	if w&s3Valid == 0 {
		w = s3Valid // unseen (policy switched): small, old
	}
	main := w&s3Main != 0
	freq := w >> s3FreqSh & 3
	ev := &e.evictor
	if main {
		ev.smallShare *= 0.99
	} else {
		ev.smallShare = ev.smallShare*0.99 + 0.01
	}
	switch {
	case !main && freq > 0:
		w |= s3Main // promoted with its accesses, as S3-FIFO moves S to M
		main = true
	case main && freq > 0:
		w = w&^(3<<s3FreqSh|s3TickMask) | (freq-1)<<s3FreqSh | tick
		freq--
	}
	en.evict = w
	age := uint64((tick - w) & s3TickMask)
	evictSmall := ev.smallShare > s3SmallShare
	var class uint64
	switch {
	case freq == 0 && main != evictSmall:
		class = 3
	case freq == 0:
		class = 2
	default:
		class = 1 // accesses left: last resort
	}
	return class<<40 | age
}

// offer adds a candidate to the pool, keeping the best evictPoolSize
// sorted by ascending score (the best last). A random policy keeps just
// the newest.
func (ev *evictor) offer(score uint64, shard int, key []byte, random bool) {
	if random {
		ev.pool = append(ev.pool[:0], candidate{score: score, shard: shard, key: string(key)})
		return
	}
	c := candidate{score: score, shard: shard}
	for i, p := range ev.pool {
		if p.shard == shard && p.key == string(key) {
			c.key = p.key
			ev.pool = append(ev.pool[:i], ev.pool[i+1:]...)
			break
		}
	}
	if len(ev.pool) == evictPoolSize {
		if score <= ev.pool[0].score {
			return
		}
		ev.pool = append(ev.pool[:0], ev.pool[1:]...)
	}
	if c.key == "" {
		c.key = string(key)
	}
	i := len(ev.pool)
	ev.pool = append(ev.pool, c)
	for i > 0 && ev.pool[i-1].score > c.score {
		ev.pool[i] = ev.pool[i-1]
		i--
	}
	ev.pool[i] = c
}

// accepts reports whether offer would take a candidate of this score.
func (ev *evictor) accepts(score uint64) bool {
	return len(ev.pool) < evictPoolSize || score > ev.pool[0].score
}

// evictCandidate removes a pooled key if it is still there; S3-FIFO first
// re-checks it, since an access since sampling gives it another chance.
func (e *Engine) evictCandidate(cfg *Eviction, c candidate) bool {
	s := &e.shards[c.shard]
	key := []byte(c.key)
	h := maphash.Bytes(e.seed, key)
	s.lock()
	slot := s.lookup(key, h)
	if slot < 0 {
		s.unlock()
		return false
	}
	en := &s.entries[slot]
	if cfg.Policy.volatileOnly() && s.expireAt(en) == 0 ||
		cfg.Policy == AllKeysS3FIFO && en.evict&s3Valid != 0 && en.evict>>s3FreqSh&3 > 0 { // accessed since sampled
		s.unlock()
		return false
	}
	toGhost := cfg.Policy == AllKeysS3FIFO && en.evict&s3Main == 0
	if !en.fetched() {
		e.stats.evictedUnfetched.Add(1)
	}
	e.reportEvicted(s, c.shard, en)
	s.remove(slot, h)
	// Evictions make dead space fast and are there to free memory:
	// compact sooner than after other removals.
	s.maybeCompact(evictCompactShift)
	s.flushSums() // the eviction loop reads e.used to know when to stop
	e.stats.evicted.Add(1)
	e.stats.evictedBy[cfg.Policy].Add(1)
	s.changed(1)
	e.DB(c.shard/e.perDB).Notify(ClassEvicted, "evicted", key)
	e.removed(c.shard/e.perDB, key, true)
	s.unlock()
	if toGhost {
		e.ghostAdd(key)
	}
	return true
}
