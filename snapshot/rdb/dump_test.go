package rdb

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// dumpGolden is one payload redis-server 7.0.15 returned for DUMP after
// the setup commands, with its OBJECT ENCODING and rdbcompression.
// testdata/dump-redis7.jsonl holds one per line; internal/compat compares
// the same values live.
type dumpGolden struct {
	Name     string     `json:"name"`
	Setup    [][]string `json:"setup"`
	Encoding string     `json:"encoding"`
	Compress bool       `json:"compress"`
	Payload  string     `json:"payload"`
}

func loadDumpGoldens(t testing.TB) []dumpGolden {
	f, err := os.Open("testdata/dump-redis7.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []dumpGolden
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var g dumpGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (g *dumpGolden) payload(t testing.TB) []byte {
	p, err := hex.DecodeString(g.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// encodingNamed maps OBJECT ENCODING's names.
func encodingNamed(t testing.TB, name string) Encoding {
	switch name {
	case "embstr", "int", "raw":
		return EncodingDefault
	case "quicklist":
		return EncodingQuicklist
	case "intset":
		return EncodingIntset
	case "hashtable":
		return EncodingHashtable
	case "listpack":
		return EncodingListpack
	case "skiplist":
		return EncodingSkiplist
	}
	t.Fatalf("unknown encoding %q", name)
	return 0
}

func sortMembers(m []Member) {
	slices.SortFunc(m, func(a, b Member) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return bytes.Compare(a.Member, b.Member)
	})
}

// TestDumpRedisGoldens: every payload redis-server made decodes, and
// encoding the decoded value the way Redis held it gives Redis's bytes
// exactly, LZF compression included.
func TestDumpRedisGoldens(t *testing.T) {
	for _, g := range loadDumpGoldens(t) {
		name := g.Name
		if g.Compress {
			name += "/compressed"
		}
		t.Run(name, func(t *testing.T) {
			p := g.payload(t)
			v, err := DecodeDump(p)
			if err != nil {
				t.Fatalf("DecodeDump: %v", err)
			}
			if v.Encoding == EncodingIntset && v.IntsetWidth != int(binary.LittleEndian.Uint32(p[2:])) {
				t.Errorf("IntsetWidth %d, the blob's %d", v.IntsetWidth, binary.LittleEndian.Uint32(p[2:]))
			}
			v.Encoding = encodingNamed(t, g.Encoding)
			sortMembers(v.Members)
			ours, err := AppendDump(nil, v, DumpOptions{Compress: g.Compress, ListFill: -2})
			if err != nil {
				t.Fatalf("AppendDump: %v", err)
			}
			if !bytes.Equal(ours, p) {
				t.Fatalf("payloads differ:\nredis  %x\ntandem %x", p, ours)
			}
		})
	}
}

func valuesEqual(a, b *Value) bool {
	eq := func(x, y [][]byte) bool {
		return slices.EqualFunc(x, y, func(p, q []byte) bool { return bytes.Equal(p, q) })
	}
	return a.Type == b.Type && a.Encoding == b.Encoding && bytes.Equal(a.Str, b.Str) &&
		eq(a.Elems, b.Elems) && eq(a.Fields, b.Fields) && eq(a.Values, b.Values) &&
		slices.EqualFunc(a.Members, b.Members, func(p, q Member) bool {
			return bytes.Equal(p.Member, q.Member) && math.Float64bits(p.Score) == math.Float64bits(q.Score)
		})
}

// TestDumpRoundTrip: every type and encoding comes back as it went in.
func TestDumpRoundTrip(t *testing.T) {
	bs := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, x := range s {
			out[i] = []byte(x)
		}
		return out
	}
	many := func(n int, f func(i int) string) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = []byte(f(i))
		}
		return out
	}
	zs := []Member{{[]byte("n"), math.Inf(-1)}, {[]byte("a"), -2.5}, {[]byte("b"), 0}, {[]byte("c"), 0.1},
		{[]byte("d"), 1 << 62}, {[]byte("e"), 1<<62 + 1024}, {[]byte("f"), 1e300}, {[]byte("p"), math.Inf(1)}}
	values := []*Value{
		{Type: String, Str: []byte("")},
		{Type: String, Str: []byte("-2147483648")},
		{Type: String, Str: bytes.Repeat([]byte("abc"), 1000)},
		{Type: List, Elems: bs("", "0", "-1", "x")},
		{Type: List, Encoding: EncodingQuicklist, Elems: many(5000, func(i int) string { return strconv.Itoa(i) + strings.Repeat("y", i%70) })},
		{Type: Set, Encoding: EncodingIntset, Elems: bs("-9223372036854775808", "0", "9223372036854775807")},
		{Type: Set, Encoding: EncodingIntset, IntsetWidth: 8, Elems: bs("1", "2")},
		{Type: Set, Encoding: EncodingHashtable, Elems: bs("x", "1", "")},
		{Type: Hash, Encoding: EncodingListpack, Fields: bs("f", "1", ""), Values: bs("", "v", strings.Repeat("z", 5000))},
		{Type: Hash, Encoding: EncodingHashtable, Fields: bs("f", "g"), Values: bs("1", "2")},
		{Type: ZSet, Encoding: EncodingListpack, Members: zs},
		{Type: ZSet, Encoding: EncodingSkiplist, Members: zs},
	}
	for _, compress := range []bool{false, true} {
		for i, v := range values {
			p, err := AppendDump([]byte("prefix"), v, DumpOptions{Compress: compress, ListFill: -2})
			if err != nil {
				t.Fatalf("%d: %v", i, err)
			}
			if string(p[:6]) != "prefix" {
				t.Fatalf("%d: AppendDump lost dst", i)
			}
			back, err := DecodeDump(p[6:])
			if err != nil {
				t.Fatalf("%d (compress %v): %v", i, compress, err)
			}
			want := *v
			if want.Encoding == EncodingDefault && want.Type != String {
				want.Encoding = map[Type]Encoding{List: EncodingQuicklist, Set: EncodingHashtable, Hash: EncodingHashtable, ZSet: EncodingSkiplist}[want.Type]
			}
			if want.Type == List {
				want.Encoding = EncodingQuicklist
			}
			if want.Encoding != EncodingIntset {
				back.IntsetWidth = 0
			} else if want.IntsetWidth == 0 {
				want.IntsetWidth = back.IntsetWidth
			}
			sortMembers(back.Members)
			if !valuesEqual(back, &want) {
				t.Errorf("%d (compress %v): got %+v, want %+v", i, compress, back, &want)
			}
		}
	}
}

