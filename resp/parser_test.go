package resp

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Expected outcomes below were checked against redis-server 7.0.15 by sending
// the same bytes over a socket (see the comments marked "redis:"); these tests
// do not need a redis-server.

// outcome is what one Next call gives, in a comparable form.
type outcome struct {
	args []string // nil when incomplete or on error
	n    int
	err  string
}

func (o outcome) String() string {
	return fmt.Sprintf("args=%q n=%d err=%q", o.args, o.n, o.err)
}

func incomplete() outcome { return outcome{} }

func fails(msg string) outcome { return outcome{err: msg} }

func ok(n int, args ...string) outcome {
	if args == nil {
		args = []string{}
	}
	return outcome{args: args, n: n}
}

func run(p *Parser, buf []byte) outcome {
	args, n, err := p.Next(buf)
	var o outcome
	o.n = n
	if err != nil {
		var pe ProtocolError
		if !errors.As(err, &pe) {
			return outcome{err: "not a ProtocolError: " + err.Error()}
		}
		o.err = err.Error()
		return o
	}
	if n > 0 {
		o.args = []string{}
		for _, a := range args {
			o.args = append(o.args, string(a))
		}
	}
	return o
}

func equal(a, b outcome) bool {
	if a.n != b.n || a.err != b.err || (a.args == nil) != (b.args == nil) || len(a.args) != len(b.args) {
		return false
	}
	for i := range a.args {
		if a.args[i] != b.args[i] {
			return false
		}
	}
	return true
}

