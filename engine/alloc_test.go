package engine

import "testing"

// The read path allocates nothing: Get returns the stored value itself
// (immutable, shared), and locating, locking and expiry checks use no heap.
func TestGetDoesNotAllocate(t *testing.T) {
	e, keys := benchEngine(t, 1000)
	d := e.DB(0)
	missing := []byte("missing")
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		d.Get(keys[i%len(keys)])
		d.Get(missing)
		i++
	})
	if allocs != 0 {
		t.Errorf("Get allocates %.1f times per call", allocs)
	}
}
