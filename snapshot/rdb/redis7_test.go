package rdb

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestReadRedisDump: real redis-server 7.0 writes every type and encoding;
// Reader must report exactly what commands report.
func TestReadRedisDump(t *testing.T) {
	for _, policy := range []string{"allkeys-lfu", "allkeys-lru"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			p := startRedis(t, dir, "--maxmemory-policy", policy, "--lfu-decay-time", "0",
				"--list-max-listpack-size", "8", "--list-compress-depth", "1")
			code := fillRedis(t, p, true)
			// Make LRU/LFU data differ between keys.
			if policy == "allkeys-lru" {
				time.Sleep(2100 * time.Millisecond)
			}
			for i := 0; i < 100; i++ {
				p.do("GET", "str:plain")
				p.do("LINDEX", "list:small", 0)
			}
			// Access data, read without touching.
			lfu := map[string]int64{}
			idle := map[string]int64{}
			for _, db := range allDBs {
				p.do("SELECT", db)
				for _, k := range p.strs("KEYS", "*") {
					id := string(rune('0'+db)) + "/" + k
					if policy == "allkeys-lfu" {
						lfu[id] = p.int("OBJECT", "FREQ", k)
					} else {
						idle[id] = p.int("OBJECT", "IDLETIME", k)
					}
				}
			}
			p.do("SELECT", 0)
			_, recs, r := saveAndRead(t, p)
			want := redisState(t, p, allDBs)
			compareStates(t, statesFromRecords(recs), want)

			// Metadata opcodes.
			types := map[uint8]bool{}
			var functions []string
			aux := map[string]string{}
			selected := []int{}
			for _, rec := range recs {
				switch rec.Kind {
				case KindKey:
					types[rec.RDBType] = true
					id := string(rune('0'+rec.DB)) + "/" + string(rec.Key)
					if policy == "allkeys-lfu" {
						if rec.Meta.Idle != -1 || int64(rec.Meta.Freq) != lfu[id] {
							t.Errorf("%s: meta %+v, OBJECT FREQ %d", id, rec.Meta, lfu[id])
						}
					} else {
						d := rec.Meta.Idle - idle[id]
						if rec.Meta.Freq != -1 || rec.Meta.Idle < 0 || d < 0 || d > 2 {
							t.Errorf("%s: meta %+v, OBJECT IDLETIME %d", id, rec.Meta, idle[id])
						}
					}
					if rec.Meta.MCFlags != 0 || rec.Meta.MCCAS != 0 {
						t.Errorf("%s: memcached meta from nowhere", id)
					}
				case KindFunction:
					functions = append(functions, string(rec.Code))
				case KindAux:
					aux[string(rec.AuxKey)] = string(rec.AuxValue)
				case KindSelectDB:
					selected = append(selected, rec.DB)
				}
			}
			if len(functions) != 1 || functions[0] != code {
				t.Errorf("functions %q, want [%q]", functions, code)
			}
			if aux["redis-ver"] != "7.0.15" || aux["redis-bits"] != "64" || aux["aof-base"] != "0" {
				t.Errorf("aux %v", aux)
			}
			sort.Ints(selected)
			if len(selected) != len(allDBs) {
				t.Errorf("SELECTDB for %v, want %v", selected, allDBs)
			}
			if policy == "allkeys-lfu" && lfu["0/str:plain"] <= 5 {
				t.Errorf("accessed key has LFU counter %d", lfu["0/str:plain"])
			}
			if policy == "allkeys-lru" && idle["0/hash:big"] < 2 {
				t.Errorf("untouched key has idle %d", idle["0/hash:big"])
			}
			// Every encoding redis-server 7.0 writes for Tandem's types.
			for _, want := range []uint8{rtString, rtSet, rtHash, rtZSet2, rtSetIntset, rtHashListpack, rtZSetListpack, rtListQuicklist2} {
				if !types[want] {
					t.Errorf("no key of RDB type %d (%s) in the dump", want, rdbTypeName(want))
				}
			}
			s := r.stats
			if s.lzfStrings == 0 || s.plainNodes == 0 || s.packedNodes == 0 || s.lzfNodes == 0 {
				t.Errorf("encodings not all met: %+v", s)
			}
			t.Logf("%d records, types %v, stats %+v", len(recs), types, s)
		})
	}
}

// TestRedisTestdata keeps a small real dump as a fuzz seed and regression
// input. RDB_UPDATE_TESTDATA=1 regenerates it from redis-server.
func TestRedisTestdata(t *testing.T) {
	path := filepath.Join("testdata", "redis7-small.rdb")
	if os.Getenv("RDB_UPDATE_TESTDATA") != "" {
		dir := t.TempDir()
		p := startRedis(t, dir, "--maxmemory-policy", "allkeys-lfu", "--list-max-listpack-size", "4", "--list-compress-depth", "1")
		p.do("DEBUG", "QUICKLIST-PACKED-THRESHOLD", 100)
		p.do("SET", "s", "hello")
		p.do("SET", "i", "12345")
		p.do("SET", "lzf", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
		p.do("RPUSH", "l", "a", "b", 1, 2, "cccccccccccccccccccccccccccccccccccccccccccccccccccccc", "cccccccccccccccccccccccccccccccccccccccccccccccccccccc", "x", "y", 7, 8, "z", "w")
		p.do("RPUSH", "l", string(make([]byte, 150)))
		p.do("SADD", "is", 1, 2, 3)
		p.do("SADD", "ss", "a", "b")
		p.do("HSET", "h", "f", "v", "n", 5)
		p.do("ZADD", "z", 1.5, "a", 2, "b", "inf", "c")
		p.do("PEXPIREAT", "s", 4102444800000)
		p.do("SELECT", 3)
		p.do("SET", "other", "db")
		p.do("FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('f', function() return 1 end)")
		p.do("SAVE")
		b, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := readAll(b)
	if err != nil {
		t.Fatal(err)
	}
	got := statesFromRecords(recs)
	if len(got[0]) != 8 || len(got[3]) != 1 {
		t.Fatalf("keys: %v", got)
	}
	if l := got[0]["l"].List; len(l) != 13 || l[4] != "cccccccccccccccccccccccccccccccccccccccccccccccccccccc" || l[12] != string(make([]byte, 150)) {
		t.Fatalf("list: %q", l)
	}
	if got[0]["s"].ExpireMs != 4102444800000 {
		t.Fatalf("expire: %+v", got[0]["s"])
	}
}
