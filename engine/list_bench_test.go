package engine

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
)

// List benchmarks at 1K and 1M elements: pushes and pops at both ends keep
// the length steady, so each size is measured as it is; reads walk a list
// of that size. Elements are 16 bytes.

var listBenchSizes = []int{1_000, 1_000_000}

func listBenchElem(i int) []byte { return fmt.Appendf(nil, "element-%08d", i) }

// benchList returns a DB holding list "l" of n elements.
func benchList(b *testing.B, n int) DB {
	b.Helper()
	e := New(Options{Clock: NewManualClock(t0), ShardBits: 4})
	d := e.DB(0)
	batch := make([][]byte, 0, 1000)
	for i := 0; i < n; i++ {
		batch = append(batch, listBenchElem(i))
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := d.LPushEnd([]byte("l"), ListRight, batch, false); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return d
}

func forListSizes(b *testing.B, fn func(b *testing.B, d DB, n int)) {
	for _, n := range listBenchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			d := benchList(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			fn(b, d, n)
		})
	}
}

// BenchmarkListPushPop is LPUSH then RPOP (a queue through the list).
func BenchmarkListPushPop(b *testing.B) {
	key, v := []byte("l"), [][]byte{listBenchElem(0)}
	sink := func(int, int, []byte) {}
	forListSizes(b, func(b *testing.B, d DB, n int) {
		for i := 0; i < b.N; i++ {
			d.LPushEnd(key, ListLeft, v, false)
			d.LPopEnd(key, ListRight, 1, sink)
		}
	})
}

// BenchmarkListLPush is LPUSH alone (the list grows by b.N).
func BenchmarkListLPush(b *testing.B) {
	key, v := []byte("l"), [][]byte{listBenchElem(0)}
	forListSizes(b, func(b *testing.B, d DB, n int) {
		for i := 0; i < b.N; i++ {
			d.LPushEnd(key, ListLeft, v, false)
		}
	})
}

// BenchmarkListLPop is LPOP alone, refilling with RPUSH outside the timer
// when the list runs low.
func BenchmarkListLPop(b *testing.B) {
	key := []byte("l")
	sink := func(int, int, []byte) {}
	forListSizes(b, func(b *testing.B, d DB, n int) {
		left := n
		for i := 0; i < b.N; i++ {
			if left == 0 {
				b.StopTimer()
				d = benchList(b, n)
				left = n
				b.StartTimer()
			}
			d.LPopEnd(key, ListLeft, 1, sink)
			left--
		}
	})
}

// BenchmarkListRange is LRANGE of 100 elements from the middle.
func BenchmarkListRange(b *testing.B) {
	key := []byte("l")
	total := 0
	visit := func(_, _ int, v []byte) { total += len(v) }
	forListSizes(b, func(b *testing.B, d DB, n int) {
		for i := 0; i < b.N; i++ {
			d.LRange(key, int64(n/2), int64(n/2+99), visit)
		}
	})
}

// BenchmarkListIndex is LINDEX at random-ish positions.
func BenchmarkListIndex(b *testing.B) {
	key := []byte("l")
	visit := func([]byte) {}
	forListSizes(b, func(b *testing.B, d DB, n int) {
		for i := 0; i < b.N; i++ {
			d.LIndex(key, int64((i*7919)%n), visit)
		}
	})
}

// BenchmarkListMemory reports the accounted and the heap bytes per element
// of a 1M-element list of 16-byte elements.
func BenchmarkListMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var d DB
		f := measureHeap(b, func() { d = benchList(b, 1_000_000) })
		b.ReportMetric(float64(d.e.UsedMemory())/1e6, "accounted-B/elem")
		b.ReportMetric(float64(f.heapBytes)/1e6, "heap-B/elem")
		runtime.KeepAlive(d)
		b.StartTimer()
	}
}
