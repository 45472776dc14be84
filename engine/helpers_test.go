package engine

import (
	"fmt"
	"hash/maphash"
	"testing"
	"time"
)

// t0 is the manual clock's starting time in every test: a fixed unix ms.
const t0 = int64(1_700_000_000_000)

// newTestEngine returns an engine on a manual clock with few shards, so
// tests also exercise several keys per shard.
func newTestEngine(t testing.TB, shardBits int) (*Engine, *ManualClock) {
	t.Helper()
	clock := NewManualClock(t0)
	return New(Options{Clock: clock, ShardBits: shardBits, Databases: 4}), clock
}

// putRaw inserts an entry of any type through the shard internals, as the
// hash/list/set families will; used to build non-string keys for the
// wrong-type paths. The entry accounts memory like any other.
func putRaw(t testing.TB, d DB, key, value []byte, typ Type) {
	t.Helper()
	s, h := d.shardOf(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if slot := s.lookup(key, h); slot >= 0 {
		d.removeKey(s, slot, h)
	}
	v := value
	if typ != TypeString {
		v = nil
	}
	slot := s.insert(h, key, v, typ, recordMeta{})
	if typ != TypeString {
		s.setAgg(slot, typ, &testSet{members: []string{string(value)}})
	}
	s.changed(1)
}

// checkInvariants verifies the bookkeeping every operation must keep: per
// shard, the key, volatile and memory counters equal what the entries and
// the arena say, every live entry is reachable through the index under
// its own hash, every free slot is empty, the arena's fill is its live
// records plus its dead space, and the engine's used memory is the sum of
// the shards'.
func checkInvariants(t testing.TB, e *Engine) {
	t.Helper()
	var used int64
	for i := range e.shards {
		s := &e.shards[i]
		s.mu.Lock()
		keys, volatile := 0, 0
		var live, bigs int64
		mem := int64(cap(s.entries))*entrySize + int64(len(s.buckets))*bucketSize
		for slot := range s.entries {
			en := &s.entries[slot]
			if en.typ == TypeNone {
				continue
			}
			keys++
			if s.expireAt(en) != 0 {
				volatile++
			}
			if en.bits&entryBig != 0 {
				bigs++
				mem += allocSize(s.recordBytes(en))
			} else {
				live += int64(s.recordBytes(en))
			}
			if a := s.aggOf(slot); a != nil {
				mem += a.memSize()
			} else if en.typ != TypeString {
				t.Errorf("shard %d: %s key %q has no aggregate", i, en.typ, s.key(en))
			}
			h := maphash.Bytes(e.seed, s.key(en))
			if got := s.lookup(s.key(en), h); got != slot {
				t.Errorf("shard %d: key %q in slot %d, lookup finds %d", i, s.key(en), slot, got)
			}
		}
		var chunkBytes int64
		for _, c := range s.chunks {
			chunkBytes += int64(len(c))
		}
		if chunkBytes != s.arenaCap || s.arenaUsed > s.arenaCap {
			t.Errorf("shard %d: chunks of %d bytes, arenaCap %d, filled %d", i, chunkBytes, s.arenaCap, s.arenaUsed)
		}
		mem += live
		if live+s.dead != s.arenaUsed {
			t.Errorf("shard %d: live records %d + dead %d != arena fill %d", i, live, s.dead, s.arenaUsed)
		}
		if n := int64(len(s.bigs) - len(s.bigFree)); n != bigs {
			t.Errorf("shard %d: %d big records held, %d entries say big", i, n, bigs)
		}
		for _, f := range s.free {
			if s.entries[f].typ != TypeNone {
				t.Errorf("shard %d: free slot %d holds key %q", i, f, s.key(&s.entries[f]))
			}
		}
		for slot := range s.aggs {
			if s.entries[slot].typ == TypeNone || s.entries[slot].typ == TypeString {
				t.Errorf("shard %d: aggregate left at slot %d of a %s entry", i, slot, s.entries[slot].typ)
			}
		}
		if keys+len(s.free) != len(s.entries) {
			t.Errorf("shard %d: %d live + %d free != %d slots", i, keys, len(s.free), len(s.entries))
		}
		if keys != s.keys {
			t.Errorf("shard %d: keys counter %d, entries %d", i, s.keys, keys)
		}
		if volatile != s.volatile {
			t.Errorf("shard %d: volatile counter %d, entries %d", i, s.volatile, volatile)
		}
		if mem != s.mem {
			t.Errorf("shard %d: mem counter %d, structures %d", i, s.mem, mem)
		}
		used += s.mem
		s.mu.Unlock()
	}
	if got := e.UsedMemoryExact(); got != used {
		t.Errorf("UsedMemoryExact %d, sum of shards %d", got, used)
	}
	if got, slack := e.UsedMemory(), int64(len(e.shards))*e.sumStep.Load(); got < used-slack || got > used+slack {
		t.Errorf("UsedMemory %d, sum of shards %d: more than %d apart", got, used, slack)
	}
	for db := 0; db < e.databases; db++ {
		n := 0
		for i := db * e.perDB; i < (db+1)*e.perDB; i++ {
			n += e.shards[i].keys
		}
		if got := e.DB(db).Size(); got != n {
			t.Errorf("db %d: Size %d, shards hold %d keys", db, got, n)
		}
	}
}

// bs is shorthand for a byte slice.
func bs(s string) []byte { return []byte(s) }

// mustSet writes a plain string or fails the test.
func mustSet(t testing.TB, d DB, key, value string, o SetOptions) SetResult {
	t.Helper()
	res, err := d.Set(bs(key), bs(value), o)
	if err != nil {
		t.Fatalf("Set %q: %v", key, err)
	}
	return res
}

// getString returns the value at key, or "<nil>" when missing.
func getString(t testing.TB, d DB, key string) string {
	t.Helper()
	it, ok, err := d.Get(bs(key))
	if err != nil {
		t.Fatalf("Get %q: %v", key, err)
	}
	if !ok {
		return "<nil>"
	}
	return string(it.Value)
}

// expireOf returns the key's expiry (0 = none, -1 = missing).
func expireOf(d DB, key string) int64 {
	ki, ok := d.Info(bs(key))
	if !ok {
		return -1
	}
	return ki.ExpireAt
}

func secs(n int) time.Duration { return time.Duration(n) * time.Second }

func keyN(prefix string, i int) []byte { return []byte(fmt.Sprintf("%s%d", prefix, i)) }
