package resp

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/internal/sdsargs"
)

// refParse is a second, deliberately literal transcription of redis 7.0's
// processMultibulkBuffer / processInlineBuffer / sdssplitargs: no resumption,
// no reuse, C's strchr and NUL-terminated strings spelled out. The fuzzers
// hold Parser to it.
func refParse(buf []byte, l Limits, auth bool) outcome {
	l = l.withDefaults()
	// strchr over the query buffer: stops at the first NUL.
	strchr := func(from int, c byte) int {
		for i := from; i < len(buf); i++ {
			if buf[i] == 0 {
				return -1
			}
			if buf[i] == c {
				return i
			}
		}
		return -1
	}
	if len(buf) == 0 {
		return incomplete()
	}
	if buf[0] != '*' {
		nl := strchr(0, '\n')
		if nl < 0 {
			if len(buf) > l.MaxInlineSize {
				return fails(ErrProtoTooBigInline)
			}
			return incomplete()
		}
		end := nl
		if end > 0 && buf[end-1] == '\r' {
			end--
		}
		args, ok := refSplitArgs(buf[:end])
		if !ok {
			return fails(ErrProtoUnbalancedQuotes)
		}
		return outcome{args: args, n: nl + 1}
	}
	nl := strchr(0, '\r')
	if nl < 0 {
		if len(buf) > l.MaxInlineSize {
			return fails(ErrProtoTooBigMbulkCount)
		}
		return incomplete()
	}
	if nl > len(buf)-2 {
		return incomplete()
	}
	count, ok := refString2ll(buf[1:nl])
	if !ok || count > math.MaxInt32 || count > l.MaxMultibulkLen {
		return fails(ErrProtoInvalidMultibulkLen)
	}
	if auth && count > 10 {
		return fails(ErrProtoUnauthMultibulkLen)
	}
	pos := nl + 2
	args := []string{}
	for ; count > 0; count-- {
		nl := strchr(pos, '\r')
		if nl < 0 {
			if len(buf)-pos > l.MaxInlineSize {
				return fails(ErrProtoTooBigBulkCount)
			}
			return incomplete()
		}
		if nl > len(buf)-2 {
			return incomplete()
		}
		if buf[pos] != '$' {
			msg := fmt.Sprintf("Protocol error: expected '$', got '%s'", buf[pos:pos+1])
			return fails(strings.NewReplacer("\r", " ", "\n", " ").Replace(msg))
		}
		size, ok := refString2ll(buf[pos+1 : nl])
		if !ok || size < 0 || size > l.MaxBulkLen {
			return fails(ErrProtoInvalidBulkLen)
		}
		if auth && size > 16384 {
			return fails(ErrProtoUnauthBulkLen)
		}
		pos = nl + 2
		if int64(len(buf)-pos) < size+2 {
			return incomplete()
		}
		args = append(args, string(buf[pos:pos+int(size)]))
		pos += int(size) + 2
	}
	return outcome{args: args, n: pos}
}

// refString2ll: strconv's parser, narrowed to what redis's string2ll accepts.
func refString2ll(b []byte) (int64, bool) {
	s := string(b)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || len(s) >= 21 || s[0] == '+' || strings.HasPrefix(s, "-0") || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	return v, true
}

