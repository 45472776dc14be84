package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tandemkv/tandem/latency"
)

// dCommandLatency is the per-command latency histogram both front-ends
// record for INFO latencystats (latency-tracking), exported as a
// Prometheus histogram: the same counters, not a second histogram.
var dCommandLatency = desc("command_latency_seconds",
	"Command latency, by protocol and command (latency-tracking; the sum is that of the counters' upper bounds, within 1 %).",
	"protocol", "command")

// latencyBounds are the histogram's bucket bounds in seconds: 1 µs
// doubling to about 1 s, fixed so that every scrape has the same series
// (the tracked histogram is finer, 2 significant digits; its counters are
// added into these).
var latencyBounds = func() []float64 {
	b := make([]float64, 21)
	for i := range b {
		b[i] = float64(int64(1000)<<i) / 1e9
	}
	return b
}()

// collectLatency exports every tracked command's histogram.
func (c *collector) collectLatency(ch chan<- prometheus.Metric) {
	cmds := c.src.Services.CommandLatency
	if cmds == nil {
		return
	}
	cmds.EachCommand(func(name, protocol string, h *latency.Histogram) {
		s := h.Snapshot()
		if s == nil {
			return // never called since the last reset
		}
		count, sum, buckets := latencyBuckets(s)
		ch <- prometheus.MustNewConstHistogram(dCommandLatency, count, sum, buckets, protocol, name)
	})
}

// latencyBuckets adds s's counters into latencyBounds: a counter goes to
// the first bound at or above its highest value. It returns the count,
// the sum in seconds and the cumulative counts by bound.
func latencyBuckets(s *latency.Snapshot) (count uint64, sum float64, buckets map[float64]uint64) {
	per := make([]uint64, len(latencyBounds))
	s.Each(func(upperNs, n int64) {
		sum += float64(upperNs) / 1e9 * float64(n)
		count += uint64(n)
		for i, b := range latencyBounds {
			if float64(upperNs)/1e9 <= b {
				per[i] += uint64(n)
				break
			}
		}
	})
	buckets = make(map[float64]uint64, len(latencyBounds))
	var cum uint64
	for i, b := range latencyBounds {
		cum += per[i]
		buckets[b] = cum
	}
	return count, sum, buckets
}
