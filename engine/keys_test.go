package engine

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

func TestDeleteExistsTouch(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet(t, d, "a", "1", SetOptions{})
	mustSet(t, d, "b", "2", SetOptions{})
	mustSet(t, d, "gone", "3", SetOptions{TTL: TTLSet, ExpireAt: t0 + 500})
	putRaw(t, d, bs("h"), nil, TypeHash)
	clock.Advance(secs(1))

	if n := d.Exists(bs("a"), bs("a"), bs("b"), bs("gone"), bs("none"), bs("h")); n != 4 {
		t.Errorf("Exists a a b gone none h = %d, want 4 (a duplicate counts twice)", n)
	}
	if n := d.Touch(bs("a"), bs("a"), bs("none")); n != 2 {
		t.Errorf("Touch a a none = %d, want 2", n)
	}
	if n := d.Delete(bs("a"), bs("a"), bs("none"), bs("gone"), bs("h")); n != 2 {
		t.Errorf("Delete a a none gone h = %d, want 2 (a duplicate counts once, expired not at all)", n)
	}
	if d.Exists(bs("a"), bs("h")) != 0 {
		t.Errorf("deleted keys still exist")
	}
	checkInvariants(t, e)
}

func TestDeleteIf(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	cas := mustSet(t, d, "k", "v", SetOptions{}).CAS
	if existed, deleted := d.DeleteIf(bs("k"), cas+1); !existed || deleted {
		t.Errorf("CAS mismatch: existed %v deleted %v", existed, deleted)
	}
	if existed, deleted := d.DeleteIf(bs("k"), cas); !existed || !deleted {
		t.Errorf("CAS match: existed %v deleted %v", existed, deleted)
	}
	if existed, deleted := d.DeleteIf(bs("k"), 0); existed || deleted {
		t.Errorf("missing: existed %v deleted %v", existed, deleted)
	}
	mustSet(t, d, "k", "v", SetOptions{})
	if existed, deleted := d.DeleteIf(bs("k"), 0); !existed || !deleted {
		t.Errorf("no CAS: existed %v deleted %v", existed, deleted)
	}
	checkInvariants(t, e)
}

func TestInfoIdleAndNoTouch(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet(t, d, "k", "v", SetOptions{Flags: 11})
	clock.Advance(secs(5))
	ki, ok := d.Info(bs("k"))
	if !ok || ki.IdleMs != 5000 || ki.Type != TypeString || ki.Flags != 11 {
		t.Fatalf("Info = %+v, %v; want idle 5000", ki, ok)
	}
	clock.Advance(secs(3))
	if ki, _ := d.Info(bs("k")); ki.IdleMs != 8000 {
		t.Errorf("Info counted as an access: idle %d, want 8000", ki.IdleMs)
	}
	quiet := e.DB(0)
	quiet.NoTouch = true
	quiet.Get(bs("k"))
	if ki, _ := d.Info(bs("k")); ki.IdleMs != 8000 {
		t.Errorf("a NoTouch Get reset idle to %d", ki.IdleMs)
	}
	d.Get(bs("k"))
	if ki, _ := d.Info(bs("k")); ki.IdleMs != 0 {
		t.Errorf("Get left idle at %d", ki.IdleMs)
	}
	clock.Advance(secs(2))
	d.Touch(bs("k"))
	if ki, _ := d.Info(bs("k")); ki.IdleMs != 0 {
		t.Errorf("Touch left idle at %d", ki.IdleMs)
	}
	if _, ok := d.Info(bs("none")); ok {
		t.Errorf("Info on a missing key")
	}
}

