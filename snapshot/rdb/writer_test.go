package rdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// wKey is a key to write, with its metadata and the state it must load as.
type wKey struct {
	db   int
	key  string
	st   keyState
	meta Meta
}

// writerData builds a data set of every type in small and large sizes.
func writerData(hll string) []wKey {
	rng := rand.New(rand.NewSource(3))
	rb := func(n int) string {
		b := make([]byte, n)
		rng.Read(b)
		return string(b)
	}
	m := NewMeta
	withTTL := func(ms int64) Meta { x := NewMeta(); x.ExpireAtMs = ms; return x }
	mc := func(flags uint32, cas uint64) Meta { x := NewMeta(); x.MCFlags, x.MCCAS = flags, cas; return x }
	keys := []wKey{
		{key: "s", st: keyState{Type: String, Str: "hello"}, meta: m()},
		{key: "s:int", st: keyState{Type: String, Str: "-123"}, meta: m()},
		{key: "s:int32", st: keyState{Type: String, Str: "2147483647"}, meta: m()},
		{key: "s:int64", st: keyState{Type: String, Str: "-9223372036854775808"}, meta: m()},
		{key: "s:lead0", st: keyState{Type: String, Str: "0012"}, meta: m()},
		{key: "s:empty", st: keyState{Type: String, Str: ""}, meta: m()},
		{key: "s:long", st: keyState{Type: String, Str: strings.Repeat("compressible ", 1000)}, meta: m()},
		{key: "s:rand", st: keyState{Type: String, Str: rb(5000)}, meta: m()},
		{key: "\x00\xff\r\nbinkey", st: keyState{Type: String, Str: "\x00\x00\xff"}, meta: m()},
		{key: "5", st: keyState{Type: String, Str: "integer key"}, meta: m()},
		{key: "s:ttl", st: keyState{Type: String, Str: "expiring", ExpireMs: 4102444800555}, meta: withTTL(4102444800555)},
		{key: "mc:item", st: keyState{Type: String, Str: "memcached value"}, meta: mc(0xDEADBEEF, 123456789012345)},
		{key: "mc:flagsonly", st: keyState{Type: String, Str: "f"}, meta: mc(7, 0)},
		{key: "mc:ttl", st: keyState{Type: String, Str: "t", ExpireMs: 4102444801000},
			meta: Meta{ExpireAtMs: 4102444801000, Idle: -1, Freq: -1, MCFlags: 1, MCCAS: 1}},
		{key: "hll", st: keyState{Type: String, Str: hll}, meta: m()},
		{key: "l:small", st: keyState{Type: List, List: []string{"a", "1", "", "-5", "\x00", strings.Repeat("q", 100)}}, meta: m()},
		{key: "s:meta", st: keyState{Type: String, Str: "freq and idle"}, meta: Meta{Idle: 1000, Freq: 42}},
		{key: "set:ints", st: keyState{Type: Set, Set: []string{"1", "2", "3", "-9223372036854775808"}}, meta: m()},
		{key: "set:strs", st: keyState{Type: Set, Set: []string{"a", "b", "\xff"}}, meta: withTTL(4102444802000)},
		{key: "h:small", st: keyState{Type: Hash, Hash: map[string]string{"f": "v", "n": "5", "": "empty", "bin\x00": "\x01"}}, meta: m()},
		{key: "z:small", st: keyState{Type: ZSet, ZSet: map[string]float64{"a": 1, "b": -2.5, "c": math.Inf(1), "d": math.Inf(-1), "e": 5e-324, "f": 0}}, meta: m()},
	}
	var big []string
	for i := 0; i < 3000; i++ {
		if i%3 == 0 {
			big = append(big, strconv.Itoa(i*17-1000))
		} else {
			big = append(big, fmt.Sprintf("elem-%d-%s", i, strings.Repeat("e", i%70)))
		}
	}
	keys = append(keys, wKey{key: "l:big", st: keyState{Type: List, List: big}, meta: withTTL(4102444803000)})
	keys = append(keys, wKey{key: "l:huge-elem", st: keyState{Type: List, List: []string{strings.Repeat("H", 100000), "x"}}, meta: m()})
	bigSet := append([]string(nil), big...)
	bigSet = dedupe(bigSet)
	keys = append(keys, wKey{key: "set:big", st: keyState{Type: Set, Set: bigSet}, meta: m()})
	var ints []string
	for i := 0; i < 1000; i++ {
		ints = append(ints, strconv.Itoa(i*i))
	}
	keys = append(keys, wKey{key: "set:bigints", st: keyState{Type: Set, Set: dedupe(ints)}, meta: m()})
	bh := map[string]string{}
	for i := 0; i < 1500; i++ {
		bh[fmt.Sprint("field", i)] = rb(i % 100)
	}
	keys = append(keys, wKey{key: "h:big", st: keyState{Type: Hash, Hash: bh}, meta: m()})
	bz := map[string]float64{}
	for i := 0; i < 1500; i++ {
		bz[fmt.Sprint("m", i)] = rng.NormFloat64() * 1e9
	}
	keys = append(keys, wKey{key: "z:big", st: keyState{Type: ZSet, ZSet: bz}, meta: m()})
	// Other databases, written out of order and one twice.
	for _, db := range []int{5, 1, 15, 5} {
		keys = append(keys,
			wKey{db: db, key: fmt.Sprint("k", len(keys)), st: keyState{Type: String, Str: fmt.Sprint("db", db)}, meta: m()},
			wKey{db: db, key: fmt.Sprint("h", len(keys)), st: keyState{Type: Hash, Hash: map[string]string{"a": "b"}}, meta: withTTL(4102444804000)},
		)
	}
	return keys
}

