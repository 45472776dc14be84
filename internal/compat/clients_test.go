package compat

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"
)

// Tests through real client libraries: go-redis v9 (RESP3 via HELLO 3, and
// RESP2) and gomemcache, against the system under test. Unlike the
// differential cases they assert concrete values, taken from the behaviour
// of redis-server 7.0 and memcached 1.6. The single-protocol tests also run
// in self-test mode (against the real servers), which checks the
// expectations themselves; the cross-protocol tests need Tandem.
//
// Files:
//
//	clients_test.go           helpers shared by the client tests
//	clients_goredis_test.go   go-redis, per command family, RESP3 and RESP2
//	clients_gomemc_test.go    gomemcache against the memcached port
//	clients_cross_test.go     go-redis and gomemcache on one keyspace

const clientTimeout = 5 * time.Second

// newGoRedis returns a go-redis client for the system under test speaking
// protocol proto (3 = the library's default HELLO 3 handshake) on database db,
// with tweaks applied to its options.
// It is closed when the test ends. Retries are off so that a broken reply
// surfaces as an error rather than being papered over.
func newGoRedis(t testing.TB, proto, db int, tweaks ...func(*redis.Options)) *redis.Client {
	t.Helper()
	opt := &redis.Options{
		Addr:         sutRedis,
		DB:           db,
		DialTimeout:  clientTimeout,
		ReadTimeout:  clientTimeout,
		WriteTimeout: clientTimeout,
		MaxRetries:   -1,
	}
	if proto == 2 {
		opt.Protocol = 2 // the zero value is the library default, RESP3
	}
	for _, f := range tweaks {
		f(opt)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// newGomemc returns a gomemcache client for the system under test.
func newGomemc(t testing.TB) *memcache.Client {
	t.Helper()
	c := memcache.New(sutMemc)
	c.Timeout = clientTimeout
	c.MaxIdleConns = 8
	t.Cleanup(func() { c.Close() })
	return c
}

// flushSUT empties every database of the system under test.
func flushSUT(t testing.TB) {
	t.Helper()
	if err := flushRedis(sutRedis); err != nil {
		t.Fatal(err)
	}
}

// flushSUTMemc empties the memcached side of the system under test (the
// same keyspace as Redis database 0 in Tandem, a separate server in
// self-test mode).
func flushSUTMemc(t testing.TB) {
	t.Helper()
	if err := flushMemc(sutMemc); err != nil {
		t.Fatal(err)
	}
}

// resulter is any go-redis command with a typed result.
type resulter[T any] interface {
	Result() (T, error)
	Args() []interface{}
}

// eq asserts that cmd succeeded with the value want.
func eq[T comparable](t testing.TB, cmd resulter[T], want T) {
	t.Helper()
	got, err := cmd.Result()
	if err != nil {
		t.Errorf("%v: error %v, want %#v", cmd.Args(), err, want)
		return
	}
	if got != want {
		t.Errorf("%v: got %#v, want %#v", cmd.Args(), got, want)
	}
}

// mustVal returns the value of cmd and fails the test at once on an error.
func mustVal[T any](t testing.TB, cmd resulter[T]) T {
	t.Helper()
	got, err := cmd.Result()
	if err != nil {
		t.Fatalf("%v: %v", cmd.Args(), err)
	}
	return got
}

// errCmd is any go-redis command.
type errCmd interface {
	Err() error
	Args() []interface{}
}

// isNil asserts that cmd answered a null (redis.Nil).
func isNil(t testing.TB, cmd errCmd) {
	t.Helper()
	if err := cmd.Err(); err != redis.Nil {
		t.Errorf("%v: error %v, want redis.Nil", cmd.Args(), err)
	}
}

// isRedisErr asserts that cmd failed with exactly the server error msg.
func isRedisErr(t testing.TB, cmd errCmd, msg string) {
	t.Helper()
	err := cmd.Err()
	var rerr redis.Error
	switch {
	case err == nil:
		t.Errorf("%v: no error, want %q", cmd.Args(), msg)
	case err == redis.Nil || !errors.As(err, &rerr):
		t.Errorf("%v: error %v (%T) is not a server error, want %q", cmd.Args(), err, err, msg)
	case err.Error() != msg:
		t.Errorf("%v: error %q, want %q", cmd.Args(), err.Error(), msg)
	}
}

// within asserts lo <= got <= hi.
func within(t testing.TB, what string, got, lo, hi time.Duration) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s: %v, want between %v and %v", what, got, lo, hi)
	}
}

// memcEq asserts a gomemcache Get result.
func memcEq(t testing.TB, what string, it *memcache.Item, err error, value string, flags uint32) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: error %v, want %s flags %d", what, err, abbrev([]byte(value)), flags)
		return
	}
	if string(it.Value) != value || it.Flags != flags {
		t.Errorf("%s: got %q flags %d, want %q flags %d", what, abbrev(it.Value), it.Flags, abbrev([]byte(value)), flags)
	}
}

// memcErr asserts that a gomemcache call failed with want.
func memcErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want %v", what, err, want)
	}
}

// abbrev keeps failure messages about large values readable.
func abbrev(b []byte) string {
	if len(b) <= 64 {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q…(%d bytes)", b[:64], len(b))
}

// bigValue returns n bytes of a repeating pattern that covers every byte
// value, CR, LF and NUL included.
func bigValue(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

var bg = context.Background()
