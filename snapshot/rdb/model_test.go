package rdb

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// keyState is one key as commands or a Reader report it, in a comparable form.
type keyState struct {
	Type     Type
	Str      string
	List     []string
	Set      []string          // sorted
	Hash     map[string]string // field -> value
	ZSet     map[string]float64
	ExpireMs int64 // 0 = none
}

// dbState maps db -> key -> state.
type dbState map[int]map[string]keyState

func (s dbState) put(db int, key string, k keyState) {
	if s[db] == nil {
		s[db] = map[string]keyState{}
	}
	s[db][key] = k
}

// stateFromRecord converts a Reader record.
func stateFromRecord(rec *Record) keyState {
	k := keyState{Type: rec.Type, ExpireMs: rec.Meta.ExpireAtMs}
	switch rec.Type {
	case String:
		k.Str = string(rec.Str)
	case List:
		k.List = strs(rec.Elems)
	case Set:
		k.Set = strs(rec.Elems)
		sort.Strings(k.Set)
	case Hash:
		k.Hash = map[string]string{}
		for i := range rec.Fields {
			k.Hash[string(rec.Fields[i])] = string(rec.Values[i])
		}
	case ZSet:
		k.ZSet = map[string]float64{}
		for _, m := range rec.Members {
			k.ZSet[string(m.Member)] = m.Score
		}
	}
	return k
}

// redisState reads every key of the given databases through commands.
func redisState(t *testing.T, p *redisProc, dbs []int) dbState {
	t.Helper()
	out := dbState{}
	for _, db := range dbs {
		p.do("SELECT", db)
		for _, key := range p.strs("KEYS", "*") {
			k := keyState{}
			if ms := p.int("PEXPIRETIME", key); ms >= 0 {
				k.ExpireMs = ms
			}
			switch typ := p.str("TYPE", key); typ {
			case "string":
				k.Type, k.Str = String, p.str("GET", key)
			case "list":
				k.Type, k.List = List, p.strs("LRANGE", key, 0, -1)
			case "set":
				k.Type, k.Set = Set, p.strs("SMEMBERS", key)
				sort.Strings(k.Set)
			case "hash":
				k.Type, k.Hash = Hash, map[string]string{}
				a := p.strs("HGETALL", key)
				for i := 0; i < len(a); i += 2 {
					k.Hash[a[i]] = a[i+1]
				}
			case "zset":
				k.Type, k.ZSet = ZSet, map[string]float64{}
				a := p.strs("ZRANGE", key, 0, -1, "WITHSCORES")
				for i := 0; i < len(a); i += 2 {
					f, err := strconv.ParseFloat(a[i+1], 64)
					if err != nil {
						t.Fatalf("score %q: %v", a[i+1], err)
					}
					k.ZSet[a[i]] = f
				}
			default:
				t.Fatalf("key %q: unexpected type %q", key, typ)
			}
			out.put(db, key, k)
		}
	}
	p.do("SELECT", 0)
	return out
}

func compareStates(t *testing.T, got, want dbState) {
	t.Helper()
	n := 0
	for db, keys := range want {
		for key, w := range keys {
			n++
			g, ok := got[db][key]
			if !ok {
				t.Errorf("db %d key %q: missing", db, key)
				continue
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("db %d key %q differs:\n got  %s\n want %s", db, key, short(g), short(w))
			}
		}
	}
	for db, keys := range got {
		for key := range keys {
			if _, ok := want[db][key]; !ok {
				t.Errorf("db %d key %q: unexpected", db, key)
			}
		}
	}
	if n == 0 {
		t.Fatal("no keys compared")
	}
}

