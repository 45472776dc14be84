package engine

import (
	"fmt"
	"testing"
	"time"
)

func TestLazyExpiry(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet(t, d, "k", "v", SetOptions{TTL: TTLSet, ExpireAt: t0 + 1000})
	clock.Advance(time.Second)
	// As in Redis (keyIsExpired is now > when), the key lives through its
	// expire millisecond.
	if getString(t, d, "k") != "v" {
		t.Fatalf("key gone in its expire millisecond")
	}
	clock.Advance(time.Millisecond)
	if d.Size() != 1 {
		t.Fatalf("key reclaimed before any access")
	}
	if getString(t, d, "k") != "<nil>" {
		t.Errorf("expired key still read")
	}
	if d.Size() != 0 || d.Volatile() != 0 || e.UsedMemory() != 0 {
		t.Errorf("after the lazy reclaim: size %d volatile %d used %d", d.Size(), d.Volatile(), e.UsedMemory())
	}
	if st := e.Stats(); st.ExpiredKeys != 1 {
		t.Errorf("ExpiredKeys = %d", st.ExpiredKeys)
	}
	// Every kind of access reclaims.
	access := map[string]func(k []byte){
		"Exists":  func(k []byte) { d.Exists(k) },
		"Info":    func(k []byte) { d.Info(k) },
		"Touch":   func(k []byte) { d.Touch(k) },
		"Delete":  func(k []byte) { d.Delete(k) },
		"Persist": func(k []byte) { d.Persist(k) },
		"Expire":  func(k []byte) { d.Expire(k, t0+1e9, 0) },
		"GetEx":   func(k []byte) { d.GetEx(k, ExpireChange{}, false) },
		"Append":  func(k []byte) { d.Append(k, bs("x"), AppendOptions{MustExist: true}, 0) },
		"IncrBy":  func(k []byte) { d.IncrBy(k, 1) },
		"MGet":    func(k []byte) { d.MGet([][]byte{k}, func(int, Item, bool) {}) },
		"IncrU":   func(k []byte) { d.IncrUnsigned(k, 1, false, 0) },
	}
	for name, fn := range access {
		key := bs("x-" + name)
		mustSet(t, d, string(key), "1", SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + 10})
		clock.Advance(time.Second)
		before := e.Stats().ExpiredKeys
		fn(key)
		if e.Stats().ExpiredKeys != before+1 {
			t.Errorf("%s on an expired key did not reclaim it", name)
		}
		if name == "IncrBy" || name == "Append" {
			// These may recreate the key; that is a fresh key.
			d.Delete(key)
		}
		if d.Size() != 0 {
			t.Errorf("%s: size %d after reclaiming", name, d.Size())
		}
	}
	checkInvariants(t, e)
}

// runCyclesUntil runs active expiry cycles until cond holds or limit
// cycles have run; it returns the keys reclaimed and the cycles run.
func runCyclesUntil(e *Engine, budget time.Duration, limit int, cond func() bool) (reclaimed, cycles int) {
	for cycles < limit && !cond() {
		reclaimed += e.ActiveExpireCycle(budget)
		cycles++
	}
	return reclaimed, cycles
}

func TestActiveExpireCycleReclaimsUnreadKeys(t *testing.T) {
	for _, bits := range []int{1, 4, 10} {
		t.Run(fmt.Sprint("shardbits=", bits), func(t *testing.T) {
			e, clock := newTestEngine(t, bits)
			d := e.DB(0)
			const n = 10_000
			for i := 0; i < 1000; i++ {
				mustSet(t, d, fmt.Sprint("keep:", i), "v", SetOptions{})
			}
			keepMem := e.UsedMemory()
			var peak int64
			for i := 0; i < n; i++ {
				mustSet(t, d, fmt.Sprint("ttl:", i), "value", SetOptions{TTL: TTLSet, ExpireAt: t0 + 1000 + int64(i%500)})
			}
			if got := e.ActiveExpireCycle(time.Second); got != 0 {
				t.Fatalf("a cycle before the deadline reclaimed %d", got)
			}
			peak = e.UsedMemory()
			clock.Advance(2 * time.Second)
			reclaimed, cycles := runCyclesUntil(e, time.Second, 100_000, func() bool { return d.Size() == 1000 })
			if reclaimed != n || d.Size() != 1000 || d.Volatile() != 0 {
				t.Errorf("reclaimed %d in %d cycles, size %d volatile %d", reclaimed, cycles, d.Size(), d.Volatile())
			}
			if st := e.Stats(); st.ExpiredKeys != n || st.Hits != 0 || st.Misses != 0 {
				t.Errorf("stats %+v", st)
			}
			// The reclaimed keys' records are gone; their slots go back
			// once fewer than half are live (packSlots), so what is left
			// is the persistent keys plus at most as many free slots.
			if used := e.UsedMemory(); used > 2*keepMem || used > peak/2 {
				t.Errorf("used memory %d, persistent keys alone %d, peak %d", used, keepMem, peak)
			}
			t.Logf("%d keys over %d shards reclaimed in %d cycles", n, e.perDB, cycles)
			checkInvariants(t, e)
		})
	}
}

