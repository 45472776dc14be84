package snapshot

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tandemkv/tandem/engine"
)

// loadFuzzSeeds: the rdb package's sample dumps and a dump Tandem writes
// of every type, in each encoding the limits allow (small and large
// hashes, sets of integers and of strings, sorted sets, lists, expiries).
func loadFuzzSeeds(f *testing.F) {
	for _, name := range []string{"redis7-small.rdb", "v9-handmade.rdb"} {
		b, err := os.ReadFile(filepath.Join("rdb", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, compress := range []bool{false, true} {
		eng := engine.New(engine.Options{Clock: engine.NewManualClock(1_700_000_000_000), ShardBits: 2, Databases: 2})
		d := eng.DB(0)
		d.Set([]byte("s"), bytes.Repeat([]byte("ab"), 40), engine.SetOptions{})
		d.Set([]byte("n"), []byte("12345"), engine.SetOptions{TTL: engine.TTLSet, ExpireAt: 1_800_000_000_000})
		d.LPushEnd([]byte("l"), engine.ListRight, [][]byte{[]byte("a"), []byte("7"), []byte("-300")}, false)
		d.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v"), []byte("g"), []byte("1")}, limits.Hash)
		d.SAdd([]byte("is"), [][]byte{[]byte("1"), []byte("2"), []byte("-5")}, limits.Set)
		d.SAdd([]byte("ss"), [][]byte{[]byte("x"), []byte("y")}, limits.Set)
		d.ZAdd([]byte("z"), 0, []engine.ZMember{{Member: []byte("m"), Score: 1.5}, {Member: []byte("n"), Score: math.Inf(-1)}}, limits.ZSet)
		big := make([][]byte, 0, 400)
		for i := 0; i < 200; i++ {
			big = append(big, []byte("f"+strconv.Itoa(i)), bytes.Repeat([]byte("v"), i))
		}
		d.HSet([]byte("bigh"), big, limits.Hash)
		// A stream over several nodes, with a deleted entry, a group and
		// a pending entry: the type-19 record with every part filled.
		for i := 0; i < 12; i++ {
			if _, err := d.XAdd([]byte("st"), &engine.XAddArgs{Fields: [][]byte{[]byte("f"), []byte(strconv.Itoa(i))}, Limits: engine.StreamLimits{NodeMaxBytes: 200, NodeMaxEntries: 5}}); err != nil {
				f.Fatal(err)
			}
		}
		if err := d.XGroupCreate([]byte("st"), []byte("g"), engine.XGroupID{}, false, -1); err != nil {
			f.Fatal(err)
		}
		if _, err := d.XRead(&engine.XReadArgs{Keys: [][]byte{[]byte("st")}, IDs: []engine.XReadID{{Kind: engine.XReadNew}}, Count: 2, Group: []byte("g"), Consumer: []byte("c")}, nil); err != nil {
			f.Fatal(err)
		}
		if _, _, err := d.XDel([]byte("st"), []engine.StreamID{{Ms: 1_700_000_000_000, Seq: 3}}); err != nil {
			f.Fatal(err)
		}
		eng.DB(1).Set([]byte("other"), []byte("db1"), engine.SetOptions{})
		var buf bytes.Buffer
		if _, err := write(&buf, eng, FileOptions{Compress: compress, Checksum: true, Functions: [][]byte{[]byte("#!lua name=lib\nredis.register_function('f', function() return 1 end)")}}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
}

// FuzzLoadApply feeds any bytes through the real load path (the RDB
// reader, then engine.DB.Restore for every key) into a fresh engine, then
// reads every loaded key back: TYPE, and a full range over each
// aggregate. No input makes any of it panic; an error is fine; used
// memory never goes negative, not after the load, not after a FLUSHALL.
func FuzzLoadApply(f *testing.F) {
	loadFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		eng := engine.New(engine.Options{Clock: engine.NewManualClock(1_700_000_000_000), ShardBits: 2, Databases: 4})
		var libs int
		_, err := load(bytes.NewReader(data), eng, LoadOptions{Limits: limits, Function: func([]byte, bool) error { libs++; return nil }}, int64(len(data)/3))
		if eng.UsedMemory() < 0 {
			t.Fatalf("used memory %d after load (err %v)", eng.UsedMemory(), err)
		}
		for db := 0; db < eng.Databases(); db++ {
			readBack(t, eng.DB(db))
		}
		if eng.UsedMemory() < 0 {
			t.Fatalf("used memory %d after reads", eng.UsedMemory())
		}
		eng.FlushAll()
		if m := eng.UsedMemory(); m < 0 {
			t.Fatalf("used memory %d after FLUSHALL", m)
		}
	})
}

// memberCount is a MemberSink that only counts.
type memberCount int

func (c *memberCount) Member([]byte)   { *c++ }
func (c *memberCount) IntMember(int64) { *c++ }

// readBack reads every key of d as a client would after a load.
func readBack(t *testing.T, d engine.DB) {
	t.Helper()
	var keys [][]byte
	d.Keys([]byte("*"), func(k []byte) { keys = append(keys, bytes.Clone(k)) })
	if len(keys) != d.Size() {
		t.Fatalf("KEYS found %d keys, DBSIZE %d", len(keys), d.Size())
	}
	for _, k := range keys {
		info, ok := d.Info(k)
		if !ok {
			t.Fatalf("key %q listed but not found", k)
		}
		if _, ok := d.MemoryUsage(k); !ok {
			t.Fatalf("MEMORY USAGE of %q: not found", k)
		}
		var err error
		switch info.Type {
		case engine.TypeString:
			var it engine.Item
			it, ok, err = d.Get(k)
			if ok {
				it.Release()
			}
		case engine.TypeList:
			var n int
			n, err = d.LRange(k, 0, -1, func(int, int, []byte) {})
			if m, _ := d.LLen(k); err == nil && m != n {
				t.Fatalf("list %q: LLEN %d, LRANGE %d", k, m, n)
			}
		case engine.TypeHash:
			_, err = d.HView(k, func(v engine.HashView) {
				n := 0
				v.Each(func(_, _ []byte) { n++ })
				if n != v.Len() {
					t.Fatalf("hash %q: HLEN %d, HGETALL %d", k, v.Len(), n)
				}
			})
		case engine.TypeSet:
			var c memberCount
			var n int
			n, err = d.SMembers(k, &c)
			if m, _ := d.SCard(k); err == nil && (m != n || int(c) != n) {
				t.Fatalf("set %q: SCARD %d, SMEMBERS %d (%d)", k, m, n, c)
			}
		case engine.TypeZSet:
			n := 0
			_, err = d.ZRange(k, &engine.ZRangeSpec{By: engine.ZByRank, Start: 0, Stop: -1, Limit: -1}, func(int) {}, func([]byte, float64) { n++ })
			if m, _ := d.ZCard(k); err == nil && m != n {
				t.Fatalf("zset %q: ZCARD %d, ZRANGE %d", k, m, n)
			}
		case engine.TypeStream:
			n := 0
			_, err = d.XRange(k, engine.StreamID{}, engine.MaxStreamID, 0, false, func(*engine.StreamEntry) { n++ })
			if m, _ := d.XLen(k); err == nil && m != int64(n) {
				t.Fatalf("stream %q: XLEN %d, XRANGE %d", k, m, n)
			}
			if err == nil {
				_, _, err = d.XInfoStream(k, true, 0)
			}
		default:
			t.Fatalf("key %q of type %v", k, info.Type)
		}
		if err != nil {
			t.Fatalf("reading %q (%v): %v", k, info.Type, err)
		}
	}
}
