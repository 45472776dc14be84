package compat

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// go-redis v9 against the RESP port, once with the library's default
// handshake (HELLO 3) and once with Protocol: 2. Every case starts on an
// empty server.

type goRedisEnv struct {
	c     *redis.Client // database 0
	proto int
}

// db returns a second client of the same protocol on database n.
func (e *goRedisEnv) db(t *testing.T, n int) *redis.Client {
	return newGoRedis(t, e.proto, n)
}

var goRedisCases = []struct {
	name string
	fn   func(t *testing.T, e *goRedisEnv)
}{
	{"Protocol", grProtocol},
	{"Ping", grPing},
	{"Echo", grEcho},
	{"SetGet", grSetGet},
	{"SetNX", grSetNX},
	{"SetArgs", grSetArgs},
	{"SetArgsExpiry", grSetArgsExpiry},
	{"SetExTTL", grSetExTTL},
	{"ExpiryObserved", grExpiryObserved},
	{"ExpireOptions", grExpireOptions},
	{"Persist", grPersist},
	{"MGetMSet", grMGetMSet},
	{"GetSetGetDel", grGetSetGetDel},
	{"GetEx", grGetEx},
	{"AppendStrLen", grAppendStrLen},
	{"Counters", grCounters},
	{"Ranges", grRanges},
	{"LCS", grLCS},
	{"Keys", grKeys},
	{"Rename", grRename},
	{"Scan", grScan},
	{"CopyMove", grCopyMove},
	{"Object", grObject},
	{"Select", grSelect},
	{"FlushDBFlushAll", grFlush},
	{"SwapDB", grSwapDB},
	{"Time", grTime},
	{"Info", grInfo},
	{"Config", grConfig},
	{"Client", grClient},
	{"Command", grCommand},
	{"Pipelined", grPipelined},
	{"Errors", grErrors},
}

func TestGoRedis(t *testing.T) {
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			e := &goRedisEnv{c: newGoRedis(t, proto, 0), proto: proto}
			for _, tc := range goRedisCases {
				t.Run(tc.name, func(t *testing.T) {
					flushSUT(t)
					tc.fn(t, e)
				})
			}
		})
	}
}

// grProtocol checks that the handshake negotiated the protocol asked for:
// CONFIG GET answers a map in RESP3 and a flat array in RESP2, and the
// server reports it in CLIENT INFO.
func grProtocol(t *testing.T, e *goRedisEnv) {
	res := mustVal(t, e.c.Do(bg, "CONFIG", "GET", "maxmemory-policy"))
	switch e.proto {
	case 3:
		m, ok := res.(map[interface{}]interface{})
		if !ok || len(m) != 1 || m["maxmemory-policy"] == nil {
			t.Errorf("CONFIG GET in RESP3: got %#v, want a map with one entry", res)
		}
	case 2:
		a, ok := res.([]interface{})
		if !ok || len(a) != 2 || a[0] != "maxmemory-policy" {
			t.Errorf("CONFIG GET in RESP2: got %#v, want a flat array of two", res)
		}
	}
	info := mustVal(t, e.c.Do(bg, "CLIENT", "INFO"))
	s, _ := info.(string)
	if !slices.Contains(strings.Fields(s), fmt.Sprintf("resp=%d", e.proto)) {
		t.Errorf("CLIENT INFO: %q does not contain resp=%d", s, e.proto)
	}
	// HELLO with no argument reports the connection's protocol.
	hello := mustVal(t, e.c.Do(bg, "HELLO"))
	var proto interface{}
	switch h := hello.(type) {
	case map[interface{}]interface{}:
		proto = h["proto"]
	case []interface{}:
		for i := 0; i+1 < len(h); i += 2 {
			if h[i] == "proto" {
				proto = h[i+1]
			}
		}
	}
	if proto != int64(e.proto) {
		t.Errorf("HELLO: proto %#v in %#v, want %d", proto, hello, e.proto)
	}
}

func grPing(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Ping(bg), "PONG")
	eq(t, e.c.Do(bg, "PING", "hi"), interface{}("hi"))
}

func grEcho(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Echo(bg, "hello\r\nworld\x00"), "hello\r\nworld\x00")
	eq(t, e.c.Echo(bg, ""), "")
}

func grSetGet(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Set(bg, "k", "v", 0), "OK")
	eq(t, e.c.Get(bg, "k"), "v")
	isNil(t, e.c.Get(bg, "missing"))
	bin := "a\r\nb\x00c\xff"
	eq(t, e.c.Set(bg, "bin", []byte(bin), 0), "OK")
	eq(t, e.c.Get(bg, "bin"), bin)
	eq(t, e.c.Set(bg, "n", 42, 0), "OK")
	eq(t, e.c.Get(bg, "n"), "42")
	if n, err := e.c.Get(bg, "n").Int64(); err != nil || n != 42 {
		t.Errorf("GET n as int64: %d, %v", n, err)
	}
	eq(t, e.c.Set(bg, "empty", "", 0), "OK")
	eq(t, e.c.Get(bg, "empty"), "")
	eq(t, e.c.Exists(bg, "empty"), 1)
	eq(t, e.c.Set(bg, "k", "w", 10*time.Second), "OK")
	eq(t, e.c.Get(bg, "k"), "w")
	within(t, "TTL after SET EX 10", mustVal(t, e.c.TTL(bg, "k")), 9*time.Second, 10*time.Second)
}

func grSetNX(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.SetNX(bg, "k", "first", 0), true)
	eq(t, e.c.SetNX(bg, "k", "second", 0), false)
	eq(t, e.c.Get(bg, "k"), "first")
	eq(t, e.c.TTL(bg, "k"), time.Duration(-1))
	eq(t, e.c.SetNX(bg, "t", "x", 100*time.Second), true)
	within(t, "TTL after SetNX with expiry", mustVal(t, e.c.TTL(bg, "t")), 99*time.Second, 100*time.Second)
	eq(t, e.c.SetNX(bg, "t", "y", 100*time.Second), false)
	eq(t, e.c.Get(bg, "t"), "x")
	eq(t, e.c.Do(bg, "SETNX", "k", "z"), interface{}(int64(0)))
	eq(t, e.c.Do(bg, "SETNX", "new", "z"), interface{}(int64(1)))
}

