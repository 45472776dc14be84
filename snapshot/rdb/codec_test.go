package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestCRC64(t *testing.T) {
	// Redis's own test vector (crc64.c).
	if got := CRC64([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64(123456789) = %016x, want e9c6d914c4b8d9ca", got)
	}
	// Redis's other vector: the first sentence of its crc64 test.
	li := "This is a test of the emergency broadcast system."
	// Slicing must agree with the byte-at-a-time definition at every split.
	data := []byte(strings.Repeat(li, 7))
	slow := uint64(0)
	for _, b := range data {
		slow = crcTable[0][byte(slow)^b] ^ slow>>8
	}
	if CRC64(data) != slow {
		t.Fatalf("sliced %x != bytewise %x", CRC64(data), slow)
	}
	for cut := 0; cut <= len(data); cut += 3 {
		if got := crc64Update(crc64Update(0, data[:cut]), data[cut:]); got != slow {
			t.Fatalf("split at %d: %x != %x", cut, got, slow)
		}
	}
	if CRC64(nil) != 0 {
		t.Fatal("CRC64 of nothing should be 0")
	}
}

func TestLZF(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	inputs := [][]byte{
		[]byte(strings.Repeat("abc", 1000)),
		[]byte(strings.Repeat("a", 100000)),
		[]byte("hello hello hello hello hello hello hello"),
		bytes.Repeat([]byte{0, 1, 2, 3, 4, 5, 6, 7}, 3000),
	}
	for i := 0; i < 200; i++ {
		n := rng.Intn(20000)
		b := make([]byte, n)
		alpha := 1 + rng.Intn(20)
		for j := range b {
			b[j] = byte('a' + rng.Intn(alpha))
		}
		inputs = append(inputs, b)
	}
	for i, in := range inputs {
		c := lzfCompress(in, len(in)+len(in)/16+64)
		if c == nil {
			if len(in) >= 4 {
				t.Fatalf("input %d (%d bytes) did not compress with headroom", i, len(in))
			}
			continue
		}
		out, err := lzfDecompress(c, len(in))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("input %d: round trip failed: %v", i, err)
		}
		if _, err := lzfDecompress(c, len(in)+1); err == nil {
			t.Fatalf("input %d: wrong length accepted", i)
		}
	}
	if c := lzfCompress([]byte(strings.Repeat("x", 10000)), 9999); c == nil || len(c) > 400 {
		t.Fatalf("repetitive data compressed to %d bytes", len(c))
	}
	// Incompressible data does not fit in less than its size.
	rnd := make([]byte, 1000)
	rng.Read(rnd)
	if c := lzfCompress(rnd, len(rnd)-4); c != nil {
		t.Fatal("random data claimed to compress")
	}
	// Hand-made streams: literal run, short and long back references.
	hand := []byte{2, 'a', 'b', 'c', 1<<5 | 0, 2, 7 << 5, 3, 0}
	// "abc" + copy 3 from 3 back ("abc") + copy 12 from 1 back ("cccc...")
	out, err := lzfDecompress(hand, 3+3+12)
	if err != nil || string(out) != "abcabccccccccccccc" {
		t.Fatalf("hand stream: %q %v", out, err)
	}
	bad := [][]byte{
		{5, 'a'},         // literal run past the end
		{1 << 5, 0},      // reference before the start
		{0, 'a', 7 << 5}, // long reference truncated
		{0, 'a', 1 << 5}, // offset byte missing
	}
	for i, b := range bad {
		if _, err := lzfDecompress(b, 10); err == nil {
			t.Errorf("bad stream %d accepted", i)
		}
	}
	if _, err := lzfDecompress([]byte{0, 'a'}, 1<<40); err == nil {
		t.Error("absurd length accepted")
	}
}

func strs(b [][]byte) []string {
	out := make([]string, len(b))
	for i, x := range b {
		out[i] = string(x)
	}
	return out
}

