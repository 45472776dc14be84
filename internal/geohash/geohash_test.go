package geohash

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// The expected values below are redis-server 7.0.15's replies (GEOADD
// then ZSCORE, GEOPOS, GEOHASH, GEODIST).

func coordText(f float64) string {
	s := strconv.FormatFloat(f, 'f', 17, 64)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

func TestStoredPoints(t *testing.T) {
	for _, c := range []struct {
		lon, lat float64
		score    uint64
		pos      [2]string
		hash     string
	}{
		{13.361389, 38.115556, 3479099956230698, [2]string{"13.36138933897018433", "38.11555639549629859"}, "sqc8b49rny0"},
		{15.087269, 37.502669, 3479447370796909, [2]string{"15.08726745843887329", "37.50266842333162032"}, "sqdtr74hyu0"},
		{0, 0, 3377699720527872, [2]string{"0.00000268220901489", "0.00000126736058093"}, "s0000000000"},
		// The corners: 180 and the top latitude make offsets of exactly
		// 2^26, whose bits spill past the 52 (the score is above 2^53).
		{180, 85.05112878, 13510798882111488, [2]string{"180", "85.0511287799999991"}, "bp05b5048p0"},
		{-180, -85.05112878, 0, [2]string{"-179.99999731779098511", "-85.05112751263942528"}, "00bh0hbj200"},
	} {
		score := Score(c.lon, c.lat)
		if score != c.score {
			t.Errorf("Score(%v, %v) = %d, want %d", c.lon, c.lat, score, c.score)
		}
		lon, lat := FromScore(float64(score))
		if got := [2]string{coordText(lon), coordText(lat)}; got != c.pos {
			t.Errorf("FromScore(%d) = %v, want %v", score, got, c.pos)
		}
		if h := String(float64(score)); string(h[:]) != c.hash {
			t.Errorf("String(%d) = %s, want %s", score, h[:], c.hash)
		}
	}
}

// Scores no GEOADD stores still decode, through C's double to uint64 cast.
func TestForeignScores(t *testing.T) {
	for _, c := range []struct {
		score float64
		pos   [2]string
		hash  string
	}{
		{-1, [2]string{"180", "85.0511287799999991"}, "bp05b5048p0"},
		{1e300, [2]string{"-179.99999731779098511", "-85.05112751263942528"}, "00bh0hbj200"},
		{math.Inf(1), [2]string{"-179.99999731779098511", "-85.05112751263942528"}, "00bh0hbj200"},
		{math.Inf(-1), [2]string{"180", "-85.05112751263942528"}, "00bh0hbj200"},
		{1 << 52, [2]string{"-179.99999731779098511", "85.0511287799999991"}, "bp05b5048p0"},
	} {
		lon, lat := FromScore(c.score)
		if got := [2]string{coordText(lon), coordText(lat)}; got != c.pos {
			t.Errorf("FromScore(%v) = %v, want %v", c.score, got, c.pos)
		}
		if h := String(c.score); string(h[:]) != c.hash {
			t.Errorf("String(%v) = %s, want %s", c.score, h[:], c.hash)
		}
	}
}

func TestDistance(t *testing.T) {
	pos := func(lon, lat float64) (float64, float64) { return FromScore(float64(Score(lon, lat))) }
	lon1, lat1 := pos(13.361389, 38.115556)
	lon2, lat2 := pos(15.087269, 37.502669)
	if d := Distance(lon1, lat1, lon2, lat2); math.Abs(d-166274.1516) > 5e-5 {
		t.Errorf("Palermo-Catania = %v m, want 166274.1516", d)
	}
	ne1, ne2 := pos(180, 85.05112878)
	sw1, sw2 := pos(-180, -85.05112878)
	if d := Distance(ne1, ne2, sw1, sw2) / 1000; math.Abs(d-18919.8446) > 5e-5 {
		t.Errorf("corner to corner = %v km, want 18919.8446", d)
	}
	if d := Distance(1, 2, 1, 2); d != 0 {
		t.Errorf("a point to itself = %v", d)
	}
}

// radPerDeg must be C's M_PI/180.0, 0x1.1df46a2529d39p-6.
func TestRadPerDeg(t *testing.T) {
	if got := strconv.FormatFloat(radPerDeg, 'x', -1, 64); got != "0x1.1df46a2529d39p-06" {
		t.Errorf("radPerDeg = %s", got)
	}
}

func TestInterleave(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		lat, lon := r.Uint32(), r.Uint32()
		w := interleave(lat, lon)
		if a, o := cells(w); a != lat || o != lon {
			t.Fatalf("cells(interleave(%x, %x)) = %x, %x", lat, lon, a, o)
		}
		for bit := range 32 {
			if (w>>(2*bit))&1 != uint64(lat>>bit)&1 || (w>>(2*bit+1))&1 != uint64(lon>>bit)&1 {
				t.Fatalf("interleave(%x, %x) = %x: bit %d misplaced", lat, lon, w, bit)
			}
		}
	}
}

