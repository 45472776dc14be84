package compat

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"
)

// TestDebugLoadAOF: DEBUG LOADAOF, which Redis's own tests use to check
// what an AOF holds, empties the keyspace and loads the AOF back. Tandem
// and redis-server, given the same writes (every type, a transaction, a
// script, a second database), read back the same after it, twice over,
// and again after a restart: the reload fed nothing back into the AOF.
// On Tandem a memcached item keeps its flags and CAS.
func TestDebugLoadAOF(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	debug := []string{"--enable-debug-command", "yes"}
	rdir, tdir := t.TempDir(), t.TempDir()
	ref := startFor(t, rdir, "redis-loadaof", 1, redisAOFArgs(rdir, debug...))
	sut := startFor(t, tdir, "tandem-loadaof", 2, tandemAOF(tdir, debug...))
	rc, tc := client(ref.addrs[0]), client(sut.addrs[0])
	defer rc.Close()
	defer tc.Close()
	mc := memcache.New(sut.addrs[1])
	if err := mc.Set(&memcache.Item{Key: "mc", Value: []byte("item"), Flags: 42}); err != nil {
		t.Fatal(err)
	}
	before, err := mc.Get("mc")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*redis.Client{rc, tc} {
		aofWorkload(t, c)
	}
	want := snapshotOf(t, rc)
	// Tandem's database 0 holds the memcached item too.
	n, err := rc.DBSize(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	wantT := strings.Replace(want, fmt.Sprintf("[DBSIZE]=%d ", n), fmt.Sprintf("[DBSIZE]=%d ", n+1), 1)
	if wantT == want {
		t.Fatalf("no DBSIZE line in\n%s", want)
	}
	loadAOF := func(c *redis.Client, what string) {
		t.Helper()
		if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil {
			t.Fatalf("%s: DEBUG LOADAOF: %v", what, err)
		}
	}
	for round := 1; round <= 2; round++ {
		loadAOF(rc, "redis-server")
		loadAOF(tc, "Tandem")
		if got := snapshotOf(t, rc); got != want {
			t.Fatalf("redis-server after DEBUG LOADAOF %d reads back\n%s\nnot\n%s", round, got, want)
		}
		if got := snapshotOf(t, tc); got != wantT {
			t.Fatalf("Tandem after DEBUG LOADAOF %d reads back\n%s\nwant (redis-server's and the memcached item)\n%s", round, got, wantT)
		}
		after, err := mc.Get("mc")
		if err != nil || !bytes.Equal(after.Value, before.Value) || after.Flags != before.Flags || after.CasID != before.CasID {
			t.Fatalf("the memcached item after DEBUG LOADAOF %d: %+v %v, want %+v", round, after, err, before)
		}
	}
	tc.Close()
	sut.stop()
	sut = startFor(t, tdir, "tandem-loadaof-restarted", 2, tandemAOF(tdir, debug...))
	tc = client(sut.addrs[0])
	if got := snapshotOf(t, tc); got != wantT {
		t.Fatalf("Tandem restarted after DEBUG LOADAOF reads back\n%s\nwant\n%s", got, wantT)
	}
}

// TestDebugLoadAOFWithoutAOF: with appendonly no and no AOF in the
// directory redis-server exits; Tandem refuses and keeps its data.
func TestDebugLoadAOFWithoutAOF(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	dir := t.TempDir()
	sut := startFor(t, dir, "tandem-loadaof-off", 2, tandemArgs(dir, "--enable-debug-command", "yes"))
	c := client(sut.addrs[0])
	defer c.Close()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	err := c.Do(ctx, "DEBUG", "LOADAOF").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR ") {
		t.Fatalf("DEBUG LOADAOF without an AOF: %v, want an ERR", err)
	}
	if v, err := c.Get(ctx, "k").Result(); v != "v" {
		t.Fatalf("after the refused DEBUG LOADAOF k = %q %v", v, err)
	}
}