func TestListpack(t *testing.T) {
	long := strings.Repeat("L", 5000)
	mid := strings.Repeat("m", 300)
	vals := []any{int64(0), int64(127), int64(128), int64(-1), int64(4095), int64(-4096),
		int64(4096), int64(-32768), int64(32767), int64(1 << 20), int64(-(1 << 23)),
		int64(1 << 30), int64(math.MinInt32), int64(1 << 40), int64(math.MinInt64), int64(math.MaxInt64),
		"", "a", strings.Repeat("s", 63), strings.Repeat("t", 64), mid, long, "\x00\xff"}
	want := make([]string, len(vals))
	for i, v := range vals {
		if n, ok := v.(int64); ok {
			want[i] = strconv.FormatInt(n, 10)
		} else {
			want[i] = v.(string)
		}
	}
	got, err := decodeListpack(listpack(vals...))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(strs(got), want) {
		t.Fatalf("got %q\nwant %q", strs(got), want)
	}
	// Element slices must not share capacity with their neighbours.
	b := listpack("ab", "cd")
	got, _ = decodeListpack(b)
	_ = append(got[0], 'X')
	if string(got[1]) != "cd" {
		t.Fatal("append to an element overwrote the next one")
	}
	// Unknown count (65535) is allowed.
	b = listpack("x", "y")
	binary.LittleEndian.PutUint16(b[4:], 0xFFFF)
	if got, err := decodeListpack(b); err != nil || len(got) != 2 {
		t.Fatalf("unknown count: %v %v", got, err)
	}
	corrupt := map[string]func([]byte) []byte{
		"short":      func(b []byte) []byte { return b[:5] },
		"total":      func(b []byte) []byte { b[0]++; return b },
		"count":      func(b []byte) []byte { b[4]++; return b },
		"backlen":    func(b []byte) []byte { b[9]++; return b },
		"no end":     func(b []byte) []byte { b[len(b)-1] = 0x01; return b },
		"bad enc":    func(b []byte) []byte { b[6] = 0xF5; return b },
		"early end":  func(b []byte) []byte { b[6] = 0xFF; return b },
		"str length": func(b []byte) []byte { b[6] = 0x80 | 60; return b },
	}
	for name, f := range corrupt {
		b := f(listpack("ab", int64(5)))
		if _, err := decodeListpack(b); err == nil {
			t.Errorf("%s: corruption accepted", name)
		}
	}
}

func TestZiplist(t *testing.T) {
	long := strings.Repeat("L", 20000)
	mid := strings.Repeat("m", 300) // makes the next prevlen 5 bytes
	vals := []any{int64(0), int64(12), int64(13), int64(-1), int64(127), int64(-128), int64(300),
		int64(-32768), int64(1 << 20), int64(-(1 << 23)), int64(1 << 30), int64(1 << 40), int64(math.MinInt64),
		"", "x", strings.Repeat("s", 63), strings.Repeat("t", 64), mid, "after-mid", long, "\x00\xff"}
	want := make([]string, len(vals))
	for i, v := range vals {
		if n, ok := v.(int64); ok {
			want[i] = strconv.FormatInt(n, 10)
		} else {
			want[i] = v.(string)
		}
	}
	got, err := decodeZiplist(ziplist(vals...))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(strs(got), want) {
		t.Fatalf("got %q\nwant %q", strs(got), want)
	}
	if got, err := decodeZiplist(ziplist()); err != nil || len(got) != 0 {
		t.Fatalf("empty ziplist: %v %v", got, err)
	}
	corrupt := map[string]func([]byte) []byte{
		"short":    func(b []byte) []byte { return b[:9] },
		"total":    func(b []byte) []byte { b[0]++; return b },
		"tail":     func(b []byte) []byte { b[4]++; return b },
		"count":    func(b []byte) []byte { b[8]++; return b },
		"prevlen":  func(b []byte) []byte { b[10] = 3; return b },
		"no end":   func(b []byte) []byte { b[len(b)-1] = 0x01; return b },
		"bad enc":  func(b []byte) []byte { b[11] = 0xC1; return b },
		"str past": func(b []byte) []byte { b[11] = 50; return b },
	}
	for name, f := range corrupt {
		if _, err := decodeZiplist(f(ziplist("ab", int64(5)))); err == nil {
			t.Errorf("%s: corruption accepted", name)
		}
	}
}

func TestIntset(t *testing.T) {
	for _, c := range []struct {
		enc  int
		vals []int64
	}{
		{2, []int64{-5, 0, 7, 32767}},
		{4, []int64{math.MinInt32, -1, 1 << 20}},
		{8, []int64{math.MinInt64, 0, math.MaxInt64}},
	} {
		got, err := decodeIntset(intset(c.enc, c.vals...))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range c.vals {
			if string(got[i]) != strconv.FormatInt(v, 10) {
				t.Fatalf("enc %d: got %q", c.enc, strs(got))
			}
		}
	}
	for name, b := range map[string][]byte{
		"short":     {2, 0, 0, 0},
		"enc":       intset(3, 1, 2),
		"length":    append(intset(2, 1, 2), 0),
		"unsorted":  intset(2, 2, 1),
		"duplicate": intset(4, 1, 1),
		"empty":     intset(2),
		"huge":      {2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF},
	} {
		if _, err := decodeIntset(b); err == nil {
			t.Errorf("%s: corruption accepted", name)
		}
	}
}