func grSetArgs(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.SetArgs(bg, "k", "v1", redis.SetArgs{Mode: "NX"}), "OK")
	isNil(t, e.c.SetArgs(bg, "k", "v2", redis.SetArgs{Mode: "NX"}))
	eq(t, e.c.Get(bg, "k"), "v1")
	isNil(t, e.c.SetArgs(bg, "missing", "x", redis.SetArgs{Mode: "XX"}))
	eq(t, e.c.Exists(bg, "missing"), 0)
	eq(t, e.c.SetArgs(bg, "k", "v3", redis.SetArgs{Mode: "XX"}), "OK")
	eq(t, e.c.Get(bg, "k"), "v3")

	// GET returns the old value, or nil when there was none (and sets anyway).
	eq(t, e.c.SetArgs(bg, "k", "v4", redis.SetArgs{Get: true}), "v3")
	eq(t, e.c.Get(bg, "k"), "v4")
	isNil(t, e.c.SetArgs(bg, "fresh", "f", redis.SetArgs{Get: true}))
	eq(t, e.c.Get(bg, "fresh"), "f")
	eq(t, e.c.SetArgs(bg, "k", "v5", redis.SetArgs{Mode: "XX", Get: true}), "v4")
	eq(t, e.c.Get(bg, "k"), "v5")
	isNil(t, e.c.SetArgs(bg, "missing", "x", redis.SetArgs{Mode: "XX", Get: true}))
	eq(t, e.c.Exists(bg, "missing"), 0)
	// NX GET (Redis 7.0): returns the old value and does not set.
	eq(t, e.c.SetArgs(bg, "k", "v6", redis.SetArgs{Mode: "NX", Get: true}), "v5")
	eq(t, e.c.Get(bg, "k"), "v5")
	isNil(t, e.c.SetArgs(bg, "nxget", "n", redis.SetArgs{Mode: "NX", Get: true}))
	eq(t, e.c.Get(bg, "nxget"), "n")

	// KEEPTTL keeps the expiry; a plain SET drops it.
	eq(t, e.c.Set(bg, "t", "a", 100*time.Second), "OK")
	eq(t, e.c.SetArgs(bg, "t", "b", redis.SetArgs{KeepTTL: true}), "OK")
	eq(t, e.c.Get(bg, "t"), "b")
	within(t, "TTL after SET KEEPTTL", mustVal(t, e.c.TTL(bg, "t")), 99*time.Second, 100*time.Second)
	eq(t, e.c.SetArgs(bg, "t", "c", redis.SetArgs{Mode: "XX", KeepTTL: true, Get: true}), "b")
	within(t, "TTL after SET XX KEEPTTL GET", mustVal(t, e.c.TTL(bg, "t")), 99*time.Second, 100*time.Second)
	eq(t, e.c.Set(bg, "t", "d", 0), "OK")
	eq(t, e.c.TTL(bg, "t"), time.Duration(-1))

	// TTL in SetArgs: whole seconds go as EX, others as PX.
	eq(t, e.c.SetArgs(bg, "ex", "x", redis.SetArgs{TTL: 50 * time.Second}), "OK")
	within(t, "TTL after SetArgs TTL 50s", mustVal(t, e.c.TTL(bg, "ex")), 49*time.Second, 50*time.Second)
	eq(t, e.c.SetArgs(bg, "px", "x", redis.SetArgs{TTL: 2500 * time.Millisecond}), "OK")
	within(t, "PTTL after SetArgs TTL 2.5s", mustVal(t, e.c.PTTL(bg, "px")), 2000*time.Millisecond, 2500*time.Millisecond)
}

func grSetArgsExpiry(t *testing.T, e *goRedisEnv) {
	// A whole-second ExpireAt is sent as EXAT.
	at := time.Now().Add(time.Hour).Truncate(time.Second)
	eq(t, e.c.SetArgs(bg, "exat", "v", redis.SetArgs{ExpireAt: at}), "OK")
	within(t, "TTL after SET EXAT +1h", mustVal(t, e.c.TTL(bg, "exat")), 3598*time.Second, 3600*time.Second)
	eq(t, e.c.ExpireTime(bg, "exat"), time.Duration(at.Unix())*time.Second)

	// A millisecond ExpireAt is sent as PXAT.
	atMs := time.Now().Truncate(time.Second).Add(time.Hour + 500*time.Millisecond)
	eq(t, e.c.SetArgs(bg, "pxat", "v", redis.SetArgs{ExpireAt: atMs}), "OK")
	within(t, "PTTL after SET PXAT", mustVal(t, e.c.PTTL(bg, "pxat")), 3598*time.Second, 3600500*time.Millisecond)
	eq(t, e.c.PExpireTime(bg, "pxat"), time.Duration(atMs.UnixMilli())*time.Millisecond)

	// With GET and a condition.
	at2 := at.Add(time.Hour)
	eq(t, e.c.SetArgs(bg, "exat", "w", redis.SetArgs{Mode: "XX", ExpireAt: at2, Get: true}), "v")
	eq(t, e.c.ExpireTime(bg, "exat"), time.Duration(at2.Unix())*time.Second)

	// An expiry time in the past: SET answers OK and the key is gone.
	eq(t, e.c.SetArgs(bg, "past", "v", redis.SetArgs{ExpireAt: time.Unix(1000, 0)}), "OK")
	isNil(t, e.c.Get(bg, "past"))
	eq(t, e.c.Exists(bg, "past"), 0)
}

func grSetExTTL(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.SetEx(bg, "k", "v", 10*time.Second), "OK")
	eq(t, e.c.Get(bg, "k"), "v")
	within(t, "TTL after SETEX 10", mustVal(t, e.c.TTL(bg, "k")), 9*time.Second, 10*time.Second)
	within(t, "PTTL after SETEX 10", mustVal(t, e.c.PTTL(bg, "k")), 9*time.Second, 10*time.Second)
	eq(t, e.c.TTL(bg, "missing"), time.Duration(-2))
	eq(t, e.c.PTTL(bg, "missing"), time.Duration(-2))
	eq(t, e.c.Set(bg, "forever", "v", 0), "OK")
	eq(t, e.c.TTL(bg, "forever"), time.Duration(-1))
	eq(t, e.c.PTTL(bg, "forever"), time.Duration(-1))
	isRedisErr(t, e.c.SetEx(bg, "k", "v", 0), "ERR invalid expire time in 'setex' command")
	eq(t, e.c.Do(bg, "PSETEX", "ps", "1500", "v"), interface{}("OK"))
	within(t, "PTTL after PSETEX 1500", mustVal(t, e.c.PTTL(bg, "ps")), 1400*time.Millisecond, 1500*time.Millisecond)
}

// grExpiryObserved is the one case that sleeps: a key set with PX 50 is
// gone 120 ms later.
func grExpiryObserved(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Set(bg, "short", "v", 50*time.Millisecond), "OK")
	eq(t, e.c.Set(bg, "long", "v", time.Hour), "OK")
	eq(t, e.c.Get(bg, "short"), "v")
	time.Sleep(120 * time.Millisecond)
	isNil(t, e.c.Get(bg, "short"))
	eq(t, e.c.Exists(bg, "short"), 0)
	eq(t, e.c.TTL(bg, "short"), time.Duration(-2))
	eq(t, e.c.Get(bg, "long"), "v")
	eq(t, e.c.DBSize(bg), 1)
}

