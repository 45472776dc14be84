package compat

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
)

// gomemcache against the memcached port. Every case starts on an empty
// server.

var gomemcCases = []struct {
	name string
	fn   func(t *testing.T, mc *memcache.Client)
}{
	{"Ping", gmPing},
	{"SetGet", gmSetGet},
	{"Flags", gmFlags},
	{"Expiration", gmExpiration},
	{"Add", gmAdd},
	{"Replace", gmReplace},
	{"CompareAndSwap", gmCompareAndSwap},
	{"IncrDecr", gmIncrDecr},
	{"Touch", gmTouch},
	{"Delete", gmDelete},
	{"GetMulti", gmGetMulti},
	{"DeleteAll", gmDeleteAll},
	{"AppendPrepend", gmAppendPrepend},
	{"LargeValue", gmLargeValue},
}

func TestGomemcache(t *testing.T) {
	mc := newGomemc(t)
	for _, tc := range gomemcCases {
		t.Run(tc.name, func(t *testing.T) {
			flushSUTMemc(t)
			tc.fn(t, mc)
		})
	}
}

// mgTTL reads the remaining TTL of key with the meta command "mg key t"
// (-1: no expiry).
func mgTTL(t *testing.T, key string) int {
	t.Helper()
	out := dialMemc(t, sutMemc).do("mg " + key + " t\r\n")
	m := metaTTL.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("mg %s t: no t flag in %q", key, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func gmPing(t *testing.T, mc *memcache.Client) {
	if err := mc.Ping(); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func gmSetGet(t *testing.T, mc *memcache.Client) {
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("hello"), Flags: 7}); err != nil {
		t.Fatalf("Set: %v", err)
	}
	it, err := mc.Get("k")
	memcEq(t, "Get k", it, err, "hello", 7)
	if err == nil && it.CasID == 0 {
		t.Errorf("Get k: CAS unique 0")
	}
	_, err = mc.Get("missing")
	memcErr(t, "Get missing", err, memcache.ErrCacheMiss)

	bin := "a\r\nb\x00c\xff\r\nEND\r\n"
	if err := mc.Set(&memcache.Item{Key: "bin", Value: []byte(bin)}); err != nil {
		t.Fatalf("Set bin: %v", err)
	}
	it, err = mc.Get("bin")
	memcEq(t, "Get binary", it, err, bin, 0)

	if err := mc.Set(&memcache.Item{Key: "empty", Value: []byte{}}); err != nil {
		t.Fatalf("Set empty: %v", err)
	}
	it, err = mc.Get("empty")
	memcEq(t, "Get empty", it, err, "", 0)

	// Set overwrites value and flags.
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("bye"), Flags: 9}); err != nil {
		t.Fatalf("Set k again: %v", err)
	}
	it, err = mc.Get("k")
	memcEq(t, "Get k after overwrite", it, err, "bye", 9)

	memcErr(t, "Set with a key holding a space", mc.Set(&memcache.Item{Key: "a b", Value: []byte("x")}), memcache.ErrMalformedKey)
	long := strings.Repeat("k", 250)
	if err := mc.Set(&memcache.Item{Key: long, Value: []byte("x")}); err != nil {
		t.Errorf("Set with a 250-byte key: %v", err)
	}
	it, err = mc.Get(long)
	memcEq(t, "Get 250-byte key", it, err, "x", 0)
}

func gmFlags(t *testing.T, mc *memcache.Client) {
	for _, f := range []uint32{0, 1, 42, 0x7fffffff, 0xdeadbeef, 0xffffffff} {
		key := fmt.Sprintf("f%x", f)
		if err := mc.Set(&memcache.Item{Key: key, Value: []byte("v"), Flags: f}); err != nil {
			t.Errorf("Set flags %#x: %v", f, err)
			continue
		}
		it, err := mc.Get(key)
		memcEq(t, fmt.Sprintf("flags %#x", f), it, err, "v", f)
	}
}