func TestZipmap(t *testing.T) {
	long := strings.Repeat("v", 300)
	b := zipmap(2, "a", "1", "key", long, strings.Repeat("k", 260), "")
	f, v, err := decodeZipmap(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(strs(f), []string{"a", "key", strings.Repeat("k", 260)}) ||
		!reflect.DeepEqual(strs(v), []string{"1", long, ""}) {
		t.Fatalf("got %q %q", strs(f), strs(v))
	}
	for name, b := range map[string][]byte{
		"short":    {0},
		"no end":   zipmap(0, "a", "b")[:6],
		"count":    append([]byte{5}, zipmap(0, "a", "b")[1:]...),
		"key past": {1, 9, 'a', 0xFF},
		"no value": {1, 1, 'a', 0xFF},
		"free":     {1, 1, 'a', 1, 9, 'b', 0xFF},
		"trailing": append(zipmap(0, "a", "b"), 0),
	} {
		if _, _, err := decodeZipmap(b); err == nil {
			t.Errorf("%s: corruption accepted", name)
		}
	}
}

// readAll returns every record of an RDB file.
func readAll(b []byte) ([]*Record, error) {
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	var out []*Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

func TestLengthEncodings(t *testing.T) {
	for _, n := range []uint64{0, 1, 63, 64, 16383, 16384, 1 << 20, math.MaxUint32, math.MaxUint32 + 1, math.MaxUint64} {
		var buf bytes.Buffer
		w := &Writer{w: bufioWriter(&buf)}
		w.length(n)
		w.w.Flush()
		size := 1
		switch {
		case n >= 1<<6 && n < 1<<14:
			size = 2
		case n >= 1<<14 && n <= math.MaxUint32:
			size = 5
		case n > math.MaxUint32:
			size = 9
		}
		if buf.Len() != size {
			t.Errorf("length %d encoded in %d bytes, want %d", n, buf.Len(), size)
		}
		r := &Reader{r: bufioReader(&buf)}
		var got uint64
		func() {
			defer func() {
				if x := recover(); x != nil {
					t.Errorf("length %d: %v", n, x)
				}
			}()
			got = r.readCount("test")
		}()
		if got != n {
			t.Errorf("length %d read back as %d", n, got)
		}
	}
	// Special string encodings read back as decimal text.
	for _, c := range []struct {
		raw  []byte
		want string
	}{
		{[]byte{0xC0, 0x80}, "-128"},
		{[]byte{0xC1, 0x00, 0x80}, "-32768"},
		{[]byte{0xC2, 0xFF, 0xFF, 0xFF, 0x7F}, "2147483647"},
		{[]byte{0x03, 'a', 'b', 'c'}, "abc"},
	} {
		r := &Reader{r: bufioReader(bytes.NewReader(c.raw))}
		s, _ := r.readString("test")
		if string(s) != c.want {
			t.Errorf("%x read as %q, want %q", c.raw, s, c.want)
		}
	}
	// Writer picks integer encodings only for canonical 32-bit decimals.
	for s, enc := range map[string]byte{"0": 0xC0, "-128": 0xC0, "128": 0xC1, "-32769": 0xC2,
		"2147483647": 0xC2, "2147483648": 10, "007": 3, "-0": 2, "+1": 2, "": 0, " 1": 2} {
		var buf bytes.Buffer
		w := &Writer{w: bufioWriter(&buf)}
		w.str([]byte(s))
		w.w.Flush()
		if buf.Bytes()[0] != enc {
			t.Errorf("%q written with first byte %#x, want %#x", s, buf.Bytes()[0], enc)
		}
		r := &Reader{r: bufioReader(&buf)}
		if got, _ := r.readString("x"); string(got) != s {
			t.Errorf("%q read back as %q", s, got)
		}
	}
	// Invalid length bytes are corruption.
	for _, raw := range [][]byte{{0x82}, {0xBF}, {0xC4}} {
		recs, err := readAll(append(newRaw(10).op(opSelectDB).Bytes(), raw...))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%x: got %v %v", raw, recs, err)
		}
	}
}

// LZF gives up on incompressible input after its probe, and still
// compresses what compresses.
func TestLZFProbe(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	rnd := make([]byte, 20480)
	rng.Read(rnd)
	if c := lzfCompress(rnd, len(rnd)-4); c != nil {
		t.Fatal("random data claimed to compress")
	}
	text := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog; ", 500))
	c := lzfCompress(text, len(text)-4)
	if c == nil || len(c) > len(text)/4 {
		t.Fatalf("text of %d bytes compressed to %d", len(text), len(c))
	}
	if out, err := lzfDecompress(c, len(text)); err != nil || !bytes.Equal(out, text) {
		t.Fatalf("round trip: %v", err)
	}
}

func BenchmarkLZFIncompressible(b *testing.B) {
	rnd := make([]byte, 20480)
	rand.New(rand.NewSource(7)).Read(rnd)
	var c lzfCompressor
	b.SetBytes(int64(len(rnd)))
	for i := 0; i < b.N; i++ {
		c.compress(rnd, len(rnd)-4)
	}
}
