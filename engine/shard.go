package engine

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"sync"
)

// shard is one lock's worth of keyspace. All methods of shardData assume
// the shard's mutex is held.
type shard struct {
	mu sync.Mutex
	shardData
	waiters map[string]*waitQueue // clients blocked on keys of this shard (blocking.go)
	id      int                   // global shard index
	snap    *snapshot             // a snapshot that has not captured this shard yet (snapshot.go)
}

// lock locks the shard, first capturing it for a snapshot in progress that
// has not seen it yet (snapshot.go). Every shard lock of the engine's code
// goes through here, but for lockNoCapture's two (tests may lock mu
// directly).
func (s *shard) lock() {
	s.mu.Lock()
	if s.snap != nil {
		s.capture()
	}
}

// lockNoCapture locks the shard without the snapshot check, for the
// snapshot's own bookkeeping only (Engine.Snapshot): at the barrier, where
// this lock is what marks the shard pending, and after the walk, when every
// shard has been captured and is only unfrozen. Neither is an access that
// a capture must come before, and only one snapshot runs at a time, so
// s.snap is nil both times: the check in lock would never fire, and
// leaving it out says these locks are not keyspace accesses.
func (s *shard) lockNoCapture() { s.mu.Lock() }

// unlock unlocks the shard, and may first repack or reset it: it gives
// back the memory of slots most keys have left, so an empty shard drops
// everything (reset) and one with under half of its slots live packs its
// entries into the lowest slots (packSlots), which moves keys. Done here,
// where no operation holds slots or entry pointers any more: a slot number
// or *entry taken under the lock is stale after unlock.
func (s *shard) unlock() {
	if s.streamDropped {
		if len(s.waiters) > 0 {
			s.serveDroppedStreams()
		}
		s.streamDropped = false
	}
	if s.keys == 0 {
		if s.mem != 0 {
			s.reset()
		}
	} else if len(s.entries) >= 64 && s.keys < len(s.entries)/2 {
		s.packSlots()
	}
	s.origin, s.own = 0, false
	s.mu.Unlock()
}

// shardData is everything SWAPDB exchanges between two databases' shards.
//
// The index is a table of buckets, each the head of a chain of entries
// through entry.next, that doubles when it holds two keys a bucket: about
// 2.7 bytes a key, with no pointer, where a Go map of hash to slot costs
// some 40.
type shardData struct {
	arena
	buckets  []uint32             // slot+1 of the first entry whose hash falls in the bucket; 0 = none
	entries  []entry              // by slot
	aggs     map[uint32]aggregate // slot → value, for non-string entries (aggregate.go)
	free     []uint32             // reusable slots
	keys     int                  // live entries (possibly expired but not yet reclaimed)
	volatile int                  // entries with an expiry
	mem      int64                // accounted bytes of this shard
	sweep    uint32               // next slot the active expiry cycle looks at
	comp     compStats            // compressed values (compress.go)
	// frozen: a snapshot has captured this data and not finished reading
	// it, so records must not change in place (arena.go).
	frozen bool
	// arena bookkeeping (arena.go)
	bigFree                   []uint32 // free indexes in bigs
	chunkFill                 int      // bytes used of the last chunk
	chunkWant                 int64    // during a compaction: the bytes it will copy
	sizeHint                  int      // keys to size for at the next insert (DB.Reserve)
	arenaCap, arenaUsed, dead int64    // chunk bytes allocated, filled, and filled by dead records
	// watched holds the keys clients WATCH, with a generation that every
	// creation and removal of the key, and every change of its expiry,
	// bumps (watch.go); nil when none. It belongs to the shard's database,
	// not to its data: SWAPDB and flushes leave it in place.
	watched map[string]*watchedGen

	// tally is the shard's part of the engine's counters (tally.go): flows
	// into the engine's totals, which SWAPDB may exchange with the data.
	tally tally
	// eng is the engine whose counters the shard adds to; nil for data
	// outside an engine. It is the shard's only pointer when empty: the
	// GC follows it in each of some 16K shards at every cycle.
	eng *Engine
	// db is the shard's database, whose key count addKeys keeps. It
	// belongs to the shard, not its data: SWAPDB puts it back and swaps
	// the counts.
	db   int
	seed maphash.Seed // the engine's hash seed, to rehash keys as the index grows
	// streamDropped: a stream left a slot (removed, replaced) under the
	// current lock; unlock then answers the XREADGROUP clients blocked on
	// keys that are no longer streams (blocking.go).
	streamDropped bool
	// origin is the connection whose operation holds the shard's lock,
	// for the change hook (track.go); 0 when none or unknown.
	origin uint64
	// own: the operation holding the lock is this server's, not its
	// master's (DB.FromMaster); a replica remembers the expiries its own
	// writes set (replica_expire.go).
	own bool
}

