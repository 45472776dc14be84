package conf

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

func TestGet(t *testing.T) {
	c := Default()
	tests := []struct {
		patterns []string
		want     [][2]string
	}{
		{[]string{"maxmemory"}, [][2]string{{"maxmemory", "0"}}},
		{[]string{"MAXMEMORY"}, [][2]string{{"MAXMEMORY", "0"}}}, // reported as spelled, as redis
		{[]string{"nonexistent"}, nil},
		{[]string{`maxmemory\-policy`}, nil}, // no glob character: an exact name, which this is not
		{[]string{"maxmemory*"}, [][2]string{
			{"maxmemory", "0"}, {"maxmemory-policy", "allkeys-s3fifo"}, {"maxmemory-samples", "5"},
			{"maxmemory-eviction-tenacity", "10"}, {"maxmemory-clients", "0"}}},
		{[]string{"MAXMEM*"}, [][2]string{
			{"maxmemory", "0"}, {"maxmemory-policy", "allkeys-s3fifo"}, {"maxmemory-samples", "5"},
			{"maxmemory-eviction-tenacity", "10"}, {"maxmemory-clients", "0"}}},
		{[]string{"*max-*-entries*"}, [][2]string{
			{"hash-max-listpack-entries", "512"}, {"hash-max-ziplist-entries", "512"},
			{"set-max-intset-entries", "512"}, {"set-max-listpack-entries", "128"},
			{"zset-max-listpack-entries", "128"}, {"zset-max-ziplist-entries", "128"}}},
		{[]string{"[lm]axmemory", "[^l]axmemory"}, [][2]string{{"maxmemory", "0"}}},
		{[]string{"maxmemory-polic[a-z]"}, [][2]string{{"maxmemory-policy", "allkeys-s3fifo"}}},
		{[]string{"hz", "HZ", "h?"}, [][2]string{{"hz", "10"}}},
		{[]string{"HZ", "h?"}, [][2]string{{"HZ", "10"}}},
		{[]string{"lua-time-limit", "busy*"}, [][2]string{{"lua-time-limit", "5000"}, {"busy-reply-threshold", "5000"}}},
		{[]string{"save", "bind", "port"}, [][2]string{{"save", "3600 1 300 100 60 10000"}, {"bind", "127.0.0.1"}, {"port", "6379"}}},
		{[]string{"client-output-buffer-limit"}, [][2]string{
			{"client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"}}},
	}
	for _, tt := range tests {
		if got := c.Get(tt.patterns...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Get(%q) =\n  %q\nwant\n  %q", tt.patterns, got, tt.want)
		}
	}
	all := c.Get("*")
	shown := 0 // every name and alias but the hidden directives'
	for id := range table {
		if table[id].is(hidden) {
			continue
		}
		shown++
		if table[id].alias != "" {
			shown++
		}
	}
	if len(all) != shown {
		t.Errorf("Get(*) has %d pairs, want %d", len(all), shown)
	}
	// A hidden directive answers to its exact name only, as in Redis.
	if got := c.Get("rdb-key-save-delay"); len(got) != 1 || got[0] != [2]string{"rdb-key-save-delay", "0"} {
		t.Errorf("Get(rdb-key-save-delay) = %q", got)
	}
	if got := c.Get("rdb-key-save-*"); len(got) != 0 {
		t.Errorf("Get(rdb-key-save-*) = %q, want nothing (hidden)", got)
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		pairs [][2]string
		err   string
		check map[string]string // values after
	}{
		{[][2]string{{"maxmemory", "1gb"}, {"maxmemory-policy", "ALLKEYS-LRU"}}, "",
			map[string]string{"maxmemory": "1073741824", "maxmemory-policy": "allkeys-lru"}},
		{[][2]string{{"MaxMemory", "1kb"}}, "", map[string]string{"maxmemory": "1024"}},
		{[][2]string{{"foo", "bar"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'", nil},
		{[][2]string{{"", "0"}}, "ERR Unknown option or number of arguments for CONFIG SET - ''", nil},
		{[][2]string{{"Foo", "1"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'Foo'", nil},
		{[][2]string{{"maxmemory", "1xb"}},
			"ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value", nil},
		{[][2]string{{"MAXMEMORY", "1xb"}}, // a value error names the directive in lower case, as redis
			"ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value", nil},
		{[][2]string{{"port", "7000"}},
			"ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable config", nil},
		{[][2]string{{"DATABASES", "3"}},
			"ERR CONFIG SET failed (possibly related to argument 'DATABASES') - can't set immutable config", nil},
		{[][2]string{{"dir", "/tmp"}},
			"ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config", nil},
		{[][2]string{{"maxmemory", "1gb"}, {"maxmemory", "2gb"}},
			"ERR CONFIG SET failed (possibly related to argument 'maxmemory') - duplicate parameter", nil},
		{[][2]string{{"HZ", "5"}, {"hz", "6"}},
			"ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter", nil},
		// An unknown name wins over an immutable one only when it comes first.
		{[][2]string{{"databases", "3"}, {"foo", "1"}},
			"ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config", nil},
		{[][2]string{{"foo", "1"}, {"databases", "3"}},
			"ERR Unknown option or number of arguments for CONFIG SET - 'foo'", nil},
		// Names are all checked before any value.
		{[][2]string{{"maxmemory", "1xb"}, {"databases", "3"}},
			"ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config", nil},
		// An alias is a name of its own: not a duplicate of its directive, and errors name it.
		{[][2]string{{"lua-time-limit", "10"}, {"busy-reply-threshold", "20"}}, "",
			map[string]string{"busy-reply-threshold": "20", "lua-time-limit": "20"}},
		{[][2]string{{"lua-time-limit", "abc"}},
			"ERR CONFIG SET failed (possibly related to argument 'lua-time-limit') - argument couldn't be parsed into an integer", nil},
		{[][2]string{{"hz", "1000000"}}, "", map[string]string{"hz": "500"}},
		{[][2]string{{"hz", "0"}}, "", map[string]string{"hz": "1"}},
		{[][2]string{{"hz", "-1"}},
			"ERR CONFIG SET failed (possibly related to argument 'hz') - argument must be between 0 and 2147483647 inclusive", nil},
		{[][2]string{{"maxclients", "0"}},
			"ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive", nil},
		{[][2]string{{"protected-mode", "maybe"}},
			"ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'", nil},
		{[][2]string{{"protected-mode", "NO"}}, "", map[string]string{"protected-mode": "no"}},
		{[][2]string{{"save", "900 1 300 10"}}, "", map[string]string{"save": "900 1 300 10"}},
		{[][2]string{{"save", ""}}, "", map[string]string{"save": ""}},
		{[][2]string{{"save", "  900   1  "}},
			"ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters", nil},
		{[][2]string{{"save", "100 -1"}},
			"ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters", nil},
		{[][2]string{{"client-output-buffer-limit", "normal 1mb 2kb 3 pubsub 1 2 3"}}, "",
			map[string]string{"client-output-buffer-limit": "normal 1048576 2048 3 slave 268435456 67108864 60 pubsub 1 2 3"}},
		{[][2]string{{"client-output-buffer-limit", "replica 1 2 3"}}, "",
			map[string]string{"client-output-buffer-limit": "normal 1048576 2048 3 slave 1 2 3 pubsub 1 2 3"}},
		{[][2]string{{"client-output-buffer-limit", "normal 1x 2 3"}},
			"ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Error in hard, soft or soft_seconds setting in buffer limit configuration.", nil},
		{[][2]string{{"notify-keyspace-events", "KEA"}}, "", map[string]string{"notify-keyspace-events": "AKE"}},
		{[][2]string{{"notify-keyspace-events", "xgK"}}, "", map[string]string{"notify-keyspace-events": "gxK"}},
		{[][2]string{{"notify-keyspace-events", "KEAn"}}, "", map[string]string{"notify-keyspace-events": "AKE"}},
		{[][2]string{{"notify-keyspace-events", "tmd"}}, "", map[string]string{"notify-keyspace-events": "tdm"}},
		{[][2]string{{"compression", "zstd"}, {"item-size-max", "4mb"}}, "",
			map[string]string{"compression": "zstd", "item-size-max": "4194304"}},
		{[][2]string{{"compression", "lz4"}},
			"ERR CONFIG SET failed (possibly related to argument 'compression') - argument(s) must be one of the following: none, s2, zstd", nil},
		{[][2]string{{"compression", "s2"}, {"compression-min-size", "4kb"}, {"compression-min-saving", "35"}}, "",
			map[string]string{"compression": "s2", "compression-min-size": "4096", "compression-min-saving": "35"}},
		{[][2]string{{"compression-min-saving", "101"}},
			"ERR CONFIG SET failed (possibly related to argument 'compression-min-saving') - argument must be between 0 and 100 inclusive", nil},
		{[][2]string{{"requirepass", "s3cret"}}, "", map[string]string{"requirepass": "s3cret"}},
	}
	c := Default()
	for _, tt := range tests {
		before := c.Get("*")
		err := c.Set(tt.pairs...)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("Set(%q) = %v", tt.pairs, err)
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("Set(%q) = %v\n  want %s", tt.pairs, err, tt.err)
		}
		if tt.err != "" {
			if after := c.Get("*"); !reflect.DeepEqual(before, after) {
				t.Errorf("failed Set(%q) changed the configuration", tt.pairs)
			}
		}
		for name, want := range tt.check {
			if got, _ := c.Value(name); got != want {
				t.Errorf("after Set(%q): %s = %q, want %q", tt.pairs, name, got, want)
			}
		}
	}
	if c.Origin("maxmemory") != FromConfigSet {
		t.Errorf("Origin = %v", c.Origin("maxmemory"))
	}
}

func TestSetAllOrNothing(t *testing.T) {
	c := Default()
	err := c.Set([2]string{"maxmemory", "1gb"}, [2]string{"timeout", "30"}, [2]string{"maxmemory-policy", "nope"})
	if err == nil {
		t.Fatal("Set succeeded")
	}
	if c.MaxMemory() != 0 || c.Timeout() != 0 || c.MaxMemoryPolicy() != AllKeysS3FIFO {
		t.Errorf("partial Set: maxmemory %d timeout %v", c.MaxMemory(), c.Timeout())
	}
}

func TestSetProtected(t *testing.T) {
	for _, tt := range []struct {
		setting string
		local   bool
		ok      bool
	}{{"no", true, false}, {"yes", false, true}, {"local", false, false}, {"local", true, true}} {
		c := mustLoad(t, []string{"--enable-protected-configs", tt.setting}, nil)
		err := c.SetFrom(tt.local, [2]string{"dir", "/var/lib/tandem"}, [2]string{"dbfilename", "t.rdb"})
		if (err == nil) != tt.ok {
			t.Errorf("%s local=%v: %v", tt.setting, tt.local, err)
		}
		if tt.ok && (c.Dir() != "/var/lib/tandem" || c.DBFilename() != "t.rdb") {
			t.Errorf("dir %q dbfilename %q", c.Dir(), c.DBFilename())
		}
	}
	c := mustLoad(t, []string{"--enable-protected-configs", "yes"}, nil)
	want := "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename can't be a path, just a filename"
	if err := c.Set([2]string{"dbfilename", "../x.rdb"}); err == nil || err.Error() != want {
		t.Errorf("Set = %v", err)
	}
}

func TestPairs(t *testing.T) {
	if _, err := Pairs([]string{"maxmemory", "1gb", "hz"}); err == nil || err.Error() != "ERR syntax error" {
		t.Errorf("Pairs(odd) = %v", err)
	}
	p, err := Pairs([]string{"maxmemory", "1gb", "hz", "5"})
	if err != nil || !reflect.DeepEqual(p, [][2]string{{"maxmemory", "1gb"}, {"hz", "5"}}) {
		t.Errorf("Pairs = %q, %v", p, err)
	}
}

func TestOnChange(t *testing.T) {
	c := Default()
	var maxmemory, policy, busy int
	var seen int64
	c.OnChange("maxmemory", func(c *Config) { maxmemory++; seen = c.MaxMemory() })
	c.OnChange("maxmemory-policy", func(*Config) { policy++ })
	c.OnChange("lua-time-limit", func(*Config) { busy++ }) // registered by alias

	must := func(pairs ...[2]string) {
		t.Helper()
		if err := c.Set(pairs...); err != nil {
			t.Fatal(err)
		}
	}
	must([2]string{"maxmemory", "1mb"})
	if maxmemory != 1 || seen != 1<<20 || policy != 0 {
		t.Errorf("after maxmemory: %d %d %d", maxmemory, seen, policy)
	}
	must([2]string{"maxmemory", "1048576"}) // same value: no change, no call
	if maxmemory != 1 {
		t.Errorf("unchanged value called back: %d", maxmemory)
	}
	must([2]string{"maxmemory", "2mb"}, [2]string{"maxmemory-policy", "allkeys-lru"})
	if maxmemory != 2 || policy != 1 {
		t.Errorf("after both: %d %d", maxmemory, policy)
	}
	_ = c.Set([2]string{"maxmemory", "3mb"}, [2]string{"hz", "x"})
	if maxmemory != 2 {
		t.Errorf("failed Set called back")
	}
	must([2]string{"busy-reply-threshold", "1"})
	if busy != 1 {
		t.Errorf("alias callback: %d", busy)
	}

	// A callback may call Set.
	c.OnChange("hz", func(c *Config) {
		if c.Hz() != 42 {
			_ = c.Set([2]string{"hz", "42"})
		}
	})
	must([2]string{"hz", "7"})
	if c.Hz() != 42 {
		t.Errorf("hz = %d", c.Hz())
	}
}

// TestSetRoundTrip: every value CONFIG GET shows is accepted by CONFIG SET
// and changes nothing.
func TestSetRoundTrip(t *testing.T) {
	c := mustLoad(t, []string{"--enable-protected-configs", "yes", "--notify-keyspace-events", "KEA", "--save", "10 1"}, nil)
	before := c.Get("*")
	for _, p := range before {
		id, _, _ := lookup(p[0])
		if !table[id].is(mutable) {
			continue
		}
		if err := c.Set(p); err != nil {
			t.Errorf("Set(%q): %v", p, err)
		}
	}
	if after := c.Get("*"); !reflect.DeepEqual(before, after) {
		t.Errorf("round trip changed values:\n%q\n%q", before, after)
	}
}

// TestConcurrentReadersSeeWholeSets runs with -race: readers must never see
// half of a two-pair Set.
func TestConcurrentReadersSeeWholeSets(t *testing.T) {
	c := Default()
	if err := c.Set([2]string{"maxmemory-samples", "1"}, [2]string{"lfu-log-factor", "1"}); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var torn atomic.Int64
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				s := c.load()
				if s.num[dMaxMemorySamples] != s.num[dLFULogFactor] {
					torn.Add(1)
				}
				_ = c.MaxMemory()
				_ = c.Get("maxmemory*")
			}
		}()
	}
	for i := 2; i <= 2000; i++ {
		v := fmt.Sprint(i)
		if err := c.Set([2]string{"maxmemory-samples", v}, [2]string{"lfu-log-factor", v}, [2]string{"maxmemory", v}); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if torn.Load() != 0 {
		t.Errorf("%d torn reads", torn.Load())
	}
}

func TestDirectives(t *testing.T) {
	for _, d := range Directives() {
		if d.Name == "memcached-port" && (d.Env != "TANDEM_MEMCACHED_PORT" || d.Default != "11211" || d.Mutable) {
			t.Errorf("%+v", d)
		}
	}
}

// Values shown as redis shows them: octal, percentages, enum names that
// share a value, bit-flag enums in table order.
func TestValueForms(t *testing.T) {
	c := mustLoad(t, []string{"--unixsocketperm", "0755", "--maxmemory-clients", "25%",
		"--oom-score-adj", "relative", "--shutdown-on-sigterm", "now", "SAVE", "--oom-score-adj-values", " 1 +2 -3",
		"--latency-tracking-info-percentiles", "99.990 1e1", "--replicaof", "NO", "ONE"}, nil)
	want := map[string]string{"unixsocketperm": "755", "maxmemory-clients": "25%", "oom-score-adj": "yes",
		"shutdown-on-sigterm": "save now", "shutdown-on-sigint": "default", "oom-score-adj-values": "1 2 -3",
		"latency-tracking-info-percentiles": "99.99 10", "replicaof": "", "slaveof": ""}
	if got := values(c, keys(want)...); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	for _, args := range [][]string{{"--cluster-enabled", "yes"}, {"--unixsocket", "/run/redis.sock"}} {
		if _, err := Load(args, nil); err == nil {
			t.Errorf("Load(%q) accepted", args)
		}
	}
	if err := c.Set([2]string{"maxmemory-clients", "1gb"}); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Value("maxmemory-clients"); v != "1073741824" {
		t.Errorf("maxmemory-clients = %q", v)
	}
}