// TestQuicklistNodes: nodes fill as Redis's quicklistPushTail fills them.
func TestQuicklistNodes(t *testing.T) {
	nodes := func(elems [][]byte, fill int) []int {
		w := &Writer{}
		w.quicklistBody(elems, DumpOptions{ListFill: fill})
		r := &Reader{r: bufio.NewReader(bytes.NewReader(w.mem))}
		n := int(r.readCount("nodes"))
		var counts []int
		for i := 0; i < n; i++ {
			c := r.readCount("container")
			blob, _ := r.readString("node")
			if c == qlPlain {
				counts = append(counts, -1)
				continue
			}
			e, err := decodeListpack(blob)
			if err != nil {
				t.Fatal(err)
			}
			counts = append(counts, len(e))
		}
		return counts
	}
	ten := make([][]byte, 10)
	for i := range ten {
		ten[i] = []byte("e")
	}
	if got := nodes(ten, 3); !slices.Equal(got, []int{3, 3, 3, 1}) {
		t.Errorf("fill 3: nodes %v", got)
	}
	if got := nodes(ten, 0); !slices.Equal(got, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}) {
		t.Errorf("fill 0: nodes %v", got)
	}
	// -5 is 64 KB; -2 is 8 KB: 1000-byte elements cost 1003 bytes each.
	k := bytes.Repeat([]byte("k"), 1000)
	big := [][]byte{k, k, k, k, k, k, k, k, k, k}
	if got := nodes(big, -2); !slices.Equal(got, []int{8, 2}) {
		t.Errorf("fill -2: nodes %v", got)
	}
	if got := nodes(big, -9); !slices.Equal(got, []int{10}) {
		t.Errorf("fill -9 (clamped to -5): nodes %v", got)
	}
}

