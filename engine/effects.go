package engine

// Effects: the append-only file and the replicas receive every write in
// Redis command form, in the order the writes were made (package
// propagate). The front-ends propagate their commands; the engine tells
// what no command asked for — a key removed because it expired (found by
// a command or by the active cycle) or because it was evicted — which
// Redis propagates as a DEL (or UNLINK). And it counts each handle's
// writes, so a front-end propagates a write command only when it changed
// something, as Redis's call() does by server.dirty.

// EffectHook hears of the keys the engine removes on its own, and
// orders the engine's own background writes with the commands' writes.
type EffectHook interface {
	// Removed reports key of database db removed because it expired or
	// (evicted) to make room. It runs under the key's shard lock: it must
	// not block nor call into the engine; key is valid only during the
	// call.
	Removed(db int, key []byte, evicted bool)
	// Lock and Unlock bracket the active expiry cycle's removals, as a
	// front-end brackets a write command and its propagation: a command's
	// write and the cycle's DEL of the same key reach the stream in the
	// order they were made.
	Lock()
	Unlock()
	// Served reports a hand-off no command's handle collected (blocked
	// clients served at the end of an exclusive section, or when a
	// waiter left): fed at once, under the key's shard lock.
	Served(h Handoff)
}

// Handoff is what a write served to a blocked client: Count elements
// (negative: the single-element form, BLPOP's) popped from Key by Event
// ("lpop", "rpop", "zpopmin", "zpopmax"), the form a write stream
// propagates it in, after the write that served it. Or, with Group, a
// blocked XREADGROUP's read of stream Key and what it did to the group.
type Handoff struct {
	DB    int
	Key   []byte
	Event string
	Count int
	Group *StreamGroupEffects
}

// poppedCount is the count a hand-off to w propagates with: the elements
// it took, or -1 for the single-element form.
func (w *Waiter) poppedCount() int {
	if w.popCount < 0 {
		return -1
	}
	switch r := w.result.(type) {
	case *ListPopResult:
		return len(r.Values)
	case *ZPopResult:
		return len(r.Members)
	}
	return w.popCount
}

// handedOff records h for the handle's command (its WriteCounter), or
// reports it to the hook when the handle has none.
func (d DB) handedOff(h Handoff) {
	if d.writes != nil {
		h.Key = append([]byte(nil), h.Key...)
		d.writes.handoffs = append(d.writes.handoffs, h)
		return
	}
	if b := d.e.effects.Load(); b != nil {
		b.h.Served(h)
	}
}

type effectBox struct{ h EffectHook }

// SetEffectHook installs the hook; nil removes it.
func (e *Engine) SetEffectHook(h EffectHook) {
	if h == nil {
		e.effects.Store(nil)
		return
	}
	e.effects.Store(&effectBox{h})
}

// effectHook is the installed hook, nil without one.
func (e *Engine) effectHook() EffectHook {
	if b := e.effects.Load(); b != nil {
		return b.h
	}
	return nil
}

// removed reports a removal to the hook, under the key's shard lock.
func (e *Engine) removed(db int, key []byte, evicted bool) {
	if b := e.effects.Load(); b != nil {
		b.h.Removed(db, key, evicted)
	}
}

// WriteCounter counts the writes made through the handles that carry it
// (CountWrites): a front-end reads it before and after a command to know
// whether the command changed the keyspace. It is the count of one
// connection, used only by that connection's goroutine.
type WriteCounter struct {
	n        uint64
	handoffs []Handoff
}

// TakeHandoffs returns the hand-offs the counted handles' writes made to
// blocked clients since the last call, and forgets them.
func (w *WriteCounter) TakeHandoffs() []Handoff {
	h := w.handoffs
	w.handoffs = w.handoffs[:0:0]
	return h
}

// Count returns the writes counted so far.
func (w *WriteCounter) Count() uint64 { return w.n }

// CountWrites returns the handle counting its writes into w (nil: none).
func (d DB) CountWrites(w *WriteCounter) DB {
	d.writes = w
	return d
}

// wrote counts one write through d.
func (d DB) wrote() {
	if d.writes != nil {
		d.writes.n++
	}
}
