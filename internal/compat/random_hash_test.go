package compat

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRandomHashes sends the same seeded sequence of random hash commands
// to redis-server and to Tandem, in RESP2 and in RESP3, and compares every
// reply. Keys and fields come from small spaces so that commands collide;
// hash-max-listpack-entries is lowered so hashes convert to hashtables
// and DEL resets them to listpacks.
//
// A model of the hashes, updated from the reference's replies, tells which
// replies are ordered (a listpack's) and which are not (a hashtable's:
// compared as multisets), and checks the random ones (HRANDFIELD) on both
// sides: the right count, fields that exist with their values, distinct
// when the count is positive. HSCAN of a hashtable is iterated to its end
// on each side and the union compared. The model itself is checked against
// the reference (HGETALL, OBJECT ENCODING), so it cannot drift.
func TestRandomHashes(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			if err := flushRedis(refRedis); err != nil {
				t.Fatal(err)
			}
			if err := flushRedis(sutRedis); err != nil {
				t.Fatal(err)
			}
			g := newHashGen(t, proto, int64(1000+proto))
			for i := 0; i < 2000 && !t.Failed(); i++ {
				g.step(i)
			}
		})
	}
}

const randHashMaxEntries = 8 // hash-max-listpack-entries during the test

type randHashModel struct {
	order     []string // fields in insertion order
	vals      map[string]string
	hashtable bool
}

type hashGen struct {
	t        *testing.T
	proto    int
	rng      *rand.Rand
	ref, sut *respClient
	hashes   map[string]*randHashModel
}

func newHashGen(t *testing.T, proto int, seed int64) *hashGen {
	g := &hashGen{t: t, proto: proto, rng: rand.New(rand.NewSource(seed)), hashes: map[string]*randHashModel{}}
	g.ref, g.sut = dialRESP(t, refRedis), dialRESP(t, sutRedis)
	for _, c := range []*respClient{g.ref, g.sut} {
		if proto == 3 {
			c.do("HELLO", "3")
		}
		c.do("CONFIG", "SET", "hash-max-listpack-entries", strconv.Itoa(randHashMaxEntries))
		c.do("SET", "str", "a string")
	}
	t.Cleanup(func() {
		for _, addr := range []string{refRedis, sutRedis} {
			c := dialRESP(t, addr)
			c.do("CONFIG", "SET", "hash-max-listpack-entries", "512")
		}
	})
	return g
}

func (g *hashGen) key() string {
	if g.rng.Intn(40) == 0 {
		return "str" // WRONGTYPE paths
	}
	return "h" + strconv.Itoa(g.rng.Intn(3))
}

func (g *hashGen) field() string {
	if g.rng.Intn(60) == 0 {
		return strings.Repeat("F", 65) // too long for a listpack
	}
	return "f" + strconv.Itoa(g.rng.Intn(12))
}

func (g *hashGen) value() string {
	switch g.rng.Intn(12) {
	case 0:
		return ""
	case 1:
		return "abc"
	case 2:
		return strconv.FormatFloat(g.rng.Float64()*100-50, 'f', 2, 64)
	case 3:
		if g.rng.Intn(5) == 0 {
			return strings.Repeat("v", 65)
		}
		return "9223372036854775807"
	}
	return strconv.Itoa(g.rng.Intn(40) - 10)
}

func (g *hashGen) model(key string) *randHashModel { return g.hashes[key] }

// set mirrors Redis's hashTypeSet and its conversions (default value
// limit 64, entries randHashMaxEntries).
func (g *hashGen) set(key, f, v string) {
	m := g.hashes[key]
	if m == nil {
		m = &randHashModel{vals: map[string]string{}}
		g.hashes[key] = m
	}
	if len(f) > 64 || len(v) > 64 {
		m.hashtable = true
	}
	if _, ok := m.vals[f]; !ok {
		m.order = append(m.order, f)
	}
	m.vals[f] = v
	if len(m.order) > randHashMaxEntries {
		m.hashtable = true
	}
}

func (g *hashGen) del(key, f string) {
	m := g.hashes[key]
	if m == nil {
		return
	}
	if _, ok := m.vals[f]; !ok {
		return
	}
	delete(m.vals, f)
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == f })
	if len(m.order) == 0 {
		delete(g.hashes, key)
	}
}

// both sends args to both servers and returns the two replies.
func (g *hashGen) both(args ...string) (reply, reply) {
	return g.ref.do(args...), g.sut.do(args...)
}

func (g *hashGen) fail(i int, args []string, format string, a ...any) {
	g.t.Helper()
	g.t.Errorf("step %d %q: %s", i, args, fmt.Sprintf(format, a...))
}

// exact compares two replies byte for byte.
func (g *hashGen) exact(i int, args []string, ref, sut reply) {
	g.t.Helper()
	if string(ref.raw) != string(sut.raw) {
		g.fail(i, args, "reply differs\n  redis:  %q\n  tandem: %q", ref.raw, sut.raw)
	}
}

