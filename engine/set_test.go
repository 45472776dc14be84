package engine

import (
	"errors"
	"testing"
)

// preState is the key's state before a table case runs.
type preState int

const (
	preNone    preState = iota // no key
	preString                  // "old", flags 7, expiring at t0+100s
	preHash                    // a hash (white-box)
	preExpired                 // a string whose expiry has passed, not yet reclaimed
)

const oldExpire = t0 + 100_000

// prepare builds the pre-state for key and returns the key's CAS (0 if none).
func prepare(t *testing.T, d DB, clock *ManualClock, key string, pre preState) uint64 {
	t.Helper()
	switch pre {
	case preString:
		return mustSet(t, d, key, "old", SetOptions{TTL: TTLSet, ExpireAt: oldExpire, Flags: 7}).CAS
	case preHash:
		putRaw(t, d, bs(key), bs("field-data"), TypeHash)
		ki, _ := d.Info(bs(key))
		return ki.CAS
	case preExpired:
		res := mustSet(t, d, key, "old", SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + 1000})
		clock.Advance(secs(2))
		return res.CAS
	}
	return 0
}

func TestSetConditionsAndTTL(t *testing.T) {
	const missing, hashLeft = "<nil>", "<hash>"
	tests := []struct {
		name        string
		pre         preState
		opts        func(cas uint64, now int64) SetOptions
		wantErr     error
		wantStored  bool
		wantExisted bool
		wantValue   string
		wantExpire  int64 // after the call; -1 = no key
		wantOld     string
	}{
		{name: "always on missing", pre: preNone, opts: func(uint64, int64) SetOptions { return SetOptions{} },
			wantStored: true, wantValue: "new", wantExpire: 0},
		{name: "always on string clears ttl", pre: preString, opts: func(uint64, int64) SetOptions { return SetOptions{} },
			wantStored: true, wantExisted: true, wantValue: "new", wantExpire: 0},
		{name: "always replaces a hash", pre: preHash, opts: func(uint64, int64) SetOptions { return SetOptions{} },
			wantStored: true, wantExisted: true, wantValue: "new", wantExpire: 0},
		{name: "absent on missing", pre: preNone, opts: func(uint64, int64) SetOptions { return SetOptions{Cond: CondAbsent} },
			wantStored: true, wantValue: "new", wantExpire: 0},
		{name: "absent on string", pre: preString, opts: func(uint64, int64) SetOptions { return SetOptions{Cond: CondAbsent} },
			wantExisted: true, wantValue: "old", wantExpire: oldExpire},
		{name: "absent on expired", pre: preExpired, opts: func(uint64, int64) SetOptions { return SetOptions{Cond: CondAbsent} },
			wantStored: true, wantValue: "new", wantExpire: 0},
		{name: "present on missing", pre: preNone, opts: func(uint64, int64) SetOptions { return SetOptions{Cond: CondPresent} },
			wantValue: missing, wantExpire: -1},
		{name: "present on string", pre: preString, opts: func(uint64, int64) SetOptions { return SetOptions{Cond: CondPresent} },
			wantStored: true, wantExisted: true, wantValue: "new", wantExpire: 0},
		{name: "present on expired", pre: preExpired, opts: func(uint64, int64) SetOptions { return SetOptions{Cond: CondPresent} },
			wantValue: missing, wantExpire: -1},
		{name: "cas match", pre: preString, opts: func(cas uint64, _ int64) SetOptions { return SetOptions{Cond: CondCAS, CAS: cas} },
			wantStored: true, wantExisted: true, wantValue: "new", wantExpire: 0},
		{name: "cas mismatch", pre: preString, opts: func(cas uint64, _ int64) SetOptions { return SetOptions{Cond: CondCAS, CAS: cas + 1} },
			wantExisted: true, wantValue: "old", wantExpire: oldExpire},
		{name: "cas on missing", pre: preNone, opts: func(uint64, int64) SetOptions { return SetOptions{Cond: CondCAS, CAS: 1} },
			wantValue: missing, wantExpire: -1},
		{name: "cas on expired", pre: preExpired, opts: func(cas uint64, _ int64) SetOptions { return SetOptions{Cond: CondCAS, CAS: cas} },
			wantValue: missing, wantExpire: -1},
		{name: "keepttl on string", pre: preString, opts: func(uint64, int64) SetOptions { return SetOptions{TTL: TTLKeep} },
			wantStored: true, wantExisted: true, wantValue: "new", wantExpire: oldExpire},
		{name: "keepttl on missing", pre: preNone, opts: func(uint64, int64) SetOptions { return SetOptions{TTL: TTLKeep} },
			wantStored: true, wantValue: "new", wantExpire: 0},
		{name: "ttl set future", pre: preString, opts: func(_ uint64, now int64) SetOptions { return SetOptions{TTL: TTLSet, ExpireAt: now + 5000} },
			wantStored: true, wantExisted: true, wantValue: "new", wantExpire: t0 + 5000},
		{name: "ttl set past deletes", pre: preString, opts: func(_ uint64, now int64) SetOptions { return SetOptions{TTL: TTLSet, ExpireAt: now - 1} },
			wantStored: true, wantExisted: true, wantValue: missing, wantExpire: -1},
		{name: "ttl set now on missing", pre: preNone, opts: func(_ uint64, now int64) SetOptions { return SetOptions{TTL: TTLSet, ExpireAt: now} },
			wantStored: true, wantValue: missing, wantExpire: -1},
		{name: "ttl set past with failing cond", pre: preString, opts: func(_ uint64, now int64) SetOptions {
			return SetOptions{Cond: CondAbsent, TTL: TTLSet, ExpireAt: now - 1}
		}, wantExisted: true, wantValue: "old", wantExpire: oldExpire},
		{name: "getold on string", pre: preString, opts: func(uint64, int64) SetOptions { return SetOptions{GetOld: true} },
			wantStored: true, wantExisted: true, wantValue: "new", wantExpire: 0, wantOld: "old"},
		{name: "getold on missing", pre: preNone, opts: func(uint64, int64) SetOptions { return SetOptions{GetOld: true} },
			wantStored: true, wantValue: "new", wantExpire: 0},
		{name: "getold with nx on string", pre: preString, opts: func(uint64, int64) SetOptions { return SetOptions{GetOld: true, Cond: CondAbsent} },
			wantExisted: true, wantValue: "old", wantExpire: oldExpire, wantOld: "old"},
		{name: "getold on hash", pre: preHash, opts: func(uint64, int64) SetOptions { return SetOptions{GetOld: true} },
			wantErr: ErrWrongType, wantExisted: true, wantValue: hashLeft, wantExpire: 0},
		{name: "keep non-string on hash", pre: preHash, opts: func(uint64, int64) SetOptions { return SetOptions{KeepNonString: true} },
			wantExisted: true, wantValue: hashLeft, wantExpire: 0},
		{name: "keep non-string on string", pre: preString, opts: func(uint64, int64) SetOptions { return SetOptions{KeepNonString: true, TTL: TTLKeep} },
			wantStored: true, wantExisted: true, wantValue: "new", wantExpire: oldExpire},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, 2)
			d := e.DB(0)
			d.TrackCAS = true // memcached semantics: CAS uniques at once
			cas := prepare(t, d, clock, "k", tc.pre)
			before := e.Changes()
			res, err := d.Set(bs("k"), bs("new"), tc.opts(cas, clock.NowMs()))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if res.Stored != tc.wantStored || res.Existed != tc.wantExisted {
				t.Errorf("Stored, Existed = %v, %v; want %v, %v", res.Stored, res.Existed, tc.wantStored, tc.wantExisted)
			}
			if string(res.Old.Value) != tc.wantOld {
				t.Errorf("Old = %q, want %q", res.Old.Value, tc.wantOld)
			}
			switch tc.wantValue {
			case hashLeft:
				if ki, ok := d.Info(bs("k")); !ok || ki.Type != TypeHash {
					t.Errorf("key is %v (exists %v), want the hash left alone", ki.Type, ok)
				}
			default:
				if got := getString(t, d, "k"); got != tc.wantValue {
					t.Errorf("value = %q, want %q", got, tc.wantValue)
				}
			}
			if got := expireOf(d, "k"); got != tc.wantExpire {
				t.Errorf("expireAt = %d, want %d", got, tc.wantExpire)
			}
			if res.Stored && tc.wantValue != missing {
				ki, _ := d.Info(bs("k"))
				if res.CAS == 0 || res.CAS != ki.CAS || res.CAS == cas {
					t.Errorf("result CAS %d, key CAS %d, old CAS %d: want a fresh CAS reported", res.CAS, ki.CAS, cas)
				}
			}
			if res.Stored && (res.Existed || tc.wantValue != missing) && e.Changes() == before {
				t.Errorf("a stored write did not count as a change")
			}
			checkInvariants(t, e)
		})
	}
}

