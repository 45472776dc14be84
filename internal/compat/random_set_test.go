package compat

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRandomSets sends the same seeded random stream of set commands to
// redis-server and to Tandem and compares every reply, with a small key
// and member space (and a small set-max-intset-entries) so that members
// collide and sets change encoding often.
//
// Replies are compared byte for byte, except where Redis itself is not
// deterministic, and then as narrowly as possible:
//   - members of a hashtable come in arbitrary order: compared as a
//     multiset. Whether the order is fixed is asked of the reference (the
//     set's OBJECT ENCODING; for SUNION and SDIFF, the encoding of the
//     same result stored in a scratch key).
//   - SPOP and SRANDMEMBER pick at random: each side's reply must have the
//     reference's shape, and its members must be (distinct) members of the
//     set; what SPOP leaves behind (members and encoding) is checked
//     against Redis's rules, then both sides are rebuilt to the same state.
//   - SSCAN of a hashtable: the full iteration is compared as a set.
//
// After every write, OBJECT ENCODING of the keys written is compared too.
// COMPAT_SEED=n replays another stream.
func TestRandomSets(t *testing.T) {
	seed := envSeed(t, 20240611)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			f := newSetFuzz(t, proto, seed+uint64(proto))
			f.run(1000)
		})
	}
}

// setFuzz is one randomized run.
type setFuzz struct {
	t        *testing.T
	rng      *rand.Rand
	seed     uint64
	ref, sut *respClient
	limit    int      // set-max-intset-entries on both sides
	history  []string // recent commands, for failure messages
	n        int      // commands sent
}

var (
	setFuzzKeys    = []string{"a", "b", "c", "d"}
	setFuzzMembers = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "-1", "100000", "x", "y", "z", "w", "01"}
)

func newSetFuzz(t *testing.T, proto int, seed uint64) *setFuzz {
	for _, addr := range []string{refRedis, sutRedis} {
		if err := flushRedis(addr); err != nil {
			t.Fatal(err)
		}
	}
	f := &setFuzz{t: t, rng: rand.New(rand.NewPCG(seed, 0x5e75)), seed: seed, ref: dialRESP(t, refRedis), sut: dialRESP(t, sutRedis)}
	if proto == 3 {
		f.ref.do("HELLO", "3")
		f.sut.do("HELLO", "3")
	}
	f.setLimit(6)
	t.Cleanup(func() {
		for _, addr := range []string{refRedis, sutRedis} {
			controlFor(addr).roundTrip(cmd("CONFIG", "SET", "set-max-intset-entries", "512"))
		}
	})
	// Keys of other types, for WRONGTYPE.
	f.both("SET", "str", "v")
	f.both("HSET", "hash", "f", "v")
	return f
}

func (f *setFuzz) fail(format string, args ...any) {
	f.t.Helper()
	f.t.Fatalf("seed %d, command %d: %s\nlast commands:\n  %s", f.seed, f.n, fmt.Sprintf(format, args...), strings.Join(f.history, "\n  "))
}

// both sends a command to both sides and returns the two replies.
func (f *setFuzz) both(args ...string) (reply, reply) {
	f.t.Helper()
	f.n++
	f.history = append(f.history, fmt.Sprintf("%d: %q", f.n, args))
	if len(f.history) > 30 {
		f.history = f.history[1:]
	}
	return f.ref.do(args...), f.sut.do(args...)
}

// exact requires identical replies.
func (f *setFuzz) exact(args ...string) (reply, reply) {
	f.t.Helper()
	r, s := f.both(args...)
	if string(r.raw) != string(s.raw) {
		f.fail("%q:\n  redis:  %q\n  %s: %q", args, r.raw, sideName(), s.raw)
	}
	return r, s
}

// asMultiset requires the same aggregate type and the same members in any
// order (or identical replies when they are not aggregates).
func (f *setFuzz) asMultiset(args []string, r, s reply) {
	f.t.Helper()
	if string(r.raw) == string(s.raw) {
		return
	}
	if !r.isAggregate() || r.kind != s.kind || len(r.elems) != len(s.elems) || !equalMultiset(r.elems, s.elems) {
		f.fail("%q (compared as a multiset):\n  redis:  %q\n  %s: %q", args, r.raw, sideName(), s.raw)
	}
}

func setReplyTexts(r reply) []string {
	out := make([]string, len(r.elems))
	for i, e := range r.elems {
		out[i] = e.text
	}
	return out
}

// setEncodingOn asks one side for a key's OBJECT ENCODING ("none" if missing).
func setEncodingOn(c *respClient, key string) string {
	r := c.do("OBJECT", "ENCODING", key)
	if r.kind != '$' || r.null {
		return "none"
	}
	return r.text
}

