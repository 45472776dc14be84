package benchkit

import (
	"fmt"
	"math"
)

// RNG is SplitMix64: tiny, fast, and fully specified here, so a seed gives
// the same stream on every Go version and platform (math/rand's streams
// are not promised to stay the same forever).
type RNG struct{ s uint64 }

// NewRNG returns the generator of a seed.
func NewRNG(seed uint64) *RNG { return &RNG{s: seed} }

// Uint64 returns 64 random bits.
func (r *RNG) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Float64 returns a uniform value in [0, 1) with 53 random bits.
func (r *RNG) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// IntN returns a uniform value in [0, n) (n > 0), without modulo bias.
func (r *RNG) IntN(n int) int {
	bound := uint64(n)
	limit := -bound % bound // 2^64 mod n
	for {
		v := r.Uint64()
		if v >= limit {
			return int(v % bound)
		}
	}
}

// Mix64 is SplitMix64's finaliser: a stateless hash of one word.
func Mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Zipf draws ranks 0..n-1 with P(rank k) = (k+1)^-alpha / H(n, alpha), for
// any alpha >= 0 (math/rand's Zipf needs s > 1; cache workloads are
// usually measured with alpha below 1).
//
// Method: inversion over the exact cumulative distribution, precomputed
// once (n float64s), with a guide table (Chen and Asau's "indexed search")
// so that a draw is O(1) expected: the guide holds, for each of n equal
// slices of [0,1), the first rank whose cumulative probability exceeds the
// slice's start, and the draw walks forward from there. Exact (up to
// float64 rounding of the sums) and the same for every alpha; 12 bytes per
// rank (12 MB for 1M keys).
type Zipf struct {
	n     int
	alpha float64
	cdf   []float64 // cdf[k] = P(rank <= k); cdf[n-1] = 1
	guide []uint32  // guide[j] = first k with cdf[k] > j/n
	norm  float64   // H(n, alpha) = sum of (k+1)^-alpha
}

// NewZipf returns the sampler of ranks 0..n-1 with exponent alpha.
func NewZipf(n int, alpha float64) (*Zipf, error) {
	if n < 1 || n > math.MaxUint32 {
		return nil, fmt.Errorf("zipf: n = %d out of range", n)
	}
	if alpha < 0 || math.IsNaN(alpha) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("zipf: alpha = %v must be a finite number >= 0", alpha)
	}
	z := &Zipf{n: n, alpha: alpha, cdf: make([]float64, n), guide: make([]uint32, n)}
	// Kahan-compensated running sum of (k+1)^-alpha.
	var sum, comp float64
	for k := 0; k < n; k++ {
		y := math.Pow(float64(k+1), -alpha) - comp
		t := sum + y
		comp = (t - sum) - y
		sum = t
		z.cdf[k] = sum
	}
	z.norm = sum
	for k := range z.cdf {
		z.cdf[k] /= sum
	}
	z.cdf[n-1] = 1
	k := 0
	for j := 0; j < n; j++ {
		u := float64(j) / float64(n)
		for z.cdf[k] <= u {
			k++
		}
		z.guide[j] = uint32(k)
	}
	return z, nil
}

// Rank maps u in [0,1) to a rank: the smallest k with cdf[k] > u.
func (z *Zipf) Rank(u float64) int {
	j := int(u * float64(z.n))
	if j >= z.n { // u rounds up to 1 only if u is the largest float below 1
		j = z.n - 1
	}
	k := int(z.guide[j])
	// u·n can round up across a slice boundary: step back if needed.
	for k > 0 && z.cdf[k-1] > u {
		k--
	}
	for z.cdf[k] <= u {
		k++
	}
	return k
}

// Prob returns P(rank k).
func (z *Zipf) Prob(k int) float64 {
	return math.Pow(float64(k+1), -z.alpha) / z.norm
}

// N is the number of ranks.
func (z *Zipf) N() int { return z.n }

// Alpha is the exponent.
func (z *Zipf) Alpha() float64 { return z.alpha }
