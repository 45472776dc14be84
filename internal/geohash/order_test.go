package geohash

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type ordered struct {
	dist float64
	id   int
}

// redisCmp is Redis's sort_gp_asc, NaN below everything both ways.
func redisCmp(a, b ordered) int {
	switch {
	case a.dist > b.dist:
		return 1
	case a.dist == b.dist:
		return 0
	}
	return -1
}

func desc(a, b ordered) int { return -redisCmp(a, b) }

func parseDists(s string) []ordered {
	var out []ordered
	for i, f := range strings.Fields(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			panic(err)
		}
		out = append(out, ordered{v, i})
	}
	return out
}

func ids(s []ordered) string {
	var b strings.Builder
	for i, o := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(o.id))
	}
	return b.String()
}

// The expected permutations are those of glibc 2.36's qsort (k = n) and
// of Redis 7.0's pqsort(a, n, 40, cmp, 0, k-1), both run in C on the same
// input, elements of geoPoint's 40 bytes.
func TestOrderGolden(t *testing.T) {
	const small = "3 1 2 1 3 0 2 NaN 1 0 3 2"
	const big = "4 2 5 2 5 5 5 4 0 3 1 5 0 1 0 2 3 1 3 4 0 4 1 0 5 1 3 2 1 3 1 0 1 4 4 3 1 1 0 0 1 1 1 1 2 2 1 4"
	for _, c := range []struct {
		in   string
		k    int
		desc bool
		want string
	}{
		{small, 12, false, "5 9 1 3 2 6 0 4 7 8 11 10"},
		{small, 4, false, "1 7 9 5 8 3 11 2 6 4 10 0"},
		{small, 4, true, "10 4 0 11 2 6 1 7 8 9 3 5"},
		{big, 9, false, "20 14 23 31 8 39 12 38 41 13 46 17 40 28 30 32 37 36 43 42 10 22 25 15 1 44 45 3 27 35 9 16 18 26 29 0 34 33 24 21 19 11 7 6 5 4 2 47"},
	} {
		s := parseDists(c.in)
		cmp := redisCmp
		if c.desc {
			cmp = desc
		}
		if c.k >= len(s) {
			SortAll(s, cmp)
		} else {
			SortFirst(s, c.k, cmp)
		}
		if got := ids(s); got != c.want {
			t.Errorf("%q k=%d desc=%v:\n got  %s\n want %s", c.in, c.k, c.desc, got, c.want)
		}
	}
}

// SortAll is stable; SortFirst leaves the k smallest, sorted, in front.
func TestOrderProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		n := 1 + r.IntN(150)
		s := make([]ordered, n)
		for i := range s {
			s[i] = ordered{float64(r.IntN(1 + r.IntN(30))), i}
		}
		all := slices.Clone(s)
		SortAll(all, redisCmp)
		want := slices.Clone(s)
		slices.SortStableFunc(want, redisCmp)
		if !slices.Equal(all, want) {
			t.Fatalf("SortAll is not a stable sort:\n got  %v\n want %v", all, want)
		}
		k := 1 + r.IntN(n)
		part := slices.Clone(s)
		SortFirst(part, k, redisCmp)
		for i := 0; i < k; i++ {
			if part[i].dist != want[i].dist {
				t.Fatalf("SortFirst(k=%d) position %d: %v, want distance %v", k, i, part[i], want[i].dist)
			}
		}
		got := slices.Clone(part)
		slices.SortFunc(got, func(a, b ordered) int { return a.id - b.id })
		if !slices.Equal(got, s) {
			t.Fatalf("SortFirst lost or duplicated elements: %v", part)
		}
	}
	SortFirst([]ordered{{math.NaN(), 0}}, 1, redisCmp) // no panic on one element
}