func TestExpire(t *testing.T) {
	const cur = t0 + 100_000 // the volatile key's expiry
	tests := []struct {
		name       string
		key        string // "p" persistent, "v" volatile, "m" missing
		at         int64
		cond       ExpireCond
		want       bool
		wantExpire int64 // -1 = gone
	}{
		{"plain on persistent", "p", t0 + 10_000, 0, true, t0 + 10_000},
		{"plain on volatile", "v", t0 + 10_000, 0, true, t0 + 10_000},
		{"missing", "m", t0 + 10_000, 0, false, -1},
		{"nx on persistent", "p", t0 + 10_000, ExpireNX, true, t0 + 10_000},
		{"nx on volatile", "v", t0 + 10_000, ExpireNX, false, cur},
		{"xx on persistent", "p", t0 + 10_000, ExpireXX, false, 0},
		{"xx on volatile", "v", t0 + 10_000, ExpireXX, true, t0 + 10_000},
		{"gt on persistent fails", "p", t0 + 10_000, ExpireGT, false, 0},
		{"gt later", "v", cur + 1, ExpireGT, true, cur + 1},
		{"gt equal", "v", cur, ExpireGT, false, cur},
		{"gt sooner", "v", cur - 1, ExpireGT, false, cur},
		{"lt on persistent succeeds", "p", t0 + 10_000, ExpireLT, true, t0 + 10_000},
		{"lt sooner", "v", cur - 1, ExpireLT, true, cur - 1},
		{"lt equal", "v", cur, ExpireLT, false, cur},
		{"lt later", "v", cur + 1, ExpireLT, false, cur},
		{"xx gt later", "v", cur + 1, ExpireXX | ExpireGT, true, cur + 1},
		{"xx gt on persistent", "p", cur + 1, ExpireXX | ExpireGT, false, 0},
		{"past deletes", "v", t0 - 1, 0, true, -1},
		{"now deletes", "p", t0, 0, true, -1},
		{"past with failing nx keeps", "v", t0 - 1, ExpireNX, false, cur},
		{"past with lt deletes", "v", t0 - 1, ExpireLT, true, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, 2)
			d := e.DB(0)
			mustSet(t, d, "p", "1", SetOptions{})
			mustSet(t, d, "v", "1", SetOptions{TTL: TTLSet, ExpireAt: cur})
			if got, _ := d.Expire(bs(tc.key), tc.at, tc.cond); got != tc.want {
				t.Errorf("Expire = %v, want %v", got, tc.want)
			}
			if got := expireOf(d, tc.key); got != tc.wantExpire {
				t.Errorf("expireAt = %d, want %d", got, tc.wantExpire)
			}
			checkInvariants(t, e)
		})
	}
}

func TestPersist(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet(t, d, "p", "1", SetOptions{})
	mustSet(t, d, "v", "1", SetOptions{TTL: TTLSet, ExpireAt: t0 + 1000})
	if d.Persist(bs("p")) || d.Persist(bs("none")) {
		t.Errorf("Persist on a persistent or missing key reported true")
	}
	if !d.Persist(bs("v")) || expireOf(d, "v") != 0 {
		t.Errorf("Persist on a volatile key failed")
	}
	if d.Volatile() != 0 {
		t.Errorf("Volatile = %d after Persist", d.Volatile())
	}
	checkInvariants(t, e)
}

func TestSizeFlush(t *testing.T) {
	e, clock := newTestEngine(t, 3)
	d0, d1 := e.DB(0), e.DB(1)
	for i := 0; i < 100; i++ {
		mustSet(t, d0, fmt.Sprint("k", i), "v", SetOptions{})
		mustSet(t, d1, fmt.Sprint("k", i), "v", SetOptions{})
	}
	mustSet(t, d0, "soon", "v", SetOptions{TTL: TTLSet, ExpireAt: t0 + 10})
	clock.Advance(secs(1))
	if n := d0.Size(); n != 101 {
		t.Errorf("Size = %d, want 101 (an expired key not yet reclaimed still counts)", n)
	}
	if n := d0.Volatile(); n != 1 {
		t.Errorf("Volatile = %d", n)
	}
	used1 := e.UsedMemory()
	before := e.Changes()
	d0.Flush()
	if d0.Size() != 0 || d1.Size() != 100 {
		t.Errorf("after Flush of db 0: sizes %d, %d", d0.Size(), d1.Size())
	}
	if e.Changes()-before != 101 {
		t.Errorf("Flush counted %d changes, want 101", e.Changes()-before)
	}
	if e.UsedMemory() <= 0 || e.UsedMemory() >= used1 {
		t.Errorf("used memory %d after flushing half of %d", e.UsedMemory(), used1)
	}
	checkInvariants(t, e)
	e.FlushAll()
	if e.UsedMemory() != 0 || d1.Size() != 0 {
		t.Errorf("after FlushAll: used %d, size %d", e.UsedMemory(), d1.Size())
	}
	// The engine still works after a flush.
	mustSet(t, d0, "again", "v", SetOptions{})
	if getString(t, d0, "again") != "v" {
		t.Errorf("write after FlushAll lost")
	}
	checkInvariants(t, e)
}

