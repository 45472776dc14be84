package metrics

import (
	"testing"

	"github.com/tandemkv/tandem/latency"
)

// TestLatencyBuckets: the tracked histogram's counters land in the first
// fixed bound at or above them, cumulatively, with the count and a sum
// within the counters' 1 % resolution.
func TestLatencyBuckets(t *testing.T) {
	var h latency.Histogram
	for _, usec := range []int64{1, 1, 3, 700, 5000, 500_000} {
		h.RecordUsec(0, usec)
	}
	count, sum, buckets := latencyBuckets(h.Snapshot())
	if count != 6 {
		t.Fatalf("count %d, want 6", count)
	}
	if want := (1 + 1 + 3 + 700 + 5000 + 500_000) / 1e6; sum < want || sum > want*1.01 {
		t.Errorf("sum %v, want %v within 1 %%", sum, want)
	}
	for _, c := range []struct {
		bound float64
		cum   uint64
	}{
		{1e-6, 0}, // 1 µs is recorded as up to 1.003 µs: the next bound
		{2e-6, 2},
		{4e-6, 3},
		{1.024e-3, 4},
		{8.192e-3, 5},
		{0.262144, 5},
		{0.524288, 6},
	} {
		if got := buckets[c.bound]; got != c.cum {
			t.Errorf("bucket %v: %d, want %d", c.bound, got, c.cum)
		}
	}
}
