package propagate_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/internal/realserver"
	"github.com/tandemkv/tandem/node/nodetest"
	"github.com/tandemkv/tandem/propagate"
)

// capture is a sink writing the stream as Redis's AOF does: a SELECT
// before a command for another database than the last one's.
type capture struct {
	mu  sync.Mutex
	db  int
	buf bytes.Buffer
}

func (c *capture) Feed(db int, cmd []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if db != c.db {
		c.buf.Write(propagate.Select(nil, db))
		c.db = db
	}
	c.buf.Write(cmd)
}

func (c *capture) take() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := bytes.Clone(c.buf.Bytes())
	c.buf.Reset()
	return out
}

// redisAOF runs redis-server with an AOF of commands (no RDB preamble,
// fsync always, so a reply means the command is in the file) and reads
// what each case appended to its incr file.
type redisAOF struct {
	addr string
	file string
	off  int
}

func startRedisAOF(t *testing.T) *redisAOF {
	t.Helper()
	dir := t.TempDir()
	port := nodetest.FreePort(t)
	cmd := exec.Command(realserver.Path(t, realserver.Redis), "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", dir, "--save", "", "--appendonly", "yes", "--aof-use-rdb-preamble", "no",
		"--appendfsync", "always", "--logfile", filepath.Join(dir, "log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := &redisAOF{addr: fmt.Sprintf("127.0.0.1:%d", port), file: filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")}
	c := redis.NewClient(&redis.Options{Addr: r.addr, Protocol: 2})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
	}
	return r
}

func (r *redisAOF) take(t *testing.T) []byte {
	b, err := os.ReadFile(r.file)
	if err != nil {
		t.Fatal(err)
	}
	out := b[r.off:]
	r.off = len(b)
	return out
}

// unixMs matches a unix time in ms of these years as a RESP bulk: the
// two servers' PXAT and PEXPIREAT differ by the moments they ran.
var (
	unixMs   = regexp.MustCompile(`\$13\r\n1[78]\d{11}\r\n`)
	streamID = regexp.MustCompile(`\$\d+\r\n1[78]\d{11}-\d+\r\n`) // an ID XADD * made
)

func normal(b []byte) string {
	s := streamID.ReplaceAllString(string(b), "<id>\r\n")
	return strings.ReplaceAll(unixMs.ReplaceAllString(s, "$$13\r\n<ms>\r\n"), "\r\n", " ")
}

// startStreamPair starts a redis-server keeping an AOF and a Tandem whose
// stream a capture sink reads, and returns both and Tandem's address.
func startStreamPair(t *testing.T) (*redisAOF, *capture, string) {
	ref := startRedisAOF(t)
	port := nodetest.FreePort(t)
	n := nodetest.Start(t, []string{"--port", strconv.Itoa(port), "--memcached-port", "0", "--save", ""}, nil)
	sink := &capture{db: -1}
	n.Services.Stream.Add(sink)
	return ref, sink, fmt.Sprintf("127.0.0.1:%d", port)
}

