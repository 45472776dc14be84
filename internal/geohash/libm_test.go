package geohash

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The reference is computed with math/big at 300 bits: Taylor series for
// sin and cos after reducing by 2*pi, and for asin the check that the
// true value lies within half a unit in the last place of the result.

const refPrec = 300

var refPi = func() *big.Float {
	const digits = "3.141592653589793238462643383279502884197169399375105820974944592307816406286208998628034825342117067982148086513282306647"
	p, _, _ := big.ParseFloat(digits, 10, refPrec, big.ToNearestEven)
	return p
}()

// refSinCos returns sin(x) and cos(x) to about 250 bits.
func refSinCos(x float64) (s, c *big.Float) {
	bx := new(big.Float).SetPrec(refPrec).SetFloat64(x)
	twoPi := new(big.Float).SetPrec(refPrec).Mul(refPi, big.NewFloat(2))
	q := new(big.Float).SetPrec(refPrec).Quo(bx, twoPi)
	k, _ := q.Int(nil)
	bx.Sub(bx, new(big.Float).SetPrec(refPrec).Mul(new(big.Float).SetInt(k), twoPi))
	return refSinCosBig(bx)
}

func roundBig(f *big.Float) float64 { v, _ := f.Float64(); return v }

func TestSinCosCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 4000 {
		var x float64
		switch i % 4 {
		case 0:
			x = (r.Float64()*2 - 1) * math.Pi // half a longitude difference
		case 1:
			x = (r.Float64()*2 - 1) * 1.49 // a latitude
		case 2:
			x = math.Ldexp(r.Float64(), -r.IntN(40)) // small
		case 3:
			x = (r.Float64()*2 - 1) * 40 // far beyond what GEO uses
		}
		s, c := refSinCos(x)
		if got, want := sin(x), roundBig(s); got != want {
			t.Errorf("sin(%v) = %v, correctly rounded %v", x, got, want)
		}
		if got, want := cos(x), roundBig(c); got != want {
			t.Errorf("cos(%v) = %v, correctly rounded %v", x, got, want)
		}
	}
}

func TestAsinCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 4000 {
		var x float64
		switch i % 3 {
		case 0:
			x = r.Float64()
		case 1:
			x = 1 - math.Ldexp(r.Float64(), -r.IntN(52)) // near 1, where Go's Asin is worst
		case 2:
			x = math.Ldexp(r.Float64(), -r.IntN(40))
		}
		if x == 1 {
			continue // pi/2, checked below
		}
		y := asin(x)
		// sin is increasing on [0, pi/2]: x must lie between the sines of
		// the midpoints around y.
		lo := new(big.Float).SetPrec(refPrec).SetFloat64(y)
		hi := new(big.Float).SetPrec(refPrec).SetFloat64(y)
		half := new(big.Float).SetPrec(refPrec).SetFloat64((math.Nextafter(y, 2) - y) / 2)
		halfDown := new(big.Float).SetPrec(refPrec).SetFloat64((y - math.Nextafter(y, -1)) / 2)
		hi.Add(hi, half)
		lo.Sub(lo, halfDown)
		if halfPi := new(big.Float).SetPrec(refPrec).Quo(refPi, big.NewFloat(2)); hi.Cmp(halfPi) > 0 {
			hi = halfPi // sin turns down past pi/2
		}
		sHi, _ := refSinCosBig(hi)
		sLo, _ := refSinCosBig(lo)
		bx := new(big.Float).SetPrec(refPrec).SetFloat64(x)
		if bx.Cmp(sLo) < 0 || bx.Cmp(sHi) > 0 {
			t.Errorf("asin(%v) = %v is not the correctly rounded arc sine", x, y)
		}
	}
	for _, c := range [][2]float64{{0, 0}, {1, math.Pi / 2}, {-1, -math.Pi / 2}} {
		if got := asin(c[0]); got != c[1] {
			t.Errorf("asin(%v) = %v, want %v", c[0], got, c[1])
		}
	}
	if got := asin(math.Nextafter(1, 2)); !math.IsNaN(got) {
		t.Errorf("asin just above 1 = %v, want NaN", got)
	}
	if got := asin(math.Copysign(0, -1)); !math.Signbit(got) {
		t.Errorf("asin(-0) = %v, want -0", got)
	}
}

// refSinCosBig sums the Taylor series of sin and cos at bx, |bx| < 7.
func refSinCosBig(bx *big.Float) (s, c *big.Float) {
	s = new(big.Float).SetPrec(refPrec)
	c = new(big.Float).SetPrec(refPrec)
	term := new(big.Float).SetPrec(refPrec).SetInt64(1)
	for n := 0; n < 120; n++ {
		switch n % 4 {
		case 0:
			c.Add(c, term)
		case 1:
			s.Add(s, term)
		case 2:
			c.Sub(c, term)
		case 3:
			s.Sub(s, term)
		}
		term.Mul(term, bx)
		term.Quo(term, big.NewFloat(float64(n+1)))
	}
	return s, c
}
