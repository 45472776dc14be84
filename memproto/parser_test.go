package memproto

import (
	"strconv"
	"strings"
	"testing"
)

func TestNumbers(t *testing.T) {
	// As memcached 1.6.18's safe_strto* on 64-bit Linux (checked by
	// sending each as flags, exptime and delta).
	u32 := []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"0", 0, true}, {"42", 42, true}, {"+5", 5, true}, {"-0", 0, true},
		{"\t7", 7, true}, {"7\tjunk", 7, true}, {"7\v", 7, true},
		{"4294967295", 4294967295, true}, {"4294967296", 0, true},
		{"18446744073709551615", 4294967295, true}, {"9223372036854775808", 0, true},
		{"18446744073709551616", 0, false}, {"-1", 0, false}, {"-5", 0, false},
		{"", 0, false}, {"+", 0, false}, {"x", 0, false}, {"1x", 0, false}, {"0x10", 0, false},
		{"1.5", 0, false},
	}
	for _, c := range u32 {
		got, ok := parseUint32([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("parseUint32(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	i32 := []struct {
		in   string
		want int32
		ok   bool
	}{
		{"0", 0, true}, {"-1", -1, true}, {"2592000", 2592000, true},
		{"3000000000", -1294967296, true}, {"4294967396", 100, true},
		{"-3000000000", 1294967296, true}, {"9223372036854775807", -1, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775808", 0, true},
		{"-9223372036854775809", 0, false}, {"abc", 0, false}, {"-", 0, false},
	}
	for _, c := range i32 {
		got, ok := parseInt32([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("parseInt32(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	u64 := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"18446744073709551615", 18446744073709551615, true},
		{"18446744073709551616", 0, false},
		{"-18446744073709551615", 1, true}, // strtoull negates; 1 is not negative
		{"-1", 0, false},
	}
	for _, c := range u64 {
		got, ok := parseUint64([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("parseUint64(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	for _, v := range []uint64{0, 1, 9, 10, 99, 12345, 18446744073709551615} {
		if got := string(appendUint(nil, v)); got != strconv.FormatUint(v, 10) {
			t.Errorf("appendUint(%d) = %q", v, got)
		}
	}
	if got := string(appendInt(nil, -42)); got != "-42" {
		t.Error(got)
	}
}

func TestBase64Keys(t *testing.T) {
	// memcached's decoder: skips bytes outside the alphabet, wants a
	// multiple of 4, stops after the first padded group.
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"a2V5", "key", true},
		{"a2V5!", "key", true},
		{"a!2V5", "key", true},
		{"Zm9v", "foo", true},
		{"AA==", "\x00", true},
		{"AAA=", "\x00\x00", true},
		{"AA==AAAA", "\x00", true},
		{"a=V5", "h\x05", true},
		{"a2V", "", false},
		{"a2V5=", "", false},
		{"A===", "", false},
		{"====", "", false},
		{"!!!!", "", false},
		{"", "", false},
	}
	buf := make([]byte, 256)
	for _, c := range cases {
		n := decodeKey(buf, []byte(c.in))
		if (n > 0) != c.ok || string(buf[:n]) != c.want {
			t.Errorf("decodeKey(%q) = %q (%d); want %q, %v", c.in, buf[:n], n, c.want, c.ok)
		}
	}
	for _, k := range []string{"", "a", "ab", "abc", "key", "\x00\xff\x10", strings.Repeat("z", 187)} {
		enc := appendKeyBase64(nil, []byte(k))
		n := decodeKey(buf, enc)
		if k != "" && string(buf[:n]) != k {
			t.Errorf("round trip %q -> %q -> %q", k, enc, buf[:n])
		}
	}
}

func TestTokenize(t *testing.T) {
	var r Request
	r.tokenize([]byte("  get  a b  "))
	if r.nt != 4 || string(r.toks[0]) != "get" || string(r.toks[2]) != "b" || r.rest != nil {
		t.Fatalf("nt=%d toks=%q rest=%q", r.nt, r.toks[:r.nt-1], r.rest)
	}
	line := "c " + strings.Repeat("t ", 30)
	r = Request{}
	r.tokenize([]byte(line))
	if r.nt != maxTokens || len(r.rest) == 0 || strings.Count(string(r.rest), "t") != 8 {
		t.Fatalf("nt=%d rest=%q", r.nt, r.rest)
	}
	r = Request{}
	r.tokenize([]byte(strings.TrimSpace(strings.Repeat("t ", 23))))
	if r.nt != maxTokens || r.rest != nil {
		t.Fatalf("23 tokens: nt=%d rest=%q", r.nt, r.rest)
	}
}

func TestParserLimits(t *testing.T) {
	p := NewParser(Limits{})
	var r Request
	// A partial line of up to max-line bytes waits; one byte more closes.
	if n, st := p.Next([]byte(strings.Repeat("a", 2048)), &r); st != Incomplete || n != 0 {
		t.Fatalf("2048: %d %v", n, st)
	}
	p = NewParser(Limits{})
	if _, st := p.Next([]byte(strings.Repeat("a", 2049)), &r); st != Close {
		t.Fatalf("2049: %v", st)
	}
	// A multiget may grow.
	p = NewParser(Limits{})
	if _, st := p.Next([]byte("get "+strings.Repeat("k ", 5000)), &r); st != Incomplete {
		t.Fatalf("multiget: %v", st)
	}
	p = NewParser(Limits{})
	if _, st := p.Next([]byte(strings.Repeat(" ", 101)+"get "+strings.Repeat("k ", 5000)), &r); st != Close {
		t.Fatalf("indented multiget: %v", st)
	}
	// A long line that arrives whole is read, up to memcached's buffer.
	p = NewParser(Limits{})
	if _, st := p.Next([]byte("foo "+strings.Repeat("a", 5000)+"\r\n"), &r); st != Parsed || r.Err != errUnknown {
		t.Fatalf("long line: %v %q", st, r.Err)
	}
	p = NewParser(Limits{})
	if _, st := p.Next([]byte("foo "+strings.Repeat("a", readBufferSize)+"\r\n"), &r); st != Close {
		t.Fatalf("line over the read buffer: %v", st)
	}
	p = NewParser(Limits{})
	in := []byte("get " + strings.Repeat("k ", readBufferSize) + "\r\n")
	if n, st := p.Next(in, &r); st != Parsed || n != len(in) || len(r.Keys) != readBufferSize {
		t.Fatalf("huge multiget: %v %d keys", st, len(r.Keys))
	}
}

// The parser remembers how far it looked for the end of a line.
func TestParserResumesScan(t *testing.T) {
	p := NewParser(Limits{})
	var r Request
	in := []byte("get " + strings.Repeat("k ", 3000))
	for i := 100; i < len(in); i += 100 {
		if n, st := p.Next(in[:i], &r); st != Incomplete || n != 0 {
			t.Fatalf("at %d: %d %v", i, n, st)
		}
		if p.scanned != i {
			t.Fatalf("scanned %d at %d", p.scanned, i)
		}
	}
	in = append(in, "\r\n"...)
	if n, st := p.Next(in, &r); st != Parsed || n != len(in) || len(r.Keys) != 3000 {
		t.Fatalf("%d %v %d", n, st, len(r.Keys))
	}
}

func TestParseStorageWaitsForData(t *testing.T) {
	p := NewParser(Limits{})
	var r Request
	full := "set k 3 0 5\r\nhello\r\n"
	for i := 0; i < len(full); i++ {
		if n, st := p.Next([]byte(full[:i]), &r); st != Incomplete || n != 0 {
			t.Fatalf("prefix %d: %d %v", i, n, st)
		}
	}
	n, st := p.Next([]byte(full+"get k\r\n"), &r)
	if st != Parsed || n != len(full) || string(r.Key) != "k" || string(r.Data) != "hello" || r.Flags != 3 || r.Err != "" {
		t.Fatalf("%d %v %+v", n, st, r)
	}
}

func TestMetaFlagsParse(t *testing.T) {
	cases := []struct {
		line, err string
	}{
		{"mg k v t c", ""},
		{"mg k v v", errDuplicateFlag},
		{"mg k \x80", errDuplicateFlag},
		{"mg k \x7f", errDuplicateFlag},
		{"mg k Z", errInvalidFlag},
		{"mg k T", errBadToken},
		{"mg k Tx Fy", errBadToken},
		{"mg k Fy", errBadFormat},
		{"mg k Fy Tx", errBadToken},
		{"mg k b", errKeyDecode},
		{"mg k b T1 T2", errDuplicateFlag},
		{"mg k M", errModeLength},
		{"mg k MEE", errModeLength},
		{"mg k J-1", errBadInitial},
		{"mg k Dx", errBadMetaDelta},
		{"mg k O" + strings.Repeat("o", 31), ""},
		{"mg k O" + strings.Repeat("o", 32), errOpaqueTooLong},
		{"mg k " + strings.Repeat("P ", 0) + "a b c d e f g h i j k l m n o p q r", errMgFlagsTooLong},
		{"md k Z", errInvalidOrDupMDA},
		{"ma k v v", errInvalidOrDupMDA},
		{"ma k MX", errMaMode},
		{"ma k MX O" + strings.Repeat("o", 40), errMaMode},
		{"ms k 1 MX O" + strings.Repeat("o", 40), errMsMode},
	}
	for _, c := range cases {
		p := NewParser(Limits{})
		var r Request
		in := c.line + "\r\n"
		if strings.HasPrefix(c.line, "ms ") {
			in += "x\r\n"
		}
		if _, st := p.Next([]byte(in), &r); st != Parsed {
			t.Fatalf("%q: %v", c.line, st)
		}
		if r.Err != c.err {
			t.Errorf("%q: err %q, want %q", c.line, r.Err, c.err)
		}
	}
}