func TestFlushExpiring(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet(t, d, "persistent", "v", SetOptions{})
	mustSet(t, d, "sooner", "v", SetOptions{TTL: TTLSet, ExpireAt: t0 + 1000})
	mustSet(t, d, "later", "v", SetOptions{TTL: TTLSet, ExpireAt: t0 + 60_000})
	d1 := e.DB(1)
	mustSet(t, d1, "other-db", "v", SetOptions{})
	at := t0 + 5000
	d.FlushExpiring(at)
	for key, want := range map[string]int64{"persistent": at, "sooner": t0 + 1000, "later": at} {
		if got := expireOf(d, key); got != want {
			t.Errorf("%s: expireAt %d, want %d", key, got, want)
		}
	}
	if expireOf(d1, "other-db") != 0 {
		t.Errorf("FlushExpiring touched another database")
	}
	mustSet(t, d, "after", "v", SetOptions{})
	clock.Set(at)
	if n := d.Exists(bs("persistent"), bs("later"), bs("after")); n != 3 {
		t.Errorf("in the flush millisecond %d keys exist, want 3", n)
	}
	clock.Set(at + 1)
	if n := d.Exists(bs("persistent"), bs("sooner"), bs("later"), bs("after")); n != 1 {
		t.Errorf("after the flush time %d keys exist, want 1 (the one written after)", n)
	}
	checkInvariants(t, e)
}

func TestKeysGlob(t *testing.T) {
	e, clock := newTestEngine(t, 3)
	d := e.DB(0)
	for _, k := range []string{"user:1", "user:2", "user:10", "hello", "hallo", "hxllo", "a*b", "gone:1"} {
		mustSet(t, d, k, "v", SetOptions{})
	}
	d.Expire(bs("gone:1"), t0+10, 0)
	clock.Advance(secs(1))
	keys := func(p string) string {
		var got []string
		d.Keys(bs(p), func(k []byte) { got = append(got, string(k)) })
		sort.Strings(got)
		return strings.Join(got, " ")
	}
	tests := map[string]string{
		"*":        "a*b hallo hello hxllo user:1 user:10 user:2",
		"user:*":   "user:1 user:10 user:2",
		"user:?":   "user:1 user:2",
		"h[ae]llo": "hallo hello",
		"h[^e]llo": "hallo hxllo",
		"a\\*b":    "a*b",
		"gone*":    "",
		"nomatch":  "",
	}
	for p, want := range tests {
		if got := keys(p); got != want {
			t.Errorf("Keys %q = %q, want %q", p, got, want)
		}
	}
}

// scanAll runs a full SCAN and returns how often each key was returned.
func scanAll(d DB, count int, pattern []byte, typ Type, between func()) map[string]int {
	seen := map[string]int{}
	var cursor uint64
	for calls := 0; ; calls++ {
		cursor = d.Scan(cursor, count, pattern, typ, func(k []byte) { seen[string(k)]++ })
		if cursor == 0 {
			return seen
		}
		if between != nil {
			between()
		}
		if calls > 1_000_000 {
			panic("scan does not terminate")
		}
	}
}

func TestScanFull(t *testing.T) {
	for _, bits := range []int{1, 4, 8} {
		t.Run(fmt.Sprint("shardbits=", bits), func(t *testing.T) {
			e, _ := newTestEngine(t, bits)
			d := e.DB(0)
			const n = 1000
			for i := 0; i < n; i++ {
				mustSet(t, d, fmt.Sprint("key:", i), "v", SetOptions{})
			}
			putRaw(t, d, bs("hash:1"), nil, TypeHash)
			// Leave holes: deleted slots must be skipped.
			for i := 0; i < n; i += 3 {
				d.Delete(keyN("key:", i))
			}
			for _, count := range []int{1, 7, 100, 5000} {
				seen := scanAll(d, count, nil, TypeNone, nil)
				if len(seen) != n-334+1 {
					t.Errorf("count %d: %d keys, want %d", count, len(seen), n-334+1)
				}
				for k, c := range seen {
					if c != 1 {
						t.Errorf("count %d: %s returned %d times", count, k, c)
					}
				}
			}
			if seen := scanAll(d, 10, bs("key:1?"), TypeNone, nil); len(seen) != 7 { // key:10..key:19 minus the deleted 12, 15 and 18
				t.Errorf("pattern key:1? gave %d keys: %v", len(seen), seen)
			}
			if seen := scanAll(d, 10, nil, TypeHash, nil); len(seen) != 1 || seen["hash:1"] != 1 {
				t.Errorf("type hash gave %v", seen)
			}
			if c := d.Scan(0, 10, nil, TypeNone, func([]byte) {}); c == 0 && n > 10 {
				t.Errorf("a partial scan returned cursor 0")
			}
			// An empty database finishes at once.
			empty := e.DB(1)
			if c := empty.Scan(0, 10, nil, TypeNone, func(k []byte) { t.Errorf("key %q in empty db", k) }); c != 0 {
				t.Errorf("scan of an empty db returned cursor %d", c)
			}
		})
	}
}

