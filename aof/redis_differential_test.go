package aof

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
	"github.com/tandemkv/tandem/internal/realserver"
)

// redisOutcome starts redis-server 7.0 on dir and reports whether it
// came up (then its string keys) or refused to start, with its log.
func redisOutcome(t *testing.T, dir string, args ...string) (started bool, keys map[string]string, log string) {
	t.Helper()
	bin := realserver.Path(t, realserver.Redis)
	port, err := benchkit.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logf := filepath.Join(dir, "redis.log")
	all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir, "--logfile", logf, "--appendonly", "yes"}, args...)
	c := exec.Command(bin, all...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { c.Wait(); close(exited) }()
	defer func() { c.Process.Kill(); <-exited }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; i < 500; i++ {
		select {
		case <-exited:
			data, _ := os.ReadFile(logf)
			return false, nil, string(data)
		default:
		}
		if pingOK(addr) {
			keys := redisStrings(t, addr)
			data, _ := os.ReadFile(logf)
			return true, keys, string(data)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("redis-server neither started nor exited")
	return
}

// Damaged and unusual incr files, loaded by redis-server 7.0 and by Load
// with aof-load-truncated yes and no: both start or both refuse, with
// the same data and the same truncation offset.
func TestLoadLikeRedisServer(t *testing.T) {
	good := cmd("SET", "a", "1") + "#TS:1700000000\r\n" + cmd("SELECT", "1") + cmd("SET", "b", "2") + cmd("SELECT", "0")
	cases := map[string]string{
		"clean":              good,
		"cut in a bulk":      good + "*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$5\r\nab",
		"cut in a header":    good + "*3\r\n$3\r\nSET\r\n$",
		"star alone":         good + "*",
		"open transaction":   good + cmd("MULTI") + cmd("SET", "t", "1"),
		"whole transaction":  good + cmd("MULTI") + cmd("SET", "t", "1") + cmd("EXEC"),
		"bad first byte":     good + "SET c 3\r\n",
		"argc zero":          good + "*0\r\n",
		"argc wraps to zero": good + "*4294967296\r\n",
		"missing dollar":     good + "*1\r\nPING\r\n",
		"long annotation":    good + "#" + strings.Repeat("x", 1100) + "\r\n" + cmd("SET", "c", "3"),
		"crlf unchecked":     good + "*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$1\r\n3XY",
		"count with junk":    good + "*3junk\r\n$3xx\r\nSET\r\n$1\r\nc\r\n$1\r\n3\r\n",
	}
	truncAt := regexp.MustCompile(`Truncating the AOF appendonly\.aof\.1\.incr\.aof at offset (\d+)`)
	for name, incr := range cases {
		for _, truncated := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/aof-load-truncated %v", name, truncated), func(t *testing.T) {
				mk := func() Options {
					o := testOptions(t)
					o.LoadTruncated = truncated
					writeDir(t, o, "file appendonly.aof.1.incr.aof seq 1 type i\n", map[string]string{"appendonly.aof.1.incr.aof": incr})
					return o
				}
				ours, theirs := mk(), mk()
				m := newModel()
				var notes []string
				_, loadErr := Load(ours, m.callbacks(&notes))
				started, keys, log := redisOutcome(t, theirs.Dir, "--aof-load-truncated", map[bool]string{true: "yes", false: "no"}[truncated])
				if started != (loadErr == nil) {
					t.Fatalf("redis-server started: %v; Load: %v\nredis log:\n%s", started, loadErr, log)
				}
				t.Logf("started %v, Load: %v", started, loadErr)
				if !started {
					return
				}
				if !sameMap(keys, m.keys) {
					t.Errorf("redis-server has %v, Load rebuilt %v", keys, m.keys)
				}
				ourSize := fileSize(ours.path("appendonly.aof.1.incr.aof"))
				if sm := truncAt.FindStringSubmatch(log); sm != nil {
					if sm[1] != strconv.FormatInt(ourSize, 10) {
						t.Errorf("redis-server truncated at %s, Load at %d", sm[1], ourSize)
					}
				} else if ourSize != int64(len(incr)) {
					t.Errorf("Load truncated to %d, redis-server did not truncate", ourSize)
				}
			})
		}
	}
}

// redis-server 7.0 refuses each broken manifest with the message and line
// ParseManifest gives.
func TestManifestErrorsLikeRedisServer(t *testing.T) {
	for _, c := range manifestErrorCases {
		t.Run(c.name, func(t *testing.T) {
			o := testOptions(t)
			writeDir(t, o, c.text, nil)
			if c.text == "" {
				os.WriteFile(o.path(ManifestName(o.FileName)), nil, 0o644)
			}
			started, _, log := redisOutcome(t, o.Dir)
			if started {
				t.Fatalf("redis-server started on %q", c.text)
			}
			if !strings.Contains(log, c.msg) {
				t.Errorf("redis-server's log has no %q:\n%s", c.msg, log)
			}
			if c.line > 0 && !strings.Contains(log, fmt.Sprintf("Reading the manifest file, at line %d", c.line)) {
				t.Errorf("redis-server's log names another line than %d:\n%s", c.line, log)
			}
		})
	}
}
