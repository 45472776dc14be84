package compat

import (
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"
)

// go-redis and gomemcache on Tandem's one keyspace (memcached sees
// database 0). These need Tandem: in self-test mode the two protocols are
// separate servers.

func crossClients(t *testing.T) (*redis.Client, *memcache.Client) {
	t.Helper()
	mustNotSelfTest(t)
	flushSUT(t)
	return newGoRedis(t, 3, 0), newGomemc(t)
}

func TestCrossClientsRedisSetMemcGet(t *testing.T) {
	rc, mc := crossClients(t)
	eq(t, rc.Set(bg, "k", "hello", 0), "OK")
	it, err := mc.Get("k")
	memcEq(t, "gomemcache Get after go-redis Set", it, err, "hello", 0)

	for name, v := range map[string]string{
		"crlf":  "a\r\nb",
		"nul":   "x\x00y\x00",
		"mixed": "\r\nEND\r\n\x00\xff VALUE k 0 1\r\n",
		"empty": "",
	} {
		eq(t, rc.Set(bg, name, []byte(v), 0), "OK")
		it, err := mc.Get(name)
		memcEq(t, "gomemcache Get of binary "+name, it, err, v, 0)
	}

	// A go-redis SET replaces the flags of a memcached item with 0.
	if err := mc.Set(&memcache.Item{Key: "f", Value: []byte("m"), Flags: 42}); err != nil {
		t.Fatal(err)
	}
	eq(t, rc.Set(bg, "f", "r", 0), "OK")
	it, err = mc.Get("f")
	memcEq(t, "gomemcache Get after go-redis overwrote a flagged item", it, err, "r", 0)

	got, err := mc.GetMulti([]string{"k", "crlf", "missing"})
	if err != nil || len(got) != 2 || got["k"] == nil || string(got["k"].Value) != "hello" ||
		got["crlf"] == nil || string(got["crlf"].Value) != "a\r\nb" {
		t.Errorf("GetMulti of go-redis keys: %v, %v", got, err)
	}
	eq(t, rc.MSet(bg, "m1", "one", "m2", "two"), "OK")
	got, err = mc.GetMulti([]string{"m1", "m2"})
	if err != nil || len(got) != 2 || string(got["m1"].Value) != "one" || string(got["m2"].Value) != "two" {
		t.Errorf("GetMulti after go-redis MSet: %v, %v", got, err)
	}
}

func TestCrossClientsMemcSetRedisGet(t *testing.T) {
	rc, mc := crossClients(t)
	big := bigValue(1000 * 1000) // under the 1 MB item size limit
	if err := mc.Set(&memcache.Item{Key: "big", Value: big, Flags: 42}); err != nil {
		t.Fatalf("gomemcache Set 1 MB: %v", err)
	}
	got, err := rc.Get(bg, "big").Bytes()
	if err != nil || string(got) != string(big) {
		t.Errorf("go-redis Get of a 1 MB gomemcache value: %d bytes, %v; want %d bytes", len(got), err, len(big))
	}
	eq(t, rc.StrLen(bg, "big"), int64(len(big)))
	eq(t, rc.Type(bg, "big"), "string")
	it, err := mc.Get("big")
	memcEq(t, "flags kept after go-redis reads", it, err, string(big), 42)

	if err := mc.Set(&memcache.Item{Key: "small", Value: []byte("a\r\n\x00b"), Flags: 0xdeadbeef}); err != nil {
		t.Fatal(err)
	}
	eq(t, rc.Get(bg, "small"), "a\r\n\x00b")
	deepEq(t, "go-redis MGet of gomemcache keys", mustVal(t, rc.MGet(bg, "small", "missing")), []interface{}{"a\r\n\x00b", nil})
}

