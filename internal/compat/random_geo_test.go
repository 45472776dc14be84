package compat

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"testing"
)

// TestRandomGeo sends the same seeded random stream of GEO commands to
// redis-server and to Tandem and compares every reply byte for byte:
// points clustered around a few centres (near the poles and the
// antimeridian among them) and spread over the world, members at
// identical positions, searches of every form and size from a metre to
// the whole Earth with random options, stores read back with their
// encodings. It runs on the sorted-set fuzzer's connections and helpers
// (random_zset_test.go), with zset-max-listpack-entries moving so both
// encodings are searched.
//
// One loosening, named: the scores a STOREDIST writes are distances with
// 17 significant digits, which glibc's sin, cos and asin (within an ulp,
// not always correctly rounded, and CPU-dependent) and Tandem's correctly
// rounded ones can make differ in the last few bits (see
// cases_geo_test.go). Those destinations are compared member by member,
// scores within geoScoreUlps units in the last place. Every distance a
// reply prints has four decimals and is compared exactly.
//
// COMPAT_SEED=n replays another stream.
func TestRandomGeo(t *testing.T) {
	seed := envSeed(t, 20261201)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			f := &geoFuzz{zsetFuzz: newZsetFuzz(t, proto, seed+uint64(proto))}
			f.exact("CONFIG", "SET", "zset-max-listpack-entries", "64")
			f.run(2500)
		})
	}
}

// geoScoreUlps bounds how far apart two STOREDIST scores may be.
const geoScoreUlps = 16

type geoFuzz struct {
	*zsetFuzz
	searches, stores, looseScores int
}

// geoCentres are the clusters' centres: Sicily, both sides of the
// antimeridian, near both poles, Paris, New York, Tokyo.
var geoCentres = [][2]float64{{13.36, 38.11}, {-179.9, 0.5}, {179.95, -10}, {0, 84.9}, {0, -84.9}, {2.35, 48.85}, {-73.98, 40.75}, {139.7, 35.7}}

var (
	geoUnits = []string{"m", "km", "mi", "ft", "KM"}
	geoRadii = []string{"0", "1", "100", "5000", "50000", "500000", "2000000", "5000000", "9000000", "20000000", "1e8", "0.5"}
	geoKeys  = []string{"g1", "g2"}
)

func (f *geoFuzz) coord(v float64) string {
	return strconv.FormatFloat(v, 'f', []int{1, 3, 6, 9}[f.rng.IntN(4)], 64)
}

// point is a longitude and a latitude, mostly near a centre; now and then
// at the limits, out of range or not a number.
func (f *geoFuzz) point() (string, string) {
	switch k := f.rng.IntN(100); {
	case k < 60:
		c := geoCentres[f.rng.IntN(len(geoCentres))]
		spread := []float64{0.001, 0.05, 1, 5}
		lon := c[0] + f.rng.NormFloat64()*spread[f.rng.IntN(4)]
		lat := c[1] + f.rng.NormFloat64()*spread[f.rng.IntN(4)]
		return f.coord(max(-180, min(180, lon))), f.coord(max(-85.05112878, min(85.05112878, lat)))
	case k < 64:
		return f.pick([]string{"180", "-180", "0"}), f.pick([]string{"85.05112878", "-85.05112878", "0"})
	case k < 66:
		return f.pick([]string{"180.5", "abc", "10"}), f.pick([]string{"86", "10", "-90"})
	}
	return f.coord(f.rng.Float64()*360 - 180), f.coord(f.rng.Float64()*170.1 - 85.05)
}

func (f *geoFuzz) geoMember() string { return "m" + strconv.Itoa(f.rng.IntN(200)) }

func (f *geoFuzz) geoKey() string {
	switch f.rng.IntN(40) {
	case 0:
		return "str"
	case 1:
		return "nosuch"
	}
	return f.pick(geoKeys)
}

func (f *geoFuzz) radius() string {
	if f.rng.IntN(10) < 7 {
		return f.pick(geoRadii)
	}
	return strconv.FormatFloat(f.rng.Float64()*3e6, 'f', 3, 64)
}

