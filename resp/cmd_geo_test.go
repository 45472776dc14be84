package resp

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

// GEO scripts; every expected reply was read from redis-server 7.0.15 for
// the same steps (internal/compat compares the full family with it).

const (
	geoPalermoPos  = "*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n"
	geoPalermoPos3 = "*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n"
)

var geoScripts = []strScript{
	{"GeoAddPosDistHash", []strStep{
		step(":2\r\n", "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"),
		step3(bulk("3479099956230698"), ",3479099956230698\r\n", "ZSCORE", "Sicily", "Palermo"),
		step3("*2\r\n"+geoPalermoPos+"*-1\r\n", "*2\r\n"+geoPalermoPos3+"_\r\n", "GEOPOS", "Sicily", "Palermo", "nosuch"),
		step3("*2\r\n*-1\r\n*-1\r\n", "*2\r\n_\r\n_\r\n", "GEOPOS", "nokey", "a", "b"),
		step("*0\r\n", "GEOPOS", "Sicily"),
		step(bulk("166274.1516"), "GEODIST", "Sicily", "Palermo", "Catania"),
		step(bulk("166.2742"), "GEODIST", "Sicily", "Palermo", "Catania", "km"),
		step(bulk("103.3182"), "GEODIST", "Sicily", "Palermo", "Catania", "MI"),
		step(bulk("545518.8700"), "GEODIST", "Sicily", "Palermo", "Catania", "ft"),
		step(bulk("0.0000"), "GEODIST", "Sicily", "Palermo", "Palermo"),
		null("GEODIST", "Sicily", "Palermo", "nosuch"),
		null("GEODIST", "nokey", "a", "b"),
		step(errReply(errGeoUnit), "GEODIST", "nokey", "a", "b", "yd"),
		step(rSyntax, "GEODIST", "Sicily", "Palermo", "Catania", "km", "x"),
		step3("*3\r\n$11\r\nsqc8b49rny0\r\n$11\r\nsqdtr74hyu0\r\n$-1\r\n", "*3\r\n$11\r\nsqc8b49rny0\r\n$11\r\nsqdtr74hyu0\r\n_\r\n",
			"GEOHASH", "Sicily", "Palermo", "Catania", "x"),
		// GEOADD is ZADD underneath: its options, replies and errors.
		step(":0\r\n", "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo"),
		step(":1\r\n", "GEOADD", "Sicily", "CH", "13", "38", "Palermo"),
		step(":0\r\n", "GEOADD", "Sicily", "XX", "1", "1", "new"),
		step(":0\r\n", "GEOADD", "Sicily", "NX", "1", "1", "Palermo"),
		step(rSyntax, "GEOADD", "Sicily", "NX", "XX", "1", "1", "a"),
		step(rSyntax, "GEOADD", "Sicily", "GT", "1", "1", "a"),
		step(rSyntax, "GEOADD", "Sicily", "CH", "CH", "CH"),
		step(rNotFloat, "GEOADD", "Sicily", "1", "1", "a", "GT", "1", "1"),
		step(errReply("ERR invalid longitude,latitude pair 181.000000,0.000000"), "GEOADD", "Sicily", "181", "0", "a"),
		step(errReply("ERR invalid longitude,latitude pair inf,-86.000000"), "GEOADD", "Sicily", "inf", "-86", "a"),
		step(wrongArgs("geoadd"), "GEOADD", "Sicily", "1", "1"),
		step(rOK, "SET", "s", "v"),
		step(errReply("ERR invalid longitude,latitude pair 200.000000,0.000000"), "GEOADD", "s", "200", "0", "a"),
		step(rWrongType, "GEOADD", "s", "1", "1", "a"),
		step(rWrongType, "GEOPOS", "s"),
		step(rWrongType, "GEODIST", "s", "a", "b"),
		step(errReply(errGeoUnit), "GEODIST", "s", "a", "b", "yd"),
	}},
	{"GeoRadius", []strStep{
		step(":3\r\n", "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania", "13.583333", "37.316667", "Agrigento"),
		step("*3\r\n$9\r\nAgrigento\r\n$7\r\nPalermo\r\n$7\r\nCatania\r\n", "GEORADIUS", "Sicily", "15", "37", "200", "km"),
		step("*3\r\n*2\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n*2\r\n$9\r\nAgrigento\r\n$8\r\n130.4235\r\n*2\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n",
			"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "ASC"),
		step3("*1\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n$20\r\n15.08726745843887329\r\n$20\r\n37.50266842333162032\r\n",
			"*1\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n",
			"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHCOORD", "WITHHASH", "WITHDIST", "COUNT", "1"),
		step("*1\r\n$7\r\nPalermo\r\n", "GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "1", "DESC"),
		step("*0\r\n", "GEORADIUS", "nokey", "15", "37", "200", "km"),
		step(errReply(errGeoCount), "GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "0"),
		step(errReply(errGeoAnyCount), "GEORADIUS", "Sicily", "15", "37", "200", "km", "ANY"),
		step(errReply(errGeoRadiusNeg), "GEORADIUS", "Sicily", "15", "37", "-1", "km"),
		step(errReply(errGeoRadius), "GEORADIUS", "nokey", "15", "37", "x", "km"),
		step(errReply("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"),
			"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "STORE", "d"),
		step(rSyntax, "GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "d"),
		step(":3\r\n", "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d"),
		step3("*6\r\n$9\r\nAgrigento\r\n$16\r\n3479030013248308\r\n$7\r\nPalermo\r\n$16\r\n3479099956230698\r\n$7\r\nCatania\r\n$16\r\n3479447370796909\r\n",
			"*3\r\n*2\r\n$9\r\nAgrigento\r\n,3479030013248308\r\n*2\r\n$7\r\nPalermo\r\n,3479099956230698\r\n*2\r\n$7\r\nCatania\r\n,3479447370796909\r\n",
			"ZRANGE", "d", "0", "-1", "WITHSCORES"),
		// The member is looked up before the radius is read, and only
		// when the key exists.
		step(errReply(errGeoMember), "GEORADIUSBYMEMBER", "Sicily", "nosuch", "x", "km"),
		step(errReply(errGeoRadius), "GEORADIUSBYMEMBER", "Sicily", "Palermo", "x", "km"),
		step("*0\r\n", "GEORADIUSBYMEMBER", "nokey", "nosuch", "x", "km"),
		step(rSyntax, "GEORADIUSBYMEMBER", "nokey", "nosuch", "x", "km", "FOO"),
		step("*2\r\n$7\r\nPalermo\r\n$9\r\nAgrigento\r\n", "GEORADIUSBYMEMBER", "Sicily", "Palermo", "100", "km", "ASC"),
		step(":0\r\n", "GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "d"),
		step(":0\r\n", "EXISTS", "d"),
	}},
	{"GeoSearch", []strStep{
		step(":3\r\n", "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania", "13.583333", "37.316667", "Agrigento"),
		step("*3\r\n$7\r\nCatania\r\n$9\r\nAgrigento\r\n$7\r\nPalermo\r\n", "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"),
		step("*3\r\n$9\r\nAgrigento\r\n$7\r\nPalermo\r\n$7\r\nCatania\r\n", "GEOSEARCH", "Sicily", "FROMLONLAT", "14", "37.5", "BYBOX", "400", "400", "km"),
		step(errReply("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearch"), "GeoSearch", "Sicily", "BYRADIUS", "1", "km", "ASC", "WITHDIST"),
		step(errReply("ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch"), "geosearch", "Sicily", "FROMMEMBER", "Palermo", "ASC", "COUNT", "1"),
		step(rSyntax, "GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"),
		step(rSyntax, "GEOSEARCH", "Sicily", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km", "STORE", "d"),
		step(errReply(errGeoBoxNeg), "GEOSEARCH", "Sicily", "FROMLONLAT", "1", "1", "BYBOX", "1", "-1", "km"),
		step(errReply(errGeoHeight), "GEOSEARCH", "Sicily", "FROMLONLAT", "1", "1", "BYBOX", "1", "x", "km"),
		step(errReply(errGeoMember), "GEOSEARCH", "Sicily", "FROMMEMBER", "nosuch", "BYRADIUS", "x", "km"),
		step(errReply(errGeoRadius), "GEOSEARCH", "Sicily", "BYRADIUS", "x", "km", "FROMMEMBER", "nosuch"),
		step("*0\r\n", "GEOSEARCH", "nokey", "FROMMEMBER", "nosuch", "BYRADIUS", "1", "km"),
		step(":2\r\n", "GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "100", "km", "STOREDIST"),
		step("*2\r\n$7\r\nPalermo\r\n$9\r\nAgrigento\r\n", "ZRANGE", "d", "0", "-1"),
		step3(bulk("0"), ",0\r\n", "ZSCORE", "d", "Palermo"),
		step(errReply("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"),
			"GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "100", "km", "WITHHASH"),
		step(":0\r\n", "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"),
		step(":0\r\n", "EXISTS", "d"),
	}},
}

func TestGeoCommands(t *testing.T) {
	for _, sc := range geoScripts {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/RESP"+strconv.Itoa(proto), func(t *testing.T) {
				runStringScript(t, proto, sc.steps)
			})
		}
	}
}

// A distance is Redis's fixedpoint_d2string with 4 digits: the value
// times 10^4 rounded half to even, LLONG_MIN's digits when out of range.
func TestAppendGeoDistance(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{
		{0, "0.0000"}, {math.Copysign(0, -1), "0.0000"}, {1, "1.0000"}, {0.0001, "0.0001"}, {6.0642951598391699e-05, "0.0001"},
		{0.00005, "0.0000"}, {0.00015, "0.0001"}, {0.00025, "0.0002"}, {166274.15156960032, "166274.1516"},
		{12.5, "12.5000"}, {-0.01, "-0.0100"}, {1e15, "-922337203685477.5808"}, {math.NaN(), "-922337203685477.5808"},
		{922337203685477.5, "922337203685477.4784"},
	} {
		if got := string(appendGeoDistance(nil, c.d)); got != c.want {
			t.Errorf("appendGeoDistance(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// The argument checks come in Redis's order, and the position lookups
// are recorded in order for after the key is found.
func TestParseGeoQuery(t *testing.T) {
	args := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	q := parseGeoQuery(args("GEOSEARCH", "k", "FROMMEMBER", "a", "FROMMEMBER", "b", "COUNT", "x", "FROMMEMBER", "c"), geoSearchForm)
	if q.err != ErrNotInteger || len(q.lookups) != 2 || string(q.lookups[1]) != "b" {
		t.Errorf("lookups %q, error %q: want a, b then the COUNT error", q.lookups, q.err)
	}
	q = parseGeoQuery(args("GEORADIUSBYMEMBER", "k", "m", "x", "km", "FOO"), geoFromMember)
	if q.radiusErr != errGeoRadius || q.err != ErrSyntax || string(q.lookups[0]) != "m" {
		t.Errorf("GEORADIUSBYMEMBER: radius error %q, error %q, lookups %q", q.radiusErr, q.err, q.lookups)
	}
	q = parseGeoQuery(args("GEORADIUS", "k", "1", "1", "1", "km", "STOREDIST", "a", "STORE", "b", "COUNT", "2"), geoFromCoords)
	if q.err != "" || string(q.store) != "b" || q.storeDist || q.count != 2 {
		t.Errorf("GEORADIUS STORE: %+v", q)
	}
	q = parseGeoQuery(args("GEOSEARCHSTORE", "d", "k", "FROMLONLAT", "1", "1", "BYBOX", "2", "3", "mi", "STOREDIST"), geoSearchForm|geoSearchStore)
	if q.err != "" || string(q.store) != "d" || !q.storeDist || !q.shape.Box || q.shape.Width != 2 || q.shape.Height != 3 || q.shape.Conversion != 1609.34 {
		t.Errorf("GEOSEARCHSTORE: %+v", q)
	}
}

// GEORADIUS's keys are found as Redis's key specs find them: the first
// STORE and the first STOREDIST from the options on, not in last place.
func TestGeoStoreKeys(t *testing.T) {
	keys := geoStoreKeys(6)
	for _, c := range []struct {
		args []string
		want []int
	}{
		{[]string{"GEORADIUS", "k", "0", "0", "1", "km"}, []int{1}},
		{[]string{"GEORADIUS", "k", "0", "0", "1", "km", "STORE", "d"}, []int{1, 7}},
		{[]string{"GEORADIUS", "k", "0", "0", "1", "km", "STOREDIST", "e", "store", "d"}, []int{1, 9, 7}},
		{[]string{"GEORADIUS", "k", "0", "0", "1", "km", "STORE", "d", "STORE", "e"}, []int{1, 7}},
		{[]string{"GEORADIUS", "k", "0", "0", "1", "km", "STORE"}, []int{1}},
		{[]string{"GEORADIUS", "k", "0", "0", "1", "store", "d"}, []int{1}},
	} {
		a := make([][]byte, len(c.args))
		for i, s := range c.args {
			a[i] = []byte(s)
		}
		if got := keys(a); !slices.Equal(got, c.want) {
			t.Errorf("%v: keys %v, want %v", c.args, got, c.want)
		}
	}
}

// A search reads its boxes and stores its result in one locked step:
// with members moving between boxes all the time, a search of the whole
// world always finds each member exactly once.
func TestGeoSearchAtomic(t *testing.T) {
	env := newTestEnv(t)
	const members = 40
	setup := env.client()
	for i := range members {
		setup.expect(":1\r\n", "GEOADD", "g", "0", "0", "m"+strconv.Itoa(i))
	}
	want := ":" + strconv.Itoa(members) + "\r\n"
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := env.client()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			lon := strconv.Itoa(i*37%340 - 170)
			lat := strconv.Itoa(i*11%160 - 80)
			if got := c.do("GEOADD", "g", lon, lat, "m"+strconv.Itoa(i%members)); got != ":0\r\n" {
				t.Errorf("GEOADD: %q", got)
				return
			}
		}
	}()
	c := env.client()
	for range 300 {
		if got := c.do("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "30000", "km"); got != want {
			t.Fatalf("GEOSEARCHSTORE found %q, want %q", got, want)
		}
		if got := c.do("GEORADIUS", "g", "0", "0", "30000", "km", "COUNT", "1000", "STOREDIST", "d"); got != want {
			t.Fatalf("GEORADIUS STOREDIST found %q, want %q", got, want)
		}
		if got := c.do("ZCARD", "d"); got != want {
			t.Fatalf("the destination holds %q members", got)
		}
	}
	close(stop)
	<-done
}
