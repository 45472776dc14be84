package benchkit

import (
	"math"
	"sort"
	"testing"
)

// draw samples n ranks from z with a fixed seed and counts them.
func draw(z *Zipf, n int, seed uint64) []int {
	counts := make([]int, z.n)
	r := NewRNG(seed)
	for i := 0; i < n; i++ {
		counts[z.Rank(r.Float64())]++
	}
	return counts
}

func mustZipf(t testing.TB, n int, alpha float64) *Zipf {
	t.Helper()
	z, err := NewZipf(n, alpha)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// The most popular key is asked 2^alpha times as often as the second.
func TestZipfRankOneOverRankTwo(t *testing.T) {
	for _, alpha := range []float64{0.8, 0.99, 1.2} {
		z := mustZipf(t, 1_000_000, alpha)
		c := draw(z, 1_000_000, 7)
		got := float64(c[0]) / float64(c[1])
		want := math.Pow(2, alpha)
		// Relative standard error of c0/c1 is sqrt(1/c0 + 1/c1): about 1.4 %
		// for alpha 0.8 (c0 ≈ 13k); allow 4 of them.
		tol := 4 * math.Sqrt(1/float64(c[0])+1/float64(c[1]))
		if math.Abs(got/want-1) > tol {
			t.Errorf("alpha %v: count(rank 1)/count(rank 2) = %d/%d = %.4f, want %.4f ± %.1f%%", alpha, c[0], c[1], got, want, tol*100)
		}
		if p := float64(c[0]) / 1_000_000; math.Abs(p/z.Prob(0)-1) > 4/math.Sqrt(float64(c[0])) {
			t.Errorf("alpha %v: rank 1 drawn with frequency %.5f, P = %.5f", alpha, p, z.Prob(0))
		}
	}
}

// chiSquare compares counts with z's probabilities over bins: the first
// 100 ranks one by one, then ranges growing by 20 % to the last rank. It
// returns the statistic and the degrees of freedom.
func chiSquare(z *Zipf, counts []int, total int) (chi2 float64, df int) {
	bins := 0
	for lo := 0; lo < z.n; bins++ {
		hi := lo + 1
		if lo >= 100 {
			hi = min(z.n, lo+lo/5)
		}
		o, e := 0.0, 0.0
		for k := lo; k < hi; k++ {
			o += float64(counts[k])
			e += z.Prob(k) * float64(total)
		}
		chi2 += (o - e) * (o - e) / e
		lo = hi
	}
	return chi2, bins - 1
}

// The empirical distribution follows the Zipf law over the whole range of
// ranks: a chi-square statistic within a far-tail bound of its degrees of
// freedom (mean df, standard deviation sqrt(2 df)); and the test has the
// power to reject a neighbouring exponent.
func TestZipfChiSquare(t *testing.T) {
	const n, draws = 200_000, 1_000_000
	for _, alpha := range []float64{0, 0.5, 0.8, 0.99, 1, 1.2, 2} {
		z := mustZipf(t, n, alpha)
		chi2, df := chiSquare(z, draw(z, draws, 11), draws)
		bound := float64(df) + 5*math.Sqrt(2*float64(df))
		if chi2 > bound {
			t.Errorf("alpha %v: chi-square %.1f over %d degrees of freedom, bound %.1f", alpha, chi2, df, bound)
		}
		t.Logf("alpha %v: chi-square %.1f, df %d", alpha, chi2, df)
	}
	// Power: draws with alpha 0.95 do not pass for 0.99.
	z99, z95 := mustZipf(t, n, 0.99), mustZipf(t, n, 0.95)
	chi2, df := chiSquare(z99, draw(z95, draws, 11), draws)
	if bound := float64(df) + 5*math.Sqrt(2*float64(df)); chi2 <= bound {
		t.Errorf("alpha 0.95 draws pass as 0.99: chi-square %.1f, bound %.1f", chi2, bound)
	}
}

// The guide-table draw is the exact inverse of the CDF: for any u, the
// smallest rank whose cumulative probability exceeds u.
func TestZipfRankIsInverseCDF(t *testing.T) {
	for _, alpha := range []float64{0, 0.8, 1.2, 3} {
		for _, n := range []int{1, 2, 3, 1000} {
			z := mustZipf(t, n, alpha)
			inv := func(u float64) int { return sort.Search(n, func(k int) bool { return z.cdf[k] > u }) }
			us := []float64{0, 1e-300, 0.5, math.Nextafter(1, 0)}
			for k := 0; k < n; k++ {
				us = append(us, z.cdf[k], math.Nextafter(z.cdf[k], 0))
			}
			r := NewRNG(3)
			for i := 0; i < 10_000; i++ {
				us = append(us, r.Float64())
			}
			for _, u := range us {
				if u >= 1 {
					continue
				}
				if got, want := z.Rank(u), inv(u); got != want {
					t.Fatalf("n %d alpha %v: rank(%v) = %d, want %d", n, alpha, u, got, want)
				}
			}
			sum := 0.0
			for k := 0; k < n; k++ {
				sum += z.Prob(k)
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("n %d alpha %v: probabilities sum to %v", n, alpha, sum)
			}
		}
	}
}

func TestZipfRejectsBadParameters(t *testing.T) {
	for _, c := range []struct {
		n     int
		alpha float64
	}{{0, 1}, {10, -0.1}, {10, math.NaN()}, {10, math.Inf(1)}} {
		if _, err := NewZipf(c.n, c.alpha); err == nil {
			t.Errorf("NewZipf(%d, %v) accepted", c.n, c.alpha)
		}
	}
}

func TestRNGIntnIsUniform(t *testing.T) {
	r := NewRNG(5)
	var c [7]int
	for i := 0; i < 70_000; i++ {
		c[r.IntN(7)]++
	}
	for i, v := range c {
		if v < 9_500 || v > 10_500 {
			t.Errorf("intn(7) gave %d %d times of 70000", i, v)
		}
	}
}

func BenchmarkZipfDraw(b *testing.B) {
	z := mustZipf(b, 1_000_000, 0.99)
	r := NewRNG(1)
	s := 0
	for i := 0; i < b.N; i++ {
		s += z.Rank(r.Float64())
	}
	_ = s
}
