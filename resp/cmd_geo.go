package resp

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/geohash"
	"github.com/tandemkv/tandem/internal/num"
)

// geoCommands is the GEO family (Redis group "geo"): points stored as
// members of sorted sets, scored by their 52-bit geohash
// (internal/geohash does the arithmetic). Arity, flags, key positions,
// since and summary are redis 7.0.15's. GEORADIUS and GEORADIUSBYMEMBER
// are movablekeys: their STORE and STOREDIST destinations are found by
// geoStoreKeys.
func geoCommands() []*Command {
	const (
		wd = FlagWrite | FlagDenyOOM
		ro = FlagReadonly
		g  = "geo"
	)
	acl := []string{"@geo"}
	storeFlags := []KeyFlag{ksROAccess, ksOWUpdate}
	return []*Command{
		{Name: "geoadd", Arity: -5, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "3.2.0", Summary: "Add one or more geospatial items in the geospatial index represented using a sorted set", Run: cmdGeoAdd},
		{Name: "geodist", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "3.2.0", Summary: "Returns the distance between two members of a geospatial index", Run: cmdGeoDist},
		{Name: "geohash", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "3.2.0", Summary: "Returns members of a geospatial index as standard geohash strings", Run: cmdGeoHash},
		{Name: "geopos", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "3.2.0", Summary: "Returns longitude and latitude of members of a geospatial index", Run: cmdGeoPos},
		{Name: "georadius", Arity: -6, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, Keys: geoStoreKeys(6), KeyFlags: storeFlags, Group: g, ACL: acl, Since: "3.2.0", Summary: "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point", Run: cmdGeoRadius},
		{Name: "georadius_ro", Arity: -6, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "3.2.10", Summary: "A read-only variant for GEORADIUS", Run: cmdGeoRadiusRO},
		{Name: "georadiusbymember", Arity: -5, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, Keys: geoStoreKeys(5), KeyFlags: storeFlags, Group: g, ACL: acl, Since: "3.2.0", Summary: "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member", Run: cmdGeoRadiusByMember},
		{Name: "georadiusbymember_ro", Arity: -5, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "3.2.10", Summary: "A read-only variant for GEORADIUSBYMEMBER", Run: cmdGeoRadiusByMemberRO},
		{Name: "geosearch", Arity: -7, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "6.2.0", Summary: "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.", Run: cmdGeoSearch},
		{Name: "geosearchstore", Arity: -8, Flags: wd, FirstKey: 1, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate, ksROAccess}, Group: g, ACL: acl, Since: "6.2.0", Summary: "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.", Run: cmdGeoSearchStore},
	}
}

// GEO family: error texts, checked against redis-server 7.0.15. The ones
// holding %s are formats.
const (
	errGeoUnit       = "ERR unsupported unit provided. please use M, KM, FT, MI"
	errGeoRadius     = "ERR need numeric radius"
	errGeoRadiusNeg  = "ERR radius cannot be negative"
	errGeoWidth      = "ERR need numeric width"
	errGeoHeight     = "ERR need numeric height"
	errGeoBoxNeg     = "ERR height or width cannot be negative"
	errGeoMember     = "ERR could not decode requested zset member"
	errGeoCount      = "ERR COUNT must be > 0"
	errGeoAnyCount   = "ERR the ANY argument requires COUNT argument"
	errGeoLonLat     = "ERR invalid longitude,latitude pair %s,%s"                              // %f, %f
	errGeoStoreWith  = "ERR %s is not compatible with WITHDIST, WITHHASH and WITHCOORD options" // the store's name
	errGeoFromOne    = "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %s"    // the command as sent
	errGeoByOne      = "ERR exactly one of BYRADIUS and BYBOX can be specified for %s"          // the command as sent
	geoStoreGeoRad   = "STORE option in GEORADIUS"
	geoStoreGeoSrch  = "GEOSEARCHSTORE"
	geoEventRadius   = "georadiusstore"
	geoEventSearch   = "geosearchstore"
	geoDistanceDigit = 4 // fractional digits of a distance reply
)

// --- arguments ---

