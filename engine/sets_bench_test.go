package engine

import (
	"runtime"
	"strconv"
	"testing"
)

// Set benchmarks at 1K and 1M members (go test -bench Set -benchmem).
// Members are "member:%d" (a hashtable); SIsMemberIntset uses an intset of
// 512 integers, the default limit.

type setDiscardSink struct{ n int }

func (d *setDiscardSink) Member(m []byte)   { d.n++ }
func (d *setDiscardSink) IntMember(v int64) { d.n++ }

var setBenchSizes = []struct {
	name string
	n    int
}{{"1K", 1_000}, {"1M", 1_000_000}}

func setBenchMember(i int) []byte { return strconv.AppendInt([]byte("member:"), int64(i), 10) }

// setBenchDB returns a DB holding key "s" with n members.
func setBenchDB(b *testing.B, key string, n int) DB {
	b.Helper()
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	batch := make([][]byte, 0, 1024)
	for i := 0; i < n; i++ {
		batch = append(batch, setBenchMember(i))
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := d.SAdd([]byte(key), batch, defSetLimits); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return d
}

func eachSetSize(b *testing.B, fn func(b *testing.B, n int, d DB)) {
	for _, sz := range setBenchSizes {
		b.Run(sz.name, func(b *testing.B) {
			d := setBenchDB(b, "s", sz.n)
			b.ReportAllocs()
			b.ResetTimer()
			fn(b, sz.n, d)
		})
	}
}

// BenchmarkSetAddRemove adds a new member and removes it: SADD and SREM
// at a constant size.
func BenchmarkSetAddRemove(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		key := []byte("s")
		m := [][]byte{[]byte("transient-member")}
		for i := 0; i < b.N; i++ {
			d.SAdd(key, m, defSetLimits)
			d.SRem(key, m)
		}
	})
}

// BenchmarkSetAddExisting is SADD of a member already there.
func BenchmarkSetAddExisting(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		key := []byte("s")
		ms := make([][][]byte, 1024)
		for i := range ms {
			ms[i] = [][]byte{setBenchMember(i * 7919 % n)}
		}
		for i := 0; i < b.N; i++ {
			d.SAdd(key, ms[i&1023], defSetLimits)
		}
	})
}

func BenchmarkSetIsMember(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		key := []byte("s")
		ms := make([][]byte, 1024)
		for i := range ms {
			ms[i] = setBenchMember(i * 7919 % n)
		}
		for i := 0; i < b.N; i++ {
			if ok, _ := d.SIsMember(key, ms[i&1023]); !ok {
				b.Fatal("not a member")
			}
		}
	})
}

func BenchmarkSetIsMemberIntset(b *testing.B) {
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	var ms [][]byte
	for i := 0; i < 512; i++ {
		ms = append(ms, strconv.AppendInt(nil, int64(i*1000), 10))
	}
	d.SAdd([]byte("i"), ms, defSetLimits)
	if setEncodingOf(d, "i") != "intset" {
		b.Fatal("not an intset")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.SIsMember([]byte("i"), ms[i&511])
	}
}

func BenchmarkSetMembers(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		var sink setDiscardSink
		for i := 0; i < b.N; i++ {
			d.SMembers([]byte("s"), &sink)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/member")
	})
}

func BenchmarkSetRandMember(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		buf := make([]byte, 0, 64)
		for i := 0; i < b.N; i++ {
			d.SRandMember([]byte("s"), buf[:0])
		}
	})
}

func BenchmarkSetRandMembers10(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		var sink setDiscardSink
		for i := 0; i < b.N; i++ {
			d.SRandMembers([]byte("s"), 10, &sink)
		}
	})
}

// BenchmarkSetPopAdd pops a random member and puts it back.
func BenchmarkSetPopAdd(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		key := []byte("s")
		buf := make([]byte, 0, 64)
		m := make([][]byte, 1)
		for i := 0; i < b.N; i++ {
			got, _, _ := d.SPopOne(key, buf[:0])
			m[0] = got
			d.SAdd(key, m, defSetLimits)
		}
	})
}

// BenchmarkSetInter intersects the set with a same-sized one sharing half
// of its members.
func BenchmarkSetInter(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		batch := make([][]byte, 0, n)
		for i := n / 2; i < n+n/2; i++ {
			batch = append(batch, setBenchMember(i))
		}
		d.SAdd([]byte("t"), batch, defSetLimits)
		b.ResetTimer()
		var sink setDiscardSink
		for i := 0; i < b.N; i++ {
			sink.n = 0
			d.SCombine(SetInter, [][]byte{[]byte("s"), []byte("t")}, defSetLimits, &sink)
		}
		if sink.n != n/2 {
			b.Fatalf("intersection of %d", sink.n)
		}
	})
}

// BenchmarkSetScan10 is SSCAN COUNT 10 over the whole set, round and round.
func BenchmarkSetScan10(b *testing.B) {
	eachSetSize(b, func(b *testing.B, n int, d DB) {
		var sink setDiscardSink
		cursor := uint64(0)
		for i := 0; i < b.N; i++ {
			cursor, _, _ = d.SScan([]byte("s"), cursor, 10, nil, &sink)
		}
	})
}

// BenchmarkSetMemoryPerMember loads 1,000,000 members "member:%d" into one
// set and reports the engine's accounting and the Go heap held per
// member, and a full GC's time (the table is pointer-free, so it should
// not grow with the members). Run with -benchtime=1x.
func BenchmarkSetMemoryPerMember(b *testing.B) {
	const n = 1_000_000
	for i := 0; i < b.N; i++ {
		var d DB
		f := measureHeap(b, func() { d = setBenchDB(b, "s", n) })
		if c, _ := d.SCard([]byte("s")); c != n {
			b.Fatalf("card %d", c)
		}
		b.ReportMetric(float64(d.e.UsedMemory())/n, "accounted-B/member")
		b.ReportMetric(float64(f.heapBytes)/n, "heap-B/member")
		b.ReportMetric(float64(f.objects), "objects")
		b.ReportMetric(float64(f.gcTime.Microseconds())/1000, "gc-ms")
		runtime.KeepAlive(d)
		b.StartTimer()
	}
}