// A key present for the whole scan is returned exactly once, however many
// other keys are added and removed between the calls.
func TestScanWithConcurrentChanges(t *testing.T) {
	e, _ := newTestEngine(t, 4)
	d := e.DB(0)
	const stable = 2000
	for i := 0; i < stable; i++ {
		mustSet(t, d, fmt.Sprint("stable:", i), "v", SetOptions{})
	}
	for i := 0; i < 500; i++ {
		mustSet(t, d, fmt.Sprint("churn:", i), "v", SetOptions{})
	}
	next := 500
	step := 0
	seen := scanAll(d, 5, nil, TypeNone, func() {
		step++
		// Delete two old churn keys, add three new ones: shards grow,
		// free slots are reused in front of and behind the cursor.
		d.Delete(keyN("churn:", 2*step), keyN("churn:", 2*step+1))
		for j := 0; j < 3; j++ {
			mustSet(t, d, fmt.Sprint("churn:", next), "v", SetOptions{})
			next++
		}
		// Overwrites of stable keys keep their slots.
		mustSet(t, d, fmt.Sprint("stable:", step%stable), "w", SetOptions{})
	})
	for i := 0; i < stable; i++ {
		if c := seen[fmt.Sprint("stable:", i)]; c != 1 {
			t.Errorf("stable:%d returned %d times", i, c)
		}
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("%s returned %d times", k, c)
		}
	}
	checkInvariants(t, e)
}

func TestRandomKey(t *testing.T) {
	e, clock := newTestEngine(t, 8)
	d := e.DB(0)
	if _, ok := d.RandomKey(); ok {
		t.Fatalf("RandomKey on an empty db")
	}
	mustSet(t, d, "only", "v", SetOptions{})
	for i := 0; i < 50; i++ {
		if k, ok := d.RandomKey(); !ok || string(k) != "only" {
			t.Fatalf("RandomKey = %q, %v", k, ok)
		}
	}
	d.Expire(bs("only"), t0+10, 0)
	clock.Advance(secs(1))
	if k, ok := d.RandomKey(); ok {
		t.Errorf("RandomKey returned the expired key %q", k)
	}
	for i := 0; i < 20; i++ {
		mustSet(t, d, fmt.Sprint("k", i), "v", SetOptions{})
	}
	got := map[string]bool{}
	for i := 0; i < 500; i++ {
		k, ok := d.RandomKey()
		if !ok || !strings.HasPrefix(string(k), "k") {
			t.Fatalf("RandomKey = %q, %v", k, ok)
		}
		got[string(k)] = true
	}
	if len(got) < 10 {
		t.Errorf("500 RandomKey calls saw only %d of 20 keys", len(got))
	}
}