func grExpireOptions(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Set(bg, "k", "v", 0), "OK")
	// No expiry yet: XX fails, GT fails (no expiry counts as infinite).
	eq(t, e.c.ExpireXX(bg, "k", 100*time.Second), false)
	eq(t, e.c.ExpireGT(bg, "k", 100*time.Second), false)
	eq(t, e.c.TTL(bg, "k"), time.Duration(-1))
	eq(t, e.c.ExpireNX(bg, "k", 100*time.Second), true)
	eq(t, e.c.ExpireNX(bg, "k", 200*time.Second), false)
	within(t, "TTL after EXPIRE NX 100", mustVal(t, e.c.TTL(bg, "k")), 99*time.Second, 100*time.Second)
	eq(t, e.c.ExpireXX(bg, "k", 50*time.Second), true)
	within(t, "TTL after EXPIRE XX 50", mustVal(t, e.c.TTL(bg, "k")), 49*time.Second, 50*time.Second)
	eq(t, e.c.ExpireGT(bg, "k", 40*time.Second), false)
	eq(t, e.c.ExpireGT(bg, "k", 80*time.Second), true)
	within(t, "TTL after EXPIRE GT 80", mustVal(t, e.c.TTL(bg, "k")), 79*time.Second, 80*time.Second)
	eq(t, e.c.ExpireLT(bg, "k", 90*time.Second), false)
	eq(t, e.c.ExpireLT(bg, "k", 30*time.Second), true)
	within(t, "TTL after EXPIRE LT 30", mustVal(t, e.c.TTL(bg, "k")), 29*time.Second, 30*time.Second)

	// LT on a key without expiry succeeds (infinite > anything).
	eq(t, e.c.Set(bg, "p", "v", 0), "OK")
	eq(t, e.c.ExpireLT(bg, "p", 100*time.Second), true)
	within(t, "TTL after EXPIRE LT on persistent key", mustVal(t, e.c.TTL(bg, "p")), 99*time.Second, 100*time.Second)

	eq(t, e.c.Expire(bg, "missing", 100*time.Second), false)
	eq(t, e.c.ExpireNX(bg, "missing", 100*time.Second), false)
	eq(t, e.c.Expire(bg, "k", 20*time.Second), true)
	within(t, "TTL after EXPIRE 20", mustVal(t, e.c.TTL(bg, "k")), 19*time.Second, 20*time.Second)
	eq(t, e.c.PExpire(bg, "k", 1500*time.Millisecond), true)
	within(t, "PTTL after PEXPIRE 1500", mustVal(t, e.c.PTTL(bg, "k")), 1400*time.Millisecond, 1500*time.Millisecond)
	at := time.Now().Add(time.Hour).Truncate(time.Second)
	eq(t, e.c.ExpireAt(bg, "k", at), true)
	eq(t, e.c.ExpireTime(bg, "k"), time.Duration(at.Unix())*time.Second)
	// A non-positive expiry deletes the key.
	eq(t, e.c.Set(bg, "z", "v", 0), "OK")
	eq(t, e.c.Do(bg, "EXPIRE", "z", "0"), interface{}(int64(1)))
	eq(t, e.c.Exists(bg, "z"), 0)
	isRedisErr(t, e.c.Do(bg, "EXPIRE", "k", "10", "NX", "XX"),
		"ERR NX and XX, GT or LT options at the same time are not compatible")
	isRedisErr(t, e.c.Do(bg, "EXPIRE", "k", "10", "GT", "LT"),
		"ERR GT and LT options at the same time are not compatible")
}

func grPersist(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Set(bg, "k", "v", 100*time.Second), "OK")
	eq(t, e.c.Persist(bg, "k"), true)
	eq(t, e.c.TTL(bg, "k"), time.Duration(-1))
	eq(t, e.c.Persist(bg, "k"), false)
	eq(t, e.c.Persist(bg, "missing"), false)
	eq(t, e.c.Get(bg, "k"), "v")
}

func grMGetMSet(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.MSet(bg, "a", "1", "b", "2"), "OK")
	deepEq(t, "MGET a missing b", mustVal(t, e.c.MGet(bg, "a", "missing", "b")), []interface{}{"1", nil, "2"})
	eq(t, e.c.MSet(bg, map[string]interface{}{"c": "3"}), "OK")
	eq(t, e.c.Get(bg, "c"), "3")
	eq(t, e.c.MSetNX(bg, "a", "x", "d", "4"), false)
	eq(t, e.c.Exists(bg, "d"), 0)
	eq(t, e.c.Get(bg, "a"), "1")
	eq(t, e.c.MSetNX(bg, "d", "4", "e", "5"), true)
	deepEq(t, "MGET d e", mustVal(t, e.c.MGet(bg, "d", "e")), []interface{}{"4", "5"})
	// MSET overwrites and drops expiry.
	eq(t, e.c.Set(bg, "t", "old", time.Hour), "OK")
	eq(t, e.c.MSet(bg, "t", "new"), "OK")
	eq(t, e.c.TTL(bg, "t"), time.Duration(-1))
	deepEq(t, "MGET t t", mustVal(t, e.c.MGet(bg, "t", "t")), []interface{}{"new", "new"})
	isRedisErr(t, e.c.Do(bg, "MSET", "a", "1", "b"), "ERR wrong number of arguments for 'mset' command")
}

func grGetSetGetDel(t *testing.T, e *goRedisEnv) {
	isNil(t, e.c.GetSet(bg, "k", "first"))
	eq(t, e.c.Get(bg, "k"), "first")
	eq(t, e.c.GetSet(bg, "k", "second"), "first")
	eq(t, e.c.Get(bg, "k"), "second")
	eq(t, e.c.Expire(bg, "k", time.Hour), true)
	eq(t, e.c.GetSet(bg, "k", "third"), "second")
	eq(t, e.c.TTL(bg, "k"), time.Duration(-1)) // GETSET drops the expiry

	eq(t, e.c.GetDel(bg, "k"), "third")
	eq(t, e.c.Exists(bg, "k"), 0)
	isNil(t, e.c.GetDel(bg, "k"))
}

func grGetEx(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Set(bg, "k", "v", 0), "OK")
	eq(t, e.c.GetEx(bg, "k", 100*time.Second), "v")
	within(t, "TTL after GETEX EX 100", mustVal(t, e.c.TTL(bg, "k")), 99*time.Second, 100*time.Second)
	eq(t, e.c.GetEx(bg, "k", -1), "v") // plain GETEX: no change
	within(t, "TTL after plain GETEX", mustVal(t, e.c.TTL(bg, "k")), 99*time.Second, 100*time.Second)
	eq(t, e.c.GetEx(bg, "k", 1500*time.Millisecond), "v")
	within(t, "PTTL after GETEX PX 1500", mustVal(t, e.c.PTTL(bg, "k")), 1400*time.Millisecond, 1500*time.Millisecond)
	eq(t, e.c.GetEx(bg, "k", 0), "v") // PERSIST
	eq(t, e.c.TTL(bg, "k"), time.Duration(-1))
	isNil(t, e.c.GetEx(bg, "missing", 10*time.Second))
	eq(t, e.c.Exists(bg, "missing"), 0)
}

