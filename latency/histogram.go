package latency

import (
	"math/bits"
	"sync/atomic"
)

// Per-command latency histograms (latency-tracking): Redis 7.0 records
// every command's duration, in nanoseconds, in an HdrHistogram tracking
// 1 ns to 1 s with 2 significant digits, and reports percentiles
// (INFO latencystats) and power-of-two buckets (LATENCY HISTOGRAM) from
// it. Histogram keeps the same bucket layout, so both read exactly the
// values Redis's would for the same durations: HdrHistogram's
// log-linear index — 256 unit-wide sub-buckets below 256 ns, then 128
// sub-buckets per power of two, each twice as wide as the previous
// power's — over 23 powers, 3072 counters.
//
// Recording is one atomic add on the hot path. The counters come in
// histStripes copies, each allocated on its first record (a command
// never run costs a few pointers), so that event loops running the same
// command seldom share a cache line, as resp/stats.go's counters.

const (
	// MinValue and MaxValue bound what is recorded, in nanoseconds (Redis's
	// LATENCY_HISTOGRAM_MIN_VALUE and _MAX_VALUE); a duration outside is
	// recorded as the bound.
	MinValue = 1
	MaxValue = 1_000_000_000

	subBucketHalfMag = 7                                 // log2 of the 128 sub-buckets per power
	subBucketHalf    = 1 << subBucketHalfMag             // 128
	subBucketCount   = 2 * subBucketHalf                 // 256: 2 significant digits need ≥ 200
	bucketCount      = 23                                // 256<<22 > MaxValue
	countsLen        = (bucketCount + 1) * subBucketHalf // 3072
	histStripes      = 4
)

type counts [countsLen]atomic.Int64

// Histogram is one command's latency histogram. The zero value is empty
// and ready to record.
type Histogram struct {
	stripes [histStripes]atomic.Pointer[counts]
}

// bucketOf is HdrHistogram's bucket index of v (0 for v < 256).
func bucketOf(v int64) int {
	return bits.Len64(uint64(v)|(subBucketCount-1)) - (subBucketHalfMag + 1)
}

// indexOf is the counter v is counted in.
func indexOf(v int64) int {
	b := bucketOf(v)
	sub := int(v >> b)
	return (b+1)<<subBucketHalfMag + sub - subBucketHalf
}

// valueAt is the lowest value counted at index i.
func valueAt(i int) int64 {
	b := i>>subBucketHalfMag - 1
	sub := i&(subBucketHalf-1) + subBucketHalf
	if b < 0 {
		sub -= subBucketHalf
		b = 0
	}
	return int64(sub) << b
}

// lowestEquivalent is the lowest value counted with v.
func lowestEquivalent(v int64) int64 {
	b := bucketOf(v)
	return v >> b << b
}

// highestEquivalent is the highest value counted with v.
func highestEquivalent(v int64) int64 {
	return lowestEquivalent(v) + 1<<bucketOf(v) - 1
}

// HighestEquivalent and LowestEquivalent bound the counter a value (ns)
// is counted in: what percentiles and buckets report.
func HighestEquivalent(v int64) int64 { return highestEquivalent(v) }

// LowestEquivalent: see HighestEquivalent.
func LowestEquivalent(v int64) int64 { return lowestEquivalent(v) }

// RecordUsec records a duration of usec microseconds, as Redis records a
// command's (its duration in µs, times 1000), in the copy stripe picks.
func (h *Histogram) RecordUsec(stripe uint8, usec int64) {
	v := int64(MaxValue)
	if usec < MaxValue/1000 {
		v = max(usec*1000, MinValue)
	}
	s := &h.stripes[stripe%histStripes]
	c := s.Load()
	if c == nil {
		c = new(counts)
		if !s.CompareAndSwap(nil, c) {
			c = s.Load()
		}
	}
	c[indexOf(v)].Add(1)
}

// Reset empties h (CONFIG RESETSTAT), giving back its counters. A record
// racing with it may be lost, as a statistic may.
func (h *Histogram) Reset() {
	for i := range h.stripes {
		h.stripes[i].Store(nil)
	}
}

// Snapshot is a histogram's counts at one moment, added up over its
// stripes, for reading without racing records.
type Snapshot struct {
	counts [countsLen]int64
	total  int64
}

// Snapshot adds up h's counters; nil when h recorded nothing.
func (h *Histogram) Snapshot() *Snapshot {
	var s *Snapshot
	for i := range h.stripes {
		c := h.stripes[i].Load()
		if c == nil {
			continue
		}
		if s == nil {
			s = new(Snapshot)
		}
		for j := range c {
			if n := c[j].Load(); n != 0 {
				s.counts[j] += n
				s.total += n
			}
		}
	}
	if s == nil || s.total == 0 {
		return nil
	}
	return s
}

// Count is how many durations s holds.
func (s *Snapshot) Count() int64 { return s.total }

// Percentile is the value (ns) at percentile p (0..100), as
// HdrHistogram's hdr_value_at_percentile: the highest value equivalent to
// that of the first counter reaching p's share of the count (the lowest
// for p 0).
func (s *Snapshot) Percentile(p float64) int64 {
	p = min(p, 100)
	want := max(int64(p/100*float64(s.total)+0.5), 1)
	var v int64
	var seen int64
	for i, n := range s.counts {
		if seen += n; seen >= want {
			v = valueAt(i)
			break
		}
	}
	if p == 0 {
		return lowestEquivalent(v)
	}
	return highestEquivalent(v)
}

// Bucket is one step of a cumulative distribution: how many durations
// were at most UpperNs nanoseconds.
type Bucket struct {
	UpperNs    int64
	Cumulative int64
}

// PowersOfTwo is the cumulative distribution LATENCY HISTOGRAM replies:
// HdrHistogram's logarithmic iteration from 1024 ns doubling, each step
// the counters up to the first at or past the step's value, bounded by
// the highest value of that counter; a step that adds nothing is left
// out. The last step, past the top, holds every duration.
func (s *Snapshot) PowersOfTwo() []Bucket {
	var out []Bucket
	level := int64(1024)
	next := lowestEquivalent(level)
	i, value, upper := -1, int64(0), int64(0)
	var cum, prev int64
	for cum < s.total || (i < countsLen && valueAt(i+1) > next) {
		for {
			if value >= next {
				level *= 2
				next = lowestEquivalent(level)
				break
			}
			if i++; i >= countsLen {
				break // past the top: the step holds the rest
			}
			cum += s.counts[i]
			value = valueAt(i)
			upper = highestEquivalent(value)
		}
		if cum > prev {
			out = append(out, Bucket{UpperNs: upper, Cumulative: cum})
		}
		prev = cum
	}
	return out
}

// Each calls fn with every non-empty counter's highest value (ns) and its
// count, in increasing order: the full resolution, for exporters.
func (s *Snapshot) Each(fn func(upperNs, count int64)) {
	for i, n := range s.counts {
		if n != 0 {
			fn(highestEquivalent(valueAt(i)), n)
		}
	}
}