func gmExpiration(t *testing.T, mc *memcache.Client) {
	if err := mc.Set(&memcache.Item{Key: "rel", Value: []byte("v"), Expiration: 100}); err != nil {
		t.Fatalf("Set Expiration 100: %v", err)
	}
	it, err := mc.Get("rel")
	memcEq(t, "Get rel", it, err, "v", 0)
	if ttl := mgTTL(t, "rel"); ttl < 99 || ttl > 100 {
		t.Errorf("Expiration 100: mg t%d", ttl)
	}
	// More than 30 days: an absolute Unix time.
	abs := int32(time.Now().Unix() + 200)
	if err := mc.Set(&memcache.Item{Key: "abs", Value: []byte("v"), Expiration: abs}); err != nil {
		t.Fatalf("Set absolute Expiration: %v", err)
	}
	it, err = mc.Get("abs")
	memcEq(t, "Get abs", it, err, "v", 0)
	if ttl := mgTTL(t, "abs"); ttl < 198 || ttl > 201 {
		t.Errorf("absolute Expiration now+200: mg t%d", ttl)
	}
	if err := mc.Set(&memcache.Item{Key: "forever", Value: []byte("v")}); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if ttl := mgTTL(t, "forever"); ttl != -1 {
		t.Errorf("Expiration 0: mg t%d, want t-1", ttl)
	}
	// A negative expiration stores an item that is already expired.
	if err := mc.Set(&memcache.Item{Key: "neg", Value: []byte("v"), Expiration: -1}); err != nil {
		t.Fatalf("Set Expiration -1: %v", err)
	}
	_, err = mc.Get("neg")
	memcErr(t, "Get after Expiration -1", err, memcache.ErrCacheMiss)
	// An absolute time in the past likewise.
	if err := mc.Set(&memcache.Item{Key: "past", Value: []byte("v"), Expiration: int32(time.Now().Unix() - 100)}); err != nil {
		t.Fatalf("Set past Expiration: %v", err)
	}
	_, err = mc.Get("past")
	memcErr(t, "Get after a past absolute Expiration", err, memcache.ErrCacheMiss)
}

func gmAdd(t *testing.T, mc *memcache.Client) {
	if err := mc.Add(&memcache.Item{Key: "k", Value: []byte("first"), Flags: 1}); err != nil {
		t.Fatalf("Add new: %v", err)
	}
	memcErr(t, "Add existing", mc.Add(&memcache.Item{Key: "k", Value: []byte("second"), Flags: 2}), memcache.ErrNotStored)
	it, err := mc.Get("k")
	memcEq(t, "Get after a refused Add", it, err, "first", 1)
}

func gmReplace(t *testing.T, mc *memcache.Client) {
	memcErr(t, "Replace missing", mc.Replace(&memcache.Item{Key: "k", Value: []byte("x")}), memcache.ErrNotStored)
	_, err := mc.Get("k")
	memcErr(t, "Get after a refused Replace", err, memcache.ErrCacheMiss)
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("old"), Flags: 1}); err != nil {
		t.Fatal(err)
	}
	if err := mc.Replace(&memcache.Item{Key: "k", Value: []byte("new"), Flags: 2}); err != nil {
		t.Errorf("Replace existing: %v", err)
	}
	it, err := mc.Get("k")
	memcEq(t, "Get after Replace", it, err, "new", 2)
}

func gmCompareAndSwap(t *testing.T, mc *memcache.Client) {
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("v1"), Flags: 3}); err != nil {
		t.Fatal(err)
	}
	it, err := mc.Get("k")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	cas1 := it.CasID
	it.Value = []byte("v2")
	if err := mc.CompareAndSwap(it); err != nil {
		t.Errorf("CompareAndSwap with a fresh CAS: %v", err)
	}
	it2, err := mc.Get("k")
	memcEq(t, "Get after CompareAndSwap", it2, err, "v2", 3)
	if err == nil && it2.CasID == cas1 {
		t.Errorf("CAS unique unchanged (%d) after a successful CompareAndSwap", cas1)
	}
	// The unique just used is stale now.
	it.Value = []byte("v3")
	memcErr(t, "CompareAndSwap with a used CAS", mc.CompareAndSwap(it), memcache.ErrCASConflict)

	// Another writer in between: conflict, and the other write stays.
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("other")}); err != nil {
		t.Fatal(err)
	}
	it2.Value = []byte("mine")
	memcErr(t, "CompareAndSwap after another Set", mc.CompareAndSwap(it2), memcache.ErrCASConflict)
	it3, err := mc.Get("k")
	memcEq(t, "Get after a CAS conflict", it3, err, "other", 0)

	// A deleted item: not found.
	if err := mc.Delete("k"); err != nil {
		t.Fatal(err)
	}
	it3.Value = []byte("ghost")
	memcErr(t, "CompareAndSwap on a deleted key", mc.CompareAndSwap(it3), memcache.ErrCacheMiss)
	_, err = mc.Get("k")
	memcErr(t, "Get after CAS on a deleted key", err, memcache.ErrCacheMiss)
}

