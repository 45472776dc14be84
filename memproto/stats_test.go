package memproto

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/engine"
)

// statsMap runs "stats" and returns name → value.
func statsMap(t *testing.T, c *testClient, args string) map[string]string {
	t.Helper()
	out := c.send("stats" + args + "\r\n")
	if !strings.HasSuffix(out, "END\r\n") {
		t.Fatalf("stats%s: %q", args, out)
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "END\r\n"), "\r\n") {
		if l == "" {
			continue
		}
		f := strings.SplitN(l, " ", 3)
		if len(f) != 3 || f[0] != "STAT" {
			t.Fatalf("bad stats line %q", l)
		}
		m[f[1]] = f[2]
	}
	return m
}

// The counters move as memcached 1.6.18's do for the same commands (found
// by diffing its stats around each command).
func TestStatsCounters(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.send("get a b\r\n")                                                // cmd_get 2, misses 2
	c.send("set a 0 0 1\r\n1\r\nget a b a\r\n")                          // cmd_set 1, cmd_get 3, hits 2, misses 1
	c.send("gat 10 a b\r\ntouch a 10\r\ntouch b 10\r\n")                 // cmd_touch 4, touch hits 2, misses 2
	c.send("mg a v\r\nmg b v\r\nmg a T10\r\nmg b T10\r\n")               // cmd_get 3, hits 1, misses 2, cmd_touch 1, touch hits 1
	c.send("set a 0 0 1\r\nxyz\r\n")                                     // cmd_set 1 (bad chunk)
	c.send("cas a 0 0 1 1\r\n1\r\ncas b 0 0 1 1\r\n1\r\n")               // cmd_set 2, badval 1, misses 1
	c.send("incr a 1\r\nincr b 1\r\ndecr a 1\r\ndecr b 1\r\n")           // incr/decr hits 1 misses 1
	c.send("delete a\r\ndelete a\r\nme a\r\nmn\r\nflush_all\r\n")        // delete hit 1 miss 1, cmd_meta 1, flush 1
	c.send("ms a 1\r\n1\r\nmd a\r\nmd a\r\nma a\r\nma a N0\r\nma a\r\n") // cmd_set 1, delete 1/1, incr misses 1, hits 1
	m := statsMap(t, c, "")
	want := map[string]int{
		"cmd_get": 8, "get_hits": 3, "get_misses": 5, "cmd_set": 5, "cmd_touch": 5,
		"touch_hits": 3, "touch_misses": 2, "cas_misses": 1, "cas_hits": 0, "cas_badval": 1,
		"incr_hits": 2, "incr_misses": 2, "decr_hits": 1, "decr_misses": 1,
		"delete_hits": 2, "delete_misses": 2, "cmd_meta": 1, "cmd_flush": 1,
		"curr_connections": 1, "total_connections": 1, "curr_items": 1,
	}
	for name, v := range want {
		if m[name] != strconv.Itoa(v) {
			t.Errorf("%s = %s, want %d", name, m[name], v)
		}
	}
	for _, name := range []string{"pid", "uptime", "time", "version", "bytes_read", "bytes_written",
		"limit_maxbytes", "threads", "bytes", "evictions", "reclaimed", "total_items", "rusage_user"} {
		if _, ok := m[name]; !ok {
			t.Errorf("stats lacks %s", name)
		}
	}
	if m["version"] != "1.6.18-tandem-test" || m["time"] != strconv.Itoa(startMs/1000) {
		t.Errorf("version %q time %q", m["version"], m["time"])
	}
	c.expect("stats reset\r\n", "RESET\r\n")
	m = statsMap(t, c, "")
	if m["cmd_get"] != "0" || m["curr_items"] != "1" || m["curr_connections"] != "1" {
		t.Errorf("after reset: %v", m)
	}
}

func TestStatsOrderMatchesMemcached(t *testing.T) {
	// The first names of memcached 1.6.18's "stats", in order.
	want := []string{"pid", "uptime", "time", "version", "libevent", "pointer_size", "rusage_user",
		"rusage_system", "max_connections", "curr_connections", "total_connections",
		"rejected_connections", "connection_structures"}
	out := newTestEnv(t).client().send("stats\r\n")
	ls := strings.Split(out, "\r\n")
	for i, name := range want {
		if !strings.HasPrefix(ls[i], "STAT "+name+" ") {
			t.Fatalf("line %d is %q, want %s", i, ls[i], name)
		}
	}
}

