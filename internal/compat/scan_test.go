package compat

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRedisScan iterates SCAN to cursor 0 on both servers and compares the
// union of the keys returned. Cursors and batch boundaries are
// implementation details and are not compared, but every reply must have
// SCAN's shape and the iteration must end.
func TestRedisScan(t *testing.T) {
	scans := []struct {
		name string
		opts []string
		want func(key, typ string) bool // which keys of the fixture must come back
	}{
		{"all", nil, func(string, string) bool { return true }},
		{"count 1", []string{"COUNT", "1"}, func(string, string) bool { return true }},
		{"count 1000", []string{"COUNT", "1000"}, func(string, string) bool { return true }},
		{"match prefix", []string{"MATCH", "user:1*"}, func(k, _ string) bool { return strings.HasPrefix(k, "user:1") }},
		{"match class", []string{"MATCH", "user:[12]?", "COUNT", "50"}, func(k, _ string) bool {
			return len(k) == 7 && strings.HasPrefix(k, "user:") && (k[5] == '1' || k[5] == '2')
		}},
		{"match none", []string{"MATCH", "nothing*"}, func(string, string) bool { return false }},
		{"type string", []string{"TYPE", "string"}, func(_, typ string) bool { return typ == "string" }},
		{"type list", []string{"TYPE", "list", "COUNT", "20"}, func(_, typ string) bool { return typ == "list" }},
		{"type hash lowercase option", []string{"type", "hash"}, func(_, typ string) bool { return typ == "hash" }},
		{"type and match", []string{"MATCH", "*:1*", "TYPE", "string", "COUNT", "3"}, func(k, typ string) bool {
			return typ == "string" && strings.Contains(k, ":1")
		}},
		{"type unknown", []string{"TYPE", "nosuchtype"}, func(string, string) bool { return false }},
	}

	fixture := scanFixture()
	for _, proto := range []int{2, 3} {
		for _, sc := range scans {
			t.Run(fmt.Sprintf("%s/resp%d", sc.name, proto), func(t *testing.T) {
				if err := flushRedis(refRedis); err != nil {
					t.Fatal(err)
				}
				if err := flushRedis(sutRedis); err != nil {
					t.Fatal(err)
				}
				var want []string
				for k, typ := range fixture.types {
					if sc.want(k, typ) {
						want = append(want, k)
					}
				}
				sort.Strings(want)
				ref := scanAll(t, refRedis, proto, fixture.cmds, sc.opts)
				if !equalStrings(ref, want) {
					t.Fatalf("reference redis-server returned %d keys, the case expects %d (the case is wrong): %v", len(ref), len(want), ref)
				}
				sut := scanAll(t, sutRedis, proto, fixture.cmds, sc.opts)
				if !equalStrings(ref, sut) {
					t.Errorf("SCAN %v returned %d distinct keys, want %d\n  missing: %v\n  extra:   %v",
						sc.opts, len(sut), len(ref), minus(ref, sut), minus(sut, ref))
				}
			})
		}
	}
}

type fixture struct {
	cmds  []string
	types map[string]string // key -> TYPE
}

// scanFixture builds 300 string keys, a few lists, sets and hashes, and one
// key that has already expired (it must never be returned).
func scanFixture() fixture {
	f := fixture{types: map[string]string{}}
	mset := []string{"MSET"}
	for i := 0; i < 300; i++ {
		k := "user:" + strconv.Itoa(i)
		mset = append(mset, k, strconv.Itoa(i))
		f.types[k] = "string"
	}
	f.cmds = append(f.cmds, cmd(mset...))
	for i := 0; i < 12; i++ {
		l, s, h := "list:"+strconv.Itoa(i), "set:"+strconv.Itoa(i), "hash:"+strconv.Itoa(i)
		f.cmds = append(f.cmds, cmd("RPUSH", l, "a"), cmd("SADD", s, "a"), cmd("HSET", h, "f", "v"))
		f.types[l], f.types[s], f.types[h] = "list", "set", "hash"
	}
	f.cmds = append(f.cmds, cmd("SET", "user:expired", "x", "PXAT", "1"))
	return f
}

// scanAll loads the fixture on a fresh connection, then loops SCAN until
// the cursor returns to 0 and returns the distinct keys, sorted.
func scanAll(t *testing.T, addr string, proto int, setup, opts []string) []string {
	t.Helper()
	c := dialRESP(t, addr)
	if proto == 3 {
		c.do("HELLO", "3")
	}
	for i, rep := range c.pipeline(setup) {
		if rep.isError() {
			t.Fatalf("%s: setup command %d: %s", addr, i, rep)
		}
	}
	seen := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 10000 {
			t.Fatalf("%s: SCAN did not return to cursor 0 after %d calls", addr, calls)
		}
		rep := c.do(append([]string{"SCAN", cursor}, opts...)...)
		if rep.kind != '*' || len(rep.elems) != 2 || rep.elems[0].kind != '$' || rep.elems[1].kind != '*' {
			t.Fatalf("%s: SCAN %s %v: reply is not [cursor, keys]: %s", addr, cursor, opts, rep)
		}
		cursor = rep.elems[0].text
		if _, err := strconv.ParseUint(cursor, 10, 64); err != nil {
			t.Fatalf("%s: SCAN cursor %q is not an unsigned integer", addr, cursor)
		}
		for _, e := range rep.elems[1].elems {
			if e.kind != '$' {
				t.Fatalf("%s: SCAN returned a non-bulk key: %s", addr, rep)
			}
			seen[e.text] = true
		}
		if cursor == "0" {
			break
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// minus returns the elements of sorted a that are not in sorted b.
func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}
