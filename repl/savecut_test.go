package repl

import (
	"strings"
	"testing"
	"time"
)

// TestSaveCutPausesTheApplyLoop: on a replica a save's cut waits for the
// apply loop to pause between commands and holds it until at, so the
// offset recorded is exactly what the dump holds; a save the loop runs
// itself (it holds its read lock) goes on after saveCutPatience rather
// than waiting for itself, and the gate is free again after.
func TestSaveCutPausesTheApplyLoop(t *testing.T) {
	p, _ := testPrimary(t, nil)
	p.mu.Lock()
	p.replica = &Replica{p: p, state: replConnected, db: 5}
	p.replid, p.offset = strings.Repeat("d", 40), 777
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.replica = nil
		p.mu.Unlock()
	}()

	at, release := p.SaveCut()
	applied := make(chan struct{})
	go func() { // the apply loop's next batch
		p.gate.RLock()
		close(applied)
		p.gate.RUnlock()
	}()
	select {
	case <-applied:
		t.Fatal("the apply loop ran during the save's cut")
	case <-time.After(50 * time.Millisecond):
	}
	c, ok := at()
	if !ok || c.Offset != 777 || c.StreamDB != 5 || c.ReplID != strings.Repeat("d", 40) {
		t.Fatalf("at = %+v %v", c, ok)
	}
	<-applied
	release() // idempotent after at

	// The apply loop saving itself.
	p.gate.RLock()
	start := time.Now()
	at, release = p.SaveCut()
	if _, ok := at(); !ok {
		t.Fatal("no position")
	}
	release()
	if waited := time.Since(start); waited < saveCutPatience || waited > saveCutPatience+time.Second {
		t.Errorf("the self-save waited %v, want about %v", waited, saveCutPatience)
	}
	p.gate.RUnlock()
	free := make(chan struct{})
	go func() {
		p.gate.Lock()
		p.gate.Unlock()
		close(free)
	}()
	select {
	case <-free:
	case <-time.After(time.Second):
		t.Fatal("the gate stayed locked after the self-save")
	}
}