// unordered compares two aggregates as multisets of elements (pairs when
// pairs is set), or exactly when the hash is a listpack.
func (g *hashGen) ordered(i int, args []string, ref, sut reply, m *randHashModel, pairs bool) {
	g.t.Helper()
	if m == nil || !m.hashtable || ref.isError() {
		g.exact(i, args, ref, sut)
		return
	}
	l := sortedArray
	if pairs {
		l = unorderedPairs
	}
	if ok, why := matchReply(ref, sut, l); !ok {
		g.fail(i, args, "reply differs (%s: %s)\n  redis:  %q\n  tandem: %q", l, why, ref.raw, sut.raw)
	}
}

func (g *hashGen) step(i int) {
	key := g.key()
	m := g.model(key)
	var args []string
	switch op := g.rng.Intn(100); {
	case op < 18: // HSET / HMSET
		name := "HSET"
		if g.rng.Intn(4) == 0 {
			name = "HMSET"
		}
		args = []string{name, key}
		for n := 1 + g.rng.Intn(3); n > 0; n-- {
			args = append(args, g.field(), g.value())
		}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
		if !ref.isError() {
			for j := 2; j+1 < len(args); j += 2 {
				g.set(key, args[j], args[j+1])
			}
		}
	case op < 23:
		args = []string{"HSETNX", key, g.field(), g.value()}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
		if ref.kind == ':' && ref.text == "1" {
			g.set(key, args[2], args[3])
		}
	case op < 33:
		args = []string{"HDEL", key}
		for n := 1 + g.rng.Intn(3); n > 0; n-- {
			args = append(args, g.field())
		}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
		if !ref.isError() {
			for _, f := range args[2:] {
				g.del(key, f)
			}
		}
	case op < 41:
		delta := strconv.Itoa(g.rng.Intn(20) - 5)
		switch g.rng.Intn(15) {
		case 0:
			delta = "9223372036854775807"
		case 1:
			delta = "x"
		}
		args = []string{"HINCRBY", key, g.field(), delta}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
		if ref.kind == ':' {
			g.set(key, args[2], ref.text)
		}
	case op < 48:
		deltas := []string{"0.1", "1.5", "-2", "1e3", "3", "-0.25", "abc", "inf", "1e-3"}
		args = []string{"HINCRBYFLOAT", key, g.field(), deltas[g.rng.Intn(len(deltas))]}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
		if ref.kind == '$' && !ref.null {
			g.set(key, args[2], ref.text)
		}
	case op < 56:
		args = []string{"HGET", key, g.field()}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
	case op < 60:
		args = []string{"HMGET", key, g.field(), g.field(), g.field()}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
	case op < 68:
		names := []string{"HLEN", "HEXISTS", "HSTRLEN", "TYPE", "OBJECT"}
		name := names[g.rng.Intn(len(names))]
		switch name {
		case "HLEN", "TYPE":
			args = []string{name, key}
		case "OBJECT":
			args = []string{"OBJECT", "ENCODING", key}
		default:
			args = []string{name, key, g.field()}
		}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
		if name == "OBJECT" && m != nil && key != "str" {
			want := map[bool]string{false: "listpack", true: "hashtable"}[m.hashtable]
			if ref.text != want {
				g.t.Fatalf("step %d: the model says %s, redis says %q: the generator is wrong", i, want, ref.raw)
			}
		}
	case op < 76:
		names := []string{"HGETALL", "HKEYS", "HVALS"}
		name := names[g.rng.Intn(3)]
		args = []string{name, key}
		ref, sut := g.both(args...)
		g.ordered(i, args, ref, sut, m, name == "HGETALL")
		if name == "HGETALL" && m != nil && key != "str" {
			var want []string
			for _, f := range m.order {
				want = append(want, f, m.vals[f])
			}
			var got []string
			for _, e := range ref.elems {
				got = append(got, e.text)
			}
			if !m.hashtable && !slices.Equal(got, want) {
				g.t.Fatalf("step %d: model %q, redis %q: the generator is wrong", i, want, got)
			}
		}
	case op < 90:
		args = g.hrandfield(i, key, m)
	case op < 97:
		args = g.hscan(i, key, m)
	default:
		args = []string{"DEL", key}
		if key == "str" {
			args = []string{"EXISTS", key}
		}
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
		if key != "str" {
			delete(g.hashes, key)
		}
	}
}

