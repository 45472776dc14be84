package compat

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"
)

// tandemAOF is the command line of a Tandem keeping an AOF in dir.
func tandemAOF(dir string, extra ...string) func(p []int) []string {
	return tandemArgs(dir, append([]string{"--appendonly", "yes"}, extra...)...)
}

// redisAOFArgs is the command line of a redis-server keeping an AOF in dir.
func redisAOFArgs(dir string, extra ...string) func(p []int) []string {
	return redisArgsIn(dir, append([]string{"--appendonly", "yes"}, extra...)...)
}

// aofWorkload writes every type, with expiries, a transaction and a
// script, through c.
func aofWorkload(t *testing.T, c *redis.Client) {
	t.Helper()
	ctx := context.Background()
	for _, args := range [][]any{
		{"SET", "s", "v"}, {"SET", "ttl", "v", "EX", "1000"}, {"INCR", "n"}, {"INCRBYFLOAT", "f", "1.5"},
		{"RPUSH", "l", "a", "b", "c"}, {"LPOP", "l"}, {"SADD", "set", "x", "y", "z"}, {"SPOP", "set"},
		{"HSET", "h", "f1", "1", "f2", "2"}, {"HINCRBYFLOAT", "h", "f1", "0.5"}, {"ZADD", "z", "1", "a", "2", "b"},
		{"XADD", "st", "1-1", "f", "v"}, {"XADD", "st", "2-1", "f", "w"}, {"SELECT", "2"}, {"SET", "in2", "x"},
		{"SELECT", "0"}, {"EXPIRE", "s", "1000"}, {"PERSIST", "s"}, {"DEL", "gone"}, {"SET", "gone", "1"}, {"DEL", "gone"},
		{"EVAL", "redis.call('set','lua','1') return redis.call('incr','lua')", "0"},
	} {
		if err := c.Do(ctx, args...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	pipe := c.TxPipeline()
	pipe.Set(ctx, "tx1", "a", 0)
	pipe.Append(ctx, "tx1", "b")
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

// snapshotOf reads back what aofWorkload leaves, as comparable text.
func snapshotOf(t *testing.T, c *redis.Client) string {
	t.Helper()
	ctx := context.Background()
	waitLoaded(t, c)
	var out string
	for _, args := range [][]any{{"GET", "s"}, {"TTL", "s"}, {"GET", "n"}, {"GET", "f"}, {"LRANGE", "l", "0", "-1"},
		{"SCARD", "set"}, {"HGETALL", "h"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}, {"XRANGE", "st", "-", "+"},
		{"GET", "lua"}, {"GET", "tx1"}, {"EXISTS", "gone"}, {"DBSIZE"}} {
		v, err := c.Do(ctx, args...).Result()
		out += fmt.Sprintf("%v=%v %v\n", args, v, err)
	}
	ttl, _ := c.TTL(ctx, "ttl").Result()
	out += fmt.Sprintf("ttl positive: %v\n", ttl > 900*time.Second)
	c2 := redis.NewClient(&redis.Options{Addr: c.Options().Addr, DB: 2})
	defer c2.Close()
	v, err := c2.Get(ctx, "in2").Result()
	return out + fmt.Sprintf("db2 in2=%v %v\n", v, err)
}

// waitLoaded waits while a server just started answers LOADING: it
// accepts connections before it has read its files.
func waitLoaded(t *testing.T, c *redis.Client) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := c.Ping(context.Background()).Err()
		if err == nil || !strings.HasPrefix(err.Error(), "LOADING") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("still loading")
		}
	}
}

func client(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1})
}

