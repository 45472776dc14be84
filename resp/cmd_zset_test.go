package resp

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/internal/num"
)

// Sorted-set commands through the in-process client. Replies are those of
// redis-server 7.0.15 (the differential suite in internal/compat checks
// them against a live one); these tests pin the shapes and edges.

func TestZAddAndScores(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":3\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c")
	c.expect(":0\r\n", "ZADD", "z", "5", "a")
	c.expect(":3\r\n", "ZADD", "z", "CH", "6", "a", "6", "b", "1", "c")
	c.expect(":1\r\n", "ZADD", "z", "CH", "6", "a", "6", "b", "2", "c")
	c.expect("$1\r\n6\r\n", "ZSCORE", "z", "a")
	c.expect("$-1\r\n", "ZSCORE", "z", "nosuch")
	c.expect("$-1\r\n", "ZSCORE", "nokey", "a")
	c.expect("$3\r\n7.5\r\n", "ZINCRBY", "z", "1.5", "a")
	c.expect("$19\r\n0.10000000000000001\r\n", "ZINCRBY", "n", "0.1", "m")
	c.expect("$3\r\ninf\r\n", "ZADD", "z", "INCR", "+inf", "c")
	c.expect("-ERR resulting score is not a number (NaN)\r\n", "ZADD", "z", "INCR", "-inf", "c")
	c.expect("$-1\r\n", "ZADD", "z", "XX", "INCR", "1", "new")
	c.expect("$-1\r\n", "ZADD", "z", "NX", "INCR", "1", "a")
	c.expect("$-1\r\n", "ZADD", "z", "GT", "INCR", "-1", "a")
	c.expect(":0\r\n", "EXISTS", "nokey")
	c.expect(":0\r\n", "ZADD", "nokey", "XX", "1", "a")
	c.expect(":0\r\n", "EXISTS", "nokey")
	c.expect("*4\r\n$1\r\n6\r\n$-1\r\n$3\r\ninf\r\n$3\r\n7.5\r\n", "ZMSCORE", "z", "b", "x", "c", "a")
	c.expect("*2\r\n$-1\r\n$-1\r\n", "ZMSCORE", "nokey", "a", "b")
	// Option errors, in Redis's order.
	c.expect("-ERR syntax error\r\n", "ZADD", "z", "1", "a", "2")
	c.expect("-ERR syntax error\r\n", "ZADD", "z", "NX", "1")
	c.expect("-ERR XX and NX options at the same time are not compatible\r\n", "ZADD", "z", "NX", "XX", "1", "a")
	c.expect("-ERR GT, LT, and/or NX options at the same time are not compatible\r\n", "ZADD", "z", "GT", "LT", "1", "a")
	c.expect("-ERR GT, LT, and/or NX options at the same time are not compatible\r\n", "ZADD", "z", "nx", "gt", "1", "a")
	c.expect("-ERR INCR option supports a single increment-element pair\r\n", "ZADD", "z", "INCR", "1", "a", "2", "b")
	c.expect("-ERR value is not a valid float\r\n", "ZADD", "z", "1", "a", "x", "b")
	c.expect("$-1\r\n", "ZSCORE", "z", "b2")
	c.expect("-ERR syntax error\r\n", "ZINCRBY", "z", "nx", "a")
	c.expect("-ERR wrong number of arguments for 'zadd' command\r\n", "ZADD", "z", "1")
	c.expect("+OK\r\n", "SET", "s", "v")
	c.expect("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "ZADD", "s", "1", "a")
	c.expect("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "ZSCORE", "s", "a")
	c.expect("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "ZMSCORE", "s", "a")
}

func TestZsetScoreParsing(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"-1.5", -1.5, true}, {"+5", 5, true}, {".5", 0.5, true}, {"5.", 5, true},
		{"1e3", 1000, true}, {"1E-2", 0.01, true}, {"inf", math.Inf(1), true}, {"-Infinity", math.Inf(-1), true},
		{"0x10", 16, true}, {"0x1p-2", 0.25, true}, {"-0x1.8", -1.5, true}, {"4e-320", 4e-320, true}, {"0e-999", 0, true},
		{"", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"nan", 0, false}, {"1e400", 0, false}, {"1e-400", 0, false},
		{"0x", 0, false}, {"1e", 0, false}, {"abc", 0, false}, {"1_0", 0, false}, {"1\x00", 0, false}, {"infinit", 0, false},
	} {
		got, ok := num.ParseFloat([]byte(tc.in))
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("num.ParseFloat(%q) = %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in     string
		want   float64
		ex, ok bool
	}{
		{"1", 1, false, true}, {"(1", 1, true, true}, {"", 0, false, true}, {"(", 0, true, true}, {" 2", 2, false, true},
		{"1e400", math.Inf(1), false, true}, {"-inf", math.Inf(-1), false, true}, {"1\x00junk", 1, false, true},
		{"1 ", 0, false, false}, {"nan", 0, false, false}, {"((1", 0, false, false}, {"x", 0, false, false},
	} {
		got, ex, ok := zsetRangeBound([]byte(tc.in))
		if ok != tc.ok || (ok && (got != tc.want || ex != tc.ex)) {
			t.Errorf("zsetRangeBound(%q) = %v %v %v", tc.in, got, ex, ok)
		}
	}
}

func TestZRangeFamily(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":4\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d")
	c.expect("*2\r\n$1\r\na\r\n$1\r\nb\r\n", "ZRANGE", "z", "0", "1")
	c.expect("*4\r\n$1\r\nd\r\n$1\r\n4\r\n$1\r\nc\r\n$1\r\n3\r\n", "ZRANGE", "z", "0", "1", "REV", "WITHSCORES")
	c.expect("*2\r\n$1\r\nc\r\n$1\r\nb\r\n", "ZRANGE", "z", "(4", "2", "BYSCORE", "REV")
	c.expect("*1\r\n$1\r\nc\r\n", "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "2", "1")
	c.expect("*0\r\n", "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "1")
	c.expect("*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n", "ZRANGE", "z", "0", "-1", "LIMIT", "0", "-1")
	c.expect("-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n", "ZRANGE", "z", "0", "1", "LIMIT", "0", "1")
	c.expect("-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n", "ZRANGEBYLEX", "z", "-", "+", "WITHSCORES")
	c.expect("-ERR syntax error\r\n", "ZRANGEBYSCORE", "z", "0", "1", "REV")
	c.expect("-ERR min or max is not a float\r\n", "ZRANGEBYSCORE", "z", "x", "1")
	c.expect("-ERR min or max not valid string range item\r\n", "ZRANGEBYLEX", "z", "a", "+")
	c.expect("-ERR value is not an integer or out of range\r\n", "ZRANGE", "z", "x", "1")
	c.expect("*0\r\n", "ZRANGE", "nokey", "0", "-1")
	c.expect("*3\r\n$1\r\nd\r\n$1\r\nc\r\n$1\r\nb\r\n", "ZREVRANGEBYSCORE", "z", "+inf", "(1")
	c.expect("*2\r\n$1\r\nb\r\n$1\r\nc\r\n", "ZRANGEBYLEX", "z", "[b", "(d")
	c.expect("*2\r\n$1\r\nc\r\n$1\r\nb\r\n", "ZREVRANGEBYLEX", "z", "(d", "[b")
	c.expect(":2\r\n", "ZCOUNT", "z", "(1", "3")
	c.expect(":4\r\n", "ZLEXCOUNT", "z", "-", "+")
	c.expect(":1\r\n", "ZRANK", "z", "b")
	c.expect(":2\r\n", "ZREVRANK", "z", "b")
	c.expect("$-1\r\n", "ZRANK", "z", "x")
	c.expect(":2\r\n", "ZRANGESTORE", "dst", "z", "1", "2")
	c.expect("*2\r\n$1\r\nb\r\n$1\r\nc\r\n", "ZRANGE", "dst", "0", "-1")
	c.expect("-ERR syntax error\r\n", "ZRANGESTORE", "dst", "z", "0", "-1", "WITHSCORES")
	c.expect(":0\r\n", "ZRANGESTORE", "dst", "nokey", "0", "-1")
	c.expect(":0\r\n", "EXISTS", "dst")
	c.expect("$8\r\nlistpack\r\n", "OBJECT", "ENCODING", "z")

	c.expect(":1\r\n", "ZREMRANGEBYRANK", "z", "0", "0")
	c.expect(":1\r\n", "ZREMRANGEBYSCORE", "z", "(2", "3")
	c.expect(":1\r\n", "ZREMRANGEBYLEX", "z", "[b", "[b")
	c.expect(":1\r\n", "ZCARD", "z")

	// RESP3: members with scores come in pairs.
	c.do("HELLO", "3")
	c.expect("*1\r\n*2\r\n$1\r\nd\r\n,4\r\n", "ZRANGE", "z", "0", "-1", "WITHSCORES")
	c.expect(",4\r\n", "ZSCORE", "z", "d")
	c.expect("_\r\n", "ZSCORE", "z", "x")
}

func TestZPopAndMPop(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":3\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c")
	c.expect("*2\r\n$1\r\na\r\n$1\r\n1\r\n", "ZPOPMIN", "z")
	c.expect("*2\r\n$1\r\nc\r\n$1\r\n3\r\n", "ZPOPMAX", "z", "1")
	c.expect("*0\r\n", "ZPOPMAX", "z", "0")
	c.expect("-ERR value is out of range, must be positive\r\n", "ZPOPMAX", "z", "-1")
	c.expect("-ERR syntax error\r\n", "ZPOPMAX", "z", "1", "2")
	c.expect("*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n", "ZMPOP", "2", "nokey", "z", "MIN", "COUNT", "5")
	c.expect("*-1\r\n", "ZMPOP", "1", "z", "MIN")
	c.expect(":0\r\n", "EXISTS", "z")
	c.expect("*0\r\n", "ZPOPMIN", "z")
	c.expect("-ERR numkeys should be greater than 0\r\n", "ZMPOP", "0", "z", "MIN")
	c.expect("-ERR count should be greater than 0\r\n", "ZMPOP", "1", "z", "MIN", "COUNT", "0")
	c.expect("-ERR syntax error\r\n", "ZMPOP", "1", "z", "MIN", "COUNT", "1", "COUNT", "1")
	c.expect("-ERR syntax error\r\n", "ZMPOP", "2", "z", "MIN")
	c.expect("-ERR syntax error\r\n", "ZMPOP", "9223372036854775807", "z", "MIN")

	c.do("HELLO", "3")
	c.expect(":2\r\n", "ZADD", "z", "1", "a", "2", "b")
	c.expect("*2\r\n$1\r\na\r\n,1\r\n", "ZPOPMIN", "z")
	c.expect("*1\r\n*2\r\n$1\r\nb\r\n,2\r\n", "ZPOPMIN", "z", "5")
	c.expect("_\r\n", "ZMPOP", "1", "z", "MAX")
}

func TestZsetAlgebraCommands(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":3\r\n", "ZADD", "a", "1", "x", "2", "y", "3", "z")
	c.expect(":3\r\n", "ZADD", "b", "10", "y", "20", "z", "30", "w")
	c.expect("+OK\r\n", "SET", "str", "v")
	c.expect("*8\r\n$1\r\nx\r\n$1\r\n1\r\n$1\r\ny\r\n$2\r\n12\r\n$1\r\nz\r\n$2\r\n23\r\n$1\r\nw\r\n$2\r\n30\r\n", "ZUNION", "2", "a", "b", "WITHSCORES")
	c.expect("*2\r\n$1\r\ny\r\n$1\r\nz\r\n", "ZINTER", "2", "a", "b")
	c.expect("*2\r\n$1\r\nx\r\n$1\r\n1\r\n", "ZDIFF", "2", "a", "b", "WITHSCORES")
	c.expect(":2\r\n", "ZINTERSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "0", "AGGREGATE", "MAX")
	c.expect("*4\r\n$1\r\ny\r\n$1\r\n2\r\n$1\r\nz\r\n$1\r\n3\r\n", "ZRANGE", "d", "0", "-1", "WITHSCORES")
	c.expect(":1\r\n", "ZINTERCARD", "2", "a", "b", "LIMIT", "1")
	c.expect("-ERR at least 1 input key is needed for 'zunionstore' command\r\n", "ZUNIONSTORE", "d", "0", "a")
	c.expect("-ERR syntax error\r\n", "ZUNION", "3", "a", "b")
	c.expect("-ERR weight value is not a float\r\n", "ZUNION", "2", "a", "b", "WEIGHTS", "1", "x")
	c.expect("-ERR syntax error\r\n", "ZDIFF", "2", "a", "b", "WEIGHTS", "1", "1")
	c.expect("-ERR LIMIT can't be negative\r\n", "ZINTERCARD", "2", "a", "b", "LIMIT", "-1")
	c.expect("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "ZUNION", "2", "a", "str", "FOO")
	c.expect("-ERR syntax error\r\n", "ZUNION", "2", "a", "nokey", "FOO")
	c.expect(":0\r\n", "ZDIFFSTORE", "d", "2", "a", "a")
	c.expect(":0\r\n", "EXISTS", "d")
	c.do("HELLO", "3")
	c.expect("*1\r\n*2\r\n$1\r\nx\r\n,1\r\n", "ZDIFF", "2", "a", "b", "WITHSCORES")
}

func TestZRandMemberAndScan(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":3\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c")
	c.expect("*3\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n", "ZRANDMEMBER", "z", "5")
	c.expect("*6\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\na\r\n$1\r\n1\r\n", "ZRANDMEMBER", "z", "3", "WITHSCORES")
	c.expect("*0\r\n", "ZRANDMEMBER", "z", "0")
	c.expect("*0\r\n", "ZRANDMEMBER", "nokey", "3")
	c.expect("$-1\r\n", "ZRANDMEMBER", "nokey")
	if got := c.do("ZRANDMEMBER", "z", "-5"); !strings.HasPrefix(got, "*5\r\n") {
		t.Errorf("ZRANDMEMBER -5 = %q", got)
	}
	c.expect("-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n", "ZRANDMEMBER", "z", "-9223372036854775808")
	c.expect("-ERR value is out of range\r\n", "ZRANDMEMBER", "z", "4611686018427387904", "WITHSCORES")
	c.expect("-ERR syntax error\r\n", "ZRANDMEMBER", "z", "1", "FOO")
	c.expect("*2\r\n$1\r\n0\r\n*6\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n", "ZSCAN", "z", "0")
	c.expect("*2\r\n$1\r\n0\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n", "ZSCAN", "z", "7", "MATCH", "b*", "COUNT", "1")
	c.expect("-ERR syntax error\r\n", "ZSCAN", "z", "0", "COUNT", "0")
	c.expect("*2\r\n$1\r\n0\r\n*0\r\n", "ZSCAN", "nokey", "0", "COUNT", "0")
	c.expect("-ERR invalid cursor\r\n", "ZSCAN", "z", "x")

	// A skiplist is scanned to completion through cursors.
	if err := env.cfg.Set([2]string{"zset-max-listpack-entries", "0"}); err != nil {
		t.Fatal(err)
	}
	args := []string{"ZADD", "big"}
	for i := range 500 {
		args = append(args, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	c.expect(":500\r\n", args...)
	c.expect("$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "big")
	seen := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		rep := c.do("ZSCAN", "big", cursor, "COUNT", "50")
		parts := strings.Split(rep, "\r\n")
		cursor = parts[2]
		for i := 5; i+2 < len(parts); i += 4 {
			seen[parts[i]] = true
		}
		if cursor == "0" || calls > 100 {
			break
		}
	}
	if len(seen) != 500 {
		t.Errorf("ZSCAN returned %d distinct members of 500", len(seen))
	}
}
