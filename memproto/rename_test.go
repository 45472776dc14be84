package memproto

import (
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

func TestRenameCommand(t *testing.T) {
	env := newTestEnv(t, "--memcached-rename-command", "flush_all", "wipe_all_9f2c",
		"--memcached-rename-command", "lru_crawler", "",
		"--memcached-rename-command", "get", "fetch",
		"--memcached-rename-command", "fetch", "get2", // renamed again under its new name
		"--memcached-rename-command", "version", "get") // a freed name is taken
	c := env.client()
	c.expect("set a 0 0 1\r\nx\r\n", "STORED\r\n")
	c.expect("flush_all\r\n", "ERROR\r\n")
	c.expect("lru_crawler metadump all\r\n", "ERROR\r\n")
	c.expect("fetch a\r\n", "ERROR\r\n")
	c.expect("get2 a\r\n", "VALUE a 0 1\r\nx\r\nEND\r\n")
	c.expect("get\r\n", "VERSION 1.6.18-tandem-test\r\n")
	c.expect("FLUSH_ALL\r\n", "ERROR\r\n") // case-sensitive, as memcached
	c.expect("wipe_all_9f2c noreply\r\n", "")
	c.expect("get2 a\r\n", "END\r\n")
	// Another front-end of the same process keeps memcached's names.
	plain := newTestEnv(t).client()
	plain.expect("flush_all\r\n", "OK\r\n")
}

func TestRenameCommandRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--memcached-rename-command", "nosuch", "x2"}, conf.ReasonRenameNoSuchCommand},
		{[]string{"--memcached-rename-command", "FLUSH_ALL", "x2"}, conf.ReasonRenameNoSuchCommand},
		{[]string{"--memcached-rename-command", "flush_all", "get"}, conf.ReasonRenameTargetExists},
		{[]string{"--memcached-rename-command", "flush_all", "x"}, reasonRenameBadName},
		{[]string{"--memcached-rename-command", "flush_all", "a b"}, reasonRenameBadName},
		{[]string{"--memcached-rename-command", "get", "", "--memcached-rename-command", "get", "g2"}, conf.ReasonRenameNoSuchCommand},
	} {
		cfg, err := conf.Load(tt.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckRenames(cfg)
		if err == nil || !strings.HasSuffix(err.Error(), "\n"+tt.want) || !strings.Contains(err.Error(), "--memcached-rename-command") {
			t.Errorf("%q: CheckRenames = %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestFlushAllDisabled is memcached -F, as memcached 1.6.18 answers (see
// internal/compat's memcached -F case): refused, counted in cmd_flush,
// silent with noreply; a bad line is still ERROR.
func TestFlushAllDisabled(t *testing.T) {
	env := newTestEnv(t, "--memcached-disable-flush-all", "yes")
	c := env.client()
	c.expect("set a 0 0 1\r\nx\r\n", "STORED\r\n")
	for _, line := range []string{"flush_all", "flush_all 0", "flush_all bad", "flush_all 1 2"} {
		c.expect(line+"\r\n", errFlushDisabled+"\r\n")
	}
	c.expect("flush_all noreply\r\nflush_all 10 noreply\r\n", "")
	c.expect("flush_all 1 2 3\r\n", "ERROR\r\n")
	c.expect("get a\r\n", "VALUE a 0 1\r\nx\r\nEND\r\n")
	out := c.send("stats\r\n")
	if !strings.Contains(out, "STAT cmd_flush 6\r\n") {
		t.Errorf("stats: no cmd_flush 6 in\n%s", out)
	}
	if out := c.send("stats settings\r\n"); !strings.Contains(out, "STAT flush_enabled no\r\n") {
		t.Errorf("stats settings: no flush_enabled no in\n%s", out)
	}
}

// TestFlushAllTouchesDatabaseZero is the claim of the README and doc.go:
// flush_all empties database 0, Redis types included, and nothing else.
func TestFlushAllTouchesDatabaseZero(t *testing.T) {
	env := newTestEnv(t)
	db0, db1 := env.eng.DB(0), env.eng.DB(1)
	for _, db := range []engine.DB{db0, db1} {
		if _, err := db.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v")}, engine.HashLimits{}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.LPushEnd([]byte("l"), engine.ListRight, [][]byte{[]byte("x")}, false); err != nil {
			t.Fatal(err)
		}
	}
	c := env.client()
	c.expect("set s 0 0 1\r\nx\r\n", "STORED\r\n")
	c.expect("flush_all\r\n", "OK\r\n")
	if n := db0.Exists([]byte("h"), []byte("l"), []byte("s")); n != 0 {
		t.Errorf("database 0 holds %d of h, l, s after flush_all", n)
	}
	if n := db1.Exists([]byte("h"), []byte("l")); n != 2 {
		t.Errorf("database 1 holds %d of h, l after flush_all, want 2", n)
	}
	// A delayed flush_all makes the Redis types of database 0 expire too.
	if _, err := db0.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v")}, engine.HashLimits{}); err != nil {
		t.Fatal(err)
	}
	c.expect("flush_all 10\r\n", "OK\r\n")
	env.clock.Advance(11 * time.Second)
	if n := db0.Exists([]byte("h")); n != 0 {
		t.Errorf("database 0 holds h 11s after flush_all 10")
	}
	if n := db1.Exists([]byte("h"), []byte("l")); n != 2 {
		t.Errorf("database 1 holds %d keys after flush_all 10, want 2", n)
	}
}
