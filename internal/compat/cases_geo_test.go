package compat

import "testing"

// GEO commands: every command, option and error, in both protocols, on
// listpack and skiplist sorted sets; the stored scores and the replies'
// coordinates, distances and orders byte for byte.
//
// Distances come from sin, cos and asin, which glibc computes to within
// a unit in the last place, not always correctly rounded, and differently
// on CPUs with and without FMA; Tandem's are correctly rounded
// (internal/geohash). A reply's distance has four decimals and never
// shows the difference; a STOREDIST score has 17 digits and can, once in
// a few hundred. So the cases here read STOREDIST scores exactly only
// where the distance takes no trigonometry (points on one meridian: the
// latitude difference times the radius), and random_geo_test.go compares
// the others within a few units in the last place.

func TestRedisGeoAdd(t *testing.T)    { runRedisCases(t, geoAddCases) }
func TestRedisGeoRead(t *testing.T)   { runRedisCases(t, geoReadCases) }
func TestRedisGeoRadius(t *testing.T) { runRedisCases(t, geoRadiusCases) }
func TestRedisGeoSearch(t *testing.T) { runRedisCases(t, geoSearchCases) }
func TestRedisGeoStore(t *testing.T)  { runRedisCases(t, geoStoreCases) }
func TestRedisGeoMisc(t *testing.T)   { runRedisCases(t, geoMiscCases) }

// geoSicily is Redis's documentation example, plus two more cities.
var geoSicily = mbs("GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Agrigento 12.758489 38.788135 edge1 17.241510 38.788135 edge2")

// geoWorld has points on both sides of the antimeridian, near both poles,
// on the equator and at the limits.
var geoWorld = mbs("GEOADD w -179.9 0.5 am1 179.95 -0.3 am2 179.999 10 am3 0 85 north1 90 84.9 north2 -90 -85 south1 0 0 origin 0.0001 0.0001 near 180 85.05112878 ne -180 -85.05112878 sw 2.3522 48.8566 paris -73.9857 40.7484 nyc 139.6917 35.6895 tokyo 151.2093 -33.8688 sydney")

// geoTies has members at identical positions: equal distances, whose
// order is the sort's (stable for a full sort, Redis's partial quicksort
// with COUNT).
var geoTies = mbs("GEOADD ties 10 10 a 10 10 b 10 10 c 10 10 d 10 10 e 10 10 f 10 10 g 10.001 10 h 10.001 10 i 10.001 10 j 9.999 10 k 9.999 10 l 10 10.001 m 10 9.999 n 10 9.999 o 10 10.002 p 10 10.002 q 10 10.002 r")

// geoMeridian has points on the meridian 10: their distances from each
// other are the latitude difference times the radius, no sin or cos.
var geoMeridian = mbs("GEOADD mer 10 0 m0 10 0.5 m1 10 1 m2 10 2 m3 10 -1 m4 10 -3 m5 10 10 m6")

