package engine

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// Values checked against redis-server 7.0.15 (glibc strtod).
func TestSortStrtod(t *testing.T) {
	cases := []struct {
		in string
		v  float64
		ok bool
	}{
		{"", 0, true}, {"1", 1, true}, {" 4", 4, true}, {"\t\n5", 5, true}, {"0x10", 16, true}, {"0X1p3", 8, true},
		{"1e5", 1e5, true}, {"5.", 5, true}, {".5", .5, true}, {"+5", 5, true}, {"-0", 0, true},
		{"inf", math.Inf(1), true}, {"-INF", math.Inf(-1), true}, {"infinity", math.Inf(1), true}, {"  -INF", math.Inf(-1), true},
		{"0e-500", 0, true}, {"1\x00abc", 1, true}, {"0x1p-1074", 0x1p-1074, true},
		{"2.2250738585072014e-308", 2.2250738585072014e-308, true}, {"1.7976931348623157e308", math.MaxFloat64, true},
		{"0x1.fffffffffffffp1023", math.MaxFloat64, true},
		{"1 ", 0, false}, {"  ", 0, false}, {"x", 0, false}, {"nan", 0, false}, {"nan(123)", 0, false},
		{"1e-310", 0, false}, {"4.9e-324", 0, false}, {"1e-320", 0, false}, {"2.2250738585072011e-308", 0, false},
		{"1.7976931348623159e308", 0, false}, {"1e400", 0, false}, {"0x1p1024", 0, false}, {"0x1.8p-1074", 0, false},
		{".", 0, false}, {"-", 0, false}, {"+", 0, false}, {"e5", 0, false}, {"0x", 0, false}, {"1e", 0, false},
		{"1e+", 0, false}, {"infinit", 0, false}, {"1_0", 0, false}, {"1,5", 0, false}, {"1e-99999999", 0, false},
	}
	for _, c := range cases {
		v, ok := sortStrtod([]byte(c.in))
		if ok != c.ok || (ok && v != c.v) {
			t.Errorf("sortStrtod(%q) = %v, %v; want %v, %v", c.in, v, ok, c.v, c.ok)
		}
	}
}

func TestSortWindow(t *testing.T) {
	cases := []struct {
		off, cnt   int64
		n          int
		start, end int
	}{
		{0, -1, 5, 0, 4}, {1, 2, 5, 1, 2}, {-1, 2, 5, 0, 1}, {2, 100, 5, 2, 4}, {5, 1, 5, 4, 3},
		{0, 0, 5, 0, -1}, {0, -5, 5, 0, 4}, {0, -1, 0, -1, -2}, {math.MinInt64, math.MaxInt64, 3, 0, 2},
		{math.MaxInt64, math.MaxInt64, 3, 2, 1},
	}
	for _, c := range cases {
		s, e := sortWindow(c.off, c.cnt, c.n)
		if s != c.start || e != c.end {
			t.Errorf("sortWindow(%d, %d, %d) = %d, %d; want %d, %d", c.off, c.cnt, c.n, s, e, c.start, c.end)
		}
	}
}

