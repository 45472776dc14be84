package compat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// streamGroupWorkload builds consumer-group state through c: reads with
// and without NOACK, claims, an automatic claim over a deleted entry,
// acknowledgements, consumers created and deleted, a group moved, and a
// blocked XREADGROUP served by a later XADD. It makes no history read:
// Redis does not propagate what one does to a PEL (delivery times and
// counts), so neither a replica nor an AOF has it.
func streamGroupWorkload(t *testing.T, c *redis.Client) {
	t.Helper()
	ctx := context.Background()
	do := func(cmds ...[]any) {
		t.Helper()
		for _, args := range cmds {
			if err := c.Do(ctx, args...).Err(); err != nil && err != redis.Nil {
				t.Fatalf("%v: %v", args, err)
			}
		}
	}
	do([]any{"XGROUP", "CREATE", "gs", "g", "$", "MKSTREAM"}, []any{"XGROUP", "CREATE", "gs", "g2", "0"})
	for i := 1; i <= 6; i++ {
		do([]any{"XADD", "gs", fmt.Sprintf("%d-1", i), "f", fmt.Sprint(i)})
	}
	do([]any{"XREADGROUP", "GROUP", "g", "c1", "COUNT", "4", "STREAMS", "gs", ">"},
		[]any{"XREADGROUP", "GROUP", "g2", "n1", "NOACK", "COUNT", "3", "STREAMS", "gs", ">"},
		[]any{"XREADGROUP", "GROUP", "g", "c2", "STREAMS", "gs", ">"},
		[]any{"XCLAIM", "gs", "g", "c2", "0", "1-1", "2-1", "RETRYCOUNT", "7"},
		[]any{"XCLAIM", "gs", "g", "c3", "0", "3-1", "JUSTID", "TIME", "1700000000000"},
		[]any{"XCLAIM", "gs", "g2", "c4", "0", "2-1", "FORCE", "IDLE", "5000"},
		[]any{"XDEL", "gs", "4-1"},
		[]any{"XAUTOCLAIM", "gs", "g", "c5", "0", "3-1", "COUNT", "2"},
		[]any{"XACK", "gs", "g", "5-1"},
		[]any{"XGROUP", "CREATECONSUMER", "gs", "g", "unused"},
		[]any{"XGROUP", "CREATECONSUMER", "gs", "g", "doomed"},
		[]any{"XGROUP", "DELCONSUMER", "gs", "g", "doomed"},
		[]any{"XGROUP", "CREATE", "gs", "g3", "0"},
		[]any{"XGROUP", "SETID", "gs", "g3", "2-1", "ENTRIESREAD", "2"},
		[]any{"XGROUP", "CREATE", "gs", "gone", "0"},
		[]any{"XGROUP", "DESTROY", "gs", "gone"},
		[]any{"XGROUP", "CREATE", "bs", "g", "$", "MKSTREAM"})

	// A blocked read served by another client's XADD.
	waiter := redis.NewClient(&redis.Options{Addr: c.Options().Addr, Protocol: 2, PoolSize: 1})
	defer waiter.Close()
	done := make(chan error, 1)
	go func() {
		done <- waiter.Do(ctx, "XREADGROUP", "GROUP", "g", "b1", "BLOCK", "0", "STREAMS", "bs", ">").Err()
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if info, _ := c.Info(ctx, "clients").Result(); strings.Contains(info, "blocked_clients:1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the XREADGROUP did not block")
		}
	}
	do([]any{"XADD", "bs", "1-1", "f", "v"})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// streamGroupState reads back the groups streamGroupWorkload leaves, as
