package resp

import (
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/services"
)

func newRenamedEnv(t *testing.T, args ...string) *testEnv {
	t.Helper()
	cfg, err := conf.Load(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckRenames(cfg); err != nil {
		t.Fatal(err)
	}
	clock := engine.NewManualClock(1_700_000_000_000)
	eng := engine.New(engine.Options{Clock: clock, ShardBits: 4})
	fe := New(Options{Services: services.New(services.Options{Engine: eng, Config: cfg}), Facts: ServerFacts{TCPPort: 6379, StartTime: time.Now(), ClientsCounter: func() int { return 1 }}})
	return &testEnv{t: t, fe: fe, eng: eng, cfg: cfg, clock: clock}
}

// TestRenameCommand checks redis 7.0's rename-command, as observed on
// redis-server (internal/compat's TestRenameCommandDifferential compares
// the bytes).
func TestRenameCommand(t *testing.T) {
	all := len(newTestEnv(t).fe.table.All())
	env := newRenamedEnv(t, "--rename-command", "flushall", "myflush", "--rename-command", "config", "",
		"--rename-command", "get", "a", "--rename-command", "A", "Get2", // renamed again, any case
		"--rename-command", "set", "get") // a freed name is taken
	c := env.client()
	c.expect("-ERR unknown command 'flushall', with args beginning with: \r\n", "flushall")
	c.expect("-ERR unknown command 'config', with args beginning with: 'get' 'port' \r\n", "config", "get", "port")
	c.expect("+OK\r\n", "get", "k", "v") // SET under its new name
	c.expect("$1\r\nv\r\n", "GET2", "k")
	c.expect("-ERR unknown command 'a', with args beginning with: 'k' \r\n", "a", "k")
	c.expect("+OK\r\n", "myflush")
	c.expect("$-1\r\n", "get2", "k")
	// COMMAND describes a renamed command under its own name and counts
	// what is still served.
	if got := c.do("command", "count"); got != ":"+itoa(all-1)+"\r\n" {
		t.Errorf("COMMAND COUNT = %q, want %d", got, all-1)
	}
	if got := c.do("command", "info", "myflush"); !strings.HasPrefix(got, "*1\r\n*10\r\n$8\r\nflushall\r\n") {
		t.Errorf("COMMAND INFO myflush = %.40q", got)
	}
	c.expect("*2\r\n$-1\r\n$-1\r\n", "command", "info", "flushall", "config")
	if got := c.do("command", "list"); strings.Contains(got, "\r\nconfig\r\n") || !strings.Contains(got, "\r\nflushall\r\n") {
		t.Errorf("COMMAND LIST: config listed or flushall missing")
	}
	// Scripts reach commands by their new names only.
	c.expect("$1\r\nv\r\n", "eval", "redis.call('get', KEYS[1], 'v'); return redis.call('get2', KEYS[1])", "1", "k")
	if got := c.do("eval", "return redis.call('flushall')", "0"); !strings.HasPrefix(got, "-ERR Unknown Redis command called from script") {
		t.Errorf("script flushall = %q", got)
	}
}

func TestRenameCommandRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--rename-command", "nosuch", "x"}, conf.ReasonRenameNoSuchCommand},
		{[]string{"--rename-command", "get", "set"}, conf.ReasonRenameTargetExists},
		{[]string{"--rename-command", "get", "a", "--rename-command", "get", "b"}, conf.ReasonRenameNoSuchCommand},
		{[]string{"--rename-command", "get", "", "--rename-command", "get", ""}, conf.ReasonRenameNoSuchCommand},
	} {
		cfg, err := conf.Load(tt.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckRenames(cfg); err == nil || !strings.HasSuffix(err.Error(), "\n"+tt.want) {
			t.Errorf("%q: CheckRenames = %v, want %q", tt.args, err, tt.want)
		}
	}
}
