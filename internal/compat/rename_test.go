package compat

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

// Issue 12: rename-command against redis-server started with the same
// configuration file, and memcached-disable-flush-all against memcached -F.
// Both need servers started differently from TestMain's, so each test
// starts its own pair.

// renameConf is the configuration file both servers read: renames in
// order, a chain (get → g2 → G3), a removal and a freed name reused.
const renameConf = `rename-command flushall myflush
rename-command config ""
rename-command get g2
rename-command g2 G3
rename-command set get
`

// startRenamed starts redis-server and Tandem (a second redis-server in
// self-test mode) with file as their configuration file, plus the flags
// the suite always gives. It returns their RESP addresses.
func startRenamed(t *testing.T, file string) (ref, sut string) {
	t.Helper()
	dir := t.TempDir()
	redisBin, err := realserver.Lookup(realserver.Redis)
	if err != nil {
		t.Fatal(err)
	}
	redisArgs := func(p []int) []string {
		return []string{redisBin, file, "--port", strconv.Itoa(p[0]), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir}
	}
	start := func(name string, nports int, args func([]int) []string) *server {
		s, err := startServer(dir, name, nports, args)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.stop)
		return s
	}
	ref = start("redis-renamed", 1, redisArgs).addrs[0]
	if selfTest {
		return ref, start("redis-renamed-selftest", 1, redisArgs).addrs[0]
	}
	return ref, start("tandem-renamed", 2, func(p []int) []string {
		return []string{tandemBin, file, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
			"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--maxmemory", "0", "--maxmemory-policy", "noeviction"}
	}).addrs[0]
}

func TestRenameCommandDifferential(t *testing.T) {
	file := filepath.Join(t.TempDir(), "renamed.conf")
	if err := os.WriteFile(file, []byte(renameConf), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, sut := startRenamed(t, file)
	rc, sc := dialRESP(t, ref), dialRESP(t, sut)

	// Compared byte for byte.
	for _, args := range [][]string{
		{"flushall"},              // the old name: unknown command
		{"FLUSHALL", "ASYNC"},     // in any case, with its arguments quoted
		{"myflush"},               // the new name
		{"MyFlush", "sync"},       // in any case
		{"config", "get", "port"}, // removed
		{"config", "set", "maxmemory", "1"},
		{"get", "k", "v"}, // SET under the freed name GET
		{"G3", "k"},       // GET renamed twice
		{"g3", "k"},
		{"g2", "k"}, // the middle name is gone
		{"set", "k", "v"},
		{"command", "info", "flushall", "config", "set", "g2"}, // old names: null
		{"command", "getkeys", "g3", "k"},
		{"command", "getkeys", "get", "k", "v"},
		{"command", "getkeys", "flushall"},
		{"eval", "return redis.call('g3', KEYS[1])", "1", "k"},
		{"eval", "return redis.call('get', KEYS[1])", "1", "k"},
		{"eval", "return redis.call('flushall')", "0"},
		{"eval", "return redis.pcall('config', 'get', 'port')", "0"},
		{"multi"},
		{"flushall"}, // refused inside MULTI: the transaction is discarded
		{"g3", "k"},
		{"exec"},
		{"myflush"},
		{"g3", "k"},
	} {
		r, s := rc.do(args...), sc.do(args...)
		if string(r.raw) != string(s.raw) {
			t.Errorf("%q:\n  redis:  %q\n  %s: %q", args, r.raw, sideName(), s.raw)
		}
	}

	// COMMAND describes a renamed command under its original name.
	for _, q := range [][]string{{"command", "info", "myflush"}, {"command", "info", "G3"}, {"command", "info", "get"}} {
		r, s := rc.do(q...), sc.do(q...)
		if len(r.elems) != 1 || len(s.elems) != 1 || len(r.elems[0].elems) == 0 || len(s.elems[0].elems) == 0 {
			t.Errorf("%q: redis %q, %s %q", q, r.raw, sideName(), s.raw)
			continue
		}
		if rn, sn := r.elems[0].elems[0].text, s.elems[0].elems[0].text; rn != sn {
			t.Errorf("%q: name %q, %s %q", q, rn, sideName(), sn)
		}
	}
	r, s := rc.do("command", "docs", "myflush"), sc.do("command", "docs", "myflush")
	if len(r.elems) == 0 || len(s.elems) == 0 || r.elems[0].text != s.elems[0].text {
		t.Errorf("COMMAND DOCS myflush: redis %.60q, %s %.60q", r.raw, sideName(), s.raw)
	}
	// COMMAND LIST lists original names; a removed command is not listed.
	listed := func(c *respClient) map[string]bool {
		m := map[string]bool{}
		for _, e := range c.do("command", "list").elems {
			m[e.text] = true
		}
		return m
	}
	rl, sl := listed(rc), listed(sc)
	for _, name := range []string{"flushall", "config", "myflush", "get", "g3", "set"} {
		if rl[name] != sl[name] {
			t.Errorf("COMMAND LIST has %s: redis %v, %s %v", name, rl[name], sideName(), sl[name])
		}
	}
	// COMMAND COUNT: one fewer than an unrenamed server (CONFIG removed).
	count := func(c *respClient) int64 {
		n, _ := strconv.ParseInt(c.do("command", "count").text, 10, 64)
		return n
	}
	if r, s := count(dialRESP(t, refRedis))-count(rc), count(dialRESP(t, sutRedis))-count(sc); r != 1 || s != 1 {
		t.Errorf("COMMAND COUNT drops by %d on redis, %d on %s; want 1", r, s, sideName())
	}
}

// TestRenameCommandStartupErrors: a rename the server refuses stops it at
// start-up with redis's reason, at the same line.
func TestRenameCommandStartupErrors(t *testing.T) {
	redisBin, err := realserver.Lookup(realserver.Redis)
	if err != nil {
		t.Fatal(err)
	}
	bin := tandemBin
	if selfTest {
		bin = redisBin
	}
	for name, content := range map[string]string{
		"no_such_command": "rename-command nosuch x\n",
		"target_exists":   "rename-command get set\n",
		"renamed_twice":   "rename-command get a\nrename-command get b\n",
		"removed_twice":   "rename-command get \"\"\nrename-command get \"\"\n",
		"one_argument":    "rename-command get\n",
		"three_arguments": "rename-command get a b\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "bad.conf")
			if err := os.WriteFile(file, []byte("save \"\"\n"+content), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(bin string) string {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				// Port 0 and no memcached port: nothing listens if it starts.
				args := []string{file, "--port", "0", "--dir", dir}
				if bin == tandemBin {
					args = append(args, "--memcached-port", "0")
				}
				out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
				if err == nil || ctx.Err() != nil {
					t.Fatalf("%s started with %q:\n%s", bin, content, out)
				}
				// The offending line and the reason; the headers differ
				// (redis names its version, Tandem the file).
				lines := strings.Split(strings.TrimSpace(string(out)), "\n")
				for i, l := range lines {
					if strings.HasPrefix(l, ">>> ") && i+1 < len(lines) {
						return l + "\n" + lines[i+1]
					}
				}
				return string(out)
			}
			if r, s := run(redisBin), run(bin); r != s {
				t.Errorf("redis:\n%s\n%s:\n%s", r, sideName(), s)
			}
		})
	}
}

