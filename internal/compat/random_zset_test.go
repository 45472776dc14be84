package compat

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRandomZsets sends the same seeded random stream of sorted-set
// commands to redis-server and to Tandem and compares every reply, with a
// small key and member space and a small zset-max-listpack-entries, so
// members collide and sorted sets change encoding often.
//
// Replies are compared byte for byte, except where Redis itself is not
// deterministic:
//   - ZRANDMEMBER picks at random unless the count covers the whole set:
//     other counts must only give the reference's shape.
//   - ZSCAN of a skiplist walks a hash table: the whole iteration is
//     compared as a set of (member, score) pairs.
//   - a lex range over members of different scores is undefined in Redis
//     and answered by its skiplist's shape: such commands go to the
//     listpack form only, or to the key "l", whose members all score 0.
//
// After every write, OBJECT ENCODING of the keys written is compared too.
// COMPAT_SEED=n replays another stream.
func TestRandomZsets(t *testing.T) {
	seed := envSeed(t, 20240612)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			f := newZsetFuzz(t, proto, seed+uint64(proto))
			f.run(2000)
		})
	}
}

type zsetFuzz struct {
	t        *testing.T
	rng      *rand.Rand
	seed     uint64
	ref, sut *respClient
	history  []string
	n        int
	// What the run covered, logged at the end.
	errors, skiplists, scans int
}

var (
	zfuzzKeys   = []string{"a", "b", "c"}
	zfuzzScores = []string{"0", "1", "-1", "2", "2.5", "3", "0.1", "0.2", "1e3", "-inf", "+inf", "-0", "7", "1.5e-3"}
	zfuzzLong   = "long-" + strings.Repeat("y", 64)
)

func newZsetFuzz(t *testing.T, proto int, seed uint64) *zsetFuzz {
	for _, addr := range []string{refRedis, sutRedis} {
		if err := flushRedis(addr); err != nil {
			t.Fatal(err)
		}
	}
	f := &zsetFuzz{t: t, rng: rand.New(rand.NewPCG(seed, 0x25e7)), seed: seed, ref: dialRESP(t, refRedis), sut: dialRESP(t, sutRedis)}
	if proto == 3 {
		f.ref.do("HELLO", "3")
		f.sut.do("HELLO", "3")
	}
	f.exact("CONFIG", "SET", "zset-max-listpack-entries", "6")
	t.Cleanup(func() {
		for _, addr := range []string{refRedis, sutRedis} {
			controlFor(addr).roundTrip(cmd("CONFIG", "SET", "zset-max-listpack-entries", "128"))
		}
	})
	f.both("SET", "str", "v")
	f.both("SADD", "set", "m1", "m2", "m9", "x")
	return f
}

func (f *zsetFuzz) fail(format string, args ...any) {
	f.t.Helper()
	f.t.Fatalf("seed %d, command %d: %s\nlast commands:\n  %s", f.seed, f.n, fmt.Sprintf(format, args...), strings.Join(f.history, "\n  "))
}

func (f *zsetFuzz) both(args ...string) (reply, reply) {
	f.t.Helper()
	f.n++
	f.history = append(f.history, fmt.Sprintf("%d: %q", f.n, args))
	if len(f.history) > 30 {
		f.history = f.history[1:]
	}
	return f.ref.do(args...), f.sut.do(args...)
}

func (f *zsetFuzz) exact(args ...string) {
	f.t.Helper()
	r, s := f.both(args...)
	if r.isError() {
		f.errors++
	}
	if string(r.raw) != string(s.raw) {
		f.fail("%q:\n  redis:  %q\n  %s: %q", args, r.raw, sideName(), s.raw)
	}
}

// shape requires the reference's reply shape (types and lengths).
func (f *zsetFuzz) shape(args ...string) {
	f.t.Helper()
	r, s := f.both(args...)
	if why := sameShape(r, s); why != "" {
		f.fail("%q (shape): %s\n  redis:  %q\n  %s: %q", args, why, r.raw, sideName(), s.raw)
	}
}

