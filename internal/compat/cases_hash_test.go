package compat

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Hash commands: HSET … HSCAN, their errors, their RESP2 and RESP3 reply
// shapes, and the listpack/hashtable encodings OBJECT ENCODING reports.
//
// A listpack hash replies in insertion order and is compared exactly; a
// hashtable's order is Redis's dict order, so whole-hash replies of one are
// compared unordered (sortedArray, unorderedPairs). Random replies
// (HRANDFIELD with a count below the size, or negative on several fields)
// are compared by shape here and checked against the hash's contents in
// random_hash_test.go.

func TestRedisHashes(t *testing.T)         { runRedisCases(t, hashCases) }
func TestRedisHashEncodings(t *testing.T)  { runRedisCases(t, hashEncodingCases) }
func TestRedisHashRandField(t *testing.T)  { runRedisCases(t, hashRandCases) }
func TestRedisHashScanCases(t *testing.T)  { runRedisCases(t, hashScanCases) }
func TestRedisHashIncrements(t *testing.T) { runRedisCases(t, hashIncrCases) }

// hstr is a string of n x's, for values around hash-max-listpack-value.
func hstr(n int) string { return strings.Repeat("x", n) }

// bigHash makes key a hashtable of n fields f0..f(n-1) with values v0….
func bigHash(key string, n int) string {
	args := []string{"HSET", key}
	for i := 0; i < n; i++ {
		args = append(args, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	return cmd(args...)
}

// resetHashConfig puts the hash thresholds back to Redis's defaults at the
// end of a case that changed them.
var resetHashConfig = mbs("CONFIG SET hash-max-listpack-entries 512", "CONFIG SET hash-max-listpack-value 64")

var hashCases = []redisCase{
	{name: "hset hget", cmds: mbs("HSET h a 1", "HGET h a", "HGET h b", "HGET nosuch a", "TYPE h")},
	{name: "hset many and repeated", cmds: mbs("HSET h a 1 b 2 a 3", "HGETALL h", "HSET h a 1 c 3", "HGETALL h")},
	{name: "hset odd arguments", cmds: mbs("HSET h a 1 b", "HSET h a", "HSET h", "HMSET h a", "HMSET h a 1 b", "hset h a 1 b", "EXISTS h")},
	{name: "hmset", cmds: mbs("HMSET h a 1 b 2", "HMSET h b 3", "HGETALL h")},
	{name: "hsetnx", cmds: mbs("HSETNX h a 1", "HSETNX h a 2", "HGET h a", "HSETNX h b 2", "HGETALL h")},
	{name: "hset empty field and value", cmds: cmds(cmd("HSET", "h", "", ""), cmd("HGET", "h", ""), cmd("HSTRLEN", "h", ""), mbs("HGETALL h", "HLEN h"))},
	{name: "hset binary", cmds: cmds(cmd("HSET", "h", "a\r\nb\x00", "v\x00\xff"), cmd("HGET", "h", "a\r\nb\x00"), mbs("HKEYS h", "HVALS h"))},
	{name: "hmget", cmds: mbs("HSET h a 1 b 2", "HMGET h a nosuch b a", "HMGET nosuch a b", "HMGET h")},
	{name: "hgetall hkeys hvals order", cmds: mbs("HSET h z 1 y 2 x 3", "HSET h a 4", "HDEL h y", "HSET h y 5", "HGETALL h", "HKEYS h", "HVALS h")},
	{name: "hgetall missing", cmds: mbs("HGETALL nosuch", "HKEYS nosuch", "HVALS nosuch")},
	{name: "hlen hstrlen hexists", cmds: mbs("HSET h a 1 b hello", "HLEN h", "HLEN nosuch", "HSTRLEN h b", "HSTRLEN h nosuch", "HSTRLEN nosuch b", "HEXISTS h a", "HEXISTS h nosuch", "HEXISTS nosuch a")},
	{name: "hstrlen of number", cmds: mbs("HSET h n 12345 neg -7 big 9223372036854775807", "HSTRLEN h n", "HSTRLEN h neg", "HSTRLEN h big")},
	{name: "hdel", cmds: mbs("HSET h a 1 b 2 c 3", "HDEL h a nosuch a", "HDEL h nosuch", "HGETALL h", "HDEL nosuch a", "HDEL h b c", "EXISTS h", "HLEN h", "TYPE h")},
	{name: "hdel arity", cmds: mbs("HDEL h", "HGET h", "HGET h a b", "HEXISTS h", "HLEN", "HLEN h a", "HSTRLEN h", "HGETALL", "HKEYS h a", "HVALS", "HMGET h", "HSETNX h a", "HINCRBY h a", "HINCRBYFLOAT h a", "HRANDFIELD", "HSCAN h")},
	{name: "hash commands on a string", cmds: mbs("SET s x", "HSET s a 1", "HMSET s a 1", "HSETNX s a 1", "HGET s a", "HMGET s a", "HGETALL s",
		"HKEYS s", "HVALS s", "HDEL s a", "HLEN s", "HEXISTS s a", "HSTRLEN s a", "HINCRBY s a 1", "HINCRBYFLOAT s a 1",
		"HRANDFIELD s", "HRANDFIELD s 0", "HRANDFIELD s 3 WITHVALUES", "HSCAN s 0", "HSCAN s 0 COUNT 0", "GET s")},
	{name: "argument errors before type", cmds: mbs("SET s x", "HINCRBY s a x", "HINCRBYFLOAT s a x", "HINCRBYFLOAT s a inf", "HRANDFIELD s x", "HRANDFIELD s 1 FOO", "HSCAN s x")},
	{name: "string commands on a hash", cmds: mbs("HSET h a 1", "GET h", "APPEND h x", "INCR h", "STRLEN h", "GETRANGE h 0 1", "SET h v", "GET h", "TYPE h")},
	{name: "hash keyspace", cmds: mbs("HSET h a 1 b 2", "TYPE h", "EXISTS h", "RENAME h h2", "HGETALL h2", "COPY h2 h3", "HSET h3 c 3", "HGETALL h2", "HGETALL h3",
		"OBJECT ENCODING h3", "DEL h2 h3", "DBSIZE")},
	{name: "hash expiry", cmds: mbs("HSET h a 1", "EXPIRE h 100", "TTL h", "HSET h b 2", "TTL h", "HDEL h a b", "TTL h", "EXISTS h"), loose: at(2, ttlApprox, 4, ttlApprox)},
	{name: "hash expired", cmds: cmds(mbs("HSET h a 1", "PEXPIRE h 20"), expiryPause, mbs("HGET h a", "HLEN h", "HSET h b 2", "TTL h", "HGETALL h"))},
	{name: "hash move and select", cmds: mbs("HSET h a 1", "MOVE h 1", "EXISTS h", "SELECT 1", "HGETALL h", "HSET h b 2", "HGETALL h")},
	{name: "hash scan type", cmds: mbs("HSET h a 1", "SET s v", "SCAN 0 TYPE hash", "SCAN 0 TYPE string")},
	{name: "hash long field and value", cmds: cmds(cmd("HSET", "h", hstr(1000), hstr(5000)), cmd("HSTRLEN", "h", hstr(1000)), mbs("HLEN h", "OBJECT ENCODING h"), cmd("HGET", "h", hstr(1000))), noSplit: true},
	{name: "hash case-insensitive names", cmds: mbs("hset h a 1", "HsEtNx h b 2", "hgetall h", "hmget h a b", "hrandfield h 5 withvalues", "HSCAN h 0 count 5 match *")},
	{name: "hashtable whole replies", cmds: cmds(bigHash("h", 600), mbs("HLEN h", "OBJECT ENCODING h", "HGETALL h", "HKEYS h", "HVALS h", "HRANDFIELD h 600", "HRANDFIELD h 1000", "HGET h f150", "HMGET h f1 f599 nosuch")),
		loose: at(3, unorderedPairs, 4, sortedArray, 5, sortedArray, 6, sortedArray, 7, sortedArray), noSplit: true},
	{name: "hashtable hdel to empty", cmds: cmds(bigHash("h", 600), mbs("HDEL h f0 f1 f2", "HLEN h", "OBJECT ENCODING h"), func() string {
		args := []string{"HDEL", "h"}
		for i := 0; i < 600; i++ {
			args = append(args, "f"+strconv.Itoa(i))
		}
		return cmd(args...)
	}(), mbs("EXISTS h", "HSET h a 1", "OBJECT ENCODING h")), noSplit: true},
}

var hashIncrCases = []redisCase{
	{name: "hincrby", cmds: mbs("HINCRBY h n 5", "HINCRBY h n -7", "HINCRBY h n 0", "HGET h n", "HINCRBY h m -9223372036854775808", "HGET h m")},
	{name: "hincrby bad increment", cmds: mbs("HINCRBY h n x", "HINCRBY h n 1.5", "HINCRBY h n 01", "HINCRBY h n +1", "HINCRBY h n 9223372036854775808", "EXISTS h")},
	{name: "hincrby spaces", cmds: cmds(cmd("HINCRBY", "h", "n", " 1"), cmd("HINCRBY", "h", "n", "1 "), cmd("HINCRBY", "h", "n", ""), mbs("EXISTS h"))},
	{name: "hincrby overflow", cmds: mbs("HSET h big 9223372036854775807 small -9223372036854775808", "HINCRBY h big 1", "HINCRBY h small -1", "HINCRBY h big -9223372036854775808",
		"HINCRBY h small 9223372036854775807", "HINCRBY h x 9223372036854775807", "HINCRBY h x 1", "HGETALL h")},
	{name: "hincrby non-integer value", cmds: cmds(mbs("HSET h s abc f 1.5 z 01 e 1e3"), cmd("HSET", "h", "sp", " 5"), mbs("HINCRBY h s 1", "HINCRBY h f 1", "HINCRBY h z 1", "HINCRBY h e 1", "HINCRBY h sp 1"))},
	{name: "hincrbyfloat", cmds: mbs("HINCRBYFLOAT h f 1.5", "HINCRBYFLOAT h f 0.1", "HINCRBYFLOAT h g 10.5", "HINCRBYFLOAT h g 0.1", "HINCRBYFLOAT h i 3", "HINCRBYFLOAT h i -3",
		"HINCRBYFLOAT h n -0", "HINCRBYFLOAT h e 5.0e3", "HINCRBYFLOAT h hx 0x10", "HINCRBYFLOAT h d .5", "HINCRBYFLOAT h t 1e-5", "HGETALL h")},
	{name: "hincrbyfloat on values", cmds: mbs("HSET h i 7 big 9223372036854775807 e 5e3 hx 0x10 neg -1 inf inf s abc", "HINCRBYFLOAT h i 0.5", "HINCRBYFLOAT h big 1",
		"HINCRBYFLOAT h e 1", "HINCRBYFLOAT h hx 1", "HINCRBYFLOAT h neg 1", "HINCRBYFLOAT h inf 1", "HINCRBYFLOAT h s 1", "HGETALL h")},
	{name: "hincrbyfloat bad increment", cmds: cmds(mbs("HINCRBYFLOAT h f abc", "HINCRBYFLOAT h f nan", "HINCRBYFLOAT h f inf", "HINCRBYFLOAT h f -inf", "HINCRBYFLOAT h f Infinity",
		"HINCRBYFLOAT h f 1e5000", "HINCRBYFLOAT h f 1_0"), cmd("HINCRBYFLOAT", "h", "f", " 1"), cmd("HINCRBYFLOAT", "h", "f", "1 "), cmd("HINCRBYFLOAT", "h", "f", ""), mbs("EXISTS h"))},
	{name: "hincrbyfloat huge", cmds: mbs("HINCRBYFLOAT h f 1e308", "HINCRBYFLOAT h f 1e308", "HINCRBYFLOAT h g 1e4000", "HINCRBYFLOAT h g 1e4932", "HINCRBYFLOAT h g 1e4932", "HSTRLEN h g", "OBJECT ENCODING h"), noSplit: true},
	{name: "hincrbyfloat tiny", cmds: mbs("HINCRBYFLOAT h f 1e-20", "HINCRBYFLOAT h g -1e-300", "HINCRBYFLOAT h h 0.00000000000000001", "HGETALL h")},
}

var hashEncodingCases = []redisCase{
	{name: "value at the limit", cmds: cmds(cmd("HSET", "a", "f", hstr(64)), mbs("OBJECT ENCODING a"), cmd("HSET", "b", "f", hstr(65)), mbs("OBJECT ENCODING b"), cmd("HSET", "c", hstr(65), "v"), mbs("OBJECT ENCODING c"))},
	{name: "hsetnx existing long value", cmds: cmds(mbs("HSET d f v"), cmd("HSETNX", "d", "f", hstr(65)), mbs("OBJECT ENCODING d"), cmd("HSETNX", "d", "g", hstr(65)), mbs("OBJECT ENCODING d"))},
	{name: "hincr long field", cmds: cmds(mbs("HSET e f v"), cmd("HINCRBY", "e", hstr(65), "1"), mbs("OBJECT ENCODING e", "HSET e2 f v"), cmd("HINCRBYFLOAT", "e2", hstr(65), "1"), mbs("OBJECT ENCODING e2", "HINCRBYFLOAT e3 f 1e70", "OBJECT ENCODING e3"))},
	{name: "reads do not convert", cmds: cmds(mbs("HSET e f v"), cmd("HDEL", "e", hstr(65)), cmd("HGET", "e", hstr(65)), cmd("HEXISTS", "e", hstr(65)), cmd("HMGET", "e", hstr(65)), mbs("OBJECT ENCODING e"))},
	{name: "update with long value converts", cmds: cmds(mbs("HSET e f v"), cmd("HSET", "e", "f", "v", "f", hstr(65)), mbs("OBJECT ENCODING e", "HDEL e f", "EXISTS e"))},
	{name: "long value then short", cmds: cmds(cmd("HSET", "e", "f", hstr(65)), mbs("HSET e f v", "OBJECT ENCODING e"))},
	{name: "entries threshold", cmds: cmds(mbs("CONFIG SET hash-max-listpack-entries 2", "HSET g a 1 b 2", "OBJECT ENCODING g", "HSET g c 3", "OBJECT ENCODING g", "HDEL g c b", "OBJECT ENCODING g",
		"HSET g2 a 1 b 2 c 3", "OBJECT ENCODING g2", "HSET g3 a 1 b 2 a 3", "OBJECT ENCODING g3", "HSETNX g3 c 1", "OBJECT ENCODING g3", "HINCRBY g4 a 1", "HINCRBY g4 b 1",
		"HINCRBYFLOAT g4 c 1", "OBJECT ENCODING g4"), resetHashConfig)},
	{name: "entries threshold zero", cmds: cmds(mbs("CONFIG SET hash-max-listpack-entries 0", "HSET z a 1", "OBJECT ENCODING z", "HINCRBY z2 a 1", "OBJECT ENCODING z2",
		"HSETNX z3 a 1", "OBJECT ENCODING z3", "HINCRBYFLOAT z4 a 1", "OBJECT ENCODING z4"), resetHashConfig)},
	{name: "value threshold small", cmds: cmds(mbs("CONFIG SET hash-max-listpack-value 1", "HSET h f 10", "OBJECT ENCODING h", "HSET i f 1", "OBJECT ENCODING i", "HINCRBY i f 9", "OBJECT ENCODING i",
		"HINCRBY i2 f 10", "OBJECT ENCODING i2", "HSET j f 1", "HINCRBYFLOAT j f 0.5", "OBJECT ENCODING j"), resetHashConfig)},
	{name: "value threshold zero", cmds: cmds(mbs("CONFIG SET hash-max-listpack-value 0"), cmd("HSET", "y", "", ""), mbs("OBJECT ENCODING y"), cmd("HSET", "y2", "a", ""), mbs("OBJECT ENCODING y2"), resetHashConfig)},
	{name: "raised thresholds keep listpack", cmds: cmds(mbs("CONFIG SET hash-max-listpack-entries 1000", "CONFIG SET hash-max-listpack-value 200"), bigHash("h", 600), cmd("HSET", "h", "long", hstr(200)),
		mbs("OBJECT ENCODING h", "HRANDFIELD h 1000", "HSCAN h 0 COUNT 1 MATCH f59?"), resetHashConfig), noSplit: true},
	{name: "conversion is one-way", cmds: cmds(bigHash("h", 600), mbs("OBJECT ENCODING h"), func() string {
		args := []string{"HDEL", "h"}
		for i := 1; i < 600; i++ {
			args = append(args, "f"+strconv.Itoa(i))
		}
		return cmd(args...)
	}(), mbs("HLEN h", "OBJECT ENCODING h", "HGETALL h", "COPY h h2", "OBJECT ENCODING h2", "RENAME h h3", "OBJECT ENCODING h3")), noSplit: true},
	{name: "config get hash thresholds", cmds: mbs("CONFIG GET hash-max-listpack-*", "CONFIG GET hash-max-ziplist-entries"), loose: at(0, unorderedPairs)},
}

var hashRandCases = []redisCase{
	{name: "hrandfield missing", cmds: mbs("HRANDFIELD nosuch", "HRANDFIELD nosuch 5", "HRANDFIELD nosuch -5 WITHVALUES", "HRANDFIELD nosuch 0")},
	{name: "hrandfield errors", cmds: mbs("HRANDFIELD nosuch x", "HRANDFIELD nosuch 5 FOO", "HRANDFIELD nosuch 5 WITHVALUES x", "HRANDFIELD nosuch 1.5", "HSET h a 1",
		"HRANDFIELD h -9223372036854775808", "HRANDFIELD h -9223372036854775808 WITHVALUES", "HRANDFIELD h -4611686018427387904 WITHVALUES", "HRANDFIELD h 4611686018427387904 withvalues",
		"HRANDFIELD h 9223372036854775807 WITHVALUES", "HRANDFIELD h 9223372036854775808", "HRANDFIELD h 5 WITH")},
	{name: "hrandfield empty argument", cmds: cmds(cmd("HRANDFIELD", "h", ""), cmd("HRANDFIELD", "h", "1", ""))},
	{name: "hrandfield whole listpack", cmds: mbs("HSET h a 1 b 2 c 3", "HRANDFIELD h 3", "HRANDFIELD h 100 WITHVALUES", "HRANDFIELD h 4611686018427387904", "HRANDFIELD h 0", "HRANDFIELD h 0 WITHVALUES")},
	{name: "hrandfield withvalues nul", cmds: cmds(mbs("HSET h a 1 b 2"), cmd("HRANDFIELD", "h", "5", "withvalues\x00junk"))},
	{name: "hrandfield one field", cmds: mbs("HSET h f v", "HRANDFIELD h", "HRANDFIELD h 1", "HRANDFIELD h -3", "HRANDFIELD h -3 WITHVALUES", "HRANDFIELD h 1 WITHVALUES", "HRANDFIELD h 5 WITHVALUES")},
	{name: "hrandfield random shapes", cmds: mbs("HSET h a 1 b 2 c 3 d 4", "HRANDFIELD h", "HRANDFIELD h 2", "HRANDFIELD h 3 WITHVALUES", "HRANDFIELD h -10", "HRANDFIELD h -10 WITHVALUES", "HRANDFIELD h 1 WITHVALUES"),
		loose: at(1, anyBulk, 2, anyBulk, 3, anyBulk, 4, anyBulk, 5, anyBulk, 6, anyBulk)},
	{name: "hrandfield hashtable whole resp2", proto: 2, cmds: cmds(bigHash("h", 600), mbs("HRANDFIELD h 600 WITHVALUES", "HRANDFIELD h 601")), loose: at(1, unorderedPairs, 2, sortedArray), noSplit: true},
	{name: "hrandfield hashtable whole resp3", proto: 3, cmds: cmds(bigHash("h", 600), mbs("HRANDFIELD h 600 WITHVALUES", "HRANDFIELD h 601")), loose: at(1, sortedArray, 2, sortedArray), noSplit: true},
	{name: "hrandfield hashtable shapes", cmds: cmds(bigHash("h", 600), mbs("HRANDFIELD h", "HRANDFIELD h 10", "HRANDFIELD h 100 WITHVALUES", "HRANDFIELD h -300 WITHVALUES", "HRANDFIELD h 1")),
		loose: at(1, anyBulk, 2, anyBulk, 3, anyBulk, 4, anyBulk, 5, anyBulk), noSplit: true},
}

var hashScanCases = []redisCase{
	{name: "hscan missing", cmds: mbs("HSCAN nosuch 0", "HSCAN nosuch 0 COUNT 0", "HSCAN nosuch 0 FOO", "HSCAN nosuch 0 MATCH", "HSCAN nosuch x")},
	{name: "hscan listpack", cmds: mbs("HSET h a 1 b 2 c 3", "HSCAN h 0", "HSCAN h 0 COUNT 1", "HSCAN h 5", "HSCAN h -1", "HSCAN h 18446744073709551615", "HSCAN h 0 MATCH b*",
		"HSCAN h 0 match b* MATCH c*", "HSCAN h 0 MATCH * COUNT 100", "HSCAN h 0 MATCH zz*")},
	{name: "hscan bad options", cmds: mbs("HSET h a 1", "HSCAN h 0 COUNT 0", "HSCAN h 0 COUNT -1", "HSCAN h 0 COUNT x", "HSCAN h 0 TYPE string", "HSCAN h 0 MATCH", "HSCAN h 0 NOVALUES",
		"HSCAN h 18446744073709551616", "HSCAN h 1.5", "HSCAN h 0 COUNT 1 FOO", "HSCAN h 0 COUNT 9223372036854775808")},
	{name: "hscan cursor with nul", cmds: cmds(mbs("HSET h a 1"), cmd("HSCAN", "h", "0\x00junk"), cmd("HSCAN", "h", "0", "count\x00x", "5"))},
	{name: "hscan patterns", cmds: cmds(mbs("HSET h hello 1 hallo 2 hxllo 3 h*llo 4 foo 5"), cmd("HSCAN", "h", "0", "MATCH", "h[ae]llo"), cmd("HSCAN", "h", "0", "MATCH", "h\\*llo"),
		cmd("HSCAN", "h", "0", "MATCH", "?oo"), cmd("HSCAN", "h", "0", "MATCH", "h[^e]llo"))},
}

// TestRedisHScanHashtable iterates HSCAN to cursor 0 on a hashtable on both
// servers and compares the union of the pairs returned: cursors and batch
// boundaries depend on the hash function and are not compared, but every
// reply must have HSCAN's shape, and the iteration must end.
func TestRedisHScanHashtable(t *testing.T) {
	scans := []struct {
		name string
		opts []string
	}{
		{"default", nil},
		{"count 1", []string{"COUNT", "1"}},
		{"count 1000", []string{"COUNT", "1000"}},
		{"match", []string{"MATCH", "f1*"}},
		{"match none", []string{"MATCH", "nothing*", "COUNT", "7"}},
	}
	for _, proto := range []int{2, 3} {
		for _, sc := range scans {
			t.Run(fmt.Sprintf("%s/resp%d", sc.name, proto), func(t *testing.T) {
				if err := flushRedis(refRedis); err != nil {
					t.Fatal(err)
				}
				if err := flushRedis(sutRedis); err != nil {
					t.Fatal(err)
				}
				ref := hscanAll(t, refRedis, proto, sc.opts)
				sut := hscanAll(t, sutRedis, proto, sc.opts)
				if !equalStrings(ref, sut) {
					t.Errorf("HSCAN %v returned %d distinct pairs, want %d\n  missing: %v\n  extra:   %v",
						sc.opts, len(sut), len(ref), minus(ref, sut), minus(sut, ref))
				}
			})
		}
	}
}

// hscanAll builds a 1500-field hash at addr and scans it to the end,
// returning the distinct "field=value" pairs in order.
func hscanAll(t *testing.T, addr string, proto int, opts []string) []string {
	t.Helper()
	c := dialRESP(t, addr)
	if proto == 3 {
		c.do("HELLO", "3")
	}
	args := []string{"HSET", "h"}
	for i := 0; i < 1500; i++ {
		args = append(args, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	c.do(args...)
	seen := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 10000 {
			t.Fatalf("%s: HSCAN did not end", addr)
		}
		r := c.do(append([]string{"HSCAN", "h", cursor}, opts...)...)
		if r.kind != '*' || len(r.elems) != 2 || r.elems[0].kind != '$' || r.elems[1].kind != '*' || len(r.elems[1].elems)%2 != 0 {
			t.Fatalf("%s: HSCAN reply %q", addr, r.raw)
		}
		for i := 0; i < len(r.elems[1].elems); i += 2 {
			seen[r.elems[1].elems[i].text+"="+r.elems[1].elems[i+1].text] = true
		}
		cursor = r.elems[0].text
		if cursor == "0" {
			break
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestCrossMemcachedOnHash: a memcached client reading a hash key gets a
// miss (the key holds no string); storage commands either overwrite it
// (set, as Redis SET does) or leave it alone (append).
func TestCrossMemcachedOnHash(t *testing.T) {
	r, m := crossSetup(t)
	expectReply(t, "HSET", r.do("HSET", "h", "f", "v"), ":1\r\n")
	expectMemc(t, "get on a hash", m.do("get h\r\n"), "END\r\n")
	expectMemc(t, "gets on a hash", m.do("gets h\r\n"), "END\r\n")
	expectMemc(t, "mg on a hash", m.do("mg h v\r\n"), "EN\r\n")
	expectMemc(t, "append to a hash", m.do("append h 0 0 1\r\nx\r\n"), "NOT_STORED\r\n")
	expectReply(t, "HGET after memcached reads", r.do("HGET", "h", "f"), "$1\r\nv\r\n")
	expectMemc(t, "set over a hash", m.do("set h 0 0 3\r\nstr\r\n"), "STORED\r\n")
	expectReply(t, "TYPE after memcached set", r.do("TYPE", "h"), "+string\r\n")
	expectReply(t, "HGET on the string", r.do("HGET", "h", "f"), "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n")
}