func TestSetFlagsAndEncoding(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	tests := []struct {
		value string
		flags uint32
		enc   Encoding
	}{
		{"12345", 0, EncInt},
		{"-9223372036854775808", 1, EncInt},
		{"9223372036854775808", 2, EncEmbstr}, // beyond int64
		{"012", 3, EncEmbstr},
		{"hello", 4, EncEmbstr},
		{string(make([]byte, 44)), 5, EncEmbstr},
		{string(make([]byte, 45)), 6, EncRaw},
		{"", 0xffffffff, EncEmbstr},
	}
	for _, tc := range tests {
		mustSet(t, d, "k", tc.value, SetOptions{Flags: tc.flags})
		it, ok, err := d.Get(bs("k"))
		if err != nil || !ok {
			t.Fatalf("Get: %v %v", ok, err)
		}
		if string(it.Value) != tc.value || it.Flags != tc.flags || it.Encoding != tc.enc || it.Type != TypeString {
			t.Errorf("Set %q flags %d: got %q flags %d enc %v type %v; want enc %v",
				tc.value, tc.flags, it.Value, it.Flags, it.Encoding, it.Type, tc.enc)
		}
	}
}

// A value handed to Set is copied: the caller may reuse its buffer, and a
// returned Item keeps its bytes after the key is overwritten.
func TestSetCopiesAndItemsAreImmutable(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	key, val := []byte("key"), []byte("value-1")
	if _, err := d.Set(key, val, SetOptions{}); err != nil {
		t.Fatal(err)
	}
	copy(key, "xxx")
	copy(val, "XXXXXXX")
	it, ok, _ := d.Get(bs("key"))
	if !ok || string(it.Value) != "value-1" {
		t.Fatalf("Get after caller reused buffers = %q, %v", it.Value, ok)
	}
	mustSet(t, d, "key", "value-2", SetOptions{})
	if string(it.Value) != "value-1" {
		t.Errorf("earlier Item changed to %q after an overwrite", it.Value)
	}
	if cap(it.Value) != len(it.Value) {
		t.Errorf("Item.Value has spare capacity %d: an append by the caller could write into the entry", cap(it.Value)-len(it.Value))
	}
}

