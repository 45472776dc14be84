package compat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"
)

// TestReplicaKeysExpireByMasterDEL: a replica's keys expire when its
// master says so, as on a redis-server replica. With the master's active
// expiry stopped, a key past its TTL reads as missing on the replica (GET,
// EXISTS, SCAN, TTL, the memcached port) yet stays counted (DBSIZE, INFO
// keyspace), however often it is read; it goes when the master's own
// lookup expires it and sends the DEL. A Tandem replica and a
// redis-server replica of the same redis-server master must agree at
// every step. (A replica that removed keys itself would lose for good a
// key its master, a moment behind, extends or writes to.)
func TestReplicaKeysExpireByMasterDEL(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	mustNotSelfTest(t)
	ctx := context.Background()
	mdir, rdir, tdir := t.TempDir(), t.TempDir(), t.TempDir()
	master := startFor(t, mdir, "redis-master", 1, redisArgsIn(mdir, "--enable-debug-command", "yes"))
	mc := client(master.addrs[0])
	defer mc.Close()
	host, port, _ := strings.Cut(master.addrs[0], ":")
	ref := startFor(t, rdir, "redis-replica", 1, redisArgsIn(rdir))
	rc := client(ref.addrs[0])
	defer rc.Close()
	sut := startFor(t, tdir, "tandem-replica", 2, tandemArgs(tdir))
	tc := client(sut.addrs[0])
	defer tc.Close()
	for _, c := range []*redis.Client{rc, tc} {
		if err := c.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
			t.Fatal(err)
		}
	}
	mcc := memcache.New(sut.addrs[1])

	waitInSync(t, rc, mc)
	waitInSync(t, tc, mc)
	if err := mc.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]any{{"SET", "k", "v", "PX", "150"}, {"SET", "keep", "v"}, {"HSET", "h", "f", "v"}, {"PEXPIRE", "h", "150"}} {
		if err := mc.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	waitInSync(t, rc, mc)
	waitInSync(t, tc, mc)
	time.Sleep(300 * time.Millisecond)

	observe := func(step string) {
		t.Helper()
		var got [2]string
		for i, c := range []*redis.Client{rc, tc} {
			var b strings.Builder
			for _, args := range [][]any{{"GET", "k"}, {"EXISTS", "k", "h"}, {"HGETALL", "h"}, {"TTL", "k"}, {"SCAN", "0", "COUNT", "100"}, {"DBSIZE"}, {"GET", "k"}, {"DBSIZE"}} {
				v, err := c.Do(ctx, args...).Result()
				fmt.Fprintf(&b, "%v=%v %v\n", args, v, err)
			}
			ks, _ := c.Info(ctx, "keyspace").Result()
			fmt.Fprintf(&b, "keyspace %s\n", strings.TrimSpace(strings.SplitN(infoField(ks, "db0"), ",avg_ttl", 2)[0]))
			got[i] = b.String()
		}
		if got[0] != got[1] {
			t.Errorf("%s: Tandem replica\n%s\nredis-server replica\n%s", step, got[1], got[0])
		}
	}
	observe("expired, no DEL yet")
	if _, err := mcc.Get("k"); err != memcache.ErrCacheMiss {
		t.Errorf("memcached get of an expired key on the replica: %v, want a miss", err)
	}
	time.Sleep(1200 * time.Millisecond) // a Tandem that expired keys itself would have by now
	observe("a second later")
	// The master's lookups expire the keys and send their DELs.
	mc.Get(ctx, "k")
	mc.Exists(ctx, "h")
	waitInSync(t, rc, mc)
	waitInSync(t, tc, mc)
	observe("after the master's DELs")
	if n, _ := tc.DBSize(ctx).Result(); n != 1 {
		t.Errorf("DBSIZE on the Tandem replica after the DELs: %d, want 1", n)
	}

	// Writable, a replica expires the keys its own clients gave a TTL and
	// still leaves the master's to its DELs; a write to the master's
	// expired key replaces it (replication-3.tcl's writable-replica tests).
	do := func(c *redis.Client, args ...any) string {
		v, err := c.Do(ctx, args...).Result()
		return fmt.Sprintf("%v=%v %v\n", args, v, err)
	}
	for _, c := range []*redis.Client{rc, tc} {
		for _, args := range [][]any{{"CONFIG", "SET", "replica-read-only", "no"}, {"SET", "own", "1", "PX", "200"},
			{"SET", "own2", "1", "PX", "200"}, {"PERSIST", "own2"}, {"SET", "own3", "1"}, {"PEXPIRE", "own3", "200"}} {
			if err := c.Do(ctx, args...).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := mc.Do(ctx, "SET", "k", "v", "PX", "150").Err(); err != nil {
		t.Fatal(err)
	}
	waitInSync(t, rc, mc)
	waitInSync(t, tc, mc)
	time.Sleep(1200 * time.Millisecond)
	writable := func(step string, extra ...[]any) {
		t.Helper()
		var got [2]string
		for i, c := range []*redis.Client{rc, tc} {
			var b strings.Builder
			for _, args := range extra {
				b.WriteString(do(c, args...))
			}
			for _, args := range [][]any{{"DBSIZE"}, {"EXISTS", "own", "own2", "own3", "k", "keep"}, {"GET", "k"}, {"TTL", "k"}} {
				b.WriteString(do(c, args...))
			}
			keys, err := c.Keys(ctx, "*").Result()
			sort.Strings(keys)
			fmt.Fprintf(&b, "KEYS * = %v %v\n", keys, err)
			got[i] = b.String()
		}
		if got[0] != got[1] {
			t.Errorf("%s: Tandem replica\n%s\nredis-server replica\n%s", step, got[1], got[0])
		}
	}
	writable("writable: own keys expired, the master's left")
	writable("writable: INCR of the master's expired key", []any{"INCR", "k"}, []any{"TTL", "k"})
}

// TestAOFLoadSeesNoKeyExpired: while an AOF loads, no key is expired, as
// in redis-server 7.0 (keyIsExpired while loading): a SET with a PXAT
// already past, then PERSIST, leaves the key; an APPEND to a key whose
// PEXPIREAT has passed appends to it (which then expires after the load).
// The replayed commands are the same a replica applies from its master.
func TestAOFLoadSeesNoKeyExpired(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	past := strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10)
	var incr []byte
	for _, c := range [][]string{{"SELECT", "0"}, {"SET", "k", "v", "PXAT", past}, {"PERSIST", "k"},
		{"SET", "j", "v"}, {"PEXPIREAT", "j", past}, {"APPEND", "j", "w"}, {"SET", "keep", "1"}} {
		incr = append(incr, cmd(c...)...)
	}
	var got [2]string
	for i, name := range []string{"redis", "tandem"} {
		dir := t.TempDir()
		ad := filepath.Join(dir, "appendonlydir")
		os.Mkdir(ad, 0o755)
		os.WriteFile(filepath.Join(ad, "appendonly.aof.1.base.aof"), nil, 0o644)
		os.WriteFile(filepath.Join(ad, "appendonly.aof.1.incr.aof"), incr, 0o644)
		os.WriteFile(filepath.Join(ad, "appendonly.aof.manifest"), []byte("file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"), 0o644)
		var s *server
		if name == "redis" {
			s = startFor(t, dir, name, 1, redisArgsIn(dir, "--appendonly", "yes"))
		} else {
			s = startFor(t, dir, name, 2, tandemArgs(dir, "--appendonly", "yes"))
		}
		c := client(s.addrs[0])
		waitLoaded(t, c)
		var b strings.Builder
		for _, args := range [][]any{{"GET", "k"}, {"TTL", "k"}, {"GET", "j"}, {"GET", "keep"}, {"DBSIZE"}} {
			v, err := c.Do(ctx, args...).Result()
			fmt.Fprintf(&b, "%v=%v %v\n", args, v, err)
		}
		got[i] = b.String()
		c.Close()
	}
	if got[0] != got[1] {
		t.Errorf("after loading the AOF, Tandem has\n%s\nredis-server\n%s", got[1], got[0])
	}
}

// TestDumpKeepsKeysNotYetReclaimed: a key past its TTL that nothing has
// reclaimed yet is in the dump, as redis-server 7.0's rdbSaveRio saves
// it, so the load drops it and counts it in rdb_last_load_keys_expired
// (rdb.tcl's "Test RDB load info"). Before, Tandem left it out of the
// dump and the count stayed 0.
func TestDumpKeepsKeysNotYetReclaimed(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	transcript := func(kind string) string {
		s := startKind(t, kind, "rdbinfo", "--enable-debug-command", "yes")
		c := client(s.addrs[0])
		defer c.Close()
		var b strings.Builder
		for _, args := range [][]any{{"DEBUG", "SET-ACTIVE-EXPIRE", "0"}, {"SET", "a", "1", "PX", "10"}, {"SET", "b", "1", "PX", "10"},
			{"HSET", "h", "f", "v"}, {"PEXPIRE", "h", "10"}, {"SET", "keep", "1"}} {
			if err := c.Do(ctx, args...).Err(); err != nil {
				t.Fatalf("%s %v: %v", kind, args, err)
			}
		}
		c3 := redis.NewClient(&redis.Options{Addr: s.addrs[0], DB: 3, Protocol: 2})
		defer c3.Close()
		if err := c3.Set(ctx, "c", "1", 10*time.Millisecond).Err(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		for _, args := range [][]any{{"DBSIZE"}, {"DEBUG", "RELOAD"}, {"DBSIZE"}, {"EXISTS", "a", "b", "h", "keep"}} {
			v, err := c.Do(ctx, args...).Result()
			fmt.Fprintf(&b, "%v=%v %v\n", args, v, err)
		}
		info, err := c.Info(ctx, "persistence").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"rdb_last_load_keys_loaded", "rdb_last_load_keys_expired"} {
			fmt.Fprintf(&b, "%s:%s\n", f, infoField(info, f))
		}
		return b.String()
	}
	ref, got := transcript("redis"), transcript("tandem")
	if ref != got {
		t.Errorf("Tandem\n%s\nredis-server\n%s", got, ref)
	}
}
