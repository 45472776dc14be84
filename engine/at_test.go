package engine

import (
	"testing"
	"time"
)

// TestDBAtStopsExpiry: through a handle At a moment, a key that has
// expired since is still found (and not reclaimed); the plain handle
// then finds it expired.
func TestDBAtStopsExpiry(t *testing.T) {
	clock := NewManualClock(1_700_000_000_000)
	eng := New(Options{Clock: clock, ShardBits: 1, Databases: 1})
	d := eng.DB(0)
	d.Set([]byte("k"), []byte("v"), SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + 5})
	stopped := d.At(clock.NowMs())
	clock.Advance(50 * time.Millisecond)
	if _, ok := stopped.Info([]byte("k")); !ok {
		t.Fatal("stopped handle: key expired")
	}
	n := 0
	stopped.Keys([]byte("*"), func([]byte) { n++ })
	if n != 1 {
		t.Fatalf("stopped handle: KEYS found %d", n)
	}
	if _, ok := d.Info([]byte("k")); ok {
		t.Fatal("plain handle: key still there after its expiry")
	}
	if _, ok := stopped.At(0).Info([]byte("k")); ok {
		t.Fatal("At(0): key found after reclaim")
	}
}