func grAppendStrLen(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.StrLen(bg, "k"), 0)
	eq(t, e.c.Append(bg, "k", "Hello"), 5)
	eq(t, e.c.Append(bg, "k", " World"), 11)
	eq(t, e.c.Get(bg, "k"), "Hello World")
	eq(t, e.c.StrLen(bg, "k"), 11)
	eq(t, e.c.Append(bg, "k", ""), 11)
	eq(t, e.c.Set(bg, "n", 12, 0), "OK")
	eq(t, e.c.Append(bg, "n", "34"), 4)
	eq(t, e.c.Incr(bg, "n"), 1235)
	eq(t, e.c.StrLen(bg, "n"), 4)
	eq(t, e.c.Set(bg, "t", "a", time.Hour), "OK")
	eq(t, e.c.Append(bg, "t", "b"), 2)
	within(t, "TTL after APPEND", mustVal(t, e.c.TTL(bg, "t")), 3599*time.Second, 3600*time.Second)
}

func grCounters(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Incr(bg, "n"), 1)
	eq(t, e.c.IncrBy(bg, "n", 10), 11)
	eq(t, e.c.Decr(bg, "n"), 10)
	eq(t, e.c.DecrBy(bg, "n", 15), -5)
	eq(t, e.c.Get(bg, "n"), "-5")
	eq(t, e.c.Decr(bg, "fresh"), -1)
	eq(t, e.c.IncrByFloat(bg, "n", 0.5), -4.5)
	eq(t, e.c.Get(bg, "n"), "-4.5")
	eq(t, e.c.Set(bg, "f", "10.50", 0), "OK")
	eq(t, e.c.IncrByFloat(bg, "f", 0.1), 10.6)
	eq(t, e.c.Get(bg, "f"), "10.6")
	eq(t, e.c.Set(bg, "e", "5.0e3", 0), "OK")
	eq(t, e.c.IncrByFloat(bg, "e", 200), 5200)
	eq(t, e.c.Get(bg, "e"), "5200")
	eq(t, e.c.Set(bg, "t", "7", time.Hour), "OK")
	eq(t, e.c.Incr(bg, "t"), 8)
	within(t, "TTL after INCR", mustVal(t, e.c.TTL(bg, "t")), 3599*time.Second, 3600*time.Second)

	eq(t, e.c.Set(bg, "max", "9223372036854775807", 0), "OK")
	isRedisErr(t, e.c.Incr(bg, "max"), "ERR increment or decrement would overflow")
	eq(t, e.c.Get(bg, "max"), "9223372036854775807")
	eq(t, e.c.Set(bg, "s", "abc", 0), "OK")
	isRedisErr(t, e.c.IncrByFloat(bg, "s", 1), "ERR value is not a valid float")
	isRedisErr(t, e.c.DecrBy(bg, "s", 1), "ERR value is not an integer or out of range")
	eq(t, e.c.Set(bg, "sp", " 1", 0), "OK")
	isRedisErr(t, e.c.Incr(bg, "sp"), "ERR value is not an integer or out of range")
}

func grRanges(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Set(bg, "k", "Hello World", 0), "OK")
	eq(t, e.c.GetRange(bg, "k", 0, 4), "Hello")
	eq(t, e.c.GetRange(bg, "k", -5, -1), "World")
	eq(t, e.c.GetRange(bg, "k", 0, -1), "Hello World")
	eq(t, e.c.GetRange(bg, "k", 5, 3), "")
	eq(t, e.c.GetRange(bg, "k", 6, 1000), "World")
	eq(t, e.c.GetRange(bg, "missing", 0, 10), "")
	eq(t, e.c.SetRange(bg, "k", 6, "Redis"), 11)
	eq(t, e.c.Get(bg, "k"), "Hello Redis")
	eq(t, e.c.SetRange(bg, "k", 11, "!"), 12)
	eq(t, e.c.Get(bg, "k"), "Hello Redis!")
	eq(t, e.c.SetRange(bg, "pad", 5, "abc"), 8)
	eq(t, e.c.Get(bg, "pad"), "\x00\x00\x00\x00\x00abc")
	eq(t, e.c.SetRange(bg, "none", 3, ""), 0)
	eq(t, e.c.Exists(bg, "none"), 0)
	isRedisErr(t, e.c.SetRange(bg, "k", -1, "x"), "ERR offset is out of range")
	eq(t, e.c.Do(bg, "SUBSTR", "k", "0", "4"), interface{}("Hello"))
}

func grLCS(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.MSet(bg, "key1", "ohmytext", "key2", "mynewtext"), "OK")
	deepEq(t, "LCS", mustVal(t, e.c.LCS(bg, &redis.LCSQuery{Key1: "key1", Key2: "key2"})),
		&redis.LCSMatch{MatchString: "mytext"})
	deepEq(t, "LCS LEN", mustVal(t, e.c.LCS(bg, &redis.LCSQuery{Key1: "key1", Key2: "key2", Len: true})),
		&redis.LCSMatch{Len: 6})
	deepEq(t, "LCS IDX", mustVal(t, e.c.LCS(bg, &redis.LCSQuery{Key1: "key1", Key2: "key2", Idx: true})),
		&redis.LCSMatch{Len: 6, Matches: []redis.LCSMatchedPosition{
			{Key1: redis.LCSPosition{Start: 4, End: 7}, Key2: redis.LCSPosition{Start: 5, End: 8}},
			{Key1: redis.LCSPosition{Start: 2, End: 3}, Key2: redis.LCSPosition{Start: 0, End: 1}},
		}})
	deepEq(t, "LCS IDX MINMATCHLEN 4 WITHMATCHLEN",
		mustVal(t, e.c.LCS(bg, &redis.LCSQuery{Key1: "key1", Key2: "key2", Idx: true, MinMatchLen: 4, WithMatchLen: true})),
		&redis.LCSMatch{Len: 6, Matches: []redis.LCSMatchedPosition{
			{Key1: redis.LCSPosition{Start: 4, End: 7}, Key2: redis.LCSPosition{Start: 5, End: 8}, MatchLen: 4},
		}})
	deepEq(t, "LCS with a missing key", mustVal(t, e.c.LCS(bg, &redis.LCSQuery{Key1: "key1", Key2: "missing"})),
		&redis.LCSMatch{MatchString: ""})
}