func dedupe(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

const testLib = "#!lua name=tandemlib\nredis.register_function('tandem_hello', function(keys, args) return 'hello' end)\n"

// writeFile writes keys (grouped into SelectDB runs) and a function.
func writeFile(t *testing.T, keys []wKey, o WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Function([]byte(testLib)); err != nil {
		t.Fatal(err)
	}
	db := -1
	for _, k := range keys {
		if k.db != db {
			db = k.db
			if err := w.SelectDB(db, 10, 1); err != nil {
				t.Fatal(err)
			}
		}
		key := []byte(k.key)
		switch k.st.Type {
		case String:
			err = w.String(key, []byte(k.st.Str), k.meta)
		case List:
			err = w.List(key, bs(k.st.List), k.meta)
		case Set:
			err = w.Set(key, bs(k.st.Set), k.meta)
		case Hash:
			var f, v [][]byte
			for fk, fv := range k.st.Hash {
				f, v = append(f, []byte(fk)), append(v, []byte(fv))
			}
			err = w.Hash(key, f, v, k.meta)
		case ZSet:
			var ms []Member
			for mk, sc := range k.st.ZSet {
				ms = append(ms, Member{Member: []byte(mk), Score: sc})
			}
			err = w.ZSet(key, ms, k.meta)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.String([]byte("late"), nil, NewMeta()); err == nil {
		t.Fatal("write after Close accepted")
	}
	return buf.Bytes()
}

func bs(s []string) [][]byte {
	out := make([][]byte, len(s))
	for i, x := range s {
		out[i] = []byte(x)
	}
	return out
}

func wantState(keys []wKey) dbState {
	s := dbState{}
	for _, k := range keys {
		st := k.st
		st.ExpireMs = k.meta.ExpireAtMs
		if st.Set != nil {
			st.Set = append([]string(nil), st.Set...)
			sort.Strings(st.Set)
		}
		s.put(k.db, k.key, st)
	}
	return s
}

// TestWriterLoadsInRedis: files from Writer load in redis-server 7.0 with
// every value, TTL, LFU/LRU datum and the function intact; the tandem-mc
// AUX fields are ignored; the Reader reads the same file back, memcached
// metadata included.
func TestWriterLoadsInRedis(t *testing.T) {
	// A real HyperLogLog, dense, from PFADD.
	src := startRedis(t, t.TempDir())
	args := []any{"PFADD", "h"}
	for i := 0; i < 2000; i++ {
		args = append(args, fmt.Sprint("x", i))
	}
	src.do(args...)
	hll := src.str("GET", "h")
	hllCount := src.int("PFCOUNT", "h")

	keys := writerData(hll)
	want := wantState(keys)
	dbs := []int{0, 1, 5, 15}
	for _, c := range []struct {
		name   string
		o      WriterOptions
		policy string
	}{
		{"compress+checksum/lfu", WriterOptions{Compress: true, Checksum: true, Aux: [][2]string{{"tandem-ver", "1"}}, UsedMem: 12345}, "allkeys-lfu"},
		{"plain+nochecksum/lru", WriterOptions{}, "allkeys-lru"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := writeFile(t, keys, c.o)
			sum := binary.LittleEndian.Uint64(file[len(file)-8:])
			if c.o.Checksum != (sum != 0) {
				t.Fatalf("checksum %x with Checksum=%v", sum, c.o.Checksum)
			}
			if c.o.Checksum && sum != CRC64(file[:len(file)-8]) {
				t.Fatal("checksum is not the CRC of the file")
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "tandem.rdb"), file, 0o644); err != nil {
				t.Fatal(err)
			}
			p := startRedis(t, dir, "--dbfilename", "tandem.rdb", "--loglevel", "debug",
				"--maxmemory-policy", c.policy, "--lfu-decay-time", "0", "--sanitize-dump-payload", "yes")
			if c.policy == "allkeys-lfu" {
				if f := p.int("OBJECT", "FREQ", "s:meta"); f != 42 {
					t.Errorf("OBJECT FREQ s:meta = %d, want 42", f)
				}
			} else if idle := p.int("OBJECT", "IDLETIME", "s:meta"); idle < 1000 || idle > 1003 {
				t.Errorf("OBJECT IDLETIME s:meta = %d, want 1000", idle)
			}
			compareStates(t, redisState(t, p, dbs), want)
			if n := p.int("PFCOUNT", "hll"); n != hllCount {
				t.Errorf("PFCOUNT of the written HLL = %d, want %d", n, hllCount)
			}
			if r := p.str("FCALL", "tandem_hello", 0); r != "hello" {
				t.Errorf("FCALL = %q", r)
			}
			log := readFile(p.log)
			if !strings.Contains(log, "Unrecognized RDB AUX field: 'tandem-mc'") {
				t.Errorf("redis-server did not report ignoring tandem-mc; log:\n%s", log)
			}
			if !strings.Contains(log, "DB loaded from disk") {
				t.Errorf("no load message in log:\n%s", log)
			}

			if st := statsOf(t, file); c.o.Compress != (st.lzfStrings > 0) {
				t.Errorf("Compress=%v but %d LZF strings", c.o.Compress, st.lzfStrings)
			}
			// The Reader reads the same file back, memcached metadata included.
			recs, err := readAll(file)
			if err != nil {
				t.Fatal(err)
			}
			compareStates(t, statesFromRecords(recs), want)
			metas := map[string]Meta{}
			aux := map[string]string{}
			nfunc := 0
			for _, rec := range recs {
				switch rec.Kind {
				case KindKey:
					metas[fmt.Sprint(rec.DB, "/", string(rec.Key))] = rec.Meta
				case KindAux:
					aux[string(rec.AuxKey)] = string(rec.AuxValue)
				case KindFunction:
					nfunc++
					if string(rec.Code) != testLib {
						t.Errorf("function code %q", rec.Code)
					}
				}
			}
			if nfunc != 1 {
				t.Errorf("%d functions", nfunc)
			}
			if _, ok := aux[auxMC]; ok {
				t.Error("tandem-mc returned as an AUX record")
			}
			if aux["redis-ver"] != "7.0.15" || aux["used-mem"] != strconv.FormatInt(c.o.UsedMem, 10) ||
				(c.o.Aux != nil && aux["tandem-ver"] != "1") {
				t.Errorf("aux %v", aux)
			}
			for _, k := range keys {
				if got := metas[fmt.Sprint(k.db, "/", k.key)]; got != k.meta {
					t.Errorf("%d/%q meta %+v, want %+v", k.db, k.key, got, k.meta)
				}
			}
		})
	}
}

func TestWriterAPI(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, WriterOptions{CTime: 1700000000})
	if err := w.Hash([]byte("h"), [][]byte{[]byte("a")}, nil, NewMeta()); err == nil {
		t.Error("mismatched hash accepted")
	}
	if err := w.ZSet([]byte("z"), []Member{{Member: []byte("a"), Score: math.NaN()}}, NewMeta()); err == nil {
		t.Error("NaN score accepted")
	}
	if err := w.SelectDB(-1, 0, 0); err == nil {
		t.Error("negative db accepted")
	}
	// Empty collections are skipped, as Redis skips them on load.
	w.List([]byte("l"), nil, NewMeta())
	w.Set([]byte("s"), nil, NewMeta())
	w.Hash([]byte("h"), nil, nil, NewMeta())
	w.ZSet([]byte("z"), nil, NewMeta())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close accepted")
	}
	recs, err := readAll(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind == KindKey {
			t.Errorf("empty collection %q written", r.Key)
		}
		if r.Kind == KindAux && string(r.AuxKey) == "ctime" && string(r.AuxValue) != "1700000000" {
			t.Errorf("ctime %q", r.AuxValue)
		}
	}
	// A failing underlying writer surfaces its error.
	fw := &failWriter{n: 3}
	w, err = NewWriter(fw, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := 0; i < 10000 && werr == nil; i++ {
		werr = w.String([]byte("key"), bytes.Repeat([]byte("v"), 100), NewMeta())
	}
	if werr == nil {
		werr = w.Close()
	}
	if werr == nil {
		t.Fatal("write error not reported")
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, fmt.Errorf("disk full")
	}
	f.n--
	return len(p), nil
}
