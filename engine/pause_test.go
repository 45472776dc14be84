package engine

import (
	"testing"
	"time"
)

func TestPauseModes(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	g := e.Gate()
	if g.Paused(true) || g.Paused(false) {
		t.Fatal("paused before any pause")
	}
	g.Pause(PauseWrite, t0+1000)
	if !g.Paused(true) || g.Paused(false) {
		t.Errorf("WRITE: writes %v, reads %v", g.Paused(true), g.Paused(false))
	}
	// A second pause keeps the stricter mode and the later end.
	g.Pause(PauseAll, t0+500)
	if !g.Paused(false) {
		t.Error("ALL over WRITE: reads run")
	}
	g.Pause(PauseWrite, t0+2000)
	if !g.Paused(false) {
		t.Error("WRITE after ALL loosened the pause")
	}
	clock.Advance(2000 * time.Millisecond) // at the end: still in force
	if !g.Paused(false) {
		t.Error("over at its end, not after")
	}
	clock.Advance(time.Millisecond)
	if g.Paused(true) {
		t.Error("in force after its end")
	}
	// An end in the past pauses nothing.
	g.Pause(PauseAll, t0)
	if g.Paused(true) {
		t.Error("a past end paused")
	}
	g.Pause(PauseAll, clock.NowMs()+100)
	g.Unpause()
	if g.Paused(true) {
		t.Error("in force after Unpause")
	}
}

// TestPausePurposes: each purpose lifts only its own pause; the pause in
// force is the strictest, and when a stricter one ends the others still
// hold, the clients it alone held being woken.
func TestPausePurposes(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	g := e.Gate()
	g.PauseFor(PauseDuringFailover, PauseWrite, 1<<62)
	g.Pause(PauseAll, clock.NowMs()+50)
	if !g.Paused(false) {
		t.Fatal("ALL over the failover's WRITE: reads run")
	}
	woken := make(chan struct{}, 1)
	g.WhenUnpaused(func() { woken <- struct{}{} })
	clock.Advance(51 * time.Millisecond)
	if g.Paused(false) || !g.Paused(true) {
		t.Errorf("after CLIENT PAUSE's end: reads %v, writes %v", g.Paused(false), g.Paused(true))
	}
	select {
	case <-woken:
	case <-time.After(5 * time.Second):
		t.Fatal("a client held by the ended ALL was not woken")
	}
	g.Pause(PauseWrite, clock.NowMs()+60_000)
	g.UnpauseFor(PauseDuringFailover)
	if !g.Paused(true) {
		t.Error("the failover's end lifted CLIENT PAUSE")
	}
	g.PauseFor(PauseDuringFailover, PauseWrite, 1<<62)
	g.Unpause()
	if !g.Paused(true) {
		t.Error("CLIENT UNPAUSE lifted the failover's pause")
	}
	g.UnpauseFor(PauseDuringFailover)
	if g.Paused(true) {
		t.Error("paused with no purpose left")
	}
}

func TestPauseWakes(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	g := e.Gate()
	woken := make(chan string, 4)
	g.WhenUnpaused(func() { woken <- "none" })
	if got := <-woken; got != "none" {
		t.Fatal(got)
	}
	g.Pause(PauseAll, t0+60_000)
	g.WhenUnpaused(func() { woken <- "unpause" })
	select {
	case got := <-woken:
		t.Fatalf("woken while paused: %s", got)
	case <-time.After(20 * time.Millisecond):
	}
	g.Unpause()
	if got := <-woken; got != "unpause" {
		t.Fatal(got)
	}
	// The end: the timer looks again while the clock has not got there.
	g.Pause(PauseWrite, clock.NowMs()+5)
	g.WhenUnpaused(func() { woken <- "end" })
	select {
	case got := <-woken:
		t.Fatalf("woken before the end: %s", got)
	case <-time.After(30 * time.Millisecond):
	}
	clock.Advance(10 * time.Millisecond)
	select {
	case got := <-woken:
		if got != "end" {
			t.Fatal(got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not woken at the end")
	}
}

// TestPauseKeepsTheDataset: while paused, an expired key is reported
// missing but stays, the active cycle and eviction do nothing; a write
// over the expired key replaces it (no duplicate), and after the pause
// reads reclaim again.
func TestPauseKeepsTheDataset(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	for _, k := range []string{"a", "b", "c"} {
		if _, err := d.Set(bs(k), bs("v"), SetOptions{TTL: TTLSet, ExpireAt: t0 + 10}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Second)
	e.Gate().Pause(PauseWrite, clock.NowMs()+60_000)
	if _, ok, _ := d.Get(bs("a")); ok {
		t.Error("an expired key read during the pause")
	}
	if n := e.ActiveExpireCycle(time.Second); n != 0 {
		t.Errorf("the active cycle reclaimed %d keys during the pause", n)
	}
	if d.Size() != 3 || e.Stats().ExpiredKeys != 0 {
		t.Errorf("during the pause: DBSIZE %d, expired %d", d.Size(), e.Stats().ExpiredKeys)
	}
	e.SetMaxMemory(1)
	e.SetEviction(Eviction{Policy: AllKeysLRU, Samples: 5})
	if !e.FreeMemory() || d.Size() != 3 {
		t.Errorf("eviction during the pause: DBSIZE %d", d.Size())
	}
	e.SetMaxMemory(0)
	if _, err := d.Set(bs("b"), bs("new"), SetOptions{}); err != nil {
		t.Fatal(err)
	}
	if it, ok, _ := d.Get(bs("b")); !ok || string(it.Value) != "new" || d.Size() != 3 {
		t.Errorf("a write over an expired key: %q %v, DBSIZE %d", it.Value, ok, d.Size())
	}
	e.Gate().Unpause()
	if _, ok, _ := d.Get(bs("a")); ok || d.Size() != 2 {
		t.Errorf("after the pause: found %v, DBSIZE %d", ok, d.Size())
	}
	if n := e.ActiveExpireCycle(time.Second); n != 1 || d.Size() != 1 {
		t.Errorf("after the pause the cycle reclaimed %d, DBSIZE %d", n, d.Size())
	}
}

func TestSetActiveExpire(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	if _, err := d.Set(bs("a"), bs("v"), SetOptions{TTL: TTLSet, ExpireAt: t0 + 10}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	e.SetActiveExpire(false)
	if n := e.ActiveExpireCycle(time.Second); n != 0 || d.Size() != 1 {
		t.Errorf("the cycle is off but reclaimed %d", n)
	}
	e.SetActiveExpire(true)
	if n := e.ActiveExpireCycle(time.Second); n != 1 || d.Size() != 0 {
		t.Errorf("the cycle is on again: reclaimed %d, DBSIZE %d", n, d.Size())
	}
}
