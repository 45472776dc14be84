package compat

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Snapshot consistency through real clients: while writers keep invariants
// that span several keys (and so several shards), BGSAVE runs again and
// again; every dump is loaded into a second Tandem and must show each
// invariant whole. A dump that is not one instant of the keyspace — a shard
// seen before a transaction and another after it — breaks one of them.
//
//	(a) MULTI/EXEC transfers between counters cnt:0..cnt:9, counter i in
//	    database i (the transaction SELECTs), so a transfer spans most of
//	    the keyspace's shard order: the sum is constant;
//	(b) MSET of one sequence number to k1..k10: all ten are equal;
//	(c) an EVAL script moving a member between zset:a and zset:b: each of
//	    the members m0..m(n-1) is in exactly one of them, with its score.
//
// Filler keys, overwritten all the time, make each dump take a while and
// make the writers touch most shards during it (so shards are captured at
// their first lock, not only by the saver's walk).
//
// It fails when it should: with engine.Snapshot marking the shards outside
// its exclusive section (no barrier), 2 to 8 of the 40 dumps broke an
// invariant in each of 8 runs; with shards not captured at their first
// lock (only by the saver's walk), all 40 did. The barrier's window is
// short, hence the many dumps and counters spread over databases.

const (
	invCounters   = 10
	invCounterSum = invCounters * 1000
	invSeqKeys    = 10
	invMembers    = 100
	invFiller     = 30000
	invFillerSize = 200
	invDumps      = 40
	invDeadline   = 5 * time.Minute
)

// moveScript moves ARGV[1] from whichever of KEYS[1], KEYS[2] holds it to
// the other, keeping its score.
const moveScript = `
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
local from, to = KEYS[1], KEYS[2]
if not s then
  s = redis.call('ZSCORE', KEYS[2], ARGV[1])
  from, to = KEYS[2], KEYS[1]
end
if not s then return redis.error_reply('member ' .. ARGV[1] .. ' is in neither set') end
redis.call('ZREM', from, ARGV[1])
redis.call('ZADD', to, s, ARGV[1])
return 1`