func zencodingOf(c *respClient, key string) string {
	r := c.do("OBJECT", "ENCODING", key)
	if r.kind != '$' || r.null {
		return "none"
	}
	return r.text
}

func (f *zsetFuzz) checkEncodings(keys ...string) {
	f.t.Helper()
	for _, k := range keys {
		re, se := zencodingOf(f.ref, k), zencodingOf(f.sut, k)
		if re != se {
			f.fail("OBJECT ENCODING %s: redis %s, %s %s", k, re, sideName(), se)
		}
		if re == "skiplist" {
			f.skiplists++
		}
	}
}

func (f *zsetFuzz) pick(list []string) string { return list[f.rng.IntN(len(list))] }

// key is mostly one of the sorted sets, sometimes a key of another type
// or a missing one.
func (f *zsetFuzz) key() string {
	switch f.rng.IntN(40) {
	case 0:
		return "str"
	case 1:
		return "nosuch"
	case 2:
		return "set"
	case 3, 4, 5:
		return "l"
	}
	return f.pick(zfuzzKeys)
}

func (f *zsetFuzz) member() string {
	switch f.rng.IntN(60) {
	case 0:
		return zfuzzLong
	case 1:
		return ""
	}
	return "m" + strconv.Itoa(f.rng.IntN(14))
}

func (f *zsetFuzz) score() string {
	if f.rng.IntN(50) == 0 {
		return "abc"
	}
	return f.pick(zfuzzScores)
}

func (f *zsetFuzz) scoreBound() string {
	s := f.pick([]string{"-inf", "+inf", "0", "1", "2", "2.5", "3", "-1", "1e3", "0.1"})
	if f.rng.IntN(3) == 0 {
		s = "(" + s
	}
	if f.rng.IntN(60) == 0 {
		s = "x"
	}
	return s
}

func (f *zsetFuzz) lexBound() string {
	switch f.rng.IntN(8) {
	case 0:
		return "-"
	case 1:
		return "+"
	case 2:
		if f.rng.IntN(10) == 0 {
			return "bad"
		}
	}
	m := "m" + strconv.Itoa(f.rng.IntN(14))
	if f.rng.IntN(4) == 0 {
		m = m[:1]
	}
	if f.rng.IntN(2) == 0 {
		return "(" + m
	}
	return "[" + m
}

func (f *zsetFuzz) index() string { return strconv.Itoa(f.rng.IntN(24) - 12) }

// lexSafe reports whether lex commands on key are deterministic: its
// members share one score, or it is a listpack (walked like Redis's).
func (f *zsetFuzz) lexSafe(key string) bool {
	return key == "l" || zencodingOf(f.ref, key) != "skiplist"
}

func (f *zsetFuzz) limit(args []string) []string {
	if f.rng.IntN(3) == 0 {
		args = append(args, "LIMIT", strconv.Itoa(f.rng.IntN(6)-1), strconv.Itoa(f.rng.IntN(6)-1))
	}
	return args
}

func (f *zsetFuzz) withScores(args []string) []string {
	if f.rng.IntN(2) == 0 {
		args = append(args, "WITHSCORES")
	}
	return args
}

// srcKeys returns n input keys for the algebra commands.
func (f *zsetFuzz) srcKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		switch f.rng.IntN(12) {
		case 0:
			keys[i] = "set"
		case 1:
			keys[i] = "nosuch"
		case 2:
			keys[i] = "l"
		default:
			keys[i] = f.pick(zfuzzKeys)
		}
		if f.rng.IntN(100) == 0 {
			keys[i] = "str"
		}
	}
	return keys
}

func (f *zsetFuzz) run(steps int) {
	for i := 0; i < steps; i++ {
		f.step()
	}
	f.t.Logf("%d commands, %d errors, %d skiplist encodings seen, %d full skiplist scans", f.n, f.errors, f.skiplists, f.scans)
}

