package compat

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Application patterns through go-redis, in RESP2 and RESP3: each is run
// on redis-server and on Tandem and must give the same observations.

// sessionObs is what the session pattern observes.
type sessionObs struct {
	Created   int64
	All       map[string]string
	TTL       time.Duration
	Visits    int64
	Refreshed bool
	Deleted   int64
	After     map[string]string
	Persisted bool
	TTLAfter  time.Duration
	Missing   map[string]string
	TTLGone   time.Duration
	Expired   map[string]string
}

// TestGoRedisSessionHash is a session store: HSET the session's fields,
// EXPIRE it, read it back with HGETALL and TTL, count a visit, refresh the
// TTL on activity, drop a field, and let a short-lived session expire.
func TestGoRedisSessionHash(t *testing.T) {
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			for _, a := range []string{refRedis, sutRedis} {
				if err := flushRedis(a); err != nil {
					t.Fatal(err)
				}
			}
			ref, sut := both(func(addr string) sessionObs {
				return sessionPattern(t, newGoRedis(t, proto, 0, func(o *redis.Options) { o.Addr = addr }))
			}, refRedis, sutRedis)
			want := sessionObs{
				Created:   4,
				All:       map[string]string{"user": "alice", "role": "admin", "csrf": "t0k3n", "visits": "0"},
				TTL:       30 * time.Minute,
				Visits:    1,
				Refreshed: true,
				Deleted:   1,
				After:     map[string]string{"user": "alice", "role": "admin", "visits": "1"},
				Persisted: true,
				TTLAfter:  -1,
				Missing:   map[string]string{},
				TTLGone:   -2,
				Expired:   map[string]string{},
			}
			if !reflect.DeepEqual(ref, want) {
				t.Fatalf("redis-server observed %+v, want %+v (the test is wrong)", ref, want)
			}
			if !reflect.DeepEqual(sut, ref) {
				t.Fatalf("%s observed %+v\nredis-server: %+v", sideName(), sut, ref)
			}
		})
	}
}

func sessionPattern(t *testing.T, rdb *redis.Client) sessionObs {
	ctx := context.Background()
	var o sessionObs
	key := "session:7f3a"
	o.Created = mustVal(t, rdb.HSet(ctx, key, "user", "alice", "role", "admin", "csrf", "t0k3n", "visits", 0))
	if !mustVal(t, rdb.Expire(ctx, key, 30*time.Minute)) {
		t.Fatal("EXPIRE on the new session returned false")
	}
	o.All = mustVal(t, rdb.HGetAll(ctx, key))
	o.TTL = mustVal(t, rdb.TTL(ctx, key)).Round(time.Minute) // a second may pass
	o.Visits = mustVal(t, rdb.HIncrBy(ctx, key, "visits", 1))
	o.Refreshed = mustVal(t, rdb.Expire(ctx, key, 30*time.Minute))
	o.Deleted = mustVal(t, rdb.HDel(ctx, key, "csrf", "nosuch"))
	o.After = mustVal(t, rdb.HGetAll(ctx, key))
	o.Persisted = mustVal(t, rdb.Persist(ctx, key))
	o.TTLAfter = mustVal(t, rdb.TTL(ctx, key))
	o.Missing = mustVal(t, rdb.HGetAll(ctx, "session:none"))
	o.TTLGone = mustVal(t, rdb.TTL(ctx, "session:none"))
	// A session that expires: gone for HGETALL once its TTL passed.
	mustVal(t, rdb.HSet(ctx, "session:short", "user", "bob"))
	mustVal(t, rdb.PExpire(ctx, "session:short", 30*time.Millisecond))
	time.Sleep(60 * time.Millisecond)
	o.Expired = mustVal(t, rdb.HGetAll(ctx, "session:short"))
	return o
}