func grKeys(t *testing.T, e *goRedisEnv) {
	isNil(t, e.c.RandomKey(bg))
	eq(t, e.c.MSet(bg, "a", "1", "b", "2", "c", "3", "d", "4"), "OK")
	eq(t, e.c.Del(bg, "a", "missing"), 1)
	eq(t, e.c.Del(bg, "a"), 0)
	eq(t, e.c.Unlink(bg, "b", "missing"), 1)
	eq(t, e.c.Exists(bg, "c", "c", "missing"), 2)
	eq(t, e.c.Exists(bg, "missing"), 0)
	eq(t, e.c.Type(bg, "c"), "string")
	eq(t, e.c.Type(bg, "missing"), "none")
	deepEq(t, "KEYS *", sorted(mustVal(t, e.c.Keys(bg, "*"))), []string{"c", "d"})
	deepEq(t, "KEYS c*", mustVal(t, e.c.Keys(bg, "c*")), []string{"c"})
	deepEq(t, "KEYS x*", mustVal(t, e.c.Keys(bg, "x*")), []string{})
	eq(t, e.c.Touch(bg, "c", "d", "missing"), 2)
	eq(t, e.c.DBSize(bg), 2)
	eq(t, e.c.Del(bg, "c"), 1)
	eq(t, e.c.RandomKey(bg), "d")
	eq(t, e.c.Set(bg, "h{x}llo", "v", 0), "OK")
	eq(t, e.c.Set(bg, "hallo", "v", 0), "OK")
	deepEq(t, "KEYS h[ae]llo", mustVal(t, e.c.Keys(bg, "h[ae]llo")), []string{"hallo"})
	deepEq(t, "KEYS h?x?llo", sorted(mustVal(t, e.c.Keys(bg, "h?x?llo"))), []string{"h{x}llo"})
}

func grRename(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Set(bg, "src", "v", 100*time.Second), "OK")
	eq(t, e.c.Rename(bg, "src", "dst"), "OK")
	eq(t, e.c.Exists(bg, "src"), 0)
	eq(t, e.c.Get(bg, "dst"), "v")
	within(t, "TTL kept by RENAME", mustVal(t, e.c.TTL(bg, "dst")), 99*time.Second, 100*time.Second)
	isRedisErr(t, e.c.Rename(bg, "missing", "x"), "ERR no such key")
	eq(t, e.c.Set(bg, "other", "o", 0), "OK")
	eq(t, e.c.Rename(bg, "other", "dst"), "OK") // overwrites, and the TTL goes with the source
	eq(t, e.c.Get(bg, "dst"), "o")
	eq(t, e.c.TTL(bg, "dst"), time.Duration(-1))
	eq(t, e.c.Rename(bg, "dst", "dst"), "OK")
	eq(t, e.c.Get(bg, "dst"), "o")

	eq(t, e.c.Set(bg, "x", "1", 0), "OK")
	eq(t, e.c.RenameNX(bg, "x", "dst"), false)
	eq(t, e.c.Get(bg, "x"), "1")
	eq(t, e.c.RenameNX(bg, "x", "y"), true)
	eq(t, e.c.Get(bg, "y"), "1")
	eq(t, e.c.Exists(bg, "x"), 0)
	isRedisErr(t, e.c.RenameNX(bg, "missing", "z"), "ERR no such key")
}

func grScan(t *testing.T, e *goRedisEnv) {
	want := map[string]bool{}
	var pairs []interface{}
	for i := 0; i < 300; i++ {
		k := fmt.Sprintf("scan:%d", i)
		want[k] = true
		pairs = append(pairs, k, i)
	}
	for i := 0; i < 20; i++ {
		k := fmt.Sprintf("other:%d", i)
		want[k] = true
		pairs = append(pairs, k, i)
	}
	eq(t, e.c.MSet(bg, pairs...), "OK")

	collect := func(what string, it *redis.ScanIterator) map[string]bool {
		got := map[string]bool{}
		for it.Next(bg) {
			got[it.Val()] = true
		}
		if err := it.Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return got
	}
	if got := collect("SCAN COUNT 10", e.c.Scan(bg, 0, "", 10).Iterator()); !reflect.DeepEqual(got, want) {
		t.Errorf("SCAN COUNT 10 returned %d distinct keys, want %d (missing %v, extra %v)",
			len(got), len(want), diffKeys(want, got), diffKeys(got, want))
	}
	other := map[string]bool{}
	for k := range want {
		if strings.HasPrefix(k, "other:") {
			other[k] = true
		}
	}
	if got := collect("SCAN MATCH other:*", e.c.Scan(bg, 0, "other:*", 50).Iterator()); !reflect.DeepEqual(got, other) {
		t.Errorf("SCAN MATCH other:* returned %d keys, want 20 (missing %v, extra %v)",
			len(got), diffKeys(other, got), diffKeys(got, other))
	}
	if got := collect("SCAN TYPE string", e.c.ScanType(bg, 0, "", 100, "string").Iterator()); !reflect.DeepEqual(got, want) {
		t.Errorf("SCAN TYPE string returned %d keys, want %d", len(got), len(want))
	}
	if got := collect("SCAN TYPE hash", e.c.ScanType(bg, 0, "", 100, "hash").Iterator()); len(got) != 0 {
		t.Errorf("SCAN TYPE hash returned %d keys, want 0", len(got))
	}
}

func grCopyMove(t *testing.T, e *goRedisEnv) {
	db3 := e.db(t, 3)
	eq(t, e.c.Set(bg, "src", "v", 100*time.Second), "OK")
	eq(t, e.c.Copy(bg, "src", "dst", 0, false), 1)
	eq(t, e.c.Get(bg, "dst"), "v")
	within(t, "TTL copied by COPY", mustVal(t, e.c.TTL(bg, "dst")), 99*time.Second, 100*time.Second)
	eq(t, e.c.Copy(bg, "src", "dst", 0, false), 0)
	eq(t, e.c.Set(bg, "src", "v2", 0), "OK")
	eq(t, e.c.Copy(bg, "src", "dst", 0, false), 0)
	eq(t, e.c.Get(bg, "dst"), "v")
	eq(t, e.c.Copy(bg, "src", "dst", 0, true), 1)
	eq(t, e.c.Get(bg, "dst"), "v2")
	eq(t, e.c.TTL(bg, "dst"), time.Duration(-1))
	eq(t, e.c.Copy(bg, "missing", "dst", 0, true), 0)
	eq(t, e.c.Get(bg, "dst"), "v2")
	eq(t, e.c.Copy(bg, "src", "copied", 3, false), 1)
	eq(t, db3.Get(bg, "copied"), "v2")
	eq(t, e.c.Exists(bg, "copied"), 0)
	isRedisErr(t, e.c.Copy(bg, "src", "src", 0, false), "ERR source and destination objects are the same")

	eq(t, e.c.Move(bg, "src", 3), true)
	eq(t, e.c.Exists(bg, "src"), 0)
	eq(t, db3.Get(bg, "src"), "v2")
	eq(t, e.c.Move(bg, "missing", 3), false)
	eq(t, e.c.Set(bg, "src", "again", 0), "OK")
	eq(t, e.c.Move(bg, "src", 3), false) // already there
	eq(t, e.c.Get(bg, "src"), "again")
	eq(t, db3.Get(bg, "src"), "v2")
	isRedisErr(t, e.c.Move(bg, "src", 0), "ERR source and destination objects are the same")
	eq(t, e.c.Set(bg, "ttl", "t", 100*time.Second), "OK")
	eq(t, e.c.Move(bg, "ttl", 3), true)
	within(t, "TTL kept by MOVE", mustVal(t, db3.TTL(bg, "ttl")), 99*time.Second, 100*time.Second)
}

