package compat

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

// Configuration: CONFIG GET * names the directives redis-server 7.0 names,
// with its values; CONFIG SET of the directives Tandem accepts with no
// effect is checked and answered as redis-server does; a stock redis.conf
// starts the binary.

// configOwn are Tandem's own directives: CONFIG GET * of redis-server has
// none of them.
var configOwn = map[string]bool{
	"memcached-port": true, "memcached-tls-port": true, "item-size-max": true, "memcached-max-line": true,
	"memcached-max-pending-output": true, "memcached-enable-shutdown": true, "memcached-disable-flush-all": true, "memcached-disable-watch": true, "memcached-watcher-logbuf-size": true, "memcached-binding-protocol": true,
	"start-empty-on-bad-dump": true, "compression": true, "compression-min-size": true,
	"compression-min-saving": true,
	"metrics-port":           true, "metrics-bind": true, "metrics-password": true, "log-format": true,
	"set-max-listpack-entries": true, "set-max-listpack-value": true, // redis 7.2's
}

// configDiffers are the directives whose values legitimately differ
// between the two servers of the suite: each listens on its own port and
// keeps its files in its own directory (TestMain). Every other value,
// Tandem's deliberately different defaults included, is set by TestMain
// as redis-server runs, so it must match.
var configDiffers = map[string]bool{"port": true, "dir": true}

// TestRedisConfigGetAll compares CONFIG GET * in both protocols: the same
// names (and aliases) but Tandem's own, and the same values but those
// configDiffers lists.
func TestRedisConfigGetAll(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			ref, sut := configAll(t, refRedis, proto), configAll(t, sutRedis, proto)
			if len(ref) < 190 {
				t.Fatalf("redis-server lists %d directives; is it 7.0?", len(ref))
			}
			var missing, extra []string
			for name, want := range ref {
				got, ok := sut[name]
				switch {
				case !ok:
					missing = append(missing, name)
				case got != want && !configDiffers[name]:
					t.Errorf("CONFIG GET *: %s is %q in redis, %q in %s", name, want, got, sideName())
				}
			}
			for name := range sut {
				if _, ok := ref[name]; !ok && !configOwn[name] {
					extra = append(extra, name)
				}
			}
			sort.Strings(missing)
			sort.Strings(extra)
			if len(missing) > 0 {
				t.Errorf("CONFIG GET *: %d directives of redis-server missing: %s", len(missing), strings.Join(missing, " "))
			}
			if len(extra) > 0 {
				t.Errorf("CONFIG GET *: %s has directives redis-server does not, and not listed as its own: %s", sideName(), strings.Join(extra, " "))
			}
		})
	}
}

// configAll is CONFIG GET * of addr as a map.
func configAll(t *testing.T, addr string, proto int) map[string]string {
	t.Helper()
	c := dialRESP(t, addr)
	if proto == 3 {
		if r := c.do("HELLO", "3"); r.isError() {
			t.Fatalf("%s: HELLO 3: %s", addr, r.text)
		}
	}
	r := c.do("CONFIG", "GET", "*")
	if want := map[int]byte{2: '*', 3: '%'}[proto]; r.kind != want || len(r.elems)%2 != 0 {
		t.Fatalf("%s: CONFIG GET * in RESP%d: %q", addr, proto, r.raw)
	}
	m := map[string]string{}
	for i := 0; i < len(r.elems); i += 2 {
		m[r.elems[i].text] = r.elems[i+1].text
	}
	return m
}

func TestRedisConfigInert(t *testing.T) { runRedisCases(t, configCases) }

