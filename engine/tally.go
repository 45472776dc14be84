package engine

import "sync/atomic"

// Engine-wide counters, kept by the shards.
//
// Every write used to add to a few engine-wide atomics (used memory, dead
// record bytes, the dirty count) and every read to a hit or miss counter.
// Each such add cost more than its share: with one event loop per core,
// two loops writing different keys took turns at the same cache lines, and
// even alone a locked instruction waits for the loads before it, here the
// cache miss on the key's record. The profile of SET showed one such add
// at 8 % of the server's time. So each shard keeps its part in plain
// fields under its lock, which the command holds anyway:
//
//   - counts read only for reports (hits, misses, changes) are summed over
//     the shards, each locked in turn, when read (Stats, Changes);
//   - the byte counts the memory bound reads on every write (used memory,
//     dead bytes) stay engine-wide atomics, which each shard moves its
//     part into once that part reaches sumStep. An overwrite adds and takes
//     back the same bytes, and so moves nothing at all.

// tally is a shard's part of the engine's counters, under the shard's lock.
type tally struct {
	hits, misses int64
	changes      int64 // writes (Redis's server.dirty)
	// the bytes of used memory and of dead records not yet moved into the
	// engine's counts (spread)
	used, dead int64
}

// spread returns what a shard holds back of an engine-wide byte count
// that its part has brought to part: part, or 0 once part reaches the
// step either way and is moved into the engine's count.
func (e *Engine) spread(total *atomic.Int64, part int64) int64 {
	if st := e.sumStep.Load(); part >= st || part <= -st {
		total.Add(part)
		return 0
	}
	return part
}

// Each shard may hold back up to sumStep bytes of the engine's used memory
// and of its dead bytes. sumStepShare bounds what all of them hold back
// together to maxmemory/64; in practice far less, since the parts of
// shards that see writes both ways cancel out, and only the shards of the
// databases in use hold any. Without maxmemory nothing is held back, so
// that reports are exact where no bound needs the speed.
const (
	sumStepShare = 64
	sumStepMax   = 64 << 10
)

// setSumStep derives sumStep from maxmemory.
func (e *Engine) setSumStep(maxMemory int64) {
	e.sumStep.Store(min(sumStepMax, maxMemory/(sumStepShare*int64(len(e.shards)))))
}

// tallies adds up every shard's tally, taking each shard's lock in turn
// (for reports: some 16K locks, well under a millisecond).
func (e *Engine) tallies() tally {
	var t tally
	for i := range e.shards {
		s := &e.shards[i]
		s.mu.Lock()
		t.hits += s.tally.hits
		t.misses += s.tally.misses
		t.changes += s.tally.changes
		t.used += s.tally.used
		t.dead += s.tally.dead
		s.mu.Unlock()
	}
	return t
}

// changed counts n writes to the shard's keys (Changes).
func (s *shardData) changed(n int64) { s.tally.changes += n }

// lookedUp counts hits and misses of reads of the shard's keys (Stats).
func (s *shard) lookedUp(hits, misses int64) {
	s.tally.hits += hits
	s.tally.misses += misses
}

// flushSums moves the shard's parts of the byte counts into the engine's
// now, for a reader that must see what it just changed (FreeMemory's
// eviction loop).
func (s *shardData) flushSums() {
	if s.eng != nil {
		s.eng.used.Add(s.tally.used)
		s.eng.dead.Add(s.tally.dead)
		s.tally.used, s.tally.dead = 0, 0
	}
}
