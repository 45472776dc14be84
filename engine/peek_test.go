package engine

import (
	"sort"
	"testing"
	"time"
)

// TestPeek: a peek sees an expired key without reclaiming it, leaves the
// access time alone and counts no lookup.
func TestPeek(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	if _, err := d.Set(bs("k"), bs("v"), SetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Set(bs("gone"), bs("x"), SetOptions{TTL: TTLSet, ExpireAt: t0 + 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.HSet(bs("h"), [][]byte{bs("f"), bs("1")}, HashLimits{MaxListpackEntries: 128, MaxListpackValue: 64}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Second)
	before := e.Stats()
	var got PeekInfo
	var value string
	if !d.Peek(bs("k"), func(it *SnapItem, info PeekInfo) { got, value = info, string(it.Value) }) {
		t.Fatal("Peek k: missing")
	}
	if value != "v" || got.IdleMs != 5000 || got.Encoding != EncEmbstr {
		t.Errorf("Peek k: %q %+v", value, got)
	}
	if !d.Peek(bs("gone"), func(*SnapItem, PeekInfo) {}) || d.Size() != 3 {
		t.Errorf("an expired key: peeked %v, DBSIZE %d", true, d.Size())
	}
	if d.Peek(bs("nokey"), func(*SnapItem, PeekInfo) { t.Error("called for a missing key") }) {
		t.Error("Peek nokey: found")
	}
	if after := e.Stats(); after.Hits != before.Hits || after.Misses != before.Misses {
		t.Errorf("lookups counted: %+v, then %+v", before, after)
	}
	if info, _ := d.Info(bs("k")); info.IdleMs != 5000 {
		t.Errorf("Peek touched k: idle %d ms", info.IdleMs)
	}
	var keys []string
	d.PeekAll(func(it *SnapItem) { keys = append(keys, string(it.Key)) })
	sort.Strings(keys)
	if len(keys) != 3 || keys[0] != "gone" || keys[1] != "h" || keys[2] != "k" {
		t.Errorf("PeekAll: %q", keys)
	}
}
