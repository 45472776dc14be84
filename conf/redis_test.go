package conf

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

// The tests in this file compare Tandem with a real redis-server (7.0 is
// the reference). They take under a second and fail when redis-server is
// not installed: CI installs it, and a skipped comparison checks nothing.

// respConn is the smallest RESP2 client that CONFIG GET/SET needs.
type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func (rc *respConn) do(args ...string) (any, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := rc.c.Write([]byte(b.String())); err != nil {
		return nil, err
	}
	return rc.read()
}

// respError is an error reply, kept apart from transport errors.
type respError string

func (rc *respConn) read() (any, error) {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return respError(line[1:]), nil
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io_ReadFull(rc.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		out := make([]any, 0, max(n, 0))
		for i := 0; i < n; i++ {
			v, err := rc.read()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected reply %q", line)
}

func io_ReadFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func redisServer(t *testing.T) string {
	t.Helper()
	return realserver.Path(t, realserver.Redis)
}

// startRedis runs redis-server on a free port and returns a client.
func startRedis(t *testing.T) *respConn {
	bin := redisServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, "log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var conn net.Conn
	for deadline := time.Now().Add(5 * time.Second); ; {
		conn, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { conn.Close() })
	rc := &respConn{c: conn, r: bufio.NewReader(conn)}
	if v, err := rc.do("INFO", "server"); err != nil || !strings.Contains(fmt.Sprint(v), "redis_version:7.0.") {
		t.Logf("reference is not redis 7.0; texts may differ")
	}
	return rc
}

// reply renders a CONFIG SET reply the way Set's result is compared.
func setReply(v any, err error) string {
	if err != nil {
		return "transport: " + err.Error()
	}
	if e, ok := v.(respError); ok {
		return string(e)
	}
	return fmt.Sprint(v)
}

// TestRedisDifferentialConfigSet sends the same CONFIG SET sequence to
// redis-server and to Config.Set and compares every reply and the values
// after it. Deliberate differences (port and bind immutable, appendonly
// yes refused, dir not a chdir, overflowing memory values refused, Tandem's
// own directives) are left out.
func TestRedisDifferentialConfigSet(t *testing.T) {
	rc := startRedis(t)
	// As startRedis runs redis; Tandem's own default policy set to redis's.
	c := mustLoad(t, []string{"--save", "", "--maxmemory-policy", "noeviction"}, nil)
	cases := [][]string{
		{"foo", "bar"}, {"Foo", "1"}, {"", "0"}, {"maxmemory", "1gb", "", "0"}, {"maxmemory", "1xb"}, {"MAXMEMORY", "1xb"},
		{"maxmemory", "1gb", "maxmemory", "2gb"}, {"HZ", "5", "HZ", "6"}, {"maxmemory", "-1"},
		{"maxmemory", ""}, {"maxmemory", "1kb"}, {"maxmemory", "1k"}, {"maxmemory", "1B"},
		{"maxmemory", "017"}, {"maxmemory", "1GB"}, {"maxmemory", "1.5gb"}, {"maxmemory", " 1gb"},
		{"maxmemory", "+5"}, {"maxmemory", "1t"},
		{"maxmemory-policy", "foo"}, {"maxmemory-policy", "ALLKEYS-LRU"}, {"maxmemory-policy", "noeviction"},
		{"hz", "abc"}, {"hz", "1000000"}, {"hz", "0"}, {"hz", "-1"}, {"hz", "10"},
		{"maxclients", "0"}, {"protected-mode", "maybe"}, {"protected-mode", "NO"}, {"protected-mode", "yes"},
		{"save", "abc"}, {"save", "100"}, {"save", "100 -1"}, {"save", "  900   1  "}, {"save", "0 1"},
		{"save", "100 1 abc 2"}, {"save", "900 1 300 10"}, {"save", "+5 1"}, {"save", "5 +1"}, {"save", "100 "},
		{"save", "100 1 100 2"}, {"save", ""},
		{"timeout", "-1"}, {"timeout", "1.5"}, {"timeout", " 5"}, {"timeout", "+5"}, {"timeout", "05"},
		{"timeout", "-0"}, {"timeout", "0"},
		{"client-output-buffer-limit", "foo 1 2 3"}, {"client-output-buffer-limit", "normal 1 2"},
		{"client-output-buffer-limit", "master 1 2 3"}, {"client-output-buffer-limit", "normal 1x 2 3"},
		{"client-output-buffer-limit", "normal 1 2 -3"}, {"client-output-buffer-limit", "normal 1mb 2kb 3 pubsub 1 2 3"},
		{"client-output-buffer-limit", "replica 1 2 3"}, {"client-output-buffer-limit", ""},
		{"client-output-buffer-limit", "NORMAL 5 5 5"}, {"client-output-buffer-limit", "normal 1 2 3  pubsub 1 2 3"},
		{"client-output-buffer-limit", "normal 0 0 0 slave 256mb 64mb 60 pubsub 32mb 8mb 60"},
		{"tcp-keepalive", "-1"}, {"tcp-keepalive", "99999999999"},
		{"loglevel", "foo"}, {"loglevel", "WARNING"}, {"loglevel", "notice"},
		{"daemonize", "yes"}, {"daemonize", "no"}, {"databases", "3"}, {"DATABASES", "3"},
		{"databases", "3", "foo", "1"}, {"foo", "1", "databases", "3"}, {"maxmemory", "1xb", "databases", "3"},
		{"hz", "5", "maxmemory", "1xb"}, {"lua-time-limit", "abc"}, {"lua-time-limit", "10", "busy-reply-threshold", "20"},
		{"lua-time-limit", "5000"},
		{"rdbchecksum", "no"}, {"logfile", "x"}, {"io-threads", "2"}, {"enable-debug-command", "yes"},
		{"enable-protected-configs", "yes"}, {"tcp-backlog", "10"}, {"pidfile", "x"},
		{"dir", "/tmp"}, {"dbfilename", "x.rdb"},
		{"lazyfree-lazy-user-flush", "maybe"}, {"lazyfree-lazy-eviction", "yes"}, {"lazyfree-lazy-eviction", "no"},
		{"proto-max-bulk-len", "100"}, {"proto-max-bulk-len", "1xb"}, {"proto-max-bulk-len", "1gb"},
		{"proto-max-bulk-len", "512mb"}, {"client-query-buffer-limit", "100"},
		{"slowlog-log-slower-than", "-2"}, {"slowlog-log-slower-than", "-1"}, {"slowlog-log-slower-than", "10000"},
		{"slowlog-max-len", "-1"}, {"list-max-listpack-size", "abc"}, {"list-max-ziplist-size", "-3"},
		{"list-max-listpack-size", "-2"}, {"list-compress-depth", "-1"},
		{"hash-max-listpack-entries", "-1"}, {"hash-max-listpack-value", "-1"}, {"hash-max-ziplist-value", "1kb"},
		{"hash-max-listpack-value", "64"}, {"set-max-intset-entries", "1k"}, {"zset-max-ziplist-entries", "64"},
		{"zset-max-listpack-entries", "128"},
		{"notify-keyspace-events", "X"}, {"notify-keyspace-events", "KEA"}, {"notify-keyspace-events", "Kg"},
		{"notify-keyspace-events", "Eg$lshzxetd"}, {"notify-keyspace-events", "Kn"}, {"notify-keyspace-events", "xgK"},
		{"notify-keyspace-events", "tmd"}, {"notify-keyspace-events", "KEAn"}, {"notify-keyspace-events", "KEA m"},
		{"notify-keyspace-events", ""},
		{"lfu-log-factor", "-1"}, {"lfu-decay-time", "-1"}, {"maxmemory-samples", "0"}, {"shutdown-timeout", "-1"},
		{"busy-reply-threshold", "-1"}, {"maxmemory-eviction-tenacity", "101"}, {"active-expire-effort", "0"},
		{"active-expire-effort", "11"}, {"latency-monitor-threshold", "-1"}, {"dynamic-hz", "maybe"},
		{"latency-tracking", "no"}, {"latency-tracking", "yes"}, {"stop-writes-on-bgsave-error", "x"},
		{"rdbcompression", "no"}, {"rdbcompression", "yes"}, {"maxmemory", "0"},
		// Redis 7.0's directives Tandem accepts with no effect, or refuses
		// some values of: checked and shown as redis does.
		{"activedefrag", "maybe"}, {"activedefrag", "yes"}, {"activedefrag", "no"},
		{"active-defrag-cycle-min", "0"}, {"active-defrag-cycle-max", "100"}, {"active-defrag-cycle-max", "50"},
		{"active-defrag-threshold-lower", "1001"}, {"active-defrag-ignore-bytes", "0"}, {"active-defrag-ignore-bytes", "1x"},
		{"active-defrag-ignore-bytes", "200mb"}, {"active-defrag-max-scan-fields", "0"}, {"active-defrag-max-scan-fields", "5"},
		{"activerehashing", "no"}, {"activerehashing", "yes"}, {"always-show-logo", "yes"}, {"set-proc-title", "no"},
		{"proc-title-template", "{title}"}, {"proc-title-template", "{foo}"}, {"proc-title-template", "{title"},
		{"proc-title-template", "{"}, {"proc-title-template", "   "}, {"proc-title-template", "{server-mode} {unixsocket}"},
		{"proc-title-template", "{{"}, {"proc-title-template", "x}"}, {"proc-title-template", "{title} {port}"},
		{"proc-title-template", "{config-file}"}, {"proc-title-template", "{title} {listen-addr} {server-mode}"},
		{"appendfsync", "sometimes"}, {"appendfsync", "ALWAYS"}, {"appendfsync", "everysec"},
		{"appendfilename", "x.aof"}, {"appenddirname", "d"}, {"no-appendfsync-on-rewrite", "yes"},
		{"auto-aof-rewrite-percentage", "-1"}, {"auto-aof-rewrite-percentage", "50"}, {"auto-aof-rewrite-min-size", "1gb"},
		{"auto-aof-rewrite-min-size", "-1"}, {"aof-load-truncated", "no"}, {"aof-use-rdb-preamble", "no"},
		{"aof-timestamp-enabled", "yes"}, {"aof-rewrite-incremental-fsync", "no"}, {"aof-disable-auto-gc", "yes"},
		{"server_cpulist", "0-3"}, {"bio_cpulist", "1"}, {"aof_rewrite_cpulist", "1"}, {"bgsave_cpulist", "1"},
		{"bind-source-addr", "10.0.0.1"}, {"bind-source-addr", ""},
		{"cluster-enabled", "yes"}, {"cluster-config-file", "x"}, {"cluster-port", "1"},
		{"cluster-node-timeout", "-1"}, {"cluster-node-timeout", "5000"}, {"cluster-announce-ip", "10.0.0.1"},
		{"cluster-announce-hostname", "bad_host"}, {"cluster-announce-hostname", strings.Repeat("h", 256)},
		{"cluster-announce-hostname", "ok-host.example"}, {"cluster-announce-hostname", ""},
		{"cluster-announce-port", "65536"}, {"cluster-announce-bus-port", "100"}, {"cluster-announce-tls-port", "-1"},
		{"cluster-preferred-endpoint-type", "dns"}, {"cluster-preferred-endpoint-type", "hostname"},
		{"cluster-require-full-coverage", "no"}, {"cluster-replica-no-failover", "yes"}, {"cluster-slave-no-failover", "no"},
		{"cluster-replica-validity-factor", "3"}, {"cluster-slave-validity-factor", "-1"}, {"cluster-migration-barrier", "2"},
		{"cluster-allow-replica-migration", "no"}, {"cluster-allow-reads-when-down", "yes"},
		{"cluster-allow-pubsubshard-when-down", "no"}, {"cluster-link-sendbuf-limit", "1mb"}, {"cluster-link-sendbuf-limit", "-1"},
		{"crash-log-enabled", "no"}, {"crash-memcheck-enabled", "no"}, {"disable-thp", "no"},
		{"enable-module-command", "yes"}, {"hll-sparse-max-bytes", "-1"}, {"hll-sparse-max-bytes", "1k"},
		{"hll-sparse-max-bytes", "3000"}, {"ignore-warnings", "ARM64-COW-BUG"}, {"io-threads-do-reads", "yes"},
		{"jemalloc-bg-thread", "no"}, {"latency-tracking-info-percentiles", "50 99"},
		{"latency-tracking-info-percentiles", "101"}, {"latency-tracking-info-percentiles", "-1"},
		{"latency-tracking-info-percentiles", "abc"}, {"latency-tracking-info-percentiles", "1e1 0.5 99.99"},
		{"latency-tracking-info-percentiles", " 50"}, {"latency-tracking-info-percentiles", "50 "},
		{"latency-tracking-info-percentiles", ""}, {"latency-tracking-info-percentiles", "0.0000001 100"},
		{"latency-tracking-info-percentiles", "50 99 99.9"},
		{"masterauth", "secret"}, {"masteruser", "u"}, {"masterauth", ""},
		{"maxmemory-clients", "10%"}, {"maxmemory-clients", "101%"}, {"maxmemory-clients", "100%"},
		{"maxmemory-clients", "-5%"}, {"maxmemory-clients", "%"}, {"maxmemory-clients", "1gb"},
		{"maxmemory-clients", "x"}, {"maxmemory-clients", "-1"}, {"maxmemory-clients", "0%"}, {"maxmemory-clients", "0"},
		{"min-replicas-max-lag", "-1"}, {"min-slaves-max-lag", "5"}, {"min-replicas-to-write", "-1"},
		{"min-replicas-to-write", "x"}, {"min-replicas-to-write", "0"},
		{"oom-score-adj", "relative"}, {"oom-score-adj", "absolute"}, {"oom-score-adj", "maybe"}, {"oom-score-adj", "no"},
		{"oom-score-adj-values", "1 2"}, {"oom-score-adj-values", "1 2 3 4"}, {"oom-score-adj-values", "0 200 2001"},
		{"oom-score-adj-values", "-2000 +5  7"}, {"oom-score-adj-values", "a b c"}, {"oom-score-adj-values", "100 50 10"},
		{"oom-score-adj-values", ""}, {"oom-score-adj-values", "0 200 800"},
		{"propagation-error-behavior", "panic"}, {"propagation-error-behavior", "x"}, {"propagation-error-behavior", "ignore"},
		{"rdb-del-sync-files", "yes"}, {"repl-backlog-size", "0"}, {"repl-backlog-size", "10mb"}, {"repl-backlog-ttl", "-1"},
		{"repl-backlog-ttl", "60"}, {"repl-disable-tcp-nodelay", "yes"}, {"repl-diskless-load", "swapdb"},
		{"repl-diskless-load", "always"}, {"repl-diskless-sync", "no"}, {"repl-diskless-sync-delay", "-1"},
		{"repl-diskless-sync-max-replicas", "3"}, {"repl-ping-replica-period", "0"}, {"repl-ping-slave-period", "5"},
		{"repl-timeout", "0"}, {"repl-timeout", "30"},
		{"replica-announce-ip", "1.2.3.4"}, {"slave-announce-ip", ""}, {"replica-announce-port", "70000"},
		{"slave-announce-port", "7000"}, {"replica-announced", "no"}, {"replica-ignore-disk-write-errors", "yes"},
		{"replica-ignore-maxmemory", "no"}, {"slave-ignore-maxmemory", "yes"}, {"replica-lazy-flush", "yes"},
		{"replica-priority", "-1"}, {"slave-priority", "10"}, {"replica-read-only", "no"}, {"slave-read-only", "yes"},
		{"replica-serve-stale-data", "no"}, {"slave-serve-stale-data", "yes"},
		{"replicaof", "no one"}, {"slaveof", "localhost 6379"},
		{"sanitize-dump-payload", "clients"}, {"sanitize-dump-payload", "always"}, {"sanitize-dump-payload", "no"},
		{"shutdown-on-sigint", "save now"}, {"shutdown-on-sigint", "now save"}, {"shutdown-on-sigint", "save nosave"},
		{"shutdown-on-sigint", "default save"}, {"shutdown-on-sigint", "nosave force now"}, {"shutdown-on-sigint", "bogus"},
		{"shutdown-on-sigint", ""}, {"shutdown-on-sigint", "save  now"}, {"shutdown-on-sigint", "DEFAULT"},
		{"shutdown-on-sigterm", "force"}, {"shutdown-on-sigterm", "default"},
		{"socket-mark-id", "1"}, {"stream-node-max-bytes", "1kb"}, {"stream-node-max-bytes", "-1"},
		{"stream-node-max-entries", "-1"}, {"stream-node-max-entries", "50"}, {"supervised", "systemd"},
		{"syslog-enabled", "yes"}, {"syslog-ident", "x"}, {"syslog-facility", "local1"},
		{"tracking-table-max-keys", "-1"}, {"tracking-table-max-keys", "10"}, {"tracking-table-max-keys", "1000000"},
		{"unixsocket", "/tmp/x.sock"}, {"unixsocketperm", "700"}, {"aclfile", "/tmp/users.acl"},
		{"activedefrag", "yes", "hz", "x"},
	}
	for _, args := range cases {
		want := setReply(rc.do(append([]string{"CONFIG", "SET"}, args...)...))
		got := "OK"
		pairs, err := Pairs(args)
		if err == nil {
			err = c.Set(pairs...)
		}
		if err != nil {
			got = err.Error()
		}
		if got != withTandemPolicies(want) {
			t.Errorf("CONFIG SET %q:\n  tandem %s\n  redis  %s", args, got, want)
		}
		for i := 0; i < len(args); i += 2 {
			switch strings.ToLower(args[i]) {
			case "dir", "logfile": // startRedis sets them
			default:
				compareGet(t, rc, c, args[i])
			}
		}
	}
}

// compareGet compares CONFIG GET of one name.
func compareGet(t *testing.T, rc *respConn, c *Config, name string) {
	t.Helper()
	v, err := rc.do("CONFIG", "GET", name)
	if err != nil {
		t.Fatal(err)
	}
	var want [][2]string
	list, _ := v.([]any)
	for i := 0; i+1 < len(list); i += 2 {
		want = append(want, [2]string{fmt.Sprint(list[i]), fmt.Sprint(list[i+1])})
	}
	got := c.Get(name)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CONFIG GET %s: tandem %q, redis %q", name, got, want)
	}
}

// TestRedisDifferentialConfigGet compares glob results: every pair Tandem
// returns for a pattern must be in redis's reply with the same value,
// except Tandem's own directives and deliberately different defaults.
func TestRedisDifferentialConfigGet(t *testing.T) {
	rc := startRedis(t)
	c := mustLoad(t, []string{"--save", "", "--bind", "127.0.0.1"}, nil) // as startRedis runs redis
	tandemOnly := map[string]bool{"memcached-port": true, "memcached-tls-port": true, "item-size-max": true, "memcached-max-line": true, "memcached-max-pending-output": true,
		"memcached-enable-shutdown": true, "memcached-disable-flush-all": true, "memcached-disable-watch": true, "memcached-watcher-logbuf-size": true, "memcached-binding-protocol": true, "start-empty-on-bad-dump": true, "compression": true, "compression-min-size": true, "log-format": true, "compression-min-saving": true,
		"metrics-port": true, "metrics-bind": true, "metrics-password": true,
		"set-max-listpack-entries": true, "set-max-listpack-value": true,
		"port": true, "dir": true, "logfile": true, // port, dir, logfile: set differently by startRedis
		"maxmemory-policy": true} // Tandem's default is allkeys-s3fifo, by design
	for _, pattern := range []string{"*", "maxmemory*", "*max-*-entries*", "*listpack*", "[lm]axmemory",
		"[^l]axmemory", "maxmemory-polic[a-z]", "h?", "HZ", "*LAZY*", "lua-time-limit", `maxmemory\-policy`,
		"*-size", "slowlog-*", "?????", "*[0-9]*"} {
		v, err := rc.do("CONFIG", "GET", pattern)
		if err != nil {
			t.Fatal(err)
		}
		redis := map[string]string{}
		list, _ := v.([]any)
		for i := 0; i+1 < len(list); i += 2 {
			redis[fmt.Sprint(list[i])] = fmt.Sprint(list[i+1])
		}
		for _, p := range c.Get(pattern) {
			if tandemOnly[p[0]] {
				continue
			}
			rv, ok := redis[p[0]]
			if !ok {
				t.Errorf("CONFIG GET %q: tandem has %s, redis does not", pattern, p[0])
			} else if rv != p[1] {
				t.Errorf("CONFIG GET %q: %s is %q in tandem, %q in redis", pattern, p[0], p[1], rv)
			}
		}
		if pattern == "*" {
			continue
		}
		// And nothing redis reports for a name Tandem knows is missing.
		for name := range redis {
			if _, _, ok := lookup(name); ok && len(c.Get(name)) == 1 {
				found := false
				for _, p := range c.Get(pattern) {
					found = found || strings.EqualFold(p[0], name)
				}
				if !found {
					t.Errorf("CONFIG GET %q: redis has %s, tandem does not", pattern, name)
				}
			}
		}
	}
}

// TestRedisDifferentialStartup starts redis-server on bad configuration
// files and flags and compares its fatal error's offending line and reason
// with Load's.
func TestRedisDifferentialStartup(t *testing.T) {
	bin := redisServer(t)
	files := []string{
		"port 16401\nmaxmemory \"1xb\"\n", "foo bar\n", "port 1 2\n", "port \"abc\n", "maxmemory\n",
		"protected-mode maybe\n", "save 1\n", "save 0 1\n", "client-output-buffer-limit normal 1 2\n",
		"client-output-buffer-limit master 1 2 3\n", "MaxMemory 1xb\n",
		"  # comment\n\n   maxmemory-policy  foo  \n", "notify-keyspace-events X\n", "lua-time-limit x\n",
		"requirepass \"a\"b\n", "hz -1\n", "dbfilename a/b\n", "save \"100 x\"\n", "include a b\n",
		"list-max-ziplist-size 1.5\n", "timeout 05\n", "maxclients 0\n",
		// Redis 7.0's directives that Tandem accepts with no effect.
		"unixsocketperm 8\n", "unixsocketperm 1000\n", "unixsocketperm -1\n", "appendfilename a/b\n",
		"appendfilename \"\"\n", "appenddirname a\\b\n", "proc-title-template \"{x}\"\n",
		"shutdown-on-sigint save nosave\n", "shutdown-on-sigint foo\n", "shutdown-on-sigterm\n",
		"oom-score-adj-values 1 2\n", "oom-score-adj-values \"1 2 x\"\n", "latency-tracking-info-percentiles 101\n",
		"latency-tracking-info-percentiles 1 x\n", "replicaof a b\n", "replicaof a\n", "slaveof a 70000\n",
		"maxmemory-clients 101%\n", "maxmemory-clients x\n", "syslog-facility foo\n", "supervised foo\n",
		"repl-timeout 0\n", "socket-mark-id -1\n", "cluster-announce-hostname a_b\n", "oom-score-adj maybe\n",
		"repl-backlog-size 0\n", "activedefrag yes\n", "list-max-ziplist-entries 1 2\n", "sentinel x\n",
		"logfile /nonexistent/dir/x.log\n",
	}
	dir := t.TempDir()
	for i, content := range files {
		path := filepath.Join(dir, fmt.Sprintf("c%d.conf", i))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(bin, path, "--port", "0", "--daemonize", "no").CombinedOutput()
		wantText, wantReason := redisFatal(string(out))
		wantReason = withTandemPolicies(wantReason)
		_, err := Load([]string{path}, nil)
		le, ok := err.(*LoadError)
		if !ok {
			t.Errorf("%q: Load = %v; redis: %q", content, err, out)
			continue
		}
		if le.Text != wantText || le.Reason != wantReason {
			t.Errorf("%q:\n  tandem %q / %q\n  redis  %q / %q", content, le.Text, le.Reason, wantText, wantReason)
		}
	}

	// Flags: redis reports them as lines appended to the file; compare reasons.
	for _, args := range [][]string{
		{"--maxmemory", "1xb"}, {"--port", "1", "2"}, {"--save", "60 x"}, {"--foo", "bar"},
		{"--maxmemory-policy", "x"}, {"--hz"},
	} {
		out, _ := exec.Command(bin, append([]string{"--port", "0", "--daemonize", "no"}, args...)...).CombinedOutput()
		_, wantReason := redisFatal(string(out))
		wantReason = withTandemPolicies(wantReason)
		_, err := Load(args, nil)
		le, ok := err.(*LoadError)
		if !ok || le.Reason != wantReason {
			t.Errorf("%q: Load = %v; redis reason %q", args, err, wantReason)
		}
	}
}

// withTandemPolicies adds Tandem's own eviction policy to redis's list of
// valid maxmemory-policy values in an error reason.
func withTandemPolicies(reason string) string {
	return strings.Replace(reason, "allkeys-random, noeviction", "allkeys-random, noeviction, allkeys-s3fifo", 1)
}

// redisFatal extracts the offending line and the reason from redis-server's
// "*** FATAL CONFIG FILE ERROR ***" output.
func redisFatal(out string) (text, reason string) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ">>> '") && i+1 < len(lines) {
			return strings.TrimSuffix(strings.TrimPrefix(l, ">>> '"), "'"), lines[i+1]
		}
	}
	if len(lines) > 1 && strings.HasPrefix(lines[0], "*** FATAL CONFIG FILE ERROR") {
		return "", lines[len(lines)-1] // a check of the whole configuration (logfile)
	}
	return "", out
}