// TestStreamLikeRedisAOF sends the same commands to redis-server with an
// AOF and to Tandem with a capturing sink, and compares what each case
// appended: Tandem propagates what Redis 7.0 does, in its forms.
func TestStreamLikeRedisAOF(t *testing.T) {
	ref, sink, sut := startStreamPair(t)
	ctx := context.Background()
	cases := []struct {
		name string
		cmds [][]any
		wait time.Duration // before the last command (lazy expiry)
	}{
		{"set plain", [][]any{{"SET", "k", "v"}, {"SET", "k", "w", "NX"}, {"SET", "k", "w", "XX"}}, 0},
		{"set expiry forms", [][]any{{"SET", "k", "v", "EX", "100"}, {"SET", "k", "v", "PX", "100000", "GET"}, {"SETEX", "k", "100", "v"}, {"PSETEX", "k", "100000", "v"}, {"SET", "k", "v", "KEEPTTL", "GET"}}, 0},
		{"getset getdel getex", [][]any{{"GETSET", "k", "a"}, {"GETEX", "k", "EX", "100"}, {"GETEX", "k", "PERSIST"}, {"GETEX", "k", "PERSIST"}, {"GETEX", "k"}, {"GETDEL", "k"}, {"GETDEL", "k"}}, 0},
		{"expire family", [][]any{{"SET", "k", "v"}, {"EXPIRE", "k", "100"}, {"PEXPIRE", "k", "200000", "GT"}, {"EXPIREAT", "k", "4000000000"}, {"PEXPIREAT", "k", "4000000000000"}, {"EXPIRE", "k", "100", "NX"}, {"PERSIST", "k"}, {"EXPIRE", "nokey", "10"}, {"EXPIRE", "k", "-1"}}, 0},
		{"no change no op", [][]any{{"DEL", "none"}, {"SREM", "none", "a"}, {"SET", "k", "v"}, {"SET", "k", "v", "NX"}, {"HDEL", "k2", "f"}, {"DEL", "k", "none"}}, 0},
		{"floats", [][]any{{"SET", "f", "10.5"}, {"INCRBYFLOAT", "f", "0.1"}, {"HSET", "h", "x", "1"}, {"HINCRBYFLOAT", "h", "x", "2.5"}}, 0},
		{"spop", [][]any{{"SADD", "s", "only"}, {"SPOP", "s"}, {"SADD", "s", "a", "b"}, {"SPOP", "s", "5"}, {"SADD", "s", "c"}, {"SPOP", "s", "1"}}, 0},
		{"select and flush", [][]any{{"SELECT", "3"}, {"SET", "a", "1"}, {"SELECT", "0"}, {"SET", "a", "1"}, {"SWAPDB", "0", "3"}, {"FLUSHDB"}, {"FLUSHALL"}}, 0},
		{"multi exec", [][]any{{"MULTI"}, {"SET", "a", "1"}, {"INCR", "a"}, {"GET", "a"}, {"EXEC"}, {"MULTI"}, {"SET", "a", "2"}, {"EXEC"}, {"MULTI"}, {"GET", "a"}, {"EXEC"}}, 0},
		{"scripts", [][]any{{"EVAL", "redis.call('set','a','1') redis.call('incr','a') return 1", "0"}, {"EVAL", "return redis.call('set','b','1')", "0"}, {"EVAL", "return redis.call('get','b')", "0"}}, 0},
		{"lists hashes zsets", [][]any{{"RPUSH", "l", "a", "b", "c"}, {"LPOP", "l"}, {"LMOVE", "l", "l2", "LEFT", "RIGHT"}, {"HSET", "h", "a", "1"}, {"ZADD", "z", "1", "m"}, {"ZINCRBY", "z", "2", "m"}, {"APPEND", "s", "x"}, {"SETRANGE", "s", "3", "y"}, {"INCR", "n"}, {"INCRBY", "n", "5"}}, 0},
		{"blocking served at once", [][]any{{"RPUSH", "q", "a", "b", "c", "d"}, {"BLPOP", "q", "0"}, {"BRPOP", "q", "0"},
			{"BLMPOP", "0", "1", "q", "LEFT", "COUNT", "5"}, {"RPUSH", "q", "e"}, {"BLMOVE", "q", "q2", "LEFT", "RIGHT", "0"},
			{"BRPOPLPUSH", "q2", "q", "0"}, {"ZADD", "z", "1", "a", "2", "b", "3", "c"}, {"BZPOPMIN", "z", "0"},
			{"BZPOPMAX", "z", "0"}, {"BZMPOP", "0", "1", "z", "MIN", "COUNT", "3"}, {"LMPOP", "1", "q", "RIGHT"}}, 0},
		{"lazy expiry", [][]any{{"SET", "e", "v", "PX", "1"}, {"GET", "e"}}, 50 * time.Millisecond},
		{"streams", [][]any{{"XADD", "st", "*", "f", "v"}, {"XADD", "st", "MAXLEN", "~", "1", "*", "f", "w"},
			{"XADD", "st", "5-*", "f", "x"}, {"XADD", "st", "NOMKSTREAM", "MAXLEN", "~", "2", "LIMIT", "5", "*", "f", "y"}, {"XTRIM", "st", "MAXLEN", "~", "0"},
			{"XTRIM", "st", "MAXLEN", "=", "1"}}, 0},
		{"streams minid", [][]any{{"XADD", "mi", "1-1", "f", "v"}, {"XADD", "mi", "2-1", "f", "v"}, {"XADD", "mi", "3-1", "f", "v"},
			{"XADD", "mi", "MINID", "~", "3", "4-1", "f", "v"}, {"XDEL", "mi", "1-1"}, {"XADD", "mi", "MINID", "~", "2", "LIMIT", "10", "5-1", "f", "v"},
			{"XTRIM", "mi", "MINID", "~", "9"}, {"XTRIM", "mi", "MINID", "=", "5"}, {"XTRIM", "mi", "MINID", "~", "9"}}, 0},
		{"stream groups read", [][]any{{"XGROUP", "CREATE", "gs", "g", "$", "MKSTREAM"}, {"XGROUP", "CREATE", "gs", "g", "$"},
			{"XADD", "gs", "1-1", "f", "v"}, {"XADD", "gs", "2-1", "f", "w"}, {"XADD", "gs", "3-1", "f", "x"}, {"XGROUP", "CREATE", "gs", "g2", "0"},
			{"XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "gs", ">"}, {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "gs", ">"},
			{"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "gs", ">"}, {"XREADGROUP", "GROUP", "g2", "c2", "NOACK", "COUNT", "2", "STREAMS", "gs", ">"},
			{"XREADGROUP", "GROUP", "g2", "c2", "NOACK", "STREAMS", "gs", ">"}, {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "gs", "0"},
			{"XREADGROUP", "GROUP", "g", "c3", "STREAMS", "gs", "0"}, {"XREADGROUP", "GROUP", "g", "c4", "NOACK", "STREAMS", "gs", "0"},
			{"XADD", "gs2", "1-1", "f", "v"}, {"XGROUP", "CREATE", "gs2", "g", "0"},
			{"XREADGROUP", "GROUP", "g", "c5", "STREAMS", "gs", "gs2", ">", ">"}, {"XREADGROUP", "GROUP", "g", "c5", "STREAMS", "gs", ">"},
			{"XACK", "gs", "g", "1-1", "2-1"}, {"XACK", "gs", "g", "1-1"}, {"XACK", "gs", "nogroup", "1-1"}}, 0},
		{"stream groups claim", [][]any{{"XADD", "cs", "1-1", "f", "v"}, {"XADD", "cs", "2-1", "f", "w"}, {"XADD", "cs", "3-1", "f", "x"}, {"XADD", "cs", "4-1", "f", "y"},
			{"XGROUP", "CREATE", "cs", "g", "0"}, {"XREADGROUP", "GROUP", "g", "c1", "COUNT", "3", "STREAMS", "cs", ">"},
			{"XCLAIM", "cs", "g", "c2", "0", "1-1"}, {"XCLAIM", "cs", "g", "c2", "0", "1", "2-1", "JUSTID"},
			{"XCLAIM", "cs", "g", "c3", "0", "2-1", "IDLE", "10", "RETRYCOUNT", "5"}, {"XCLAIM", "cs", "g", "c3", "0", "3-1", "TIME", "1700000000000"},
			{"XCLAIM", "cs", "g", "c1", "3600000", "1-1"}, {"XCLAIM", "cs", "g", "c1", "0", "4-1"}, {"XCLAIM", "cs", "g", "c1", "0", "4-1", "FORCE"},
			{"XCLAIM", "cs", "g", "c1", "0", "9-9", "LASTID", "5-0"}, {"XCLAIM", "cs", "g", "c1", "0", "9-9", "LASTID", "5-0"},
			{"XCLAIM", "cs", "g", "c1", "0", "1-1", "LASTID", "6-0"}, {"XCLAIM", "cs", "g", "c1", "0", "1-1", "BADOPT"},
			{"XDEL", "cs", "2-1"}, {"XCLAIM", "cs", "g", "c4", "0", "2-1", "3-1"},
			{"XDEL", "cs", "3-1"}, {"XAUTOCLAIM", "cs", "g", "c5", "0", "0"}, {"XAUTOCLAIM", "cs", "g", "c5", "0", "0", "COUNT", "1", "JUSTID"},
			{"XAUTOCLAIM", "cs", "g", "c6", "3600000", "0"}, {"XAUTOCLAIM", "cs", "nogroup", "c6", "0", "0"}}, 0},
		{"stream groups redeliver", [][]any{{"XADD", "rs", "1-1", "f", "v"}, {"XADD", "rs", "2-1", "f", "w"}, {"XGROUP", "CREATE", "rs", "g", "0"},
			{"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "rs", ">"}, {"XGROUP", "SETID", "rs", "g", "0"},
			{"XREADGROUP", "GROUP", "g", "c2", "COUNT", "1", "STREAMS", "rs", ">"}, {"XGROUP", "SETID", "rs", "g", "0"},
			{"XREADGROUP", "GROUP", "g", "c3", "NOACK", "STREAMS", "rs", ">"}, {"XCLAIM", "rs", "g", "c4", "0", "2-1", "2-1", "1-1"},
			{"MULTI"}, {"XADD", "rs", "3-1", "f", "x"}, {"XREADGROUP", "GROUP", "g", "c4", "STREAMS", "rs", ">"}, {"XACK", "rs", "g", "3-1"}, {"EXEC"},
			{"SELECT", "2"}, {"XADD", "rs", "1-1", "f", "v"}, {"XGROUP", "CREATE", "rs", "g", "0"}, {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "rs", ">"}}, 0},
		{"stream groups admin", [][]any{{"XADD", "as", "1-1", "f", "v"}, {"XADD", "as", "2-1", "f", "w"}, {"XGROUP", "CREATE", "as", "g", "0", "ENTRIESREAD", "0"},
			{"XGROUP", "SETID", "as", "g", "1-1"}, {"XGROUP", "SETID", "as", "g", "$", "ENTRIESREAD", "2"}, {"XGROUP", "SETID", "as", "nogroup", "0"},
			{"XGROUP", "CREATECONSUMER", "as", "g", "c9"}, {"XGROUP", "CREATECONSUMER", "as", "g", "c9"},
			{"XGROUP", "DELCONSUMER", "as", "g", "c9"}, {"XGROUP", "DELCONSUMER", "as", "g", "c9"},
			{"XGROUP", "CREATE", "as", "g2", "0"}, {"XGROUP", "DESTROY", "as", "g2"}, {"XGROUP", "DESTROY", "as", "g2"},
			{"MULTI"}, {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "as", "0"}, {"XGROUP", "SETID", "as", "g", "0"}, {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "as", ">"}, {"EXEC"},
			{"EVAL", "redis.call('xreadgroup','group','g','c7','noack','streams','as','0') return 1", "1", "as"}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got [2]string
			for _, addr := range []string{ref.addr, sut} {
				cl := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1})
				for j, args := range c.cmds {
					if j == len(c.cmds)-1 && c.wait > 0 {
						time.Sleep(c.wait)
					}
					cl.Do(ctx, args...) // errors are part of the case
				}
				cl.Close()
			}
			time.Sleep(20 * time.Millisecond)
			got[0], got[1] = normal(ref.take(t)), normal(sink.take())
			if got[0] != got[1] {
				t.Errorf("stream differs\nredis:  %q\ntandem: %q", got[0], got[1])
			}
		})
	}
}

// TestStreamHandoffLikeRedisAOF: a blocked client served by another's
// push is propagated as Redis does — the push, then the pop it made — and
// a blocked move as the LMOVE it ran.
func TestStreamHandoffLikeRedisAOF(t *testing.T) {
	ref, sink, sut := startStreamPair(t)
	ctx := context.Background()
	cases := []struct {
		name    string
		blocked []any
		push    [][]any
		setup   [][]any // before the client blocks
	}{
		{"blpop", []any{"BLPOP", "q", "0"}, [][]any{{"RPUSH", "q", "a", "b"}}, nil},
		{"brpop", []any{"BRPOP", "q2", "0"}, [][]any{{"LPUSH", "q2", "a", "b"}}, nil},
		{"blmpop", []any{"BLMPOP", "0", "1", "q3", "LEFT", "COUNT", "5"}, [][]any{{"RPUSH", "q3", "a", "b", "c"}}, nil},
		{"bzpopmin", []any{"BZPOPMIN", "z", "0"}, [][]any{{"ZADD", "z", "1", "a", "2", "b"}}, nil},
		{"blmove", []any{"BLMOVE", "q4", "d", "LEFT", "RIGHT", "0"}, [][]any{{"RPUSH", "q4", "a", "b"}}, nil},
		{"brpoplpush", []any{"BRPOPLPUSH", "q5", "d", "0"}, [][]any{{"RPUSH", "q5", "a"}}, nil},
		{"served in exec", []any{"BLPOP", "q6", "0"}, [][]any{{"MULTI"}, {"RPUSH", "q6", "a"}, {"RPUSH", "q6", "b"}, {"EXEC"}}, nil},
		{"xreadgroup", []any{"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "hs", ">"}, [][]any{{"XADD", "hs", "1-1", "f", "v"}},
			[][]any{{"XGROUP", "CREATE", "hs", "g", "$", "MKSTREAM"}}},
		{"xreadgroup noack", []any{"XREADGROUP", "GROUP", "g", "c", "NOACK", "BLOCK", "0", "STREAMS", "hs2", ">"}, [][]any{{"XADD", "hs2", "1-1", "f", "v"}},
			[][]any{{"XGROUP", "CREATE", "hs2", "g", "$", "MKSTREAM"}}},
		{"xreadgroup served in exec", []any{"XREADGROUP", "GROUP", "g", "c", "COUNT", "10", "BLOCK", "0", "STREAMS", "hs3", ">"},
			[][]any{{"MULTI"}, {"XADD", "hs3", "1-1", "f", "v"}, {"XADD", "hs3", "2-1", "f", "w"}, {"EXEC"}},
			[][]any{{"XGROUP", "CREATE", "hs3", "g", "$", "MKSTREAM"}, {"XGROUP", "CREATECONSUMER", "hs3", "g", "c"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got [2]string
			for i, addr := range []string{ref.addr, sut} {
				waiter := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1})
				pusher := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1})
				for _, args := range c.setup {
					pusher.Do(ctx, args...)
				}
				done := make(chan error, 1)
				go func() { done <- waiter.Do(ctx, c.blocked...).Err() }()
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
					info, _ := pusher.Info(ctx, "clients").Result()
					if strings.Contains(info, "blocked_clients:1") {
						break
					}
					if time.Now().After(deadline) {
						t.Fatal("the client did not block")
					}
				}
				for _, args := range c.push {
					pusher.Do(ctx, args...)
				}
				if err := <-done; err != nil {
					t.Fatalf("%v: %v", c.blocked, err)
				}
				waiter.Close()
				pusher.Close()
				time.Sleep(20 * time.Millisecond)
				if i == 0 {
					got[0] = normal(ref.take(t))
				} else {
					got[1] = normal(sink.take())
				}
			}
			if got[0] != got[1] {
				t.Errorf("stream differs\nredis:  %q\ntandem: %q", got[0], got[1])
			}
		})
	}
}
