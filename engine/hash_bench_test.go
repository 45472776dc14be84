package engine

import (
	"runtime"
	"strconv"
	"testing"
)

// Hash benchmarks at 1K and 1M fields (both hashtables under the default
// thresholds) and, where the encoding matters, at 128 fields (a listpack).
// Fields are "field:<i>", values "value:<i>".

var benchHashLimits = HashLimits{MaxListpackEntries: 512, MaxListpackValue: 64}

var benchHashSizes = []struct {
	name string
	n    int
}{{"128", 128}, {"1K", 1_000}, {"1M", 1_000_000}}

func benchField(i int) []byte { return strconv.AppendInt([]byte("field:"), int64(i), 10) }

// benchHash returns a DB holding hash "h" of n fields, and the fields.
func benchHash(tb testing.TB, n int) (DB, [][]byte) {
	tb.Helper()
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	fields := make([][]byte, n)
	pairs := make([][]byte, 0, 2*1024)
	for i := range fields {
		fields[i] = benchField(i)
		pairs = append(pairs, fields[i], strconv.AppendInt([]byte("value:"), int64(i), 10))
		if len(pairs) == cap(pairs) || i == n-1 {
			if _, err := d.HSet([]byte("h"), pairs, benchHashLimits); err != nil {
				tb.Fatal(err)
			}
			pairs = pairs[:0]
		}
	}
	return d, fields
}

func forHashSizes(b *testing.B, fn func(b *testing.B, d DB, fields [][]byte)) {
	for _, sz := range benchHashSizes {
		b.Run(sz.name, func(b *testing.B) {
			d, fields := benchHash(b, sz.n)
			b.ReportAllocs()
			b.ResetTimer()
			fn(b, d, fields)
		})
	}
}

// BenchmarkHSet overwrites existing fields with a value of the same size
// (rewritten in place).
func BenchmarkHSet(b *testing.B) {
	key, val := []byte("h"), []byte("value:xx")
	forHashSizes(b, func(b *testing.B, d DB, fields [][]byte) {
		pair := [][]byte{nil, val}
		for i := 0; i < b.N; i++ {
			pair[0] = fields[i%len(fields)]
			d.HSet(key, pair, benchHashLimits)
		}
	})
}

// BenchmarkHSetNew adds new fields to a hash that starts at the size: the
// cost includes the table's amortized growth.
func BenchmarkHSetNew(b *testing.B) {
	key, val := []byte("h"), []byte("value")
	forHashSizes(b, func(b *testing.B, d DB, fields [][]byte) {
		pair := [][]byte{nil, val}
		f := make([]byte, 0, 32)
		for i := 0; i < b.N; i++ {
			f = strconv.AppendInt(append(f[:0], "new:"...), int64(i), 10)
			pair[0] = f
			d.HSet(key, pair, benchHashLimits)
		}
	})
}

func BenchmarkHGet(b *testing.B) {
	key := []byte("h")
	forHashSizes(b, func(b *testing.B, d DB, fields [][]byte) {
		n := 0
		get := func(v HashView) {
			if _, ok := v.Get(fields[n%len(fields)]); ok {
				n++
			}
		}
		for i := 0; i < b.N; i++ {
			d.HView(key, get)
		}
		if n != b.N {
			b.Fatalf("%d hits of %d", n, b.N)
		}
	})
}

// BenchmarkHDelHSet removes a field and puts it back.
func BenchmarkHDelHSet(b *testing.B) {
	key, val := []byte("h"), []byte("value")
	forHashSizes(b, func(b *testing.B, d DB, fields [][]byte) {
		one := [][]byte{nil}
		pair := [][]byte{nil, val}
		for i := 0; i < b.N; i++ {
			f := fields[i%len(fields)]
			one[0], pair[0] = f, f
			d.HDel(key, one)
			d.HSet(key, pair, benchHashLimits)
		}
	})
}

func BenchmarkHIncrBy(b *testing.B) {
	key := []byte("h")
	forHashSizes(b, func(b *testing.B, d DB, fields [][]byte) {
		f := []byte("counter")
		for i := 0; i < b.N; i++ {
			if _, err := d.HIncrBy(key, f, 1, benchHashLimits); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHGetAll walks the whole hash (1K and 128 fields only).
func BenchmarkHGetAll(b *testing.B) {
	key := []byte("h")
	for _, sz := range benchHashSizes[:2] {
		b.Run(sz.name, func(b *testing.B) {
			d, _ := benchHash(b, sz.n)
			b.ReportAllocs()
			b.ResetTimer()
			total := 0
			each := func(f, v []byte) { total += len(f) + len(v) }
			view := func(v HashView) { v.Each(each) }
			for i := 0; i < b.N; i++ {
				d.HView(key, view)
			}
		})
	}
}

// BenchmarkHScan is one HSCAN call of COUNT 10, the cursor carried on.
func BenchmarkHScan(b *testing.B) {
	key := []byte("h")
	forHashSizes(b, func(b *testing.B, d DB, _ [][]byte) {
		var cursor uint64
		seen := 0
		emit := func(_, _ []byte) { seen++ }
		view := func(v HashView) { cursor = v.Scan(cursor, 10, nil, emit) }
		for i := 0; i < b.N; i++ {
			d.HView(key, view)
		}
	})
}

// BenchmarkHRandField draws 10 fields with repetition (HRANDFIELD h -10).
func BenchmarkHRandField(b *testing.B) {
	key := []byte("h")
	forHashSizes(b, func(b *testing.B, d DB, _ [][]byte) {
		n := 0
		emit := func(_, _ []byte) bool { n++; return true }
		view := func(v HashView) { v.RandomRepeat(10, emit) }
		for i := 0; i < b.N; i++ {
			d.HView(key, view)
		}
	})
}

// BenchmarkHashMemory loads one hash of 1,000,000 fields "field:<i>" with
// values "value:<i>" and reports its cost per field: the engine's
// accounting, the Go heap actually held, heap objects, and a full GC's
// time. redis-server 7.0.15 holds the same hash in about 72 bytes per
// field of used_memory (see docs/benchmarks-history.md). Run with -benchtime=1x.
func BenchmarkHashMemory(b *testing.B) {
	const n = 1_000_000
	for i := 0; i < b.N; i++ {
		var e *Engine
		var d DB
		var key []byte
		f := measureHeap(b, func() {
			e = New(Options{Clock: NewManualClock(t0)})
			d = e.DB(0)
			key = []byte("h")
			pair := make([][]byte, 2)
			for k := 0; k < n; k++ {
				pair[0] = strconv.AppendInt(append(pair[0][:0], "field:"...), int64(k), 10)
				pair[1] = strconv.AppendInt(append(pair[1][:0], "value:"...), int64(k), 10)
				if _, err := d.HSet(key, pair, benchHashLimits); err != nil {
					b.Fatal(err)
				}
			}
		})
		var length int
		d.HView(key, func(v HashView) { length = v.Len() })
		if length != n {
			b.Fatalf("length %d", length)
		}
		b.ReportMetric(float64(e.UsedMemory())/n, "accounted-B/field")
		b.ReportMetric(float64(f.heapBytes)/n, "heap-B/field")
		b.ReportMetric(float64(f.objects), "objects")
		b.ReportMetric(float64(f.gcTime.Microseconds())/1000, "gc-ms")
		runtime.KeepAlive(e)
		b.StartTimer()
	}
}