func short(k keyState) string {
	s := fmt.Sprintf("%+v", k)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// fillRedis stores every type in compact and large sizes, binary data,
// integer strings, TTLs, several databases and a function library. It
// returns the library's code.
func fillRedis(t *testing.T, p *redisProc, big bool) string {
	t.Helper()
	rng := rand.New(rand.NewSource(7))
	scale := 1
	if big {
		scale = 10
	}
	randBytes := func(n int) string {
		b := make([]byte, n)
		rng.Read(b)
		return string(b)
	}
	// Elements longer than 300 bytes become plain quicklist nodes.
	p.do("DEBUG", "QUICKLIST-PACKED-THRESHOLD", 300)
	for _, kv := range [][2]string{
		{"str:plain", "hello"}, {"str:int:small", "42"}, {"str:int:neg", "-12345"},
		{"str:int:32", "2147483647"}, {"str:int:neg32", "-2147483648"}, {"str:int:64", "9223372036854775807"},
		{"str:int:lead0", "007"}, {"str:empty", ""}, {"str:float", "3.14"}, {"str:int:0", "0"},
		{"str:long", strings.Repeat("abcdefgh", 500)}, {"str:21", strings.Repeat("z", 21)},
		{"str:rand", randBytes(3000)}, {"\x00bin\xffkey\r\n", "\x00\x01\xff\r\n"},
		{strings.Repeat("K", 200), strings.Repeat("V", 70000)},
	} {
		p.do("SET", kv[0], kv[1])
	}
	p.do("APPEND", "str:appended", "abc") // raw encoding with spare capacity
	p.do("APPEND", "str:appended", "def")
	p.do("SETRANGE", "str:setrange", 100, "x")
	hll := []any{"PFADD", "hll:sparse"}
	for i := 0; i < 20; i++ {
		hll = append(hll, fmt.Sprint("e", i))
	}
	p.do(hll...)
	hll = []any{"PFADD", "hll:dense"}
	for i := 0; i < 3000; i++ {
		hll = append(hll, fmt.Sprint("e", i))
	}
	p.do(hll...)

	p.do("RPUSH", "list:small", "a", "b", "1", "-5", "300", "100000", "-4096", "70000", "9223372036854775807", "", "\x00\xff")
	args := []any{"RPUSH", "list:big"}
	for i := 0; i < 300*scale; i++ {
		switch i % 5 {
		case 0:
			args = append(args, fmt.Sprintf("item-%05d-%s", i, strings.Repeat("pad", 10)))
		case 1:
			args = append(args, strconv.Itoa(i*1000-50000))
		case 2:
			args = append(args, randBytes(1+rng.Intn(40)))
		case 3:
			args = append(args, strings.Repeat("y", 400+i%7)) // a plain node
		default:
			args = append(args, strconv.FormatInt(rng.Int63()-rng.Int63(), 10))
		}
	}
	p.do(args...)
	p.do("LPUSH", "list:plainonly", strings.Repeat("P", 1000))
	p.do("RPUSH", "list:intonly", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)

	p.do("SADD", "set:intset", 1, 2, 3, -7, 100, 65536, -70000)
	p.do("SADD", "set:intset64", "9223372036854775807", "-9223372036854775808", 5)
	p.do("SADD", "set:small", "a", "b", "c", "\x00", "12x")
	args = []any{"SADD", "set:big"}
	for i := 0; i < 200*scale; i++ {
		args = append(args, fmt.Sprintf("member:%d", i))
	}
	p.do(args...)
	args = []any{"SADD", "set:bigint"}
	for i := 0; i < 600; i++ {
		args = append(args, i*3)
	}
	p.do(args...)

	p.do("HSET", "hash:small", "f1", "v1", "n", "12", "neg", "-1", "big", "123456789012", "", "empty-field", "bin\x00", "\xff")
	p.do("HSET", "hash:longval", "f", strings.Repeat("long", 40))
	args = []any{"HSET", "hash:big"}
	for i := 0; i < 200*scale; i++ {
		args = append(args, fmt.Sprintf("field:%d", i), fmt.Sprintf("value:%d:%s", i, strings.Repeat("v", i%50)))
	}
	p.do(args...)

	p.do("ZADD", "zset:small", 1, "one", -2.5, "neg", "inf", "pinf", "-inf", "ninf", 1e300, "huge", 0.1, "tenth", 3, "3", 5e-324, "tiny")
	args = []any{"ZADD", "zset:big"}
	for i := 0; i < 150*scale; i++ {
		args = append(args, rng.NormFloat64()*1e6, fmt.Sprintf("zm:%d", i))
	}
	p.do(args...)
	p.do("ZADD", "zset:longmember", 1, strings.Repeat("m", 100))

	for _, k := range []string{"str:plain", "list:small", "set:intset", "hash:small", "zset:small", "list:big", "hash:big"} {
		p.do("PEXPIRE", k, 3600000+rng.Intn(100000))
	}
	p.do("EXPIREAT", "str:int:small", 4102444800) // 2100-01-01, seconds

	// Other databases.
	for _, db := range []int{1, 2, 9} {
		p.do("SELECT", db)
		p.do("SET", fmt.Sprint("db", db, ":str"), fmt.Sprint("value in ", db))
		p.do("RPUSH", fmt.Sprint("db", db, ":list"), "x", "y", db)
		p.do("SADD", fmt.Sprint("db", db, ":set"), "p", "q")
		p.do("HSET", fmt.Sprint("db", db, ":hash"), "a", "b")
		p.do("ZADD", fmt.Sprint("db", db, ":zset"), db, "m")
		p.do("PEXPIRE", fmt.Sprint("db", db, ":hash"), 5000000)
		p.do("SET", "shared-name", db)
	}
	p.do("SELECT", 0)
	code := "#!lua name=rdbtestlib\nredis.register_function('rdbtest_f', function(keys, args) return 'ok' end)\n"
	p.do("FUNCTION", "LOAD", code)
	return code
}

var allDBs = []int{0, 1, 2, 9}

// saveAndRead runs SAVE and reads the dump with Reader.
func saveAndRead(t *testing.T, p *redisProc) ([]byte, []*Record, *Reader) {
	t.Helper()
	p.do("SAVE")
	b, err := os.ReadFile(filepath.Join(p.dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Record
	for {
		rec, err := r.Next()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("reading Redis's dump: %v", err)
		}
		recs = append(recs, rec)
	}
	return b, recs, r
}

func statesFromRecords(recs []*Record) dbState {
	s := dbState{}
	for _, rec := range recs {
		if rec.Kind == KindKey {
			s.put(rec.DB, string(rec.Key), stateFromRecord(rec))
		}
	}
	return s
}

func isInf(f float64) bool { return math.IsInf(f, 0) }
