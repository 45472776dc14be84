package conf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeConf(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// values returns the CONFIG GET values of names.
func values(c *Config, names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		v, _ := c.Value(n)
		out[n] = v
	}
	return out
}

func TestDefaults(t *testing.T) {
	for _, c := range []*Config{Default(), mustLoad(t, nil, nil)} {
		if c.Port() != 6379 || c.MemcachedPort() != 11211 || !reflect.DeepEqual(c.Bind(), []string{"127.0.0.1"}) {
			t.Errorf("listeners: %d %d %q", c.Port(), c.MemcachedPort(), c.Bind())
		}
		wantSave := []SaveRule{{3600, 1}, {300, 100}, {60, 10000}}
		if !reflect.DeepEqual(c.Save(), wantSave) {
			t.Errorf("Save() = %v", c.Save())
		}
		if c.Dir() != "./data" || c.DBFilename() != "dump.rdb" {
			t.Errorf("dir %q dbfilename %q", c.Dir(), c.DBFilename())
		}
		if c.MaxMemory() != 0 || c.MaxMemoryPolicy() != AllKeysS3FIFO || c.MaxMemorySamples() != 5 {
			t.Errorf("maxmemory %d %v %d", c.MaxMemory(), c.MaxMemoryPolicy(), c.MaxMemorySamples())
		}
		if c.Origin("maxmemory") != FromDefault {
			t.Errorf("Origin(maxmemory) = %v", c.Origin("maxmemory"))
		}
		if c.ItemSizeMax() != 1<<20 || c.MemcachedMaxLine() != 2048 || c.MemcachedEnableShutdown() {
			t.Errorf("memcached %d %d %v", c.ItemSizeMax(), c.MemcachedMaxLine(), c.MemcachedEnableShutdown())
		}
		if c.ProtoMaxBulkLen() != 512<<20 || c.ClientQueryBufferLimit() != 1<<30 {
			t.Errorf("limits %d %d", c.ProtoMaxBulkLen(), c.ClientQueryBufferLimit())
		}
		if got := c.ClientOutputBufferLimit(ClientReplica); got != (BufferLimit{256 << 20, 64 << 20, 60}) {
			t.Errorf("replica obuf %v", got)
		}
		if got := c.ClientOutputBufferLimit(ClientPubSub); got != (BufferLimit{32 << 20, 8 << 20, 60}) {
			t.Errorf("pubsub obuf %v", got)
		}
		if c.Timeout() != 0 || c.TCPKeepAlive() != 300*time.Second || c.BusyReplyThreshold() != 5*time.Second ||
			c.ShutdownTimeout() != 10*time.Second {
			t.Errorf("durations %v %v %v %v", c.Timeout(), c.TCPKeepAlive(), c.BusyReplyThreshold(), c.ShutdownTimeout())
		}
		if c.Hz() != 10 || c.Databases() != 16 || c.MaxClients() != 10000 || c.LogLevel() != LogNotice {
			t.Errorf("misc %d %d %d %v", c.Hz(), c.Databases(), c.MaxClients(), c.LogLevel())
		}
		if c.Compression() != CompressionNone || c.CompressionMinSize() != 1024 || c.CompressionMinSaving() != 20 {
			t.Errorf("compression %v %d %d", c.Compression(), c.CompressionMinSize(), c.CompressionMinSaving())
		}
		if !c.ProtectedMode() || !c.RDBCompression() || !c.RDBChecksum() || c.AppendOnly() || c.Daemonize() {
			t.Error("bools")
		}
		if c.EnableDebugCommand() != ProtectedNo || c.NotifyKeyspaceEvents() != 0 || c.SlowlogLogSlowerThan() != 10000 {
			t.Error("debug/notify/slowlog")
		}
		if c.HashMaxListpackEntries() != 512 || c.ZsetMaxListpackEntries() != 128 || c.ListMaxListpackSize() != -2 ||
			c.SetMaxIntsetEntries() != 512 || c.SetMaxListpackEntries() != 128 || c.HashMaxListpackValue() != 64 {
			t.Error("encodings")
		}
	}
}

