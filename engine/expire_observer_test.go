package engine

import (
	"testing"
	"time"
)

// TestOnExpireCycleHearsEachCycle: the observer hears every cycle that
// ran, and nothing once removed.
func TestOnExpireCycleHearsEachCycle(t *testing.T) {
	e := New(Options{Clock: NewManualClock(1_700_000_000_000), ShardBits: 2, Databases: 1})
	var heard []time.Duration
	e.OnExpireCycle(func(d time.Duration) { heard = append(heard, d) })
	e.ActiveExpireCycle(time.Millisecond)
	e.ActiveExpireCycle(time.Millisecond)
	if len(heard) != 2 {
		t.Fatalf("heard %d cycles, want 2", len(heard))
	}
	e.OnExpireCycle(nil)
	e.ActiveExpireCycle(time.Millisecond)
	if len(heard) != 2 {
		t.Fatalf("heard %d cycles after removal", len(heard))
	}
}