// account adds delta to the shard's and the engine's used memory.
func (s *shardData) account(delta int64) {
	s.mem += delta
	if s.eng != nil {
		s.tally.used = s.eng.spread(&s.eng.used, s.tally.used+delta)
	}
}

// bucketTag is the part of a key's hash entry.tag keeps: bits above those
// any bucket index or shard choice uses.
func bucketTag(h uint64) uint8 { return uint8(h >> 40) }

// lookup returns the slot holding key, or -1. It does not check expiry.
func (s *shardData) lookup(key []byte, h uint64) int {
	if len(s.buckets) == 0 {
		return -1
	}
	tag := bucketTag(h)
	for i := s.buckets[h&uint64(len(s.buckets)-1)]; i != 0; {
		en := &s.entries[i-1]
		if en.tag == tag && bytes.Equal(s.key(en), key) {
			return int(i - 1)
		}
		i = en.next
	}
	return -1
}

// insert stores a new entry for a key known to be absent and returns its
// slot.
func (s *shardData) insert(h uint64, key, value []byte, typ Type, m recordMeta) int {
	if s.eng != nil && (s.eng.gate.frozen() || s.eng.expiryByMaster.Load()) {
		// A pause (pause.go), or a replica waiting for its master's DEL
		// (SetExpiryByMaster), left an expired copy of the key in place.
		if old := s.lookup(key, h); old >= 0 {
			s.eng.reclaimNow(s, old, h, s.db)
		}
	}
	if s.sizeHint > 0 {
		n := s.sizeHint
		s.sizeHint = 0
		s.reserve(n)
	}
	if s.keys >= 2*len(s.buckets) {
		s.growIndex()
	}
	slot := s.newSlot()
	en := &s.entries[slot]
	*en = entry{typ: typ, tag: bucketTag(h)}
	s.writeRecord(en, false, key, value, m)
	if s.watched != nil {
		s.bumpWatched(key)
	}
	s.keyChanged(key)
	b := h & uint64(len(s.buckets)-1)
	en.next = s.buckets[b]
	s.buckets[b] = slot + 1
	s.addKeys(1)
	if m.expireAt != 0 {
		s.volatile++
		s.noteOwnExpire(key, m.expireAt)
	}
	return int(slot)
}

// newSlot returns a free slot, growing the entries by an eighth when none
// is: a shard's slack stays small, and the growth is accounted.
func (s *shardData) newSlot() uint32 {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot
	}
	n := len(s.entries)
	if n == cap(s.entries) {
		grown := make([]entry, n, n+n/8+8)
		copy(grown, s.entries)
		s.account(int64(cap(grown)-cap(s.entries)) * entrySize)
		s.entries = grown
	}
	s.entries = s.entries[:n+1]
	return uint32(n)
}

// reserve makes room for n keys in all: entries and buckets as they would
// have grown to by n inserts, at once.
func (s *shardData) reserve(n int) {
	if n > cap(s.entries) {
		grown := make([]entry, len(s.entries), n)
		copy(grown, s.entries)
		s.account(int64(cap(grown)-cap(s.entries)) * entrySize)
		s.entries = grown
	}
	size := max(len(s.buckets), 4)
	for n >= 2*size {
		size *= 2
	}
	if size > len(s.buckets) {
		s.rebuildIndex(size)
	}
}

// growIndex doubles the buckets.
func (s *shardData) growIndex() {
	s.rebuildIndex(max(2*len(s.buckets), 4))
}

// rebuildIndex rehashes every key into size buckets (a power of two).
func (s *shardData) rebuildIndex(size int) {
	s.account(int64(size-len(s.buckets)) * bucketSize)
	s.buckets = make([]uint32, size)
	mask := uint64(size - 1)
	for i := range s.entries {
		en := &s.entries[i]
		if en.typ == TypeNone {
			continue
		}
		b := maphash.Bytes(s.seed, s.key(en)) & mask
		en.next = s.buckets[b]
		s.buckets[b] = uint32(i) + 1
	}
}

