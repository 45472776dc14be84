package latency

import (
	"math/rand"
	"sort"
	"testing"
)

// TestHistogramLayout checks the index math against HdrHistogram's
// definition: 2 significant digits (a counter spans at most 1/128 of its
// value past 256), counters contiguous, every value in [1, MaxValue] in
// the counter whose range holds it.
func TestHistogramLayout(t *testing.T) {
	if got := indexOf(MaxValue); got >= countsLen {
		t.Fatalf("MaxValue at index %d of %d", got, countsLen)
	}
	for i := 0; i < countsLen-1; i++ {
		lo, next := valueAt(i), valueAt(i+1)
		if next <= lo {
			t.Fatalf("index %d: value %d, next %d", i, lo, next)
		}
		if hi := highestEquivalent(lo); hi != next-1 {
			t.Fatalf("index %d: highest %d, next counter starts at %d", i, hi, next)
		}
		if lo >= 256 && (next-lo)*128 > lo {
			t.Fatalf("index %d: width %d too coarse for %d", i, next-lo, lo)
		}
	}
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 100000; n++ {
		v := 1 + r.Int63n(MaxValue)
		i := indexOf(v)
		if valueAt(i) > v || highestEquivalent(valueAt(i)) < v || lowestEquivalent(v) != valueAt(i) {
			t.Fatalf("%d at index %d [%d, %d]", v, i, valueAt(i), highestEquivalent(valueAt(i)))
		}
	}
	// Values HdrHistogram gives (Redis's INFO latencystats prints 1 µs as
	// p50=1.003, 2 µs as 2.007).
	for _, c := range []struct{ v, hi int64 }{{1, 1}, {255, 255}, {256, 257}, {1000, 1003}, {2000, 2007}, {3000, 3007},
		{10000, 10047}, {MaxValue, 1002438655}} {
		if got := highestEquivalent(c.v); got != c.hi {
			t.Errorf("highestEquivalent(%d) = %d, want %d", c.v, got, c.hi)
		}
	}
}

// TestPercentile checks Percentile against the sorted durations: the
// value at rank round(p*n) (at least 1) is in the counter reported.
func TestPercentile(t *testing.T) {
	var h Histogram
	if h.Snapshot() != nil {
		t.Fatal("an empty histogram has a snapshot")
	}
	r := rand.New(rand.NewSource(2))
	var vals []int64
	for n := 0; n < 5000; n++ {
		u := r.Int63n(3000)
		if n%50 == 0 {
			u = 2_000_000 // past 1 s: counted as 1 s
		}
		h.RecordUsec(uint8(n), u)
		vals = append(vals, min(max(u*1000, MinValue), MaxValue))
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	s := h.Snapshot()
	if s.Count() != int64(len(vals)) {
		t.Fatalf("count %d, want %d", s.Count(), len(vals))
	}
	for _, p := range []float64{0, 1, 50, 90, 99, 99.9, 100, 150} {
		rank := max(int64(min(p, 100)/100*float64(len(vals))+0.5), 1)
		want := vals[rank-1]
		got := s.Percentile(p)
		if p == 0 {
			if got != lowestEquivalent(want) {
				t.Errorf("p0 = %d, want %d", got, lowestEquivalent(want))
			}
			continue
		}
		if got != highestEquivalent(want) {
			t.Errorf("p%v = %d, want %d (value %d)", p, got, highestEquivalent(want), want)
		}
	}
	h.Reset()
	if h.Snapshot() != nil {
		t.Error("Reset left counts")
	}
}

// TestPowersOfTwo checks LATENCY HISTOGRAM's buckets: Redis's steps (the
// counter at each power of two from 1024 ns, so 1 µs, 2, 4 … 32, 65 …),
// cumulative, empty steps left out, everything in the last.
func TestPowersOfTwo(t *testing.T) {
	var h Histogram
	for _, u := range []int64{0, 1, 1, 3, 33, 100, 5_000_000} {
		h.RecordUsec(0, u)
	}
	got := h.Snapshot().PowersOfTwo()
	want := []Bucket{{1031, 3}, {4127, 4}, {33023, 5}, {132095, 6}, {1073741823, 7}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// Every step's bound is a counter's top, and counts only grow.
	h.Reset()
	r := rand.New(rand.NewSource(3))
	for n := 0; n < 20000; n++ {
		h.RecordUsec(0, r.Int63n(1_200_000))
	}
	steps := h.Snapshot().PowersOfTwo()
	for i, b := range steps {
		if highestEquivalent(b.UpperNs) != b.UpperNs || (i > 0 && (b.Cumulative <= steps[i-1].Cumulative || b.UpperNs <= steps[i-1].UpperNs)) {
			t.Fatalf("step %d: %v", i, steps)
		}
	}
	if last := steps[len(steps)-1]; last.Cumulative != 20000 {
		t.Fatalf("last step %v, want all 20000", last)
	}
}

func TestCommands(t *testing.T) {
	c := NewCommands()
	a := c.Histogram(ProtocolRESP, "get")
	if c.Histogram(ProtocolRESP, "get") != a || c.Histogram(ProtocolMemcached, "get") == a {
		t.Fatal("histograms not one per protocol and name")
	}
	a.RecordUsec(0, 5)
	c.Histogram(ProtocolMemcached, "get").RecordUsec(1, 5)
	var seen []string
	c.EachCommand(func(name, protocol string, h *Histogram) {
		if s := h.Snapshot(); s != nil {
			seen = append(seen, protocol+":"+name)
		}
	})
	if len(seen) != 2 || seen[0] != "resp:get" || seen[1] != "memcached:get" {
		t.Fatalf("seen %v", seen)
	}
	c.Reset(ProtocolRESP)
	if a.Snapshot() != nil || c.Histogram(ProtocolMemcached, "get").Snapshot() == nil {
		t.Fatal("Reset(resp) reset the wrong histograms")
	}
}

func BenchmarkRecord(b *testing.B) {
	var h Histogram
	b.RunParallel(func(pb *testing.PB) {
		var i uint8
		for pb.Next() {
			h.RecordUsec(i, 3)
			i++
		}
	})
}

func BenchmarkRecordSerial(b *testing.B) {
	var h Histogram
	for i := 0; i < b.N; i++ {
		h.RecordUsec(1, int64(i&7))
	}
}
