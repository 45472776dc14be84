package engine

import (
	"bytes"
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

// shardData is everything SWAPDB exchanges between two databases' shards.
type shardData struct {
	index    map[uint64]uint32 // key hash -> slot of the first entry with that hash
	entries  []entry
	aggs     map[uint32]aggregate // slot → value, for non-string entries (aggregate.go)
	free     []uint32             // reusable slots
	keys     int                  // live entries (possibly expired but not yet reclaimed)
	volatile int                  // entries with an expiry
	mem      int64                // accounted bytes of this shard's entries
	sweep    uint32               // next slot the active expiry cycle looks at
	comp     compStats            // compressed values (compress.go)
	// watched holds the keys clients WATCH, with a generation that every
	// creation and removal of the key bumps (watch.go); nil when none.
	// It belongs to the shard's database, not to its data: SWAPDB and
	// flushes leave it in place.
	watched map[string]*watchedGen
}

// lookup returns the slot holding key, or -1. It does not check expiry.
func (s *shardData) lookup(key []byte, h uint64) int {
	slot, ok := s.index[h]
	if !ok {
		return -1
	}
	for {
		en := &s.entries[slot]
		if bytes.Equal(en.key(), key) {
			return int(slot)
		}
		if en.next == 0 {
			return -1
		}
		slot = en.next - 1
	}
}

// isExpired reports whether the entry's time has passed.
func (en *entry) isExpired(now int64) bool {
	// Redis's keyIsExpired: a key is still there in its expire millisecond.
	return en.expireAt != 0 && now > en.expireAt
}

// insert stores a new entry for a key known to be absent and returns its
// slot. kv must hold the key followed by the value and is kept as is.
func (s *shardData) insert(h uint64, kv []byte, keyLen int, typ Type) int {
	if s.index == nil {
		s.index = make(map[uint64]uint32)
	}
	var slot uint32
	if n := len(s.free); n > 0 {
		slot = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		slot = uint32(len(s.entries))
		s.entries = append(s.entries, entry{})
	}
	en := &s.entries[slot]
	*en = entry{kv: kv, keyLen: uint32(keyLen), typ: typ}
	if s.watched != nil {
		s.bumpWatched(kv[:keyLen])
	}
	if head, ok := s.index[h]; ok {
		en.next = head + 1
	}
	s.index[h] = slot
	s.keys++
	s.mem += memOf(len(kv))
	return int(slot)
}

// remove deletes the entry in slot, whose key hashes to h, and returns the
// memory it accounted for.
func (s *shardData) remove(slot int, h uint64) int64 {
	if s.watched != nil {
		s.bumpWatched(s.entries[slot].key())
	}
	return s.unlink(slot, h)
}

// unlink is remove for an expired entry: its reclaim is no modification
// for WATCH (a key expired when watched stays unchanged; one live when
// watched shows the change by being missing).
func (s *shardData) unlink(slot int, h uint64) int64 {
	en := &s.entries[slot]
	head := s.index[h]
	if int(head) == slot {
		if en.next == 0 {
			delete(s.index, h)
		} else {
			s.index[h] = en.next - 1
		}
	} else {
		prev := &s.entries[head]
		for int(prev.next-1) != slot {
			prev = &s.entries[prev.next-1]
		}
		prev.next = en.next
	}
	aggFreed := -s.dropAgg(slot) // already taken off s.mem
	s.countCompressed(en, -1)
	freed := memOf(len(en.kv))
	if en.expireAt != 0 {
		s.volatile--
	}
	*en = entry{}
	s.free = append(s.free, uint32(slot))
	s.keys--
	s.mem -= freed
	return freed + aggFreed
}

// replaceKV swaps the entry's key+value allocation and returns the change
// in accounted memory.
func (s *shardData) replaceKV(slot int, kv []byte) int64 {
	en := &s.entries[slot]
	delta := memOf(len(kv)) - memOf(len(en.kv))
	s.countCompressed(en, -1) // the caller sets enc (codec bits) anew
	en.enc &^= encCodecMask
	en.kv = kv
	s.mem += delta
	return delta
}

// setExpire changes an entry's expiry, keeping the volatile count right.
func (s *shardData) setExpire(en *entry, at int64) {
	if (en.expireAt != 0) != (at != 0) {
		if at != 0 {
			s.volatile++
		} else {
			s.volatile--
		}
	}
	en.expireAt = at
	en.ttlGen = en.ttlGen&entryFetched | (en.ttlGen+1)&^entryFetched // the counter's 15 bits
}

// reset empties the shard and returns the memory it accounted for.
func (s *shardData) reset() int64 {
	freed := s.mem
	*s = shardData{watched: s.watched}
	return freed
}

// joinKV makes the single allocation an entry holds.
func joinKV(key, value []byte) []byte {
	kv := make([]byte, len(key)+len(value))
	copy(kv, key)
	copy(kv[len(key):], value)
	return kv
}
