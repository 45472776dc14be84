package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
)

// Sorted-set benchmarks at 1K and 1M members: the engine calls behind
// ZADD (insert and update), ZSCORE, ZRANK, ZRANGE (by index and by score,
// 10 members) and ZPOPMIN. Run with -benchmem; every operation is
// O(log n) (plus the members emitted), which the 1K/1M pairs show.

var (
	zbenchSizes = []int{1_000, 1_000_000}
	zkey        = []byte("z")
)

func zbenchMember(i int) []byte { return []byte("member:" + strconv.Itoa(i)) }

// zbenchSet returns a DB holding key "z" with n members scored 0..n-1.
func zbenchSet(b *testing.B, n int) DB {
	b.Helper()
	e := New(Options{Clock: NewManualClock(t0), ShardBits: 4})
	d := e.DB(0)
	lim := ZsetLimits{MaxListpackEntries: 128, MaxListpackValue: 64}
	batch := make([]ZMember, 0, 1000)
	for i := 0; i < n; i++ {
		batch = append(batch, ZMember{zbenchMember(i), float64(i)})
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := d.ZAdd(zkey, 0, batch, lim); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return d
}

// forZbenchSizes runs fn on a set of each size; members are 1024 of its
// members picked at random.
func forZbenchSizes(b *testing.B, fn func(b *testing.B, d DB, n int, members [][]byte)) {
	for _, n := range zbenchSizes {
		b.Run(fmt.Sprintf("%dK", n/1000), func(b *testing.B) {
			d := zbenchSet(b, n)
			r := rand.New(rand.NewPCG(1, 2))
			members := make([][]byte, 1024)
			for i := range members {
				members[i] = zbenchMember(r.IntN(n))
			}
			b.ReportAllocs()
			b.ResetTimer()
			fn(b, d, n, members)
		})
	}
}

var zbenchLim = ZsetLimits{MaxListpackEntries: 128, MaxListpackValue: 64}

// BenchmarkZAddInsert adds new members (the set grows by b.N).
func BenchmarkZAddInsert(b *testing.B) {
	forZbenchSizes(b, func(b *testing.B, d DB, n int, _ [][]byte) {
		r := rand.New(rand.NewPCG(1, 2))
		fresh := make([][]byte, b.N)
		for i := range fresh {
			fresh[i] = zbenchMember(n + i)
		}
		m := make([]ZMember, 1)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			m[0] = ZMember{fresh[i], float64(r.IntN(n))}
			d.ZAdd(zkey, 0, m, zbenchLim)
		}
	})
}

// BenchmarkZAddUpdate moves existing members to new scores.
func BenchmarkZAddUpdate(b *testing.B) {
	forZbenchSizes(b, func(b *testing.B, d DB, n int, members [][]byte) {
		r := rand.New(rand.NewPCG(3, 4))
		m := make([]ZMember, 1)
		for i := 0; i < b.N; i++ {
			m[0] = ZMember{members[i%len(members)], float64(r.IntN(n))}
			d.ZAdd(zkey, 0, m, zbenchLim)
		}
	})
}

func BenchmarkZScore(b *testing.B) {
	forZbenchSizes(b, func(b *testing.B, d DB, n int, members [][]byte) {
		for i := 0; i < b.N; i++ {
			d.ZScore(zkey, members[i%len(members)])
		}
	})
}

func BenchmarkZRank(b *testing.B) {
	forZbenchSizes(b, func(b *testing.B, d DB, n int, members [][]byte) {
		for i := 0; i < b.N; i++ {
			d.ZRank(zkey, members[i%len(members)], false)
		}
	})
}

// BenchmarkZRangeByRank reads 10 members from a random index.
func BenchmarkZRangeByRank(b *testing.B) {
	forZbenchSizes(b, func(b *testing.B, d DB, n int, _ [][]byte) {
		q := &ZRangeSpec{By: ZByRank}
		sink := 0
		begin := func(k int) {}
		emit := func(m []byte, s float64) { sink += len(m) }
		for i := 0; i < b.N; i++ {
			q.Start = int64(rand.IntN(n - 10))
			q.Stop = q.Start + 9
			d.ZRange(zkey, q, begin, emit)
		}
	})
}

// BenchmarkZRangeByScore reads 10 members from a random score on.
func BenchmarkZRangeByScore(b *testing.B) {
	forZbenchSizes(b, func(b *testing.B, d DB, n int, _ [][]byte) {
		q := &ZRangeSpec{By: ZByScore, Limit: 10}
		sink := 0
		begin := func(k int) {}
		emit := func(m []byte, s float64) { sink += len(m) }
		for i := 0; i < b.N; i++ {
			q.Score = ZScoreRange{Min: float64(rand.IntN(n)), Max: float64(n)}
			d.ZRange(zkey, q, begin, emit)
		}
	})
}

// BenchmarkZPopMinAdd pops the lowest member and adds it back at the top,
// so the set keeps its size.
func BenchmarkZPopMinAdd(b *testing.B) {
	forZbenchSizes(b, func(b *testing.B, d DB, n int, _ [][]byte) {
		keys := [][]byte{zkey}
		m := make([]ZMember, 1)
		var buf []byte
		next := float64(n)
		for i := 0; i < b.N; i++ {
			d.ZPop(keys, false, 1, func(int, int) {}, func(mb []byte, _ float64) { buf = append(buf[:0], mb...) })
			m[0] = ZMember{buf, next}
			next++
			d.ZAdd(keys[0], 0, m, zbenchLim)
		}
	})
}

// BenchmarkZsetMemory builds a 1M-member sorted set ("member:0" to
// "member:999999", scores 0 to 999999, as BenchmarkZ* use) once and
// reports what it costs per member: the engine's accounting, and the Go
// heap's growth. b.N is ignored.
func BenchmarkZsetMemory(b *testing.B) {
	var d DB
	f := measureHeap(b, func() { d = zbenchSet(b, 1_000_000) })
	b.ReportMetric(float64(d.e.UsedMemory())/1e6, "accounted-B/member")
	b.ReportMetric(float64(f.heapBytes)/1e6, "heap-B/member")
	runtime.KeepAlive(d)
}