// options are a search's random options; with store, none of the
// WITH… ones (they are an error there, which the error cases cover).
func (f *geoFuzz) options(store bool) []string {
	var o []string
	for _, w := range []string{"WITHDIST", "WITHHASH", "WITHCOORD"} {
		if !store && f.rng.IntN(10) < 3 {
			o = append(o, w)
		}
	}
	if f.rng.IntN(2) == 0 {
		o = append(o, f.pick([]string{"ASC", "DESC"}))
	}
	if f.rng.IntN(10) < 4 {
		o = append(o, "COUNT", f.pick([]string{"1", "2", "3", "5", "10", "50"}))
		if f.rng.IntN(10) < 3 {
			o = append(o, "ANY")
		}
	}
	f.rng.Shuffle(len(o), func(i, j int) {
		if o[i] != "COUNT" && o[j] != "COUNT" && !isNumber(o[i]) && !isNumber(o[j]) {
			o[i], o[j] = o[j], o[i]
		}
	})
	return o
}

// shape is FROMMEMBER or FROMLONLAT, then BYRADIUS or BYBOX.
func (f *geoFuzz) shape() []string {
	var a []string
	if f.rng.IntN(2) == 0 {
		a = append(a, "FROMMEMBER", f.geoMember())
	} else {
		lon, lat := f.point()
		a = append(a, "FROMLONLAT", lon, lat)
	}
	if f.rng.IntN(2) == 0 {
		return append(a, "BYRADIUS", f.radius(), f.pick(geoUnits))
	}
	return append(a, "BYBOX", f.radius(), f.radius(), f.pick(geoUnits))
}

func (f *geoFuzz) run(steps int) {
	for i := 0; i < steps; i++ {
		f.geoStep()
	}
	f.t.Logf("%d commands, %d errors, %d searches, %d stores, %d STOREDIST scores a few ulps apart, %d skiplist encodings seen",
		f.n, f.errors, f.searches, f.stores, f.looseScores, f.skiplists)
}

func (f *geoFuzz) geoStep() {
	f.t.Helper()
	key := f.geoKey()
	switch op := f.rng.IntN(20); op {
	case 0, 1, 2, 3, 4, 5: // GEOADD
		args := []string{"GEOADD", key}
		for _, o := range []string{"NX", "XX", "CH"} {
			if f.rng.IntN(12) == 0 {
				args = append(args, o)
			}
		}
		for n := 1 + f.rng.IntN(8); n > 0; n-- {
			lon, lat := f.point()
			args = append(args, lon, lat, f.geoMember())
		}
		f.exact(args...)
		f.checkEncodings(key)
	case 6:
		f.exact("GEODIST", key, f.geoMember(), f.geoMember(), f.pick(geoUnits))
	case 7:
		f.exact("GEOPOS", key, f.geoMember(), f.geoMember(), f.geoMember())
		f.exact("GEOHASH", key, f.geoMember(), f.geoMember())
	case 8, 9, 10: // GEORADIUS, GEORADIUS_RO
		lon, lat := f.point()
		f.searches++
		f.exact(append([]string{f.pick([]string{"GEORADIUS", "GEORADIUS_RO"}), key, lon, lat, f.radius(), f.pick(geoUnits)}, f.options(false)...)...)
	case 11, 12: // GEORADIUSBYMEMBER, _RO
		f.searches++
		f.exact(append([]string{f.pick([]string{"GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"}), key, f.geoMember(), f.radius(), f.pick(geoUnits)}, f.options(false)...)...)
	case 13, 14, 15: // GEOSEARCH
		f.searches++
		f.exact(append(append([]string{"GEOSEARCH", key}, f.shape()...), f.options(false)...)...)
	case 16, 17: // the stores: STORE to "dst", STOREDIST to "dstd"
		f.stores++
		dist := f.rng.IntN(2) == 0
		dst := "dst"
		if dist {
			dst = "dstd"
		}
		var args []string
		switch f.rng.IntN(3) {
		case 0:
			lon, lat := f.point()
			args = []string{"GEORADIUS", key, lon, lat, f.radius(), f.pick(geoUnits)}
		case 1:
			args = []string{"GEORADIUSBYMEMBER", key, f.geoMember(), f.radius(), f.pick(geoUnits)}
		case 2:
			args = append([]string{"GEOSEARCHSTORE", dst, key}, f.shape()...)
		}
		args = append(args, f.options(true)...)
		switch {
		case args[0] == "GEOSEARCHSTORE" && dist:
			args = append(args, "STOREDIST")
		case args[0] == "GEOSEARCHSTORE":
		case dist:
			args = append(args, "STOREDIST", dst)
		default:
			args = append(args, "STORE", dst)
		}
		f.exact(args...)
		if dist {
			f.storedDistances(dst)
		} else {
			f.exact("ZRANGE", dst, "0", "-1", "WITHSCORES")
		}
		f.checkEncodings(dst)
	case 18: // members removed, foreign scores, thresholds
		switch f.rng.IntN(4) {
		case 0:
			f.exact("ZREM", key, f.geoMember(), f.geoMember())
		case 1:
			f.exact("ZADD", key, f.pick([]string{"-1", "0", "1e300", "inf", "4503599627370496", "3479099956230698"}), f.geoMember())
		case 2:
			f.exact("CONFIG", "SET", "zset-max-listpack-entries", f.pick([]string{"3", "64", "128"}))
		case 3:
			if f.rng.IntN(4) == 0 {
				f.exact("DEL", key)
			}
		}
	case 19:
		f.exact("ZRANGE", key, "0", "-1", "WITHSCORES")
		f.checkEncodings(key)
	}
}

