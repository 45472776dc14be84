package engine

import (
	"testing"
	"time"
)

func TestFetchedBitReadsAndWrites(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	k := []byte("k")
	if _, err := d.Set(k, []byte("v"), SetOptions{}); err != nil {
		t.Fatal(err)
	}
	info, _ := d.Info(k)
	if info.Fetched {
		t.Fatal("a new value is fetched")
	}
	// NoTouch reads (CLIENT NO-TOUCH, mg u, me) look without fetching.
	nt := d
	nt.NoTouch = true
	if it, ok, _ := nt.Get(k); !ok || it.Fetched {
		t.Fatalf("NoTouch Get: ok %v fetched %v", ok, it.Fetched)
	}
	// The first read reports the bit as it was, then sets it.
	if it, _, _ := d.Get(k); it.Fetched {
		t.Fatal("first Get reports fetched")
	}
	if it, _, _ := d.Get(k); !it.Fetched {
		t.Fatal("second Get reports not fetched")
	}
	if info, _ := d.Info(k); !info.Fetched {
		t.Fatal("Info after a Get: not fetched")
	}
	// Expiry changes keep the bit and WATCH sees them; a read is no change.
	m := d.Watch(k)
	d.Get(k)
	if !d.Unchanged(k, m) {
		t.Fatal("a read aborts a WATCH")
	}
	d.Expire(k, t0+time.Hour.Milliseconds(), 0)
	if d.Unchanged(k, m) {
		t.Fatal("an expiry change does not abort a WATCH")
	}
	d.Unwatch(k)
	if info, _ := d.Info(k); !info.Fetched {
		t.Fatal("an expiry change cleared the bit")
	}
	// A write is a new value: not fetched.
	d.Set(k, []byte("w"), SetOptions{TTL: TTLKeep})
	if info, _ := d.Info(k); info.Fetched {
		t.Fatal("fetched after a write")
	}
	// GetEx (GETEX, gat, touch) and MGet fetch too.
	if it, _, _ := d.GetEx(k, ExpireChange{Mode: TTLKeep}, false); it.Fetched {
		t.Fatal("GetEx: fetched before")
	}
	d.Set(k, []byte("x"), SetOptions{})
	d.MGet([][]byte{k}, func(_ int, it Item, ok bool) {
		if !ok || it.Fetched {
			t.Fatalf("MGet: ok %v fetched %v", ok, it.Fetched)
		}
	})
	if info, _ := d.Info(k); !info.Fetched {
		t.Fatal("MGet did not fetch")
	}
	// MarkFetched applies to the version named by its CAS only.
	res, _ := d.Set(k, []byte("y"), SetOptions{})
	if d.MarkFetched(k, res.CAS+1) {
		t.Fatal("MarkFetched with a stale CAS")
	}
	if !d.MarkFetched(k, res.CAS) {
		t.Fatal("MarkFetched with the current CAS")
	}
	if info, _ := d.Info(k); !info.Fetched {
		t.Fatal("MarkFetched did not set the bit")
	}
	if d.MarkFetched([]byte("missing"), 1) {
		t.Fatal("MarkFetched on a missing key")
	}
}

// Expiry changes, in place or by a new record (a key without an expiry
// field gets one), leave the fetched bit alone, and WATCH sees each of
// them, even one back to the same time.
func TestFetchedBitSurvivesExpiryChanges(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	k := []byte("k")
	d.Set(k, []byte("v"), SetOptions{})
	d.Get(k)
	mark := d.Watch(k)
	defer d.Unwatch(k)
	s, h := d.shardOf(k)
	for i := 0; i < 10; i++ {
		s.mu.Lock()
		en := &s.entries[s.lookup(k, h)]
		s.setExpire(en, int64(i%2)*(t0+1000))
		fetched := en.fetched()
		s.mu.Unlock()
		if !fetched {
			t.Fatalf("fetched bit lost after %d expiry changes", i+1)
		}
		if d.Unchanged(k, mark) {
			t.Fatalf("WATCH missed expiry change %d", i+1)
		}
		mark = d.markOf(k)
	}
}

func TestExpiredUnfetched(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	exp := SetOptions{TTL: TTLSet, ExpireAt: t0 + 1000}
	for _, k := range []string{"read", "unread1", "unread2", "redis"} {
		d.Set([]byte(k), []byte("v"), exp)
	}
	d.Get([]byte("read"))
	d.GetEx([]byte("redis"), ExpireChange{Mode: TTLKeep}, false)
	clock.Advance(2 * time.Second)
	// Lazy expiry for two keys, the active cycle for the others.
	d.Get([]byte("read"))
	d.Get([]byte("unread1"))
	e.ActiveExpireCycle(time.Second)
	st := e.Stats()
	if st.ExpiredKeys != 4 || st.ExpiredUnfetched != 2 {
		t.Fatalf("expired %d, unfetched %d; want 4, 2", st.ExpiredKeys, st.ExpiredUnfetched)
	}
	e.ResetStats()
	if st := e.Stats(); st.ExpiredUnfetched != 0 || st.EvictedUnfetched != 0 {
		t.Fatalf("after ResetStats: %+v", st)
	}
}

func TestEvictedUnfetched(t *testing.T) {
	for _, p := range []Policy{AllKeysLRU, AllKeysS3FIFO, AllKeysRandom} {
		e, d, _ := evictionEngine(t, p)
		read := fillEvictable(t, d, "read", 50, SetOptions{})
		for _, k := range read {
			d.Get([]byte(k))
		}
		unread := fillEvictable(t, d, "unread", 50, SetOptions{})
		shrinkTo(t, e, 20, 100)
		st := e.Stats()
		evictedRead := len(read) - survivors(d, read)
		evictedUnread := len(unread) - survivors(d, unread)
		if st.EvictedKeys != int64(evictedRead+evictedUnread) || st.EvictedUnfetched != int64(evictedUnread) {
			t.Errorf("%v: evicted %d (read %d, unread %d), unfetched %d", p, st.EvictedKeys, evictedRead, evictedUnread, st.EvictedUnfetched)
		}
		if st.EvictedUnfetched == 0 {
			t.Errorf("%v: no unfetched key evicted", p)
		}
	}
}

// markOf is a watched key's current mark.
func (d DB) markOf(key []byte) WatchMark {
	s, h := d.shardOf(key)
	s.lock()
	defer s.mu.Unlock()
	return d.markLocked(s, key, h, s.watched[string(key)])
}