// TestMemcachedDisableFlushAllDifferential compares Tandem started with
// memcached-disable-flush-all yes with memcached -F.
func TestMemcachedDisableFlushAllDifferential(t *testing.T) {
	dir := t.TempDir()
	memcBin, err := realserver.Lookup(realserver.Memcached)
	if err != nil {
		t.Fatal(err)
	}
	memc := memcachedArgs(memcBin, "-F")
	start := func(name string, nports int, args func([]int) []string) *server {
		return startFor(t, dir, name, nports, args)
	}
	ref := start("memcached-F", 1, memc).addrs[0]
	var sut string
	if selfTest {
		sut = start("memcached-F-selftest", 1, memc).addrs[0]
	} else {
		sut = start("tandem-F", 2, func(p []int) []string {
			return []string{tandemBin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
				"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--maxmemory", "0", "--maxmemory-policy", "noeviction",
				"--memcached-disable-flush-all", "yes"}
		}).addrs[1]
	}
	rc, sc := dialMemc(t, ref), dialMemc(t, sut)
	for _, step := range []string{
		"set a 0 0 1\r\nx\r\n",
		"flush_all\r\n",
		"flush_all 0\r\n",
		"flush_all noreply\r\n",
		"flush_all 10 noreply\r\n",
		"flush_all bad\r\n",
		"flush_all 1 2\r\n",
		"flush_all 1 2 3\r\n",
		"flush_all -1\r\nflush_all 99999999999\r\n",
		"get a\r\n",
	} {
		if r, s := rc.do(step), sc.do(step); r != s {
			t.Errorf("%q:\n  memcached -F: %q\n  %s: %q", step, r, sideName(), s)
		}
	}
	// Refused flushes are counted; stats settings says flush is disabled.
	stat := func(c *memcClient, cmd, name string) string {
		for _, l := range strings.Split(c.do(cmd), "\r\n") {
			if strings.HasPrefix(l, "STAT "+name+" ") {
				return l
			}
		}
		return "(no " + name + ")"
	}
	for _, q := range [][2]string{{"stats\r\n", "cmd_flush"}, {"stats settings\r\n", "flush_enabled"}} {
		if r, s := stat(rc, q[0], q[1]), stat(sc, q[0], q[1]); r != s {
			t.Errorf("%s: memcached -F %q, %s %q", q[1], r, sideName(), s)
		}
	}
}
