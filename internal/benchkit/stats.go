package benchkit

import (
	"fmt"
	"math"
	"slices"
)

// Median returns the median of xs (the mean of the middle two for an even
// count), 0 for none; xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Percentile returns the nearest-rank p-th percentile of sorted xs: the
// smallest value with at least p % of the values at or below it; 0 for
// none.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	// The epsilon keeps 99.9 % of 1000 at rank 999, not 1000: p/100*n is
	// computed in binary and may land just above an integer.
	rank := int(math.Ceil(p/100*float64(len(sorted)) - 1e-9))
	return sorted[max(0, min(rank-1, len(sorted)-1))]
}

// Bytes formats a byte count in binary units: "100 B", "20.0 KB",
// "3.0 GB", "−5.0 MB".
func Bytes(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	f, unit := float64(n), "B"
	for _, u := range []string{"KB", "MB", "GB"} {
		if f < 1024 {
			break
		}
		f /= 1024
		unit = u
	}
	s := fmt.Sprintf("%.0f %s", f, unit)
	if unit != "B" && f < 100 {
		s = fmt.Sprintf("%.1f %s", f, unit)
	}
	if neg {
		s = "−" + s
	}
	return s
}