var geoAddCases = []redisCase{
	{name: "geoadd basic", cmds: cmds(geoSicily, mbs("ZRANGE Sicily 0 -1 WITHSCORES", "TYPE Sicily", "OBJECT ENCODING Sicily",
		"GEOADD Sicily 13.361389 38.115556 Palermo", "ZCARD Sicily", "GEOADD Sicily 13.361389 38.115556 Palermo 1 1 new 1 1 new", "ZSCORE Sicily new"))},
	{name: "geoadd nx xx ch", cmds: mbs("GEOADD k 1 1 a 2 2 b", "GEOADD k NX 5 5 a 3 3 c", "GEOADD k XX 6 6 a 4 4 d", "GEOADD k CH 7 7 a 2 2 b 8 8 e",
		"GEOADD k XX CH 9 9 a 9 9 zz", "GEOADD k NX CH 9 9 a 1 2 f", "GEOADD k CH NX 1 3 g", "GEOADD k CH XX 9 9 a", "ZRANGE k 0 -1 WITHSCORES",
		"GEOADD nokey XX 1 1 a", "EXISTS nokey")},
	{name: "geoadd options case repeated nul", cmds: cmds(mbs("geoadd k nx ch 1 1 a", "GEOADD k Xx cH Ch 2 2 a", "GEOADD k NX NX 3 3 b"),
		cmd("GEOADD", "k", "xx\x00junk", "4", "4", "a"), cmd("GEOADD", "k", "CH\x00", "5", "5", "a"), mbs("ZRANGE k 0 -1 WITHSCORES"))},
	{name: "geoadd syntax errors", cmds: mbs("GEOADD k NX XX 1 1 a", "GEOADD k XX NX CH 1 1 a", "GEOADD k 1 1 a 2", "GEOADD k 1 1 a 2 2",
		"GEOADD k GT 1 1 a", "GEOADD k 1 1 a GT 1 1", "GEOADD k INCR 1 1 a", "GEOADD k CH CH CH", "GEOADD k NX CH XX", "GEOADD k CH 1 1", "EXISTS k")},
	{name: "geoadd arity", cmds: mbs("GEOADD", "GEOADD k", "GEOADD k 1", "GEOADD k 1 2", "GEOADD k NX 1")},
	{name: "geoadd invalid positions", cmds: cmds(mbs("GEOADD k 181 0 a", "GEOADD k -180.000001 0 a", "GEOADD k 0 85.05112879 a", "GEOADD k 0 -85.0511288 a",
		"GEOADD k 0 90 a", "GEOADD k inf 0 a", "GEOADD k 0 -inf a", "GEOADD k 1e400 0 a", "GEOADD k nan 0 a", "GEOADD k 0 nan a",
		"GEOADD k abc 0 a", "GEOADD k 0 abc a", "GEOADD k 1 1 a 1 91 b", "GEOADD k 1 1 a x 1 b", "GEOADD k 1e300 -1e300 a", "GEOADD k -200.5 123.456789 a",
		"GEOADD k 1 1 a 181 0 b", "EXISTS k"),
		cmd("GEOADD", "k", " 1", "1", "a"), cmd("GEOADD", "k", "1 ", "1", "a"), cmd("GEOADD", "k", "", "1", "a"), cmd("GEOADD", "k", "1\x00", "1", "a"))},
	{name: "geoadd number formats and limits", cmds: mbs("GEOADD k 180 85.05112878 ne -180 -85.05112878 sw -0 -0 z 0x1p3 .5 hex 1e1 5E-1 exp +10 -10 signs",
		"ZRANGE k 0 -1 WITHSCORES", "GEOPOS k ne sw z hex exp signs")},
	{name: "geoadd wrong type after positions", cmds: mbs("SET s v", "GEOADD s 200 0 a", "GEOADD s abc 0 a", "GEOADD s 1 1 a", "GEOADD s NX XX 1 1 a", "GET s")},
	{name: "geoadd encodings", cmds: cmds(mbs("CONFIG SET zset-max-listpack-entries 3", "GEOADD k 1 1 a 2 2 b 3 3 c", "OBJECT ENCODING k", "GEOADD k 4 4 d",
		"OBJECT ENCODING k", "GEOPOS k a d", "GEOADD l 1 1 "+zlong, "OBJECT ENCODING l", "GEORADIUS k 2 2 500 km ASC", "GEORADIUS l 1 1 1 m"), resetZsetConfig)},
}

var geoReadCases = []redisCase{
	{name: "geodist units", cmds: cmds(geoSicily, mbs("GEODIST Sicily Palermo Catania", "GEODIST Sicily Palermo Catania m", "GEODIST Sicily Palermo Catania km",
		"GEODIST Sicily Palermo Catania mi", "GEODIST Sicily Palermo Catania ft", "GEODIST Sicily Palermo Catania KM", "GEODIST Sicily Palermo Catania Mi",
		"GEODIST Sicily Palermo Palermo", "GEODIST Sicily Catania Agrigento ft", "GEODIST Sicily edge1 edge2 km"),
		cmd("GEODIST", "Sicily", "Palermo", "Catania", "km\x00junk"))},
	{name: "geodist missing and errors", cmds: cmds(geoSicily, mbs("GEODIST Sicily Palermo nosuch", "GEODIST Sicily nosuch Palermo", "GEODIST nokey a b",
		"GEODIST nokey a b km", "GEODIST nokey a b yards", "GEODIST Sicily Palermo Catania yards", "GEODIST Sicily Palermo Catania km extra",
		"GEODIST nokey a b km extra", "GEODIST Sicily Palermo", "SET s v", "GEODIST s a b", "GEODIST s a b parsec", "GEODIST s a b km x"),
		cmd("GEODIST", "Sicily", "Palermo", "Catania", ""))},
	{name: "geodist far", cmds: cmds(geoWorld, mbs("GEODIST w am1 am2", "GEODIST w ne sw km", "GEODIST w origin near", "GEODIST w north1 south1 mi",
		"GEODIST w paris nyc km", "GEODIST w tokyo sydney", "GEODIST w origin ne ft",
		"GEOADD a 0 0 x 180 0 y 45 45 x4 -135 -45 y4 1.5 1.5 x6 -178.5 -1.5 y6", "GEODIST a x y", "GEODIST a x4 y4", "GEODIST a x6 y6 km"))},
	{name: "geopos", cmds: cmds(geoSicily, geoWorld, mbs("GEOPOS Sicily Palermo Catania nosuch Agrigento", "GEOPOS Sicily", "GEOPOS nokey a b",
		"GEOPOS nokey", "GEOPOS w ne sw origin near am1 am2 north2 south1", "SET s v", "GEOPOS s a", "GEOPOS s"))},
	{name: "geohash", cmds: cmds(geoSicily, geoWorld, mbs("GEOHASH Sicily Palermo Catania nosuch", "GEOHASH Sicily", "GEOHASH nokey a",
		"GEOHASH nokey", "GEOHASH w ne sw origin near am1 am2 north1 north2 south1 paris nyc tokyo sydney", "SET s v", "GEOHASH s a"))},
	// Scores that GEOADD would not store decode too, through the C cast
	// of the score to a 64-bit cell.
	{name: "geopos geohash foreign scores", cmds: mbs("ZADD z -1 neg 1e300 big inf pinf -inf ninf 4503599627370496 two52 0 zero 0.5 half -0 negz 123456789 int",
		"GEOPOS z neg big pinf ninf two52 zero half negz int", "GEOHASH z neg big pinf ninf two52 zero half negz int", "GEODIST z neg big", "GEODIST z zero int km",
		"GEORADIUS z 0 0 20000 km ASC WITHCOORD WITHHASH", "GEOSEARCH z FROMMEMBER int BYBOX 1000 1000 km WITHDIST")},
	{name: "geo arity", cmds: mbs("GEODIST k a", "GEOHASH", "GEOPOS", "GEORADIUS k 1 1 1", "GEORADIUS_RO k 1 1 1", "GEORADIUSBYMEMBER k m 1",
		"GEORADIUSBYMEMBER_RO k m 1", "GEOSEARCH k FROMMEMBER m BYRADIUS 1", "GEOSEARCHSTORE d k FROMMEMBER m BYRADIUS 1")},
}