// refSplitArgs is sds.c sdssplitargs over a NUL-terminated copy of line.
func refSplitArgs(line []byte) ([]string, bool) {
	s := append(append([]byte(nil), line...), 0)
	isspace := func(c byte) bool { return strings.IndexByte(" \t\n\v\f\r", c) >= 0 }
	ishex := func(c byte) bool { return c != 0 && strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
	p := 0
	args := []string{}
	for {
		for s[p] != 0 && isspace(s[p]) {
			p++
		}
		if s[p] == 0 {
			return args, true
		}
		inq, insq, done := false, false, false
		var cur []byte
		for !done {
			switch {
			case inq:
				if s[p] == '\\' && s[p+1] == 'x' && ishex(s[p+2]) && ishex(s[p+3]) {
					v, _ := strconv.ParseUint(string(s[p+2:p+4]), 16, 8)
					cur = append(cur, byte(v))
					p += 3
				} else if s[p] == '\\' && s[p+1] != 0 {
					p++
					c := s[p]
					switch c {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					}
					cur = append(cur, c)
				} else if s[p] == '"' {
					if s[p+1] != 0 && !isspace(s[p+1]) {
						return nil, false
					}
					done = true
				} else if s[p] == 0 {
					return nil, false
				} else {
					cur = append(cur, s[p])
				}
			case insq:
				if s[p] == '\\' && s[p+1] == '\'' {
					p++
					cur = append(cur, '\'')
				} else if s[p] == '\'' {
					if s[p+1] != 0 && !isspace(s[p+1]) {
						return nil, false
					}
					done = true
				} else if s[p] == 0 {
					return nil, false
				} else {
					cur = append(cur, s[p])
				}
			default:
				switch s[p] {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, s[p])
				}
			}
			if s[p] != 0 {
				p++
			}
		}
		args = append(args, string(cur))
	}
}

// fuzzLimits are small, so that the fuzzer reaches every limit.
var fuzzLimits = Limits{MaxBulkLen: 100, MaxMultibulkLen: 20, MaxInlineSize: 64}

func addParserSeeds(f *testing.F) {
	seeds := []string{
		multibulk("SET", "k", "v"),
		multibulk("SET", "k", "v") + multibulk("GET", "k"),
		multibulk(""),
		multibulk("a\r\nb", "\x00"),
		"*1\r\n$-2\r\n", "*1\r\n$-1\r\n", "*2147483647\r\n", "*3000000000\r\n", "*99999999999999999999\r\n",
		"*0\r\n", "*-1\r\n", "*-0\r\n", "*+1\r\n", "*01\r\n", "*1\rX$1\r\na\r\n", "*1\r\n$1\r\naXY",
		"*1\r\n$101\r\n", "*21\r\n", "*1\r\nfoo\r\n", "*1\r\n\r\n", "*1\x00\r\n", "*1\r\n$1\x00\r\n",
		"*" + strings.Repeat("9", 70), "*1\r\n$" + strings.Repeat("9", 70),
		"PING\r\n", "PING\n", "\r\n", "  \r\n", "\rPING\n", "PING\x00\r\n", strings.Repeat("a", 70),
		`SET k "v \x41\n\"" 'a\'b'` + "\r\n", `ECHO "a"b` + "\r\n", `ECHO a"b c"` + "\r\n", `ECHO "abc` + "\r\n",
		"ECHO \"a\"\v\r\n", "ECHO a\vb\r\n", `ECHO "\x4" "\q"` + "\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(1), false)
		f.Add([]byte(s), uint8(3), true)
	}
}

// FuzzParser holds Parser to refParse on a buffer and on the rest of the
// buffer after each request (a pipeline), fed whole and in pieces of step
// bytes to a resuming parser, and checks the round trip through a multibulk
// re-encoding.
func FuzzParser(f *testing.F) {
	addParserSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, step uint8, auth bool) {
		limits := fuzzLimits
		whole := NewParser(limits)
		whole.SetAuthRequired(auth)
		pieces := NewParser(limits)
		pieces.SetAuthRequired(auth)
		buf := data
		for range 64 { // requests in the pipeline
			want := refParse(buf, limits, auth)
			got := run(whole, buf)
			if !equal(got, want) {
				t.Fatalf("Next(%q)\n got %v\nwant %v (reference)", buf, got, want)
			}
			if got.n < 0 || got.n > len(buf) {
				t.Fatalf("n=%d outside [0,%d]", got.n, len(buf))
			}
			checkLimits(t, buf, got, limits)

			// The same buffer growing step bytes at a time, in fresh memory
			// each time, to a parser that resumes: each prefix must give what
			// the reference gives for it, and the first non-incomplete result
			// must not consume more than the whole-buffer parse.
			if step > 0 {
				for k := 0; ; k = min(k+int(step), len(buf)) {
					prefix := append([]byte(nil), buf[:k]...)
					pgot, pwant := run(pieces, prefix), refParse(prefix, limits, auth)
					if !equal(pgot, pwant) {
						t.Fatalf("resuming, prefix %q of %q\n got %v\nwant %v", prefix, buf, pgot, pwant)
					}
					if pgot.err != "" || pgot.args != nil {
						if got.err == "" && pgot.err == "" && !equal(pgot, got) {
							t.Fatalf("prefix %q completed as %v, whole as %v", prefix, pgot, got)
						}
						break
					}
					if k == len(buf) {
						break
					}
				}
				pieces.Reset()
			}

			if got.err != "" || got.n == 0 {
				return
			}
			if len(got.args) > 0 {
				roundTrip(t, got.args)
			}
			buf = buf[got.n:]
		}
	})
}

