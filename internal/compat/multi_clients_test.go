package compat

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Transactions under concurrency, through go-redis against the system under
// test (in self-test mode, a real redis-server, which checks the tests
// themselves). Not differential: they assert invariants.
//
//   - TestMultiGoRedisTransfers: optimistic transfers between counters with
//     WATCH/GET/MULTI/SET/SET/EXEC retried on conflict. Readers snapshot all
//     counters in one MULTI. The sum must hold in every snapshot and at the
//     end, every counter must equal its start plus the transfers that
//     committed (no lost update: WATCH really detects conflicts), and at
//     least one EXEC must have been aborted.
//   - TestMultiGoRedisSnapshots: MULTI INCRBY a 1; DECRBY b 1; EXEC without
//     WATCH against readers doing MULTI GET a; GET b; EXEC: every snapshot
//     sees a+b unchanged (EXEC is atomic across shards).

const multiStressFor = 2 * time.Second

func TestMultiGoRedisTransfers(t *testing.T) {
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			testTransfers(t, proto)
		})
	}
}

func testTransfers(t *testing.T, proto int) {
	flushSUT(t)
	const (
		workers  = 16
		readers  = 2
		counters = 10
		start    = 1000
	)
	ctx := context.Background()
	rdb := newGoRedis(t, proto, 0, func(o *redis.Options) { o.PoolSize = workers + readers + 4 })
	keys := make([]string, counters)
	for i := range keys {
		keys[i] = "acct:" + strconv.Itoa(i)
		if err := rdb.Set(ctx, keys[i], start, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}

	var (
		commits, aborts, skipped atomic.Int64
		mu                       sync.Mutex
		delta                    = make([]int64, counters) // committed transfers, per counter
		stop                     = make(chan struct{})
		failed                   atomic.Bool
	)
	fail := func(format string, args ...any) {
		if failed.CompareAndSwap(false, true) {
			t.Errorf(format, args...)
		}
	}
	errInsufficient := errors.New("insufficient")

	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w) + 1))
			local := make([]int64, counters)
			defer func() {
				mu.Lock()
				for i, d := range local {
					delta[i] += d
				}
				mu.Unlock()
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				from := rng.Intn(counters)
				to := rng.Intn(counters - 1)
				if to >= from {
					to++
				}
				amount := int64(1 + rng.Intn(50))
			attempts:
				for attempt := 0; ; attempt++ {
					err := rdb.Watch(ctx, func(tx *redis.Tx) error {
						vf, err := tx.Get(ctx, keys[from]).Int64()
						if err != nil {
							return fmt.Errorf("GET %s: %w", keys[from], err)
						}
						vt, err := tx.Get(ctx, keys[to]).Int64()
						if err != nil {
							return fmt.Errorf("GET %s: %w", keys[to], err)
						}
						if vf < amount {
							return errInsufficient
						}
						cmds, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
							p.Set(ctx, keys[from], vf-amount, 0)
							p.Set(ctx, keys[to], vt+amount, 0)
							return nil
						})
						if err == nil && len(cmds) != 2 {
							return fmt.Errorf("EXEC: %d replies, want 2", len(cmds))
						}
						return err
					}, keys[from], keys[to])
					switch {
					case err == nil:
						commits.Add(1)
						local[from] -= amount
						local[to] += amount
						break attempts
					case errors.Is(err, redis.TxFailedErr):
						aborts.Add(1)
						if attempt < 1000 {
							continue
						}
						fail("worker %d: transfer %d→%d aborted 1000 times in a row", w, from, to)
						return
					case errors.Is(err, errInsufficient):
						skipped.Add(1)
						break attempts
					default:
						fail("worker %d: transfer %s→%s: %v", w, keys[from], keys[to], err)
						return
					}
				}
			}
		}(w)
	}

	var snapshots atomic.Int64
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cmds, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
					for _, k := range keys {
						p.Get(ctx, k)
					}
					return nil
				})
				if err != nil {
					fail("reader %d: %v", r, err)
					return
				}
				var sum int64
				vals := make([]string, len(cmds))
				for i, c := range cmds {
					v, err := c.(*redis.StringCmd).Int64()
					if err != nil {
						fail("reader %d: GET %s: %v", r, keys[i], err)
						return
					}
					sum += v
					vals[i] = strconv.FormatInt(v, 10)
				}
				if sum != counters*start {
					fail("reader %d: a MULTI snapshot of the counters sums to %d, want %d: %v", r, sum, counters*start, vals)
					return
				}
				snapshots.Add(1)
			}
		}(r)
	}

	time.Sleep(multiStressFor)
	close(stop)
	wg.Wait()

	var sum int64
	for i, k := range keys {
		v, err := rdb.Get(ctx, k).Int64()
		if err != nil {
			t.Fatalf("GET %s: %v", k, err)
		}
		sum += v
		if want := start + delta[i]; v != want {
			t.Errorf("%s = %d, want %d (start %d %+d committed): an update was lost or applied twice", k, v, want, start, delta[i])
		}
	}
	if sum != counters*start {
		t.Errorf("counters sum to %d at the end, want %d", sum, counters*start)
	}
	t.Logf("%d transfers committed, %d EXECs aborted, %d skipped (insufficient), %d snapshots", commits.Load(), aborts.Load(), skipped.Load(), snapshots.Load())
	if commits.Load() == 0 {
		t.Errorf("no transfer committed")
	}
	if aborts.Load() == 0 {
		t.Errorf("no EXEC was aborted in %v of %d conflicting workers: WATCH detects no conflicts", multiStressFor, workers)
	}
	if snapshots.Load() == 0 {
		t.Errorf("no snapshot read")
	}
}

