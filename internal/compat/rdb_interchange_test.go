package compat

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RDB interchange, end to end with the real binaries: redis-server fills a
// dump that Tandem loads at start, and Tandem writes one redis-server
// loads; both sides must then answer the same for every key (type, value,
// TTL) and for FUNCTION LIST.

// fillEveryType writes every type, small (compact encodings) and large, in
// two databases, with TTLs, binary data, a HyperLogLog and a function.
func fillEveryType(t *testing.T, c *redis.Client) {
	t.Helper()
	ctx := context.Background()
	var big []any
	for i := 0; i < 300; i++ {
		big = append(big, "member-"+strconv.Itoa(i))
	}
	bigPairs := []any{}
	var zbig []redis.Z
	for i := 0; i < 300; i++ {
		bigPairs = append(bigPairs, "f"+strconv.Itoa(i), strings.Repeat("v", i%90))
		zbig = append(zbig, redis.Z{Member: "m" + strconv.Itoa(i), Score: float64(i) / 3})
	}
	steps := []func(c redis.Cmdable) error{
		func(c redis.Cmdable) error { return c.Set(ctx, "str", "hello", 0).Err() },
		func(c redis.Cmdable) error { return c.Set(ctx, "int", "-12345", 0).Err() },
		func(c redis.Cmdable) error { return c.Set(ctx, "long", strings.Repeat("compressible ", 200), 0).Err() },
		func(c redis.Cmdable) error { return c.Set(ctx, "bin\x00\xff", "\x00\r\n\xfe", time.Hour).Err() },
		func(c redis.Cmdable) error { return c.RPush(ctx, "list", "a", "b", "1", "").Err() },
		func(c redis.Cmdable) error { return c.RPush(ctx, "biglist", big...).Err() },
		func(c redis.Cmdable) error { return c.SAdd(ctx, "intset", 1, 2, -7, 1<<40).Err() },
		func(c redis.Cmdable) error { return c.SAdd(ctx, "smallset", "x", "y").Err() },
		func(c redis.Cmdable) error { return c.SAdd(ctx, "bigset", big...).Err() },
		func(c redis.Cmdable) error { return c.HSet(ctx, "hash", "f", "v", "n", "1").Err() },
		func(c redis.Cmdable) error { return c.HSet(ctx, "bighash", bigPairs...).Err() },
		func(c redis.Cmdable) error {
			return c.ZAdd(ctx, "zset", redis.Z{Member: "a", Score: 1.5}, redis.Z{Member: "b", Score: -2}).Err()
		},
		func(c redis.Cmdable) error { return c.ZAdd(ctx, "bigzset", zbig...).Err() },
		func(c redis.Cmdable) error { return c.PFAdd(ctx, "hll", "a", "b", "c", "d").Err() },
		func(c redis.Cmdable) error { return c.Expire(ctx, "hash", 2*time.Hour).Err() },
		func(c redis.Cmdable) error { return c.Expire(ctx, "bigzset", 3*time.Hour).Err() },
		func(c redis.Cmdable) error {
			return c.FunctionLoad(ctx, "#!lua name=mylib\nredis.register_function('seven', function() return 7 end)").Err()
		},
	}
	for i, step := range steps {
		if err := step(c); err != nil {
			t.Fatalf("fill step %d: %v", i, err)
		}
	}
	pipe := c.Pipeline()
	pipe.Select(ctx, 5)
	pipe.Set(ctx, "db5", "five", 0)
	pipe.RPush(ctx, "db5list", "x")
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

// describeKeyspace lists every key of databases 0 and 5 with its type,
// value and TTL (rounded to minutes), plus the function libraries.
func describeKeyspace(t *testing.T, addr string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, db := range []int{0, 5} {
		c := redis.NewClient(&redis.Options{Addr: addr, DB: db, Protocol: 2})
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(keys)
		for _, k := range keys {
			typ := c.Type(ctx, k).Val()
			var v any
			switch typ {
			case "string":
				v = c.Get(ctx, k).Val()
			case "list":
				v = c.LRange(ctx, k, 0, -1).Val()
			case "set":
				m := c.SMembers(ctx, k).Val()
				sort.Strings(m)
				v = m
			case "hash":
				m := c.HGetAll(ctx, k).Val()
				var kv []string
				for f, x := range m {
					kv = append(kv, f+"="+x)
				}
				sort.Strings(kv)
				v = kv
			case "zset":
				v = c.ZRangeWithScores(ctx, k, 0, -1).Val()
			}
			ttl := c.TTL(ctx, k).Val().Round(time.Minute)
			out = append(out, fmt.Sprintf("db%d %q %s ttl=%v %v", db, k, typ, ttl, v))
		}
		if db == 0 {
			out = append(out, fmt.Sprintf("pfcount=%d", c.PFCount(ctx, "hll").Val()))
			libs := c.FunctionList(ctx, redis.FunctionListQuery{}).Val()
			for _, l := range libs {
				out = append(out, "library "+l.Name)
			}
			out = append(out, fmt.Sprint("fcall=", c.FCall(ctx, "seven", nil).Val()))
		}
		c.Close()
	}
	return out
}

// startRedisIn starts a redis-server whose dump lives in dir.
func startRedisIn(t *testing.T, dir string) *server {
	t.Helper()
	s, err := startServer(dir, "redis-rdb", 1, func(p []int) []string {
		return []string{"redis-server", "--port", strconv.Itoa(p[0]), "--bind", "127.0.0.1", "--save", "",
			"--dir", dir, "--dbfilename", "dump.rdb", "--appendonly", "no"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

// startTandemIn starts Tandem whose dump lives in dir.
func startTandemIn(t *testing.T, dir string) *server {
	t.Helper()
	s, err := startServer(dir, "tandem-rdb", 2, func(p []int) []string {
		return []string{tandemBin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
			"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--dbfilename", "dump.rdb"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

func saveVia(t *testing.T, addr string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer c.Close()
	if err := c.Save(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
}

func TestRDBFromRedisLoadsIntoTandem(t *testing.T) {
	mustNotSelfTest(t)
	redisDir, tandemDir := t.TempDir(), t.TempDir()
	r := startRedisIn(t, redisDir)
	rc := redis.NewClient(&redis.Options{Addr: r.addrs[0], Protocol: 2})
	defer rc.Close()
	fillEveryType(t, rc)
	saveVia(t, r.addrs[0])
	want := describeKeyspace(t, r.addrs[0])
	copyFile(t, filepath.Join(redisDir, "dump.rdb"), filepath.Join(tandemDir, "dump.rdb"))
	tnd := startTandemIn(t, tandemDir)
	got := describeKeyspace(t, tnd.addrs[0])
	t.Logf("%d facts compared, e.g. %q", len(want), want[len(want)-3:])
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Tandem loaded redis-server's dump differently:\nredis  %q\ntandem %q", want, got)
	}
}

func TestRDBFromTandemLoadsIntoRedis(t *testing.T) {
	mustNotSelfTest(t)
	redisDir, tandemDir := t.TempDir(), t.TempDir()
	tnd := startTandemIn(t, tandemDir)
	tc := redis.NewClient(&redis.Options{Addr: tnd.addrs[0], Protocol: 2})
	defer tc.Close()
	fillEveryType(t, tc)
	// A memcached item with flags: Tandem keeps them, redis-server ignores them.
	mc := dialMemc(t, tnd.addrs[1])
	if got := mc.do("set mc 1234 0 3\r\nabc\r\n"); got != "STORED\r\n" {
		t.Fatalf("memcached set: %q", got)
	}
	saveVia(t, tnd.addrs[0])
	want := describeKeyspace(t, tnd.addrs[0])
	copyFile(t, filepath.Join(tandemDir, "dump.rdb"), filepath.Join(redisDir, "dump.rdb"))
	r := startRedisIn(t, redisDir)
	got := describeKeyspace(t, r.addrs[0])
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("redis-server loaded Tandem's dump differently:\ntandem %q\nredis  %q", want, got)
	}
	// And back into a new Tandem: the memcached flags survive.
	again := t.TempDir()
	copyFile(t, filepath.Join(tandemDir, "dump.rdb"), filepath.Join(again, "dump.rdb"))
	t2 := startTandemIn(t, again)
	if got := dialMemc(t, t2.addrs[1]).do("get mc\r\n"); got != "VALUE mc 1234 3\r\nabc\r\nEND\r\n" {
		t.Errorf("memcached item after a round trip: %q", got)
	}
}

// TestCorruptDumpRefusesStart: a truncated dump stops Tandem at start with
// a message naming the file and the offset, keyspace untouched; with
// start-empty-on-bad-dump it starts empty and keeps the file aside.
func TestCorruptDumpRefusesStart(t *testing.T) {
	mustNotSelfTest(t)
	dir := t.TempDir()
	tnd := startTandemIn(t, dir)
	tc := redis.NewClient(&redis.Options{Addr: tnd.addrs[0], Protocol: 2})
	fillEveryType(t, tc)
	tc.Close()
	saveVia(t, tnd.addrs[0])
	tnd.stop()
	path := filepath.Join(dir, "dump.rdb")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(1) // listening, as Redis refuses to start listening nowhere before it loads
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tandemBin, "--port", strconv.Itoa(ports[0]), "--memcached-port", "0", "--save", "", "--dir", dir).CombinedOutput()
	if err == nil {
		t.Fatalf("Tandem started on a truncated dump:\n%s", out)
	}
	if !strings.Contains(string(out), path) || !strings.Contains(string(out), "offset") {
		t.Errorf("the refusal does not name the file and the offset:\n%s", out)
	}
	s, err := startServer(dir, "tandem-empty", 2, func(p []int) []string {
		return []string{tandemBin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
			"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--start-empty-on-bad-dump", "yes"}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	c := redis.NewClient(&redis.Options{Addr: s.addrs[0], Protocol: 2})
	defer c.Close()
	if n := c.DBSize(context.Background()).Val(); n != 0 {
		t.Errorf("started with %d keys from a bad dump", n)
	}
	kept, _ := filepath.Glob(path + ".bad-*")
	if len(kept) != 1 {
		t.Errorf("the bad dump was not kept aside: %v", kept)
	}
}
