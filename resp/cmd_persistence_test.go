package resp

import (
	"os"
	"runtime"
	"time"

	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/services"
)

// persistEnv is a test env whose dumps go to a temporary directory, with
// DEBUG and protected configs (dir) enabled.
func persistEnv(t *testing.T) (*testEnv, string) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := conf.Load([]string{"--dir", dir, "--enable-debug-command", "yes", "--enable-protected-configs", "yes"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := engine.NewManualClock(time.Now().UnixMilli())
	eng := engine.New(engine.Options{Clock: clock, ShardBits: 4})
	fe := New(Options{Services: services.New(services.Options{Engine: eng, Config: cfg}), Facts: ServerFacts{TCPPort: 6379, StartTime: time.Now(), ClientsCounter: func() int { return 1 }}})
	return &testEnv{t: t, fe: fe, eng: eng, cfg: cfg, clock: clock}, dir
}

func infoField(t *testing.T, c *testClient, name string) string {
	t.Helper()
	out := c.do("INFO", "persistence")
	for _, line := range strings.Split(out, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO persistence has no %s: %q", name, out)
	return ""
}

func TestSaveAndInfo(t *testing.T) {
	env, dir := persistEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "SET", "k", "v")
	if infoField(t, c, "rdb_changes_since_last_save") == "0" {
		t.Error("a write did not count as a change")
	}
	c.expect("+OK\r\n", "SAVE")
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
	if got := infoField(t, c, "rdb_changes_since_last_save"); got != "0" {
		t.Errorf("rdb_changes_since_last_save after SAVE = %s", got)
	}
	if got := infoField(t, c, "rdb_saves"); got != "1" {
		t.Errorf("rdb_saves = %s", got)
	}
	c.expect("-ERR wrong number of arguments for 'save' command\r\n", "SAVE", "x")
	c.expect("-ERR syntax error\r\n", "BGSAVE", "x")
	c.expect("+Background saving started\r\n", "BGSAVE")
	env.fe.persist.Wait()
	if got := infoField(t, c, "rdb_last_bgsave_status"); got != "ok" {
		t.Errorf("rdb_last_bgsave_status = %s", got)
	}
	c.expect("+OK\r\n", "MULTI")
	c.expect("-ERR Command not allowed inside a transaction\r\n", "SAVE")
	c.expect("-EXECABORT Transaction discarded because of previous errors.\r\n", "EXEC")
}

func TestDebugReloadKeepsEverything(t *testing.T) {
	env, _ := persistEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "SET", "k", "v")
	c.expect(":3\r\n", "RPUSH", "l", "a", "b", "c")
	c.expect(":1\r\n", "HSET", "h", "f", "v")
	c.expect(":1\r\n", "EXPIRE", "h", "100")
	c.expect("$3\r\nlib\r\n", "FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 7 end)")
	c.expect("+OK\r\n", "DEBUG", "RELOAD")
	c.expect("$1\r\nv\r\n", "GET", "k")
	c.expect("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", "LRANGE", "l", "0", "-1")
	c.expect(":100\r\n", "TTL", "h")
	c.expect(":7\r\n", "FCALL", "f", "0")
	c.expect("-ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.\r\n", "DEBUG", "RELOAD", "x")
	// enable-debug-command is no by default.
	if got := newTestEnv(t).client().do("DEBUG", "RELOAD"); !strings.HasPrefix(got, "-ERR DEBUG command not allowed.") {
		t.Errorf("DEBUG with enable-debug-command no: %q", got)
	}
}

func TestFailedBGSaveStopsWritesUntilASaveWorks(t *testing.T) {
	env, dir := persistEnv(t)
	c := env.client()
	if err := env.cfg.Set([2]string{"dir", filepath.Join(dir, "missing")}); err != nil {
		t.Fatal(err)
	}
	c.expect("+Background saving started\r\n", "BGSAVE")
	env.fe.persist.Wait()
	if got := infoField(t, c, "rdb_last_bgsave_status"); got != "err" {
		t.Fatalf("rdb_last_bgsave_status = %s after a failed BGSAVE", got)
	}
	c.expect("-"+ErrMisconf+"\r\n", "SET", "k", "v")
	c.expect("$-1\r\n", "GET", "k") // reads still work
	if err := env.cfg.Set([2]string{"dir", dir}); err != nil {
		t.Fatal(err)
	}
	c.expect("+Background saving started\r\n", "BGSAVE")
	env.fe.persist.Wait()
	c.expect("+OK\r\n", "SET", "k", "v")
}

func TestShutdown(t *testing.T) {
	env, dir := persistEnv(t)
	stopped := 0
	env.fe.shutdown = func() { stopped++ }
	c := env.client()
	c.expect("-ERR No shutdown in progress.\r\n", "SHUTDOWN", "ABORT")
	c.expect("-ERR syntax error\r\n", "SHUTDOWN", "SAVE", "NOSAVE")
	c.expect("-ERR syntax error\r\n", "SHUTDOWN", "LATER")
	if err := env.cfg.Set([2]string{"dir", filepath.Join(dir, "missing")}); err != nil {
		t.Fatal(err)
	}
	c.expect("-ERR Errors trying to SHUTDOWN. Check logs.\r\n", "SHUTDOWN", "SAVE")
	if stopped != 0 {
		t.Fatal("SHUTDOWN stopped the server after a failed save")
	}
	if got := c.do("SHUTDOWN", "SAVE", "FORCE"); got != "" || !c.closed || stopped != 1 {
		t.Errorf("SHUTDOWN SAVE FORCE: reply %q closed %v stopped %d", got, c.closed, stopped)
	}
	// A shutdown leaves writes paused until the exit; this process goes
	// on, so the test lifts the pause.
	if !env.fe.eng.Gate().Paused(true) {
		t.Error("writes were not paused by SHUTDOWN")
	}
	env.fe.eng.Gate().UnpauseFor(engine.PauseDuringShutdown)
	env.cfg.Set([2]string{"dir", dir})
	c2 := env.client()
	c2.expect("+OK\r\n", "SET", "k", "v")
	if got := c2.do("SHUTDOWN"); got != "" || stopped != 2 {
		t.Errorf("SHUTDOWN: %q, stopped %d", got, stopped)
	}
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Errorf("SHUTDOWN with save rules did not save: %v", err)
	}
}

// TestShutdownNoSaveDuringBusyScript: while a busy script holds the
// keyspace, SHUTDOWN NOSAVE shuts down at once (nothing can be paused,
// waited for or saved), and a SHUTDOWN that would save is refused, as in
// Redis.
func TestShutdownNoSaveDuringBusyScript(t *testing.T) {
	env := newTestEnv(t)
	if err := env.cfg.Set([2]string{"busy-reply-threshold", "10"}); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{}, 2)
	env.fe.shutdown = func() { stopped <- struct{}{} }
	runner, other, killer := env.client(), env.client(), env.client()
	done := make(chan string)
	go func() { done <- runner.do("EVAL", "while true do end", "0") }()
	for !env.eng.Gate().Busy() {
		runtime.Gosched()
	}
	other.expect("-ERR Errors trying to SHUTDOWN. Check logs.\r\n", "SHUTDOWN", "SAVE")
	reply := make(chan string, 1)
	go func() { reply <- other.do("SHUTDOWN", "NOSAVE") }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("SHUTDOWN NOSAVE did not shut down while a script was busy")
	}
	if got := <-reply; got != "" || !other.closed {
		t.Errorf("SHUTDOWN NOSAVE replied %q, closed %v", got, other.closed)
	}
	killer.expect("+OK\r\n", "SCRIPT", "KILL")
	<-done
}
