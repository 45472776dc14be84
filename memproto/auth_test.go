package memproto

import (
	"strings"
	"testing"

	"github.com/tandemkv/tandem/users"
)

const (
	unauth      = "CLIENT_ERROR unauthenticated\r\n"
	authFailure = "CLIENT_ERROR authentication failure\r\n"
	authFormat  = "CLIENT_ERROR bad authentication token format\r\n"
	loginPW     = "set auth 0 0 10\r\ndefault pw\r\n" // logs in as the default user with requirepass pw
)

// Issue 12, item 4: with requirepass set, a memcached client that has not
// logged in reads nothing, writes nothing, flushes nothing and cannot
// shrink maxmemory.
func TestUnauthenticatedClientIsRefused(t *testing.T) {
	env := newTestEnv(t, "--requirepass", "pw", "--maxmemory", "64mb")
	admin := env.client()
	admin.expect(loginPW, "STORED\r\n")
	for _, k := range []string{"a", "b", "c"} {
		admin.expect("set "+k+" 0 0 6\r\nsecret\r\n", "STORED\r\n")
	}
	before := env.cfg.MaxMemory()

	c := env.client()
	if c.s.user.Load() != nil {
		t.Fatal("a new session is bound to a user while requirepass is set")
	}
	c.expect("get a\r\n", unauth)
	c.expect("gets a b c\r\n", unauth)
	c.expect("mg a v\r\n", unauth)
	c.expect("set a 0 0 6\r\nhacked\r\n", authFormat)   // taken as a login, nothing stored
	c.expect("set a 0 0 7\r\nhack ed\r\n", authFailure) // likewise
	c.expect("ms a 6 T0\r\nhacked\r\n", unauth)         // two lines refused, one reply (see below)
	c.expect("delete b\r\n", unauth)
	c.expect("flush_all\r\n", unauth)
	c.expect("cache_memlimit 8\r\n", unauth)
	c.expect("quit\r\n", unauth) // as memcached -Y: quit is refused too, the connection stays
	if c.closed {
		t.Fatal("the connection closed")
	}

	if got := env.cfg.MaxMemory(); got != before {
		t.Fatalf("maxmemory %d, was %d", got, before)
	}
	for _, k := range []string{"a", "b", "c"} {
		admin.expect("get "+k+"\r\n", "VALUE "+k+" 0 6\r\nsecret\r\nEND\r\n")
	}
	if _, ok, _ := env.db.Get([]byte("auth")); ok {
		t.Fatal("the login's set stored its key")
	}
}

func TestLoginBindsDefaultUser(t *testing.T) {
	env := newTestEnv(t, "--requirepass", "pw")
	c := env.client()
	c.expect("set x 0 0 11\r\ndefault bad\r\n", authFailure)
	c.expect("set x 0 0 7\r\nnope pw\r\n", authFailure) // unknown user
	if c.s.user.Load() != nil {
		t.Fatal("bound after a failed login")
	}
	c.expect(loginPW, "STORED\r\n")
	if c.s.user.Load() != env.fe.users.Default() {
		t.Fatalf("bound to %v, want the default user", c.s.user.Load())
	}
	c.expect("set k 0 0 1\r\nv\r\nget k\r\n", "STORED\r\nVALUE k 0 1\r\nv\r\nEND\r\n")
	c.expect("set auth 0 0 10\r\ndefault pw\r\n", "STORED\r\n") // now an ordinary set
	c.expect("get auth\r\n", "VALUE auth 0 10\r\ndefault pw\r\nEND\r\n")
	stats := c.send("stats\r\n")
	for _, want := range []string{"STAT auth_cmds 3\r\n", "STAT auth_errors 2\r\n"} {
		if !strings.Contains(stats, want) {
			t.Errorf("stats lacks %q", want)
		}
	}
}

// Each login request answered alone, fed whole, byte by byte and cut at
// every position, gives the same replies.
func TestLoginSteps(t *testing.T) {
	runSteps(t, []step{
		{in: "get k\r\n", want: unauth},
		{in: "  set k 0 0 +10 noreply\r\ndefault pw\r\n", want: "STORED\r\n"}, // noreply is ignored
		{in: "get k\r\n", want: "END\r\n"},
	}, nil, "--requirepass", "pw")
	runSteps(t, []step{
		{in: "set k 0 0 13\r\ndefault pw xy\r\n", want: "STORED\r\n"}, // tokens after the password are ignored
	}, nil, "--requirepass", "pw")
	runSteps(t, []step{
		{in: "setx k 0 0 10\r\n", want: unauth},
		{in: "SET k 0 0 10\r\n", want: unauth},
		{in: "set k 0 10\r\n", want: unauth},
		{in: "set k 0 0 1x\r\n", want: unauth},
		{in: "set k 0 0 -1\r\n", want: unauth},
		{in: "set k 0 0 10\r\ndefault pwXY", want: "CLIENT_ERROR bad command line termination\r\n"},
		{in: "set k 0 0 8\r\ndefault \r\n", want: authFormat},
		{in: "set k 0 0 10\r\ndefault\x00pw\r\n", want: authFormat}, // a NUL ends the block
		{in: "set k 0 0 0\r\n\r\n", want: authFormat},
		{in: "set k 0 0 12\r\n default  pw\r\n", want: "STORED\r\n"},
	}, nil, "--requirepass", "pw")
}