// TestDumpErrors: payloads RESTORE refuses, and why.
func TestDumpErrors(t *testing.T) {
	good, _ := AppendDump(nil, &Value{Type: String, Str: []byte("v")}, DumpOptions{})
	seal := func(body []byte, version uint16) []byte {
		p := binary.LittleEndian.AppendUint16(append([]byte(nil), body...), version)
		return binary.LittleEndian.AppendUint64(p, CRC64(p))
	}
	footer := [][]byte{
		nil, good[:9], good[2:], // (a CRC starting at 0 does not see leading zero bytes: good[1:] passes, in Redis too)
		append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1),
		seal([]byte{0, 1, 'v'}, 11),
	}
	for _, p := range footer {
		if _, err := DecodeDump(p); err != ErrDumpFooter {
			t.Errorf("%x: %v, want ErrDumpFooter", p, err)
		}
	}
	if _, err := DecodeDump(seal([]byte{0, 1, 'v'}, 0)); err != nil {
		t.Errorf("version 0: %v", err)
	}
	data := map[string][]byte{
		"type 8":             seal([]byte{8, 0}, 10),
		"type 20":            seal([]byte{rtSetListpack, 0}, 10),
		"empty list":         seal([]byte{rtList, 0}, 10),
		"empty set":          seal([]byte{rtSet, 0}, 10),
		"empty hash":         seal([]byte{rtHash, 0}, 10),
		"empty zset":         seal([]byte{rtZSet2, 0}, 10),
		"empty node":         seal([]byte{rtListQuicklist2, 1, qlPlain, 0}, 10),
		"bad container":      seal([]byte{rtListQuicklist2, 1, 3, 1, 'x'}, 10),
		"dup set":            seal([]byte{rtSet, 2, 1, 'a', 1, 'a'}, 10),
		"dup hash":           seal([]byte{rtHash, 2, 1, 'a', 0, 1, 'a', 0}, 10),
		"dup zset":           seal(append(append([]byte{rtZSet2, 2, 1, 'a'}, make([]byte, 8)...), append([]byte{1, 'a'}, make([]byte, 8)...)...), 10),
		"nan score":          seal(append([]byte{rtZSet2, 1, 1, 'a'}, binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN()))...), 10),
		"truncated":          seal([]byte{rtString, 0x3F}, 10),
		"module":             seal([]byte{rtModule2, 0}, 10),
		"stream":             seal([]byte{rtStreamListpack2, 0}, 10),
		"intset bad width":   seal(append([]byte{rtSetIntset, 8}, 3, 0, 0, 0, 0, 0, 0, 0), 10),
		"listpack bad total": seal(append([]byte{rtHashListpack, 7}, 9, 0, 0, 0, 0, 0, 0xFF), 10),
	}
	for name, p := range data {
		_, err := DecodeDump(p)
		if !errors.Is(err, ErrDumpData) {
			t.Errorf("%s: %v, want ErrDumpData", name, err)
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v is not an *Error", name, err)
		}
	}
	// A stream is read now: this one is cut short, so bad data.
	if _, err := DecodeDump(data["stream"]); errors.Is(err, ErrUnsupported) || !errors.Is(err, ErrDumpData) {
		t.Errorf("stream: %v, want ErrDumpData", err)
	}
	// Bytes after the value are ignored; a value may read into the footer.
	if v, err := DecodeDump(seal([]byte{rtString, 1, 'v', 'j', 'u', 'n', 'k'}, 10)); err != nil || string(v.Str) != "v" {
		t.Errorf("trailing bytes: %v %v", v, err)
	}
	if v, err := DecodeDump(seal([]byte{rtString, 3, 'v'}, 10)); err != nil || string(v.Str) != "v\x0a\x00" {
		t.Errorf("a value reading into the footer: %+v %v", v, err)
	}

	bad := []*Value{
		{Type: List},
		{Type: Set, Encoding: EncodingIntset, Elems: [][]byte{[]byte("x")}},
		{Type: Set, Encoding: EncodingIntset, IntsetWidth: 2, Elems: [][]byte{[]byte("70000")}},
		{Type: Set, Encoding: EncodingListpack, Elems: [][]byte{[]byte("x")}},
		{Type: Hash, Encoding: EncodingListpack, Fields: [][]byte{[]byte("f")}},
		{Type: ZSet, Members: []Member{{[]byte("m"), math.NaN()}}},
		{Type: String, Encoding: EncodingListpack},
	}
	for _, v := range bad {
		if p, err := AppendDump(nil, v, DumpOptions{}); err == nil {
			t.Errorf("AppendDump(%+v) = %x, want an error", v, p)
		}
	}
}

func TestDumpAllocs(t *testing.T) {
	v := &Value{Type: String, Str: bytes.Repeat([]byte("abcd"), 100)}
	buf := make([]byte, 0, 1024)
	AppendDump(buf, v, DumpOptions{Compress: true})
	if n := testing.AllocsPerRun(100, func() { AppendDump(buf[:0], v, DumpOptions{Compress: true}) }); n > 1 {
		t.Errorf("AppendDump of a string allocates %v times", n)
	}
}

// TestLZFRedis: what the Redis-exact compressor writes decompresses to its
// input, and it answers "does not fit" rather than overrun max.
func TestLZFRedis(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var c lzfRedis
	for i := 0; i < 3000; i++ {
		n := 3 + rnd.IntN(1+i*7)
		in := make([]byte, n)
		alphabet := 1 + rnd.IntN(255)
		for j := range in {
			if j > 8 && rnd.IntN(3) == 0 { // repeats, near and far
				back := 1 + rnd.IntN(min(j, 9000))
				in[j] = in[j-back]
				continue
			}
			in[j] = byte(rnd.IntN(alphabet))
		}
		max := n - rnd.IntN(n/2+1)
		out := c.compress(in, max)
		if out == nil {
			continue
		}
		if len(out) > max {
			t.Fatalf("compressed %d bytes into %d, over max %d", n, len(out), max)
		}
		back, err := lzfDecompress(out, n)
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("round trip of %d bytes failed: %v", n, err)
		}
	}
}