// A read of a key of the wrong type is a keyspace hit and an access, as
// in Redis (lookupKeyRead finds the key before the type check): on
// redis-server 7.0, GET of a hash then MGET h h leave keyspace_hits at 3.
func TestGetWrongTypeAndMiss(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	putRaw(t, d, bs("h"), bs("x"), TypeHash)
	clock.Advance(secs(10))
	if _, ok, err := d.Get(bs("h")); ok || !errors.Is(err, ErrWrongType) {
		t.Errorf("Get hash = %v, %v; want ErrWrongType", ok, err)
	}
	if ki, _ := d.Info(bs("h")); ki.IdleMs != 0 {
		t.Errorf("Get of a hash left its idle time at %d ms", ki.IdleMs)
	}
	if _, ok, err := d.Get(bs("nope")); ok || err != nil {
		t.Errorf("Get missing = %v, %v", ok, err)
	}
	mustSet(t, d, "s", "v", SetOptions{})
	d.Get(bs("s"))
	if st := e.Stats(); st.Hits != 2 || st.Misses != 1 {
		t.Errorf("after GET h, GET nope, GET s: hits %d misses %d, want 2 and 1", st.Hits, st.Misses)
	}
	d.MGet([][]byte{bs("h"), bs("nope"), bs("s")}, func(int, Item, bool) {})
	if st := e.Stats(); st.Hits != 4 || st.Misses != 2 {
		t.Errorf("after MGET h nope s: hits %d misses %d, want 4 and 2", st.Hits, st.Misses)
	}
	if _, _, err := d.GetEx(bs("h"), ExpireChange{}, true); !errors.Is(err, ErrWrongType) {
		t.Errorf("GetEx hash: %v", err)
	}
	if st := e.Stats(); st.Hits != 5 || st.Misses != 2 {
		t.Errorf("after GETDEL h: hits %d misses %d, want 5 and 2", st.Hits, st.Misses)
	}
	e.ResetStats()
	if st := e.Stats(); st != (Stats{}) {
		t.Errorf("after ResetStats: %+v", st)
	}
}