func TestMultiGoRedisSnapshots(t *testing.T) {
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			testSnapshots(t, proto)
		})
	}
}

func testSnapshots(t *testing.T, proto int) {
	flushSUT(t)
	const (
		writers = 16
		readers = 4
		total   = 1000000
	)
	ctx := context.Background()
	rdb := newGoRedis(t, proto, 0, func(o *redis.Options) { o.PoolSize = writers + readers + 4 })
	// Two unrelated keys: with 1024 shards they are almost surely on
	// different ones (no hash tags).
	a, b := "snapshot:alpha", "other-counter:beta"
	if err := rdb.MSet(ctx, a, 0, b, total).Err(); err != nil {
		t.Fatal(err)
	}

	var (
		execs, snapshots, torn atomic.Int64
		stop                   = make(chan struct{})
		failed                 atomic.Bool
		firstTorn              atomic.Value
	)
	fail := func(format string, args ...any) {
		if failed.CompareAndSwap(false, true) {
			t.Errorf(format, args...)
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cmds, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.IncrBy(ctx, a, 1)
					p.DecrBy(ctx, b, 1)
					return nil
				})
				if err != nil {
					fail("writer %d: %v", w, err)
					return
				}
				x, err1 := cmds[0].(*redis.IntCmd).Result()
				y, err2 := cmds[1].(*redis.IntCmd).Result()
				if err1 != nil || err2 != nil {
					fail("writer %d: %v %v", w, err1, err2)
					return
				}
				// Inside EXEC nothing runs in between: the two replies are
				// themselves a consistent snapshot.
				if x+y != total {
					torn.Add(1)
					firstTorn.CompareAndSwap(nil, fmt.Sprintf("writer %d: INCRBY → %d, DECRBY → %d", w, x, y))
				}
				execs.Add(1)
			}
		}(w)
	}
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cmds, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Get(ctx, a)
					p.Get(ctx, b)
					return nil
				})
				if err != nil {
					fail("reader %d: %v", r, err)
					return
				}
				x, err1 := cmds[0].(*redis.StringCmd).Int64()
				y, err2 := cmds[1].(*redis.StringCmd).Int64()
				if err1 != nil || err2 != nil {
					fail("reader %d: %v %v", r, err1, err2)
					return
				}
				if x+y != total {
					torn.Add(1)
					firstTorn.CompareAndSwap(nil, fmt.Sprintf("reader %d: GET a → %d, GET b → %d", r, x, y))
				}
				snapshots.Add(1)
			}
		}(r)
	}
	time.Sleep(multiStressFor)
	close(stop)
	wg.Wait()

	t.Logf("%d EXECs of INCRBY/DECRBY, %d snapshots", execs.Load(), snapshots.Load())
	if n := torn.Load(); n > 0 {
		t.Errorf("%d transactions saw a+b != %d (first: %v): EXEC is not atomic", n, total, firstTorn.Load())
	}
	vals, err := rdb.MGet(ctx, a, b).Result()
	if err != nil {
		t.Fatal(err)
	}
	x, _ := strconv.ParseInt(fmt.Sprint(vals[0]), 10, 64)
	y, _ := strconv.ParseInt(fmt.Sprint(vals[1]), 10, 64)
	if x != execs.Load() || x+y != total {
		t.Errorf("at the end a = %d, b = %d, want a = %d (the committed EXECs), a+b = %d", x, y, execs.Load(), total)
	}
	if snapshots.Load() == 0 || execs.Load() == 0 {
		t.Errorf("nothing ran: %d EXECs, %d snapshots", execs.Load(), snapshots.Load())
	}
}