// configCases set, read and restore directives Tandem accepts with no
// effect (or refuses some values of); every case ends with the defaults.
var configCases = []redisCase{
	{name: "bool", cmds: mbs("CONFIG SET activerehashing no", "CONFIG GET activerehashing", "CONFIG SET activerehashing maybe",
		"CONFIG SET activerehashing YES", "CONFIG GET activerehashing")},
	{name: "enum", cmds: mbs("CONFIG SET appendfsync always", "CONFIG GET appendfsync", "CONFIG SET appendfsync sometimes",
		"CONFIG SET appendfsync EVERYSEC", "CONFIG GET appendfsync")},
	{name: "enum names sharing a value", cmds: mbs("CONFIG SET oom-score-adj relative", "CONFIG GET oom-score-adj",
		"CONFIG SET oom-score-adj absolute", "CONFIG GET oom-score-adj", "CONFIG SET oom-score-adj no")},
	{name: "memory", cmds: mbs("CONFIG SET repl-backlog-size 10mb", "CONFIG GET repl-backlog-size", "CONFIG SET repl-backlog-size 0",
		"CONFIG SET repl-backlog-size 1x", "CONFIG SET repl-backlog-size 1mb", "CONFIG GET repl-backlog-size")},
	{name: "memory or percent", cmds: mbs("CONFIG SET maxmemory-clients 10%", "CONFIG GET maxmemory-clients",
		"CONFIG SET maxmemory-clients 101%", "CONFIG SET maxmemory-clients x", "CONFIG SET maxmemory-clients 1gb",
		"CONFIG GET maxmemory-clients", "CONFIG SET maxmemory-clients 0")},
	{name: "integer bounds", cmds: mbs("CONFIG SET repl-timeout 0", "CONFIG SET replica-announce-port 65536",
		"CONFIG SET active-defrag-cycle-max 100", "CONFIG SET tracking-table-max-keys -1", "CONFIG SET cluster-node-timeout x",
		"CONFIG SET stream-node-max-entries 50", "CONFIG GET stream-node-max-entries", "CONFIG SET stream-node-max-entries 100")},
	{name: "aliases", cmds: mbs("CONFIG SET slave-priority 7", "CONFIG GET replica-priority", "CONFIG GET slave-priority",
		"CONFIG SET replica-priority 100", "CONFIG SET slave-read-only maybe")},
	{name: "bit flags", cmds: cmds(configSet("shutdown-on-sigterm", "now save"), mbs("CONFIG GET shutdown-on-sigterm"),
		configSet("shutdown-on-sigterm", "save nosave"), configSet("shutdown-on-sigterm", "bogus"), configSet("shutdown-on-sigterm", ""),
		configSet("shutdown-on-sigterm", "save  now"), mbs("CONFIG SET shutdown-on-sigterm default", "CONFIG GET shutdown-on-sigterm"))},
	{name: "special values", cmds: cmds(configSet("oom-score-adj-values", "1 2"), configSet("oom-score-adj-values", "0 200 2001"),
		configSet("oom-score-adj-values", "100 50 +10"), mbs("CONFIG GET oom-score-adj-values"), configSet("oom-score-adj-values", "0 200 800"),
		configSet("latency-tracking-info-percentiles", "101"), configSet("latency-tracking-info-percentiles", "x"),
		configSet("latency-tracking-info-percentiles", "1e1 99.990"), mbs("CONFIG GET latency-tracking-info-percentiles"),
		configSet("latency-tracking-info-percentiles", ""), mbs("CONFIG GET latency-tracking-info-percentiles"),
		configSet("latency-tracking-info-percentiles", "50 99 99.9"))},
	{name: "strings checked", cmds: cmds(mbs("CONFIG SET proc-title-template {nope}", "CONFIG SET proc-title-template {title",
		"CONFIG SET proc-title-template {title}"), configSet("proc-title-template", "{title} {port}"),
		mbs("CONFIG GET proc-title-template"), configSet("proc-title-template", "{title} {listen-addr} {server-mode}"),
		mbs("CONFIG SET cluster-announce-hostname bad_name", "CONFIG SET cluster-announce-hostname ok.example",
			"CONFIG GET cluster-announce-hostname"), configSet("cluster-announce-hostname", ""))},
	{name: "immutable", cmds: cmds(mbs("CONFIG SET daemonize yes", "CONFIG SET supervised systemd", "CONFIG SET appendfilename x",
		"CONFIG SET unixsocket /tmp/s", "CONFIG SET unixsocketperm 700", "CONFIG SET cluster-enabled yes", "CONFIG SET aclfile x",
		"CONFIG SET syslog-enabled yes", "CONFIG SET io-threads-do-reads yes"), configSet("replicaof", "no one"), configSet("slaveof", "host 1"))},
	{name: "glob over inert names", cmds: mbs("CONFIG GET repl-*", "CONFIG GET *aof*", "CONFIG GET cluster-*", "CONFIG GET *cpulist"),
		loose: at(0, unorderedPairs, 1, unorderedPairs, 2, unorderedPairs, 3, unorderedPairs)},
	{name: "first error wins", cmds: mbs("CONFIG SET appendfsync always repl-timeout 0", "CONFIG GET appendfsync",
		"CONFIG SET repl-timeout 5 nosuch 1", "CONFIG GET repl-timeout")},
	// hll-sparse-max-bytes is implemented: a smaller bound turns the HLL
	// dense sooner, byte for byte as Redis.
	{name: "hll-sparse-max-bytes", cmds: cmds(mbs("CONFIG SET hll-sparse-max-bytes 30", "PFADD h a b c d e f g h i j k l m n o p",
		"OBJECT ENCODING h", "STRLEN h", "GETRANGE h 0 15", "CONFIG SET hll-sparse-max-bytes 3000", "PFADD s a b c d e f g h i j k l m n o p",
		"STRLEN s", "GET s", "CONFIG GET hll-sparse-max-bytes"))},
}

