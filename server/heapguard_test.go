package server

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

var heapGuardSink [][]byte

func TestHeapGuard(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var g heapGuard
	inUse := func() int64 { g.mu.Lock(); defer g.mu.Unlock(); return g.inUse() }

	// No limit: nothing to guard.
	debug.SetMemoryLimit(math.MaxInt64)
	g.note(heapCheckEvery)
	if g.forced.Load() != 0 {
		t.Fatal("collected without a limit")
	}

	// Garbage past the limit: the check collects, and the heap is back
	// under it.
	runtime.GC()
	base := inUse()
	for i := 0; i < 64; i++ {
		heapGuardSink = append(heapGuardSink, make([]byte, 1<<20))
	}
	heapGuardSink = nil // 64 MB of garbage, not collected (GC off, no limit yet)
	debug.SetMemoryLimit(base + 16<<20)
	g.note(heapCheckEvery / 2)
	if g.forced.Load() != 0 {
		t.Fatal("checked before heapCheckEvery bytes")
	}
	g.note(heapCheckEvery / 2)
	if g.forced.Load() != 1 || g.off.Load() {
		t.Fatalf("garbage over the limit: forced %d, off %v", g.forced.Load(), g.off.Load())
	}
	if u := inUse(); u > base+16<<20 {
		t.Fatalf("after the collection: %d bytes in use, limit %d", u, base+16<<20)
	}

	// Live data past the limit: one collection, which cannot help, then
	// the guard stays off until the heap is under the limit again.
	for i := 0; i < 64; i++ {
		heapGuardSink = append(heapGuardSink, make([]byte, 1<<20))
	}
	g.note(heapCheckEvery)
	if g.forced.Load() != 2 || !g.off.Load() {
		t.Fatalf("live data over the limit: forced %d, off %v", g.forced.Load(), g.off.Load())
	}
	g.note(heapCheckEvery)
	if g.forced.Load() != 2 {
		t.Fatal("collected again while the live data is over the limit")
	}
	heapGuardSink = nil
	runtime.GC()
	g.note(heapCheckEvery)
	if g.off.Load() {
		t.Fatal("still off with the heap under the limit")
	}
}