func TestCrossClientsCASConflict(t *testing.T) {
	rc, mc := crossClients(t)
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("v1")}); err != nil {
		t.Fatal(err)
	}
	it, err := mc.Get("k")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, rc.Set(bg, "k", "redis", 0), "OK")
	it.Value = []byte("memc")
	memcErr(t, "CompareAndSwap after a go-redis Set", mc.CompareAndSwap(it), memcache.ErrCASConflict)
	eq(t, rc.Get(bg, "k"), "redis")

	// Without a write in between the swap succeeds; go-redis sees it.
	it, err = mc.Get("k")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, rc.Get(bg, "k"), "redis") // reads do not change the CAS
	eq(t, rc.StrLen(bg, "k"), 5)
	it.Value = []byte("memc")
	if err := mc.CompareAndSwap(it); err != nil {
		t.Errorf("CompareAndSwap after go-redis reads only: %v", err)
	}
	eq(t, rc.Get(bg, "k"), "memc")

	// go-redis INCR, APPEND and SETRANGE are writes too.
	for _, write := range []func() error{
		func() error { return rc.Incr(bg, "n").Err() },
		func() error { return rc.Append(bg, "n", "0").Err() },
		func() error { return rc.SetRange(bg, "n", 0, "7").Err() },
	} {
		if err := mc.Set(&memcache.Item{Key: "n", Value: []byte("1")}); err != nil {
			t.Fatal(err)
		}
		it, err := mc.Get("n")
		if err != nil {
			t.Fatal(err)
		}
		if err := write(); err != nil {
			t.Fatal(err)
		}
		if now, err := mc.Get("n"); err != nil {
			t.Fatal(err)
		} else if now.CasID == it.CasID || string(now.Value) == "1" {
			t.Errorf("after a go-redis write: value %q CAS %d (was %q CAS %d)", now.Value, now.CasID, it.Value, it.CasID)
		}
	}
}

func TestCrossClientsIncrement(t *testing.T) {
	rc, mc := crossClients(t)
	eq(t, rc.Set(bg, "n", "41", 0), "OK")
	if v, err := mc.Increment("n", 1); err != nil || v != 42 {
		t.Errorf("gomemcache Increment of a go-redis 41: %d, %v; want 42", v, err)
	}
	eq(t, rc.Get(bg, "n"), "42")
	eq(t, rc.Incr(bg, "n"), 43)
	if v, err := mc.Decrement("n", 3); err != nil || v != 40 {
		t.Errorf("gomemcache Decrement 43 by 3: %d, %v; want 40", v, err)
	}
	eq(t, rc.Get(bg, "n"), "40")
	eq(t, rc.IncrBy(bg, "n", 60), 100)
	if v, err := mc.Increment("n", 900); err != nil || v != 1000 {
		t.Errorf("gomemcache Increment 100 by 900: %d, %v; want 1000", v, err)
	}
	eq(t, rc.Get(bg, "n"), "1000")

	// A negative Redis counter is not a number to memcached.
	eq(t, rc.Set(bg, "neg", "-5", 0), "OK")
	if _, err := mc.Increment("neg", 1); err == nil || err.Error() != "memcache: client error: cannot increment or decrement non-numeric value" {
		t.Errorf("gomemcache Increment of -5: %v", err)
	}
	eq(t, rc.Get(bg, "neg"), "-5")

	// gomemcache Set, go-redis INCR.
	if err := mc.Set(&memcache.Item{Key: "m", Value: []byte("10"), Flags: 3}); err != nil {
		t.Fatal(err)
	}
	eq(t, rc.Incr(bg, "m"), 11)
	eq(t, rc.IncrByFloat(bg, "m", 0.5), 11.5)
	it, err := mc.Get("m")
	if err != nil || string(it.Value) != "11.5" {
		t.Errorf("gomemcache Get after go-redis INCRBYFLOAT: %+v, %v", it, err)
	}
}

func TestCrossClientsExpiry(t *testing.T) {
	rc, mc := crossClients(t)
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("v"), Expiration: 100}); err != nil {
		t.Fatal(err)
	}
	within(t, "go-redis TTL after gomemcache Expiration 100", mustVal(t, rc.TTL(bg, "k")), 99*time.Second, 100*time.Second)
	if err := mc.Touch("k", 300); err != nil {
		t.Fatal(err)
	}
	within(t, "go-redis TTL after gomemcache Touch 300", mustVal(t, rc.TTL(bg, "k")), 299*time.Second, 300*time.Second)
	eq(t, rc.Persist(bg, "k"), true)
	if ttl := mgTTL(t, "k"); ttl != -1 {
		t.Errorf("mg t after go-redis PERSIST: t%d", ttl)
	}
	eq(t, rc.Expire(bg, "k", 50*time.Second), true)
	if ttl := mgTTL(t, "k"); ttl < 49 || ttl > 50 {
		t.Errorf("mg t after go-redis EXPIRE 50: t%d", ttl)
	}
	it, err := mc.Get("k")
	memcEq(t, "gomemcache Get after go-redis EXPIRE", it, err, "v", 0)

	// A go-redis expiry is observed by gomemcache (the only sleep here).
	eq(t, rc.Set(bg, "short", "v", 50*time.Millisecond), "OK")
	time.Sleep(120 * time.Millisecond)
	_, err = mc.Get("short")
	memcErr(t, "gomemcache Get after go-redis PX 50 expired", err, memcache.ErrCacheMiss)
	if err := mc.Add(&memcache.Item{Key: "short", Value: []byte("again")}); err != nil {
		t.Errorf("gomemcache Add after the key expired: %v", err)
	}
	eq(t, rc.Get(bg, "short"), "again")

	// A gomemcache item already expired is invisible to go-redis.
	if err := mc.Set(&memcache.Item{Key: "gone", Value: []byte("v"), Expiration: -1}); err != nil {
		t.Fatal(err)
	}
	isNil(t, rc.Get(bg, "gone"))
	eq(t, rc.Exists(bg, "gone"), 0)
}

