package engine

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

var dumpLimits = RestoreLimits{
	Hash: HashLimits{MaxListpackEntries: 128, MaxListpackValue: 64},
	Set:  SetLimits{MaxIntsetEntries: 512},
	ZSet: ZsetLimits{MaxListpackEntries: 128, MaxListpackValue: 64},
}

func dumpOf(t *testing.T, d DB, key string) (SnapItem, DumpInfo, bool) {
	t.Helper()
	var out SnapItem
	var info DumpInfo
	ok := d.Dump([]byte(key), func(it *SnapItem, i DumpInfo) {
		out = *it
		out.Value = slices.Clone(it.Value)
		info = i
	})
	return out, info, ok
}

func TestDumpEncodings(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	d.Set([]byte("s"), []byte("12"), SetOptions{})
	d.LPushEnd([]byte("l"), ListRight, [][]byte{[]byte("a"), []byte("b")}, false)
	d.SAdd([]byte("i"), [][]byte{[]byte("1"), []byte("100000")}, dumpLimits.Set)
	d.SRem([]byte("i"), [][]byte{[]byte("100000")})
	d.SAdd([]byte("h"), [][]byte{[]byte("x")}, dumpLimits.Set)
	d.HSet([]byte("hash"), [][]byte{[]byte("f"), []byte("v")}, dumpLimits.Hash)
	d.ZAdd([]byte("z"), 0, []ZMember{{Member: []byte("m"), Score: 2}}, dumpLimits.ZSet)
	for _, c := range []struct {
		key   string
		enc   Encoding
		width int
	}{{"s", EncInt, 0}, {"l", EncQuicklist, 0}, {"i", EncIntset, 4}, {"h", EncHashtable, 0}, {"hash", EncListpack, 0}, {"z", EncListpack, 0}} {
		it, info, ok := dumpOf(t, d, c.key)
		if !ok || info.Encoding != c.enc || info.IntsetWidth != c.width || string(it.Key) != c.key {
			t.Errorf("%s: %v %+v %+v", c.key, ok, info, it)
		}
	}
	if _, _, ok := dumpOf(t, d, "missing"); ok {
		t.Error("a missing key dumped")
	}
	if st := e.Stats(); st.Hits != 6 || st.Misses != 1 {
		t.Errorf("keyspace hits %d misses %d, want 6 and 1", st.Hits, st.Misses)
	}
	checkInvariants(t, e)
}

func TestRestoreKey(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	str := &SnapItem{Key: []byte("k"), Type: TypeString, Value: []byte("v")}
	noIdle := RestoreOptions{Limits: dumpLimits, IdleSeconds: -1, Freq: -1}
	if r, err := d.RestoreKey(str, noIdle); err != nil || !r.Stored || r.Replaced {
		t.Fatalf("first restore: %+v %v", r, err)
	}
	if _, err := d.RestoreKey(str, noIdle); err != ErrBusyKey {
		t.Fatalf("second restore without replace: %v", err)
	}
	list := &SnapItem{Key: []byte("k"), Type: TypeList, Elems: [][]byte{[]byte("a"), []byte("b")}, ExpireAt: t0 + 5000}
	replace := noIdle
	replace.Replace = true
	if r, err := d.RestoreKey(list, replace); err != nil || !r.Stored || !r.Replaced {
		t.Fatalf("restore replace: %+v %v", r, err)
	}
	var got []string
	d.LRange([]byte("k"), 0, -1, func(_, _ int, v []byte) { got = append(got, string(v)) })
	if fmt.Sprint(got) != "[a b]" || d.Volatile() != 1 {
		t.Fatalf("restored list %v, volatile %d", got, d.Volatile())
	}
	if info, _ := d.Info([]byte("k")); info.ExpireAt != t0+5000 {
		t.Fatalf("expiry %d", info.ExpireAt)
	}
	// An expiry already past: the old key goes, nothing is stored.
	old := &SnapItem{Key: []byte("k"), Type: TypeString, Value: []byte("x"), ExpireAt: t0 - 1}
	if r, err := d.RestoreKey(old, replace); err != nil || r.Stored || !r.Replaced || d.Exists([]byte("k")) != 0 {
		t.Fatalf("restore of an expired value: %+v %v", r, err)
	}
	// IDLETIME under an LRU policy.
	clock.Advance(100 * time.Second)
	idle := noIdle
	idle.IdleSeconds = 40
	zs := &SnapItem{Key: []byte("z"), Type: TypeZSet, Members: []ZMember{{Member: []byte("a"), Score: 1}, {Member: []byte("b"), Score: 0}}}
	if _, err := d.RestoreKey(zs, idle); err != nil {
		t.Fatal(err)
	}
	if info, _ := d.Info([]byte("z")); info.IdleMs != 40_000 || info.Encoding != EncListpack {
		t.Fatalf("restored zset: idle %d ms, encoding %v", info.IdleMs, info.Encoding)
	}
	// FREQ under an LFU policy.
	e.SetEviction(Eviction{Policy: AllKeysLFU, LFULogFactor: 10, LFUDecayTime: 1})
	freq := noIdle
	freq.Freq = 200
	set := &SnapItem{Key: []byte("s"), Type: TypeSet, Elems: [][]byte{[]byte("1"), []byte("x")}}
	if _, err := d.RestoreKey(set, freq); err != nil {
		t.Fatal(err)
	}
	if info, _ := d.Info([]byte("s")); info.Freq != 200 || info.Encoding != EncHashtable {
		t.Fatalf("restored set: freq %d, encoding %v", info.Freq, info.Encoding)
	}
	// An intset keeps the width its payload had.
	wide := noIdle
	wide.IntsetWidth = 8
	ints := &SnapItem{Key: []byte("i"), Type: TypeSet, Elems: [][]byte{[]byte("2"), []byte("1")}}
	if _, err := d.RestoreKey(ints, wide); err != nil {
		t.Fatal(err)
	}
	if _, info, _ := dumpOf(t, d, "i"); info.Encoding != EncIntset || info.IntsetWidth != 8 {
		t.Fatalf("restored intset: %+v", info)
	}
	if n, _ := d.SCard([]byte("i")); n != 2 {
		t.Fatalf("restored intset has %d members", n)
	}
	checkInvariants(t, e)
}

func TestDeleteIfDumped(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	d.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v")}, dumpLimits.Hash)
	same := func(want string) func(it *SnapItem, _ DumpInfo) bool {
		return func(it *SnapItem, _ DumpInfo) bool { return string(it.Values[0]) == want }
	}
	if d.DeleteIfDumped([]byte("h"), same("other")) || d.Exists([]byte("h")) != 1 {
		t.Fatal("deleted a changed key")
	}
	if !d.DeleteIfDumped([]byte("h"), same("v")) || d.Exists([]byte("h")) != 0 {
		t.Fatal("did not delete the unchanged key")
	}
	if d.DeleteIfDumped([]byte("h"), same("v")) {
		t.Fatal("deleted a missing key")
	}
	checkInvariants(t, e)
}