// hrandfield sends one HRANDFIELD variant and checks both replies.
func (g *hashGen) hrandfield(i int, key string, m *randHashModel) []string {
	args := []string{"HRANDFIELD", key}
	withValues := false
	count, hasCount := 0, false
	switch g.rng.Intn(6) {
	case 0: // no count
	case 1:
		count, hasCount = -(1 + g.rng.Intn(20)), true
	case 2:
		count, hasCount = 20, true // at least the size
	default:
		count, hasCount = g.rng.Intn(10), true
	}
	if hasCount {
		args = append(args, strconv.Itoa(count))
		if g.rng.Intn(2) == 0 {
			args = append(args, "WITHVALUES")
			withValues = true
		}
	}
	ref, sut := g.both(args...)
	size := 0
	if m != nil {
		size = len(m.order)
	}
	// Deterministic replies: errors, missing keys, count 0, the whole hash.
	switch {
	case ref.isError() || m == nil || key == "str" || (hasCount && count == 0):
		g.exact(i, args, ref, sut)
		return args
	case hasCount && count >= size:
		if m.hashtable {
			l := sortedArray
			if withValues && g.proto == 2 {
				l = unorderedPairs
			}
			if ok, why := matchReply(ref, sut, l); !ok {
				g.fail(i, args, "reply differs (%s: %s)\n  redis:  %q\n  tandem: %q", l, why, ref.raw, sut.raw)
			}
		} else {
			g.exact(i, args, ref, sut)
		}
		return args
	}
	for side, r := range map[string]reply{"redis": ref, "tandem": sut} {
		if why := g.checkRandom(r, m, hasCount, count, withValues); why != "" {
			if side == "redis" {
				g.t.Fatalf("step %d %q: redis's reply %q does not fit the model (%s): the generator is wrong", i, args, r.raw, why)
			}
			g.fail(i, args, "%s\n  tandem: %q", why, r.raw)
		}
	}
	return args
}

// checkRandom checks a random HRANDFIELD reply against the hash's model.
func (g *hashGen) checkRandom(r reply, m *randHashModel, hasCount bool, count int, withValues bool) string {
	if !hasCount {
		if r.kind != '$' || r.null {
			return "expected a bulk string"
		}
		if _, ok := m.vals[r.text]; !ok {
			return "no such field " + strconv.Quote(r.text)
		}
		return ""
	}
	if r.kind != '*' {
		return "expected an array"
	}
	type fv struct{ f, v string }
	var got []fv
	switch {
	case withValues && g.proto == 3:
		for _, e := range r.elems {
			if e.kind != '*' || len(e.elems) != 2 {
				return "expected [field, value] pairs"
			}
			got = append(got, fv{e.elems[0].text, e.elems[1].text})
		}
	case withValues:
		if len(r.elems)%2 != 0 {
			return "odd number of elements"
		}
		for j := 0; j < len(r.elems); j += 2 {
			got = append(got, fv{r.elems[j].text, r.elems[j+1].text})
		}
	default:
		for _, e := range r.elems {
			got = append(got, fv{f: e.text})
		}
	}
	want := count
	if count < 0 {
		want = -count
	}
	if len(got) != want {
		return fmt.Sprintf("%d fields, want %d", len(got), want)
	}
	seen := map[string]bool{}
	for _, p := range got {
		v, ok := m.vals[p.f]
		if !ok {
			return "no such field " + strconv.Quote(p.f)
		}
		if withValues && p.v != v {
			return fmt.Sprintf("field %q has value %q, not %q", p.f, v, p.v)
		}
		if count > 0 && seen[p.f] {
			return "repeated field " + strconv.Quote(p.f)
		}
		seen[p.f] = true
	}
	return ""
}

// hscan sends HSCAN with random options. A listpack's one reply must match
// exactly; a hashtable is scanned to the end on each side and the unions
// compared.
func (g *hashGen) hscan(i int, key string, m *randHashModel) []string {
	var opts []string
	if g.rng.Intn(2) == 0 {
		opts = append(opts, "COUNT", strconv.Itoa(1+g.rng.Intn(5)))
	}
	if g.rng.Intn(3) == 0 {
		opts = append(opts, "MATCH", []string{"f1*", "*", "f?", "F*"}[g.rng.Intn(4)])
	}
	args := append([]string{"HSCAN", key, "0"}, opts...)
	if m == nil || !m.hashtable || key == "str" {
		ref, sut := g.both(args...)
		g.exact(i, args, ref, sut)
		return args
	}
	collect := func(c *respClient) ([]string, string) {
		seen := map[string]bool{}
		cursor := "0"
		for calls := 0; ; calls++ {
			if calls > 1000 {
				return nil, "HSCAN does not end"
			}
			r := c.do(append([]string{"HSCAN", key, cursor}, opts...)...)
			if r.kind != '*' || len(r.elems) != 2 || r.elems[0].kind != '$' || r.elems[1].kind != '*' || len(r.elems[1].elems)%2 != 0 {
				return nil, fmt.Sprintf("bad HSCAN reply %q", r.raw)
			}
			for j := 0; j < len(r.elems[1].elems); j += 2 {
				seen[r.elems[1].elems[j].text+"="+r.elems[1].elems[j+1].text] = true
			}
			if cursor = r.elems[0].text; cursor == "0" {
				break
			}
		}
		out := make([]string, 0, len(seen))
		for p := range seen {
			out = append(out, p)
		}
		sort.Strings(out)
		return out, ""
	}
	ref, why := collect(g.ref)
	if why != "" {
		g.t.Fatalf("step %d: redis: %s", i, why)
	}
	sut, why := collect(g.sut)
	if why != "" {
		g.fail(i, args, "tandem: %s", why)
	} else if !equalStrings(ref, sut) {
		g.fail(i, args, "scan to the end differs\n  missing: %v\n  extra:   %v", minus(ref, sut), minus(sut, ref))
	}
	return args
}