func setMembersOn(c *respClient, key string) []string {
	r := c.do("SMEMBERS", key)
	if r.isError() {
		return nil
	}
	return setReplyTexts(r)
}

// setCanonicalInt is Redis's string2ll round trip: what an intset can hold.
func setCanonicalInt(s string) bool {
	v, err := strconv.ParseInt(s, 10, 64)
	return err == nil && strconv.FormatInt(v, 10) == s
}

// builtEncoding is the encoding Redis gives a set built from members by
// adding them one by one.
func (f *setFuzz) builtEncoding(members []string) string {
	if len(members) == 0 {
		return "none"
	}
	if len(members) > f.limit {
		return "hashtable"
	}
	for _, m := range members {
		if !setCanonicalInt(m) {
			return "hashtable"
		}
	}
	return "intset"
}

func (f *setFuzz) checkEncodings(keys ...string) {
	f.t.Helper()
	for _, k := range keys {
		if re, se := setEncodingOn(f.ref, k), setEncodingOn(f.sut, k); re != se {
			f.fail("OBJECT ENCODING %s: redis %s, %s %s", k, re, sideName(), se)
		}
	}
}

func (f *setFuzz) setLimit(n int) {
	f.limit = n
	f.exact("CONFIG", "SET", "set-max-intset-entries", strconv.Itoa(n))
}

func (f *setFuzz) key() string {
	switch r := f.rng.IntN(40); {
	case r == 0:
		return "str"
	case r == 1:
		return "hash"
	case r == 2:
		return "nosuch"
	}
	return setFuzzKeys[f.rng.IntN(len(setFuzzKeys))]
}

func (f *setFuzz) setKey() string { return setFuzzKeys[f.rng.IntN(len(setFuzzKeys))] }

func (f *setFuzz) member() string { return setFuzzMembers[f.rng.IntN(len(setFuzzMembers))] }

func (f *setFuzz) members(max int) []string {
	out := make([]string, 1+f.rng.IntN(max))
	for i := range out {
		out[i] = f.member()
	}
	return out
}

func (f *setFuzz) keys(max int) []string {
	out := make([]string, 1+f.rng.IntN(max))
	for i := range out {
		out[i] = f.key()
	}
	return out
}

func (f *setFuzz) run(steps int) {
	f.t.Helper()
	for i := 0; i < steps; i++ {
		switch r := f.rng.IntN(100); {
		case r < 22:
			k := f.key()
			f.exact(append([]string{"SADD", k}, f.members(4)...)...)
			f.checkEncodings(k)
		case r < 32:
			k := f.key()
			f.exact(append([]string{"SREM", k}, f.members(3)...)...)
			f.checkEncodings(k)
		case r < 36:
			f.exact("SISMEMBER", f.key(), f.member())
		case r < 39:
			f.exact(append([]string{"SMISMEMBER", f.key()}, f.members(3)...)...)
		case r < 42:
			f.exact("SCARD", f.key())
		case r < 48:
			f.smembers()
		case r < 55:
			f.spop()
		case r < 61:
			f.srandmember()
		case r < 66:
			src, dst := f.key(), f.key()
			f.exact("SMOVE", src, dst, f.member())
			f.checkEncodings(src, dst)
		case r < 73:
			f.combine([]string{"SINTER", "SUNION", "SDIFF"}[f.rng.IntN(3)])
		case r < 76:
			f.sintercard()
		case r < 86:
			dst := f.key()
			if f.rng.IntN(4) > 0 {
				dst = f.setKey()
			}
			name := []string{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}[f.rng.IntN(3)]
			f.exact(append([]string{name, dst}, f.keys(3)...)...)
			f.checkEncodings(dst)
			if dst == "str" || dst == "hash" {
				f.both("DEL", dst) // restore the wrong-type keys
				f.both("SET", "str", "v")
				f.both("HSET", "hash", "f", "v")
			}
		case r < 92:
			f.sscan()
		case r < 95:
			f.exact("DEL", f.setKey())
		case r < 97:
			f.setLimit(2 + f.rng.IntN(9))
		default:
			f.checkState()
		}
	}
	f.checkState()
}

// checkState compares every key's type, members and encoding.
func (f *setFuzz) checkState() {
	f.t.Helper()
	for _, k := range setFuzzKeys {
		args := []string{"SMEMBERS", k}
		r, s := f.ref.do(args...), f.sut.do(args...)
		f.asMultiset(args, r, s)
		f.checkEncodings(k)
	}
	f.exact("DBSIZE")
}

// orderFixed reports whether Redis replies key's members in a fixed
// order: an intset's ascend.
func (f *setFuzz) orderFixed(key string) bool { return setEncodingOn(f.ref, key) == "intset" }

