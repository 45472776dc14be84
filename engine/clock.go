package engine

import (
	"sync/atomic"
	"time"
)

// Clock is the engine's only source of time.
type Clock interface {
	// NowMs returns the current unix time in milliseconds.
	NowMs() int64
}

// SystemClock reads the wall clock.
type SystemClock struct{}

// NowMs implements Clock.
func (SystemClock) NowMs() int64 { return time.Now().UnixMilli() }

// ManualClock is a Clock that only moves when told; for tests. Safe for
// concurrent use.
type ManualClock struct{ ms atomic.Int64 }

// NewManualClock returns a clock set to the given unix milliseconds.
func NewManualClock(ms int64) *ManualClock {
	c := &ManualClock{}
	c.ms.Store(ms)
	return c
}

// NowMs implements Clock.
func (c *ManualClock) NowMs() int64 { return c.ms.Load() }

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// Set moves the clock to ms.
func (c *ManualClock) Set(ms int64) { c.ms.Store(ms) }
