package geohash

import "math"

// Redis's constants: the Earth's quadratic mean radius (WGS-84) and the
// Mercator half-width that sizes a search's boxes.
const (
	earthRadius = 6372797.560856
	mercatorMax = 20037726.37
)

// radPerDeg is Redis's D_R: M_PI/180 divided in double precision (not
// the correctly rounded pi/180 a Go constant expression would give).
var radPerDeg = divide(math.Pi, 180)

func divide(a, b float64) float64 { return a / b }

func degRad(deg float64) float64 { return deg * radPerDeg }
func radDeg(rad float64) float64 { return rad / radPerDeg }

// LatDistance is the distance in metres between two latitudes on one
// meridian.
func LatDistance(lat1, lat2 float64) float64 {
	return earthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// Distance is the great-circle distance in metres between two points by
// the haversine formula, as Redis's geohashGetDistance (a longitude
// difference whose half-sine is 0 takes LatDistance). Nearly antipodal
// points can make the haversine exceed 1 by a rounding and the distance
// NaN, in Redis too.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	o := newOrigin(lon1, lat1)
	return o.distance(lon2, lat2)
}

// origin is a point distances are measured from, with what the formula
// computes of it alone: a search measures every candidate from its
// centre. Its results are Distance's, bit for bit.
type origin struct {
	lon, lat, lonRad, latRad, cosLat float64
}

func newOrigin(lon, lat float64) origin {
	o := origin{lon: lon, lat: lat, lonRad: degRad(lon), latRad: degRad(lat)}
	o.cosLat = cos(o.latRad)
	return o
}

func (o *origin) distance(lon, lat float64) float64 {
	v := sin((degRad(lon) - o.lonRad) / 2)
	if v == 0 {
		return LatDistance(o.lat, lat)
	}
	latRad := degRad(lat)
	u := sin((latRad - o.latRad) / 2)
	cosLat := o.cosLat // the same latitude: the same cosine
	if lat != o.lat {
		cosLat = cos(latRad)
	}
	a := float64(u*u) + float64(float64(float64(o.cosLat*cosLat)*v)*v)
	return 2.0 * earthRadius * asin(math.Sqrt(a))
}

// farHaversine returns the haversine above which a distance is
// certainly beyond limit metres, with a margin far above any rounding:
// Contains bounds a candidate's haversine from below (sinBelow,
// cosBelow) and spares the exact computation of most points outside a
// search. +Inf when no haversine is beyond (limit at or past half the
// circumference).
func farHaversine(limit float64) float64 {
	theta := limit / (2 * earthRadius) * (1 + 1e-9)
	if !(theta < math.Pi/2) {
		return math.Inf(1)
	}
	s := math.Sin(theta)
	return s*s*(1+1e-9) + 1e-24
}

// sinBelow and cosBelow are lower bounds of |sin x| and of cos x for
// |x| <= pi/2 (0 where the bound goes negative): the Taylor polynomials
// cut after a negative term, below the function for every x >= 0.
func sinBelow(x float64) float64 {
	x = math.Abs(x)
	x2 := x * x
	return max(0, x*(1-x2/6*(1-x2/20*(1-x2/42))))
}

func cosBelow(x float64) float64 {
	x2 := x * x
	return max(0, 1-x2/2*(1-x2/12*(1-x2/30)))
}

// Shape is a search area: a circle of Radius, or a Width x Height box
// when Box, around (Lon, Lat), the lengths in a unit of Conversion metres.
type Shape struct {
	Lon, Lat      float64
	Box           bool
	Radius        float64
	Width, Height float64
	Conversion    float64

	prepared bool
	centre   origin
	cosLat   float64 // cosBelow of the centre's latitude
	farA     float64 // farHaversine of the radius (circle) or half width (box)
}

// Contains reports whether the point (lon, lat) is in the shape, and its
// distance in metres from the centre (Redis's geoWithinShape). A box
// tests the latitude distance first, then the longitude distance along
// the point's parallel. The shape must not change after the first call.
func (s *Shape) Contains(lon, lat float64) (dist float64, ok bool) {
	if !s.prepared {
		s.centre = newOrigin(s.Lon, s.Lat)
		s.cosLat = cosBelow(s.centre.latRad)
		if s.Box {
			s.farA = farHaversine(s.Width * s.Conversion / 2)
		} else {
			s.farA = farHaversine(s.Radius * s.Conversion)
		}
		s.prepared = true
	}
	lonRad, latRad := degRad(lon), degRad(lat)
	v := sinBelow((lonRad - s.centre.lonRad) / 2)
	if !s.Box {
		u := sinBelow((latRad - s.centre.latRad) / 2)
		if u*u+s.cosLat*cosBelow(latRad)*v*v > s.farA {
			return 0, false
		}
		limit := s.Radius * s.Conversion
		d := s.centre.distance(lon, lat)
		return d, !(d > limit)
	}
	if LatDistance(lat, s.Lat) > s.Height*s.Conversion/2 {
		return 0, false
	}
	if c := cosBelow(latRad); c*c*v*v > s.farA { // along the point's parallel
		return 0, false
	}
	along := origin{lon: lon, lat: lat, lonRad: lonRad, latRad: latRad, cosLat: cos(latRad)}
	if along.distance(s.Lon, lat) > s.Width*s.Conversion/2 {
		return 0, false
	}
	return s.centre.distance(lon, lat), true
}