func TestStatsGroups(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("stats items\r\n", "END\r\n")
	c.expect("stats sizes\r\n", "STAT sizes_status disabled\r\nEND\r\n")
	c.expect("stats nosuch\r\n", "ERROR\r\n")
	c.expect("stats detail\r\n", "CLIENT_ERROR usage: stats detail on|off|dump\r\n")
	c.expect("stats cachedump 1\r\n", "CLIENT_ERROR bad command line\r\n")
	c.expect("stats cachedump 64 1\r\n", "CLIENT_ERROR Illegal slab id\r\n")
	c.expect("stats cachedump x 1\r\n", "CLIENT_ERROR bad command line format\r\n")
	c.send("set k 0 100 2\r\nhi\r\n")
	c.expect("stats cachedump 1 0\r\n", "ITEM k [2 b; "+strconv.Itoa(startMs/1000+100)+" s]\r\nEND\r\n")
	c.expect("stats cachedump 2 0\r\n", "END\r\n")
	if m := statsMap(t, c, " items"); m["items:1:number"] != "1" {
		t.Errorf("items %v", m)
	}
	if m := statsMap(t, c, " slabs"); m["active_slabs"] != "1" {
		t.Errorf("slabs %v", m)
	}
	if m := statsMap(t, c, " settings"); m["item_size_max"] != "1048576" || m["maxconns"] == "" {
		t.Errorf("settings %v", m)
	}
	if m := statsMap(t, c, " conns"); m["8:addr"] != "tcp:127.0.0.1:50000" {
		t.Errorf("conns %v", m)
	}
}

// Prefix stats list prefixes in memcached's hash order: memcached 1.6.18
// dumped "b" before "a".
func TestStatsDetail(t *testing.T) {
	c := newTestEnv(t).client()
	got := c.send("stats detail on\r\nset a:1 0 0 1\r\nx\r\nget a:1 a:2 b:1 nocolon\r\ndelete a:1\r\nset nocolon 0 0 1\r\nx\r\nstats detail dump\r\nstats detail off\r\nget a:1\r\nstats detail dump\r\n")
	dump := "PREFIX b get 1 hit 0 set 0 del 0\r\nPREFIX a get 2 hit 1 set 1 del 1\r\nEND\r\n"
	want := "OK\r\nSTORED\r\nVALUE a:1 0 1\r\nx\r\nEND\r\nDELETED\r\nSTORED\r\n" + dump + "OK\r\nEND\r\n" + dump
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestMurmur3(t *testing.T) {
	// Reference values of MurmurHash3_x86_32 with seed 0.
	for in, want := range map[string]uint32{"": 0, "a": 0x3c2569b2, "abc": 0xb3dd93fa, "test": 0xba6bd213, "Hello, world!": 0xc0363e43, "The quick brown fox jumps over the lazy dog": 0x2e4ff723} {
		if got := murmur3([]byte(in)); got != want {
			t.Errorf("murmur3(%q) = %#x, want %#x", in, got, want)
		}
	}
}

func TestRejectMessage(t *testing.T) {
	env := newTestEnv(t)
	if got := string(env.fe.RejectMessage()); got != "ERROR Too many open connections\r\n" {
		t.Fatal(got)
	}
	if env.fe.stats.rejectedConns.Load() != 1 {
		t.Fatal("rejected_connections not counted")
	}
	c := env.client()
	c.s.Closed()
	if env.fe.stats.currConns.Load() != 0 {
		t.Fatal("curr_connections not decremented")
	}
}

// Facts of the shared keyspace, at engine level.
func TestCrossProtocol(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	// A value written by Redis (engine Set, flags 0) reads with flags 0.
	if _, err := env.db.Set([]byte("r"), []byte("from-redis"), engine.SetOptions{}); err != nil {
		t.Fatal(err)
	}
	c.expect("get r\r\n", "VALUE r 0 10\r\nfrom-redis\r\nEND\r\n")
	// A Redis write changes the CAS: a memcached cas with the old unique fails.
	c.expect("set k 9 0 1\r\na\r\ngets k\r\n", "STORED\r\nVALUE k 9 1 20002\r\na\r\nEND\r\n")
	if _, err := env.db.Set([]byte("k"), []byte("b"), engine.SetOptions{TTL: engine.TTLKeep}); err != nil {
		t.Fatal(err)
	}
	c.expect("cas k 0 0 1 20002\r\nc\r\nget k\r\n", "EXISTS\r\nVALUE k 0 1\r\nb\r\nEND\r\n")
	// A TTL set by Redis shows in mg t; one set by memcached is Redis's TTL.
	env.db.Expire([]byte("k"), startMs+50_000, 0)
	c.expect("mg k t\r\n", "HD t50\r\n")
	c.expect("touch k 20\r\n", "TOUCHED\r\n")
	if info, _ := env.db.Info([]byte("k")); info.ExpireAt != startMs+20_000 {
		t.Errorf("expireAt %d", info.ExpireAt-startMs)
	}
	// memcached flags survive a Redis read.
	c.send("set f 77 0 1\r\nx\r\n")
	if it, ok, _ := env.db.Get([]byte("f")); !ok || it.Flags != 77 {
		t.Errorf("flags %d", it.Flags)
	}
	// flush_all is database 0 only.
	if _, err := env.eng.DB(1).Set([]byte("other"), []byte("x"), engine.SetOptions{}); err != nil {
		t.Fatal(err)
	}
	c.expect("flush_all\r\n", "OK\r\n")
	if env.db.Size() != 0 || env.eng.DB(1).Size() != 1 {
		t.Errorf("sizes %d %d", env.db.Size(), env.eng.DB(1).Size())
	}
}
