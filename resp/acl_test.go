package resp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/services"
)

// newACLEnv is a front-end over a configuration loaded from args.
func newACLEnv(t *testing.T, args ...string) *testEnv {
	t.Helper()
	cfg, err := conf.Load(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := engine.NewManualClock(1_700_000_000_000)
	eng := engine.New(engine.Options{Clock: clock, ShardBits: 4})
	fe := New(Options{Services: services.New(services.Options{Engine: eng, Config: cfg}), Facts: ServerFacts{TCPPort: 6379, StartTime: time.Now(), ClientsCounter: func() int { return 1 }}})
	return &testEnv{t: t, fe: fe, eng: eng, cfg: cfg, clock: clock}
}

// user lines in the configuration reach the store at start (a refused
// one is left out); with an aclfile, ACL SAVE writes ACL LIST's lines and
// ACL LOAD replaces the users by the file's, or changes nothing.
func TestConfigUsersAndACLFile(t *testing.T) {
	dir := t.TempDir()
	confPath := filepath.Join(dir, "tandem.conf")
	aclPath := filepath.Join(dir, "users.acl")
	conf := "user alice on >pw ~app:* +@read\nuser bob on nopass +@all +nosuchcmd\naclfile " + aclPath + "\n"
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(aclPath, []byte("user alice on >pw ~app:* +@read\n\n  user carol  on >c ~* +get\t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := newACLEnv(t, confPath)
	c := env.client()
	c.expect("*3\r\n$5\r\nalice\r\n$5\r\ncarol\r\n$7\r\ndefault\r\n", "ACL", "USERS")
	c.expect("+OK\r\n", "AUTH", "alice", "pw")
	c.expect("$-1\r\n", "GET", "app:1")
	c.expect("-NOPERM this user has no permissions to access one of the keys used as arguments\r\n", "GET", "other")
	c.expect("-NOPERM this user has no permissions to run the 'set' command\r\n", "SET", "app:1", "v")
	c.expect("-NOPERM this user has no permissions to run the 'acl|save' command\r\n", "ACL", "SAVE")

	admin := env.client()
	admin.expect("+OK\r\n", "ACL", "SETUSER", "dave", "on", ">d", "+@all")
	admin.expect("+OK\r\n", "ACL", "SAVE")
	saved, err := os.ReadFile(aclPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), "user dave on #") || !strings.HasPrefix(string(saved), "user alice on #") ||
		!strings.HasSuffix(string(saved), "user default on nopass ~* &* +@all\n") {
		t.Fatalf("saved %q", saved)
	}
	// Redis 7.0's texts: a comment is an error, an unknown command is
	// named, of other errors only a line's first is.
	os.WriteFile(aclPath, []byte("# users\nuser erin on >e +@all\nuser frank bogus %X~a +nosuch\nuser erin\n"), 0o600)
	want := "-ERR " + aclPath + ":1 should start with user keyword followed by the username. " +
		aclPath + ":3: Syntax error. " + aclPath + ":3: Error in applying operation '+nosuch': Unknown command or category name in ACL. " +
		"WARNING: Duplicate user 'erin' found on line 4. WARNING: ACL errors detected, no change to the previously active ACL rules was performed\r\n"
	if got := admin.do("ACL", "LOAD"); got != want {
		t.Fatalf("ACL LOAD of a bad file:\n got %q\nwant %q", got, want)
	}
	admin.expect("*4\r\n$5\r\nalice\r\n$5\r\ncarol\r\n$4\r\ndave\r\n$7\r\ndefault\r\n", "ACL", "USERS")
	os.WriteFile(aclPath, []byte("user erin on >e +@all ~*\n"), 0o600)
	admin.expect("+OK\r\n", "ACL", "LOAD")
	admin.expect("*2\r\n$7\r\ndefault\r\n$4\r\nerin\r\n", "ACL", "USERS")
	// alice was dropped: her connection is closed and runs nothing more.
	if !c.peer.Closed.Load() {
		t.Error("ACL LOAD left open the connection of a user it removed")
	}
	c.expect("", "GET", "app:1")
	e := env.client()
	e.expect("+OK\r\n", "AUTH", "erin", "e")
	e.expect("$4\r\nerin\r\n", "ACL", "WHOAMI")
}

// A failed AUTH and each denial are in ACL LOG, newest first, with Redis
// 7.0's seven fields; ACL LOG RESET empties it.
func TestACLLog(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "ACL", "SETUSER", "u", "on", ">p", "~k*", "+get")
	c.expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n", "AUTH", "u", "bad")
	c.expect("+OK\r\n", "AUTH", "u", "p")
	c.do("GET", "x")
	c.do("GET", "x")
	c.do("SET", "k", "v")
	c.expect("+OK\r\n", "AUTH", "default", "")
	got := c.do("ACL", "LOG")
	for _, want := range []string{
		"*3\r\n*14\r\n$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$7\r\ncommand\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n$3\r\nset\r\n$8\r\nusername\r\n$1\r\nu\r\n$11\r\nage-seconds\r\n",
		"$5\r\ncount\r\n:2\r\n$6\r\nreason\r\n$3\r\nkey\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n$1\r\nx\r\n",
		"$6\r\nreason\r\n$4\r\nauth\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n$4\r\nAUTH\r\n$8\r\nusername\r\n$1\r\nu\r\n",
		" cmd=get user=u ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ACL LOG lacks %q:\n%q", want, got)
		}
	}
	c.expect("+OK\r\n", "ACL", "LOG", "RESET")
	c.expect("*0\r\n", "ACL", "LOG")
}

// Rules that change between MULTI's queueing and EXEC refuse the queued
// command at EXEC with redis 7.0's text.
func TestACLChangedBeforeExec(t *testing.T) {
	env := newTestEnv(t)
	admin, c := env.client(), env.client()
	admin.expect("+OK\r\n", "ACL", "SETUSER", "mx", "on", "nopass", "~*", "+@all")
	c.expect("+OK\r\n", "AUTH", "mx", "x")
	c.expect("+OK\r\n", "MULTI")
	c.expect("+QUEUED\r\n", "GET", "k")
	c.expect("+QUEUED\r\n", "SET", "x:1", "v")
	admin.expect("+OK\r\n", "ACL", "SETUSER", "mx", "-get", "resetkeys", "~k")
	c.expect("*2\r\n-"+errNoPermExec+"no permission to execute the command or subcommand\r\n-"+errNoPermExec+"no permission to touch the specified keys\r\n", "EXEC")
	if e := env.fe.users.LogEntries(1); len(e) != 1 || e[0].Context != "multi" || e[0].Object != "x:1" {
		t.Fatalf("ACL LOG %+v", e)
	}
}