// TestAOFInterchange: what Tandem's AOF holds loads into redis-server
// 7.0, and redis-server's AOF loads into Tandem, with and without an RDB
// preamble, across a rewrite: each side reads back what the same writes
// left on the other.
func TestAOFInterchange(t *testing.T) {
	mustNotSelfTest(t)
	for _, preamble := range []string{"yes", "no"} {
		t.Run("preamble "+preamble, func(t *testing.T) {
			// The reference: redis-server writes, rewrites, writes, reads back.
			rdir := t.TempDir()
			ref := startFor(t, rdir, "redis-aof", 1, redisAOFArgs(rdir, "--aof-use-rdb-preamble", preamble))
			rc := client(ref.addrs[0])
			defer rc.Close()
			aofWorkload(t, rc)
			want := snapshotOf(t, rc)

			// Tandem writes the same and reads back the same.
			tdir := t.TempDir()
			sut := startFor(t, tdir, "tandem-aof", 2, tandemAOF(tdir, "--aof-use-rdb-preamble", preamble, "--appendfsync", "always"))
			tc := client(sut.addrs[0])
			aofWorkload(t, tc)
			if err := tc.Do(context.Background(), "BGREWRITEAOF").Err(); err != nil {
				t.Fatal(err)
			}
			waitRewrite(t, tc)
			tc.Set(context.Background(), "after", "rewrite", 0)
			tc.Del(context.Background(), "after")
			if got := snapshotOf(t, tc); got != want {
				t.Fatalf("Tandem reads back\n%s\nredis-server\n%s", got, want)
			}
			tc.Close()
			sut.stop()

			// Tandem's directory into redis-server.
			r2 := startFor(t, tdir, "redis-on-tandem-aof", 1, redisAOFArgs(tdir, "--aof-use-rdb-preamble", preamble))
			c2 := client(r2.addrs[0])
			if got := snapshotOf(t, c2); got != want {
				t.Errorf("redis-server on Tandem's AOF reads back\n%s\nwant\n%s", got, want)
			}
			c2.Close()
			r2.stop()
			ref.stop()

			// redis-server's directory into Tandem.
			t2 := startFor(t, rdir, "tandem-on-redis-aof", 2, tandemAOF(rdir, "--aof-use-rdb-preamble", preamble))
			c3 := client(t2.addrs[0])
			defer c3.Close()
			if got := snapshotOf(t, c3); got != want {
				t.Errorf("Tandem on redis-server's AOF reads back\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// waitRewrite waits for a BGREWRITEAOF to finish.
func waitRewrite(t *testing.T, c *redis.Client) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		info, _ := c.Info(context.Background(), "persistence").Result()
		if !containsLine(info, "aof_rewrite_in_progress:1") && !containsLine(info, "aof_rewrite_scheduled:1") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the rewrite did not finish")
		}
	}
}

func containsLine(text, line string) bool {
	for _, l := range splitLines(text) {
		if l == line {
			return true
		}
	}
	return false
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, trimCR(s[start:i]))
			start = i + 1
		}
	}
	return append(out, trimCR(s[start:]))
}

func trimCR(s string) string {
	if len(s) > 0 && s[len(s)-1] == '\r' {
		return s[:len(s)-1]
	}
	return s
}

// TestAOFMemcachedItemsSurvive: memcached items keep their flags, CAS
// and expiry across a restart from the AOF, and a delayed flush_all too.
func TestAOFMemcachedItemsSurvive(t *testing.T) {
	mustNotSelfTest(t)
	dir := t.TempDir()
	s := startFor(t, dir, "tandem-aof-mc", 2, tandemAOF(dir, "--appendfsync", "always"))
	mc := memcache.New(s.addrs[1])
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("v"), Flags: 42, Expiration: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := mc.Set(&memcache.Item{Key: "plain", Value: []byte("p"), Flags: 7}); err != nil {
		t.Fatal(err)
	}
	if err := mc.Append(&memcache.Item{Key: "plain", Value: []byte("q")}); err != nil {
		t.Fatal(err)
	}
	before, err := mc.Get("k")
	if err != nil {
		t.Fatal(err)
	}
	s.stop()
	s2 := startFor(t, dir, "tandem-aof-mc2", 2, tandemAOF(dir))
	mc2 := memcache.New(s2.addrs[1])
	after, err := mc2.Get("k")
	if err != nil {
		t.Fatal(err)
	}
	if after.Flags != 42 || string(after.Value) != "v" || after.CasID != before.CasID {
		t.Errorf("after restart: flags %d value %q cas %d, want 42 \"v\" %d", after.Flags, after.Value, after.CasID, before.CasID)
	}
	p, err := mc2.Get("plain")
	if err != nil || p.Flags != 7 || string(p.Value) != "pq" {
		t.Errorf("plain after restart: %+v %v", p, err)
	}
	rc := client(s2.addrs[0])
	defer rc.Close()
	if ttl, _ := rc.TTL(context.Background(), "k").Result(); ttl < 900*time.Second {
		t.Errorf("k's TTL after restart %v", ttl)
	}
}

