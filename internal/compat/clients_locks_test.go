package compat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// Client libraries built on Lua scripts: redsync's distributed lock
// (Lua for unlock and extend) and redis_rate's GCRA limiter (a Lua script
// reading TIME). Both run against the system under test; the limiter's
// sequence is also run against the reference redis-server and compared.

func TestRedsync(t *testing.T) {
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			flushSUT(t)
			c := newGoRedis(t, proto, 0)
			rs := redsync.New(goredis.NewPool(c))
			ctx := context.Background()

			m := rs.NewMutex("lock:a", redsync.WithExpiry(5*time.Second), redsync.WithTries(1))
			if err := m.LockContext(ctx); err != nil {
				t.Fatalf("lock: %v", err)
			}
			if ttl := c.PTTL(ctx, "lock:a").Val(); ttl <= 0 || ttl > 5*time.Second {
				t.Errorf("lock TTL %v, want within 5s", ttl)
			}
			if v := c.Get(ctx, "lock:a").Val(); v != m.Value() {
				t.Errorf("lock value %q, want the mutex's %q", v, m.Value())
			}
			// Held: another mutex of the same name cannot take it.
			other := rs.NewMutex("lock:a", redsync.WithTries(1))
			var taken *redsync.ErrTaken
			if err := other.TryLockContext(ctx); !errors.As(err, &taken) && !errors.Is(err, redsync.ErrFailed) {
				t.Errorf("second lock while held: %v, want taken", err)
			}
			// Extend: only the owner can.
			if ok, err := m.ExtendContext(ctx); !ok || err != nil {
				t.Errorf("extend: %v %v", ok, err)
			}
			if ok, _ := other.ExtendContext(ctx); ok {
				t.Errorf("a mutex that does not hold the lock extended it")
			}
			if ok, _ := other.UnlockContext(ctx); ok {
				t.Errorf("a mutex that does not hold the lock released it")
			}
			if ok, err := m.UnlockContext(ctx); !ok || err != nil {
				t.Errorf("unlock: %v %v", ok, err)
			}
			if n := c.Exists(ctx, "lock:a").Val(); n != 0 {
				t.Errorf("lock key still there after unlock")
			}
			if ok, err := m.UnlockContext(ctx); ok || err == nil {
				t.Errorf("second unlock: %v %v, want failure", ok, err)
			}

			// Contention: 8 goroutines increment a counter with GET and
			// SET under the lock; no update may be lost.
			const workers, rounds = 8, 25
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					mu := rs.NewMutex("lock:counter", redsync.WithExpiry(10*time.Second),
						redsync.WithTries(1000), redsync.WithRetryDelay(time.Millisecond))
					for i := 0; i < rounds; i++ {
						if err := mu.LockContext(ctx); err != nil {
							errs <- err
							return
						}
						n, _ := strconv.Atoi(c.Get(ctx, "counter").Val())
						if err := c.Set(ctx, "counter", n+1, 0).Err(); err != nil {
							errs <- err
							return
						}
						if ok, err := mu.UnlockContext(ctx); !ok || err != nil {
							errs <- fmt.Errorf("unlock: %v %v", ok, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if got := c.Get(ctx, "counter").Val(); got != strconv.Itoa(workers*rounds) {
				t.Errorf("counter = %s, want %d: an update was lost", got, workers*rounds)
			}
		})
	}
}

// rateStep is one Allow result, the retry and reset times rounded to
// seconds (the two servers run the sequence a few milliseconds apart).
type rateStep struct {
	Allowed, Remaining int
	RetryAfter         time.Duration
	ResetAfter         time.Duration
}

func rateSequence(t *testing.T, c *redis.Client) []rateStep {
	t.Helper()
	ctx := context.Background()
	lim := redis_rate.NewLimiter(c)
	limit := redis_rate.PerMinute(5)
	var out []rateStep
	record := func(res *redis_rate.Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("limiter: %v", err)
		}
		out = append(out, rateStep{res.Allowed, res.Remaining, res.RetryAfter.Round(time.Second), res.ResetAfter.Round(time.Second)})
	}
	for i := 0; i < 7; i++ {
		record(lim.Allow(ctx, "rate:a", limit))
	}
	record(lim.AllowN(ctx, "rate:b", limit, 3))
	record(lim.AllowN(ctx, "rate:b", limit, 3))
	record(lim.AllowAtMost(ctx, "rate:b", limit, 3))
	if err := lim.Reset(ctx, "rate:a"); err != nil {
		t.Fatal(err)
	}
	record(lim.Allow(ctx, "rate:a", limit))
	return out
}

func TestRedisRate(t *testing.T) {
	ctx := context.Background()
	ref := redis.NewClient(&redis.Options{Addr: refRedis, Protocol: 2})
	defer ref.Close()
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			flushSUT(t)
			if err := ref.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			got := rateSequence(t, newGoRedis(t, proto, 0))
			want := rateSequence(t, ref)
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("step %d: %s %+v, redis %+v", i, sideName(), got[i], want[i])
				}
			}
			// The first five of the burst pass, then the limiter refuses.
			if want[4].Allowed != 1 || want[4].Remaining != 0 || want[5].Allowed != 0 || want[5].RetryAfter != 12*time.Second {
				t.Errorf("reference sequence not as documented: %+v", want)
			}
		})
	}
}
