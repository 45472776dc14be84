package engine

import (
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

const benchKeys = 100_000

var benchValue = make([]byte, 100)

// benchEngine returns an engine with the default layout holding n keys
// "key:0".."key:n-1" with 100-byte values, and the keys.
func benchEngine(tb testing.TB, n int) (*Engine, [][]byte) {
	tb.Helper()
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
		if _, err := d.Set(keys[i], benchValue, SetOptions{}); err != nil {
			tb.Fatal(err)
		}
	}
	return e, keys
}

func BenchmarkGet(b *testing.B) {
	e, keys := benchEngine(b, benchKeys)
	d := e.DB(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, _ := d.Get(keys[i%len(keys)]); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkGetMiss(b *testing.B) {
	e, _ := benchEngine(b, benchKeys)
	d := e.DB(0)
	key := []byte("missing:0000000")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key = strconv.AppendInt(key[:8], int64(i), 10)
		d.Get(key)
	}
}

func BenchmarkSet(b *testing.B) {
	e, keys := benchEngine(b, benchKeys)
	d := e.DB(0)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchValue)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Set(keys[i%len(keys)], benchValue, SetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetNew(b *testing.B) {
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	key := make([]byte, 0, 32)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchValue)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key = strconv.AppendInt(append(key[:0], "key:"...), int64(i), 10)
		if _, err := d.Set(key, benchValue, SetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetParallel(b *testing.B) {
	e, keys := benchEngine(b, benchKeys)
	d := e.DB(0)
	var seed atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(seed.Add(7919))
		for pb.Next() {
			i++
			if _, ok, _ := d.Get(keys[i%len(keys)]); !ok {
				b.Error("miss")
				return
			}
		}
	})
}

func BenchmarkSetParallel(b *testing.B) {
	e, keys := benchEngine(b, benchKeys)
	d := e.DB(0)
	var seed atomic.Int64
	b.ReportAllocs()
	b.SetBytes(int64(len(benchValue)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(seed.Add(7919))
		for pb.Next() {
			i++
			d.Set(keys[i%len(keys)], benchValue, SetOptions{})
		}
	})
}

func BenchmarkSetNewParallel(b *testing.B) {
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	var next atomic.Int64
	b.ReportAllocs()
	b.SetBytes(int64(len(benchValue)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		key := make([]byte, 0, 32)
		for pb.Next() {
			key = strconv.AppendInt(append(key[:0], "key:"...), next.Add(1), 10)
			d.Set(key, benchValue, SetOptions{})
		}
	})
}

// BenchmarkMemoryPerKey loads 1,000,000 keys "key:%d" with 100-byte values
// into a fresh engine and reports what they cost: the engine's own
// accounting, the Go heap actually held, heap objects, and the time of a
// full GC over the loaded keyspace (the GC's work should not grow with
// pointers per key). Run with -benchtime=1x: one load is the measurement.
func BenchmarkMemoryPerKey(b *testing.B) {
	const n = 1_000_000
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var e *Engine
		var d DB
		f := measureHeap(b, func() {
			e = New(Options{Clock: NewManualClock(t0)})
			d = e.DB(0)
			key := make([]byte, 0, 32)
			for k := 0; k < n; k++ {
				key = strconv.AppendInt(append(key[:0], "key:"...), int64(k), 10)
				if _, err := d.Set(key, benchValue, SetOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		if d.Size() != n {
			b.Fatalf("size %d", d.Size())
		}
		b.ReportMetric(float64(e.UsedMemory())/n, "accounted-B/key")
		b.ReportMetric(float64(f.heapBytes)/n, "heap-B/key")
		b.ReportMetric(float64(f.objects)/n, "objects/key")
		b.ReportMetric(float64(f.gcTime.Microseconds())/1000, "gc-ms")
		b.ReportMetric(float64(f.gcPauseNs)/1000, "gc-stw-µs")
		runtime.KeepAlive(e)
		b.StartTimer()
	}
}

// heapFootprint is what a load left live on the heap, and what one full
// GC over it cost.
type heapFootprint struct {
	heapBytes, objects int64
	gcTime             time.Duration
	gcPauseNs          uint64 // that GC's stop-the-world pause
}

// measureHeap runs load with the benchmark timer on, between two readings
// of a collected heap, and returns the heap's growth and the cost of one
// more full GC. The timer is stopped when it returns.
func measureHeap(b *testing.B, load func()) heapFootprint {
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.StartTimer()
	load()
	b.StopTimer()
	runtime.GC() // drop the garbage of growing slices and maps
	gcStart := time.Now()
	runtime.GC()
	gcTime := time.Since(gcStart)
	runtime.ReadMemStats(&after)
	return heapFootprint{
		heapBytes: int64(after.HeapAlloc) - int64(before.HeapAlloc),
		objects:   int64(after.HeapObjects) - int64(before.HeapObjects),
		gcTime:    gcTime,
		gcPauseNs: after.PauseNs[(after.NumGC+255)%256],
	}
}

// BenchmarkSet20KB overwrites 20 KB values: records of their own
// (writeRecord's bytes.Join path).
func BenchmarkSet20KB(b *testing.B) {
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	value := make([]byte, 20<<10)
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
		d.Set(keys[i], value, SetOptions{})
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(value)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Set(keys[i%len(keys)], value, SetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