func TestCrossClientsDelete(t *testing.T) {
	rc, mc := crossClients(t)
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	eq(t, rc.Del(bg, "k"), 1)
	_, err := mc.Get("k")
	memcErr(t, "gomemcache Get after go-redis Del", err, memcache.ErrCacheMiss)
	memcErr(t, "gomemcache Delete after go-redis Del", mc.Delete("k"), memcache.ErrCacheMiss)

	eq(t, rc.Set(bg, "k", "v", 0), "OK")
	if err := mc.Delete("k"); err != nil {
		t.Errorf("gomemcache Delete of a go-redis key: %v", err)
	}
	isNil(t, rc.Get(bg, "k"))
	eq(t, rc.Exists(bg, "k"), 0)

	// flush_all through gomemcache empties database 0 only.
	db1 := newGoRedis(t, 3, 1)
	eq(t, rc.MSet(bg, "a", "1", "b", "2"), "OK")
	eq(t, db1.Set(bg, "c", "3", 0), "OK")
	if err := mc.DeleteAll(); err != nil {
		t.Fatal(err)
	}
	eq(t, rc.DBSize(bg), 0)
	eq(t, db1.Get(bg, "c"), "3")
}

func TestCrossClientsDatabaseZero(t *testing.T) {
	rc, mc := crossClients(t)
	db1 := newGoRedis(t, 3, 1)
	eq(t, db1.Set(bg, "k", "db1", 0), "OK")
	_, err := mc.Get("k")
	memcErr(t, "gomemcache Get of a database 1 key", err, memcache.ErrCacheMiss)
	if err := mc.Add(&memcache.Item{Key: "k", Value: []byte("db0")}); err != nil {
		t.Errorf("gomemcache Add with the key only in database 1: %v", err)
	}
	eq(t, rc.Get(bg, "k"), "db0")
	eq(t, db1.Get(bg, "k"), "db1")
	eq(t, rc.Move(bg, "k", 2), true)
	_, err = mc.Get("k")
	memcErr(t, "gomemcache Get after go-redis MOVE to database 2", err, memcache.ErrCacheMiss)
	eq(t, db1.Move(bg, "k", 0), true)
	it, err := mc.Get("k")
	memcEq(t, "gomemcache Get after go-redis MOVE into database 0", it, err, "db1", 0)
}

// TestCrossClientsAddReplace: memcached's conditional stores see go-redis
// keys, and go-redis's see memcached items.
func TestCrossClientsAddReplace(t *testing.T) {
	rc, mc := crossClients(t)
	eq(t, rc.Set(bg, "k", "v", 0), "OK")
	memcErr(t, "gomemcache Add on a go-redis key", mc.Add(&memcache.Item{Key: "k", Value: []byte("x")}), memcache.ErrNotStored)
	if err := mc.Replace(&memcache.Item{Key: "k", Value: []byte("y"), Flags: 8}); err != nil {
		t.Errorf("gomemcache Replace of a go-redis key: %v", err)
	}
	eq(t, rc.Get(bg, "k"), "y")
	if err := mc.Append(&memcache.Item{Key: "k", Value: []byte("z")}); err != nil {
		t.Errorf("gomemcache Append to a go-redis key: %v", err)
	}
	eq(t, rc.Get(bg, "k"), "yz")
	it, err := mc.Get("k")
	memcEq(t, "flags after Replace and Append", it, err, "yz", 8)

	if err := mc.Set(&memcache.Item{Key: "m", Value: []byte("memc")}); err != nil {
		t.Fatal(err)
	}
	eq(t, rc.SetNX(bg, "m", "redis", 0), false)
	eq(t, rc.SetArgs(bg, "m", "redis", redis.SetArgs{Mode: "XX", Get: true}), "memc")
	it, err = mc.Get("m")
	memcEq(t, "gomemcache Get after go-redis SET XX", it, err, "redis", 0)
	eq(t, rc.Rename(bg, "m", "renamed"), "OK")
	_, err = mc.Get("m")
	memcErr(t, "gomemcache Get of a renamed key", err, memcache.ErrCacheMiss)
	it, err = mc.Get("renamed")
	memcEq(t, "gomemcache Get under the new name", it, err, "redis", 0)
}
