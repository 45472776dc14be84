package resp

import (
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/server/servertest"
	"github.com/tandemkv/tandem/services"
)

// debugEnv is a test env with enable-debug-command as given (and no
// protected mode, for remote clients), its dumps in a temporary directory.
func debugEnv(t *testing.T, mode string) *testEnv {
	t.Helper()
	cfg, err := conf.Load([]string{"--dir", t.TempDir(), "--enable-debug-command", mode, "--protected-mode", "no"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := engine.NewManualClock(time.Now().UnixMilli())
	eng := engine.New(engine.Options{Clock: clock, ShardBits: 4})
	fe := New(Options{Services: services.New(services.Options{Engine: eng, Config: cfg}), Facts: ServerFacts{TCPPort: 6379, StartTime: time.Now(), ClientsCounter: func() int { return 1 }}})
	return &testEnv{t: t, fe: fe, eng: eng, cfg: cfg, clock: clock}
}

func TestDebugAllowed(t *testing.T) {
	for _, tc := range []struct {
		mode, addr string
		ok         bool
	}{
		{"no", "127.0.0.1:5000", false},
		{"yes", "10.0.0.1:5000", true},
		{"local", "127.0.0.1:5000", true},
		{"local", "10.0.0.1:5000", false},
	} {
		env := debugEnv(t, tc.mode)
		c := env.fe.NewSession(servertest.NewRemotePeer("127.0.0.1:6379", tc.addr)).(*Client)
		_, out, _ := c.Serve([]byte(encodeCommand("DEBUG", "PROTOCOL", "integer")), nil)
		got := string(out)
		if want := ":12345\r\n"; tc.ok != (got == want) {
			t.Errorf("enable-debug-command %s from %s: %q", tc.mode, tc.addr, got)
		}
		if !tc.ok && got != "-"+ErrDebugNotAllowed+"\r\n" {
			t.Errorf("refusal: %q", got)
		}
	}
}

// TestDebugDigest: digests as redis-server 7.0.15 computes them (golden
// values read from it), the same whatever the order of unordered
// elements, and different for a list's order.
func TestDebugDigest(t *testing.T) {
	env := debugEnv(t, "yes")
	c := env.client()
	c.expect("+0000000000000000000000000000000000000000\r\n", "DEBUG", "DIGEST")
	c.do("SET", "k", "v")
	c.do("RPUSH", "l", "a", "b", "c")
	c.expect("+ee26f514a7337e5326901db5e8305f06d330542b\r\n", "DEBUG", "DIGEST")
	c.expect("*3\r\n+d79ee9fe5d5ad902d7f6620efc3b07b75ddd742f\r\n+8bf72d812571eea9b927f3c11beb0c4165a6ff89\r\n+0000000000000000000000000000000000000000\r\n",
		"DEBUG", "DIGEST-VALUE", "k", "l", "nokey")
	c.do("SADD", "s1", "x", "y", "z")
	c.do("SADD", "s2", "z", "y", "x")
	c.do("RPUSH", "l2", "c", "b", "a")
	r := c.do("DEBUG", "DIGEST-VALUE", "s1", "s2", "l", "l2")
	d := strings.Split(strings.TrimSuffix(r, "\r\n"), "\r\n")
	if len(d) != 5 || d[1] != d[2] || d[3] == d[4] {
		t.Errorf("DIGEST-VALUE of equal sets and of reversed lists: %q", r)
	}
	before := c.do("DEBUG", "DIGEST")
	c.do("EXPIRE", "k", "100")
	if c.do("DEBUG", "DIGEST") == before {
		t.Error("an expiry does not change the digest")
	}
}

// TestDebugObject: the fields of DEBUG OBJECT, a list's quicklist, and
// an expired key seen without being reclaimed.
func TestDebugObject(t *testing.T) {
	env := debugEnv(t, "yes")
	c := env.client()
	c.expect("-ERR no such key\r\n", "DEBUG", "OBJECT", "nokey")
	c.do("RPUSH", "l", "a", "b", "c")
	r := c.do("DEBUG", "OBJECT", "l")
	for _, want := range []string{" refcount:1 encoding:quicklist serializedlength:19 ", " ql_nodes:1 ql_avg_node:3.00 ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:16\r\n"} {
		if !strings.Contains(r, want) {
			t.Errorf("DEBUG OBJECT l: %q lacks %q", r, want)
		}
	}
	c.do("SET", "n", "100")
	if r := c.do("DEBUG", "OBJECT", "n"); !strings.Contains(r, " refcount:2147483647 encoding:int ") {
		t.Errorf("DEBUG OBJECT of a shared integer: %q", r)
	}
	c.do("SET", "e", "v", "PX", "10")
	env.clock.Advance(time.Second)
	if r := c.do("DEBUG", "OBJECT", "e"); !strings.HasPrefix(r, "+Value at:") || env.eng.DB(0).Size() != 3 {
		t.Errorf("DEBUG OBJECT of an expired key: %q, DBSIZE %d", r, env.eng.DB(0).Size())
	}
}

func TestDebugSettings(t *testing.T) {
	env := debugEnv(t, "yes")
	c := env.client()
	c.expect("+OK\r\n", "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5b")
	c.do("RPUSH", "l", "a", "bb", "ccccc")
	if r := c.do("DEBUG", "OBJECT", "l"); !strings.Contains(r, " ql_nodes:2 ") {
		t.Errorf("threshold 5: %q", r)
	}
	c.expect("+OK\r\n", "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0")
	if r := c.do("DEBUG", "OBJECT", "l"); !strings.Contains(r, " ql_nodes:1 ") {
		t.Errorf("threshold restored: %q", r)
	}
	c.expect("-"+errDebugThreshold+"\r\n", "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "4gb")

	id := func() string {
		r := c.do("INFO", "replication")
		_, after, _ := strings.Cut(r, "master_replid:")
		return after[:40]
	}
	old := id()
	c.expect("+OK\r\n", "DEBUG", "CHANGE-REPL-ID")
	if id() == old {
		t.Error("CHANGE-REPL-ID kept the replication ID")
	}

	c.do("SET", "x", "v", "PX", "10")
	env.clock.Advance(time.Second)
	c.expect("+OK\r\n", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	if n := env.eng.ActiveExpireCycle(time.Second); n != 0 {
		t.Errorf("the active cycle reclaimed %d keys while off", n)
	}
	c.expect("+OK\r\n", "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	if n := env.eng.ActiveExpireCycle(time.Second); n != 1 {
		t.Errorf("the active cycle reclaimed %d keys once on again", n)
	}
}

func TestDebugMisc(t *testing.T) {
	env := debugEnv(t, "yes")
	c := env.client()
	c.expect("+Apparently Redis did not crash: test passed\r\n", "DEBUG", "STRINGMATCH-TEST")
	c.expect("+OK\r\n", "DEBUG", "SLEEP", "0.001")
	c.expect("-a b\r\n", "DEBUG", "ERROR", "a\nb")
	c.expect("+OK\r\n", "DEBUG", "POPULATE", "2", "p", "3")
	c.expect("$3\r\nval\r\n", "GET", "p:0")
	c.expect("-ERR value is out of range, must be positive\r\n", "DEBUG", "POPULATE", "x")
	c.expect("-ERR unknown subcommand or wrong number of arguments for 'object'. Try DEBUG HELP.\r\n", "debug", "object")
	c.expect("-ERR unknown subcommand or wrong number of arguments for 'segfault'. Try DEBUG HELP.\r\n", "DEBUG", "segfault")
	c.expect("-"+errDebugPushRESP2+"\r\n", "DEBUG", "PROTOCOL", "push")
	c.do("HELLO", "3")
	c.expect(">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n$40\r\nSome real reply following the push reply\r\n", "DEBUG", "PROTOCOL", "push")
	c.expect("|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$39\r\nSome real reply following the attribute\r\n", "DEBUG", "PROTOCOL", "attrib")
	r := c.do("DEBUG", "HELP")
	if !strings.HasPrefix(r, "*"+itoa(len(debugHelp)+3)+"\r\n+DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+AOF-FLUSH-SLEEP <microsec>\r\n") {
		t.Errorf("DEBUG HELP: %q", r)
	}
}

// TestDebugReloadWithoutDump: NOSAVE with no dump on disk fails after the
// flush, as Redis's rdbLoad of a missing file.
func TestDebugReloadWithoutDump(t *testing.T) {
	env := debugEnv(t, "yes")
	c := env.client()
	c.do("SET", "k", "v")
	c.expect("-ERR Error trying to load the RDB dump\r\n", "DEBUG", "RELOAD", "NOSAVE")
	c.expect(":0\r\n", "DBSIZE")
	c.do("SET", "k", "v")
	c.expect("+OK\r\n", "DEBUG", "RELOAD")
	c.expect("$1\r\nv\r\n", "GET", "k")
}