func grObject(t *testing.T, e *goRedisEnv) {
	eq(t, e.c.Set(bg, "int", "12345", 0), "OK")
	eq(t, e.c.Set(bg, "short", "hello", 0), "OK")
	eq(t, e.c.Set(bg, "long", strings.Repeat("x", 100), 0), "OK")
	eq(t, e.c.ObjectEncoding(bg, "int"), "int")
	eq(t, e.c.ObjectEncoding(bg, "short"), "embstr")
	eq(t, e.c.ObjectEncoding(bg, "long"), "raw")
	isNil(t, e.c.ObjectEncoding(bg, "missing"))
	within(t, "OBJECT IDLETIME of a fresh key", mustVal(t, e.c.ObjectIdleTime(bg, "short")), 0, time.Second)
	isNil(t, e.c.ObjectIdleTime(bg, "missing"))
	eq(t, e.c.ObjectRefCount(bg, "short"), 1)
}

func grSelect(t *testing.T, e *goRedisEnv) {
	db3 := e.db(t, 3)
	eq(t, db3.Set(bg, "k", "three", 0), "OK")
	isNil(t, e.c.Get(bg, "k"))
	eq(t, db3.Get(bg, "k"), "three")
	eq(t, e.c.Set(bg, "k", "zero", 0), "OK")
	eq(t, db3.Get(bg, "k"), "three")
	eq(t, e.c.Get(bg, "k"), "zero")
	eq(t, db3.Set(bg, "k2", "x", 0), "OK")
	eq(t, db3.DBSize(bg), 2)
	eq(t, e.c.DBSize(bg), 1)

	// SELECT on a connection of its own client: a pooled connection would
	// go back to e.c's pool with database 3 selected.
	conn := e.db(t, 0).Conn()
	defer conn.Close()
	eq(t, conn.Get(bg, "k"), "zero")
	eq(t, conn.Select(bg, 3), "OK")
	eq(t, conn.Get(bg, "k"), "three")
	eq(t, conn.DBSize(bg), 2)
	isRedisErr(t, conn.Select(bg, 16), "ERR DB index is out of range")
	eq(t, conn.Get(bg, "k"), "three") // a failed SELECT keeps the database
}

func grFlush(t *testing.T, e *goRedisEnv) {
	db3 := e.db(t, 3)
	eq(t, e.c.MSet(bg, "a", "1", "b", "2"), "OK")
	eq(t, db3.MSet(bg, "a", "1", "c", "3", "d", "4"), "OK")
	eq(t, db3.DBSize(bg), 3)
	eq(t, db3.FlushDB(bg), "OK")
	eq(t, db3.DBSize(bg), 0)
	eq(t, e.c.DBSize(bg), 2)
	eq(t, e.c.Get(bg, "a"), "1")
	eq(t, db3.Set(bg, "x", "y", 0), "OK")
	eq(t, e.c.FlushAll(bg), "OK")
	eq(t, e.c.DBSize(bg), 0)
	eq(t, db3.DBSize(bg), 0)
	isNil(t, db3.Get(bg, "x"))
}

func grSwapDB(t *testing.T, e *goRedisEnv) {
	db3 := e.db(t, 3)
	eq(t, e.c.Set(bg, "k", "zero", 0), "OK")
	eq(t, db3.Set(bg, "k", "three", 0), "OK")
	eq(t, db3.Set(bg, "only3", "x", 0), "OK")
	conn := e.c.Conn()
	defer conn.Close()
	eq(t, conn.SwapDB(bg, 0, 3), "OK")
	eq(t, e.c.Get(bg, "k"), "three")
	eq(t, e.c.Get(bg, "only3"), "x")
	eq(t, db3.Get(bg, "k"), "zero")
	eq(t, db3.Exists(bg, "only3"), 0)
	eq(t, e.c.DBSize(bg), 2)
	eq(t, db3.DBSize(bg), 1)
	isRedisErr(t, conn.SwapDB(bg, 0, 16), "ERR DB index is out of range")
	eq(t, conn.SwapDB(bg, 3, 0), "OK")
	eq(t, e.c.Get(bg, "k"), "zero")
}

func grTime(t *testing.T, e *goRedisEnv) {
	before := time.Now()
	tm := mustVal(t, e.c.Time(bg))
	after := time.Now()
	if tm.Before(before.Add(-2*time.Second)) || tm.After(after.Add(2*time.Second)) {
		t.Errorf("TIME: %v, want close to %v", tm, before)
	}
	res := mustVal(t, e.c.Do(bg, "TIME"))
	a, ok := res.([]interface{})
	if !ok || len(a) != 2 {
		t.Fatalf("TIME: %#v, want two strings", res)
	}
	if us, ok := a[1].(string); !ok || len(us) > 6 {
		t.Errorf("TIME microseconds: %#v, want at most 6 digits", a[1])
	}
}

func grInfo(t *testing.T, e *goRedisEnv) {
	info := mustVal(t, e.c.Info(bg))
	fields := parseInfo(t, info)
	if v := fields["redis_version"]; v == "" {
		t.Errorf("INFO: no redis_version in %q", abbrev([]byte(info)))
	}
	if !strings.Contains(info, "# Server\r\n") {
		t.Errorf("INFO: no # Server section")
	}
	if fields["tcp_port"] != strings.Split(sutRedis, ":")[1] {
		t.Errorf("INFO: tcp_port %q, want %s", fields["tcp_port"], sutRedis)
	}
	eq(t, e.c.Set(bg, "a", "1", 0), "OK")
	eq(t, e.c.Set(bg, "b", "2", time.Hour), "OK")
	ks := mustVal(t, e.c.Info(bg, "keyspace"))
	if f := parseInfo(t, ks); !strings.HasPrefix(f["db0"], "keys=2,expires=1,") {
		t.Errorf("INFO keyspace: db0 is %q, want keys=2,expires=1,…", f["db0"])
	}
	if strings.Contains(ks, "# Server") {
		t.Errorf("INFO keyspace holds the server section: %q", ks)
	}
	srv := mustVal(t, e.c.Info(bg, "server"))
	if strings.Contains(srv, "# Keyspace") || parseInfo(t, srv)["redis_version"] == "" {
		t.Errorf("INFO server: %q", abbrev([]byte(srv)))
	}
}