// storedDistances compares a STOREDIST destination: the same members in
// the same order, each score within geoScoreUlps of the reference's.
func (f *geoFuzz) storedDistances(key string) {
	f.t.Helper()
	r, s := f.both("ZRANGE", key, "0", "-1", "WITHSCORES")
	if bytes.Equal(r.raw, s.raw) {
		return
	}
	rm, rs, ok1 := zsetPairs(r)
	sm, ss, ok2 := zsetPairs(s)
	if !ok1 || !ok2 || len(rm) != len(sm) {
		f.fail("ZRANGE %s WITHSCORES after STOREDIST:\n  redis:  %q\n  %s: %q", key, r.raw, sideName(), s.raw)
	}
	for i := range rm {
		if rm[i] != sm[i] || !withinUlps(rs[i], ss[i], geoScoreUlps) {
			f.fail("ZRANGE %s WITHSCORES after STOREDIST, element %d: %s %v, redis %s %v\n  redis:  %q\n  %s: %q",
				key, i, sm[i], ss[i], rm[i], rs[i], r.raw, sideName(), s.raw)
		}
		if rs[i] != ss[i] {
			f.looseScores++
		}
	}
}

// zsetPairs reads a ZRANGE … WITHSCORES reply, flat (RESP2) or of pairs
// (RESP3).
func zsetPairs(r reply) (members []string, scores []float64, ok bool) {
	if r.kind != '*' {
		return nil, nil, false
	}
	add := func(m, s reply) bool {
		v, err := strconv.ParseFloat(s.text, 64)
		members, scores = append(members, m.text), append(scores, v)
		return err == nil
	}
	for i := 0; i < len(r.elems); i++ {
		e := r.elems[i]
		switch {
		case e.kind == '*' && len(e.elems) == 2:
			if !add(e.elems[0], e.elems[1]) {
				return nil, nil, false
			}
		case i+1 < len(r.elems):
			if !add(e, r.elems[i+1]) {
				return nil, nil, false
			}
			i++
		default:
			return nil, nil, false
		}
	}
	return members, scores, true
}

// withinUlps reports whether a and b, of one sign, are at most n
// representable doubles apart.
func withinUlps(a, b float64, n int64) bool {
	if a == b {
		return true
	}
	if math.Signbit(a) != math.Signbit(b) || math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	d := int64(math.Float64bits(a)) - int64(math.Float64bits(b))
	return d <= n && d >= -n
}
