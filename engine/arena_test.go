package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// A random mix of writes of every record shape (small, big, with and
// without expiry, flags and CAS) against a model: every value reads back,
// and the bookkeeping (checkInvariants: live + dead = fill, accounting,
// index) holds while compactions and slot packing run underneath.
func TestArenaChurnAgainstModel(t *testing.T) {
	for _, limit := range []int{maxChunks, 3} {
		t.Run(fmt.Sprint("chunks=", limit), func(t *testing.T) {
			defer func(l int) { chunkLimit = l }(chunkLimit)
			chunkLimit = limit // 3: most records spill into their own allocations
			e, clock := newTestEngine(t, 1)
			d := e.DB(0)
			mc := d
			mc.TrackCAS = true
			rng := rand.New(rand.NewPCG(1, 2))
			model := map[string]string{}
			for step := 0; step < 20000; step++ {
				k := fmt.Sprint("k", rng.IntN(300))
				switch op := rng.IntN(10); {
				case op < 5:
					n := rng.IntN(60)
					if rng.IntN(10) == 0 {
						n = bigMin + rng.IntN(3000)
					}
					v := bytes.Repeat([]byte{byte('a' + step%26)}, n)
					o := SetOptions{}
					if rng.IntN(3) == 0 {
						o = SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + 1_000_000, Flags: uint32(step)}
					}
					db := d
					if rng.IntN(2) == 0 {
						db = mc
					}
					if _, err := db.Set([]byte(k), v, o); err != nil {
						t.Fatal(err)
					}
					model[k] = string(v)
				case op < 7:
					d.Delete([]byte(k))
					delete(model, k)
				case op < 8:
					if _, ok := model[k]; ok {
						d.Expire([]byte(k), clock.NowMs()+int64(1000+rng.IntN(1000)), 0)
					}
				case op < 9:
					d.Persist([]byte(k))
				default:
					if _, err := d.Append([]byte(k), []byte("+"), AppendOptions{}, 0); err != nil {
						t.Fatal(err)
					}
					model[k] += "+"
				}
				if step%1000 == 999 {
					checkInvariants(t, e)
					for mk, mv := range model {
						if got := getString(t, d, mk); got != mv {
							t.Fatalf("step %d: %s = %q, model %q", step, mk, got, mv)
						}
					}
					if d.Size() != len(model) {
						t.Fatalf("step %d: %d keys, model %d", step, d.Size(), len(model))
					}
				}
			}
			// Far more bytes died than any shard holds: compaction keeps
			// the dead space within its threshold.
			bigs := 0
			for i := range e.shards {
				s := &e.shards[i]
				if s.dead >= compactMinDead && 2*s.dead >= s.arenaUsed {
					t.Errorf("shard %d: %d dead bytes of %d", i, s.dead, s.arenaUsed)
				}
				bigs += len(s.bigs) - len(s.bigFree)
				if len(s.chunks) > chunkLimit {
					t.Errorf("shard %d: %d chunks, limit %d", i, len(s.chunks), chunkLimit)
				}
			}
			if limit == 3 && bigs < len(model)/2 {
				t.Errorf("%d big records for %d keys beyond the chunk limit", bigs, len(model))
			}
		})
	}
}

// Values handed out stay as they were while their records die and the
// arena is compacted under them.
func TestArenaValuesOutliveCompaction(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	mustSet(t, d, "keep", "original", SetOptions{})
	it, _, _ := d.Get([]byte("keep"))
	for i := 0; i < 2000; i++ {
		mustSet(t, d, "keep", fmt.Sprint("overwrite-", i), SetOptions{})
	}
	s, _ := d.shardOf([]byte("keep"))
	if s.arenaUsed > 4096 {
		t.Fatalf("2000 overwrites left %d bytes in the arena: no compaction", s.arenaUsed)
	}
	if string(it.Value) != "original" {
		t.Fatalf("a value read before the overwrites now reads %q", it.Value)
	}
	checkInvariants(t, e)
}

// A key written through RESP has no CAS unique until something asks for
// one; once it has one, every later write gives it a new one, so memcached
// cas and WATCH see any change.
func TestLazyCAS(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	mc := d
	mc.TrackCAS = true
	k := []byte("k")
	mustSet(t, d, "k", "v1", SetOptions{})
	if info, _ := d.Info(k); info.CAS != 0 {
		t.Fatalf("a RESP write has CAS %d, want none", info.CAS)
	}
	it, _, _ := mc.Get(k)
	if it.CAS == 0 {
		t.Fatal("memcached read got no CAS unique")
	}
	if again, _, _ := mc.Get(k); again.CAS != it.CAS {
		t.Fatalf("CAS moved from %d to %d without a write", it.CAS, again.CAS)
	}
	mustSet(t, d, "k", "v2", SetOptions{})
	if info, _ := d.Info(k); info.CAS == 0 || info.CAS == it.CAS {
		t.Fatalf("after a RESP write the CAS is %d (was %d): want a new one", info.CAS, it.CAS)
	}
	if res, _ := mc.Set(k, []byte("v3"), SetOptions{Cond: CondCAS, CAS: it.CAS}); res.Stored {
		t.Fatal("cas with the unique from before a RESP write succeeded")
	}
	checkInvariants(t, e)
}

// Dead records count against maxmemory: past their allowance FreeMemory
// compacts them away, and evicts nothing while that is enough.
func TestFreeMemoryCompactsBeforeEvicting(t *testing.T) {
	e, d, _ := evictionEngine(t, AllKeysLRU)
	keys := fillEvictable(t, d, "k", 200, SetOptions{})
	for round := 0; round < 3; round++ {
		for _, k := range keys[:150] {
			// Another size each round: the old records die (a value of
			// the same size is written in place).
			mustSet(t, d, k, strings.Repeat("x", 100+round), SetOptions{})
		}
	}
	dead := e.dead.Load()
	if dead < int64(compactMinDead) {
		t.Fatalf("overwrites left only %d dead bytes", dead)
	}
	// Room for the live keys, not for the dead records beyond the
	// allowance.
	e.SetMaxMemory(e.UsedMemory() + dead/2)
	if !e.FreeMemory() {
		t.Fatal("FreeMemory failed")
	}
	if e.Stats().EvictedKeys != 0 {
		t.Errorf("%d keys evicted while compaction could make room", e.Stats().EvictedKeys)
	}
	if after := e.dead.Load(); after > e.maxMemory.Load()/deadShare {
		t.Errorf("dead bytes %d → %d, allowance %d", dead, after, e.maxMemory.Load()/deadShare)
	}
	if n := survivors(d, keys); n != len(keys) {
		t.Errorf("%d of %d keys left", n, len(keys))
	}
	checkInvariants(t, e)
}
