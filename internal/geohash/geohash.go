// Package geohash is the arithmetic behind Redis's GEO commands, with
// Redis 7.0's exact results: a point is stored as the score of a sorted
// set member, a 52-bit geohash in which longitude and latitude bits
// alternate; a search covers its area with a geohash box and its eight
// neighbours, reads each box as one score range, and keeps the members
// whose distance (the haversine formula on Redis's Earth radius) or box
// test passes.
//
// Everything a client can observe is reproduced: the scores GEOADD
// stores, the coordinates GEOPOS decodes (the centre of the 52-bit cell,
// clamped), the 11-character GEOHASH strings, the boxes a search reads
// and in which order (which decides the order of an unsorted reply), and
// the order a sorted reply gets (order.go). The floating-point operations
// are Redis's, in its order; sin, cos and asin are computed to the
// correctly rounded result (libm.go), as glibc computes them.
//
// The package is pure: no I/O, no state. resp/cmd_geo.go drives it over
// the engine's sorted sets.
package geohash

// Coordinate limits: EPSG:900913, whose latitudes stop short of the
// poles, as Redis's GEO_LAT_MIN… .
const (
	LonMin = -180.0
	LonMax = 180.0
	LatMin = -85.05112878
	LatMax = 85.05112878
)

// StepMax is the precision of a stored point: 26 bits per coordinate,
// 52 in all.
const StepMax = 26

// Range is a coordinate interval.
type Range struct{ Min, Max float64 }

// The coordinate ranges of stored points (Redis's geohashGetCoordRange),
// and the standard ones a geohash string is written in.
var (
	lonRange    = Range{LonMin, LonMax}
	latRange    = Range{LatMin, LatMax}
	stdLatRange = Range{-90, 90}
)

// Bits is a geohash of Step bits per coordinate: longitude bits at odd
// positions, latitude bits at even ones. The zero value is "no box", as
// Redis marks a neighbour excluded from a search.
type Bits struct {
	Bits uint64
	Step uint8
}

// IsZero reports whether b is "no box".
func (b Bits) IsZero() bool { return b.Bits == 0 && b.Step == 0 }

// Align52 is b's 52-bit form: the smallest score inside the box.
func (b Bits) Align52() uint64 { return b.Bits << (52 - 2*uint(b.Step)) }

// Area is a geohash box and the coordinates it covers.
type Area struct {
	Hash     Bits
	Lon, Lat Range
}

// spread puts the 32 bits of v at the even positions of a 64-bit word.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// squash gathers the even bits of x into 32 bits, undoing spread.
func squash(x uint64) uint32 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0f0f0f0f0f0f0f0f
	x = (x | x>>4) & 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	x = (x | x>>16) & 0x00000000ffffffff
	return uint32(x)
}

// interleave makes a geohash word of a latitude and a longitude cell
// index.
func interleave(lat, lon uint32) uint64 { return spread(lat) | spread(lon)<<1 }

// cells splits a geohash word into its latitude and longitude indexes,
// all 32 bits of each.
func cells(bits uint64) (lat, lon uint32) { return squash(bits), squash(bits >> 1) }

// encode is Redis's geohashEncode: the cell of (lon, lat) at step bits
// per coordinate within the ranges. ok is false outside them (and outside
// the storable limits, which Redis checks too).
func encode(lon, lat float64, lr, ar Range, step uint8) (Bits, bool) {
	if step == 0 || step > 32 {
		return Bits{}, false
	}
	if lon > LonMax || lon < LonMin || lat > LatMax || lat < LatMin {
		return Bits{}, false
	}
	if lat < ar.Min || lat > ar.Max || lon < lr.Min || lon > lr.Max {
		return Bits{Step: step}, false
	}
	latOff := (lat - ar.Min) / (ar.Max - ar.Min)
	lonOff := (lon - lr.Min) / (lr.Max - lr.Min)
	scale := float64(uint64(1) << step)
	latOff *= scale
	lonOff *= scale
	// The offsets are in [0, 2^step]: converted as C converts a double
	// to uint32_t, toward zero.
	return Bits{Bits: interleave(uint32(latOff), uint32(lonOff)), Step: step}, true
}

// Encode is the cell of a point at step bits per coordinate (Redis's
// geohashEncodeWGS84); ok is false outside the storable limits.
func Encode(lon, lat float64, step uint8) (Bits, bool) {
	return encode(lon, lat, lonRange, latRange, step)
}

// Score is the sorted-set score GEOADD stores for a point within the
// limits: its 52-bit cell.
func Score(lon, lat float64) uint64 {
	b, _ := Encode(lon, lat, StepMax)
	return b.Align52()
}