// parseInfo splits INFO text into fields; every line must be a section
// header, empty, or name:value.
func parseInfo(t *testing.T, info string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(info, "\r\n") {
		if line == "" || strings.HasPrefix(line, "# ") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			t.Errorf("INFO line %q has no colon", line)
			continue
		}
		out[k] = v
	}
	return out
}

func grConfig(t *testing.T, e *goRedisEnv) {
	orig := mustVal(t, e.c.ConfigGet(bg, "maxmemory-policy"))
	old, ok := orig["maxmemory-policy"]
	if !ok || len(orig) != 1 {
		t.Fatalf("CONFIG GET maxmemory-policy: %v", orig)
	}
	t.Cleanup(func() { e.c.ConfigSet(bg, "maxmemory-policy", old) })
	eq(t, e.c.ConfigSet(bg, "maxmemory-policy", "allkeys-lru"), "OK")
	deepEq(t, "CONFIG GET after SET", mustVal(t, e.c.ConfigGet(bg, "maxmemory-policy")),
		map[string]string{"maxmemory-policy": "allkeys-lru"})
	glob := mustVal(t, e.c.ConfigGet(bg, "maxmemory*"))
	if glob["maxmemory-policy"] != "allkeys-lru" {
		t.Errorf("CONFIG GET maxmemory*: %v", glob)
	}
	if _, ok := glob["maxmemory"]; !ok {
		t.Errorf("CONFIG GET maxmemory*: no maxmemory in %v", glob)
	}
	eq(t, e.c.ConfigSet(bg, "maxmemory-policy", old), "OK")
	deepEq(t, "CONFIG GET unknown", mustVal(t, e.c.ConfigGet(bg, "no-such-directive")), map[string]string{})
	isRedisErr(t, e.c.ConfigSet(bg, "no-such-directive", "1"),
		"ERR Unknown option or number of arguments for CONFIG SET - 'no-such-directive'")
	port := mustVal(t, e.c.ConfigGet(bg, "port"))
	if port["port"] != strings.Split(sutRedis, ":")[1] {
		t.Errorf("CONFIG GET port: %v, want %s", port, sutRedis)
	}
}

func grClient(t *testing.T, e *goRedisEnv) {
	own := e.db(t, 0) // CLIENT SETNAME must not leak into e.c's pool
	c1, c2 := own.Conn(), own.Conn()
	defer c1.Close()
	defer c2.Close()
	id1, id2 := mustVal(t, c1.ClientID(bg)), mustVal(t, c2.ClientID(bg))
	if id1 <= 0 || id2 <= 0 || id1 == id2 {
		t.Errorf("CLIENT ID of two connections: %d and %d", id1, id2)
	}
	eq(t, c1.ClientID(bg), id1)
	isNil(t, c1.ClientGetName(bg))
	eq(t, c1.ClientSetName(bg, "tandem-gotest"), true)
	eq(t, c1.ClientGetName(bg), "tandem-gotest")
	isNil(t, c2.ClientGetName(bg))
	isRedisErr(t, c1.ClientSetName(bg, "has space"),
		"ERR Client names cannot contain spaces, newlines or special characters.")
	eq(t, c1.ClientGetName(bg), "tandem-gotest")

	list := mustVal(t, c2.ClientList(bg))
	line1, line2 := clientLine(list, id1), clientLine(list, id2)
	if !strings.Contains(line1, " name=tandem-gotest ") {
		t.Errorf("CLIENT LIST: line of id %d is %q, want name=tandem-gotest (list %q)", id1, line1, list)
	}
	if f := strings.Fields(line2); !slices.Contains(f, fmt.Sprintf("resp=%d", e.proto)) || !slices.Contains(f, "cmd=client|list") {
		t.Errorf("CLIENT LIST: line of id %d is %q, want resp=%d and cmd=client|list", id2, line2, e.proto)
	}

	// ClientName in the options is set during the handshake.
	named := newGoRedis(t, e.proto, 0, func(o *redis.Options) { o.ClientName = "tandem-opt" })
	eq(t, named.ClientGetName(bg), "tandem-opt")
	if l := mustVal(t, named.ClientList(bg)); !strings.Contains(l, " name=tandem-opt ") {
		t.Errorf("CLIENT LIST does not show the handshake's name: %q", l)
	}
}