// bounds is the shape's bounding box in degrees (Redis's
// geohashBoundingBox): the parallels at the half height, the meridians at
// the half width measured on the parallel nearer the pole.
func (s *Shape) bounds() (minLon, minLat, maxLon, maxLat float64) {
	halfH, halfW := s.Radius, s.Radius
	if s.Box {
		halfH, halfW = s.Height/2, s.Width/2
	}
	height, width := s.Conversion*halfH, s.Conversion*halfW
	latDelta := radDeg(height / earthRadius)
	lonDeltaTop := radDeg(width / earthRadius / cos(degRad(s.Lat+latDelta)))
	lonDeltaBottom := radDeg(width / earthRadius / cos(degRad(s.Lat-latDelta)))
	lonDelta := lonDeltaTop
	if s.Lat < 0 {
		lonDelta = lonDeltaBottom
	}
	return s.Lon - lonDelta, s.Lat - latDelta, s.Lon + lonDelta, s.Lat + latDelta
}

// estimateSteps is the precision of the boxes covering a search of
// rangeMeters around latitude lat (Redis's geohashEstimateStepsByRadius):
// the step at which a box is about the range, coarser near the poles.
func estimateSteps(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return StepMax
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), StepMax))
}

// ScoreRange is the scores of a box's members: Min <= score < Max.
type ScoreRange struct{ Min, Max float64 }

// scores is the range of the 52-bit scores inside box b (Redis's
// scoresOfGeoHashBox): b's bits, and the next value of them, aligned.
func scores(b Bits) ScoreRange {
	next := Bits{Bits: b.Bits + 1, Step: b.Step}
	return ScoreRange{Min: float64(b.Align52()), Max: float64(next.Align52())}
}

// Ranges returns the score ranges a search of the shape reads, in Redis's
// order: the box holding the centre, then north, south, east, west,
// north-east, north-west, south-east, south-west (Redis's
// geohashCalculateAreasByShapeWGS84 and membersOfAllNeighbors). The step
// is estimated from the radius (a box's half diagonal) and lowered once
// when a neighbour does not reach the bounding box; neighbours entirely
// beyond the bounding box are left out (from step 2), and so is a
// neighbour equal to the one read before it, which large areas give.
func (s *Shape) Ranges() []ScoreRange {
	minLon, minLat, maxLon, maxLat := s.bounds()
	radius := s.Radius
	if s.Box {
		radius = math.Sqrt(float64(s.Width/2*(s.Width/2)) + float64(s.Height/2*(s.Height/2)))
	}
	radius *= s.Conversion
	steps := estimateSteps(radius, s.Lat)
	hash, _ := Encode(s.Lon, s.Lat, steps)
	nb := hash.neighbors()
	area := Decode(hash)
	if steps > 1 && (Decode(nb.North).Lat.Max < maxLat || Decode(nb.South).Lat.Min > minLat ||
		Decode(nb.East).Lon.Max < maxLon || Decode(nb.West).Lon.Min > minLon) {
		steps--
		hash, _ = Encode(s.Lon, s.Lat, steps)
		nb = hash.neighbors()
		area = Decode(hash)
	}
	if steps >= 2 {
		if area.Lat.Min < minLat {
			nb.South, nb.SouthWest, nb.SouthEast = Bits{}, Bits{}, Bits{}
		}
		if area.Lat.Max > maxLat {
			nb.North, nb.NorthEast, nb.NorthWest = Bits{}, Bits{}, Bits{}
		}
		if area.Lon.Min < minLon {
			nb.West, nb.SouthWest, nb.NorthWest = Bits{}, Bits{}, Bits{}
		}
		if area.Lon.Max > maxLon {
			nb.East, nb.SouthEast, nb.NorthEast = Bits{}, Bits{}, Bits{}
		}
	}
	boxes := [9]Bits{hash, nb.North, nb.South, nb.East, nb.West, nb.NorthEast, nb.NorthWest, nb.SouthEast, nb.SouthWest}
	out := make([]ScoreRange, 0, len(boxes))
	// Redis compares a box with the last one read, but not with the
	// centre's box: its "last read" index starts at 0 and 0 counts as
	// none.
	last := 0
	for i, b := range boxes {
		if b.IsZero() || (last != 0 && b == boxes[last]) {
			continue
		}
		out = append(out, scores(b))
		last = i
	}
	return out
}
