package conf

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// debianRedisConf is the redis.conf Debian's redis-server package installs:
// redis 7.0.15's own with daemonize yes, a pidfile under /run/redis, a log
// file under /var/log/redis and dir /var/lib/redis. CI installs the
// package (scripts/test.sh), so a missing file fails, as a missing
// redis-server does.
func debianRedisConf(t *testing.T) string {
	t.Helper()
	const path = "/etc/redis/redis.conf"
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%v: apt-get install redis-server (scripts/test.sh does); this test fails, it never skips", err)
	}
	return path
}

// The stock redis.conf loads. Overridden on the command line are only the
// paths a test may not write (and the port, which may be taken); every
// other line is the file's.
func TestLoadDebianRedisConf(t *testing.T) {
	path := debianRedisConf(t)
	dir := t.TempDir()
	overrides := []string{"--port", "0", "--dir", dir, "--logfile", filepath.Join(dir, "log"),
		"--pidfile", filepath.Join(dir, "pid")}
	c := mustLoad(t, append([]string{path}, overrides...), nil)
	want := map[string]string{
		"bind": "127.0.0.1 -::1", "daemonize": "yes", "databases": "16", "maxmemory-policy": "allkeys-s3fifo",
		"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		"proc-title-template":        "{title} {listen-addr} {server-mode}", "auto-aof-rewrite-min-size": "67108864",
		"notify-keyspace-events": "", "save": "3600 1 300 100 60 10000", "repl-diskless-load": "disabled",
	}
	if got := values(c, keys(want)...); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// The one line that asks for what Tandem does not do.
	line := lineOf(t, path, "daemonize yes")
	wantWarn := []string{fmt.Sprintf("'daemonize' (line %d of %s) has no effect in Tandem: %s", line, path, inertDaemonize)}
	if got := c.Warnings(); !reflect.DeepEqual(got, wantWarn) {
		t.Errorf("Warnings() = %q\nwant %q", got, wantWarn)
	}

	// As Debian's redis-server.service starts it.
	c = mustLoad(t, append([]string{path, "--supervised", "systemd", "--daemonize", "no"}, overrides...), nil)
	wantWarn = []string{fmt.Sprintf("'supervised' (flag --supervised) has no effect in Tandem: %s", inertSupervised)}
	if got := c.Warnings(); !reflect.DeepEqual(got, wantWarn) {
		t.Errorf("as the systemd unit: Warnings() = %q\nwant %q", got, wantWarn)
	}
}

// lineOf is the 1-based number of the line of path that is text.
func lineOf(t *testing.T, path, text string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == text {
			return i + 1
		}
	}
	t.Fatalf("%s has no line %q", path, text)
	return 0
}
