package compat

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"
)

// Client-side caching across the protocols (Tandem only, so skipped in
// self-test mode but for the go-redis test of Redis-side writes): a Redis
// client tracking keys is told when memcached writes, touches, deletes or
// flushes them, when memcached-set keys expire, and when eviction removes
// them; then go-redis v9's client-side cache, whose cached reads a
// memcached write invalidates.

// trkClient is a RESP3 connection with tracking on that keeps the
// invalidation pushes it meets.
type trkClient struct {
	t      *testing.T
	c      net.Conn
	r      *bufio.Reader
	pushes []reply
}

func newTrkClient(t *testing.T, addr string, tracking ...string) *trkClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, timeoutFor(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	c := &trkClient{t: t, c: nc, r: bufio.NewReader(nc)}
	c.do("HELLO", "3")
	if rep := c.do(append([]string{"CLIENT", "TRACKING", "on"}, tracking...)...); string(rep.raw) != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING on %v: %q", tracking, rep.raw)
	}
	return c
}

// do sends a command and returns its reply; pushes before it are kept.
func (c *trkClient) do(args ...string) reply {
	c.t.Helper()
	c.c.SetDeadline(time.Now().Add(timeoutFor(sutRedis)))
	if _, err := c.c.Write([]byte(cmd(args...))); err != nil {
		c.t.Fatal(err)
	}
	for {
		rep, err := readReply(c.r)
		if err != nil {
			c.t.Fatalf("%v: %v", args, err)
		}
		if rep.kind != '>' {
			return rep
		}
		c.pushes = append(c.pushes, rep)
	}
}

// invalidated returns the keys of the invalidations received so far
// ("*" for a flush's null), in order, and forgets them.
func (c *trkClient) invalidated() []string {
	c.t.Helper()
	c.do("PING")
	var keys []string
	for _, p := range c.pushes {
		if len(p.elems) != 2 || p.elems[0].text != "invalidate" {
			c.t.Fatalf("unexpected push %q", p.raw)
		}
		if p.elems[1].kind == '_' {
			keys = append(keys, "*")
			continue
		}
		for _, k := range p.elems[1].elems {
			keys = append(keys, k.text)
		}
	}
	c.pushes = nil
	return keys
}

