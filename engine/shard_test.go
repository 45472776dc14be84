package engine

import (
	"fmt"
	"hash/maphash"
	"testing"
)

// chainShard builds a shard whose keys all share one hash, so they form
// one index chain. Inserting pushes at the head: for keys a, b, c the
// chain is c → b → a.
func chainShard(h uint64, keys ...string) (*shardData, map[string]int) {
	s := &shardData{seed: maphash.MakeSeed()}
	slots := map[string]int{}
	for _, k := range keys {
		slots[k] = s.insert(h, bs(k), bs("v-"+k), TypeString, recordMeta{})
	}
	return s, slots
}

// usedBuckets counts the index buckets that head a chain.
func usedBuckets(s *shardData) int {
	n := 0
	for _, b := range s.buckets {
		if b != 0 {
			n++
		}
	}
	return n
}

func TestCollisionChainLookup(t *testing.T) {
	const h = 0xdeadbeef
	s, slots := chainShard(h, "tail", "middle", "head")
	if n := usedBuckets(s); n != 1 {
		t.Fatalf("three keys with one hash use %d buckets", n)
	}
	for k, slot := range slots {
		if got := s.lookup(bs(k), h); got != slot {
			t.Errorf("lookup %q = %d, want %d", k, got, slot)
		}
		if got := s.lookup(bs(k), h+1); got != -1 {
			t.Errorf("lookup %q under another hash = %d", k, got)
		}
	}
	if got := s.lookup(bs("absent"), h); got != -1 {
		t.Errorf("lookup of a key not in the chain = %d", got)
	}
	// A key with another hash is a separate chain.
	other := s.insert(h+1, bs("other"), nil, TypeString, recordMeta{})
	if s.lookup(bs("other"), h+1) != other || s.lookup(bs("other"), h) != -1 {
		t.Errorf("second chain broken")
	}
}

func TestCollisionChainRemove(t *testing.T) {
	const h = 77
	keys := []string{"tail", "middle", "head"}
	for _, victim := range keys {
		t.Run(victim, func(t *testing.T) {
			s, slots := chainShard(h, keys...)
			rec := s.recordBytes(&s.entries[slots[victim]])
			s.remove(slots[victim], h)
			if rec != 2+len(victim)+2+len(victim) || s.dead != int64(rec) {
				t.Errorf("record of %d bytes, dead space %d after removing it", rec, s.dead)
			}
			if s.keys != 2 {
				t.Errorf("keys = %d", s.keys)
			}
			if got := s.lookup(bs(victim), h); got != -1 {
				t.Errorf("removed %q still found in slot %d", victim, got)
			}
			for _, k := range keys {
				if k == victim {
					continue
				}
				if got := s.lookup(bs(k), h); got != slots[k] {
					t.Errorf("after removing %s: lookup %q = %d, want %d", victim, k, got, slots[k])
				}
			}
			// Remove the remaining two in turn; the index entry goes with
			// the last one.
			for _, k := range keys {
				if k != victim {
					s.remove(s.lookup(bs(k), h), h)
				}
			}
			if usedBuckets(s) != 0 || s.keys != 0 || len(s.free) != 3 {
				t.Errorf("empty chain left %d buckets, keys %d, free %d", usedBuckets(s), s.keys, len(s.free))
			}
			// Freed slots are reused.
			slot := s.insert(h, bs(victim), nil, TypeString, recordMeta{})
			if slot >= 3 || s.lookup(bs(victim), h) != slot {
				t.Errorf("reinsert into slot %d", slot)
			}
		})
	}
}

// The same through the engine: the real key sits at the head, middle or
// tail of a chain of entries forced to share its hash, and Get, Set,
// Expire and Delete must find it there and leave the others intact.
func TestCollisionThroughEngine(t *testing.T) {
	for _, pos := range []string{"head", "middle", "tail"} {
		t.Run(pos, func(t *testing.T) {
			e, clock := newTestEngine(t, 2)
			d := e.DB(0)
			s, h := d.shardOf(bs("real"))
			fake := func(name string) {
				s.mu.Lock()
				s.insert(h, bs(name), bs("fake"), TypeString, recordMeta{})
				s.mu.Unlock()
			}
			switch pos {
			case "head":
				fake("f1")
				fake("f2")
				mustSet(t, d, "real", "v", SetOptions{})
			case "middle":
				fake("f1")
				mustSet(t, d, "real", "v", SetOptions{})
				fake("f2")
			case "tail":
				mustSet(t, d, "real", "v", SetOptions{})
				fake("f1")
				fake("f2")
			}
			if getString(t, d, "real") != "v" {
				t.Fatalf("real key not found at the %s", pos)
			}
			mustSet(t, d, "real", "w", SetOptions{Cond: CondPresent})
			if getString(t, d, "real") != "w" {
				t.Errorf("overwrite at the %s failed", pos)
			}
			// Lazy expiry removes it from within the chain.
			d.Expire(bs("real"), clock.NowMs()+10, 0)
			clock.Advance(secs(1))
			if getString(t, d, "real") != "<nil>" {
				t.Errorf("expired key at the %s still read", pos)
			}
			mustSet(t, d, "real", "x", SetOptions{})
			if n := d.Delete(bs("real")); n != 1 {
				t.Errorf("Delete at the %s = %d", pos, n)
			}
			s.mu.Lock()
			for _, f := range []string{"f1", "f2"} {
				if slot := s.lookup(bs(f), h); slot < 0 || string(s.value(&s.entries[slot])) != "fake" {
					t.Errorf("%s lost after operations on the real key at the %s", f, pos)
				}
			}
			if s.lookup(bs("real"), h) != -1 {
				t.Errorf("real key still indexed")
			}
			s.mu.Unlock()
		})
	}
}

// Slots are reused after deletes, so a shard's entries do not grow without
// bound under churn.
func TestSlotReuse(t *testing.T) {
	e, _ := newTestEngine(t, 0) // ShardBits 0 means the default; use one DB's shards below
	d := e.DB(0)
	for round := 0; round < 20; round++ {
		for i := 0; i < 1000; i++ {
			mustSet(t, d, fmt.Sprint("k", i), "v", SetOptions{})
		}
		for i := 0; i < 1000; i++ {
			d.Delete(keyN("k", i))
		}
	}
	slots := 0
	for i := 0; i < e.perDB; i++ {
		slots += len(e.shards[i].entries)
	}
	if slots > 1000+e.perDB {
		t.Errorf("20 rounds of 1000 inserts and deletes left %d slots", slots)
	}
	checkInvariants(t, e)
}

// Reserve sizes shards for a coming load without costing memory before
// it, and the load then ends with the memory it would have without it.
func TestReserve(t *testing.T) {
	load := func(reserve bool) (*Engine, int64) {
		e, _ := newTestEngine(t, 4)
		d := e.DB(0)
		if reserve {
			d.Reserve(20000)
			if used := e.UsedMemory(); used != 0 {
				t.Fatalf("Reserve alone accounts %d bytes", used)
			}
		}
		for i := 0; i < 20000; i++ {
			mustSet(t, d, fmt.Sprint("key:", i), "value", SetOptions{})
		}
		return e, e.UsedMemory()
	}
	e, with := load(true)
	_, without := load(false)
	if with > without+without/50 {
		t.Errorf("loaded with Reserve: %d bytes, without: %d", with, without)
	}
	d := e.DB(0)
	for i := 0; i < 20000; i += 997 {
		if got := getString(t, d, fmt.Sprint("key:", i)); got != "value" {
			t.Fatalf("key:%d = %q", i, got)
		}
	}
	checkInvariants(t, e)
}