func gmIncrDecr(t *testing.T, mc *memcache.Client) {
	if err := mc.Set(&memcache.Item{Key: "n", Value: []byte("10"), Flags: 5}); err != nil {
		t.Fatal(err)
	}
	incr := func(key string, delta uint64, want uint64) {
		t.Helper()
		got, err := mc.Increment(key, delta)
		if err != nil || got != want {
			t.Errorf("Increment %s %d: %d, %v; want %d", key, delta, got, err, want)
		}
	}
	decr := func(key string, delta uint64, want uint64) {
		t.Helper()
		got, err := mc.Decrement(key, delta)
		if err != nil || got != want {
			t.Errorf("Decrement %s %d: %d, %v; want %d", key, delta, got, err, want)
		}
	}
	incr("n", 5, 15)
	decr("n", 3, 12)
	decr("n", 100, 0) // capped at zero
	incr("n", 0, 0)
	// memcached rewrites a shorter result in place, padded with spaces
	// ("0 "); a client sees the number either way.
	it, err := mc.Get("n")
	if err != nil || strings.TrimRight(string(it.Value), " ") != "0" || it.Flags != 5 {
		t.Errorf("Get after incr/decr: %+v, %v; want 0 flags 5", it, err)
	}

	_, err = mc.Increment("missing", 1)
	memcErr(t, "Increment missing", err, memcache.ErrCacheMiss)
	_, err = mc.Decrement("missing", 1)
	memcErr(t, "Decrement missing", err, memcache.ErrCacheMiss)

	if err := mc.Set(&memcache.Item{Key: "max", Value: []byte("18446744073709551615")}); err != nil {
		t.Fatal(err)
	}
	incr("max", 1, 0) // wraps around
	incr("max", 18446744073709551615, 18446744073709551615)

	if err := mc.Set(&memcache.Item{Key: "s", Value: []byte("abc")}); err != nil {
		t.Fatal(err)
	}
	_, err = mc.Increment("s", 1)
	if err == nil || err.Error() != "memcache: client error: cannot increment or decrement non-numeric value" {
		t.Errorf("Increment on abc: %v", err)
	}
	// Shrinking a number keeps it readable as the number.
	if err := mc.Set(&memcache.Item{Key: "w", Value: []byte("100")}); err != nil {
		t.Fatal(err)
	}
	decr("w", 91, 9)
	it, err = mc.Get("w")
	if err != nil || strings.TrimRight(string(it.Value), " ") != "9" {
		t.Errorf("Get after decr 100 by 91: %v, %v", it, err)
	}
}

func gmTouch(t *testing.T, mc *memcache.Client) {
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("v"), Flags: 4}); err != nil {
		t.Fatal(err)
	}
	if err := mc.Touch("k", 100); err != nil {
		t.Errorf("Touch: %v", err)
	}
	if ttl := mgTTL(t, "k"); ttl < 99 || ttl > 100 {
		t.Errorf("Touch 100: mg t%d", ttl)
	}
	it, err := mc.Get("k")
	memcEq(t, "Get after Touch", it, err, "v", 4)
	if err := mc.Touch("k", 0); err != nil {
		t.Errorf("Touch 0: %v", err)
	}
	if ttl := mgTTL(t, "k"); ttl != -1 {
		t.Errorf("Touch 0: mg t%d, want t-1", ttl)
	}
	memcErr(t, "Touch missing", mc.Touch("missing", 100), memcache.ErrCacheMiss)
	it, err = mc.GetAndTouch("k", 50)
	memcEq(t, "GetAndTouch", it, err, "v", 4)
	if ttl := mgTTL(t, "k"); ttl < 49 || ttl > 50 {
		t.Errorf("GetAndTouch 50: mg t%d", ttl)
	}
	_, err = mc.GetAndTouch("missing", 50)
	memcErr(t, "GetAndTouch missing", err, memcache.ErrCacheMiss)
}

func gmDelete(t *testing.T, mc *memcache.Client) {
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if err := mc.Delete("k"); err != nil {
		t.Errorf("Delete: %v", err)
	}
	_, err := mc.Get("k")
	memcErr(t, "Get after Delete", err, memcache.ErrCacheMiss)
	memcErr(t, "Delete again", mc.Delete("k"), memcache.ErrCacheMiss)
	memcErr(t, "Delete missing", mc.Delete("never"), memcache.ErrCacheMiss)
	if err := mc.Add(&memcache.Item{Key: "k", Value: []byte("again")}); err != nil {
		t.Errorf("Add after Delete: %v", err)
	}
}