// comparable text: XINFO GROUPS, XINFO CONSUMERS, XPENDING (summary and
// entries) and XINFO STREAM FULL, without what the moment of reading sets
// (idle times, seen times). Without counters, entries-read and lag are
// left out too.
func streamGroupState(t *testing.T, c *redis.Client, counters bool) string {
	t.Helper()
	ctx := context.Background()
	waitLoaded(t, c)
	skip := map[string]bool{"idle": true, "seen-time": true}
	if !counters {
		skip["entries-read"], skip["lag"] = true, true
	}
	var out strings.Builder
	read := func(args ...any) any {
		v, err := c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	for _, key := range []string{"gs", "bs"} {
		fmt.Fprintf(&out, "%s groups %v\n", key, withoutFields(read("XINFO", "GROUPS", key), skip))
		fmt.Fprintf(&out, "%s full %v\n", key, withoutFields(read("XINFO", "STREAM", key, "FULL"), skip))
		for _, g := range []string{"g", "g2", "g3"} {
			if key == "bs" && g != "g" {
				continue
			}
			fmt.Fprintf(&out, "%s %s consumers %v\n", key, g, withoutFields(read("XINFO", "CONSUMERS", key, g), skip))
			fmt.Fprintf(&out, "%s %s pending %v\n", key, g, read("XPENDING", key, g))
			rows, _ := read("XPENDING", key, g, "-", "+", "100").([]any)
			for _, r := range rows {
				if row, ok := r.([]any); ok && len(row) == 4 {
					row[2] = "-" // idle
				}
			}
			fmt.Fprintf(&out, "%s %s pending entries %v\n", key, g, rows)
		}
	}
	return out.String()
}

// withoutFields replaces, in a RESP2 reply of field-value lists at any
// depth, the values of the fields in skip with "-".
func withoutFields(v any, skip map[string]bool) any {
	l, ok := v.([]any)
	if !ok {
		return v
	}
	for i := 0; i < len(l); i++ {
		if name, ok := l[i].(string); ok && skip[name] && i+1 < len(l) {
			l[i+1] = "-"
			i++
			continue
		}
		l[i] = withoutFields(l[i], skip)
	}
	return l
}

// TestAOFStreamGroupsReplay: the forms Tandem propagates consumer-group
// commands in (XCLAIM … FORCE JUSTID LASTID, XGROUP SETID, CREATECONSUMER)
// rebuild the groups when Tandem loads its AOF, and when redis-server 7.0
// loads it: the same pending entries (consumers, delivery times and
// counts), consumers and last IDs as the primary had. The read counters
// are compared between the two loaders only: Redis's XCLAIM LASTID moves a
// group's last ID but not its entries-read, so a primary's counter is not
// what its AOF gives back (redis-server's own AOF neither).
func TestAOFStreamGroupsReplay(t *testing.T) {
	mustNotSelfTest(t)
	dir := t.TempDir()
	sut := startFor(t, dir, "tandem-aof-groups", 2, tandemAOF(dir, "--aof-use-rdb-preamble", "no", "--appendfsync", "always"))
	tc := client(sut.addrs[0])
	streamGroupWorkload(t, tc)
	primary := streamGroupState(t, tc, false)
	tc.Close()
	sut.stop()

	t2 := startFor(t, dir, "tandem-aof-groups-reload", 2, tandemAOF(dir, "--aof-use-rdb-preamble", "no"))
	c2 := client(t2.addrs[0])
	if got := streamGroupState(t, c2, false); got != primary {
		t.Errorf("Tandem loading its AOF has\n%s\nthe primary had\n%s", got, primary)
	}
	reloaded := streamGroupState(t, c2, true)
	c2.Close()
	t2.stop()

	r := startFor(t, dir, "redis-on-tandem-aof-groups", 1, redisAOFArgs(dir, "--aof-use-rdb-preamble", "no"))
	rc := client(r.addrs[0])
	defer rc.Close()
	if got := streamGroupState(t, rc, true); got != reloaded {
		t.Errorf("redis-server loading Tandem's AOF has\n%s\nTandem loading it has\n%s", got, reloaded)
	}
}

// TestStreamGroupsReplicate: a Tandem replica and a redis-server replica
// of a Tandem master, linked before the group commands run, apply the
// forms those commands are propagated in and end with the master's
// groups (read counters compared between the two replicas, as in
// TestAOFStreamGroupsReplay).
func TestStreamGroupsReplicate(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	mustNotSelfTest(t)
	mdir, tdir, rdir := t.TempDir(), t.TempDir(), t.TempDir()
	sut := startFor(t, mdir, "tandem-groups-master", 2, tandemArgs(mdir))
	mc := client(sut.addrs[0])
	defer mc.Close()
	host, port, _ := strings.Cut(sut.addrs[0], ":")
	tr := startFor(t, tdir, "tandem-groups-replica", 2, tandemArgs(tdir, "--replicaof", host, port))
	trc := client(tr.addrs[0])
	defer trc.Close()
	rr := startFor(t, rdir, "redis-groups-replica", 1, redisArgsIn(rdir, "--replicaof", host, port))
	rrc := client(rr.addrs[0])
	defer rrc.Close()
	waitInSync(t, trc, mc)
	waitInSync(t, rrc, mc)

	streamGroupWorkload(t, mc)
	waitInSync(t, trc, mc)
	waitInSync(t, rrc, mc)
	master := streamGroupState(t, mc, false)
	for name, c := range map[string]*redis.Client{"Tandem": trc, "redis-server": rrc} {
		if got := streamGroupState(t, c, false); got != master {
			t.Errorf("the %s replica has\n%s\nthe master\n%s", name, got, master)
		}
	}
	if got, want := streamGroupState(t, trc, true), streamGroupState(t, rrc, true); got != want {
		t.Errorf("the Tandem replica has\n%s\nthe redis-server replica\n%s", got, want)
	}
}