// startTandemFor starts Tandem with its dump in dir and extra arguments.
func startTandemFor(t *testing.T, dir string, extra ...string) *server {
	t.Helper()
	s, err := startServer(dir, "tandem-inv", 2, func(p []int) []string {
		return append([]string{tandemBin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
			"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--dbfilename", "dump.rdb",
			"--maxmemory", "0", "--maxmemory-policy", "noeviction", "--enable-debug-command", "yes"}, extra...)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

// persistenceInfo returns INFO persistence as a map.
func persistenceInfo(ctx context.Context, c *redis.Client) (map[string]string, error) {
	s, err := c.Info(ctx, "persistence").Result()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m, nil
}

func counterKeys() []string {
	var ks []string
	for i := 0; i < invCounters; i++ {
		ks = append(ks, "cnt:"+strconv.Itoa(i))
	}
	return ks
}

func seqKeys() []string {
	var ks []string
	for i := 1; i <= invSeqKeys; i++ {
		ks = append(ks, "k"+strconv.Itoa(i))
	}
	return ks
}

// seedInvariants writes the initial state: every invariant holds.
func seedInvariants(ctx context.Context, t *testing.T, c *redis.Client) {
	t.Helper()
	for i, k := range counterKeys() {
		cc := redis.NewClient(&redis.Options{Addr: c.Options().Addr, Protocol: 2, DB: i})
		err := cc.Set(ctx, k, invCounterSum/invCounters, 0).Err()
		cc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	pipe := c.Pipeline()
	var pairs []any
	for _, k := range seqKeys() {
		pairs = append(pairs, k, 0)
	}
	pipe.MSet(ctx, pairs...)
	for i := 0; i < invMembers; i++ {
		key := "zset:a"
		if i%2 == 1 {
			key = "zset:b"
		}
		pipe.ZAdd(ctx, key, redis.Z{Member: "m" + strconv.Itoa(i), Score: float64(i)})
	}
	filler := strings.Repeat("f", invFillerSize)
	for i := 0; i < invFiller; i++ {
		pipe.Set(ctx, "fill:"+strconv.Itoa(i), filler, 0)
		if pipe.Len() >= 1000 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

// invariantState is what a check found, for the log.
type invariantState struct {
	seq   int64
	sizeA int64
}

// checkInvariants checks the three invariants and the key count on the
// server behind c.
func checkInvariants(ctx context.Context, c *redis.Client) (invariantState, error) {
	var st invariantState
	var errs []string
	fail := func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }

	// The counters, one per database, read in one MULTI/EXEC: a live
	// server must give one instant too.
	conn := c.Conn()
	defer conn.Close()
	var gets []*redis.StringCmd
	_, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range counterKeys() {
			p.Select(ctx, i)
			gets = append(gets, p.Get(ctx, k))
		}
		p.Select(ctx, 0)
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("reading the counters: %w", err)
	}
	vals := make([]any, len(gets))
	for i, g := range gets {
		vals[i] = g.Val()
	}
	sum := int64(0)
	for i, v := range vals {
		s, ok := v.(string)
		n, err := strconv.ParseInt(s, 10, 64)
		if !ok || err != nil {
			fail("counter cnt:%d = %v", i, v)
			continue
		}
		sum += n
	}
	if sum != invCounterSum {
		fail("(a) counters sum to %d, want %d: %v", sum, invCounterSum, vals)
	}

	vals, err = c.MGet(ctx, seqKeys()...).Result()
	if err != nil {
		return st, err
	}
	for i, v := range vals {
		if v == nil || v != vals[0] {
			fail("(b) MSET keys differ: k%d = %v, k1 = %v (all: %v)", i+1, v, vals[0], vals)
			break
		}
	}
	if s, ok := vals[0].(string); ok {
		st.seq, _ = strconv.ParseInt(s, 10, 64)
	}

	seen := map[string]string{}
	var both []string
	for _, key := range []string{"zset:a", "zset:b"} {
		zs, err := c.ZRangeWithScores(ctx, key, 0, -1).Result()
		if err != nil {
			return st, err
		}
		if key == "zset:a" {
			st.sizeA = int64(len(zs))
		}
		for _, z := range zs {
			m := z.Member.(string)
			if _, dup := seen[m]; dup {
				both = append(both, m)
			}
			seen[m] = key
			if want := strings.TrimPrefix(m, "m"); strconv.FormatFloat(z.Score, 'f', -1, 64) != want {
				fail("(c) member %s has score %v", m, z.Score)
			}
		}
	}
	if len(both) > 0 {
		fail("(c) %d members are in both sorted sets: %v", len(both), both)
	}
	if len(seen) != invMembers {
		var missing []string
		for i := 0; i < invMembers; i++ {
			if _, ok := seen["m"+strconv.Itoa(i)]; !ok {
				missing = append(missing, "m"+strconv.Itoa(i))
			}
		}
		fail("(c) the two sorted sets hold %d members, want %d; missing %v", len(seen), invMembers, missing)
	}

	n, err := c.DBSize(ctx).Result()
	if err != nil {
		return st, err
	}
	if want := int64(1 + invSeqKeys + 2 + invFiller); n != want {
		fail("DBSIZE %d, want %d", n, want)
	}
	ks, err := c.Info(ctx, "keyspace").Result()
	if err != nil {
		return st, err
	}
	for i := 1; i < invCounters; i++ {
		if !strings.Contains(ks, fmt.Sprintf("db%d:keys=1,", i)) {
			fail("database %d should hold its counter alone: %q", i, ks)
		}
	}
	if len(errs) > 0 {
		return st, errors.New(strings.Join(errs, "; "))
	}
	return st, nil
}

// invariantWriters run the three kinds of writes, plus filler overwrites,
// until ctx ends.
type invariantWriters struct {
	ops      atomic.Int64 // invariant-keeping writes done
	mu       sync.Mutex
	firstErr error
	wg       sync.WaitGroup
	conns    []*redis.Conn // dedicated connections, closed by wait
}

// wait waits for the writers to stop and closes their connections.
func (w *invariantWriters) wait() {
	w.wg.Wait()
	for _, c := range w.conns {
		c.Close()
	}
	w.conns = nil
}

func (w *invariantWriters) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.firstErr == nil {
		w.firstErr = err
	}
}

func (w *invariantWriters) start(ctx context.Context, c *redis.Client, perKind int) {
	counters := counterKeys()
	seq := seqKeys()
	var seqNo atomic.Int64
	move := redis.NewScript(moveScript)
	loop := func(seed uint64, op func(r *rand.Rand) error) {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			for ctx.Err() == nil {
				if err := op(r); err != nil {
					if ctx.Err() == nil {
						w.fail(err)
					}
					return
				}
				w.ops.Add(1)
			}
		}()
	}
	for g := 0; g < perKind; g++ {
		base := uint64(g) * 10
		// (a) a transfer in MULTI/EXEC, between databases: on a
		// connection of its own, as the transaction SELECTs.
		conn := c.Conn()
		w.conns = append(w.conns, conn)
		loop(base+1, func(r *rand.Rand) error {
			i := r.IntN(invCounters)
			j := (i + 1 + r.IntN(invCounters-1)) % invCounters
			amount := int64(1 + r.IntN(50))
			_, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Select(ctx, i)
				p.DecrBy(ctx, counters[i], amount)
				p.Select(ctx, j)
				p.IncrBy(ctx, counters[j], amount)
				p.Select(ctx, 0)
				return nil
			})
			if err != nil {
				return fmt.Errorf("transfer: %w", err)
			}
			return nil
		})
		// (b) one sequence number to k1..k10 in one MSET.
		loop(base+2, func(*rand.Rand) error {
			n := seqNo.Add(1)
			pairs := make([]any, 0, 2*len(seq))
			for _, k := range seq {
				pairs = append(pairs, k, n)
			}
			if err := c.MSet(ctx, pairs...).Err(); err != nil {
				return fmt.Errorf("mset: %w", err)
			}
			return nil
		})
		// (c) a member moved between the sorted sets by a script.
		loop(base+3, func(r *rand.Rand) error {
			m := "m" + strconv.Itoa(r.IntN(invMembers))
			if err := move.Run(ctx, c, []string{"zset:a", "zset:b"}, m).Err(); err != nil {
				return fmt.Errorf("move script: %w", err)
			}
			return nil
		})
	}
	// Filler overwrites (pipelined) touch shards all over the keyspace.
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		r := rand.New(rand.NewPCG(99, 7))
		val := strings.Repeat("g", invFillerSize)
		for ctx.Err() == nil {
			pipe := c.Pipeline()
			for i := 0; i < 64; i++ {
				pipe.Set(ctx, "fill:"+strconv.Itoa(r.IntN(invFiller)), val, 0)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				if ctx.Err() == nil {
					w.fail(fmt.Errorf("filler: %w", err))
				}
				return
			}
		}
	}()
}