func gmGetMulti(t *testing.T, mc *memcache.Client) {
	var keys []string
	for i := 0; i < 100; i++ {
		k := fmt.Sprintf("multi:%d", i)
		keys = append(keys, k)
		if i%3 == 0 {
			continue // missing
		}
		if err := mc.Set(&memcache.Item{Key: k, Value: []byte(fmt.Sprintf("value %d\r\n", i)), Flags: uint32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := mc.GetMulti(keys)
	if err != nil {
		t.Fatalf("GetMulti: %v", err)
	}
	if len(got) != 66 {
		t.Errorf("GetMulti: %d items, want 66", len(got))
	}
	for i, k := range keys {
		it := got[k]
		if i%3 == 0 {
			if it != nil {
				t.Errorf("GetMulti: %s present (%q), want missing", k, it.Value)
			}
			continue
		}
		memcEq(t, "GetMulti "+k, it, errIfNil(it), fmt.Sprintf("value %d\r\n", i), uint32(i))
		if it != nil && it.Key != k {
			t.Errorf("GetMulti: item under %s has key %s", k, it.Key)
		}
	}
	got, err = mc.GetMulti([]string{"nothing", "here"})
	if err != nil || len(got) != 0 {
		t.Errorf("GetMulti of missing keys: %v, %v", got, err)
	}
}

func errIfNil(it *memcache.Item) error {
	if it == nil {
		return errors.New("missing")
	}
	return nil
}

func gmDeleteAll(t *testing.T, mc *memcache.Client) {
	for i := 0; i < 10; i++ {
		if err := mc.Set(&memcache.Item{Key: fmt.Sprintf("k%d", i), Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := mc.DeleteAll(); err != nil {
		t.Fatalf("DeleteAll: %v", err)
	}
	for i := 0; i < 10; i++ {
		_, err := mc.Get(fmt.Sprintf("k%d", i))
		memcErr(t, fmt.Sprintf("Get k%d after DeleteAll", i), err, memcache.ErrCacheMiss)
	}
	if err := mc.Add(&memcache.Item{Key: "k0", Value: []byte("new")}); err != nil {
		t.Errorf("Add after DeleteAll: %v", err)
	}
	if err := mc.FlushAll(); err != nil {
		t.Fatalf("FlushAll: %v", err)
	}
	_, err := mc.Get("k0")
	memcErr(t, "Get after FlushAll", err, memcache.ErrCacheMiss)
}

func gmAppendPrepend(t *testing.T, mc *memcache.Client) {
	memcErr(t, "Append missing", mc.Append(&memcache.Item{Key: "k", Value: []byte("x")}), memcache.ErrNotStored)
	if err := mc.Set(&memcache.Item{Key: "k", Value: []byte("mid"), Flags: 6}); err != nil {
		t.Fatal(err)
	}
	if err := mc.Append(&memcache.Item{Key: "k", Value: []byte(">"), Flags: 99}); err != nil {
		t.Errorf("Append: %v", err)
	}
	if err := mc.Prepend(&memcache.Item{Key: "k", Value: []byte("<")}); err != nil {
		t.Errorf("Prepend: %v", err)
	}
	it, err := mc.Get("k")
	memcEq(t, "Get after Append and Prepend (flags kept)", it, err, "<mid>", 6)
}

func gmLargeValue(t *testing.T, mc *memcache.Client) {
	big := bigValue(1000 * 1000)
	if err := mc.Set(&memcache.Item{Key: "big", Value: big, Flags: 42}); err != nil {
		t.Fatalf("Set 1 MB: %v", err)
	}
	it, err := mc.Get("big")
	memcEq(t, "Get 1 MB", it, err, string(big), 42)
	// Over the 1 MB item size limit: refused with memcached's server error,
	// and (memcached: "avoid stale data persisting in cache because we
	// failed alloc") the old value of a refused set is dropped.
	err = mc.Set(&memcache.Item{Key: "big", Value: bigValue(2 * 1024 * 1024)})
	if err == nil || !strings.Contains(err.Error(), "SERVER_ERROR object too large for cache") {
		t.Errorf("Set 2 MB over item-size-max: error %v, want SERVER_ERROR object too large for cache", err)
	}
	_, err = mc.Get("big")
	memcErr(t, "Get after a refused 2 MB Set", err, memcache.ErrCacheMiss)
	// The connection is still in step.
	if err := mc.Set(&memcache.Item{Key: "after", Value: []byte("ok")}); err != nil {
		t.Errorf("Set after the refused one: %v", err)
	}
	it, err = mc.Get("after")
	memcEq(t, "Get after the refused Set", it, err, "ok", 0)
}