func mustLoad(t *testing.T, args, env []string) *Config {
	t.Helper()
	c, err := Load(args, env)
	if err != nil {
		t.Fatalf("Load(%q, %q): %v", args, env, err)
	}
	return c
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	inc := writeConf(t, dir, "inc.conf", "maxmemory-policy allkeys-lru\nsave 10 1\n")
	writeConf(t, dir, "d1.conf", "hz 20\n")
	writeConf(t, dir, "d2.conf", "hz 30\n")
	main := writeConf(t, dir, "main.conf", strings.Join([]string{
		"# a comment",
		"   # an indented comment",
		"",
		"\t PORT   7000  \r",
		`requirepass "p a\"ss"`,
		`dbfilename 'my.rdb'`,
		"maxmemory 1GB",
		"save 900 1",
		"include " + inc,
		"save 60 10000",
		"include " + filepath.Join(dir, "d*.conf"),
		"include " + filepath.Join(dir, "none-*.conf"),
		`client-output-buffer-limit pubsub 64mb 16mb 90`,
		`client-output-buffer-limit "normal 1kb 1kb 5"`,
		"bind 127.0.0.1 -::1",
		"notify-keyspace-events Ex",
		"hash-max-ziplist-entries 64",
		"lua-time-limit 100",
		"appendonly no",
		"port 7001",
	}, "\n"))
	c := mustLoad(t, []string{main}, nil)
	want := map[string]string{
		"port":                       "7001",
		"requirepass":                `p a"ss`,
		"dbfilename":                 "my.rdb",
		"maxmemory":                  "1073741824",
		"maxmemory-policy":           "allkeys-lru",
		"save":                       "900 1 10 1 60 10000",
		"hz":                         "30",
		"client-output-buffer-limit": "normal 1024 1024 5 slave 268435456 67108864 60 pubsub 67108864 16777216 90",
		"bind":                       "127.0.0.1 -::1",
		"notify-keyspace-events":     "xE",
		"hash-max-listpack-entries":  "64",
		"busy-reply-threshold":       "100",
	}
	if got := values(c, keys(want)...); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if got := c.BindAddrs(); !reflect.DeepEqual(got, []BindAddr{{"127.0.0.1", false}, {"::1", true}}) {
		t.Errorf("BindAddrs() = %v", got)
	}
	if c.ConfigFile() != main {
		t.Errorf("ConfigFile() = %q", c.ConfigFile())
	}
	if c.Origin("port") != FromFile || c.Origin("timeout") != FromDefault {
		t.Errorf("origins %v %v", c.Origin("port"), c.Origin("timeout"))
	}
	if len(c.Warnings()) != 0 {
		t.Errorf("Warnings() = %q", c.Warnings())
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestLoadSaveLines(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		flags []string
		env   []string
		want  string
	}{
		{"default", "", nil, nil, "3600 1 300 100 60 10000"},
		{"file replaces defaults", "save 900 1\n", nil, nil, "900 1"},
		{"lines accumulate", "save 900 1\nsave 300 10\n", nil, nil, "900 1 300 10"},
		{"one quoted line", `save "900 1 300 10"` + "\n", nil, nil, "900 1 300 10"},
		{"empty disables", `save ""` + "\n", nil, nil, ""},
		{"empty clears earlier lines", "save 900 1\nsave \"\"\n", nil, nil, ""},
		{"lines after empty accumulate", "save \"\"\nsave 10 1\n", nil, nil, "10 1"},
		{"flag replaces file", "save 900 1\n", []string{"--save", "60", "5"}, nil, "60 5"},
		{"flag quoted", "", []string{"--save", "900 1 300 10"}, nil, "900 1 300 10"},
		{"flags accumulate", "", []string{"--save", "900 1", "--save", "60 5"}, nil, "900 1 60 5"},
		{"bare flag disables", "", []string{"--save"}, nil, ""},
		{"bare flag before another", "", []string{"--save", "--port", "7000"}, nil, ""},
		{"flag empty", "", []string{"--save", ""}, nil, ""},
		{"flag empty then rule", "", []string{"--save", "", "--save", "10", "1"}, nil, "10 1"},
		{"env", "save 900 1\n", nil, []string{"TANDEM_SAVE=300 10 60 10000"}, "300 10 60 10000"},
		{"env empty", "", nil, []string{"TANDEM_SAVE="}, ""},
		{"flag over env", "", []string{"--save", "1", "1"}, []string{"TANDEM_SAVE=300 10"}, "1 1"},
		{"signs as strtoll", "save +5 +1\n", nil, nil, "5 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args []string
			if tt.file != "" {
				args = append(args, writeConf(t, t.TempDir(), "t.conf", tt.file))
			}
			c := mustLoad(t, append(args, tt.flags...), tt.env)
			if got, _ := c.Value("save"); got != tt.want {
				t.Errorf("save = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want map[string]string
	}{
		{[]string{"--port", "7000", "--maxmemory", "1gb"}, map[string]string{"port": "7000", "maxmemory": "1073741824"}},
		{[]string{"--port 7000"}, map[string]string{"port": "7000"}}, // name and value in one argument
		{[]string{"--PORT", "7000"}, map[string]string{"port": "7000"}},
		{[]string{"--requirepass", "--secret"}, map[string]string{"requirepass": "--secret"}},
		{[]string{"--requirepass", "two words"}, map[string]string{"requirepass": "two words"}},
		{[]string{"--bind", "127.0.0.1", "::1"}, map[string]string{"bind": "127.0.0.1 ::1"}},
		{[]string{"--bind", "127.0.0.1 -::1"}, map[string]string{"bind": "127.0.0.1 -::1"}},
		{[]string{"--client-output-buffer-limit", "pubsub", "1mb", "0", "0"},
			map[string]string{"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 0 0"}},
		{[]string{"--slowlog-log-slower-than", "-1"}, map[string]string{"slowlog-log-slower-than": "-1"}},
		{[]string{"--notify-keyspace-events", ""}, map[string]string{"notify-keyspace-events": ""}},
		{[]string{"--lua-time-limit", "7"}, map[string]string{"busy-reply-threshold": "7"}},
		{[]string{"--hz", "1000"}, map[string]string{"hz": "500"}},
		{[]string{"--hz", "0"}, map[string]string{"hz": "1"}},
		{[]string{"--memcached-port", "0", "--port", "11211"}, map[string]string{"memcached-port": "0", "port": "11211"}},
	}
	for _, tt := range tests {
		c := mustLoad(t, tt.args, nil)
		if got := values(c, keys(tt.want)...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Load(%q): got %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestLoadConfigFlag(t *testing.T) {
	path := writeConf(t, t.TempDir(), "t.conf", "port 7000\ntimeout 5\n")
	c := mustLoad(t, []string{"--timeout", "9", "--config", path}, nil)
	if c.Port() != 7000 || c.Timeout() != 9*time.Second || c.ConfigFile() != path {
		t.Errorf("port %d timeout %v file %q", c.Port(), c.Timeout(), c.ConfigFile())
	}
	incl := writeConf(t, t.TempDir(), "i.conf", "timeout 3\n")
	c = mustLoad(t, []string{"--include", incl}, nil)
	if c.Timeout() != 3*time.Second || c.Origin("timeout") != FromFlag {
		t.Errorf("--include: timeout %v origin %v", c.Timeout(), c.Origin("timeout"))
	}
}

func TestLoadEnv(t *testing.T) {
	env := []string{
		"PATH=/bin",
		"TANDEM_MAXMEMORY=1gb",
		"TANDEM_MEMCACHED_PORT=11212",
		"TANDEM_MAXMEMORY_POLICY=allkeys-lfu",
		"TANDEM_BIND=0.0.0.0 ::",
		"TANDEM_REQUIREPASS=a \"quoted\" secret",
		"TANDEM_LUA_TIME_LIMIT=50",
		"TANDEM_SERVICE_HOST=10.0.0.1",    // injected by Kubernetes: ignored
		"TANDEM_PORT=tcp://10.0.0.1:6379", // likewise, although port is a directive
		"TANDEM_PORT_6379_TCP_ADDR=10.0.0.1",
		"TANDEM_ACTIVEREHASHING=no", // inert: reported, since it is not the default
	}
	c := mustLoad(t, nil, env)
	want := map[string]string{
		"maxmemory":            "1073741824",
		"memcached-port":       "11212",
		"maxmemory-policy":     "allkeys-lfu",
		"bind":                 "0.0.0.0 ::",
		"requirepass":          `a "quoted" secret`,
		"busy-reply-threshold": "50",
		"port":                 "6379",
	}
	if got := values(c, keys(want)...); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if c.Origin("maxmemory") != FromEnv {
		t.Errorf("Origin = %v", c.Origin("maxmemory"))
	}
	w := strings.Join(c.Warnings(), "\n")
	for _, s := range []string{"TANDEM_SERVICE_HOST", "TANDEM_PORT=tcp://", "TANDEM_PORT_6379_TCP_ADDR", "'activerehashing'"} {
		if !strings.Contains(w, s) {
			t.Errorf("Warnings() lacks %q:\n%s", s, w)
		}
	}
}

func TestPrecedence(t *testing.T) {
	file := writeConf(t, t.TempDir(), "t.conf", "maxmemory 1mb\ntimeout 1\nhz 11\n")
	env := []string{"TANDEM_MAXMEMORY=2mb", "TANDEM_TIMEOUT=2"}
	c := mustLoad(t, []string{file, "--maxmemory", "3mb"}, env)
	if c.MaxMemory() != 3<<20 || c.Timeout() != 2*time.Second || c.Hz() != 11 || c.Port() != 6379 {
		t.Errorf("maxmemory %d timeout %v hz %d port %d", c.MaxMemory(), c.Timeout(), c.Hz(), c.Port())
	}
	for name, want := range map[string]Origin{"maxmemory": FromFlag, "timeout": FromEnv, "hz": FromFile, "port": FromDefault} {
		if got := c.Origin(name); got != want {
			t.Errorf("Origin(%s) = %v, want %v", name, got, want)
		}
	}
}

// A redis.conf full of directives Tandem does not implement loads; those
// left at Redis's default ask for nothing and are not reported, those
// that ask for something Tandem does not do are reported once each, with
// where the last one was given.
func TestLoadIgnoredRedisDirectives(t *testing.T) {
	lines := []string{
		"bind 127.0.0.1 -::1", "protected-mode yes", "port 6379", "tcp-backlog 511", "timeout 0",
		"tcp-keepalive 300", "daemonize no", "pidfile /var/run/redis_6379.pid", "loglevel notice",
		`logfile ""`, "databases 16", "always-show-logo no", "set-proc-title yes",
		`proc-title-template "{title} {listen-addr} {server-mode}"`, "stop-writes-on-bgsave-error yes",
		"rdbcompression yes", "rdbchecksum yes", "dbfilename dump.rdb", "rdb-del-sync-files no", "dir ./",
		"replica-serve-stale-data yes", "replica-read-only yes", "repl-diskless-sync yes",
		"repl-diskless-sync-delay 5", "repl-diskless-sync-max-replicas 0", "repl-diskless-load disabled",
		"repl-disable-tcp-nodelay no", "replica-priority 100", "acllog-max-len 128",
		"lazyfree-lazy-eviction no", "lazyfree-lazy-expire no", "lazyfree-lazy-server-del no",
		"replica-lazy-flush no", "lazyfree-lazy-user-del no", "lazyfree-lazy-user-flush no",
		"oom-score-adj no", "oom-score-adj-values 0 200 800", "disable-thp yes", "appendonly no",
		`appendfilename "appendonly.aof"`, `appenddirname "appendonlydir"`, "appendfsync everysec",
		"no-appendfsync-on-rewrite no", "auto-aof-rewrite-percentage 100", "auto-aof-rewrite-min-size 64mb",
		"aof-load-truncated yes", "aof-use-rdb-preamble yes", "aof-timestamp-enabled no",
		"slowlog-log-slower-than 10000", "slowlog-max-len 128", "latency-monitor-threshold 0",
		`notify-keyspace-events ""`, "hash-max-listpack-entries 128", "hash-max-listpack-value 64",
		"list-max-listpack-size -2", "list-compress-depth 0", "set-max-intset-entries 512",
		"zset-max-listpack-entries 128", "zset-max-listpack-value 64", "hll-sparse-max-bytes 3000",
		"stream-node-max-bytes 4096", "stream-node-max-entries 100", "activerehashing yes",
		"client-output-buffer-limit normal 0 0 0", "client-output-buffer-limit replica 256mb 64mb 60",
		"client-output-buffer-limit pubsub 32mb 8mb 60", "hz 10", "dynamic-hz yes",
		"aof-rewrite-incremental-fsync yes", "rdb-save-incremental-fsync yes", "jemalloc-bg-thread yes",
		"cluster-enabled no", "replicaof no one", "unixsocket \"\"", "min-replicas-to-write 0",
	}
	file := writeConf(t, t.TempDir(), "redis.conf", strings.Join(lines, "\n"))
	c := mustLoad(t, []string{file}, nil)
	if len(c.Warnings()) != 0 {
		t.Errorf("directives at their defaults reported: %q", c.Warnings())
	}
	if v, _ := c.Value("hash-max-listpack-entries"); v != "128" {
		t.Errorf("hash-max-listpack-entries = %q", v)
	}

	asks := []string{"daemonize yes", "active-defrag-cycle-max 50", "repl-backlog-size 10mb", "active-defrag-cycle-max 50",
		"list-max-ziplist-entries 512", "list-max-ziplist-value 64", "list-max-ziplist-entries 512",
		"supervised systemd", "io-threads 4", "active-defrag-cycle-max 25", "active-defrag-cycle-max 60"}
	file = writeConf(t, t.TempDir(), "asks.conf", strings.Join(append(lines, asks...), "\n"))
	c = mustLoad(t, []string{file, "--supervised", "auto", "--repl-backlog-size", "1mb"}, nil)
	n := len(lines)
	want := []string{
		fmt.Sprintf("'list-max-ziplist-entries' (line %d of %s) has no effect: %s", n+5, file, deprecatedDirectives["list-max-ziplist-entries"]),
		fmt.Sprintf("'list-max-ziplist-value' (line %d of %s) has no effect: %s", n+6, file, deprecatedDirectives["list-max-ziplist-value"]),
		fmt.Sprintf("'daemonize' (line %d of %s) has no effect in Tandem: %s", n+1, file, inertDaemonize),
		fmt.Sprintf("'io-threads' (line %d of %s) has no effect in Tandem: %s", n+9, file, inertThreads),
		fmt.Sprintf("'supervised' (flag --supervised) has no effect in Tandem: %s", inertSupervised),
		fmt.Sprintf("'active-defrag-cycle-max' (line %d of %s) has no effect in Tandem: %s", n+11, file, inertDefrag),
	}
	if got := c.Warnings(); !reflect.DeepEqual(got, want) {
		t.Errorf("Warnings():\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if v, _ := c.Value("supervised"); v != "auto" {
		t.Errorf("supervised = %q", v)
	}
}

func TestLoadHelpVersion(t *testing.T) {
	for args, want := range map[string]error{"-h": ErrHelp, "--help": ErrHelp, "-v": ErrVersion, "--version": ErrVersion} {
		if _, err := Load([]string{args}, nil); !errors.Is(err, want) {
			t.Errorf("Load(%q) = %v, want %v", args, err, want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		file string // content of the config file; "" for none
		args []string
		env  []string
		want string // {file} stands for the config file's path
	}{
		{"memory", "port 7000\nmaxmemory \"1xb\"\n", nil, nil,
			"Reading the configuration file, at line 2 ({file})\n>>> 'maxmemory \"1xb\"'\nargument must be a memory value"},
		{"unknown", "# c\n\nfoo bar\n", nil, nil,
			"Reading the configuration file, at line 3 ({file})\n>>> 'foo bar'\nBad directive or wrong number of arguments"},
		{"two args", "port 1 2\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'port 1 2'\nwrong number of arguments"},
		{"no arg", "  maxmemory  \n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'maxmemory'\nwrong number of arguments"},
		{"quotes", "port \"abc\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'port \"abc'\nUnbalanced quotes in configuration line"},
		{"closing quote", "requirepass \"a\"b\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'requirepass \"a\"b'\nUnbalanced quotes in configuration line"},
		{"bool", "protected-mode maybe\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'protected-mode maybe'\nargument must be 'yes' or 'no'"},
		{"enum", "  maxmemory-policy  foo  \n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'maxmemory-policy  foo'\nargument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction, allkeys-s3fifo"},
		{"integer", "lua-time-limit x\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'lua-time-limit x'\nargument couldn't be parsed into an integer"},
		{"range", "port 65536\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'port 65536'\nargument must be between 0 and 65535 inclusive"},
		{"save", "save 1\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'save 1'\nInvalid save parameters"},
		{"save zero seconds", "save 0 1\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'save 0 1'\nInvalid save parameters"},
		{"obuf", "client-output-buffer-limit normal 1 2\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'client-output-buffer-limit normal 1 2'\nWrong number of arguments in buffer limit configuration."},
		{"obuf class", "client-output-buffer-limit master 1 2 3\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'client-output-buffer-limit master 1 2 3'\nInvalid client class specified in buffer limit configuration."},
		{"notify", "notify-keyspace-events X\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'notify-keyspace-events X'\nInvalid event class character. Use 'Ag$lshzxeKEtmdn'."},
		{"dbfilename", "dbfilename a/b.rdb\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'dbfilename a/b.rdb'\ndbfilename can't be a path, just a filename"},
		{"unsupported", "loadmodule x.so\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'loadmodule x.so'\n" + unsupportedDirectives["loadmodule"]},
		{"rename one word", "rename-command get\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'rename-command get'\nBad directive or wrong number of arguments"},
		{"rename three words", "rename-command get a b\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'rename-command get a b'\nBad directive or wrong number of arguments"},
		{"rename quoted pair", "rename-command \"get a\"\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'rename-command \"get a\"'\nBad directive or wrong number of arguments"},
		{"rename subcommand", "rename-command config|get cg\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'rename-command config|get cg'\n" + reasonRenameSubcommand},
		{"memcached rename flag", "", []string{"--memcached-rename-command", "flush_all"}, nil,
			"Reading the command line, at flag --memcached-rename-command\n>>> '--memcached-rename-command flush_all'\nBad directive or wrong number of arguments"},
		{"cluster yes", "cluster-enabled yes\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'cluster-enabled yes'\n" + reasonCluster},
		{"too many bind", "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", nil, nil,
			"Reading the configuration file, at line 1 ({file})\n>>> 'bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17'\nToo many bind addresses specified."},
		{"include missing", "hz 5\ninclude " + dir + "/missing.conf\n", nil, nil,
			"Reading the configuration file, at line 2 ({file})\n>>> 'include " + dir + "/missing.conf'\nFatal error, can't open config file '" + dir + "/missing.conf': no such file or directory"},
		{"missing file", "", []string{dir + "/nope.conf"}, nil,
			"Fatal error, can't open config file '" + dir + "/nope.conf': no such file or directory"},
		{"flag", "", []string{"--port", "7000", "--maxmemory", "1xb"}, nil,
			"Reading the command line, at flag --maxmemory\n>>> '--maxmemory 1xb'\nargument must be a memory value"},
		{"flag words", "", []string{"--port", "1", "2"}, nil,
			"Reading the command line, at flag --port\n>>> '--port 1 2'\nwrong number of arguments"},
		{"flag without value", "", []string{"--port"}, nil,
			"Reading the command line, at flag --port\n>>> '--port'\nwrong number of arguments"},
		{"flag unknown", "", []string{"--foo", "bar"}, nil,
			"Reading the command line, at flag --foo\n>>> '--foo bar'\nBad directive or wrong number of arguments"},
		{"flag quoted save", "", []string{"--save", "60 x"}, nil,
			"Reading the command line, at flag --save\n>>> '--save \"60 x\"'\nInvalid save parameters"},
		{"bare argument", "", []string{"--port", "7000", "--hz", "5", "--", "x"}, nil,
			"Reading the command line, at flag --\n>>> '--'\nBad directive or wrong number of arguments"},
		{"second positional", "", []string{dir + "/a.conf", "b.conf"}, nil,
			"Reading the command line, at flag b.conf\n>>> 'b.conf'\n" + reasonFlagNoName},
		{"config twice", "", []string{"x.conf", "--config", "y.conf"}, nil,
			"Reading the command line, at flag --config\n>>> '--config y.conf'\n" + reasonConfigTwice},
		{"env", "", nil, []string{"TANDEM_MAXMEMORY=1xb"},
			"Reading the environment, at variable TANDEM_MAXMEMORY\n>>> 'TANDEM_MAXMEMORY=1xb'\nargument must be a memory value"},
		{"env policy", "", nil, []string{"TANDEM_MAXMEMORY_POLICY=lru"},
			"Reading the environment, at variable TANDEM_MAXMEMORY_POLICY\n>>> 'TANDEM_MAXMEMORY_POLICY=lru'\nargument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction, allkeys-s3fifo"},
		{"env quotes", "", nil, []string{`TANDEM_SAVE="900 1`},
			"Reading the environment, at variable TANDEM_SAVE\n>>> 'TANDEM_SAVE=\"900 1'\nUnbalanced quotes in configuration line"},
		{"no listener", "", []string{"--bind", ""}, nil, reasonNoListener},
		{"same ports", "", []string{"--memcached-port", "6379"}, nil, reasonSamePorts},
		{"metrics on the Redis port", "", []string{"--metrics-port", "6379"}, nil, reasonMetricsPort},
		{"metrics on the memcached port", "", []string{"--metrics-port", "11211"}, nil, reasonMetricsPort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			path := ""
			if tt.file != "" {
				path = writeConf(t, t.TempDir(), "t.conf", tt.file)
				args = append([]string{path}, args...)
			}
			_, err := Load(args, tt.env)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load: %v, want a *LoadError", err)
			}
			want := fatalHeader + "\n" + strings.ReplaceAll(tt.want, "{file}", path)
			if err.Error() != want {
				t.Errorf("error:\n%s\nwant:\n%s", err, want)
			}
		})
	}
}

func TestIncludeLoop(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.conf")
	writeConf(t, dir, "a.conf", "include "+a+"\n")
	_, err := Load([]string{a}, nil)
	if err == nil || !strings.Contains(err.Error(), reasonIncludeDepth) {
		t.Errorf("Load = %v", err)
	}
}
