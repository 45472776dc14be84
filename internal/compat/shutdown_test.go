package compat

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestShutdownWaitsForReplicas: SHUTDOWN waits, up to shutdown-timeout,
// for the replicas to acknowledge every write, as redis-server 7.0: with
// its replica asleep (DEBUG SLEEP) a master's SHUTDOWN returns only once
// the replica woke and caught up, and the replica then has every write;
// SHUTDOWN NOW does not wait; SHUTDOWN ABORT from another client ends the
// wait, the SHUTDOWN failing and the server going on, writes accepted.
func TestShutdownWaitsForReplicas(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	mustNotSelfTest(t)
	ctx := context.Background()
	type outcome struct {
		waited, replicaHasAll, nowWaited           bool
		loggedInSync, infoShowsWait                bool
		blockedWhileWaiting, connectedWhileWaiting string
		abortReply, abortedShutdown, afterAbort    string
	}
	run := func(kind string) outcome {
		var o outcome
		// start is a master of kind with a redis-server replica.
		start := func() (*server, *redis.Client, *redis.Client) {
			mdir, rdir := t.TempDir(), t.TempDir()
			var m *server
			if kind == "redis" {
				m = startFor(t, mdir, "redis-master", 1, redisArgsIn(mdir, "--shutdown-timeout", "5", "--repl-diskless-sync-delay", "0"))
			} else {
				m = startFor(t, mdir, "tandem-master", 2, tandemArgs(mdir, "--shutdown-timeout", "5", "--repl-diskless-sync-delay", "0"))
			}
			r := startFor(t, rdir, "redis-replica", 1, redisArgsIn(rdir, "--enable-debug-command", "yes"))
			mc, rc := client(m.addrs[0]), client(r.addrs[0])
			host, port, _ := strings.Cut(m.addrs[0], ":")
			if err := rc.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
				t.Fatal(err)
			}
			waitInSync(t, rc, mc)
			return m, mc, rc
		}
		sleepReplica := func(rc *redis.Client, secs string) {
			go redis.NewClient(&redis.Options{Addr: rc.Options().Addr}).Do(ctx, "DEBUG", "SLEEP", secs)
			time.Sleep(100 * time.Millisecond) // asleep
		}

		// SHUTDOWN waits for the sleeping replica.
		m, mc, rc := start()
		sleepReplica(rc, "1.5")
		for i := range 100 {
			mc.Set(ctx, fmt.Sprintf("k%d", i), "v", 0)
		}
		t0 := time.Now()
		shutdown(t, m, mc)
		o.waited = time.Since(t0) > time.Second
		n, _ := rc.DBSize(ctx).Result()
		o.replicaHasAll = n == 100
		log, _ := os.ReadFile(m.logPath)
		o.loggedInSync = strings.Contains(string(log), "1 of 1 replicas are in sync when shutting down.")
		mc.Close()
		rc.Close()

		// SHUTDOWN NOW does not.
		m, mc, rc = start()
		sleepReplica(rc, "1.5")
		mc.Set(ctx, "k", "v", 0)
		t0 = time.Now()
		mc.Do(ctx, "SHUTDOWN", "NOW")
		<-m.exited
		o.nowWaited = time.Since(t0) > time.Second
		mc.Close()
		rc.Close()

		// SHUTDOWN ABORT ends the wait.
		m, mc, rc = start()
		defer mc.Close()
		defer rc.Close()
		sleepReplica(rc, "2")
		mc.Set(ctx, "k", "v", 0)
		// Two SHUTDOWNs wait together; one ABORT fails both.
		res := make(chan error, 2)
		go func() { res <- client(m.addrs[0]).Do(ctx, "SHUTDOWN").Err() }()
		go func() { res <- client(m.addrs[0]).Do(ctx, "SHUTDOWN").Err() }()
		time.Sleep(300 * time.Millisecond) // waiting for the replica
		info, _ := mc.Info(ctx, "server").Result()
		ms, _ := strconv.Atoi(infoField(info, "shutdown_in_milliseconds"))
		o.infoShowsWait = ms > 0 && ms <= 5000
		clients, _ := mc.Info(ctx, "clients").Result()
		o.blockedWhileWaiting = infoField(clients, "blocked_clients")
		o.connectedWhileWaiting = infoField(clients, "connected_clients")
		o.abortReply = fmt.Sprint(mc.Do(ctx, "SHUTDOWN", "ABORT").Result())
		o.abortedShutdown = fmt.Sprint(<-res, " / ", <-res)
		o.afterAbort = fmt.Sprint(mc.Set(ctx, "after", "1", 0).Result())
		return o
	}
	ref, got := run("redis"), run("tandem")
	if !ref.waited || !ref.replicaHasAll || ref.nowWaited || !ref.loggedInSync || !ref.infoShowsWait {
		t.Errorf("redis-server does not behave as the test expects: %+v", ref)
	}
	if got != ref {
		t.Errorf("Tandem %+v\nredis-server %+v", got, ref)
	}
}

// TestShutdownLosesNoAcknowledgedWrite: while SHUTDOWN saves, writers on
// other connections get no reply (they are paused until the exit), so
// every write acknowledged before the exit is in the dump the restart
// loads. Redis, single-threaded, saves between two commands; Tandem
// serves other connections during the save.
func TestShutdownLosesNoAcknowledgedWrite(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	dir := t.TempDir()
	s := startFor(t, dir, "tandem", 2, tandemSaving(dir))
	c := client(s.addrs[0])
	// A dataset whose save takes a while.
	pipe := c.Pipeline()
	for i := range 200000 {
		pipe.Set(ctx, fmt.Sprintf("seed:%d", i), strings.Repeat("x", 64), 0)
		if i%5000 == 4999 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		acked []string
		stop  atomic.Bool
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc := redis.NewClient(&redis.Options{Addr: s.addrs[0], MaxRetries: -1, PoolSize: 1})
			defer wc.Close()
			for i := 0; !stop.Load(); i++ {
				key := fmt.Sprintf("w%d:%d", w, i)
				if wc.Set(ctx, key, "1", 0).Err() != nil {
					return
				}
				mu.Lock()
				acked = append(acked, key)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	shutdown(t, s, c)
	stop.Store(true)
	wg.Wait()
	s2 := restartOn(t, dir, s, tandemSaving(dir))
	c2 := client(s2.addrs[0])
	defer c2.Close()
	waitLoaded(t, c2)
	lost := 0
	for _, key := range acked {
		if c2.Exists(ctx, key).Val() != 1 {
			lost++
		}
	}
	if lost > 0 || len(acked) == 0 {
		t.Errorf("%d of %d acknowledged writes missing after SHUTDOWN and restart", lost, len(acked))
	}
}
