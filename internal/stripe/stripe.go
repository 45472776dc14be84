// Package stripe holds counters that many event loops add to: each
// counter is kept in N copies on cache lines of their own, a writer adds
// to the copy its connection id picks, and a reader adds the copies up.
//
// One copy shared by every loop made loops running the same command take
// turns at its cache line on every call (the engine's shared counters
// showed that at 8 % of SET's time, engine/tally.go); in copies, loops
// (one per core) seldom share one.
package stripe

import "sync/atomic"

// N is the copies of each counter.
const N = 8

// CacheLine is what each copy is padded to.
const CacheLine = 64

// Of returns the copy a connection with this id adds to.
func Of(id uint64) uint8 { return uint8(id % N) }

// Count is a counter in N copies. The zero value is 0.
type Count [N]struct {
	n atomic.Int64
	_ [CacheLine - 8]byte
}

// Add adds n to copy s (from Of).
func (c *Count) Add(s uint8, n int64) { c[s%N].n.Add(n) }

// Load returns the sum of the copies.
func (c *Count) Load() int64 {
	var n int64
	for i := range c {
		n += c[i].n.Load()
	}
	return n
}

// Reset sets every copy to 0.
func (c *Count) Reset() {
	for i := range c {
		c[i].n.Store(0)
	}
}