func checkLimits(t *testing.T, buf []byte, o outcome, l Limits) {
	t.Helper()
	if o.err != "" || o.args == nil || buf[0] != '*' {
		return
	}
	if int64(len(o.args)) > l.MaxMultibulkLen {
		t.Fatalf("%d arguments, limit %d", len(o.args), l.MaxMultibulkLen)
	}
	for _, a := range o.args {
		if int64(len(a)) > l.MaxBulkLen {
			t.Fatalf("argument of %d bytes, limit %d", len(a), l.MaxBulkLen)
		}
	}
}

// roundTrip re-encodes args as a multibulk and parses them back.
func roundTrip(t *testing.T, args []string) {
	t.Helper()
	enc := multibulk(args...)
	got := run(NewParser(Limits{}), []byte(enc))
	if want := ok(len(enc), args...); !equal(got, want) {
		t.Fatalf("round trip of %q: got %v", args, got)
	}
}

// quoteInline writes args as one inline request, every argument in double
// quotes with redis-cli's escapes (sdscatrepr).
func quoteInline(args [][]byte) []byte {
	var b []byte
	for i, a := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, '"')
		for _, c := range a {
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			case '\a':
				b = append(b, `\a`...)
			case '\b':
				b = append(b, `\b`...)
			default:
				if c < 0x20 || c >= 0x7f {
					b = fmt.Appendf(b, `\x%02x`, c)
				} else {
					b = append(b, c)
				}
			}
		}
		b = append(b, '"')
	}
	return append(b, '\r', '\n')
}

// FuzzInline checks that any arguments, quoted the way redis-cli quotes them,
// come back unchanged from an inline request, and that splitting any line
// matches the reference sdssplitargs.
func FuzzInline(f *testing.F) {
	f.Add([]byte("a b"), []byte("SET k \"v\""))
	f.Add([]byte("\x00\xff\"\\'\r\n"), []byte(`a"b c" 'd\'e' "\x41"`))
	f.Add([]byte(""), []byte("\v\f x \"y\"\t"))
	f.Fuzz(func(t *testing.T, raw []byte, line []byte) {
		args := bytes.Split(raw, []byte{' '})
		in := quoteInline(args)
		got, n, err := NewParser(Limits{}).Next(in)
		if err != nil || n != len(in) || len(got) != len(args) {
			t.Fatalf("Next(%q) = %q, %d, %v", in, got, n, err)
		}
		for i := range args {
			if !bytes.Equal(got[i], args[i]) {
				t.Fatalf("Next(%q): argument %d is %q, want %q", in, i, got[i], args[i])
			}
		}

		if bytes.ContainsAny(line, "\n\x00") {
			return
		}
		p := NewParser(Limits{})
		want, wantOK := refSplitArgs(line)
		var gotOK bool
		p.spans, p.scratch, gotOK = sdsargs.Split(line, p.spans, p.scratch)
		if gotOK != wantOK {
			t.Fatalf("splitArgs(%q) ok=%v, reference %v", line, gotOK, wantOK)
		}
		if !gotOK {
			return
		}
		split := p.build(line)
		if len(split) != len(want) {
			t.Fatalf("splitArgs(%q) = %q, reference %q", line, split, want)
		}
		for i := range want {
			if string(split[i]) != want[i] {
				t.Fatalf("splitArgs(%q) = %q, reference %q", line, split, want)
			}
		}
	})
}