func TestSortLookupPatterns(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet := func(k, v string) {
		if _, err := d.Set([]byte(k), []byte(v), SetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustSet("w_a", "1")
	mustSet("pa->", "s1")
	if _, err := d.HSet([]byte("h_a"), [][]byte{[]byte("f"), []byte("hv")}, HashLimits{MaxListpackEntries: 128, MaxListpackValue: 64}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pat  string
		want string
		ok   bool
	}{
		{"#", "a", true}, {"w_*", "1", true}, {"h_*->f", "hv", true}, {"h_*->g", "", false}, {"h_*", "", false},
		{"w_*->f", "", false}, {"nostar", "", false}, {"p*->", "s1", true}, {"*", "", false}, {"#\x00x", "a", true},
	}
	for _, c := range cases {
		e.shards[0].mu.Lock() // sortLookup expects locked shards: lock them all
		for i := 1; i < len(e.shards); i++ {
			e.shards[i].mu.Lock()
		}
		v, ok := d.sortLookup([]byte(c.pat), []byte("a"), t0)
		got := string(v)
		for i := range e.shards {
			e.shards[i].mu.Unlock()
		}
		if ok != c.ok || got != c.want {
			t.Errorf("sortLookup(%q) = %q, %v; want %q, %v", c.pat, got, ok, c.want, c.ok)
		}
	}
}

// TestSortRandomized checks SORT on random lists against a simple model:
// numeric order with ties broken bytewise, ALPHA order, LIMIT, DESC, GET
// and STORE, and the memory invariants after STORE.
func TestSortRandomized(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	rng := rand.New(rand.NewPCG(7, 7))
	for iter := range 300 {
		key := []byte("l" + strconv.Itoa(iter%3))
		d.Delete(key)
		n := rng.IntN(20)
		var vals [][]byte
		for range n {
			vals = append(vals, []byte(strconv.Itoa(rng.IntN(30)-10)))
		}
		if n > 0 {
			if _, err := d.LPushEnd(key, ListRight, vals, false); err != nil {
				t.Fatal(err)
			}
		}
		spec := SortSpec{Offset: int64(rng.IntN(8) - 2), Count: int64(rng.IntN(10) - 2), Desc: rng.IntN(2) == 0, Alpha: rng.IntN(2) == 0}
		want := slices.Clone(vals)
		slices.SortStableFunc(want, func(a, b []byte) int {
			var c int
			if spec.Alpha {
				c = bytes.Compare(a, b)
			} else {
				x, _ := strconv.ParseFloat(string(a), 64)
				y, _ := strconv.ParseFloat(string(b), 64)
				c = cmpFloat(x, y)
				if c == 0 {
					c = bytes.Compare(a, b)
				}
			}
			if spec.Desc {
				c = -c
			}
			return c
		})
		s, en := sortWindow(spec.Offset, spec.Count, n)
		if en >= s {
			want = want[s : en+1]
		} else {
			want = nil
		}
		got, err := d.Sort(key, &spec)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("iter %d: SORT %q %+v = %q; want %q", iter, vals, spec, got, want)
		}
		k, err := d.SortStore(key, []byte("dst"), &spec)
		if err != nil || k != len(want) {
			t.Fatalf("SortStore = %d, %v; want %d", k, err, len(want))
		}
		var stored [][]byte
		d.LRange([]byte("dst"), 0, -1, func(_, _ int, v []byte) { stored = append(stored, bytes.Clone(v)) })
		if fmt.Sprintf("%q", stored) != fmt.Sprintf("%q", want) {
			t.Fatalf("stored %q; want %q", stored, want)
		}
		checkInvariants(t, e)
	}
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func TestSortConvertsZset(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	lim := ZsetLimits{MaxListpackEntries: 128, MaxListpackValue: 64}
	if _, err := d.ZAdd([]byte("z"), 0, []ZMember{{Member: []byte("b"), Score: 2}, {Member: []byte("a"), Score: 1}, {Member: []byte("c"), Score: 3}}, lim); err != nil {
		t.Fatal(err)
	}
	got, err := d.Sort([]byte("z"), &SortSpec{DontSort: true, By: []byte("nosort"), Desc: true, Offset: 1, Count: 5})
	if err != nil || fmt.Sprintf("%q", got) != `["b" "a"]` {
		t.Fatalf("SORT z BY nosort DESC LIMIT 1 5 = %q, %v", got, err)
	}
	if info, _ := d.Info([]byte("z")); info.Encoding != EncSkiplist {
		t.Fatalf("encoding after SORT = %v; want skiplist", info.Encoding)
	}
	checkInvariants(t, e)
	if _, err := d.Sort([]byte("z"), &SortSpec{}); err != ErrSortNotDouble {
		t.Fatalf("numeric SORT of letters: %v", err)
	}
	d.Set([]byte("s"), []byte("v"), SetOptions{})
	if _, err := d.Sort([]byte("s"), &SortSpec{}); err != ErrWrongType {
		t.Fatalf("SORT of a string: %v", err)
	}
}
