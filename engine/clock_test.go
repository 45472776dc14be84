package engine

import (
	"testing"
	"time"
)

// SystemClock's anchored reading must agree with the wall clock, across
// re-anchoring, to the millisecond.
func TestSystemClockFollowsTheWallClock(t *testing.T) {
	var c SystemClock
	deadline := time.Now().Add(2*anchorAge + 100*time.Millisecond)
	for n := 0; time.Now().Before(deadline); n++ {
		before := time.Now().UnixMilli()
		got := c.NowMs()
		after := time.Now().UnixMilli()
		if got < before || got > after {
			t.Fatalf("read %d: NowMs %d outside [%d, %d]", n, got, before, after)
		}
		time.Sleep(time.Millisecond)
	}
}

// A stale anchor (a wall-clock step is seen only at the next anchor) is
// replaced once it is older than anchorAge.
func TestSystemClockReanchors(t *testing.T) {
	old := time.Now().Add(-2 * anchorAge)
	anchor.Store(&wallAnchor{at: old, unix: old.UnixNano() - int64(time.Hour)}) // an hour off
	got := SystemClock{}.NowMs()
	if want := time.Now().UnixMilli(); got < want-5 || got > want+5 {
		t.Fatalf("NowMs %d, wall clock %d: the stale anchor was used", got, want)
	}
}