// decode is Redis's geohashDecode: the coordinates b's cell covers.
func decode(b Bits, lr, ar Range) Area {
	lat, lon := cells(b.Bits)
	scale := float64(uint64(1) << b.Step)
	latScale := ar.Max - ar.Min
	lonScale := lr.Max - lr.Min
	// lat+1 and lon+1 wrap at 32 bits, as Redis's uint32_t sums do. The
	// float64 conversions keep each product rounded before the sum (no
	// fused multiply-add), as Redis's x86-64 build computes it; so below.
	return Area{
		Hash: b,
		Lat: Range{
			Min: ar.Min + float64(float64(lat)/scale*latScale),
			Max: ar.Min + float64(float64(lat+1)/scale*latScale),
		},
		Lon: Range{
			Min: lr.Min + float64(float64(lon)/scale*lonScale),
			Max: lr.Min + float64(float64(lon+1)/scale*lonScale),
		},
	}
}

// Decode is the area of b in the storable ranges.
func Decode(b Bits) Area { return decode(b, lonRange, latRange) }

// Center is the middle of the area, clamped to the storable limits: the
// position GEOPOS reports (Redis's geohashDecodeAreaToLongLat).
func (a Area) Center() (lon, lat float64) {
	lon = (a.Lon.Min + a.Lon.Max) / 2
	lon = min(max(lon, LonMin), LonMax)
	lat = (a.Lat.Min + a.Lat.Max) / 2
	lat = min(max(lat, LatMin), LatMax)
	return lon, lat
}

// FromScore decodes a member's score into its position, as Redis's
// decodeGeohash: the score is cast to a 64-bit cell word (any score, not
// only GEOADD's, decodes to some clamped position).
func FromScore(score float64) (lon, lat float64) {
	return Decode(Bits{Bits: cUint64(score), Step: StepMax}).Center()
}

// cUint64 is C's (uint64_t) cast of a double as x86-64 code performs it
// (cvttsd2si, with 2^63 subtracted first for large values): in-range
// values truncate; others give what that hardware sequence gives, where Go
// leaves the result undefined.
func cUint64(f float64) uint64 {
	const two63 = 9223372036854775808.0
	if f >= two63 {
		return uint64(cInt64(f-two63)) ^ (1 << 63)
	}
	return uint64(cInt64(f))
}

// cInt64 is cvttsd2si: truncation, and the "integer indefinite"
// 0x8000000000000000 for NaN and values outside int64.
func cInt64(f float64) int64 {
	if f != f || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return -1 << 63
	}
	return int64(f)
}

// CInt64 is C's (long long) cast of a score, as Redis's WITHHASH reply
// takes it.
func CInt64(score float64) int64 { return cInt64(score) }

// String is the standard 11-character geohash of a stored score, as
// GEOHASH writes it: the position re-encoded over latitudes -90..90 (Redis
// stores -85..85), five bits per character, the last one always '0'
// (52 bits give ten characters and two bits).
func String(score float64) [11]byte {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	lon, lat := FromScore(score)
	b, _ := encode(lon, lat, lonRange, stdLatRange, StepMax)
	var s [11]byte
	for i := 0; i < 10; i++ {
		s[i] = alphabet[(b.Bits>>(52-5*(i+1)))&0x1f]
	}
	s[10] = alphabet[0]
	return s
}

// Neighbors are the eight boxes around a geohash box, at its step.
type Neighbors struct {
	North, South, East, West                   Bits
	NorthEast, NorthWest, SouthEast, SouthWest Bits
}

// move shifts b by dlon cells east (negative: west) and dlat cells north,
// each coordinate wrapping modulo 2^step (Redis's geohash_move_x and _y:
// the moved coordinate keeps only its step bits, the other keeps all its
// bits).
func (b Bits) move(dlon, dlat int) Bits {
	lat, lon := cells(b.Bits)
	mask := uint32(1)<<b.Step - 1
	if dlon != 0 {
		lon = (lon + uint32(int32(dlon))) & mask
	}
	if dlat != 0 {
		lat = (lat + uint32(int32(dlat))) & mask
	}
	return Bits{Bits: interleave(lat, lon), Step: b.Step}
}

// neighbors returns the eight boxes around b.
func (b Bits) neighbors() Neighbors {
	return Neighbors{
		North: b.move(0, 1), South: b.move(0, -1), East: b.move(1, 0), West: b.move(-1, 0),
		NorthEast: b.move(1, 1), NorthWest: b.move(-1, 1), SouthEast: b.move(1, -1), SouthWest: b.move(-1, -1),
	}
}
