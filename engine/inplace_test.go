package engine

import (
	"bytes"
	"strconv"
	"testing"
)

// An overwrite of a value by one of the same size is written in place
// when nobody has been handed the old bytes: no dead record, no garbage.
func TestSameSizeOverwriteInPlace(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	for i := range 100 {
		mustSet(t, d, "k"+strconv.Itoa(i), "aaaa", SetOptions{})
	}
	before := e.UsedMemoryExact()
	for round := range 5 {
		for i := range 100 {
			mustSet(t, d, "k"+strconv.Itoa(i), strconv.Itoa(1000+round), SetOptions{})
		}
	}
	for i := range e.shards {
		if e.shards[i].dead != 0 {
			t.Fatalf("shard %d: %d dead bytes after same-size overwrites nobody read", i, e.shards[i].dead)
		}
	}
	if after := e.UsedMemoryExact(); after != before {
		t.Errorf("used memory %d → %d", before, after)
	}
	if it, ok, _ := d.Get([]byte("k7")); !ok || string(it.Value) != "1004" {
		t.Errorf("k7 = %q, want 1004", it.Value)
	}
	checkInvariants(t, e)
}

// A value handed out by any read stays as it was when the key is
// overwritten after the read, by a value of the same size or another;
// with expiry, flags and CAS too.
func TestHandedOutValuesOutliveOverwrites(t *testing.T) {
	reads := map[string]func(d DB, key []byte) []byte{
		"Get": func(d DB, key []byte) []byte { it, _, _ := d.Get(key); return it.Value },
		"GetEx": func(d DB, key []byte) []byte {
			it, _, _ := d.GetEx(key, ExpireChange{Mode: TTLKeep}, false)
			return it.Value
		},
		"MGet": func(d DB, key []byte) (v []byte) {
			d.MGet([][]byte{key}, func(_ int, it Item, _ bool) { v = it.Value })
			return v
		},
		"Info": func(d DB, key []byte) []byte { info, _ := d.Info(key); return info.Value },
	}
	for name, read := range reads {
		for _, o := range []SetOptions{{}, {TTL: TTLSet, ExpireAt: t0 + 60_000}, {Flags: 7}} {
			e, _ := newTestEngine(t, 0)
			d := e.DB(0)
			if name == "GetEx" || name == "Info" {
				d.TrackCAS = true // the CAS field as well
			}
			key := []byte("key")
			if _, err := d.Set(key, []byte("first-value"), o); err != nil {
				t.Fatal(err)
			}
			held := read(d, key)
			if string(held) != "first-value" {
				t.Fatalf("%s read %q", name, held)
			}
			for _, v := range []string{"other-value", "x", "third-value"} {
				if _, err := d.Set(key, []byte(v), o); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(held, []byte("first-value")) {
					t.Fatalf("%s with %+v: the value read became %q after SET %q", name, o, held, v)
				}
			}
			if it, _, _ := d.Get(key); string(it.Value) != "third-value" {
				t.Fatalf("%s: key holds %q", name, it.Value)
			}
			checkInvariants(t, e)
		}
	}
}

// A snapshot sees every value as it was at its barrier, also when the
// keys are overwritten in place-sized values while it runs.
func TestSnapshotSeesBarrierValuesDespiteSameSizeOverwrites(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	const n = 200
	for i := range n {
		mustSet(t, d, "k"+strconv.Itoa(i), "before", SetOptions{})
	}
	changed := false
	visited := 0
	err := e.Snapshot(nil, func(it *SnapItem) error {
		if !changed {
			changed = true
			for i := range n {
				mustSet(t, d, "k"+strconv.Itoa(i), "after!", SetOptions{})
			}
		}
		visited++
		if string(it.Value) != "before" {
			t.Errorf("%s: %q in the snapshot, %q at the barrier", it.Key, it.Value, "before")
		}
		return nil
	})
	if err != nil || visited != n {
		t.Fatalf("visited %d keys, err %v", visited, err)
	}
	if it, _, _ := d.Get([]byte("k5")); string(it.Value) != "after!" {
		t.Errorf("k5 = %q after the snapshot", it.Value)
	}
}
