package compat

import (
	"fmt"
	"strings"
	"testing"
)

// HyperLogLog: PFADD, PFCOUNT, PFMERGE. Tandem keeps Redis's exact
// representation, so the cases compare not only the counts but the HLL
// bytes themselves (GET), sparse and dense, including what Redis does with
// corrupted HLLs.

func TestRedisHyperLogLog(t *testing.T) { runRedisCases(t, hllCases) }

// hllHeader is the 16-byte header of a sparse HLL with a valid cached
// cardinality of zero; hllStale is the same with the stale bit set.
const (
	hllHeader = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
	hllStale  = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"
)

// pfaddMany adds n elements named prefix0..prefix(n-1) to key, 100 per
// command.
func pfaddMany(key, prefix string, n int) []string {
	var out []string
	for i := 0; i < n; i += 100 {
		args := []string{"PFADD", key}
		for j := i; j < min(n, i+100); j++ {
			args = append(args, fmt.Sprintf("%s%d", prefix, j))
		}
		out = append(out, cmd(args...))
	}
	return out
}

var hllCases = []redisCase{
	{name: "pfadd new key", cmds: mbs("PFADD h a b c", "GET h", "TYPE h", "OBJECT ENCODING h", "STRLEN h")},
	{name: "pfadd no elements", cmds: mbs("PFADD h", "GET h", "PFADD h", "PFCOUNT h")},
	{name: "pfadd returns whether changed", cmds: mbs("PFADD h a", "PFADD h a", "PFADD h a b", "PFADD h b a", "PFCOUNT h")},
	{name: "pfcount", cmds: mbs("PFADD h foo bar zap", "PFCOUNT h", "PFADD h zap zap zap", "PFCOUNT h", "PFADD h foo bar", "PFCOUNT h", "PFCOUNT nosuch")},
	{name: "pfcount refreshes cache bytes", cmds: mbs("PFADD h a b c d", "GET h", "PFCOUNT h", "GET h", "PFADD h e", "GET h", "PFCOUNT h", "GET h")},
	{name: "pfcount union", cmds: mbs("PFADD a 1 2 3", "PFADD b 3 4 5", "PFADD c 5 6 7 8", "PFCOUNT a b", "PFCOUNT a b c", "PFCOUNT a nosuch", "PFCOUNT nosuch1 nosuch2", "PFCOUNT a a", "GET a")},
	{name: "pfcount union does not refresh", cmds: mbs("PFADD a x y", "GET a", "PFCOUNT a nosuch", "GET a", "PFCOUNT a", "GET a")},
	{name: "pfmerge", cmds: mbs("PFADD a 1 2 3", "PFADD b 3 4 5", "PFMERGE d a b", "PFCOUNT d", "GET d", "PFMERGE d", "GET d", "PFMERGE a b", "GET a", "PFCOUNT a")},
	{name: "pfmerge missing", cmds: mbs("PFMERGE d", "GET d", "PFMERGE e nosuch", "GET e", "PFCOUNT e")},
	{name: "pfmerge keeps ttl", cmds: mbs("PFADD d x", "EXPIRE d 100", "PFADD a y", "PFMERGE d a", "TTL d"), loose: at(4, ttlApprox)},
	{name: "pfmerge into itself", cmds: mbs("PFADD a 1 2", "PFMERGE a a a", "GET a", "PFCOUNT a")},
	{name: "pfadd binary elements", cmds: cmds(cmd("PFADD", "h", "", "\x00", "\x00\x00", "\xff\xfe", "a\r\nb", "1234567", "12345678", "123456789", "0123456789abcdef0"), mbs("GET h", "PFCOUNT h"))},
	{name: "pfadd sparse to dense by size", cmds: cmds(pfaddMany("h", "e", 1000), mbs("STRLEN h", "PFCOUNT h", "GET h"), pfaddMany("h", "f", 1000), mbs("STRLEN h", "PFCOUNT h", "GET h")), noSplit: true},
	{name: "pfadd dense", cmds: cmds(pfaddMany("h", "x", 5000), mbs("STRLEN h", "PFCOUNT h", "GET h", "PFADD h x1 x2", "PFADD h new1 new2 new3", "PFCOUNT h", "GET h")), noSplit: true},
	{name: "pfmerge sparse and dense", cmds: cmds(pfaddMany("d", "x", 4000), mbs("PFADD s a b c", "PFMERGE t s d", "GET t", "PFCOUNT t", "PFMERGE s d", "STRLEN s", "GET s", "PFCOUNT s d", "PFMERGE u s"), mbs("GET u")), noSplit: true},
	{name: "pfmerge many sparse", cmds: cmds(pfaddMany("a", "a", 300), pfaddMany("b", "b", 300), pfaddMany("c", "c", 300), mbs("PFMERGE m a b c", "STRLEN m", "GET m", "PFCOUNT m", "PFCOUNT a b c")), noSplit: true},
	{name: "pfcount large", cmds: cmds(pfaddMany("h", "item:", 20000), mbs("PFCOUNT h", "GET h")), noSplit: true, noPipeline: true},
	{name: "pfadd not an hll", cmds: mbs("SET k abc", "PFADD k a", "PFCOUNT k", "PFMERGE k", "PFMERGE d k", "EXISTS d", "SET n 12345678901234567", "PFCOUNT n", "PFCOUNT n nosuch", "PFCOUNT nosuch n")},
	{name: "pfadd bad headers", cmds: cmds(
		cmd("SET", "k", "HYLL\x02"+strings.Repeat("\x00", 11)+"\x7f\xff"), mbs("PFCOUNT k", "PFADD k x"),
		cmd("SET", "k", "HYLL\x00"+strings.Repeat("\x00", 11)+"\x7f\xff"), mbs("PFCOUNT k", "PFADD k x"),
		cmd("SET", "k", "HYLX\x01"+strings.Repeat("\x00", 11)+"\x7f\xff"), mbs("PFCOUNT k"),
		cmd("SET", "k", "HYLL\x01\x00\x00"), mbs("PFCOUNT k", "PFMERGE d k", "PFCOUNT d k"),
	)},
	{name: "pfcount cached value is trusted", cmds: cmds(cmd("SET", "t", "HYLL\x01\x00\x00\x00\x2a\x00\x00\x00\x00\x00\x00\x00\x7f\xff"), mbs("PFCOUNT t", "GET t"), cmd("SET", "t", "HYLL\x01\x00\x00\x00\x2a\x00\x00\x00\x00\x00\x00\x80\x7f\xff"), mbs("PFCOUNT t", "GET t"))},
	{name: "pfadd embstr hll becomes raw", cmds: cmds(cmd("SET", "h", hllHeader+"\x7f\xff"), mbs("OBJECT ENCODING h", "PFADD h", "OBJECT ENCODING h"), cmd("SET", "g", hllHeader+"\x7f\xff"), mbs("PFCOUNT g", "OBJECT ENCODING g"), cmd("SET", "u", hllHeader+"\x7f\xff"), mbs("PFCOUNT u nosuch", "OBJECT ENCODING u"))},
	{name: "corrupted sparse short", cmds: cmds(cmd("SET", "s", hllHeader+"\x7f\xfe"), mbs("PFCOUNT s", "PFADD s a b c", "GET s", "PFCOUNT s", "PFCOUNT s nosuch", "PFMERGE d s", "EXISTS d"))},
	{name: "corrupted sparse empty", cmds: cmds(cmd("SET", "s", hllHeader), mbs("PFCOUNT s", "PFADD s a", "GET s", "PFCOUNT s nosuch", "PFMERGE s"))},
	{name: "corrupted sparse truncated xzero", cmds: cmds(cmd("SET", "s", hllHeader+"\x7f"), mbs("PFCOUNT s", "PFADD s a", "GET s", "PFCOUNT s", "PFADD s b c d", "GET s"))},
	{name: "corrupted sparse too long", cmds: cmds(cmd("SET", "s", hllHeader+"\x7f\xff\x80"), mbs("PFCOUNT s", "PFADD s a", "GET s", "PFCOUNT s", "PFCOUNT s nosuch", "PFMERGE d s"))},
	{name: "corrupted sparse partial add", cmds: cmds(cmd("SET", "u", hllStale+"\x40\x00\x7f\xfe"), mbs("PFADD u a b c d e f g", "GET u", "PFCOUNT u"), cmd("SET", "v", hllStale+"\x3f\x7f\xfe\x80"), mbs("PFADD v a b c d e f g", "GET v", "PFCOUNT v", "OBJECT ENCODING v"))},
	{name: "odd but valid sparse", cmds: cmds(cmd("SET", "w", hllStale+"\x7f\xfe\xfc"), mbs("PFCOUNT w", "GET w", "PFADD w x", "PFADD w a b c d e f g", "GET w", "PFCOUNT w", "PFMERGE w2 w", "GET w2"), cmd("SET", "x", hllStale+"\x00\x00\x7f\xfd"), mbs("PFADD x a b c d", "GET x", "PFCOUNT x"))},
	{name: "sparse value above 32 promotes", cmds: cmds(cmd("SET", "s", hllStale+"\x7f\xfe\xfc"), mbs("PFADD s a", "STRLEN s", "PFCOUNT s"))},
	{name: "pf arity", cmds: mbs("PFADD", "PFCOUNT", "PFMERGE")},
}