// killUnderWriters runs 8 writers against a Tandem keeping an AOF under
// fsync, each SETting a key per write and INCRing its counter, kills it
// with -9 after a while, restarts it on the same directory and returns
// the writes acknowledged and those missing after the restart (per
// writer, its acknowledged count minus its counter).
func killUnderWriters(t *testing.T, fsync string, during func(c *redis.Client)) (acked, missing int64) {
	t.Helper()
	dir := t.TempDir()
	s := startFor(t, dir, "tandem-aof-kill", 2, tandemAOF(dir, "--appendfsync", fsync))
	const writers = 8
	var counts [writers]atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client(s.addrs[0])
			defer c.Close()
			for i := int64(1); ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := c.Set(context.Background(), fmt.Sprintf("w%d:%d", w, i), i, 0).Err(); err != nil {
					return
				}
				if n, err := c.Incr(context.Background(), fmt.Sprintf("ctr%d", w)).Result(); err != nil || n != i {
					return
				}
				counts[w].Store(i)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	if during != nil {
		c := client(s.addrs[0])
		during(c) // the kill follows at once
		c.Close()
	} else {
		time.Sleep(200 * time.Millisecond)
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	close(stop)
	wg.Wait()
	s2 := startFor(t, dir, "tandem-aof-kill2", 2, tandemAOF(dir))
	c := client(s2.addrs[0])
	defer c.Close()
	for w := range writers {
		n := counts[w].Load()
		acked += n
		got, _ := c.Get(context.Background(), fmt.Sprintf("ctr%d", w)).Int64()
		if got < n {
			missing += n - got
		}
		if got > 0 { // every SET before the counter's last INCR is there
			if v, err := c.Get(context.Background(), fmt.Sprintf("w%d:%d", w, got)).Int64(); err != nil || v != got {
				t.Errorf("writer %d: counter %d but its key %d is %d %v", w, got, got, v, err)
			}
		}
	}
	if acked < writers*10 {
		t.Fatalf("only %d writes were acknowledged before the kill", acked)
	}
	return acked, missing
}

// TestAOFAlwaysKill9: with appendfsync always, every write acknowledged
// before a kill -9 is there after the restart.
func TestAOFAlwaysKill9(t *testing.T) {
	mustNotSelfTest(t)
	acked, missing := killUnderWriters(t, "always", nil)
	if missing > 0 {
		t.Errorf("%d of %d acknowledged writes lost", missing, acked)
	}
	t.Logf("%d acknowledged writes, all present", acked)
}

// TestAOFEverysecKill9 measures what appendfsync everysec loses to a
// kill -9 (the process dies, the kernel keeps what was written): at most
// about a second's writes, as Redis promises for a machine crash.
func TestAOFEverysecKill9(t *testing.T) {
	mustNotSelfTest(t)
	acked, missing := killUnderWriters(t, "everysec", nil)
	perSecond := acked * 10 / 7 // the writers ran about 0.7 s
	if missing > perSecond {
		t.Errorf("%d of %d acknowledged writes lost: more than a second's (%d)", missing, acked, perSecond)
	}
	t.Logf("everysec: %d acknowledged writes, %d lost to kill -9", acked, missing)
}

// TestAOFKill9DuringRewrite: a kill -9 while BGREWRITEAOF runs leaves a
// directory that loads every acknowledged write (the previous manifest
// and its files, or the new ones).
func TestAOFKill9DuringRewrite(t *testing.T) {
	mustNotSelfTest(t)
	acked, missing := killUnderWriters(t, "always", func(c *redis.Client) {
		// Enough data that the rewrite is still writing at the kill.
		ctx := context.Background()
		pipe := c.Pipeline()
		for i := range 200000 {
			pipe.Set(ctx, fmt.Sprintf("bulk:%d", i), strings.Repeat("x", 200), 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Do(ctx, "BGREWRITEAOF").Err(); err != nil {
			t.Fatal(err)
		}
		if info, _ := c.Info(ctx, "persistence").Result(); !strings.Contains(info, "aof_rewrite_in_progress:1") {
			t.Error("the rewrite ended before the kill: the test proves nothing")
		}
	})
	if missing > 0 {
		t.Errorf("%d of %d acknowledged writes lost", missing, acked)
	}
}

// TestAOFSaveWhileWriting: SAVE (and REPLICAOF NO ONE) leave the write
// stream's order before the snapshot's barrier, which waits for the other
// connections' batches: with the AOF on and writers running, SAVE still
// returns (it deadlocked while it held the order).
func TestAOFSaveWhileWriting(t *testing.T) {
	mustNotSelfTest(t)
	dir := t.TempDir()
	s := startFor(t, dir, "tandem-aof-save", 2, tandemAOF(dir))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client(s.addrs[0])
			defer c.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				c.Set(context.Background(), fmt.Sprintf("k%d:%d", w, i%100), i, 0)
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	c := redis.NewClient(&redis.Options{Addr: s.addrs[0], Protocol: 2, ReadTimeout: 10 * time.Second})
	defer c.Close()
	for range 5 {
		if err := c.Save(context.Background()).Err(); err != nil {
			t.Fatalf("SAVE beside writers with the AOF on: %v", err)
		}
		if err := c.Do(context.Background(), "REPLICAOF", "NO", "ONE").Err(); err != nil {
			t.Fatal(err)
		}
	}
}