// configSet is CONFIG SET name value, for values with spaces or empty.
func configSet(name, value string) string { return cmd("CONFIG", "SET", name, value) }

// TestStockRedisConfStarts starts the binary with the redis.conf Debian's
// redis-server package installs (daemonize yes, a pidfile under
// /run/redis, a log file under /var/log/redis, bind 127.0.0.1 -::1).
// Only what a test may not use is overridden on the command line: the
// port (6379 may be taken), dir, logfile and pidfile (temporary paths).
// It must serve, write the pidfile, log why daemonize has no effect, and
// remove the pidfile when it stops. In self-test mode the binary is
// redis-server, told --daemonize no so that it stays a child.
func TestStockRedisConfStarts(t *testing.T) {
	const stock = "/etc/redis/redis.conf"
	if _, err := os.Stat(stock); err != nil {
		t.Fatalf("%v: apt-get install redis-server (scripts/test.sh does); this test fails, it never skips", err)
	}
	dir := t.TempDir()
	logFile, pidFile := filepath.Join(dir, "tandem.log"), filepath.Join(dir, "tandem.pid")
	bin, nports := tandemBin, 2
	if selfTest {
		b, err := realserver.Lookup(realserver.Redis)
		if err != nil {
			t.Fatal(err)
		}
		bin, nports = b, 1
	}
	s, err := startServer(dir, "stock-conf", nports, func(p []int) []string {
		args := []string{bin, stock, "--port", strconv.Itoa(p[0]), "--dir", dir, "--logfile", logFile, "--pidfile", pidFile}
		if selfTest {
			return append(args, "--daemonize", "no")
		}
		return append(args, "--memcached-port", strconv.Itoa(p[1]))
	})
	if s != nil {
		defer s.stop()
	}
	if err != nil {
		t.Fatal(err)
	}
	c := dialRESP(t, s.addrs[0])
	if r := c.do("PING"); string(r.raw) != "+PONG\r\n" {
		t.Errorf("PING: %q", r.raw)
	}
	for name, want := range map[string]string{"bind": "127.0.0.1 -::1", "daemonize": map[bool]string{true: "no", false: "yes"}[selfTest],
		"pidfile": pidFile, "logfile": logFile, "databases": "16", "appendonly": "no"} {
		if r := c.do("CONFIG", "GET", name); len(r.elems) != 2 || r.elems[1].text != want {
			t.Errorf("CONFIG GET %s: %q, want %q", name, r.raw, want)
		}
	}
	if b, err := os.ReadFile(pidFile); err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(s.cmd.Process.Pid) {
		t.Errorf("pidfile %s: %q, %v; want %d", pidFile, b, err, s.cmd.Process.Pid)
	}
	if !selfTest {
		if b, _ := os.ReadFile(logFile); !strings.Contains(string(b), "'daemonize' (line ") || !strings.Contains(string(b), "has no effect in Tandem") {
			t.Errorf("the log does not say why daemonize yes has no effect:\n%s", b)
		}
		memc, err := net.DialTimeout("tcp", s.addrs[1], time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer memc.Close()
		memc.SetDeadline(time.Now().Add(timeoutFor(s.addrs[1])))
		fmt.Fprint(memc, "version\r\n")
		if line, err := bufio.NewReader(memc).ReadString('\n'); err != nil || !strings.HasPrefix(line, "VERSION ") {
			t.Errorf("memcached port: %q, %v", line, err)
		}
	}
	s.stop()
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("pidfile left after SIGTERM: %v", err)
	}
}
