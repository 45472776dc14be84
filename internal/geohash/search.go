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
	lon1r, lon2r := degRad(lon1), degRad(lon2)
	v := sin((lon2r - lon1r) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r, lat2r := degRad(lat1), degRad(lat2)
	u := sin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(cos(lat1r)*cos(lat2r))*v)*v)
	return 2.0 * earthRadius * asin(math.Sqrt(a))
}

// Shape is a search area: a circle of Radius, or a Width x Height box
// when Box, around (Lon, Lat), the lengths in a unit of Conversion metres.
type Shape struct {
	Lon, Lat      float64
	Box           bool
	Radius        float64
	Width, Height float64
	Conversion    float64
}

// Contains reports whether the point (lon, lat) is in the shape, and its
// distance in metres from the centre (Redis's geoWithinShape). A box
// tests the latitude distance first, then the longitude distance along
// the point's parallel.
func (s *Shape) Contains(lon, lat float64) (dist float64, ok bool) {
	if !s.Box {
		d := Distance(s.Lon, s.Lat, lon, lat)
		return d, !(d > s.Radius*s.Conversion)
	}
	if LatDistance(lat, s.Lat) > s.Height*s.Conversion/2 {
		return 0, false
	}
	if Distance(lon, lat, s.Lon, lat) > s.Width*s.Conversion/2 {
		return 0, false
	}
	return Distance(s.Lon, s.Lat, lon, lat), true
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