func (f *zsetFuzz) step() {
	f.t.Helper()
	key := f.key()
	switch op := f.rng.IntN(31); op {
	case 0, 1, 2, 3: // ZADD
		args := []string{"ZADD", key}
		for _, o := range []string{"NX", "XX", "GT", "LT", "CH", "INCR"} {
			if f.rng.IntN(7) == 0 {
				args = append(args, o)
			}
		}
		for n := 1 + f.rng.IntN(4); n > 0; n-- {
			s := f.score()
			if key == "l" {
				s = "0"
			}
			args = append(args, s, f.member())
		}
		if key == "l" && strings.Contains(strings.Join(args, " "), "INCR") {
			args[1] = "a"
		}
		f.exact(args...)
		f.checkEncodings(args[1])
	case 4: // ZINCRBY
		if key == "l" {
			key = "b"
		}
		f.exact("ZINCRBY", key, f.score(), f.member())
		f.checkEncodings(key)
	case 5, 6: // ZREM
		args := []string{"ZREM", key}
		for n := 1 + f.rng.IntN(3); n > 0; n-- {
			args = append(args, f.member())
		}
		f.exact(args...)
		f.checkEncodings(key)
	case 7:
		f.exact("ZSCORE", key, f.member())
	case 8:
		f.exact("ZMSCORE", key, f.member(), f.member(), f.member())
	case 9:
		f.exact("ZCARD", key)
	case 10:
		f.exact("ZCOUNT", key, f.scoreBound(), f.scoreBound())
	case 11:
		if f.lexSafe(key) {
			f.exact("ZLEXCOUNT", key, f.lexBound(), f.lexBound())
		}
	case 12, 13, 14: // ZRANGE in all its forms
		args := []string{"ZRANGE", key}
		switch f.rng.IntN(3) {
		case 0:
			args = f.withScores(append(args, f.index(), f.index()))
		case 1:
			args = f.limit(f.withScores(append(args, f.scoreBound(), f.scoreBound(), "BYSCORE")))
		case 2:
			if !f.lexSafe(key) {
				return
			}
			args = f.limit(append(args, f.lexBound(), f.lexBound(), "BYLEX"))
		}
		if f.rng.IntN(2) == 0 {
			args = append(args, "REV")
		}
		f.rng.Shuffle(len(args)-4, func(i, j int) {
			// Options may come in any order; keep LIMIT's numbers with it.
			if !strings.EqualFold(args[4+i], "LIMIT") && !strings.EqualFold(args[4+j], "LIMIT") && !isNumber(args[4+i]) && !isNumber(args[4+j]) {
				args[4+i], args[4+j] = args[4+j], args[4+i]
			}
		})
		f.exact(args...)
	case 15: // the older range commands
		switch f.rng.IntN(5) {
		case 0:
			f.exact(f.withScores([]string{"ZREVRANGE", key, f.index(), f.index()})...)
		case 1:
			f.exact(f.limit(f.withScores([]string{"ZRANGEBYSCORE", key, f.scoreBound(), f.scoreBound()}))...)
		case 2:
			f.exact(f.limit(f.withScores([]string{"ZREVRANGEBYSCORE", key, f.scoreBound(), f.scoreBound()}))...)
		case 3:
			if f.lexSafe(key) {
				f.exact(f.limit([]string{"ZRANGEBYLEX", key, f.lexBound(), f.lexBound()})...)
			}
		case 4:
			if f.lexSafe(key) {
				f.exact(f.limit([]string{"ZREVRANGEBYLEX", key, f.lexBound(), f.lexBound()})...)
			}
		}
	case 16: // ZRANGESTORE
		dst := f.pick(zfuzzKeys)
		args := []string{"ZRANGESTORE", dst, key}
		switch f.rng.IntN(3) {
		case 0:
			args = append(args, f.index(), f.index())
		case 1:
			args = f.limit(append(args, f.scoreBound(), f.scoreBound(), "BYSCORE"))
		case 2:
			if !f.lexSafe(key) {
				return
			}
			args = f.limit(append(args, f.lexBound(), f.lexBound(), "BYLEX"))
		}
		if f.rng.IntN(2) == 0 {
			args = append(args, "REV")
		}
		f.exact(args...)
		f.checkEncodings(dst)
	case 17:
		f.exact(f.pick([]string{"ZRANK", "ZREVRANK"}), key, f.member())
	case 18: // ZREMRANGEBY*
		switch f.rng.IntN(3) {
		case 0:
			f.exact("ZREMRANGEBYRANK", key, f.index(), f.index())
		case 1:
			f.exact("ZREMRANGEBYSCORE", key, f.scoreBound(), f.scoreBound())
		case 2:
			if !f.lexSafe(key) {
				return
			}
			f.exact("ZREMRANGEBYLEX", key, f.lexBound(), f.lexBound())
		}
		f.checkEncodings(key)
	case 19, 20: // ZPOPMIN / ZPOPMAX
		args := []string{f.pick([]string{"ZPOPMIN", "ZPOPMAX"}), key}
		if f.rng.IntN(2) == 0 {
			args = append(args, strconv.Itoa(f.rng.IntN(5)-1))
		}
		f.exact(args...)
		f.checkEncodings(key)
	case 21: // ZMPOP
		keys := f.srcKeys(1 + f.rng.IntN(3))
		args := append([]string{"ZMPOP", strconv.Itoa(len(keys))}, keys...)
		args = append(args, f.pick([]string{"MIN", "MAX"}))
		if f.rng.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(f.rng.IntN(5)))
		}
		f.exact(args...)
		f.checkEncodings(keys...)
	case 22, 23, 24: // ZUNION, ZINTER, ZDIFF and their STORE forms
		cmdName := f.pick([]string{"ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"})
		store := strings.HasSuffix(cmdName, "STORE")
		keys := f.srcKeys(1 + f.rng.IntN(3))
		args := []string{cmdName}
		dst := f.pick(zfuzzKeys)
		if store {
			args = append(args, dst)
		}
		args = append(args, strconv.Itoa(len(keys)))
		args = append(args, keys...)
		if !strings.HasPrefix(cmdName, "ZDIFF") {
			if f.rng.IntN(3) == 0 {
				args = append(args, "WEIGHTS")
				for range keys {
					args = append(args, f.pick([]string{"1", "2", "0", "-1", "0.5", "inf"}))
				}
			}
			if f.rng.IntN(3) == 0 {
				args = append(args, "AGGREGATE", f.pick([]string{"SUM", "MIN", "MAX"}))
			}
		}
		if !store && f.rng.IntN(2) == 0 {
			args = append(args, "WITHSCORES")
		}
		f.exact(args...)
		if store {
			f.checkEncodings(dst)
		}
	case 25:
		keys := f.srcKeys(1 + f.rng.IntN(3))
		args := append([]string{"ZINTERCARD", strconv.Itoa(len(keys))}, keys...)
		if f.rng.IntN(2) == 0 {
			args = append(args, "LIMIT", strconv.Itoa(f.rng.IntN(4)))
		}
		f.exact(args...)
	case 26: // ZRANDMEMBER
		switch f.rng.IntN(4) {
		case 0:
			f.shape("ZRANDMEMBER", key)
		case 1:
			f.exact(f.withScores([]string{"ZRANDMEMBER", key, "1000"})...)
		case 2:
			f.exact("ZRANDMEMBER", key, "0")
		case 3:
			f.shape(f.withScores([]string{"ZRANDMEMBER", key, strconv.Itoa(f.rng.IntN(10) - 5)})...)
		}
	case 27: // ZSCAN
		if zencodingOf(f.ref, key) == "skiplist" {
			f.scanAll(key)
			return
		}
		args := []string{"ZSCAN", key, "0"}
		if f.rng.IntN(2) == 0 {
			args = append(args, "MATCH", f.pick([]string{"m1*", "*", "m?", "x*"}))
		}
		if f.rng.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(1+f.rng.IntN(3)))
		}
		f.exact(args...)
	case 28: // change the threshold now and then
		f.exact("CONFIG", "SET", "zset-max-listpack-entries", f.pick([]string{"0", "3", "6", "128"}))
	case 29, 30: // whole-key checks
		f.exact("ZRANGE", key, "0", "-1", "WITHSCORES")
		f.checkEncodings(key)
	}
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// scanAll iterates ZSCAN to the end on both sides and compares the pairs
// returned as sets.
func (f *zsetFuzz) scanAll(key string) {
	f.t.Helper()
	f.n++
	f.history = append(f.history, fmt.Sprintf("%d: ZSCAN %s (full iteration)", f.n, key))
	f.scans++
	count := strconv.Itoa(1 + f.rng.IntN(20))
	collect := func(c *respClient) []string {
		seen := map[string]bool{}
		cursor := "0"
		for calls := 0; ; calls++ {
			if calls > 1000 {
				f.fail("ZSCAN %s never returned to cursor 0", key)
			}
			r := c.do("ZSCAN", key, cursor, "COUNT", count)
			if r.kind != '*' || len(r.elems) != 2 || len(r.elems[1].elems)%2 != 0 {
				f.fail("ZSCAN %s: %q", key, r.raw)
			}
			cursor = r.elems[0].text
			el := r.elems[1].elems
			for i := 0; i < len(el); i += 2 {
				if el[i].kind != '$' || el[i+1].kind != '$' {
					f.fail("ZSCAN %s: not bulk strings: %q", key, r.raw)
				}
				seen[el[i].text+"="+el[i+1].text] = true
			}
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
	ref, sut := collect(f.ref), collect(f.sut)
	if strings.Join(ref, "\n") != strings.Join(sut, "\n") {
		f.fail("ZSCAN %s iteration differs:\n  redis:  %v\n  %s: %v", key, ref, sideName(), sut)
	}
}

// TestRedisZscanSkiplist iterates ZSCAN over skiplists to the end with
// several COUNT and MATCH options and compares the (member, score) pairs
// returned; cursors and batches are the hash table's business.
func TestRedisZscanSkiplist(t *testing.T) {
	for _, proto := range []int{2, 3} {
		for _, opts := range [][]string{nil, {"COUNT", "1"}, {"COUNT", "1000"}, {"MATCH", "m1*"}, {"MATCH", "m1?", "COUNT", "7"}} {
			t.Run(fmt.Sprintf("resp%d/%v", proto, opts), func(t *testing.T) {
				var sides [2][]string
				for i, addr := range []string{refRedis, sutRedis} {
					if err := flushRedis(addr); err != nil {
						t.Fatal(err)
					}
					c := dialRESP(t, addr)
					if proto == 3 {
						c.do("HELLO", "3")
					}
					c.pipeline([]string{zbigFixture("z"), cmd("ZADD", "z", "-0", "negzero", "0.1", "tenth", "inf", "top")})
					if e := zencodingOf(c, "z"); e != "skiplist" {
						t.Fatalf("%s: encoding %s", addr, e)
					}
					seen := map[string]bool{}
					cursor := "0"
					for calls := 0; ; calls++ {
						if calls > 10000 {
							t.Fatalf("%s: ZSCAN did not return to cursor 0", addr)
						}
						r := c.do(append([]string{"ZSCAN", "z", cursor}, opts...)...)
						if r.kind != '*' || len(r.elems) != 2 || r.elems[1].kind != '*' {
							t.Fatalf("%s: reply is not [cursor, elements]: %q", addr, r.raw)
						}
						cursor = r.elems[0].text
						el := r.elems[1].elems
						for j := 0; j+1 < len(el); j += 2 {
							seen[el[j].text+"="+el[j+1].text] = true
						}
						if cursor == "0" {
							break
						}
					}
					for p := range seen {
						sides[i] = append(sides[i], p)
					}
					sort.Strings(sides[i])
				}
				if !equalStrings(sides[0], sides[1]) {
					t.Errorf("ZSCAN %v: %d pairs, redis %d\n  missing: %v\n  extra:   %v", opts, len(sides[1]), len(sides[0]), minus(sides[0], sides[1]), minus(sides[1], sides[0]))
				}
			})
		}
	}
}
