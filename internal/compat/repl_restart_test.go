package compat

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The dump a server saves records its replication position (the
// repl-stream-db, repl-id and repl-offset AUX fields), and a restart
// from it continues with a partial resync, as Redis 7.0's
// loadDataFromDisk: a replica offers it in its first PSYNC, a master
// keeps it as its secondary ID so its replicas continue.

// tandemSaving is a Tandem that saves on SHUTDOWN (a save rule).
func tandemSaving(dir string, extra ...string) func(p []int) []string {
	return tandemArgs(dir, append([]string{"--save", "3600 1"}, extra...)...)
}

// shutdown sends SHUTDOWN (which saves) and waits for the process to end.
func shutdown(t *testing.T, s *server, c *redis.Client) {
	t.Helper()
	err := c.Do(context.Background(), "SHUTDOWN").Err()
	if err == nil || !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("SHUTDOWN: %v, want the connection closed", err)
	}
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not exit after SHUTDOWN", s.name)
	}
}

// restartOn starts a server again on the ports it had, so its replicas
// reconnect to it.
func restartOn(t *testing.T, dir string, old *server, args func([]int) []string) *server {
	t.Helper()
	var ports []int
	for _, a := range old.addrs {
		_, p, _ := net.SplitHostPort(a)
		n, _ := strconv.Atoi(p)
		ports = append(ports, n)
	}
	argv := args(ports)
	logPath := filepath.Join(dir, old.name+"-restarted.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{name: old.name + "-restarted", cmd: cmd, logPath: logPath, addrs: old.addrs, exited: make(chan struct{})}
	go func() { cmd.Wait(); logf.Close(); close(s.exited) }()
	t.Cleanup(s.stop)
	if err := s.waitReady(); err != nil {
		out, _ := os.ReadFile(logPath)
		t.Fatalf("%s did not restart: %v\n%s", s.name, err, out)
	}
	return s
}

// syncCounts is a master's INFO stats sync_full and sync_partial_ok.
func syncCounts(t *testing.T, master *redis.Client) (full, partialOK string) {
	t.Helper()
	info, err := master.Info(context.Background(), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	return infoField(info, "sync_full"), infoField(info, "sync_partial_ok")
}

// writeWhileDown writes in database 0 and 3 of a master whose replica is
// down: the replica gets them from the backlog.
func writeWhileDown(t *testing.T, addr string) {
	t.Helper()
	ctx := context.Background()
	c0 := client(addr)
	defer c0.Close()
	c3 := redis.NewClient(&redis.Options{Addr: addr, DB: 3, Protocol: 2})
	defer c3.Close()
	for _, err := range []error{c3.Set(ctx, "down:db3", "x", 0).Err(), c3.Incr(ctx, "after:n").Err(),
		c0.Set(ctx, "down:s", "while down", 0).Err(), c0.Incr(ctx, "after:n").Err()} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// downSnapshot reads back writeWhileDown's keys.
func downSnapshot(t *testing.T, addr string) string {
	t.Helper()
	ctx := context.Background()
	c0 := client(addr)
	defer c0.Close()
	c3 := redis.NewClient(&redis.Options{Addr: addr, DB: 3, Protocol: 2})
	defer c3.Close()
	var out strings.Builder
	for _, c := range []*redis.Client{c0, c3} {
		for _, k := range []string{"down:s", "down:db3", "after:n"} {
			v, err := c.Get(ctx, k).Result()
			fmt.Fprintf(&out, "db%d %s=%q %v\n", c.Options().DB, k, v, err)
		}
		n, _ := c.DBSize(ctx).Result()
		fmt.Fprintf(&out, "db%d dbsize %d\n", c.Options().DB, n)
	}
	return out.String()
}

// TestTandemReplicaRestartContinues: a Tandem replica of redis-server or
// of Tandem, stopped with SHUTDOWN (it saves) and started again on its
// dir with the same replicaof, continues with a partial resync and gets
// the writes made while it was down, in their databases.
func TestTandemReplicaRestartContinues(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	mustNotSelfTest(t)
	for _, masterKind := range []string{"redis", "tandem"} {
		t.Run("of "+masterKind, func(t *testing.T) {
			mdir, rdir := t.TempDir(), t.TempDir()
			var master *server
			if masterKind == "redis" {
				master = startFor(t, mdir, "redis-master", 1, redisArgsIn(mdir))
			} else {
				master = startFor(t, mdir, "tandem-master", 2, tandemArgs(mdir))
			}
			mc := client(master.addrs[0])
			defer mc.Close()
			replWorkload(t, mc, "before")
			host, port, _ := strings.Cut(master.addrs[0], ":")
			args := tandemSaving(rdir, "--replicaof", host, port)
			sut := startFor(t, rdir, "tandem-replica", 2, args)
			tc := client(sut.addrs[0])
			waitInSync(t, tc, mc)
			replWorkload(t, mc, "after")
			waitInSync(t, tc, mc)
			full, partial := syncCounts(t, mc)
			shutdown(t, sut, tc)
			tc.Close()
			writeWhileDown(t, master.addrs[0])

			sut = startFor(t, rdir, "tandem-replica-again", 2, args)
			tc = client(sut.addrs[0])
			defer tc.Close()
			waitInSync(t, tc, mc)
			full2, partial2 := syncCounts(t, mc)
			if full2 != full || partial2 == partial {
				log, _ := os.ReadFile(master.logPath)
				t.Errorf("the restarted replica's sync: sync_full %s → %s, sync_partial_ok %s → %s, want a partial resync\n%s", full, full2, partial, partial2, log)
			}
			if got, want := replSnapshot(t, tc), replSnapshot(t, mc); got != want {
				t.Errorf("the restarted replica has\n%s\nthe master\n%s", got, want)
			}
			if got, want := downSnapshot(t, sut.addrs[0]), downSnapshot(t, master.addrs[0]); got != want {
				t.Errorf("the writes made while the replica was down: replica\n%s\nmaster\n%s", got, want)
			}
		})
	}
}

// TestReplicaContinuesAfterTandemRestart: redis-server and Tandem
// replicas of a Tandem master continue with a partial resync after the
// master is stopped with SHUTDOWN (it saves) and started again on its
// dir and port; writes made after the restart reach them.
func TestReplicaContinuesAfterTandemRestart(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	mustNotSelfTest(t)
	for _, replicaKind := range []string{"redis", "tandem"} {
		t.Run(replicaKind+" replica", func(t *testing.T) {
			mdir, rdir := t.TempDir(), t.TempDir()
			margs := tandemSaving(mdir)
			m := startFor(t, mdir, "tandem-master", 2, margs)
			tc := client(m.addrs[0])
			replWorkload(t, tc, "before")
			host, port, _ := strings.Cut(m.addrs[0], ":")
			var r *server
			if replicaKind == "redis" {
				r = startFor(t, rdir, "redis-replica", 1, redisArgsIn(rdir, "--replicaof", host, port))
			} else {
				r = startFor(t, rdir, "tandem-replica", 2, tandemArgs(rdir, "--replicaof", host, port))
			}
			rc := client(r.addrs[0])
			defer rc.Close()
			waitInSync(t, rc, tc)
			// The replica follows the stream into database 3 before the
			// restart: the restarted master's first write selects again.
			tc3 := redis.NewClient(&redis.Options{Addr: m.addrs[0], DB: 3, Protocol: 2})
			tc3.Set(context.Background(), "last:db3", "x", 0)
			// A key that expires while the master is down: the restarted
			// master's load drops it and feeds its DEL to the backlog, as
			// Redis's (RDBFLAGS_FEED_REPL), so the replica drops it too.
			tc3.Set(context.Background(), "down:expiring", "x", 1500*time.Millisecond)
			tc3.Close()
			waitInSync(t, rc, tc)
			shutdown(t, m, tc)
			tc.Close()
			time.Sleep(1600 * time.Millisecond)

			m = restartOn(t, mdir, m, margs)
			tc = client(m.addrs[0])
			defer tc.Close()
			replWorkload(t, tc, "after")
			waitInSync(t, rc, tc)
			full, partial := syncCounts(t, tc)
			if full != "0" || partial != "1" {
				t.Errorf("after the restart the master counts sync_full %s, sync_partial_ok %s; want 0 and 1", full, partial)
			}
			if replicaKind == "redis" {
				if log, _ := os.ReadFile(r.logPath); !strings.Contains(string(log), "Successful partial resynchronization with master") {
					t.Errorf("the redis replica did not log a partial resynchronization:\n%s", log)
				}
			}
			if got, want := replSnapshot(t, rc), replSnapshot(t, tc); got != want {
				t.Errorf("the replica has\n%s\nthe restarted master\n%s", got, want)
			}
			if got, want := downSnapshot(t, r.addrs[0]), downSnapshot(t, m.addrs[0]); got != want {
				t.Errorf("keys and sizes: replica\n%s\nmaster\n%s", got, want)
			}
		})
	}
}

// TestReplicaRestartWithAOF: with appendonly yes the AOF is what a
// restart loads, and Redis 7.0 records no replication position in it
// (its base's RDB preamble is saved without one, and loadDataFromDisk
// restores nothing from an AOF): a restarted replica syncs in full.
// Tandem's does the same as redis-server's, even though SHUTDOWN saved
// a dump beside the AOF.
func TestReplicaRestartWithAOF(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	mustNotSelfTest(t)
	mdir := t.TempDir()
	master := startFor(t, mdir, "redis-master", 1, redisArgsIn(mdir))
	mc := client(master.addrs[0])
	defer mc.Close()
	replWorkload(t, mc, "before")
	host, port, _ := strings.Cut(master.addrs[0], ":")
	aof := []string{"--appendonly", "yes", "--aof-use-rdb-preamble", "yes", "--replicaof", host, port}
	for _, kind := range []string{"redis", "tandem"} {
		rdir := t.TempDir()
		args := tandemSaving(rdir, aof...)
		nports := 2
		if kind == "redis" {
			args = redisArgsIn(rdir, append([]string{"--save", "3600 1"}, aof...)...)
			nports = 1
		}
		r := startFor(t, rdir, kind+"-aof-replica", nports, args)
		rc := client(r.addrs[0])
		waitInSync(t, rc, mc)
		// A rewrite makes the base an RDB preamble (redis-server starts
		// one itself after its full sync).
		if err := rc.Do(context.Background(), "BGREWRITEAOF").Err(); err != nil && !strings.Contains(err.Error(), "already in progress") {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			info, _ := rc.Info(context.Background(), "persistence").Result()
			if infoField(info, "aof_rewrite_in_progress") == "0" && infoField(info, "aof_rewrite_scheduled") == "0" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the AOF rewrite did not end:\n%s", kind, info)
			}
		}
		full, _ := syncCounts(t, mc)
		shutdown(t, r, rc)
		rc.Close()
		r = startFor(t, rdir, kind+"-aof-replica-again", nports, args)
		rc = client(r.addrs[0])
		waitInSync(t, rc, mc)
		full2, _ := syncCounts(t, mc)
		if n, _ := strconv.Atoi(full); strconv.Itoa(n+1) != full2 {
			t.Errorf("%s: restarted with appendonly yes, sync_full %s → %s; want one more full sync", kind, full, full2)
		}
		if got, want := replSnapshot(t, rc), replSnapshot(t, mc); got != want {
			t.Errorf("%s: the restarted replica has\n%s\nthe master\n%s", kind, got, want)
		}
		rc.Close()
	}
}