// waitInvalidated polls until key is invalidated or d passes.
func (c *trkClient) waitInvalidated(key string, d time.Duration) []string {
	c.t.Helper()
	var all []string
	for deadline := time.Now().Add(d); ; {
		all = append(all, c.invalidated()...)
		if slices.Contains(all, key) || time.Now().After(deadline) {
			return all
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func expectKeys(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: invalidated %q, want %q", what, got, want)
	}
}

func TestTrackingMemcachedWrites(t *testing.T) {
	r, m := crossSetup(t)
	tc := newTrkClient(t, sutRedis)
	cas := func(key string) string { return casOf(t, m, key) }
	cases := []struct {
		name  string
		value string // set through RESP before the tracked read; "" for none
		op    func(key string) string
		want  string // the memcached reply
		inval bool
	}{
		{"set", "", func(k string) string { return "set " + k + " 0 0 1\r\nx\r\n" }, "STORED\r\n", true},
		{"add of a missing key", "", func(k string) string { return "add " + k + " 0 0 1\r\nx\r\n" }, "STORED\r\n", true},
		{"add of a present key", "v", func(k string) string { return "add " + k + " 0 0 1\r\nx\r\n" }, "NOT_STORED\r\n", false},
		{"replace", "v", func(k string) string { return "replace " + k + " 0 0 1\r\ny\r\n" }, "STORED\r\n", true},
		{"replace of a missing key", "", func(k string) string { return "replace " + k + " 0 0 1\r\ny\r\n" }, "NOT_STORED\r\n", false},
		{"append", "v", func(k string) string { return "append " + k + " 0 0 1\r\nz\r\n" }, "STORED\r\n", true},
		{"prepend", "v", func(k string) string { return "prepend " + k + " 0 0 1\r\nz\r\n" }, "STORED\r\n", true},
		{"cas", "v", func(k string) string { return "cas " + k + " 0 0 1 " + cas(k) + "\r\nw\r\n" }, "STORED\r\n", true},
		{"cas mismatch", "v", func(k string) string { return "cas " + k + " 0 0 1 1\r\nw\r\n" }, "EXISTS\r\n", false},
		{"incr", "5", func(k string) string { return "incr " + k + " 2\r\n" }, "7\r\n", true},
		{"decr", "5", func(k string) string { return "decr " + k + " 2\r\n" }, "3\r\n", true},
		{"incr of a non-number", "x", func(k string) string { return "incr " + k + " 2\r\n" },
			"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n", false},
		{"delete", "v", func(k string) string { return "delete " + k + "\r\n" }, "DELETED\r\n", true},
		{"delete of a missing key", "", func(k string) string { return "delete " + k + "\r\n" }, "NOT_FOUND\r\n", false},
		{"touch", "v", func(k string) string { return "touch " + k + " 100\r\n" }, "TOUCHED\r\n", true},
		{"gat", "v", func(k string) string { return "gat 100 " + k + "\r\n" }, "VALUE %k 0 1\r\nv\r\nEND\r\n", true},
		{"get", "v", func(k string) string { return "get " + k + "\r\n" }, "VALUE %k 0 1\r\nv\r\nEND\r\n", false},
		{"meta set", "", func(k string) string { return "ms " + k + " 1\r\nx\r\n" }, "HD\r\n", true},
		{"meta delete", "v", func(k string) string { return "md " + k + "\r\n" }, "HD\r\n", true},
		{"meta arithmetic", "5", func(k string) string { return "ma " + k + "\r\n" }, "HD\r\n", true},
		{"meta get with touch", "v", func(k string) string { return "mg " + k + " T30\r\n" }, "HD\r\n", true},
		{"meta get", "v", func(k string) string { return "mg " + k + " v\r\n" }, "VA 1\r\nv\r\n", false},
	}
	for i, c := range cases {
		key := "mk" + strconv.Itoa(i)
		if c.value != "" {
			expectReply(t, c.name+": SET", r.do("SET", key, c.value), "+OK\r\n")
		}
		tc.do("GET", key)
		expectKeys(t, c.name+": before", tc.invalidated())
		want := strings.ReplaceAll(c.want, "%k", key)
		expectMemc(t, c.name, m.do(c.op(key)), want)
		var wantKeys []string
		if c.inval {
			wantKeys = []string{key}
		}
		expectKeys(t, c.name, tc.invalidated(), wantKeys...)
	}

	// flush_all tells every tracking client that all keys are invalid.
	tc.do("GET", "f")
	expectMemc(t, "flush_all", m.do("flush_all\r\n"), "OK\r\n")
	expectKeys(t, "flush_all", tc.invalidated(), "*")
	// A delayed flush_all changes each key's expiry: invalidated at once.
	r.do("SET", "later", "v")
	tc.do("GET", "later")
	expectMemc(t, "flush_all 100", m.do("flush_all 100\r\n"), "OK\r\n")
	expectKeys(t, "flush_all 100", tc.invalidated(), "later")
}

func TestTrackingMemcachedBinaryWrite(t *testing.T) {
	_, _ = crossSetup(t)
	tc := newTrkClient(t, sutRedis)
	tc.do("GET", "bk")
	nc, err := net.DialTimeout("tcp", sutMemc, timeoutFor(sutMemc))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// A binary-protocol SET: header, 8 bytes of extras (flags, exptime),
	// key, value.
	key, value := "bk", "binary"
	pkt := make([]byte, 24+8+len(key)+len(value))
	pkt[0], pkt[1] = 0x80, 0x01
	binary.BigEndian.PutUint16(pkt[2:], uint16(len(key)))
	pkt[4] = 8
	binary.BigEndian.PutUint32(pkt[8:], uint32(8+len(key)+len(value)))
	copy(pkt[32:], key)
	copy(pkt[32+len(key):], value)
	nc.SetDeadline(time.Now().Add(timeoutFor(sutMemc)))
	if _, err := nc.Write(pkt); err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, 24)
	if _, err := io.ReadFull(nc, hdr); err != nil {
		t.Fatal(err)
	}
	if status := binary.BigEndian.Uint16(hdr[6:]); hdr[0] != 0x81 || status != 0 {
		t.Fatalf("binary set answered %x", hdr)
	}
	expectKeys(t, "binary set", tc.invalidated(), "bk")
}

func TestTrackingMemcachedExpiry(t *testing.T) {
	_, m := crossSetup(t)
	tc := newTrkClient(t, sutRedis)
	expectMemc(t, "set with exptime 1", m.do("set soon 0 1 1\r\nx\r\n"), "STORED\r\n")
	if got := tc.do("GET", "soon"); string(got.raw) != "$1\r\nx\r\n" {
		t.Fatalf("GET soon: %q", got.raw)
	}
	// The active expiry cycle removes it (nobody reads it): invalidated.
	expectKeys(t, "expiry", tc.waitInvalidated("soon", 4*time.Second), "soon")
}

func TestTrackingMemcachedRedirectAndBcast(t *testing.T) {
	r, m := crossSetup(t)
	// RESP2: the invalidations go to a subscriber of __redis__:invalidate.
	sub := dialRESP(t, sutRedis)
	id := sub.do("CLIENT", "ID").text
	sub.do("SUBSCRIBE", "__redis__:invalidate")
	expectReply(t, "TRACKING REDIRECT", r.do("CLIENT", "TRACKING", "on", "REDIRECT", id), "+OK\r\n")
	r.do("GET", "rk")
	expectMemc(t, "delete", m.do("set rk 0 0 1\r\nv\r\n"), "STORED\r\n")
	msg := sub.do("PING")
	expectReply(t, "message", msg, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$2\r\nrk\r\n")

	// BCAST: memcached writes under a prefix, broadcast at the end of
	// the memcached batch that made them.
	bc := newTrkClient(t, sutRedis, "BCAST", "PREFIX", "user:")
	expectMemc(t, "writes", m.do("set user:1 0 0 1\r\na\r\nset other 0 0 1\r\nb\r\nms user:2 1\r\nc\r\n"),
		"STORED\r\nSTORED\r\nHD\r\n")
	got := bc.invalidated()
	slices.Sort(got)
	expectKeys(t, "bcast", got, "user:1", "user:2")
}

func TestTrackingMemcachedEviction(t *testing.T) {
	r, m := crossSetup(t)
	policy := r.do("CONFIG", "GET", "maxmemory-policy").elems[1].text
	t.Cleanup(func() {
		r.do("CONFIG", "SET", "maxmemory", "0")
		r.do("CONFIG", "SET", "maxmemory-policy", policy)
	})
	tc := newTrkClient(t, sutRedis)
	value := strings.Repeat("v", 1000)
	const tracked = 200
	for i := 0; i < tracked; i++ {
		k := "ev" + strconv.Itoa(i)
		m.do("set " + k + " 0 0 1000\r\n" + value + "\r\n")
		tc.do("GET", k)
	}
	expectKeys(t, "before", tc.invalidated())
	used := infoInt(t, r, "used_memory")
	r.do("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	r.do("CONFIG", "SET", "maxmemory", strconv.FormatInt(used+100_000, 10))
	// memcached writes of other keys make room by evicting tracked ones.
	for i := 0; i < 600; i++ {
		m.do("set fill" + strconv.Itoa(i) + " 0 0 1000\r\n" + value + "\r\n")
	}
	r.do("CONFIG", "SET", "maxmemory", "0")
	inval := map[string]bool{}
	for _, k := range tc.invalidated() {
		inval[k] = true
	}
	evicted := 0
	for i := 0; i < tracked; i++ {
		k := "ev" + strconv.Itoa(i)
		if r.do("EXISTS", k).text == "0" {
			evicted++
			if !inval[k] {
				t.Errorf("%s was evicted without an invalidation", k)
			}
		}
	}
	if evicted == 0 {
		t.Fatalf("no tracked key was evicted (used_memory %d)", used)
	}
}

// infoInt reads one integer field of INFO.
func infoInt(t *testing.T, r *respClient, field string) int64 {
	t.Helper()
	for _, line := range strings.Split(r.do("INFO", "memory").text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("INFO has no %s", field)
	return 0
}

// TestTrackingGoRedisClientSideCache: go-redis v9's client-side cache
// (RESP3, CLIENT TRACKING on per connection) serves repeated reads from
// memory, and a write from another connection — a Redis one, then a
// memcached one — invalidates them.
func TestTrackingGoRedisClientSideCache(t *testing.T) {
	flushSUT(t)
	ctx := context.Background()
	rdb := newGoRedis(t, 3, 0, func(o *redis.Options) {
		o.ClientSideCacheConfig = &redis.ClientSideCacheConfig{MaxEntries: 1000}
	})
	other := newGoRedis(t, 3, 0)
	if err := other.Set(ctx, "page", "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	get := func() (string, error) { return rdb.Get(ctx, "page").Result() }
	expectGet := func(what, want string) {
		t.Helper()
		// The invalidation reaches the cache when the client next reads
		// its connection: give it a little while.
		var got string
		var err error
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			got, err = get()
			if want == "" && errors.Is(err, redis.Nil) || err == nil && got == want || time.Now().After(deadline) {
				break
			}
		}
		if want == "" && !errors.Is(err, redis.Nil) || want != "" && (err != nil || got != want) {
			t.Fatalf("%s: GET page = %q, %v; want %q", what, got, err, want)
		}
	}
	expectGet("first read", "v1")
	before := rdb.CSCStats()
	for i := 0; i < 20; i++ {
		expectGet("cached read", "v1")
	}
	if hits := rdb.CSCStats().Hits - before.Hits; hits < 20 {
		t.Fatalf("20 repeated reads made %d cache hits: not served from the client's cache", hits)
	}
	if err := other.Set(ctx, "page", "v2", 0).Err(); err != nil {
		t.Fatal(err)
	}
	expectGet("after a Redis write", "v2")

	if selfTest {
		return // the memcached port is another server there
	}
	m := newGomemc(t)
	for i := 0; i < 5; i++ {
		expectGet("cached again", "v2")
	}
	expectMemc(t, "memcached set", dialMemc(t, sutMemc).do("set page 0 0 2\r\nv3\r\n"), "STORED\r\n")
	expectGet("after a memcached set", "v3")
	if err := m.Touch("page", 100); err != nil {
		t.Fatal(err)
	}
	expectGet("after a memcached touch", "v3")
	if err := m.Delete("page"); err != nil {
		t.Fatal(err)
	}
	expectGet("after a memcached delete", "")
}

// TestTrackingConcurrentWritesLeaveNothingStale: go-redis readers with a
// client-side cache read a few hot keys while memcached and Redis
// connections overwrite them, all at once on every core. Once the writes
// stop and the last invalidations have arrived, every cached read must
// give the server's value: a lost invalidation leaves a stale entry
// forever. (The narrowest race, a write between a read and its
// registration, is pinned by package tracking's own tests.)
func TestTrackingConcurrentWritesLeaveNothingStale(t *testing.T) {
	mustNotSelfTest(t)
	flushSUT(t)
	ctx := context.Background()
	const keys, readers, writers = 8, 4, 2
	key := func(i int) string { return "hot" + strconv.Itoa(i) }
	rdb := newGoRedis(t, 3, 0, func(o *redis.Options) {
		o.ClientSideCacheConfig = &redis.ClientSideCacheConfig{MaxEntries: 1000}
		o.PoolSize = readers
	})
	plain := newGoRedis(t, 3, 0)
	stop := make(chan struct{})
	errs := make(chan error, readers+2*writers)
	done := make(chan struct{}, readers+2*writers)
	for r := 0; r < readers; r++ {
		go func(r int) {
			defer func() { done <- struct{}{} }()
			for n := r; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := rdb.Get(ctx, key(n%keys)).Err(); err != nil && !errors.Is(err, redis.Nil) {
					errs <- err
					return
				}
			}
		}(r)
	}
	for w := 0; w < writers; w++ {
		go func(w int) { // Redis writers
			defer func() { done <- struct{}{} }()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := plain.Set(ctx, key((n*7+w)%keys), "r"+strconv.Itoa(w)+"-"+strconv.Itoa(n), 0).Err(); err != nil {
					errs <- err
					return
				}
			}
		}(w)
		go func(w int) { // memcached writers
			defer func() { done <- struct{}{} }()
			mc := newGomemc(t)
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := mc.Set(&memcache.Item{Key: key((n*5 + w) % keys), Value: []byte("m" + strconv.Itoa(w) + "-" + strconv.Itoa(n))}); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	for i := 0; i < readers+2*writers; i++ {
		<-done
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	for i := 0; i < keys; i++ {
		want, err := plain.Get(ctx, key(i)).Result()
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if got, err = rdb.Get(ctx, key(i)).Result(); err == nil && got == want || time.Now().After(deadline) {
				break
			}
		}
		if got != want {
			t.Errorf("%s: the cache still serves %q, the server has %q", key(i), got, want)
		}
	}
	if st := rdb.CSCStats(); st.Hits == 0 {
		t.Errorf("no cache hits (%+v): the readers did not use the cache", st)
	}
}