func TestRename(t *testing.T) {
	e, _ := newTestEngine(t, 3)
	d := e.DB(0)
	d.TrackCAS = true // memcached semantics: CAS uniques at once
	mustSet(t, d, "src", "v", SetOptions{TTL: TTLSet, ExpireAt: oldExpire, Flags: 4})
	srcCAS, _ := d.Info(bs("src"))
	if ok, err := d.Rename(bs("src"), bs("dst"), false); !ok || err != nil {
		t.Fatalf("Rename = %v, %v", ok, err)
	}
	ki, ok := d.Info(bs("dst"))
	if !ok || ki.ExpireAt != oldExpire || ki.Flags != 4 || getString(t, d, "dst") != "v" || d.Exists(bs("src")) != 0 {
		t.Errorf("after Rename: dst %+v %v, src exists %d", ki, ok, d.Exists(bs("src")))
	}
	if ki.CAS == srcCAS.CAS {
		t.Errorf("Rename kept the CAS; the new key is a write")
	}
	if _, err := d.Rename(bs("src"), bs("dst"), false); !errors.Is(err, ErrNoSuchKey) {
		t.Errorf("Rename of a missing key: %v", err)
	}
	if _, err := d.Rename(bs("src"), bs("src"), false); !errors.Is(err, ErrNoSuchKey) {
		t.Errorf("Rename of a missing key onto itself: %v", err)
	}
	// Same key: RENAME succeeds and changes nothing, RENAMENX answers 0.
	if ok, err := d.Rename(bs("dst"), bs("dst"), false); !ok || err != nil || getString(t, d, "dst") != "v" {
		t.Errorf("Rename k k = %v, %v", ok, err)
	}
	if ok, err := d.Rename(bs("dst"), bs("dst"), true); ok || err != nil {
		t.Errorf("RenameNX k k = %v, %v", ok, err)
	}
	// NX onto an existing key.
	mustSet(t, d, "other", "o", SetOptions{})
	if ok, err := d.Rename(bs("dst"), bs("other"), true); ok || err != nil || getString(t, d, "other") != "o" || getString(t, d, "dst") != "v" {
		t.Errorf("RenameNX onto an existing key = %v, %v", ok, err)
	}
	// Replace an existing key, including one of another type.
	putRaw(t, d, bs("h"), bs("fields"), TypeHash)
	if ok, err := d.Rename(bs("dst"), bs("h"), false); !ok || err != nil || getString(t, d, "h") != "v" {
		t.Errorf("Rename onto a hash = %v, %v", ok, err)
	}
	// A hash moves as a hash.
	putRaw(t, d, bs("h2"), bs("fields"), TypeHash)
	if ok, err := d.Rename(bs("h2"), bs("h3"), false); !ok || err != nil {
		t.Errorf("Rename hash = %v, %v", ok, err)
	}
	if ki, _ := d.Info(bs("h3")); ki.Type != TypeHash {
		t.Errorf("renamed hash has type %v", ki.Type)
	}
	// Many renames within and across shards keep the books straight.
	for i := 0; i < 200; i++ {
		mustSet(t, d, fmt.Sprint("r", i), fmt.Sprint(i), SetOptions{})
	}
	for i := 0; i < 200; i++ {
		if ok, err := d.Rename(keyN("r", i), keyN("s", i), false); !ok || err != nil {
			t.Fatalf("Rename r%d: %v %v", i, ok, err)
		}
	}
	for i := 0; i < 200; i++ {
		if got := getString(t, d, fmt.Sprint("s", i)); got != fmt.Sprint(i) {
			t.Fatalf("s%d = %q", i, got)
		}
	}
	checkInvariants(t, e)
}

func TestCopyAndMove(t *testing.T) {
	e, _ := newTestEngine(t, 3)
	d0, d1 := e.DB(0), e.DB(1)
	mustSet(t, d0, "k", "v0", SetOptions{TTL: TTLSet, ExpireAt: oldExpire, Flags: 2})
	mustSet(t, d1, "k", "v1", SetOptions{})

	if ok, err := d0.Copy(bs("k"), d1, bs("k"), false); ok || err != nil || getString(t, d1, "k") != "v1" {
		t.Errorf("Copy without replace onto an existing key = %v, %v", ok, err)
	}
	if ok, err := d0.Copy(bs("k"), d1, bs("k"), true); !ok || err != nil || getString(t, d1, "k") != "v0" {
		t.Errorf("Copy with replace = %v, %v", ok, err)
	}
	if expireOf(d1, "k") != oldExpire || getString(t, d0, "k") != "v0" {
		t.Errorf("Copy must keep the expiry and the source")
	}
	if ok, err := d0.Copy(bs("k"), d0, bs("k2"), false); !ok || err != nil || getString(t, d0, "k2") != "v0" {
		t.Errorf("Copy within a db = %v, %v", ok, err)
	}
	if _, err := d0.Copy(bs("k"), d0, bs("k"), true); !errors.Is(err, ErrSameObject) {
		t.Errorf("Copy onto itself: %v", err)
	}
	if ok, err := d0.Copy(bs("none"), d1, bs("x"), true); ok || err != nil {
		t.Errorf("Copy of a missing key = %v, %v", ok, err)
	}

	if _, err := d0.Move(bs("k"), d0); !errors.Is(err, ErrSameObject) {
		t.Errorf("Move to the same db: %v", err)
	}
	if ok, err := d0.Move(bs("k"), d1); ok || err != nil || getString(t, d0, "k") != "v0" {
		t.Errorf("Move onto an existing key = %v, %v", ok, err)
	}
	d1.Delete(bs("k"))
	if ok, err := d0.Move(bs("k"), d1); !ok || err != nil || d0.Exists(bs("k")) != 0 || getString(t, d1, "k") != "v0" {
		t.Errorf("Move = %v, %v", ok, err)
	}
	if expireOf(d1, "k") != oldExpire {
		t.Errorf("Move must keep the expiry")
	}
	if ok, err := d0.Move(bs("none"), d1); ok || err != nil {
		t.Errorf("Move of a missing key = %v, %v", ok, err)
	}
	checkInvariants(t, e)
}