// packSlots moves the live entries to the lowest slots, keeping their
// order, and shrinks the entries and the index to fit. Keys only move
// down, which is what lets SCAN (keys.go) still return every key present
// for a whole scan: it walks a shard's slots downwards.
func (s *shardData) packSlots() {
	n := 0
	var aggs map[uint32]aggregate
	if len(s.aggs) > 0 {
		aggs = make(map[uint32]aggregate, len(s.aggs))
	}
	for i := range s.entries {
		en := s.entries[i]
		if en.typ == TypeNone {
			continue
		}
		if en.typ != TypeString {
			aggs[uint32(n)] = s.aggs[uint32(i)]
		}
		s.entries[n] = en
		n++
	}
	packed := make([]entry, n, n+n/8+8)
	copy(packed, s.entries[:n])
	s.account(int64(cap(packed)-cap(s.entries)) * entrySize)
	s.entries, s.aggs, s.free, s.sweep = packed, aggs, nil, 0
	size := 4
	for 2*size < n {
		size *= 2
	}
	s.rebuildIndex(size)
}

// remove deletes the entry in slot, whose key hashes to h.
func (s *shardData) remove(slot int, h uint64) {
	if s.watched != nil {
		s.bumpWatched(s.key(&s.entries[slot]))
	}
	s.keyChanged(s.key(&s.entries[slot]))
	s.unlink(slot, h)
}

// unlink is remove for an expired entry: its reclaim is no modification
// for WATCH (a key expired when watched stays unchanged; one live when
// watched shows the change by being missing).
func (s *shardData) unlink(slot int, h uint64) {
	en := &s.entries[slot]
	p := &s.buckets[h&uint64(len(s.buckets)-1)]
	for int(*p) != slot+1 {
		p = &s.entries[*p-1].next
	}
	*p = en.next
	s.dropAgg(slot)
	s.countCompressed(en, -1)
	if s.expireAt(en) != 0 {
		s.volatile--
	}
	s.releaseRecord(en)
	*en = entry{}
	s.free = append(s.free, uint32(slot))
	s.addKeys(-1)
	s.maybeCompact(1)
}

// rewrite gives the entry in slot a new value and metadata (same key).
func (s *shardData) rewrite(slot int, value []byte, m recordMeta) {
	en := &s.entries[slot]
	old := s.expireAt(en)
	if (old != 0) != (m.expireAt != 0) {
		if m.expireAt != 0 {
			s.volatile++
		} else {
			s.volatile--
		}
	}
	s.writeRecord(en, true, s.key(en), value, m)
	s.keyChanged(s.key(en))
	if m.expireAt != old { // a TTL set anew, not one an INCR or an APPEND keeps
		s.noteOwnExpire(s.key(en), m.expireAt)
	}
	s.maybeCompact(1)
}

// setExpire changes an entry's expiry, keeping the volatile count right.
// An expiry change is a modification WATCH sees, even to the same time.
func (s *shardData) setExpire(en *entry, at int64) {
	old := s.expireAt(en)
	if (old != 0) != (at != 0) {
		if at != 0 {
			s.volatile++
		} else {
			s.volatile--
		}
	}
	if s.watched != nil {
		s.bumpWatched(s.key(en))
	}
	s.keyChanged(s.key(en))
	s.noteOwnExpire(s.key(en), at)
	if f := s.metaForWrite(en, entryHasExpire); f != nil {
		binary.LittleEndian.PutUint64(f, uint64(at))
		return
	}
	if at == 0 {
		return // no field, nothing to clear
	}
	m := s.meta(en)
	m.expireAt = at
	_, _, key, value := s.recordParts(en)
	s.writeRecord(en, true, key, value, m)
	s.maybeCompact(1)
}

// setCAS gives an entry the CAS unique cas.
func (s *shardData) setCAS(en *entry, cas uint64) {
	if f := s.metaForWrite(en, entryHasCAS); f != nil {
		binary.LittleEndian.PutUint64(f, cas)
		return
	}
	m := s.meta(en)
	m.cas = cas
	_, _, key, value := s.recordParts(en)
	s.writeRecord(en, true, key, value, m)
	s.maybeCompact(1)
}

// metaForWrite returns the optional field f of en's record to change in
// place, or nil when the record has no such field or is frozen for a
// snapshot (the caller then writes a new record).
func (s *shardData) metaForWrite(en *entry, f uint8) []byte {
	if s.frozen {
		return nil
	}
	return s.metaField(en, f)
}

// reset empties the shard.
func (s *shardData) reset() {
	s.account(-s.mem)
	s.addDead(-s.dead)
	s.addKeys(-s.keys)
	*s = shardData{watched: s.watched, tally: s.tally, eng: s.eng, db: s.db, seed: s.seed, origin: s.origin, own: s.own}
}

// addKeys changes the shard's and its database's key counts.
func (s *shardData) addKeys(n int) {
	s.keys += n
	if s.eng != nil {
		s.eng.dbKeys[s.db].Add(int64(n))
	}
}
