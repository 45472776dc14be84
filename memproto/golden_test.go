package memproto

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// goldenCase is one recorded exchange with the real memcached 1.6.18.
type goldenCase struct {
	line   int
	in     string
	out    string
	closed bool
	skip   string // why the replay skips the case ("skip" line), if it does
}

// loadGolden reads a golden file of testdata: each case is an "in" and an
// "out" line (Go-quoted), an optional "skip" line and a "closed" line.
func loadGolden(t testing.TB, name string) []goldenCase {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	var cur goldenCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		field, rest, _ := strings.Cut(text, " ")
		switch field {
		case "in":
			cur = goldenCase{line: n}
			if cur.in, err = strconv.Unquote(rest); err != nil {
				t.Fatalf("golden line %d: %v", n, err)
			}
		case "out":
			if cur.out, err = strconv.Unquote(rest); err != nil {
				t.Fatalf("golden line %d: %v", n, err)
			}
		case "skip":
			cur.skip = rest
		case "closed":
			cur.closed = rest == "true"
			cases = append(cases, cur)
		}
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	return cases
}

// TestMemcachedGolden replays every recorded exchange: the replies must be
// memcached's byte for byte, CAS uniques aside. Inputs are fed whole, and
// (unless memcached's own answer depends on how the bytes arrive) byte by
// byte and cut in two at every position.
func TestMemcachedGolden(t *testing.T) {
	for _, gc := range loadGolden(t, "memcached-1.6.18.golden") {
		name := strconv.Itoa(gc.line)
		t.Run(name, func(t *testing.T) {
			env := newTestEnv(t)
			fresh := func() *testClient {
				env.fe.flushNow()
				return env.client()
			}
			c := fresh()
			got := c.send(gc.in)
			if maskCAS(got) != maskCAS(gc.out) || c.closed != gc.closed {
				t.Fatalf("input %q\n got  %q closed=%v\n want %q closed=%v", clip(gc.in), got, c.closed, gc.out, gc.closed)
			}
			if !splitInvariant(gc) {
				return
			}
			c = fresh()
			if got := c.sendBytewise(gc.in); maskCAS(got) != maskCAS(gc.out) {
				t.Fatalf("bytewise %q\n got  %q\n want %q", clip(gc.in), got, gc.out)
			}
			if len(gc.in) > 400 {
				return
			}
			for cut := 1; cut < len(gc.in); cut++ {
				c = fresh()
				if got := c.sendCut(gc.in, cut); maskCAS(got) != maskCAS(gc.out) {
					t.Fatalf("cut at %d %q\n got  %q\n want %q", cut, gc.in, got, gc.out)
				}
			}
		})
	}
}

// splitInvariant reports whether memcached gives the same answer however
// the input is cut: not when it closes the connection or culls queued
// replies (what it had already written depends on the cuts), nor when an
// mg reply may still hold an item that incr, decr or ma then rewrites
// (see Frontend.incr), nor when a line longer than 2048 bytes would arrive
// in pieces.
func splitInvariant(gc goldenCase) bool {
	if gc.closed || strings.Contains(gc.out, errBadFormat) && strings.Contains(gc.in, "get") {
		return false
	}
	if strings.Contains(gc.in, "mg ") && (strings.Contains(gc.in, "incr ") || strings.Contains(gc.in, "decr ") || strings.Contains(gc.in, "ma ")) {
		return false
	}
	for _, l := range bytes.Split([]byte(gc.in), []byte("\n")) {
		if len(l) > DefaultLimits.MaxLine && !isMultigetLine(l) {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