// clientLine returns the CLIENT LIST line of the client with id.
func clientLine(list string, id int64) string {
	prefix := fmt.Sprintf("id=%d ", id)
	for _, line := range strings.Split(list, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

func grCommand(t *testing.T, e *goRedisEnv) {
	cmds := mustVal(t, e.c.Command(bg))
	count := mustVal(t, e.c.Do(bg, "COMMAND", "COUNT"))
	if count != int64(len(cmds)) {
		t.Errorf("COMMAND COUNT %v, but COMMAND listed %d commands", count, len(cmds))
	}
	check := func(name string, arity, first, last, step int8, flags, acl []string) {
		t.Helper()
		ci := cmds[name]
		if ci == nil {
			t.Errorf("COMMAND: no %s", name)
			return
		}
		if ci.Name != name || ci.Arity != arity || ci.FirstKeyPos != first || ci.LastKeyPos != last || ci.StepCount != step {
			t.Errorf("COMMAND %s: name %q arity %d keys %d,%d,%d; want arity %d keys %d,%d,%d",
				name, ci.Name, ci.Arity, ci.FirstKeyPos, ci.LastKeyPos, ci.StepCount, arity, first, last, step)
		}
		for _, f := range flags {
			if !slices.Contains(ci.Flags, f) {
				t.Errorf("COMMAND %s: flags %v lack %s", name, ci.Flags, f)
			}
		}
		for _, f := range acl {
			if !slices.Contains(ci.ACLFlags, f) {
				t.Errorf("COMMAND %s: ACL categories %v lack %s", name, ci.ACLFlags, f)
			}
		}
	}
	check("get", 2, 1, 1, 1, []string{"readonly", "fast"}, []string{"@read", "@string", "@fast"})
	check("set", -3, 1, 1, 1, []string{"write", "denyoom"}, []string{"@write", "@string", "@slow"})
	check("mset", -3, 1, -1, 2, []string{"write", "denyoom"}, []string{"@write", "@string"})
	check("del", -2, 1, -1, 1, []string{"write"}, []string{"@keyspace", "@write"})
	check("ping", -1, 0, 0, 0, []string{"fast"}, []string{"@fast", "@connection"})
	check("dbsize", 1, 0, 0, 0, []string{"readonly", "fast"}, []string{"@keyspace", "@read", "@fast"})
	if ci := cmds["get"]; ci != nil && !ci.ReadOnly {
		t.Errorf("COMMAND get: not read-only")
	}
	if ci := cmds["set"]; ci != nil && ci.ReadOnly {
		t.Errorf("COMMAND set: read-only")
	}
	for _, name := range []string{
		"get", "set", "setnx", "setex", "psetex", "mget", "mset", "msetnx", "getset", "getdel", "getex",
		"append", "strlen", "incr", "decr", "incrby", "decrby", "incrbyfloat", "getrange", "substr",
		"setrange", "lcs", "del", "unlink", "exists", "expire", "pexpire", "expireat", "pexpireat", "ttl",
		"pttl", "expiretime", "pexpiretime", "persist", "type", "keys", "scan", "randomkey", "rename",
		"renamenx", "touch", "copy", "move", "object", "ping", "echo", "select", "dbsize", "flushdb",
		"flushall", "time", "swapdb", "info", "config", "client", "command", "hello", "quit", "auth", "reset",
	} {
		if cmds[name] == nil {
			t.Errorf("COMMAND does not list %s", name)
		}
	}
	info := mustVal(t, e.c.Do(bg, "COMMAND", "INFO", "get", "no-such-command"))
	a, ok := info.([]interface{})
	if !ok || len(a) != 2 || a[1] != nil {
		t.Fatalf("COMMAND INFO get no-such-command: %#v", info)
	}
	if g, ok := a[0].([]interface{}); !ok || len(g) < 7 || g[0] != "get" || g[1] != int64(2) {
		t.Errorf("COMMAND INFO get: %#v", a[0])
	}
}

func grPipelined(t *testing.T, e *goRedisEnv) {
	cmds, err := e.c.Pipelined(bg, func(p redis.Pipeliner) error {
		for i := 0; i < 50; i++ {
			p.Set(bg, fmt.Sprintf("p:%d", i), fmt.Sprintf("v-%d", i), 0)
		}
		for i := 0; i < 50; i++ {
			p.Get(bg, fmt.Sprintf("p:%d", i))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Pipelined: %v", err)
	}
	if len(cmds) != 100 {
		t.Fatalf("Pipelined: %d results, want 100", len(cmds))
	}
	for i := 0; i < 50; i++ {
		eq(t, cmds[i].(*redis.StatusCmd), "OK")
		eq(t, cmds[50+i].(*redis.StringCmd), fmt.Sprintf("v-%d", i))
	}
	eq(t, e.c.DBSize(bg), 50)

	// An error in the middle fails that command only.
	cmds, err = e.c.Pipelined(bg, func(p redis.Pipeliner) error {
		p.Set(bg, "s", "abc", 0)
		p.Incr(bg, "s")
		p.Get(bg, "s")
		p.Get(bg, "missing")
		return nil
	})
	if err == nil || err.Error() != "ERR value is not an integer or out of range" {
		t.Errorf("Pipelined with a failing INCR: error %v", err)
	}
	if len(cmds) == 4 {
		eq(t, cmds[0].(*redis.StatusCmd), "OK")
		isRedisErr(t, cmds[1], "ERR value is not an integer or out of range")
		eq(t, cmds[2].(*redis.StringCmd), "abc")
		isNil(t, cmds[3])
	} else {
		t.Errorf("Pipelined: %d results, want 4", len(cmds))
	}

	cmds, err = e.c.TxPipelined(bg, func(p redis.Pipeliner) error {
		p.Incr(bg, "tx")
		p.Incr(bg, "tx")
		p.Get(bg, "tx")
		return nil
	})
	if err != nil || len(cmds) != 3 {
		t.Fatalf("TxPipelined: %d results, %v", len(cmds), err)
	}
	eq(t, cmds[0].(*redis.IntCmd), 1)
	eq(t, cmds[1].(*redis.IntCmd), 2)
	eq(t, cmds[2].(*redis.StringCmd), "2")
}

func grErrors(t *testing.T, e *goRedisEnv) {
	err := e.c.Get(bg, "missing").Err()
	if err != redis.Nil || err.Error() != "redis: nil" {
		t.Errorf("GET missing: %v, want redis.Nil", err)
	}
	eq(t, e.c.Set(bg, "s", "abc", 0), "OK")
	isRedisErr(t, e.c.Incr(bg, "s"), "ERR value is not an integer or out of range")
	isRedisErr(t, e.c.IncrBy(bg, "s", 5), "ERR value is not an integer or out of range")
	eq(t, e.c.Get(bg, "s"), "abc")
	isRedisErr(t, e.c.Do(bg, "NOSUCHCMD", "a"), "ERR unknown command 'NOSUCHCMD', with args beginning with: 'a' ")
	isRedisErr(t, e.c.Do(bg, "GET"), "ERR wrong number of arguments for 'get' command")
	isRedisErr(t, e.c.Do(bg, "SET", "k", "v", "NX", "XX"), "ERR syntax error")
	isRedisErr(t, e.c.Do(bg, "SET", "k", "v", "EX", "0"), "ERR invalid expire time in 'set' command")
	isRedisErr(t, e.c.Do(bg, "SET", "k", "v", "EX", "x"), "ERR value is not an integer or out of range")
	// The connection is still in step after the errors.
	eq(t, e.c.Ping(bg), "PONG")
	eq(t, e.c.Get(bg, "s"), "abc")
	eq(t, e.c.Exists(bg, "k"), 0)
}

// TestGoRedisPool runs 50 goroutines of 200 operations each (SET then GET
// of its own keys) over a pool of 16 connections, in each protocol.
func TestGoRedisPool(t *testing.T) {
	const goroutines, pairs = 50, 100
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			flushSUT(t)
			c := newGoRedis(t, proto, 0, func(o *redis.Options) { o.PoolSize = 16 })
			var wg sync.WaitGroup
			for g := 0; g < goroutines; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; i < pairs; i++ {
						k := fmt.Sprintf("pool:%d:%d", g, i)
						v := fmt.Sprintf("value-%d-%d-%s", g, i, strings.Repeat("x", (g*i)%50))
						if err := c.Set(bg, k, v, 0).Err(); err != nil {
							t.Errorf("SET %s: %v", k, err)
							return
						}
						got, err := c.Get(bg, k).Result()
						if err != nil || got != v {
							t.Errorf("GET %s: %q, %v; want %q", k, got, err, v)
							return
						}
					}
				}(g)
			}
			wg.Wait()
			eq(t, c.DBSize(bg), int64(goroutines*pairs))
			eq(t, c.Get(bg, "pool:49:99"), fmt.Sprintf("value-49-99-%s", strings.Repeat("x", 49*99%50)))
			if st := c.PoolStats(); st.TotalConns > 16 || st.TotalConns == 0 {
				t.Errorf("pool holds %d connections, want 1..16", st.TotalConns)
			}
		})
	}
}

// deepEq asserts reflect.DeepEqual(got, want).
func deepEq(t testing.TB, what string, got, want interface{}) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %#v, want %#v", what, got, want)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// diffKeys lists up to 10 keys of a missing from b.
func diffKeys(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	if len(out) > 10 {
		out = append(out[:10], "…")
	}
	return out
}
