package resp

import (
	"math"
	"strings"
	"testing"
)

// Expected bytes follow redis-server 7.0.15's replies where it has the type
// (ZSCORE for doubles, CLIENT INFO for verbatim, BLPOP timeout for the null
// array, HELLO 3 for RESP3 forms).
func TestWriter(t *testing.T) {
	cases := []struct {
		name       string
		write      func(w *Writer)
		resp2, res string
	}{
		{"status", func(w *Writer) { w.Status("OK") }, "+OK\r\n", "+OK\r\n"},
		{"status newlines", func(w *Writer) { w.Status("a\r\nb") }, "+a  b\r\n", "+a  b\r\n"},
		{"error", func(w *Writer) { w.Error(ErrWrongType) }, "-" + ErrWrongType + "\r\n", "-" + ErrWrongType + "\r\n"},
		{"error newlines", func(w *Writer) { w.Error("ERR a\nb\rc") }, "-ERR a b c\r\n", "-ERR a b c\r\n"},
		{"int", func(w *Writer) { w.Int(-42) }, ":-42\r\n", ":-42\r\n"},
		{"int min", func(w *Writer) { w.Int(math.MinInt64) }, ":-9223372036854775808\r\n", ":-9223372036854775808\r\n"},
		{"bulk", func(w *Writer) { w.Bulk([]byte("a\r\nb")) }, "$4\r\na\r\nb\r\n", "$4\r\na\r\nb\r\n"},
		{"bulk nil is empty", func(w *Writer) { w.Bulk(nil) }, "$0\r\n\r\n", "$0\r\n\r\n"},
		{"bulk string", func(w *Writer) { w.BulkString("hello") }, "$5\r\nhello\r\n", "$5\r\nhello\r\n"},
		{"bulk int", func(w *Writer) { w.BulkInt(-12345) }, "$6\r\n-12345\r\n", "$6\r\n-12345\r\n"},
		{"null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"array", func(w *Writer) { w.Array(3) }, "*3\r\n", "*3\r\n"},
		{"array big", func(w *Writer) { w.Array(12345) }, "*12345\r\n", "*12345\r\n"},
		{"map", func(w *Writer) { w.Map(2) }, "*4\r\n", "%2\r\n"},
		{"map empty", func(w *Writer) { w.Map(0) }, "*0\r\n", "%0\r\n"},
		{"set", func(w *Writer) { w.Set(5) }, "*5\r\n", "~5\r\n"},
		{"push", func(w *Writer) { w.Push(3) }, "*3\r\n", ">3\r\n"},
		{"double 0.1", func(w *Writer) { w.Double(0.1) }, "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{"double inf", func(w *Writer) { w.Double(math.Inf(1)) }, "$3\r\ninf\r\n", ",inf\r\n"},
		{"double -inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"double 1e17", func(w *Writer) { w.Double(1e17) }, "$5\r\n1e+17\r\n", ",1e+17\r\n"},
		{"double big", func(w *Writer) { w.Double(123456789012345678) }, "$22\r\n1.2345678901234568e+17\r\n", ",1.2345678901234568e+17\r\n"},
		{"double small", func(w *Writer) { w.Double(1e-5) }, "$22\r\n1.0000000000000001e-05\r\n", ",1.0000000000000001e-05\r\n"},
		{"double 1.5", func(w *Writer) { w.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double 100", func(w *Writer) { w.Double(100) }, "$3\r\n100\r\n", ",100\r\n"},
		{"double 0", func(w *Writer) { w.Double(0) }, "$1\r\n0\r\n", ",0\r\n"},
		{"double -0", func(w *Writer) { w.Double(math.Copysign(0, -1)) }, "$2\r\n-0\r\n", ",-0\r\n"},
		{"double nan", func(w *Writer) { w.Double(math.NaN()) }, "$3\r\nnan\r\n", ",nan\r\n"},
		{"double -nan", func(w *Writer) { w.Double(math.Copysign(math.NaN(), -1)) }, "$4\r\n-nan\r\n", ",-nan\r\n"},
		{"bool true", func(w *Writer) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"bool false", func(w *Writer) { w.Bool(false) }, ":0\r\n", "#f\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("a:b\n") }, "$4\r\na:b\n\r\n", "=8\r\ntxt:a:b\n\r\n"},
		{"big number", func(w *Writer) { w.BigNumber("123456789012345678901234567890") }, "$30\r\n123456789012345678901234567890\r\n", "(123456789012345678901234567890\r\n"},
		{"raw", func(w *Writer) { w.Raw([]byte("+PONG\r\n")) }, "+PONG\r\n", "+PONG\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, proto := range []int{0, 2, 3} {
				w := &Writer{Buf: []byte("prev"), Proto: proto}
				tc.write(w)
				want := "prev" + tc.resp2
				if proto == 3 {
					want = "prev" + tc.res
				}
				if string(w.Buf) != want {
					t.Errorf("RESP%d: got %q, want %q", proto, w.Buf, want)
				}
			}
		})
	}
}

func TestWriterDoubleMatchesC(t *testing.T) {
	// Outputs of C's printf("%.17g") (gcc + glibc on this machine), as redis 7.0
	// prints them. (A 2-million-value comparison against the C program agreed too.)
	cases := map[float64]string{
		3.14:                   "3.1400000000000001",
		1e16:                   "10000000000000000",
		99999999999999999:      "1e+17",
		12345678901234567:      "12345678901234568",
		0.0001:                 "0.0001",
		0.00001234:             "1.234e-05",
		5e-324:                 "4.9406564584124654e-324",
		math.MaxFloat64:        "1.7976931348623157e+308",
		-2.5:                   "-2.5",
		1e21:                   "1e+21",
		123.456:                "123.456",
		1.0 / 3:                "0.33333333333333331",
		9007199254740993:       "9007199254740992",
		float64(1 << 62):       "4.6116860184273879e+18",
		-0.000123456789012345:  "-0.00012345678901234499",
		-0.0000123456789012345: "-1.23456789012345e-05",
	}
	for f, want := range cases {
		if got := string(appendDouble(nil, f)); got != want {
			t.Errorf("appendDouble(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestWriterAllocs(t *testing.T) {
	w := &Writer{Buf: make([]byte, 0, 4096)}
	val := []byte(strings.Repeat("v", 100))
	for _, proto := range []int{2, 3} {
		w.Proto = proto
		allocs := testing.AllocsPerRun(1000, func() {
			w.Buf = w.Buf[:0]
			writeAll(w, val)
		})
		if allocs != 0 {
			t.Errorf("RESP%d: %v allocations", proto, allocs)
		}
	}
}

func writeAll(w *Writer, val []byte) {
	w.Status("OK")
	w.Error(ErrSyntax)
	w.Error("ERR has\r\nnewlines")
	w.Int(1234567)
	w.Bulk(val)
	w.BulkString("hello")
	w.BulkInt(-987654321)
	w.Null()
	w.NullArray()
	w.Array(100)
	w.Map(10)
	w.Set(7)
	w.Push(3)
	w.Double(3.14159)
	w.Double(math.Inf(-1))
	w.Bool(true)
	w.Verbatim("# Server\r\nredis_version:7.0.15\r\n")
	w.BigNumber("1234567890123456789012")
	w.Raw(val)
}

func BenchmarkWriter(b *testing.B) {
	val := []byte(strings.Repeat("v", 100))
	for _, proto := range []int{2, 3} {
		b.Run(map[int]string{2: "RESP2", 3: "RESP3"}[proto], func(b *testing.B) {
			w := &Writer{Buf: make([]byte, 0, 4096), Proto: proto}
			b.ReportAllocs()
			for b.Loop() {
				w.Buf = w.Buf[:0]
				writeAll(w, val)
			}
			b.SetBytes(int64(len(w.Buf)))
		})
	}
}

func TestWrongArgs(t *testing.T) {
	// redis: "GET" -> 'get', "gEt" -> 'get', "CONFIG GET" -> 'config|get'.
	for in, want := range map[string]string{
		"get":        "ERR wrong number of arguments for 'get' command",
		"GeT":        "ERR wrong number of arguments for 'get' command",
		"config|get": "ERR wrong number of arguments for 'config|get' command",
	} {
		if got := WrongArgs(in); got != want {
			t.Errorf("WrongArgs(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every expectation is a reply redis-server 7.0.15 gave to the same words
// (inline "foo a\x01b", or a multibulk with the arguments shown).
func TestUnknownCommand(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"foo", nil, "ERR unknown command 'foo', with args beginning with: "},
		{"foo", []string{"a\x01b"}, "ERR unknown command 'foo', with args beginning with: 'a\x01b' "},
		{"FOO", []string{"\xff\xfe"}, "ERR unknown command 'FOO', with args beginning with: '\xff\xfe' "},
		{"foo", []string{"a\x00b", "c"}, "ERR unknown command 'foo', with args beginning with: 'a' 'c' "},
		{"foo", []string{"a\r\nb"}, "ERR unknown command 'foo', with args beginning with: 'a  b' "},
		{"f\x00oo", []string{"x"}, "ERR unknown command 'f', with args beginning with: 'x' "},
		{"foo\r\n", []string{"x"}, "ERR unknown command 'foo  ', with args beginning with: 'x' "},
		{"", []string{"a"}, "ERR unknown command '', with args beginning with: 'a' "},
		{strings.Repeat("x", 200), nil, "ERR unknown command '" + strings.Repeat("x", 128) + "', with args beginning with: "},
		{"foo", []string{a(200), "b"}, "ERR unknown command 'foo', with args beginning with: '" + a(128) + "' "},
		{"foo", []string{a(100), strings.Repeat("b", 100), "c"}, "ERR unknown command 'foo', with args beginning with: '" + a(100) + "' '" + strings.Repeat("b", 25) + "' "},
		{"foo", []string{a(122), "b"}, "ERR unknown command 'foo', with args beginning with: '" + a(122) + "' 'b' "},
		{"foo", []string{a(124), "b"}, "ERR unknown command 'foo', with args beginning with: '" + a(124) + "' 'b' "},
		{"foo", []string{a(125), "b"}, "ERR unknown command 'foo', with args beginning with: '" + a(125) + "' "},
		{"foo", []string{a(50), strings.Repeat("b", 50), strings.Repeat("c", 20), "d"},
			"ERR unknown command 'foo', with args beginning with: '" + a(50) + "' '" + strings.Repeat("b", 50) + "' '" + strings.Repeat("c", 20) + "' "},
	}
	for _, tc := range cases {
		var args [][]byte
		for _, s := range tc.args {
			args = append(args, []byte(s))
		}
		if got := UnknownCommand(tc.name, args); got != tc.want {
			t.Errorf("UnknownCommand(%q, %q)\n got %q\nwant %q", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestUnknownSubcommand(t *testing.T) {
	cases := []struct{ cmd, sub, want string }{
		{"config", "nosuch", "ERR unknown subcommand 'nosuch'. Try CONFIG HELP."},
		{"CLIENT", strings.Repeat("x", 200), "ERR unknown subcommand '" + strings.Repeat("x", 128) + "'. Try CLIENT HELP."},
		{"CLIENT", "a\x00b", "ERR unknown subcommand 'a'. Try CLIENT HELP."},
		{"cLiEnt", "a\r\nb", "ERR unknown subcommand 'a  b'. Try CLIENT HELP."},
	}
	for _, tc := range cases {
		if got := UnknownSubcommand(tc.cmd, []byte(tc.sub)); got != tc.want {
			t.Errorf("UnknownSubcommand(%q, %q) = %q, want %q", tc.cmd, tc.sub, got, tc.want)
		}
	}
}

func TestProtocolErrorText(t *testing.T) {
	var err error = ProtocolError(ErrProtoInvalidBulkLen)
	if err.Error() != "Protocol error: invalid bulk length" {
		t.Fatal(err)
	}
	// The server's reply to it, as redis sends it.
	w := &Writer{}
	w.Error("ERR " + err.Error())
	if string(w.Buf) != "-ERR Protocol error: invalid bulk length\r\n" {
		t.Fatalf("%q", w.Buf)
	}
}
