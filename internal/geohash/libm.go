package geohash

import (
	"math"
	"math/big"
)

// Redis computes distances with glibc's sin, cos and asin, whose results
// are the correctly rounded values in all but vanishingly rare cases. Go's
// math package is faster and less exact: its Sin, Cos and Asin differ
// from glibc's in the last bits for a fifth to a third of the arguments
// (Asin by up to 14 units in the last place), and a distance one unit off
// is visible in a GEODIST reply now and then, and always in a STOREDIST
// score. So the three functions are computed here in double-double
// arithmetic (about 106 bits) and rounded once: the correctly rounded
// result, which is glibc's.
//
// The arguments the GEO commands pass are small: half a longitude or
// latitude difference (|x| <= pi), a latitude, a bounding box's latitude
// (within a few radians whenever the box is used). Arguments beyond
// ddTrigLimit go to Go's math package; Redis only takes them for search
// areas so large that the value does not change the answer.

// dd is a double-double: the unevaluated sum hi + lo, |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

// twoSum returns a+b exactly as a double-double (Knuth).
func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

// quickTwoSum is twoSum for |a| >= |b| (Dekker).
func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd returns a*b exactly as a double-double.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (x dd) add(y dd) dd {
	s := twoSum(x.hi, y.hi)
	t := twoSum(x.lo, y.lo)
	s = quickTwoSum(s.hi, s.lo+t.hi)
	return quickTwoSum(s.hi, s.lo+t.lo)
}

func (x dd) mul(y dd) dd {
	p := twoProd(x.hi, y.hi)
	return quickTwoSum(p.hi, p.lo+(x.hi*y.lo+x.lo*y.hi))
}

func (x dd) round() float64 { return x.hi + x.lo }

// ddTrigLimit bounds the arguments reduced here; k*(pi/2) stays exact
// enough in three parts far beyond it.
const ddTrigLimit = 1 << 20

var (
	// halfPi is pi/2 in three parts, about 160 bits.
	halfPi [3]float64
	// sinCoef and cosCoef are the Taylor coefficients (-1)^k/(2k+1)! and
	// (-1)^k/(2k)!, enough of them for |r| <= pi/4 to 2^-110.
	sinCoef, cosCoef [15]dd
)

func init() {
	const piDigits = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651"
	const prec = 400
	pi, _, err := big.ParseFloat(piDigits, 10, prec, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	rest := new(big.Float).SetPrec(prec).Quo(pi, big.NewFloat(2))
	for i := range halfPi {
		halfPi[i], _ = rest.Float64()
		rest.Sub(rest, new(big.Float).SetFloat64(halfPi[i]))
	}
	fact := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := 0; n < 2*len(sinCoef); n++ {
		if n > 0 {
			fact.Mul(fact, new(big.Float).SetInt64(int64(n)))
		}
		c := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), fact)
		if (n/2)%2 == 1 {
			c.Neg(c)
		}
		hi, _ := c.Float64()
		lo, _ := new(big.Float).SetPrec(prec).Sub(c, new(big.Float).SetFloat64(hi)).Float64()
		if n%2 == 0 {
			cosCoef[n/2] = dd{hi, lo}
		} else {
			sinCoef[n/2] = dd{hi, lo}
		}
	}
}

// reduce returns r = x - k*pi/2 with |r| <= ~pi/4, and k mod 4.
func reduce(x dd) (dd, int) {
	k := math.RoundToEven(x.hi / halfPi[0])
	if k == 0 {
		return x, 0
	}
	r := x.add(twoProd(-k, halfPi[0]))
	r = r.add(twoProd(-k, halfPi[1]))
	r = r.add(dd{-k * halfPi[2], 0})
	return r, int(int64(k) & 3)
}

// The Taylor kernels, for |r| <= ~pi/4. The terms from r^8 on are below
// 2^-21 of the result and are summed in plain double precision (their
// rounding errors stay near 2^-74 of the result); the leading ones in
// double-double.

func sinKernel(r dd) dd {
	r2 := r.mul(r)
	z := r2.hi
	q := sinCoef[len(sinCoef)-1].hi
	for k := len(sinCoef) - 2; k >= 4; k-- {
		q = float64(q*z) + sinCoef[k].hi
	}
	p := twoProd(z, q).add(sinCoef[3])
	p = p.mul(r2).add(sinCoef[2])
	p = p.mul(r2).add(sinCoef[1])
	return r.add(r.mul(r2).mul(p))
}

func cosKernel(r dd) dd {
	r2 := r.mul(r)
	z := r2.hi
	q := cosCoef[len(cosCoef)-1].hi
	for k := len(cosCoef) - 2; k >= 4; k-- {
		q = float64(q*z) + cosCoef[k].hi
	}
	p := twoProd(z, q).add(cosCoef[3])
	p = p.mul(r2).add(cosCoef[2])
	p = p.mul(r2).add(cosCoef[1])
	return cosCoef[0].add(r2.mul(p))
}

func (x dd) neg() dd { return dd{-x.hi, -x.lo} }

// sinDD and cosDD return sin(x) and cos(x) to about 106 bits.
func sinDD(x dd) dd {
	r, q := reduce(x)
	switch q {
	case 1:
		return cosKernel(r)
	case 2:
		return sinKernel(r).neg()
	case 3:
		return cosKernel(r).neg()
	}
	return sinKernel(r)
}

func cosDD(x dd) dd {
	r, q := reduce(x)
	switch q {
	case 1:
		return sinKernel(r).neg()
	case 2:
		return cosKernel(r).neg()
	case 3:
		return sinKernel(r)
	}
	return cosKernel(r)
}

// sin is glibc's sin: the correctly rounded sine.
func sin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > ddTrigLimit {
		return math.Sin(x)
	}
	return sinDD(dd{x, 0}).round()
}

// cos is glibc's cos: the correctly rounded cosine.
func cos(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > ddTrigLimit {
		return math.Cos(x)
	}
	return cosDD(dd{x, 0}).round()
}

// asin is glibc's asin: the correctly rounded arc sine; NaN outside
// [-1, 1]. Go's Asin, accurate to some units in the last place, is
// refined by Newton steps on sin(y) = x, sin(y) in double-double: one
// leaves an error near 2^-97 up to x = 0.9, two beyond, where tan(y)
// grows. The step's divisor cos(y) needs few bits: Go's Cos does.
func asin(x float64) float64 {
	switch {
	case x == 0 || math.IsNaN(x):
		return x
	case x < 0:
		return -asin(-x)
	case x > 1:
		return math.NaN()
	case x == 1:
		return halfPi[0]
	}
	y := dd{math.Asin(x), 0}
	steps := 1
	if x > 0.9 {
		steps = 2
	}
	for range steps {
		d := sinDD(y).add(dd{-x, 0})
		y = y.add(dd{-d.hi / math.Cos(y.hi), 0})
	}
	return y.round()
}
