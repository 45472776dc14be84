package benchkit

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestBuckets(t *testing.T) {
	prevHigh := uint64(0)
	for i := 1; i < numBuckets; i++ {
		high := bucketHigh(i)
		if high <= prevHigh {
			t.Fatalf("bucket %d high %d <= bucket %d high %d", i, high, i-1, prevHigh)
		}
		if bucketOf(high) != i || bucketOf(prevHigh+1) != i {
			t.Fatalf("bucket %d: [%d, %d] maps to %d, %d", i, prevHigh+1, high, bucketOf(prevHigh+1), bucketOf(high))
		}
		// Width under 1% of the value above the linear range.
		if lo := prevHigh + 1; lo >= subBuckets && float64(high-lo) > float64(lo)/100 {
			t.Fatalf("bucket %d [%d, %d] too wide", i, lo, high)
		}
		prevHigh = high
		if high > 1<<50 {
			break
		}
	}
}

func TestPercentilesMatchASortedSample(t *testing.T) {
	var h Histogram
	rng := rand.New(rand.NewPCG(1, 2))
	sample := make([]time.Duration, 100000)
	for i := range sample {
		// Log-normal-ish: mostly ~100µs, a tail to ~100ms.
		d := time.Duration(50_000 + rng.ExpFloat64()*50_000)
		if rng.IntN(100) == 0 {
			d *= time.Duration(1 + rng.IntN(1000))
		}
		sample[i] = d
		h.Record(d)
	}
	slices.Sort(sample)
	for _, p := range []float64{50, 90, 99, 99.9, 100} {
		exact := sample[int(p/100*float64(len(sample)))-1]
		got := h.Percentile(p)
		if got < exact || float64(got-exact) > float64(exact)/100 {
			t.Errorf("p%v = %v, exact %v", p, got, exact)
		}
	}
	if h.Percentile(100) != sample[len(sample)-1] {
		t.Errorf("max = %v, want %v", h.Percentile(100), sample[len(sample)-1])
	}
	var empty Histogram
	if empty.Percentile(99) != 0 {
		t.Error("empty histogram has a p99")
	}
}