// Moving a box wraps each coordinate at its step; the moved coordinate
// loses the bits above the step, the other keeps them.
func TestMove(t *testing.T) {
	b := Bits{Bits: interleave(0, 3), Step: 2} // lon cell 3 of 4, lat cell 0
	if e := b.move(1, 0); e != (Bits{Bits: interleave(0, 0), Step: 2}) {
		t.Errorf("east of the last column = %+v", e)
	}
	if s := b.move(0, -1); s != (Bits{Bits: interleave(3, 3), Step: 2}) {
		t.Errorf("south of the first row = %+v", s)
	}
	top := Bits{Bits: interleave(4, 1), Step: 2} // lat offset 2^step: the top edge
	if e := top.move(1, 0); e != (Bits{Bits: interleave(4, 2), Step: 2}) {
		t.Errorf("east of a top-edge box = %+v", e)
	}
	if n := top.move(0, 1); n != (Bits{Bits: interleave(1, 1), Step: 2}) {
		t.Errorf("north of a top-edge box = %+v", n)
	}
}

// Every point within a search's shape lies in one of the ranges it
// reads.
func TestRangesCoverShape(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		s := Shape{Lon: r.Float64()*360 - 180, Lat: r.Float64()*170 - 85, Conversion: 1}
		size := math.Pow(10, r.Float64()*7) // 1 m to 10000 km
		if i%2 == 0 {
			s.Radius = size
		} else {
			s.Box, s.Width, s.Height = true, size*(0.2+r.Float64()), size*(0.2+r.Float64())
		}
		ranges := s.Ranges()
		if len(ranges) == 0 || len(ranges) > 9 {
			t.Fatalf("%+v: %d ranges", s, len(ranges))
		}
		for range 30 {
			lon := s.Lon + (r.Float64()*2-1)*size/111000/math.Max(math.Cos(s.Lat*math.Pi/180), 0.05)
			lat := s.Lat + (r.Float64()*2-1)*size/111000
			if lon < LonMin || lon > LonMax || lat < LatMin || lat > LatMax {
				continue
			}
			score := float64(Score(lon, lat))
			plon, plat := FromScore(score)
			if _, in := s.Contains(plon, plat); !in {
				continue
			}
			if !slices.ContainsFunc(ranges, func(sr ScoreRange) bool { return score >= sr.Min && score < sr.Max }) {
				t.Fatalf("%+v: point %v,%v (score %v) inside, in no range of %v", s, plon, plat, score, ranges)
			}
		}
	}
}

func TestEstimateSteps(t *testing.T) {
	for _, c := range []struct {
		metres, lat float64
		want        uint8
	}{
		{0, 0, 26}, {1, 0, 24}, {5e-324, 0, 26}, {1000, 0, 14}, {5e6, 0, 2}, {1e7, 0, 1},
		{1000, 70, 13}, {1000, -81, 12}, {math.Inf(1), 0, 1},
	} {
		if got := estimateSteps(c.metres, c.lat); got != c.want {
			t.Errorf("estimateSteps(%v, %v) = %d, want %d", c.metres, c.lat, got, c.want)
		}
	}
}

// Contains's shortcuts (the centre computed once, Go's math to reject far
// points) change no answer: it agrees with the plain formulas bit for
// bit, a point at exactly the radius included.
func TestContainsShortcuts(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	plain := func(s *Shape, lon, lat float64) (float64, bool) {
		if !s.Box {
			d := Distance(s.Lon, s.Lat, lon, lat)
			return d, !(d > s.Radius*s.Conversion)
		}
		if LatDistance(lat, s.Lat) > s.Height*s.Conversion/2 || Distance(lon, lat, s.Lon, lat) > s.Width*s.Conversion/2 {
			return 0, false
		}
		return Distance(s.Lon, s.Lat, lon, lat), true
	}
	for i := range 2000 {
		s := Shape{Lon: r.Float64()*360 - 180, Lat: r.Float64()*170 - 85, Conversion: []float64{1, 1000, 0.3048, 1609.34}[i%4]}
		size := math.Pow(10, r.Float64()*5)
		if i%2 == 0 {
			s.Radius = size
		} else {
			s.Box, s.Width, s.Height = true, size*(0.2+r.Float64()), size*(0.2+r.Float64())
		}
		for range 50 {
			lon, lat := r.Float64()*360-180, r.Float64()*170-85
			if r.IntN(2) == 0 {
				lon = max(-180, min(180, s.Lon+r.NormFloat64()*size*s.Conversion/1e5))
				lat = max(-85, min(85, s.Lat+r.NormFloat64()*size*s.Conversion/1e5))
			}
			d1, ok1 := s.Contains(lon, lat)
			d2, ok2 := plain(&s, lon, lat)
			if ok1 != ok2 || (ok1 && math.Float64bits(d1) != math.Float64bits(d2)) {
				t.Fatalf("%+v at %v,%v: Contains %v %v, plain %v %v", s, lon, lat, d1, ok1, d2, ok2)
			}
			// The shortcut never rejects a point at exactly the limit.
			o := newOrigin(s.Lon, s.Lat)
			d := o.distance(lon, lat)
			edge := Shape{Lon: s.Lon, Lat: s.Lat, Radius: d, Conversion: 1}
			if _, in := edge.Contains(lon, lat); !in && !math.IsNaN(d) {
				t.Fatalf("%v,%v → %v,%v at %v m: not within a radius of %v m", s.Lon, s.Lat, lon, lat, d, d)
			}
		}
	}
}