func (f *setFuzz) smembers() {
	k := f.key()
	fixed := f.orderFixed(k)
	args := []string{"SMEMBERS", k}
	r, s := f.both(args...)
	if fixed {
		f.requireSame(args, r, s)
		return
	}
	f.asMultiset(args, r, s)
}

func (f *setFuzz) requireSame(args []string, r, s reply) {
	f.t.Helper()
	if string(r.raw) != string(s.raw) {
		f.fail("%q:\n  redis:  %q\n  %s: %q", args, r.raw, sideName(), s.raw)
	}
}

func (f *setFuzz) combine(name string) {
	keys := f.keys(3)
	args := append([]string{name}, keys...)
	fixed := true
	switch name {
	case "SINTER":
		// Redis walks the smallest set (a stable sort by size): its
		// encoding fixes the order. Missing keys make the result empty.
		smallest, size := "", -1
		for _, k := range keys {
			if typ := f.ref.do("TYPE", k).text; typ != "set" {
				smallest = ""
				break
			}
			if n, _ := strconv.Atoi(f.ref.do("SCARD", k).text); size < 0 || n < size {
				smallest, size = k, n
			}
		}
		fixed = smallest == "" || f.orderFixed(smallest)
	default:
		// The reference stores the same result: its encoding is that of
		// the set Redis iterates to reply.
		store := name + "STORE"
		if r := f.ref.do(append([]string{store, "__scratch"}, keys...)...); !r.isError() {
			fixed = setEncodingOn(f.ref, "__scratch") != "hashtable"
			f.ref.do("DEL", "__scratch")
		}
	}
	r, s := f.both(args...)
	if fixed {
		f.requireSame(args, r, s)
		return
	}
	f.asMultiset(args, r, s)
}

func (f *setFuzz) sintercard() {
	keys := f.keys(3)
	args := append([]string{"SINTERCARD", strconv.Itoa(len(keys))}, keys...)
	switch f.rng.IntN(4) {
	case 0:
		args = append(args, "LIMIT", strconv.Itoa(f.rng.IntN(5)))
	case 1:
		args[1] = strconv.Itoa(f.rng.IntN(len(keys)+2) - 1) // sometimes wrong
	}
	f.exact(args...)
}

// randomReply checks a SPOP or SRANDMEMBER reply that is random: the same
// shape as the reference's, members of pool, distinct when asked.
func (f *setFuzz) randomReply(args []string, r, s reply, pool []string, distinct bool) {
	f.t.Helper()
	if why := sameShape(r, s); why != "" {
		f.fail("%q: %s\n  redis:  %q\n  %s: %q", args, why, r.raw, sideName(), s.raw)
	}
	got := []reply{s}
	if s.isAggregate() {
		got = s.elems
	}
	seen := map[string]bool{}
	for _, e := range got {
		if e.kind == '_' || e.null {
			continue
		}
		if !slices.Contains(pool, e.text) {
			f.fail("%q: %q is not a member of %v\n  %s: %q", args, e.text, pool, sideName(), s.raw)
		}
		if distinct && seen[e.text] {
			f.fail("%q: %q returned twice\n  %s: %q", args, e.text, sideName(), s.raw)
		}
		seen[e.text] = true
	}
}

func (f *setFuzz) srandmember() {
	k := f.key()
	args := []string{"SRANDMEMBER", k}
	var count int
	if f.rng.IntN(3) > 0 {
		count = f.rng.IntN(14) - 5
		args = append(args, strconv.Itoa(count))
	}
	pool := setMembersOn(f.ref, k)
	fixed := f.orderFixed(k)
	r, s := f.both(args...)
	switch {
	case r.isError() || len(pool) == 0 || len(args) == 2 && len(pool) == 1:
		f.requireSame(args, r, s)
	case len(args) == 2:
		f.randomReply(args, r, s, pool, true)
	case count >= len(pool):
		// The whole set, in its iteration order.
		if fixed {
			f.requireSame(args, r, s)
		} else {
			f.asMultiset(args, r, s)
		}
	default:
		f.randomReply(args, r, s, pool, count > 0)
	}
}

