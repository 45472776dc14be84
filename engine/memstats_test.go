package engine

import (
	"strconv"
	"testing"
	"time"
)

// TestIndexMemory: a database's index bytes grow with its keys, stay
// within used memory, belong to that database only, and go back to
// nothing when it is emptied.
func TestIndexMemory(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d0, d1 := e.DB(0), e.DB(1)
	if n := d0.IndexMemory(); n != 0 {
		t.Fatalf("empty database: %d index bytes", n)
	}
	for i := 0; i < 1000; i++ {
		if _, err := d0.Set(bs("k"+strconv.Itoa(i)), bs("v"), SetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	n := d0.IndexMemory()
	if min := int64(1000) * entrySize; n < min {
		t.Errorf("1000 keys: %d index bytes, want at least %d", n, min)
	}
	if used := e.UsedMemoryExact(); n >= used {
		t.Errorf("index %d bytes of %d used", n, used)
	}
	if m := d1.IndexMemory(); m != 0 {
		t.Errorf("the other database: %d index bytes", m)
	}
	d0.Flush()
	if n := d0.IndexMemory(); n != 0 {
		t.Errorf("after FLUSHDB: %d index bytes", n)
	}
}

// TestMemoryUsageOfAnExpiredKey: measured, not reclaimed.
func TestMemoryUsageOfAnExpiredKey(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	if _, err := d.Set(bs("k"), bs("v"), SetOptions{TTL: TTLSet, ExpireAt: t0 + 10}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if n, ok := d.MemoryUsage(bs("k")); !ok || n <= 0 || d.Size() != 1 {
		t.Errorf("MemoryUsage of an expired key: %d %v, DBSIZE %d", n, ok, d.Size())
	}
}
