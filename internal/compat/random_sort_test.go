package compat

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestRandomSort sends the same seeded random stream of SORT/SORT_RO
// commands (and the writes that feed them: lists, sets, sorted sets,
// weight strings and hashes) to redis-server and to Tandem and compares
// every reply byte for byte. The loosenings, where Redis's reply depends
// on its dict order: BY nosort on a set that Redis holds as a hashtable,
// and ALPHA BY weights (whose ties keep the input order) on a hashtable
// set or a sorted set. Those are compared as a multiset when the whole
// result is returned and by length when LIMIT picks a part of it. COMPAT_SEED=n replays another stream.
func TestRandomSort(t *testing.T) {
	seed := envSeed(t, 20240707)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			f := newSortFuzz(t, proto, seed+uint64(proto))
			f.run(1000)
		})
	}
}

type sortFuzz struct {
	setFuzz
}

var (
	sortFuzzSources = []string{"l1", "l2", "s1", "s2", "z1", "str", "hash", "none"}
	sortFuzzMembers = []string{"1", "2", "3", "10", "-1", "07", "1.5", "1e1", "a", "b", "B", "ab", "", " 2"}
	sortFuzzWeights = []string{"1", "2", "2", "3", "-5", "0.5", "x", "y", "", "inf"}
	sortFuzzGets    = []string{"#", "w_*", "h_*->f", "h_*->g", "nostar", "v_*"}
	sortFuzzBys     = []string{"w_*", "h_*->f", "v_*", "nosort", "nokey_*"}
)

func newSortFuzz(t *testing.T, proto int, seed uint64) *sortFuzz {
	for _, addr := range []string{refRedis, sutRedis} {
		if err := flushRedis(addr); err != nil {
			t.Fatal(err)
		}
	}
	f := &sortFuzz{setFuzz{t: t, rng: rand.New(rand.NewPCG(seed, 0x50e7)), seed: seed, ref: dialRESP(t, refRedis), sut: dialRESP(t, sutRedis)}}
	if proto == 3 {
		f.ref.do("HELLO", "3")
		f.sut.do("HELLO", "3")
	}
	f.both("SET", "str", "v")
	f.both("HSET", "hash", "f", "v")
	return f
}

func (f *sortFuzz) pick(xs []string) string { return xs[f.rng.IntN(len(xs))] }

func (f *sortFuzz) run(n int) {
	for f.n < n {
		switch r := f.rng.IntN(10); {
		case r < 4:
			f.write()
		default:
			f.sort()
		}
	}
}

// write changes the data a SORT reads.
func (f *sortFuzz) write() {
	m := f.pick(sortFuzzMembers)
	switch f.rng.IntN(9) {
	case 0:
		f.exact("RPUSH", f.pick([]string{"l1", "l2"}), m, f.pick(sortFuzzMembers))
	case 1:
		f.exact("LPOP", f.pick([]string{"l1", "l2"}))
	case 2:
		f.exact("SADD", f.pick([]string{"s1", "s2"}), m)
	case 3:
		f.exact("SREM", f.pick([]string{"s1", "s2"}), m)
	case 4:
		f.exact("ZADD", "z1", strconv.Itoa(f.rng.IntN(5)), m)
	case 5:
		f.exact("SET", "w_"+m, f.pick(sortFuzzWeights))
	case 6:
		f.exact("HSET", "h_"+m, f.pick([]string{"f", "g"}), f.pick(sortFuzzWeights))
	case 7:
		f.exact("SET", "v_"+m, "val"+m)
	case 8:
		f.exact("DEL", f.pick([]string{"w_" + m, "h_" + m, "l1", "s2", "z1"}))
	}
}

// sort sends a random SORT or SORT_RO.
func (f *sortFuzz) sort() {
	src := f.pick(sortFuzzSources)
	name := "SORT"
	if f.rng.IntN(4) == 0 {
		name = "SORT_RO"
	}
	args := []string{name, src}
	nosort, limited, store, alpha, byKeys, bogus := false, false, false, false, false, false
	for k := f.rng.IntN(5); k > 0; k-- {
		switch f.rng.IntN(8) {
		case 0:
			by := f.pick(sortFuzzBys)
			nosort = nosort || !strings.Contains(by, "*")
			byKeys = strings.Contains(by, "*")
			args = append(args, "BY", by)
		case 1:
			args = append(args, "GET", f.pick(sortFuzzGets))
		case 2:
			args = append(args, "LIMIT", strconv.Itoa(f.rng.IntN(6)-1), strconv.Itoa(f.rng.IntN(6)-1))
			limited = true
		case 3:
			args = append(args, "DESC")
		case 4:
			args = append(args, "ALPHA")
			alpha = true
		case 5:
			args = append(args, "ASC")
		case 6:
			if name == "SORT" || f.rng.IntN(10) == 0 {
				args = append(args, "STORE", "dst")
				store = true
			}
		case 7:
			bogus = f.rng.IntN(10) == 0
		}
	}
	if bogus { // last, so that it swallows no option
		args = append(args, f.pick([]string{"FOO", "LIMIT", "BY", "GET"}))
	}
	unordered := strings.HasPrefix(src, "z") || (strings.HasPrefix(src, "s") && setEncodingOn(f.ref, src) == "hashtable")
	// Redis's order is its dict's: for BY nosort on a hashtable set, and
	// for ties of ALPHA BY weights on a set or sorted set.
	loose := unordered && ((nosort && !store && strings.HasPrefix(src, "s")) || (!nosort && alpha && byKeys))
	f.compare(args, loose, limited)
	if store {
		f.compare([]string{"LRANGE", "dst", "0", "-1"}, loose, limited)
		f.exact("OBJECT", "ENCODING", "dst")
		if loose { // the two sides may hold dst in other orders
			f.both("DEL", "dst")
		}
	}
	if src == "z1" {
		f.exact("OBJECT", "ENCODING", "z1")
	}
}

// compare sends args to both sides and compares the replies: exactly, or
// when loose as a multiset (whole results) or by length (LIMITed ones).
func (f *sortFuzz) compare(args []string, loose, limited bool) {
	f.t.Helper()
	if !loose {
		f.exact(args...)
		return
	}
	r, s := f.both(args...)
	switch {
	case !limited:
		f.asMultiset(args, r, s)
	case r.kind != s.kind || len(r.elems) != len(s.elems):
		f.fail("%q (compared by length):\n  redis:  %q\n  %s: %q", args, r.raw, sideName(), s.raw)
	}
}