func init() {
	hllCases = append(hllCases, redisCase{
		name: "pf wrong type",
		cmds: cmds(bitWrongTypeSetup, mbs("SET k abc", "PFADD h a", "PFCOUNT h", "PFCOUNT h k", "PFCOUNT k h", "PFMERGE h", "PFMERGE d h", "PFMERGE d k h", "PFADD n 1", "PFMERGE h n", "TYPE h")),
	})
}

// TestHLLTransfer copies HLLs between redis-server and Tandem with GET and
// SET: the bytes must be identical and each server must count the other's
// HLL exactly as it counts its own, sparse and dense, before and after
// more elements are added on the other side.
func TestHLLTransfer(t *testing.T) {
	for _, a := range []string{refRedis, sutRedis} {
		if err := flushRedis(a); err != nil {
			t.Fatal(err)
		}
	}
	ref, sut := dialRESP(t, refRedis), dialRESP(t, sutRedis)
	for _, n := range []int{0, 1, 10, 300, 3000, 50000} {
		key := fmt.Sprintf("h%d", n)
		add := pfaddMany(key, "e", n)
		if n == 0 {
			add = []string{cmd("PFADD", key)}
		}
		ref.pipeline(add)
		sut.pipeline(add)
		rv, sv := ref.do("GET", key), sut.do("GET", key)
		if string(rv.raw) != string(sv.raw) {
			t.Fatalf("%d elements: HLL bytes differ:\n  redis:  %q\n  %s: %q", n, shorten(string(rv.raw)), sideName(), shorten(string(sv.raw)))
		}
		// Each side's HLL into the other, under a new key.
		other := key + ":from"
		ref.do("SET", other, sv.text)
		sut.do("SET", other, rv.text)
		for _, c := range [][]string{
			{"PFCOUNT", other}, {"PFCOUNT", key}, {"PFADD", other, "x", "y", "z"},
			{"PFCOUNT", other}, {"PFCOUNT", other, key}, {"GET", other},
		} {
			r, s := ref.do(c...), sut.do(c...)
			if string(r.raw) != string(s.raw) {
				t.Errorf("%d elements, %v: redis %q, %s %q", n, c, shorten(string(r.raw)), sideName(), shorten(string(s.raw)))
			}
		}
		// And back: the HLL Tandem changed is read by redis-server.
		back := ref.do("GET", other)
		sut.do("SET", other+":back", back.text)
		ref.do("SET", other+":back", sut.do("GET", other).text)
		r, s := ref.do("PFCOUNT", other+":back"), sut.do("PFCOUNT", other+":back")
		if string(r.raw) != string(s.raw) {
			t.Errorf("%d elements, round trip: redis %q, %s %q", n, r.raw, sideName(), s.raw)
		}
	}
}