func multibulk(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

var parserCases = []struct {
	name string
	in   string
	want outcome
}{
	// Multibulk.
	{"get", "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", ok(20, "GET", "k")},
	{"empty bulk", "*1\r\n$0\r\n\r\n", ok(10, "")},
	{"binary bulk", "*1\r\n$5\r\na\x00\r\nb\r\n", ok(15, "a\x00\r\nb")},
	{"pipeline takes one", "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n", ok(14, "PING")},
	{"zero count", "*0\r\nPING\r\n", ok(4)},                            // redis: no reply, then +PONG
	{"minus one count", "*-1\r\nPING\r\n", ok(5)},                      // redis: no reply, then +PONG
	{"negative count", "*-5\r\n", ok(5)},                               // redis: no reply
	{"count line any 2nd byte", "*1\rX$4\r\nPING\r\n", ok(14, "PING")}, // redis: +PONG
	{"bulk trailer not checked", "*1\r\n$3\r\nfooXY", ok(13, "foo")},   // redis: unknown command 'foo'
	{"count at INT_MAX waits", "*2147483647\r\n", incomplete()},        // redis: no reply, open
	{"count above INT_MAX", "*2147483648\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count 3e9", "*3000000000\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count overflow", "*99999999999999999999\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count plus", "*+1\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count leading zero", "*01\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count space", "* 1\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count minus zero", "*-0\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count empty", "*\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count minus alone", "*-\r\n", fails(ErrProtoInvalidMultibulkLen)},
	{"count LF only", "*1\n$4\r\nPING\r\n", fails(ErrProtoInvalidMultibulkLen)}, // the '\r' found is the bulk header's
	{"count needs byte after CR", "*1\r", incomplete()},
	{"count NUL blocks", "*1\x00\r\n$4\r\nPING\r\n", incomplete()}, // redis: no reply, open
	{"bulk -2", "*1\r\n$-2\r\n", fails(ErrProtoInvalidBulkLen)},    // redcon panics here
	{"bulk -1", "*1\r\n$-1\r\n", fails(ErrProtoInvalidBulkLen)},
	{"bulk -0", "*1\r\n$-0\r\n", fails(ErrProtoInvalidBulkLen)},
	{"bulk empty len", "*1\r\n$\r\n", fails(ErrProtoInvalidBulkLen)},
	{"bulk leading zero", "*1\r\n$01\r\n", fails(ErrProtoInvalidBulkLen)},
	{"bulk LF only", "*1\r\n$4\nPING\r\n", fails(ErrProtoInvalidBulkLen)}, // redis: invalid bulk length
	{"bulk at max waits", "*1\r\n$536870912\r\n", incomplete()},           // redis: no reply, open
	{"bulk above max", "*1\r\n$536870913\r\n", fails(ErrProtoInvalidBulkLen)},
	{"bulk data incomplete", "*1\r\n$4\r\nPI", incomplete()},
	{"bulk trailer incomplete", "*1\r\n$4\r\nPING\r", incomplete()},
	{"bulk NUL blocks", "*1\r\n$4\x00\r\nPING\r\n", incomplete()}, // redis: no reply, open
	{"expected dollar", "*1\r\nfoo\r\n", fails("Protocol error: expected '$', got 'f'")},
	{"expected dollar CR", "*1\r\n\r\n", fails("Protocol error: expected '$', got ' '")},    // redis maps \r to ' '
	{"expected dollar LF", "*1\r\n\na\r\n", fails("Protocol error: expected '$', got ' '")}, // and \n
	{"expected dollar 0xff", "*1\r\n\xffa\r\n", fails("Protocol error: expected '$', got '\xff'")},
	{"expected dollar 0x01", "*1\r\n\x01a\r\n", fails("Protocol error: expected '$', got '\x01'")},
	{"expected dollar waits for CR", "*1\r\nfoo", incomplete()},
	{"expected dollar NUL blocks", "*1\r\n\x00\r\n", incomplete()}, // redis: no reply, open
	{"second bulk bad", "*2\r\n$1\r\na\r\n:1\r\n", fails("Protocol error: expected '$', got ':'")},

	// Inline.
	{"inline ping", "PING\r\n", ok(6, "PING")},
	{"inline LF", "PING\n", ok(5, "PING")},
	{"inline incomplete", "PING\r", incomplete()},
	{"inline blank", "\r\n", ok(2)},                  // redis: no reply
	{"inline spaces", "   \r\n", ok(5)},              // redis: no reply
	{"inline bare LF", "\n", ok(1)},                  // redis: no reply
	{"inline leading CR", "\rPING\n", ok(6, "PING")}, // redis: +PONG
	{"inline CR CR LF", "PING\r\r\n", ok(7, "PING")},
	{"inline inner CR splits", "ECHO a\rb\r\n", ok(10, "ECHO", "a", "b")}, // redis: wrong number of args for 'echo'
	{"inline words", "SET  k\tv\r\n", ok(10, "SET", "k", "v")},
	{"inline NUL blocks", "PING\x00\r\n", incomplete()}, // redis: no reply, open
	{"inline double quotes", `ECHO "a\x41\n"` + "\r\n", ok(16, "ECHO", "aA\n")},
	{"inline escapes", `ECHO "\n\r\t\b\a\\\"\q"` + "\r\n", ok(25, "ECHO", "\n\r\t\b\a\\\"q")},
	{"inline bad hex", `ECHO "\xZZ" "\x4"` + "\r\n", ok(19, "ECHO", "xZZ", "x4")}, // redis: $3 xZZ, $2 x4
	{"inline single quotes", `ECHO 'a\'b' '\q'` + "\r\n", ok(18, "ECHO", "a'b", `\q`)},
	{"inline empty quotes", `ECHO "" ''` + "\r\n", ok(12, "ECHO", "", "")},
	{"inline quote mid word", `ECHO a"b c"` + "\r\n", ok(13, "ECHO", "ab c")}, // redis: $4 ab c
	{"inline quote then word", `ECHO "a"b` + "\r\n", fails(ErrProtoUnbalancedQuotes)},
	{"inline quote mid word then word", `ECHO a"b c"d` + "\r\n", fails(ErrProtoUnbalancedQuotes)},
	{"inline unterminated double", `ECHO "abc` + "\r\n", fails(ErrProtoUnbalancedQuotes)},
	{"inline unterminated single", `ECHO 'abc` + "\r\n", fails(ErrProtoUnbalancedQuotes)},
	{"inline escaped closing quote", `ECHO "a\"` + "\r\n", fails(ErrProtoUnbalancedQuotes)},
	{"inline quote then VT", "ECHO \"a\"\v\r\n", ok(11, "ECHO", "a")}, // isspace('\v')
	{"inline quote then FF", "ECHO \"a\"\f\r\n", ok(11, "ECHO", "a")},
	{"inline quote then tab", "ECHO \"a\"\t\r\n", ok(11, "ECHO", "a")},
	{"inline VT in word", "ECHO a\vb\r\n", ok(10, "ECHO", "a\vb")}, // redis: $3 a\vb
	{"inline FF in word", "ECHO a\fb\r\n", ok(10, "ECHO", "a\fb")},
	{"inline leading VT", "\vPING\r\n", ok(7, "PING")},
	{"inline high bytes", "ECHO \x80\xff\r\n", ok(9, "ECHO", "\x80\xff")},
	{"inline two quoted", `A "x y" 'z w' "\x00"` + "\n", ok(21, "A", "x y", "z w", "\x00")},
	{"inline star later", "PING *1\r\n", ok(9, "PING", "*1")},
}

func TestParserCases(t *testing.T) {
	for _, tc := range parserCases {
		t.Run(tc.name, func(t *testing.T) {
			got := run(NewParser(Limits{}), []byte(tc.in))
			if !equal(got, tc.want) {
				t.Fatalf("Next(%q)\n got %v\nwant %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestParserSplitEverywhere feeds each case's bytes one more at a time, to a
// parser that resumes and to a fresh parser: every prefix shorter than the
// frame is incomplete, and the first complete prefix gives the full result.
func TestParserSplitEverywhere(t *testing.T) {
	for _, tc := range parserCases {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			resuming := NewParser(Limits{})
			for k := 0; k <= len(in); k++ {
				// A copy, so a parser keeping pointers into an old buffer
				// would show.
				prefix := append([]byte(nil), in[:k]...)
				fresh := run(NewParser(Limits{}), prefix)
				res := run(resuming, prefix)
				if !equal(fresh, res) {
					t.Fatalf("prefix %q: resuming parser gave %v, fresh parser %v", prefix, res, fresh)
				}
				if fresh.err == "" && fresh.args == nil {
					continue // incomplete
				}
				if !equal(fresh, tc.want) {
					t.Fatalf("prefix %q of %q: got %v, want %v", prefix, tc.in, fresh, tc.want)
				}
				return
			}
			if !equal(tc.want, incomplete()) {
				t.Fatalf("never completed, want %v", tc.want)
			}
		})
	}
}

func TestParserSplitInTwo(t *testing.T) {
	frames := []string{
		multibulk("SET", "key", strings.Repeat("v", 300)),
		multibulk("MSET", "a", "1", "b", "2", "c", ""),
		"SET k \"quoted \\x41 value\" 'single \\' quote'\r\n",
	}
	for _, frame := range frames {
		want := run(NewParser(Limits{}), []byte(frame))
		for cut := 0; cut <= len(frame); cut++ {
			p := NewParser(Limits{})
			buf := append(make([]byte, 0, cut), frame[:cut]...)
			first := run(p, buf)
			if cut < len(frame) && !equal(first, incomplete()) {
				t.Fatalf("cut %d: first half gave %v", cut, first)
			}
			buf = append(buf, frame[cut:]...) // may move buf
			if got := run(p, buf); !equal(got, want) {
				t.Fatalf("cut %d: got %v, want %v", cut, got, want)
			}
		}
	}
}

func TestParserPipeline(t *testing.T) {
	in := multibulk("SET", "a", "1") + "*0\r\n" + "GET a\r\n" + "\r\n" + multibulk("PING") + "*-1\r\n" + "ECHO \"x y\"\n" + "*1\r\n$3\r\nfo"
	want := [][]string{{"SET", "a", "1"}, {}, {"GET", "a"}, {}, {"PING"}, {}, {"ECHO", "x y"}}
	p := NewParser(Limits{})
	buf := []byte(in)
	var got [][]string
	for {
		args, n, err := p.Next(buf)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		cmd := []string{}
		for _, a := range args {
			cmd = append(cmd, string(a))
		}
		got = append(got, cmd)
		buf = buf[n:]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if string(buf) != "*1\r\n$3\r\nfo" {
		t.Fatalf("left %q", buf)
	}
	buf = append(buf, "o\r\n"...)
	if got := run(p, buf); !equal(got, ok(13, "foo")) {
		t.Fatalf("tail: %v", got)
	}
}

func TestParserLimits(t *testing.T) {
	small := Limits{MaxBulkLen: 10, MaxMultibulkLen: 3, MaxInlineSize: 16}
	cases := []struct {
		name string
		in   string
		want outcome
	}{
		{"bulk at max", multibulk("0123456789"), ok(21, "0123456789")},
		{"bulk above max", "*1\r\n$11\r\n", fails(ErrProtoInvalidBulkLen)},
		{"count at max", multibulk("a", "b", "c"), ok(25, "a", "b", "c")},
		{"count above max", "*4\r\n", fails(ErrProtoInvalidMultibulkLen)},
		{"inline at max waits", strings.Repeat("a", 16), incomplete()},
		{"inline above max", strings.Repeat("a", 17), fails(ErrProtoTooBigInline)},
		// As in redis, the limit is on bytes pending without a line end: a
		// longer line that arrives whole is accepted (redis accepts a 70000
		// byte "PING aaa…" sent in one write).
		{"inline long but whole", "ECHO " + strings.Repeat("a", 20) + "\r\n", ok(27, "ECHO", strings.Repeat("a", 20))},
		{"mbulk count at max waits", "*" + strings.Repeat("1", 15), incomplete()},
		{"mbulk count above max", "*" + strings.Repeat("1", 16), fails(ErrProtoTooBigMbulkCount)},
		{"bulk count at max waits", "*1\r\n$" + strings.Repeat("1", 15), incomplete()},
		{"bulk count above max", "*1\r\n$" + strings.Repeat("1", 16), fails(ErrProtoTooBigBulkCount)},
		{"bulk count garbage above max", "*1\r\nX" + strings.Repeat("a", 16), fails(ErrProtoTooBigBulkCount)},
		{"inline NUL then limit", "PING\x00\r\n" + strings.Repeat("a", 10), fails(ErrProtoTooBigInline)},
		{"inline NUL below limit", "PING\x00\r\n" + strings.Repeat("a", 9), incomplete()},
		{"mbulk NUL then limit", "*1\x00\r\n" + strings.Repeat("a", 12), fails(ErrProtoTooBigMbulkCount)},
		{"bulk NUL then limit", "*1\r\n$1\x00\r\na\r\n" + strings.Repeat("a", 9), fails(ErrProtoTooBigBulkCount)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(NewParser(small), []byte(tc.in)); !equal(got, tc.want) {
				t.Fatalf("Next(%q)\n got %v\nwant %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestParserDefaultLimits checks the 64KB thresholds redis-server 7.0 showed:
// 65536 pending bytes without a line end wait, 65537 fail.
func TestParserDefaultLimits(t *testing.T) {
	cases := []struct {
		in   string
		want outcome
	}{
		{"PING" + strings.Repeat("a", 65532), incomplete()},
		{"PING" + strings.Repeat("a", 65533), fails(ErrProtoTooBigInline)},
		{"*" + strings.Repeat("1", 65535), incomplete()},
		{"*" + strings.Repeat("1", 65536), fails(ErrProtoTooBigMbulkCount)},
		{"*1\r\n$" + strings.Repeat("1", 65535), incomplete()},
		{"*1\r\n$" + strings.Repeat("1", 65536), fails(ErrProtoTooBigBulkCount)},
		{"PING\x00\r\n" + strings.Repeat("a", 65530), fails(ErrProtoTooBigInline)},
	}
	for _, tc := range cases {
		if got := run(NewParser(Limits{}), []byte(tc.in)); !equal(got, tc.want) {
			t.Errorf("Next(%.20q… %d bytes): got %v, want %v", tc.in, len(tc.in), got, tc.want)
		}
	}
}

func TestParserAuthRequired(t *testing.T) {
	cases := []struct {
		in   string
		want outcome
	}{
		{"*10\r\n", incomplete()},
		{"*11\r\n", fails(ErrProtoUnauthMultibulkLen)},
		{"*1\r\n$16384\r\n", incomplete()},
		{"*1\r\n$16385\r\n", fails(ErrProtoUnauthBulkLen)},
		{"*1\r\n$-1\r\n", fails(ErrProtoInvalidBulkLen)},
		{"*3000000000\r\n", fails(ErrProtoInvalidMultibulkLen)},
		{"*-5\r\n", ok(5)},
	}
	for _, tc := range cases {
		p := NewParser(Limits{})
		p.SetAuthRequired(true)
		if got := run(p, []byte(tc.in)); !equal(got, tc.want) {
			t.Errorf("Next(%q): got %v, want %v", tc.in, got, tc.want)
		}
		p.SetAuthRequired(false)
		p.Reset()
		if strings.HasPrefix(tc.want.err, "Protocol error: unauth") {
			if got := run(p, []byte(tc.in)); got.err != "" {
				t.Errorf("after auth, Next(%q): %v", tc.in, got)
			}
		}
	}
}

// TestParserHugeCountAllocatesNothing: a declared count reserves nothing; only
// arguments that actually arrive take room.
func TestParserHugeCountAllocatesNothing(t *testing.T) {
	p := NewParser(Limits{})
	buf := []byte("*2147483647\r\n")
	allocs := testing.AllocsPerRun(100, func() {
		p.Reset()
		if got := run(p, buf); !equal(got, incomplete()) {
			t.Fatal(got)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations for a bare huge count", allocs)
	}

	// With bulks arriving, memory grows with them, not with the count.
	p = NewParser(Limits{})
	in := []byte("*2147483647\r\n" + strings.Repeat("$1\r\na\r\n", 1000))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, n, err := p.Next(in); n != 0 || err != nil {
		t.Fatal(n, err)
	}
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Fatalf("allocated %d bytes for 1000 one-byte bulks", grown)
	}
}

func TestParserSteadyStateAllocs(t *testing.T) {
	inputs := map[string][]byte{
		"multibulk": []byte(multibulk("SET", "key:000123", strings.Repeat("x", 100))),
		"inline":    []byte("SET key:000123 value\r\n"),
		"quoted":    []byte("SET key \"a \\x41 b\" 'c d'\r\n"),
		"empty":     []byte("*0\r\n"),
	}
	for name, in := range inputs {
		p := NewParser(Limits{})
		p.Next(in) // warm up the reused tables
		allocs := testing.AllocsPerRun(1000, func() {
			if _, n, err := p.Next(in); n != len(in) || err != nil {
				t.Fatal(n, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per request", name, allocs)
		}
	}
}

// TestParserResumeIsLinear: a big bulk arriving a few bytes at a time is not
// rescanned from the start on every call.
func TestParserResumeIsLinear(t *testing.T) {
	const size = 1 << 20
	frame := []byte(multibulk("SET", "k", strings.Repeat("v", size)))
	p := NewParser(Limits{})
	allocs := testing.AllocsPerRun(1, func() {
		p.Reset()
		for k := 1; k < len(frame); k += 7 {
			if _, n, err := p.Next(frame[:k]); n != 0 || err != nil {
				t.Fatal(k, n, err)
			}
		}
		if args, n, err := p.Next(frame); n != len(frame) || err != nil || len(args[2]) != size {
			t.Fatal(n, err)
		}
	})
	_ = allocs // timing is what matters; -timeout catches a quadratic parser
}

func TestParserShorterBufferRestarts(t *testing.T) {
	p := NewParser(Limits{})
	if got := run(p, []byte("*2\r\n$3\r\nGET\r\n$1\r")); !equal(got, incomplete()) {
		t.Fatal(got)
	}
	// The caller dropped its buffer and now passes something else, shorter.
	if got := run(p, []byte("PING\r\n")); !equal(got, ok(6, "PING")) {
		t.Fatal(got)
	}
	if got := run(p, []byte("*1\r\n$4\r\nPONG\r\n")); !equal(got, ok(14, "PONG")) {
		t.Fatal(got)
	}
}

func TestParserArgsAliasBuffer(t *testing.T) {
	buf := []byte(multibulk("GET", "key"))
	args, _, _ := NewParser(Limits{}).Next(buf)
	if &args[1][0] != &buf[17] {
		t.Fatal("argument does not alias the buffer")
	}
	if cap(args[0]) != len(args[0]) {
		t.Fatal("appending to an argument would overwrite the buffer")
	}
}

func TestParserBigRequestReleasesTable(t *testing.T) {
	p := NewParser(Limits{})
	args := make([]string, 10000)
	for i := range args {
		args[i] = "x"
	}
	in := []byte(multibulk(args...))
	got, n, err := p.Next(in)
	if err != nil || n != len(in) || len(got) != len(args) {
		t.Fatal(n, err)
	}
	if cap(p.spans) > keepArgs || cap(p.args) > keepArgs {
		t.Fatalf("parser keeps %d/%d slots after a big request", cap(p.spans), cap(p.args))
	}
	if string(got[9999]) != "x" {
		t.Fatal("returned arguments damaged")
	}
}

func BenchmarkParserMultibulk(b *testing.B) {
	benchParse(b, bytes.Repeat([]byte(multibulk("SET", "key:000123", strings.Repeat("x", 64))), 16))
}

func BenchmarkParserInline(b *testing.B) {
	benchParse(b, bytes.Repeat([]byte("SET key:000123 \"some value\"\r\n"), 16))
}

// benchParse parses in, a run of whole requests, once per iteration.
func benchParse(b *testing.B, in []byte) {
	p := NewParser(Limits{})
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		buf := in
		for len(buf) > 0 {
			_, n, err := p.Next(buf)
			if err != nil || n == 0 {
				b.Fatal(n, err)
			}
			buf = buf[n:]
		}
	}
}