// spop pops on both sides, checks each side's reply and what it left
// against Redis's rules, then rebuilds both sides to the same state.
func (f *setFuzz) spop() {
	k := f.key()
	args := []string{"SPOP", k}
	count := -1
	if f.rng.IntN(3) > 0 {
		count = f.rng.IntN(9)
		args = append(args, strconv.Itoa(count))
	}
	pre := setMembersOn(f.ref, k)
	preEnc := setEncodingOn(f.ref, k)
	r, s := f.both(args...)
	if r.isError() || len(pre) == 0 || count == 0 {
		f.requireSame(args, r, s)
		return
	}
	size := len(pre)
	var popped [2][]string // ref, sut
	switch {
	case count < 0:
		f.randomReply(args, r, s, pre, true)
		popped = [2][]string{{r.text}, {s.text}}
	case count >= size:
		// Everything, ordered as SUNION orders it.
		if f.builtEncoding(pre) == "intset" {
			f.requireSame(args, r, s)
		} else {
			f.asMultiset(args, r, s)
		}
		popped = [2][]string{setReplyTexts(r), setReplyTexts(s)}
	default:
		f.randomReply(args, r, s, pre, true)
		popped = [2][]string{setReplyTexts(r), setReplyTexts(s)}
	}
	// What each side kept: pre minus what it popped, with the encoding
	// Redis's strategy leaves (a rebuilt set when few members remain).
	var kept [2][]string
	for side, c := range []*respClient{f.ref, f.sut} {
		want := slices.DeleteFunc(slices.Clone(pre), func(m string) bool { return slices.Contains(popped[side], m) })
		got := setMembersOn(c, k)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			f.fail("%q: side %d kept %v, want %v", args, side, got, want)
		}
		wantEnc := preEnc
		switch {
		case len(want) == 0:
			wantEnc = "none"
		case count > 0 && (size-count)*5 <= count:
			wantEnc = f.builtEncoding(want)
		}
		if enc := setEncodingOn(c, k); enc != wantEnc {
			name := "redis"
			if side == 1 {
				name = sideName()
			}
			f.fail("%q from a %s of %d: %s left %s, want %s", args, preEnc, size, name, enc, wantEnc)
		}
		kept[side] = got
	}
	if !slices.Equal(kept[0], kept[1]) {
		f.rebuild(k, kept[1], setEncodingOn(f.sut, k))
	}
}

// rebuild gives key the same members and encoding on both sides.
func (f *setFuzz) rebuild(key string, members []string, enc string) {
	for _, c := range []*respClient{f.ref, f.sut} {
		c.do("DEL", key)
		if len(members) == 0 {
			continue
		}
		c.do(append([]string{"SADD", key}, members...)...)
		if enc == "hashtable" && setEncodingOn(c, key) == "intset" {
			c.do("SADD", key, "__resync")
			c.do("SREM", key, "__resync")
		}
	}
	f.checkEncodings(key)
}

// sscan iterates to cursor 0 on both sides and compares what came back.
func (f *setFuzz) sscan() {
	k := f.key()
	var opts []string
	if f.rng.IntN(2) == 0 {
		opts = append(opts, "COUNT", strconv.Itoa(1+f.rng.IntN(5)))
	}
	if f.rng.IntN(3) == 0 {
		opts = append(opts, "MATCH", []string{"1*", "*", "[xy]", "?"}[f.rng.IntN(4)])
	}
	// An intset comes whole in one reply, a missing key as an empty scan.
	enc := setEncodingOn(f.ref, k)
	first := append([]string{"SSCAN", k, "0"}, opts...)
	r, s := f.both(first...)
	if r.isError() || enc != "hashtable" {
		f.requireSame(first, r, s)
		return
	}
	var all [2][]string
	for side, c := range []*respClient{f.ref, f.sut} {
		rep := r
		if side == 1 {
			rep = s
		}
		seen := map[string]bool{}
		for calls := 0; ; calls++ {
			if rep.kind != '*' || len(rep.elems) != 2 || rep.elems[0].kind != '$' || rep.elems[1].kind != '*' {
				f.fail("SSCAN %s: reply is not [cursor, members]: %q", k, rep.raw)
			}
			for _, e := range rep.elems[1].elems {
				seen[e.text] = true
			}
			cursor := rep.elems[0].text
			if cursor == "0" {
				break
			}
			if calls > 1000 {
				f.fail("SSCAN %s does not end", k)
			}
			rep = c.do(append([]string{"SSCAN", k, cursor}, opts...)...)
		}
		for m := range seen {
			all[side] = append(all[side], m)
		}
		slices.Sort(all[side])
	}
	if !slices.Equal(all[0], all[1]) {
		f.fail("SSCAN %s %v iterated:\n  redis:  %v\n  %s: %v", k, opts, all[0], sideName(), all[1])
	}
}

// envSeed returns COMPAT_SEED when it is set, else def: a failing random
// run prints its seed, and COMPAT_SEED=<seed> replays it.
func envSeed(t *testing.T, def uint64) uint64 {
	s := os.Getenv("COMPAT_SEED")
	if s == "" {
		return def
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("COMPAT_SEED: %v", err)
	}
	return n
}