var geoRadiusCases = []redisCase{
	{name: "georadius documented", cmds: cmds(geoSicily, mbs("GEORADIUS Sicily 15 37 200 km WITHDIST", "GEORADIUS Sicily 15 37 200 km WITHCOORD",
		"GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD", "GEORADIUS Sicily 15 37 200 km WITHHASH WITHCOORD WITHDIST",
		"GEORADIUS Sicily 15 37 200 km", "GEORADIUS Sicily 15 37 200 km ASC", "GEORADIUS Sicily 15 37 200 km DESC",
		"GEORADIUS Sicily 15 37 100 km", "GEORADIUS Sicily 15 37 100000 m WITHDIST", "GEORADIUS Sicily 15 37 124.27 mi WITHDIST",
		"GEORADIUS Sicily 15 37 656168 ft WITHDIST", "GEORADIUS Sicily 15 37 1000 km WITHDIST ASC", "GEORADIUS_RO Sicily 15 37 200 km WITHDIST DESC"))},
	{name: "georadius count any", cmds: cmds(geoSicily, mbs("GEORADIUS Sicily 15 37 1000 km COUNT 1", "GEORADIUS Sicily 15 37 1000 km COUNT 2 DESC",
		"GEORADIUS Sicily 15 37 1000 km COUNT 3 WITHDIST", "GEORADIUS Sicily 15 37 1000 km COUNT 10", "GEORADIUS Sicily 15 37 1000 km COUNT 1 ANY",
		"GEORADIUS Sicily 15 37 1000 km COUNT 2 ANY WITHDIST", "GEORADIUS Sicily 15 37 1000 km COUNT 2 ANY ASC", "GEORADIUS Sicily 15 37 1000 km ANY COUNT 3 DESC",
		"GEORADIUS Sicily 15 37 1000 km COUNT 100 ANY", "GEORADIUS Sicily 15 37 1000 km COUNT 1 COUNT 3", "GEORADIUS Sicily 15 37 1000 km ASC DESC COUNT 2",
		"GEORADIUS Sicily 15 37 1000 km count 2 withdist withdist desc"))},
	{name: "georadius errors", cmds: cmds(geoSicily, mbs("GEORADIUS Sicily 200 37 200 km", "GEORADIUS Sicily 15 86 200 km", "GEORADIUS Sicily abc 37 200 km",
		"GEORADIUS Sicily 15 37 -1 km", "GEORADIUS Sicily 15 37 abc km", "GEORADIUS Sicily 15 37 200 parsec", "GEORADIUS Sicily 15 37 inf km",
		"GEORADIUS Sicily 15 37 200 km COUNT 0", "GEORADIUS Sicily 15 37 200 km COUNT -1", "GEORADIUS Sicily 15 37 200 km COUNT abc",
		"GEORADIUS Sicily 15 37 200 km COUNT", "GEORADIUS Sicily 15 37 200 km ANY", "GEORADIUS Sicily 15 37 200 km COUNT 99999999999999999999",
		"GEORADIUS Sicily 15 37 200 km STORE", "GEORADIUS Sicily 15 37 200 km STOREDIST", "GEORADIUS Sicily 15 37 200 km FOO",
		"GEORADIUS Sicily 15 37 200 km FROMMEMBER Palermo", "GEORADIUS Sicily 15 37 200 km BYBOX 1 1 km", "GEORADIUS Sicily 15 37 200 km WITHDIST STORE d",
		"GEORADIUS Sicily 15 37 200 km STOREDIST d WITHHASH", "GEORADIUS Sicily 15 37 200 km WITHCOORD COUNT 0", "GEORADIUS Sicily 15 37 200 km COUNT 0 FOO",
		"GEORADIUS Sicily 15 37 200 km FOO COUNT 0", "GEORADIUS Sicily 15 37 200 km ANY STORE d WITHDIST", "GEORADIUS_RO Sicily 15 37 200 km STORE d",
		"GEORADIUS_RO Sicily 15 37 200 km STOREDIST d", "EXISTS d"))},
	{name: "georadius missing key and wrong type", cmds: mbs("GEORADIUS nokey 15 37 200 km", "GEORADIUS nokey 15 37 200 km WITHDIST COUNT 3",
		"GEORADIUS nokey 200 37 200 km", "GEORADIUS nokey 15 37 abc km", "GEORADIUS nokey 15 37 200 km ANY", "GEORADIUS_RO nokey 15 37 200 km",
		"SET s v", "GEORADIUS s 15 37 200 km", "GEORADIUS s 200 37 200 km", "GEORADIUS s 15 37 200 km FOO", "GEORADIUS_RO s 1 1 1 m")},
	{name: "georadius ties", cmds: cmds(geoTies, mbs("GEORADIUS ties 10 10 1 km", "GEORADIUS ties 10 10 1 km ASC", "GEORADIUS ties 10 10 1 km DESC",
		"GEORADIUS ties 10 10 1 km COUNT 3", "GEORADIUS ties 10 10 1 km COUNT 7", "GEORADIUS ties 10 10 1 km COUNT 9 DESC", "GEORADIUS ties 10 10 1 km COUNT 12",
		"GEORADIUS ties 10 10 1 km COUNT 5 WITHDIST", "GEORADIUS ties 10 10 1 km COUNT 4 ANY", "GEORADIUS ties 10 10 1 km COUNT 19", "GEORADIUS ties 10.0005 10 1 km COUNT 6",
		"GEORADIUS ties 10 10 1 km COUNT 8 DESC WITHHASH"))},
	{name: "georadius world", cmds: cmds(geoWorld, mbs("GEORADIUS w 180 0 200 km WITHDIST ASC", "GEORADIUS w -180 0 200 km WITHDIST", "GEORADIUS w 0 85 1000 km WITHCOORD",
		"GEORADIUS w 0 -85 1000 km WITHDIST", "GEORADIUS w 0 0 20 m WITHDIST", "GEORADIUS w 0 0 0 m", "GEORADIUS w 0 0 0 m WITHDIST",
		"GEORADIUS w 0 0 20000 km", "GEORADIUS w 0 0 20000 km ASC WITHDIST", "GEORADIUS w 0 0 40000 km DESC COUNT 5", "GEORADIUS w 0 0 1e10 km COUNT 3",
		"GEORADIUS w 100 50 5000 km WITHDIST", "GEORADIUS w 100 50 9000 km", "GEORADIUS w 2 49 6000 km WITHDIST ASC", "GEORADIUS w 180 85.05112878 10 km WITHCOORD",
		"GEORADIUS w -180 -85.05112878 10 km WITHCOORD WITHHASH", "GEORADIUS w 179.99 0 3000 km DESC", "GEORADIUS w 2.3522 48.8566 0.001 m"))},
	{name: "georadiusbymember", cmds: cmds(geoSicily, mbs("GEORADIUSBYMEMBER Sicily Agrigento 100 km", "GEORADIUSBYMEMBER Sicily Palermo 200 km WITHDIST WITHCOORD ASC",
		"GEORADIUSBYMEMBER Sicily Palermo 300 km COUNT 2 DESC WITHHASH", "GEORADIUSBYMEMBER Sicily Palermo 0 km", "GEORADIUSBYMEMBER_RO Sicily Catania 500 km WITHDIST ASC",
		"GEORADIUSBYMEMBER Sicily Palermo 300 km COUNT 1 ANY"))},
	// The member is looked up before the radius is read, and only when
	// the key exists; the options are read in any case.
	{name: "georadiusbymember errors", cmds: cmds(geoSicily, mbs("GEORADIUSBYMEMBER Sicily nosuch 100 km", "GEORADIUSBYMEMBER Sicily nosuch abc km",
		"GEORADIUSBYMEMBER Sicily Palermo abc km", "GEORADIUSBYMEMBER Sicily Palermo -5 km", "GEORADIUSBYMEMBER Sicily Palermo 5 lightyear",
		"GEORADIUSBYMEMBER Sicily Palermo 5 km FOO", "GEORADIUSBYMEMBER Sicily Palermo abc km FOO", "GEORADIUSBYMEMBER Sicily nosuch 5 km FOO",
		"GEORADIUSBYMEMBER nokey nosuch 100 km", "GEORADIUSBYMEMBER nokey nosuch abc km", "GEORADIUSBYMEMBER nokey m abc yards COUNT 2",
		"GEORADIUSBYMEMBER nokey m abc km FOO", "GEORADIUSBYMEMBER nokey m 1 km COUNT 0", "GEORADIUSBYMEMBER nokey m 1 km WITHDIST STORE d",
		"GEORADIUSBYMEMBER nokey m 1 km ANY", "GEORADIUSBYMEMBER_RO nokey m 1 km STORE d", "GEORADIUSBYMEMBER_RO Sicily Palermo 1 km STORE d",
		"SET s v", "GEORADIUSBYMEMBER s nosuch abc km", "GEORADIUSBYMEMBER_RO s m 1 km"))},
}