// memcached -Y builds every reply of the login mode in one response object,
// so a reply it has not yet written is replaced by the next one.
func TestLoginRepliesReplaceUnwritten(t *testing.T) {
	env := newTestEnv(t, "--requirepass", "pw")
	c := env.client()
	c.expect("get a\r\nget b\r\nversion\r\n", unauth)
	c.expect("get a\r\nset x 0 0 11\r\ndefault bad\r\n", authFailure)
	c.expect("get a\r\n"+loginPW+"get a\r\nget b\r\n", "STORED\r\nEND\r\nEND\r\n")

	// Written after 21 requests of one read, then after every 20.
	for n, want := range map[int]int{20: 1, 21: 1, 22: 2, 41: 2, 42: 3, 61: 3, 62: 4} {
		c := env.client()
		if got := strings.Count(c.send(strings.Repeat("get a\r\n", n)), unauth); got != want {
			t.Errorf("%d refused requests in one read: %d replies, want %d", n, got, want)
		}
	}
}

func TestLoginLimits(t *testing.T) {
	env := newTestEnv(t, "--requirepass", "pw")
	c := env.client()
	if out := c.send(strings.Repeat("x", 2048)); out != "" || c.closed {
		t.Fatalf("2048 bytes with no newline: %q closed=%v", out, c.closed)
	}
	if c.send("x"); !c.closed {
		t.Fatal("2049 bytes with no newline: still open")
	}

	c = env.client()
	if out := c.send("\n"); out != "" {
		t.Fatalf("a lone newline is answered at once: %q", out)
	}
	c.expect("\n", unauth) // two bytes buffered: now it is a line

	// A block that fits memcached's 16 KB read buffer is read; one that
	// does not closes the connection once that much has arrived.
	c = env.client()
	c.expect("set k 0 0 16382\r\n"+strings.Repeat("a", 16382)+"\r\n", authFormat)
	for _, block := range []string{strings.Repeat("a", 16384), strings.Repeat("a", 16381) + " b\r\n"} {
		c = env.client()
		if out := c.send("set k 0 0 16383\r\n" + block); out != "" || !c.closed {
			t.Fatalf("16383-byte block: %q closed=%v", out, c.closed)
		}
	}
	c = env.client()
	if out := c.send("set k 0 0 16383\r\n" + strings.Repeat("a", 16383)); out != "" || c.closed {
		t.Fatalf("16383 bytes of a 16385-byte block: %q closed=%v (memcached waits)", out, c.closed)
	}

	// A login followed by an over-long line: memcached closes before it
	// writes STORED.
	c = env.client()
	if out := c.send(loginPW + strings.Repeat("x", 3000)); out != "" || !c.closed {
		t.Fatalf("login then junk: %q closed=%v", out, c.closed)
	}
}

func TestNoRequirePassNoLogin(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	if c.s.user.Load() != env.fe.users.Default() {
		t.Fatal("without requirepass a session is the default user's")
	}
	c.expect("set k 0 0 1\r\nv\r\nget k\r\n", "STORED\r\nVALUE k 0 1\r\nv\r\nEND\r\n")
	if !strings.Contains(c.send("stats settings\r\n"), "STAT auth_enabled_ascii no\r\n") {
		t.Error("stats settings: auth_enabled_ascii is not no")
	}
}

// CONFIG SET requirepass applies to connections made after it; one
// already open keeps its state, as a Redis client does.
func TestRequirePassChangeAppliesToNewSessions(t *testing.T) {
	env := newTestEnv(t)
	old := env.client()
	env.set("requirepass", "pw")
	old.expect("get k\r\n", "END\r\n")
	c := env.client()
	c.expect("get k\r\n", unauth)
	c.expect(loginPW, "STORED\r\n")
	env.set("requirepass", "other")
	c.expect("get k\r\n", "END\r\n")
	d := env.client()
	d.expect(loginPW, authFailure)
	d.expect("set k 0 0 13\r\ndefault other\r\n", "STORED\r\n")
	if d.s.user.Load().Name() != users.DefaultName {
		t.Fatalf("bound to %q", d.s.user.Load().Name())
	}
	env.set("requirepass", "")
	env.client().expect("get k\r\n", "END\r\n")
}