// TestRedisDifferentialGlob sends random glob patterns to CONFIG GET and
// checks that exactly the names redis matches among those both know are
// the ones globMatch matches.
func TestRedisDifferentialGlob(t *testing.T) {
	rc := startRedis(t)
	c := Default()
	var shared []string // names (and aliases) redis knows too
	v, err := rc.do("CONFIG", "GET", "*")
	if err != nil {
		t.Fatal(err)
	}
	inRedis := map[string]bool{}
	list, _ := v.([]any)
	for i := 0; i < len(list); i += 2 {
		inRedis[fmt.Sprint(list[i])] = true
	}
	for _, p := range c.Get("*") {
		if inRedis[p[0]] {
			shared = append(shared, p[0])
		}
	}
	rng := newRand(1)
	const alphabet = "**??[[]]^-\\ahmxyzAHM-e"
	for i := 0; i < 400; i++ {
		b := []byte{'*'}
		for n := rng.intn(7); n > 0; n-- {
			b = append(b, alphabet[rng.intn(len(alphabet))])
		}
		if rng.intn(2) == 0 {
			b = append(b, '*')
		}
		pattern := string(b)
		v, err := rc.do("CONFIG", "GET", pattern)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		list, _ := v.([]any)
		for j := 0; j < len(list); j += 2 {
			got[fmt.Sprint(list[j])] = true
		}
		for _, name := range shared {
			if globMatch(pattern, name, true) != got[name] {
				t.Errorf("pattern %q on %q: tandem %v, redis %v", pattern, name, !got[name], got[name])
			}
		}
	}
}