// bgsaveAndWait runs BGSAVE (retrying while another save runs) and polls
// INFO persistence until it has finished and rdb_saves went up.
func bgsaveAndWait(ctx context.Context, c *redis.Client) error {
	info, err := persistenceInfo(ctx, c)
	if err != nil {
		return err
	}
	saves0, _ := strconv.Atoi(info["rdb_saves"])
	// A hang guard: the saver runs at nice 19, and on 2 cores loaded by
	// parallel test runs one dump took 18 s.
	const saveDeadline = 2 * time.Minute
	deadline := time.Now().Add(saveDeadline)
	for {
		err := c.BgSave(ctx).Err()
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "in progress") || time.Now().After(deadline) {
			return fmt.Errorf("BGSAVE: %w", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	for {
		info, err := persistenceInfo(ctx, c)
		if err != nil {
			return err
		}
		saves, _ := strconv.Atoi(info["rdb_saves"])
		if info["rdb_bgsave_in_progress"] == "0" {
			if info["rdb_last_bgsave_status"] != "ok" {
				return fmt.Errorf("BGSAVE failed: rdb_last_bgsave_status:%s", info["rdb_last_bgsave_status"])
			}
			if saves > saves0 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("BGSAVE not done after %v: %v", saveDeadline, info)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// copyDumpInto copies a dump into dir/dump.rdb atomically (the verifier
// must never read half a copy).
func copyDumpInto(t *testing.T, from, dir string) {
	t.Helper()
	tmp := filepath.Join(dir, "dump.rdb.copying")
	copyFile(t, from, tmp)
	if err := os.Rename(tmp, filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotInvariantsUnderBGSAVE(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	mustNotSelfTest(t)
	ctx := context.Background()
	srcDir, verDir := t.TempDir(), t.TempDir()
	src := startTandemFor(t, srcDir)
	ver := startTandemFor(t, verDir)
	sc := redis.NewClient(&redis.Options{Addr: src.addrs[0], Protocol: 2, PoolSize: 16, ReadTimeout: 10 * time.Second})
	defer sc.Close()
	vc := redis.NewClient(&redis.Options{Addr: ver.addrs[0], Protocol: 2, ReadTimeout: 30 * time.Second})
	defer vc.Close()

	seedInvariants(ctx, t, sc)
	if _, err := checkInvariants(ctx, sc); err != nil {
		t.Fatalf("the seeded state breaks the invariants: %v", err)
	}

	wctx, stop := context.WithCancel(ctx)
	w := &invariantWriters{}
	w.start(wctx, sc, 3)
	defer func() { stop(); w.wait() }()

	var (
		states      []invariantState
		overlapping int64 // writes done while a BGSAVE ran
		broken      []string
		saveTime    time.Duration // in BGSAVE, from the command to INFO saying done
	)
	// A guard against a hang, not a performance bar: on a quiet 2-core
	// machine the 40 dumps take about 30 s, on one loaded by other test
	// runs three times that.
	deadline := time.Now().Add(invDeadline)
	for dump := 0; dump < invDumps; dump++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d dumps in %v", dump, invDeadline)
		}
		before, t0 := w.ops.Load(), time.Now()
		if err := bgsaveAndWait(ctx, sc); err != nil {
			t.Fatalf("dump %d: %v", dump, err)
		}
		overlapping += w.ops.Load() - before
		saveTime += time.Since(t0)

		// Load the dump into the verifier: DEBUG RELOAD NOSAVE (flush, then
		// load from its dir) for most, a fresh process loading at start for
		// every tenth (the start-up path).
		checkOn := vc
		if dump%10 == 9 {
			dir := t.TempDir()
			copyDumpInto(t, filepath.Join(srcDir, "dump.rdb"), dir)
			fresh := startTandemFor(t, dir)
			fc := redis.NewClient(&redis.Options{Addr: fresh.addrs[0], Protocol: 2})
			defer fc.Close()
			checkOn = fc
		} else {
			copyDumpInto(t, filepath.Join(srcDir, "dump.rdb"), verDir)
			if err := vc.Do(ctx, "DEBUG", "RELOAD", "NOSAVE").Err(); err != nil {
				t.Fatalf("dump %d: DEBUG RELOAD NOSAVE on the verifier: %v", dump, err)
			}
		}
		st, err := checkInvariants(ctx, checkOn)
		if err != nil {
			broken = append(broken, fmt.Sprintf("dump %d: %v", dump, err))
			// Keep the dump for a post-mortem when asked to.
			if os.Getenv("COMPAT_KEEP") == "1" {
				copyFile(t, filepath.Join(srcDir, "dump.rdb"), filepath.Join(tmpDir, fmt.Sprintf("broken-dump-%d.rdb", dump)))
			}
		}
		states = append(states, st)
	}
	stop()
	w.wait()
	if w.firstErr != nil {
		t.Fatalf("a writer failed: %v", w.firstErr)
	}
	if len(broken) > 0 {
		t.Fatalf("%d of %d dumps break an invariant:\n%s", len(broken), invDumps, strings.Join(broken, "\n"))
	}
	// The live keyspace keeps them too.
	if _, err := checkInvariants(ctx, sc); err != nil {
		t.Fatalf("the live keyspace breaks an invariant: %v", err)
	}

	// The dumps must have caught the writers at different points, with
	// writes running during the saves, or the test proved nothing.
	distinct := map[int64]bool{}
	for _, st := range states {
		distinct[st.seq] = true
	}
	seqs := make([]int64, 0, len(states))
	for _, st := range states {
		seqs = append(seqs, st.seq)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	t.Logf("%d dumps checked (%v in BGSAVE); %d writes ran while BGSAVE was in progress; %d invariant-keeping writes in all; MSET sequence in the dumps: %v",
		invDumps, saveTime.Round(time.Millisecond), overlapping, w.ops.Load(), seqs)
	if len(distinct) < invDumps/2 {
		t.Errorf("only %d distinct MSET sequence numbers in %d dumps: the writers hardly ran", len(distinct), invDumps)
	}
	if overlapping == 0 {
		t.Error("no write ran while a BGSAVE was in progress")
	}
}
