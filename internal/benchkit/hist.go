package benchkit

import (
	"math"
	"math/bits"
	"time"
)

// The histogram is log-linear, as HDR histograms are: values below
// 2^subBits nanoseconds have a bucket each; above, every power of two is
// split into 2^subBits buckets, so a bucket's width is under 1/128 of its
// value. Its size is fixed (~59 KB) whatever the number of samples.
const (
	subBits    = 7
	subBuckets = 1 << subBits
	numBuckets = (64 - subBits) << subBits
)

// Histogram counts latencies in nanoseconds: HDR-style, fixed memory,
// any number of samples, percentiles within 1 % (the bucket width) above
// the true value. The zero value is empty and ready; it is not safe for
// concurrent use (each connection has its own, merged at the end).
type Histogram struct {
	counts [numBuckets]uint64
	total  uint64
	max    uint64
}

// Count is the number of samples.
func (h *Histogram) Count() uint64 { return h.total }

// Max is the largest sample.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// bucketOf returns the bucket index of v.
func bucketOf(v uint64) int {
	if v < subBuckets {
		return int(v)
	}
	shift := bits.Len64(v) - subBits - 1
	return (shift+1)<<subBits + int(v>>uint(shift)) - subBuckets
}

// bucketHigh returns the largest value that falls in bucket i.
func bucketHigh(i int) uint64 {
	if i < subBuckets {
		return uint64(i)
	}
	shift := uint(i>>subBits - 1)
	mant := uint64(i&(subBuckets-1) + subBuckets)
	return (mant+1)<<shift - 1
}

// Record adds one sample.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(0)
	if d > 0 {
		v = uint64(d)
	}
	h.counts[bucketOf(v)]++
	h.total++
	if v > h.max {
		h.max = v
	}
}

// Merge adds every sample of o to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
	h.max = max(h.max, o.max)
}

// Percentile returns the latency below or at which p percent of the
// samples fall: the upper edge of the bucket holding that rank (never more
// than the largest sample), or 0 when there are none.
func (h *Histogram) Percentile(p float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(p/100*float64(h.total) - 1e-9)) // see Percentile
	rank = min(max(rank, 1), h.total)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(bucketHigh(i), h.max))
		}
	}
	return time.Duration(h.max)
}