// rand is a tiny deterministic generator, so that failures reproduce.
type rand struct{ s uint64 }

func newRand(seed uint64) *rand { return &rand{s: seed} }

func (r *rand) intn(n int) int {
	r.s ^= r.s << 13
	r.s ^= r.s >> 7
	r.s ^= r.s << 17
	return int(r.s % uint64(n))
}

// TestRedisDifferentialAllDirectives checks that CONFIG GET * names the
// same directives as redis-server 7.0 (every name and alias), with
// redis's defaults, but for Tandem's own directives and the defaults
// Tandem deliberately differs on.
func TestRedisDifferentialAllDirectives(t *testing.T) {
	rc := startRedis(t)
	v, err := rc.do("CONFIG", "GET", "*")
	if err != nil {
		t.Fatal(err)
	}
	redis := map[string]string{}
	list, _ := v.([]any)
	for i := 0; i+1 < len(list); i += 2 {
		redis[fmt.Sprint(list[i])] = fmt.Sprint(list[i+1])
	}
	if len(redis) < 190 {
		t.Fatalf("redis-server lists %d directives; is it 7.0?", len(redis))
	}
	c := mustLoad(t, []string{"--save", ""}, nil) // as startRedis runs redis
	tandemOnly := map[string]bool{"memcached-port": true, "memcached-tls-port": true, "item-size-max": true,
		"memcached-max-line": true, "memcached-max-pending-output": true, "memcached-enable-shutdown": true,
		"memcached-disable-flush-all": true, "memcached-disable-watch": true, "memcached-watcher-logbuf-size": true, "memcached-binding-protocol": true, "start-empty-on-bad-dump": true, "compression": true, "log-format": true,
		"compression-min-size": true, "compression-min-saving": true,
		"metrics-port": true, "metrics-bind": true, "metrics-password": true,
		"set-max-listpack-entries": true, "set-max-listpack-value": true} // redis 7.2's
	differs := map[string]bool{
		"bind": true, "maxmemory-policy": true, // Tandem's defaults: 127.0.0.1, allkeys-s3fifo
		"port": true, "dir": true, "logfile": true, // set by startRedis
	}
	tandem := map[string]string{}
	for _, p := range c.Get("*") {
		tandem[p[0]] = p[1]
		rv, ok := redis[p[0]]
		switch {
		case tandemOnly[p[0]]:
			if ok {
				t.Errorf("%s is listed as Tandem's own, but redis has it", p[0])
			}
		case !ok:
			t.Errorf("CONFIG GET *: tandem has %s, redis does not", p[0])
		case rv != p[1] && !differs[p[0]]:
			t.Errorf("CONFIG GET *: %s is %q in tandem, %q in redis", p[0], p[1], rv)
		}
	}
	for name := range redis {
		if _, ok := tandem[name]; !ok {
			t.Errorf("CONFIG GET *: redis has %s, tandem does not", name)
		}
	}
}