var geoSearchCases = []redisCase{
	{name: "geosearch documented", cmds: cmds(geoSicily, mbs("GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHCOORD WITHDIST", "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 400 400 km DESC WITHHASH",
		"GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 100 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 100 300 km WITHDIST",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 300 100 km WITHDIST", "GEOSEARCH Sicily BYRADIUS 500 km FROMMEMBER Catania COUNT 2",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 500 km COUNT 2 ANY", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1000 1000 km COUNT 3 DESC WITHDIST",
		"geosearch Sicily frommember Palermo byradius 300 km withdist asc"))},
	{name: "geosearch repeated options", cmds: cmds(geoSicily, mbs("GEOSEARCH Sicily FROMMEMBER Palermo FROMMEMBER Catania BYRADIUS 100 km WITHDIST",
		"GEOSEARCH Sicily FROMLONLAT 1 1 FROMLONLAT 15 37 BYRADIUS 200 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km BYRADIUS 200 km ASC",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 km BYBOX 400 400 km ASC", "GEOSEARCH Sicily FROMMEMBER nosuch FROMMEMBER Palermo BYRADIUS 1 km",
		"GEOSEARCH Sicily FROMMEMBER Palermo FROMMEMBER nosuch BYRADIUS 1 km"))},
	{name: "geosearch errors", cmds: cmds(geoSicily, mbs("GEOSEARCH Sicily BYRADIUS 200 km ASC WITHDIST", "GeoSearch Sicily BYRADIUS 200 km ASC WITHDIST",
		"GEOSEARCH Sicily FROMMEMBER Palermo ASC WITHDIST", "GEOSEARCH Sicily FROMLONLAT 15 37 WITHDIST COUNT 1",
		"GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 15 37 BYRADIUS 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 FROMMEMBER Palermo BYRADIUS 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km BYBOX 1 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 km BYRADIUS 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 -1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX a 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 a km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX a -1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 au",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS a km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS -1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 au",
		"GEOSEARCH Sicily FROMLONLAT 200 37 BYRADIUS 1 km", "GEOSEARCH Sicily FROMLONLAT x 37 BYRADIUS 1 km", "GEOSEARCH Sicily FROMMEMBER nosuch BYRADIUS 1 km",
		"GEOSEARCH Sicily FROMMEMBER nosuch BYRADIUS x km", "GEOSEARCH Sicily BYRADIUS x km FROMMEMBER nosuch", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STORE d",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STOREDIST", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km ANY",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km COUNT 0", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km COUNT", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1",
		"GEOSEARCH Sicily FROMLONLAT 15 BYRADIUS 1 km", "GEOSEARCH Sicily FROMMEMBER BYRADIUS 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km FOO",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km ANY FROMMEMBER x", "GEOSEARCH Sicily WITHDIST FROMLONLAT 15 37 COUNT 0"))},
	{name: "geosearch missing key and wrong type", cmds: mbs("GEOSEARCH nokey FROMMEMBER m BYRADIUS 1 km", "GEOSEARCH nokey FROMMEMBER m BYRADIUS x km",
		"GEOSEARCH nokey FROMLONLAT 1 1 BYBOX 1 1 km WITHDIST", "GEOSEARCH nokey FROMLONLAT 200 1 BYBOX 1 1 km", "GEOSEARCH nokey FROMMEMBER m WITHDIST",
		"GEOSEARCH nokey BYBOX 1 1 km", "GEOSEARCH nokey FROMMEMBER m BYBOX 1 1 km ANY", "SET s v", "GEOSEARCH s FROMMEMBER m BYRADIUS 1 km",
		"GEOSEARCH s FROMLONLAT 200 1 BYRADIUS x km", "GEOSEARCH s BYBOX 1 1 km")},
	{name: "geosearch bybox world", cmds: cmds(geoWorld, mbs("GEOSEARCH w FROMLONLAT 180 0 BYBOX 400 400 km WITHDIST", "GEOSEARCH w FROMLONLAT -180 0 BYBOX 400 200 km ASC",
		"GEOSEARCH w FROMLONLAT 0 0 BYBOX 40000 40000 km", "GEOSEARCH w FROMLONLAT 0 0 BYBOX 40000 100 km ASC WITHDIST", "GEOSEARCH w FROMLONLAT 0 0 BYBOX 100 40000 km ASC",
		"GEOSEARCH w FROMLONLAT 0 80 BYBOX 2000 2000 km WITHCOORD", "GEOSEARCH w FROMMEMBER near BYBOX 30 30 m WITHDIST", "GEOSEARCH w FROMMEMBER paris BYBOX 12000 12000 km ASC WITHDIST",
		"GEOSEARCH w FROMLONLAT 0 0 BYBOX 0 0 m", "GEOSEARCH w FROMMEMBER origin BYBOX 0 0 m", "GEOSEARCH w FROMMEMBER tokyo BYBOX 20000 15000 mi DESC COUNT 4 WITHHASH",
		"GEOSEARCH w FROMLONLAT 179.9 -0.2 BYBOX 300 300 km ASC WITHCOORD", "GEOSEARCH w FROMMEMBER ne BYRADIUS 100 km", "GEOSEARCH w FROMMEMBER sw BYBOX 100 100 km"))},
	{name: "geosearch ties", cmds: cmds(geoTies, mbs("GEOSEARCH ties FROMLONLAT 10 10 BYBOX 1 1 km", "GEOSEARCH ties FROMLONLAT 10 10 BYBOX 1 1 km COUNT 5",
		"GEOSEARCH ties FROMMEMBER a BYRADIUS 1 km DESC COUNT 8 WITHDIST", "GEOSEARCH ties FROMMEMBER h BYBOX 1000 1000 m ASC", "GEOSEARCH ties FROMMEMBER h BYBOX 1000 1000 m COUNT 11"))},
}

var geoStoreCases = []redisCase{
	{name: "georadius store", cmds: cmds(geoSicily, mbs("GEORADIUS Sicily 15 37 200 km STORE d", "ZRANGE d 0 -1 WITHSCORES", "TYPE d", "OBJECT ENCODING d",
		"GEORADIUS Sicily 15 37 500 km COUNT 2 STORE d", "ZRANGE d 0 -1 WITHSCORES", "GEORADIUS Sicily 15 37 500 km COUNT 2 DESC STORE d", "ZRANGE d 0 -1",
		"GEORADIUS Sicily 15 37 500 km STOREDIST d2 STORE d3", "ZRANGE d3 0 -1", "EXISTS d2", "GEORADIUS Sicily 15 37 500 km STORE d3 STOREDIST d2", "ZRANGE d2 0 -1",
		"GEORADIUSBYMEMBER Sicily Palermo 300 km store d4 count 3", "ZRANGE d4 0 -1 WITHSCORES", "GEORADIUS Sicily 15 37 500 km COUNT 1 ANY STORE d5", "ZCARD d5"))},
	{name: "georadius storedist on a meridian", cmds: cmds(geoMeridian, mbs("GEORADIUS mer 10 0 200 km STOREDIST d", "ZRANGE d 0 -1 WITHSCORES",
		"GEORADIUSBYMEMBER mer m2 500 km STOREDIST d", "ZRANGE d 0 -1 WITHSCORES", "GEORADIUSBYMEMBER mer m0 400 mi STOREDIST d COUNT 3 DESC", "ZRANGE d 0 -1 WITHSCORES",
		"GEORADIUSBYMEMBER mer m1 1 ft STOREDIST d", "ZRANGE d 0 -1 WITHSCORES", "GEORADIUS mer 10 -3 1000 km WITHDIST ASC", "GEODIST mer m0 m6 km"))},
	{name: "georadius store empty and missing", cmds: cmds(geoSicily, mbs("SET d x", "GEORADIUS Sicily 0 0 1 km STORE d", "EXISTS d", "GEORADIUS Sicily 0 0 1 km STORE d",
		"SET d x", "GEORADIUS nokey 0 0 1 km STORE d", "EXISTS d", "GEORADIUS nokey 0 0 1 km STORE d", "SET d x", "GEORADIUSBYMEMBER nokey m 1 km STOREDIST d",
		"EXISTS d", "SET d x", "GEORADIUSBYMEMBER Sicily nosuch 1 km STORE d", "GET d", "GEORADIUS Sicily 200 0 1 km STORE d", "GET d"))},
	{name: "geosearchstore", cmds: cmds(geoSicily, mbs("GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC COUNT 3", "ZRANGE d 0 -1 WITHSCORES",
		"GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 300 km", "ZRANGE d 0 -1 WITHSCORES", "GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 300 km STOREDIST",
		"ZRANGE d 0 -1", "GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 300 km ANY COUNT 2", "ZCARD d", "GEOSEARCHSTORE Sicily Sicily FROMMEMBER Palermo BYRADIUS 150 km",
		"ZRANGE Sicily 0 -1", "GEOSEARCHSTORE d Sicily FROMLONLAT 0 0 BYRADIUS 1 km", "EXISTS d", "GEOSEARCHSTORE d nokey FROMLONLAT 0 0 BYRADIUS 1 km"))},
	{name: "geosearchstore storedist on a meridian", cmds: cmds(geoMeridian, mbs("GEOSEARCHSTORE d mer FROMMEMBER m0 BYRADIUS 350 km STOREDIST", "ZRANGE d 0 -1 WITHSCORES",
		"GEOSEARCHSTORE d mer FROMMEMBER m3 BYBOX 1 700 km STOREDIST DESC COUNT 3", "ZRANGE d 0 -1 WITHSCORES", "GEOSEARCHSTORE d mer FROMLONLAT 10 0 BYRADIUS 100000 ft storedist",
		"ZRANGE d 0 -1 WITHSCORES"))},
	{name: "geosearchstore errors", cmds: cmds(geoSicily, mbs("SET d x", "GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 300 km WITHDIST",
		"GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 300 km WITHCOORD", "GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 300 km WITHHASH STOREDIST",
		"GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 300 km STORE e", "GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 300 km STOREDIST e",
		"GEOSEARCHSTORE d Sicily BYRADIUS 300 km", "geosearchSTORE d Sicily FROMMEMBER Palermo COUNT 1", "GEOSEARCHSTORE d Sicily FROMMEMBER nosuch BYRADIUS 3 km",
		"GEOSEARCHSTORE d nokey FROMMEMBER Palermo WITHDIST BYRADIUS 3 km", "GET d", "SET s v", "GEOSEARCHSTORE d s FROMMEMBER m BYRADIUS 1 km", "GET d",
		"GEOSEARCHSTORE s Sicily FROMMEMBER Palermo BYRADIUS 1 km", "TYPE s"))},
	{name: "store replaces type and expiry", cmds: cmds(geoSicily, mbs("SET d x EX 1000", "GEORADIUS Sicily 15 37 200 km STORE d", "TTL d", "TYPE d",
		"LPUSH e x", "EXPIRE e 1000", "GEOSEARCHSTORE e Sicily FROMMEMBER Catania BYRADIUS 1 km", "TTL e", "ZRANGE e 0 -1"))},
	{name: "store encodings", cmds: cmds(geoSicily, mbs("CONFIG SET zset-max-listpack-entries 2", "GEORADIUS Sicily 15 37 500 km STORE d", "OBJECT ENCODING d",
		"GEORADIUS Sicily 15 37 500 km COUNT 2 STORE d", "OBJECT ENCODING d", "CONFIG SET zset-max-listpack-entries 128", "GEOADD Sicily 14 37.5 "+zlong,
		"GEOSEARCHSTORE d Sicily FROMLONLAT 14 37.5 BYRADIUS 10 km", "OBJECT ENCODING d", "GEOSEARCHSTORE d Sicily FROMLONLAT 14 37.5 BYRADIUS 300 km", "OBJECT ENCODING d"), resetZsetConfig)},
}

var geoMiscCases = []redisCase{
	{name: "geo command info", cmds: mbs("COMMAND INFO geoadd geodist geohash geopos georadius_ro georadiusbymember_ro geosearch geosearchstore",
		"COMMAND INFO georadius georadiusbymember")},
	{name: "geo getkeys", cmds: mbs("COMMAND GETKEYS GEOADD k 1 1 m", "COMMAND GETKEYS GEORADIUS k 0 0 1 km", "COMMAND GETKEYS GEORADIUS k 0 0 1 km STORE d",
		"COMMAND GETKEYS GEORADIUS k 0 0 1 km STOREDIST e STORE d", "COMMAND GETKEYS GEORADIUS k 0 0 1 km STORE d STORE e", "COMMAND GETKEYS GEORADIUS k 0 0 1 km STORE",
		"COMMAND GETKEYS GEORADIUS k 0 0 1 store d", "COMMAND GETKEYS GEORADIUS k 0 0 1 km COUNT store d", "COMMAND GETKEYS GEORADIUSBYMEMBER k m 1 km storedist d",
		"COMMAND GETKEYS GEORADIUSBYMEMBER k m 1 store d", "COMMAND GETKEYS GEORADIUS_RO k 0 0 1 km STORE d", "COMMAND GETKEYS GEOSEARCHSTORE d k FROMMEMBER m BYRADIUS 1 km",
		"COMMAND GETKEYSANDFLAGS GEORADIUS k 0 0 1 km STORE d STOREDIST e", "COMMAND GETKEYSANDFLAGS GEOSEARCHSTORE d k FROMMEMBER m BYRADIUS 1 km",
		"COMMAND GETKEYSANDFLAGS GEOADD k 1 1 m", "COMMAND GETKEYSANDFLAGS GEOSEARCH k FROMMEMBER m BYRADIUS 1 km")},
	{name: "geo in multi", cmds: mbs("MULTI", "GEOADD k 1 1 a 2 2 b", "GEORADIUS k 1 1 500 km WITHDIST ASC STORE d", "GEORADIUS k 1 1 500 km WITHDIST ASC",
		"GEOSEARCHSTORE d k FROMMEMBER a BYRADIUS 500 km", "GEOPOS d a b", "GEOADD k 200 0 c", "EXEC", "MULTI", "GEOADD k 1", "EXEC")},
	{name: "geo in scripts", cmds: cmds(geoSicily, cmd("EVAL", "return redis.call('GEOPOS', KEYS[1], 'Palermo', 'nosuch')", "1", "Sicily"),
		cmd("EVAL", "return redis.call('GEORADIUS', KEYS[1], 15, 37, 200, 'km', 'WITHDIST', 'WITHCOORD', 'ASC')", "1", "Sicily"),
		cmd("EVAL", "return redis.call('GEODIST', KEYS[1], 'Palermo', 'Catania', 'km')", "1", "Sicily"),
		cmd("EVAL", "return redis.pcall('GEOADD', KEYS[1], 500, 0, 'x')", "1", "Sicily"),
		cmd("EVAL", "return redis.call('GEOSEARCHSTORE', KEYS[1], KEYS[2], 'FROMMEMBER', 'Catania', 'BYRADIUS', 500, 'km')", "2", "d", "Sicily"),
		cmd("EVAL_RO", "return redis.call('GEORADIUS_RO', KEYS[1], 15, 37, 200, 'km', 'COUNT', 1)", "1", "Sicily"))},
	{name: "geo acl category", cmds: mbs("ACL SETUSER geouser on nopass -@all +@geo ~*", "ACL DRYRUN geouser GEOADD k 1 1 a", "ACL DRYRUN geouser GEOPOS k a",
		"ACL DRYRUN geouser ZRANGE k 0 -1", "ACL DRYRUN geouser GEORADIUS k 1 1 1 km STORE d", "ACL DRYRUN geouser GEOSEARCHSTORE d k FROMMEMBER a BYRADIUS 1 km",
		"ACL SETUSER geouser -@write", "ACL DRYRUN geouser GEOADD k 1 1 a", "ACL DRYRUN geouser GEORADIUS k 1 1 1 km", "ACL DRYRUN geouser GEORADIUS_RO k 1 1 1 km",
		"ACL SETUSER geouser +@write resetkeys %R~src", "ACL DRYRUN geouser GEORADIUS src 1 1 1 km STORE d", "ACL DRYRUN geouser GEOSEARCH src FROMMEMBER a BYRADIUS 1 km",
		"ACL DELUSER geouser", "ACL CAT geo"), loose: at(14, sortedArray)},
}

// The GEO family's keyspace events run with TestRedisNotify's scenarios
// (cases_notify_test.go): GEOADD is a ZADD ("zadd" when something
// changed), a STORE announces "georadiusstore" or "geosearchstore", and
// an empty result deletes the destination ("del").
func init() { notifyScenarios = append(notifyScenarios, geoNotifyScenarios...) }

var geoNotifyScenarios = []notifyScenario{
	{name: "geo", conns: 1, steps: nLines(
		"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", "GEOADD g 13.361389 38.115556 Palermo", "GEOADD g CH 13.361389 38.115556 Palermo",
		"GEOADD g XX 1 1 nosuch", "GEOADD g NX 2 2 Palermo", "GEOADD g XX CH 1 1 Palermo", "GEOADD g 200 0 x", "GEOADD nokey XX 1 1 a",
		"GEORADIUS g 15 37 200 km STORE d", "GEORADIUS g 15 37 200 km STOREDIST d", "GEORADIUSBYMEMBER g Catania 100 km STORE d2",
		"GEOSEARCHSTORE d3 g FROMMEMBER Catania BYRADIUS 100 km", "GEOSEARCHSTORE d3 g FROMMEMBER Catania BYRADIUS 100 km STOREDIST",
		"GEORADIUS g 0 0 1 km STORE d", "GEORADIUS g 0 0 1 km STORE d", "GEOSEARCHSTORE d3 nokey FROMLONLAT 0 0 BYRADIUS 1 km",
		"GEOSEARCHSTORE d3 nokey FROMLONLAT 0 0 BYRADIUS 1 km", "GEORADIUS g 15 37 200 km WITHDIST STORE d2", "GEORADIUS g 15 37 200 km",
		"GEOPOS g Palermo", "GEODIST g Palermo Catania", "GEOHASH g Catania", "EXISTS d d2 d3")},
}