// A cycle that runs out of budget must resume where it stopped: shards far
// down the list (here: every shard past the first 64) must not starve
// behind the first ones.
func TestActiveExpireCycleResumesAfterBudget(t *testing.T) {
	e, clock := newTestEngine(t, 10) // 4 DBs × 1024 shards
	d := e.DB(3)                     // the last database: the end of the shard list
	const n = 2000
	for i := 0; i < n; i++ {
		mustSet(t, d, fmt.Sprint("k", i), "v", SetOptions{TTL: TTLSet, ExpireAt: t0 + 100})
	}
	clock.Advance(time.Second)
	// A zero budget runs out after the first 64 shards of every cycle.
	reclaimed, cycles := runCyclesUntil(e, 0, 10*len(e.shards), func() bool { return d.Size() == 0 })
	if reclaimed != n {
		t.Errorf("zero-budget cycles reclaimed %d of %d keys in %d cycles", reclaimed, n, cycles)
	}
}

func TestUsedMemoryReturnsToZero(t *testing.T) {
	e, clock := newTestEngine(t, 3)
	d0, d1 := e.DB(0), e.DB(1)
	if e.UsedMemory() != 0 {
		t.Fatalf("new engine uses %d", e.UsedMemory())
	}
	for i := 0; i < 500; i++ {
		v := make([]byte, i*7%3000)
		if _, err := d0.Set(keyN("k", i), v, SetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if e.UsedMemory() < 500*1000 {
		t.Errorf("500 values of 0–3000 bytes account only %d", e.UsedMemory())
	}
	for i := 0; i < 500; i += 2 {
		d0.Set(keyN("k", i), make([]byte, i%40), SetOptions{}) // shrink
		d0.Append(keyN("k", i+1), make([]byte, 100), AppendOptions{}, 0)
	}
	d0.SetRange(bs("k7"), 5000, bs("x"), 0)
	d0.IncrBy(bs("n"), 5)
	d0.IncrByFloat(bs("f"), bs("1.5"))
	d0.MSet([][]byte{bs("m1"), bs("a"), bs("m2"), make([]byte, 200)}, false)
	d0.Rename(bs("k3"), bs("renamed"), false)
	d0.Copy(bs("k5"), d1, bs("copied"), false)
	d0.Move(bs("k9"), d1)
	d0.Copy(bs("k11"), d0, bs("k13"), true) // replaces
	d0.Expire(bs("k15"), t0+10, 0)
	d0.Set(bs("gone"), bs("v"), SetOptions{TTL: TTLSet, ExpireAt: t0 + 10})
	putRaw(t, d0, bs("h"), make([]byte, 64), TypeHash)
	d0.Set(bs("h"), bs("now a string"), SetOptions{})
	checkInvariants(t, e)
	clock.Advance(time.Second)
	runCyclesUntil(e, time.Second, 1000, func() bool { return d0.Volatile() == 0 })
	// Delete every key there is.
	for _, d := range []DB{d0, d1} {
		var keys [][]byte
		d.Keys(bs("*"), func(k []byte) { keys = append(keys, append([]byte(nil), k...)) })
		if n := d.Delete(keys...); n != len(keys) {
			t.Errorf("deleted %d of %d", n, len(keys))
		}
	}
	if e.UsedMemory() != 0 {
		t.Errorf("used memory %d after deleting everything", e.UsedMemory())
	}
	checkInvariants(t, e)
}

// Every write hands out a new CAS unique; reads and failed writes do not.
func TestCASChangesOnEveryWrite(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	d.TrackCAS = true // memcached semantics: CAS uniques at once
	seen := map[uint64]string{}
	last := uint64(0)
	step := func(name string, fn func()) {
		t.Helper()
		fn()
		ki, ok := d.Info(bs("k"))
		if !ok {
			t.Fatalf("%s: key gone", name)
		}
		if prev, dup := seen[ki.CAS]; dup && prev != name {
			t.Errorf("%s: CAS %d already seen after %s", name, ki.CAS, prev)
		}
		if ki.CAS <= last {
			t.Errorf("%s: CAS %d not after %d", name, ki.CAS, last)
		}
		seen[ki.CAS] = name
		last = ki.CAS
	}
	step("Set", func() { mustSet(t, d, "k", "1", SetOptions{}) })
	step("Set same value", func() { mustSet(t, d, "k", "1", SetOptions{}) })
	step("Append", func() { d.Append(bs("k"), bs("2"), AppendOptions{}, 0) })
	step("Prepend", func() { d.Append(bs("k"), bs("3"), AppendOptions{Prepend: true}, 0) })
	step("IncrBy", func() { d.IncrBy(bs("k"), 1) })
	step("IncrBy 0", func() { d.IncrBy(bs("k"), 0) })
	step("IncrByFloat", func() { d.IncrByFloat(bs("k"), bs("1")) })
	step("SetRange", func() { d.SetRange(bs("k"), 0, bs("4"), 0) })
	step("IncrUnsigned", func() { d.IncrUnsigned(bs("k"), 1, false, 0) })
	step("MSet", func() { d.MSet([][]byte{bs("k"), bs("5")}, false) })
	step("Rename away and back", func() { d.Rename(bs("k"), bs("k2"), false); d.Rename(bs("k2"), bs("k"), false) })
	step("Copy over", func() { mustSet(t, d, "src", "6", SetOptions{}); d.Copy(bs("src"), d, bs("k"), true) })

	// Neither reads nor refused writes change it.
	ki, _ := d.Info(bs("k"))
	d.Get(bs("k"))
	d.MGet([][]byte{bs("k")}, func(int, Item, bool) {})
	d.Set(bs("k"), bs("x"), SetOptions{Cond: CondAbsent})
	d.Set(bs("k"), bs("x"), SetOptions{Cond: CondCAS, CAS: ki.CAS + 100})
	d.Append(bs("k"), bs("x"), AppendOptions{CAS: ki.CAS + 100}, 0)
	d.Append(bs("k"), bs("xxxxxxxxxx"), AppendOptions{}, 2)
	d.IncrUnsigned(bs("k"), 1, false, ki.CAS+100)
	if after, _ := d.Info(bs("k")); after.CAS != ki.CAS {
		t.Errorf("reads or refused writes changed the CAS %d → %d", ki.CAS, after.CAS)
	}
	// Two keys never share one.
	mustSet(t, d, "other", "v", SetOptions{})
	if o, _ := d.Info(bs("other")); o.CAS == ki.CAS || o.CAS == 0 {
		t.Errorf("CAS %d reused", o.CAS)
	}
}

func TestChangesCountsWrites(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	tests := []struct {
		name string
		fn   func()
		want int64
	}{
		{"set", func() { mustSet(t, d, "k", "1", SetOptions{}) }, 1},
		{"get", func() { d.Get(bs("k")) }, 0},
		{"nx refused", func() { mustSet(t, d, "k", "2", SetOptions{Cond: CondAbsent}) }, 0},
		{"xx on missing", func() { mustSet(t, d, "none", "2", SetOptions{Cond: CondPresent}) }, 0},
		{"incr", func() { d.IncrBy(bs("k"), 1) }, 1},
		{"incrbyfloat", func() { d.IncrByFloat(bs("k"), bs("0.5")) }, 1},
		{"incr on float refused", func() { d.IncrBy(bs("k"), 1) }, 0},
		{"append", func() { d.Append(bs("k"), bs("x"), AppendOptions{}, 0) }, 1},
		{"setrange empty", func() { d.SetRange(bs("k"), 0, nil, 0) }, 0},
		{"setrange", func() { d.SetRange(bs("k"), 0, bs("y"), 0) }, 1},
		{"mset 3", func() { d.MSet([][]byte{bs("a"), bs("1"), bs("b"), bs("2"), bs("c"), bs("3")}, false) }, 3},
		{"msetnx refused", func() { d.MSet([][]byte{bs("a"), bs("1"), bs("z"), bs("2")}, true) }, 0},
		{"expire", func() { d.Expire(bs("a"), t0+100_000, 0) }, 1},
		{"expire nx refused", func() { d.Expire(bs("a"), t0+200_000, ExpireNX) }, 0},
		{"persist", func() { d.Persist(bs("a")) }, 1},
		{"persist persistent", func() { d.Persist(bs("a")) }, 0},
		{"exists", func() { d.Exists(bs("a"), bs("none")) }, 0},
		{"delete 2 of 3", func() { d.Delete(bs("a"), bs("b"), bs("none")) }, 2},
		{"delete missing", func() { d.Delete(bs("none")) }, 0},
		{"lazy expiry", func() {
			mustSet(t, d, "t", "v", SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + 1})
			clock.Advance(time.Second)
			d.Get(bs("t"))
		}, 2},
		{"flush of 2 keys", func() { d.Flush() }, 2},
	}
	for _, tc := range tests {
		before := e.Changes()
		tc.fn()
		if got := e.Changes() - before; got != tc.want {
			t.Errorf("%s: %d changes, want %d", tc.name, got, tc.want)
		}
	}
}