// geoLonLat parses a longitude and a latitude as Redis's
// extractLongLatOrReply: two floats, then the storable limits. It returns
// the error text on failure.
func geoLonLat(lonArg, latArg []byte) (lon, lat float64, errMsg string) {
	var ok bool
	if lon, ok = num.ParseFloat(lonArg); !ok {
		return 0, 0, ErrNotFloat
	}
	if lat, ok = num.ParseFloat(latArg); !ok {
		return 0, 0, ErrNotFloat
	}
	if lon < geohash.LonMin || lon > geohash.LonMax || lat < geohash.LatMin || lat > geohash.LatMax {
		return 0, 0, fmt.Sprintf(errGeoLonLat, cFixed6(lon), cFixed6(lat))
	}
	return lon, lat, ""
}

// cFixed6 is C's printf("%f"): six decimals, "inf" and "-inf".
func cFixed6(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoUnit is the metres in a unit (Redis's extractUnitOrReply: m, km, ft,
// mi in any case), or ok false.
func geoUnit(b []byte) (metres float64, ok bool) {
	switch {
	case argIsC(b, "M"):
		return 1, true
	case argIsC(b, "KM"):
		return 1000, true
	case argIsC(b, "FT"):
		return 0.3048, true
	case argIsC(b, "MI"):
		return 1609.34, true
	}
	return 0, false
}

// geoRadiusArgs parses <radius> <unit> (Redis's extractDistanceOrReply).
func geoRadiusArgs(radiusArg, unitArg []byte) (radius, conv float64, errMsg string) {
	radius, ok := num.ParseFloat(radiusArg)
	switch {
	case !ok:
		return 0, 0, errGeoRadius
	case radius < 0:
		return 0, 0, errGeoRadiusNeg
	}
	if conv, ok = geoUnit(unitArg); !ok {
		return 0, 0, errGeoUnit
	}
	return radius, conv, ""
}

// geoBoxArgs parses <width> <height> <unit> (Redis's extractBoxOrReply).
func geoBoxArgs(widthArg, heightArg, unitArg []byte) (width, height, conv float64, errMsg string) {
	width, ok := num.ParseFloat(widthArg)
	if !ok {
		return 0, 0, 0, errGeoWidth
	}
	if height, ok = num.ParseFloat(heightArg); !ok {
		return 0, 0, 0, errGeoHeight
	}
	if height < 0 || width < 0 {
		return 0, 0, 0, errGeoBoxNeg
	}
	if conv, ok = geoUnit(unitArg); !ok {
		return 0, 0, 0, errGeoUnit
	}
	return width, height, conv, ""
}

// --- replies ---

// appendGeoDistance appends a distance as Redis's fixedpoint_d2string
// with 4 digits writes it: the value times 10^4 rounded half to even
// (llrint) to an integer, printed with a decimal point; a product outside
// 64 bits (or NaN) prints LLONG_MIN's digits, as llrint gives.
func appendGeoDistance(b []byte, d float64) []byte {
	const scale = 10000
	if d == 0 {
		return append(b, "0.0000"...)
	}
	r := math.RoundToEven(d * scale)
	v := int64(math.MinInt64)
	if r >= -9223372036854775808.0 && r < 9223372036854775808.0 {
		v = int64(r)
	}
	u := uint64(v)
	if v < 0 {
		b = append(b, '-')
		u = -u
	}
	var digits [20]byte
	ds := strconv.AppendUint(digits[:0], u, 10)
	if n := len(ds) - geoDistanceDigit; n > 0 {
		b = append(b, ds[:n]...)
		ds = ds[n:]
	} else {
		b = append(b, '0')
	}
	b = append(b, '.')
	for i := len(ds); i < geoDistanceDigit; i++ {
		b = append(b, '0')
	}
	return append(b, ds...)
}

// geoDistance writes a distance as a bulk string, in both protocols.
func (c *Client) geoDistance(d float64) {
	var tmp [32]byte
	c.w.Bulk(appendGeoDistance(tmp[:0], d))
}

// geoCoord writes a coordinate as Redis's addReplyHumanLongDouble: the
// exact value to 17 decimals, trailing zeros cut ("%.17Lf" as ld2string's
// human mode, the float64 case of num.FormatLongDoubleHuman), a bulk
// string in RESP2 and a double in RESP3.
func (c *Client) geoCoord(f float64) {
	var tmp [48]byte
	text := strconv.AppendFloat(tmp[:0], f, 'f', 17, 64)
	for text[len(text)-1] == '0' {
		text = text[:len(text)-1]
	}
	if text[len(text)-1] == '.' {
		text = text[:len(text)-1]
	}
	if string(text) == "-0" {
		text = text[1:]
	}
	if !c.w.resp3() {
		c.w.Bulk(text)
		return
	}
	c.w.Buf = append(c.w.Buf, ',')
	c.w.Buf = append(c.w.Buf, text...)
	c.w.Buf = append(c.w.Buf, '\r', '\n')
}

// --- GEOADD, GEODIST, GEOHASH, GEOPOS ---

// cmdGeoAdd is GEOADD key [NX|XX] [CH] lon lat member ..., as Redis's
// geoaddCommand: the options, then every position is checked and turned
// into its score, and the command runs as the ZADD it becomes (its
// replies, errors after the positions', and "zadd" event).
func cmdGeoAdd(c *Client, args [][]byte) {
	nx, xx := false, false
	i := 2
options:
	for ; i < len(args); i++ {
		switch a := args[i]; {
		case argIsC(a, "NX"):
			nx = true
		case argIsC(a, "XX"):
			xx = true
		case argIsC(a, "CH"): // ZADD's
		default:
			break options
		}
	}
	if (len(args)-i)%3 != 0 || (nx && xx) {
		c.w.Error(ErrSyntax)
		return
	}
	zargs := make([][]byte, 0, i+(len(args)-i)/3*2)
	zargs = append(zargs, []byte("zadd"))
	zargs = append(zargs, args[1:i]...)
	for j := i; j < len(args); j += 3 {
		lon, lat, msg := geoLonLat(args[j], args[j+1])
		if msg != "" {
			c.w.Error(msg)
			return
		}
		zargs = append(zargs, strconv.AppendUint(nil, geohash.Score(lon, lat), 10), args[j+2])
	}
	zaddGeneric(c, zargs, 0)
}

// cmdGeoDist is GEODIST key member1 member2 [unit]: the unit is checked
// first, then the key; a missing key or member is a null.
func cmdGeoDist(c *Client, args [][]byte) {
	toMetres := 1.0
	switch {
	case len(args) == 5:
		var ok bool
		if toMetres, ok = geoUnit(args[4]); !ok {
			c.w.Error(errGeoUnit)
			return
		}
	case len(args) > 5:
		c.w.Error(ErrSyntax)
		return
	}
	var scores [2]float64
	n, found := 0, 0
	err := c.db.ZMScore(args[1], args[2:4], func(s float64, ok bool) {
		scores[n] = s
		n++
		if ok {
			found++
		}
	})
	switch {
	case err != nil:
		c.zsetError(err)
	case found < 2:
		c.w.Null()
	default:
		lon1, lat1 := geohash.FromScore(scores[0])
		lon2, lat2 := geohash.FromScore(scores[1])
		c.geoDistance(geohash.Distance(lon1, lat1, lon2, lat2) / toMetres)
	}
}

// geoEachScore calls fn with each member's score (ok false when missing)
// inside an array of one element per member, as GEOHASH and GEOPOS reply;
// a missing key gives every element missing.
func (c *Client) geoEachScore(args [][]byte, fn func(score float64, ok bool)) {
	started := false
	err := c.db.ZMScore(args[1], args[2:], func(s float64, ok bool) {
		if !started {
			c.w.Array(len(args) - 2)
			started = true
		}
		fn(s, ok)
	})
	switch {
	case err != nil:
		c.zsetError(err)
	case !started:
		c.w.Array(0)
	}
}

// cmdGeoHash is GEOHASH key member...: each member's standard 11-character
// geohash, or a null.
func cmdGeoHash(c *Client, args [][]byte) {
	c.geoEachScore(args, func(s float64, ok bool) {
		if !ok {
			c.w.Null()
			return
		}
		h := geohash.String(s)
		c.w.Bulk(h[:])
	})
}

// cmdGeoPos is GEOPOS key member...: each member's [longitude, latitude],
// or a null array.
func cmdGeoPos(c *Client, args [][]byte) {
	c.geoEachScore(args, func(s float64, ok bool) {
		if !ok {
			c.w.NullArray()
			return
		}
		lon, lat := geohash.FromScore(s)
		c.w.Array(2)
		c.geoCoord(lon)
		c.geoCoord(lat)
	})
}

// --- the searches ---

// geoVariant is which search command runs, as Redis's georadiusGeneric
// flags.
type geoVariant uint8

const (
	geoFromCoords  geoVariant = 1 << iota // GEORADIUS[_RO] key lon lat radius unit
	geoFromMember                         // GEORADIUSBYMEMBER[_RO] key member radius unit
	geoNoStore                            // the _RO forms: no STORE, STOREDIST
	geoSearchForm                         // GEOSEARCH[STORE]: FROM… and BY… options
	geoSearchStore                        // GEOSEARCHSTORE dst src: STOREDIST without a key
)

func cmdGeoRadius(c *Client, args [][]byte)   { geoSearchGeneric(c, args, geoFromCoords) }
func cmdGeoRadiusRO(c *Client, args [][]byte) { geoSearchGeneric(c, args, geoFromCoords|geoNoStore) }
func cmdGeoRadiusByMember(c *Client, args [][]byte) {
	geoSearchGeneric(c, args, geoFromMember)
}
func cmdGeoRadiusByMemberRO(c *Client, args [][]byte) {
	geoSearchGeneric(c, args, geoFromMember|geoNoStore)
}
func cmdGeoSearch(c *Client, args [][]byte) { geoSearchGeneric(c, args, geoSearchForm) }
func cmdGeoSearchStore(c *Client, args [][]byte) {
	geoSearchGeneric(c, args, geoSearchForm|geoSearchStore)
}

// geoSort is a search's ordering.
type geoSort uint8

const (
	geoUnsorted geoSort = iota // the order the boxes were read in
	geoAsc
	geoDesc
)

// geoQuery is a parsed search. Parsing needs no key: the positions of
// members (GEORADIUSBYMEMBER's, FROMMEMBER's) are looked up under the
// key's lock afterwards, in the order Redis looks them up among its
// argument checks, so the first error is Redis's first error.
type geoQuery struct {
	shape geohash.Shape
	// lookups are the members whose positions Redis looks up while
	// parsing, in order, before err; the last one is the centre. They are
	// looked up only when the key exists.
	lookups [][]byte
	// radiusErr is GEORADIUSBYMEMBER's error in <radius> <unit>, which
	// Redis checks after the member and only when the key exists.
	radiusErr                          string
	err                                string // the first other error, after the lookups
	withDist, withHash, withCoord, any bool
	sort                               geoSort
	count                              int64 // 0: all
	store                              []byte
	storeDist                          bool
}

// parseGeoQuery parses a search's arguments as Redis's georadiusGeneric,
// which stops at the first error: the centre and distance of
// GEORADIUS(BYMEMBER), then the options in one pass (each word's own
// checks as it is met), then their combinations.
func parseGeoQuery(args [][]byte, v geoVariant) *geoQuery {
	q := &geoQuery{}
	var base int
	switch {
	case v&geoFromCoords != 0:
		base = 6
		if q.shape.Lon, q.shape.Lat, q.err = geoLonLat(args[2], args[3]); q.err != "" {
			return q
		}
		if q.shape.Radius, q.shape.Conversion, q.err = geoRadiusArgs(args[4], args[5]); q.err != "" {
			return q
		}
	case v&geoFromMember != 0:
		base = 5
		q.lookups = append(q.lookups, args[2])
		q.shape.Radius, q.shape.Conversion, q.radiusErr = geoRadiusArgs(args[3], args[4])
	case v&geoSearchStore != 0:
		base = 3
		q.store = args[1]
	default:
		base = 2
	}
	search := v&geoSearchForm != 0
	storeOption := v&(geoNoStore|geoSearchForm) == 0
	var fromMember, fromLonLat, byRadius, byBox bool
	for j := base; j < len(args) && q.err == ""; j++ {
		left := len(args) - j - 1
		switch a := args[j]; {
		case argIsC(a, "WITHDIST"):
			q.withDist = true
		case argIsC(a, "WITHHASH"):
			q.withHash = true
		case argIsC(a, "WITHCOORD"):
			q.withCoord = true
		case argIsC(a, "ANY"):
			q.any = true
		case argIsC(a, "ASC"):
			q.sort = geoAsc
		case argIsC(a, "DESC"):
			q.sort = geoDesc
		case argIsC(a, "COUNT") && left >= 1:
			n, ok := num.ParseInt(args[j+1])
			switch {
			case !ok:
				q.err = ErrNotInteger
			case n <= 0:
				q.err = errGeoCount
			}
			q.count = n
			j++
		case (argIsC(a, "STORE") || argIsC(a, "STOREDIST")) && left >= 1 && storeOption:
			q.store, q.storeDist = args[j+1], argIsC(a, "STOREDIST")
			j++
		case argIsC(a, "STOREDIST") && v&geoSearchStore != 0:
			q.storeDist = true
		case argIsC(a, "FROMMEMBER") && left >= 1 && search && !fromLonLat:
			q.lookups = append(q.lookups, args[j+1])
			fromMember = true
			j++
		case argIsC(a, "FROMLONLAT") && left >= 2 && search && !fromMember:
			q.shape.Lon, q.shape.Lat, q.err = geoLonLat(args[j+1], args[j+2])
			fromLonLat = true
			j += 2
		case argIsC(a, "BYRADIUS") && left >= 2 && search && !byBox:
			q.shape.Radius, q.shape.Conversion, q.err = geoRadiusArgs(args[j+1], args[j+2])
			q.shape.Box, byRadius = false, true
			j += 2
		case argIsC(a, "BYBOX") && left >= 3 && search && !byRadius:
			q.shape.Width, q.shape.Height, q.shape.Conversion, q.err = geoBoxArgs(args[j+1], args[j+2], args[j+3])
			q.shape.Box, byBox = true, true
			j += 3
		default:
			q.err = ErrSyntax
		}
	}
	switch {
	case q.err != "":
	case q.store != nil && (q.withDist || q.withHash || q.withCoord):
		name := geoStoreGeoRad
		if v&geoSearchStore != 0 {
			name = geoStoreGeoSrch
		}
		q.err = fmt.Sprintf(errGeoStoreWith, name)
	case search && !fromMember && !fromLonLat:
		q.err = fmt.Sprintf(errGeoFromOne, args[0])
	case search && !byRadius && !byBox:
		q.err = fmt.Sprintf(errGeoByOne, args[0])
	case q.any && q.count == 0:
		q.err = errGeoAnyCount
	}
	return q
}

// geoStoreKeys finds the keys of GEORADIUS and GEORADIUSBYMEMBER as redis
// 7.0's key specs do: the source, then the argument after the first
// STORE, then after the first STOREDIST, each searched from argument
// startFrom on (a keyword in last place names no key).
func geoStoreKeys(startFrom int) func(args [][]byte) []int {
	return func(args [][]byte) []int {
		keys := []int{1}
		for _, word := range []string{"STORE", "STOREDIST"} {
			for i := startFrom; i < len(args)-1; i++ {
				if argIsC(args[i], word) {
					keys = append(keys, i+1)
					break
				}
			}
		}
		return keys
	}
}

// geoPoint is a member a search found; member is valid under the lock.
type geoPoint struct {
	member   []byte
	score    float64
	dist     float64 // metres
	lon, lat float64
}

// geoSearchGeneric runs a search command: the arguments are parsed, then
// the source key is read (a key of another type is WRONGTYPE before any
// argument error, as in Redis, whose lookup comes first) and, with a
// destination, the result stored in the same locked step.
func geoSearchGeneric(c *Client, args [][]byte, v geoVariant) {
	q := parseGeoQuery(args, v)
	src := args[1]
	if v&geoSearchStore != 0 {
		src = args[2]
	}
	if q.store == nil {
		err := c.db.ZViewRead(src, func(z *engine.ZView) { c.geoRun(q, z) })
		if err != nil {
			c.zsetError(err)
		}
		return
	}
	stored, n := false, 0
	err := c.db.ZViewStore(q.store, src, c.zsetLimits(), func(z *engine.ZView) ([]engine.ZMember, bool) {
		members, ok := c.geoRun(q, z)
		stored, n = ok, len(members)
		return members, ok
	})
	switch {
	case err != nil:
		c.zsetError(err)
	case stored:
		if n > 0 {
			event := geoEventRadius
			if v&geoSearchForm != 0 {
				event = geoEventSearch
			}
			c.notify(evZSet, event, q.store)
		}
		c.w.Int(int64(n))
	}
}

// geoRun answers q on the sorted set z (nil: missing), under its lock:
// the member lookups and errors in Redis's order, then the search. Without
// a destination it writes the reply; with one it returns the members to
// store (ok true; the caller replies their number).
func (c *Client) geoRun(q *geoQuery, z *engine.ZView) (members []engine.ZMember, ok bool) {
	if z != nil {
		for _, m := range q.lookups {
			s, found := z.Score(m)
			if !found {
				c.w.Error(errGeoMember)
				return nil, false
			}
			q.shape.Lon, q.shape.Lat = geohash.FromScore(s)
		}
		if q.radiusErr != "" {
			c.w.Error(q.radiusErr)
			return nil, false
		}
	}
	if q.err != "" {
		c.w.Error(q.err)
		return nil, false
	}
	if z == nil {
		if q.store != nil {
			return nil, true
		}
		c.w.Array(0)
		return nil, false
	}
	if q.count != 0 && q.sort == geoUnsorted && !q.any {
		q.sort = geoAsc // the nearest COUNT, as Redis
	}
	pts := c.geoCollect(q, z)
	if len(pts) == 0 && q.store == nil {
		c.w.Array(0)
		return nil, false
	}
	returned := len(pts)
	if q.count != 0 && q.count < int64(returned) {
		returned = int(q.count)
	}
	if q.sort != geoUnsorted {
		cmp := func(a, b geoPoint) int { // Redis's sort_gp_asc: NaN compares below
			switch {
			case a.dist > b.dist:
				return 1
			case a.dist == b.dist:
				return 0
			}
			return -1
		}
		if q.sort == geoDesc {
			asc := cmp
			cmp = func(a, b geoPoint) int { return -asc(a, b) }
		}
		if returned == len(pts) {
			geohash.SortAll(pts, cmp)
		} else {
			geohash.SortFirst(pts, returned, cmp)
		}
	}
	pts = pts[:returned]
	conv := q.shape.Conversion
	if q.store != nil {
		members = make([]engine.ZMember, len(pts))
		for i, p := range pts {
			members[i] = engine.ZMember{Member: p.member, Score: p.score}
			if q.storeDist {
				members[i].Score = p.dist / conv
			}
		}
		return members, true
	}
	opts := 0
	for _, on := range []bool{q.withDist, q.withHash, q.withCoord} {
		if on {
			opts++
		}
	}
	c.w.Array(len(pts))
	for _, p := range pts {
		if opts > 0 {
			c.w.Array(opts + 1)
		}
		c.w.Bulk(p.member)
		if q.withDist {
			c.geoDistance(p.dist / conv)
		}
		if q.withHash {
			c.w.Int(geohash.CInt64(p.score))
		}
		if q.withCoord {
			c.w.Array(2)
			c.geoCoord(p.lon)
			c.geoCoord(p.lat)
		}
	}
	return nil, false
}

// geoCollect reads the search's boxes in order and keeps the members in
// its shape; with ANY it stops as soon as it has COUNT of them, as Redis's
// membersOfAllNeighbors.
func (c *Client) geoCollect(q *geoQuery, z *engine.ZView) []geoPoint {
	var limit int
	if q.any {
		limit = int(min(q.count, math.MaxInt))
	}
	var pts []geoPoint
	full := func() bool { return limit > 0 && len(pts) >= limit }
	for _, r := range q.shape.Ranges() {
		if full() {
			break
		}
		z.EachInRange(r.Min, r.Max, func(m []byte, score float64) bool {
			lon, lat := geohash.FromScore(score)
			if d, in := q.shape.Contains(lon, lat); in {
				pts = append(pts, geoPoint{member: m, score: score, dist: d, lon: lon, lat: lat})
			}
			return !full()
		})
	}
	return pts
}