func TestSwapDB(t *testing.T) {
	e, clock := newTestEngine(t, 3)
	d0, d1 := e.DB(0), e.DB(1)
	mustSet(t, d0, "a", "0", SetOptions{TTL: TTLSet, ExpireAt: t0 + 1000})
	for i := 0; i < 50; i++ {
		mustSet(t, d1, fmt.Sprint("b", i), "1", SetOptions{})
	}
	used := e.UsedMemory()
	before := e.Changes()
	e.SwapDB(0, 1, nil)
	if d0.Size() != 50 || d1.Size() != 1 || getString(t, d1, "a") != "0" || getString(t, d0, "b7") != "1" {
		t.Errorf("after SwapDB: sizes %d %d", d0.Size(), d1.Size())
	}
	if expireOf(d1, "a") != t0+1000 || d1.Volatile() != 1 || d0.Volatile() != 0 {
		t.Errorf("SwapDB must carry expiries")
	}
	if e.UsedMemory() != used || e.Changes() == before {
		t.Errorf("SwapDB: used %d (was %d), changes %d (was %d)", e.UsedMemory(), used, e.Changes(), before)
	}
	e.SwapDB(1, 1, nil)
	if d1.Size() != 1 {
		t.Errorf("SwapDB of a db with itself changed it")
	}
	// Expiry still works on the swapped data.
	clock.Advance(secs(2))
	if n := e.ActiveExpireCycle(secs(1)); n != 1 || d1.Size() != 0 {
		t.Errorf("active expiry after SwapDB reclaimed %d, size %d", n, d1.Size())
	}
	checkInvariants(t, e)
}

func TestHashTag(t *testing.T) {
	tests := map[string]string{
		"{user}:1":   "user",
		"x{user}y":   "user",
		"{}:1":       "{}:1",
		"{user":      "{user",
		"user}":      "user}",
		"{a}{b}":     "a",
		"{{a}}":      "{a",
		"plain":      "plain",
		"":           "",
		"a{}b{c}":    "a{}b{c}",
		"{user}:2{}": "user",
	}
	for key, want := range tests {
		if got := string(hashTag(bs(key))); got != want {
			t.Errorf("hashTag(%q) = %q, want %q", key, got, want)
		}
	}
	e, _ := newTestEngine(t, 10)
	d := e.DB(2)
	for i := 0; i < 100; i++ {
		a, _ := d.locate(keyN("{user}:", i))
		b, _ := d.locate(bs("{user}:x"))
		if a != b {
			t.Fatalf("{user}:%d in shard %d, {user}:x in %d", i, a, b)
		}
		if a < 2*e.perDB || a >= 3*e.perDB {
			t.Fatalf("db 2 key in global shard %d", a)
		}
	}
	// Without a tag, 100 keys spread over many of the 1024 shards.
	shards := map[int]bool{}
	for i := 0; i < 100; i++ {
		s, _ := d.locate(keyN("user:", i))
		shards[s] = true
	}
	if len(shards) < 80 {
		t.Errorf("100 untagged keys in only %d shards", len(shards))
	}
	// Keys with one tag still have distinct hashes, and both work.
	_, h1 := d.locate(bs("{user}:1"))
	_, h2 := d.locate(bs("{user}:2"))
	if h1 == h2 {
		t.Errorf("tagged keys share the key hash")
	}
	mustSet(t, d, "{user}:1", "a", SetOptions{})
	mustSet(t, d, "{user}:2", "b", SetOptions{})
	if getString(t, d, "{user}:1") != "a" || getString(t, d, "{user}:2") != "b" {
		t.Errorf("tagged keys mixed up")
	}
}