func TestGetEx(t *testing.T) {
	tests := []struct {
		name       string
		pre        preState
		ch         func(now int64) ExpireChange
		del        bool
		wantOK     bool
		wantErr    error
		wantExpire int64 // after; -1 = gone
		wantChange bool
	}{
		{name: "keep", pre: preString, ch: func(int64) ExpireChange { return ExpireChange{Mode: TTLKeep} },
			wantOK: true, wantExpire: oldExpire},
		{name: "clear", pre: preString, ch: func(int64) ExpireChange { return ExpireChange{Mode: TTLClear} },
			wantOK: true, wantExpire: 0, wantChange: true},
		{name: "set future", pre: preString, ch: func(now int64) ExpireChange { return ExpireChange{Mode: TTLSet, At: now + 7000} },
			wantOK: true, wantExpire: t0 + 7000, wantChange: true},
		{name: "set past deletes", pre: preString, ch: func(now int64) ExpireChange { return ExpireChange{Mode: TTLSet, At: now - 7000} },
			wantOK: true, wantExpire: -1, wantChange: true},
		{name: "set now deletes", pre: preString, ch: func(now int64) ExpireChange { return ExpireChange{Mode: TTLSet, At: now} },
			wantOK: true, wantExpire: -1, wantChange: true},
		{name: "del", pre: preString, ch: func(int64) ExpireChange { return ExpireChange{Mode: TTLKeep} }, del: true,
			wantOK: true, wantExpire: -1, wantChange: true},
		{name: "missing", pre: preNone, ch: func(int64) ExpireChange { return ExpireChange{Mode: TTLSet, At: 1} },
			wantExpire: -1},
		{name: "expired", pre: preExpired, ch: func(int64) ExpireChange { return ExpireChange{Mode: TTLClear} }, del: true,
			wantExpire: -1, wantChange: true}, // the lazy reclaim is a change
		{name: "hash", pre: preHash, ch: func(int64) ExpireChange { return ExpireChange{Mode: TTLClear} }, del: true,
			wantErr: ErrWrongType, wantExpire: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, 2)
			d := e.DB(0)
			cas := prepare(t, d, clock, "k", tc.pre)
			before := e.Changes()
			it, ok, err := d.GetEx(bs("k"), tc.ch(clock.NowMs()), tc.del)
			if !errors.Is(err, tc.wantErr) || ok != tc.wantOK {
				t.Fatalf("GetEx = %v, %v; want %v, %v", ok, err, tc.wantOK, tc.wantErr)
			}
			if ok {
				if string(it.Value) != "old" || it.Flags != 7 || it.CAS != cas || it.ExpireAt != oldExpire {
					t.Errorf("item = %q flags %d cas %d expire %d; want the state before the change", it.Value, it.Flags, it.CAS, it.ExpireAt)
				}
				if ki, there := d.Info(bs("k")); there && ki.CAS != cas {
					t.Errorf("GetEx changed the CAS (%d -> %d); memcached touch/gat keeps it", cas, ki.CAS)
				}
			}
			if got := expireOf(d, "k"); got != tc.wantExpire {
				t.Errorf("expireAt = %d, want %d", got, tc.wantExpire)
			}
			if changed := e.Changes() != before; changed != tc.wantChange {
				t.Errorf("changed = %v, want %v", changed, tc.wantChange)
			}
			checkInvariants(t, e)
		})
	}
}
