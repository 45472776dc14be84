package engine

import (
	"sync"
	"sync/atomic"
)

// Blocked clients (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH; BZPOPMIN and
// friends use the same machinery).
//
// A blocking command that finds nothing queues a Waiter on each of its keys,
// in the key's shard, under the same lock as the check that found nothing,
// so no push can slip between the two. Every write that may make a key hold
// something (a push, LMOVE into it, RENAME/COPY/MOVE onto it, SWAPDB, the
// end of any multi-key command) then serves the key's queue, still under
// the shard lock and after the write is complete:
//
//   - A waiter with a hand-off (single-key pops) takes what it wants on the
//     spot: the elements move from the value into the waiter's result and
//     the waiter's client is woken to write the reply. Serving continues
//     with the next waiter while the value lasts, so RPUSH l a b c with two
//     BLPOP clients gives each one element, first blocked first served.
//   - A retry waiter (BLMOVE: a second key, maybe in another shard, whose
//     lock must not be taken out of order) is only woken; its command runs
//     again with proper locking and keeps its place in the queue until it
//     succeeds. Serving stops behind it, so later waiters are not served
//     before it; its own success (or its leaving) serves the rest.
//
// A waiter queued on several keys is served by one of them only: its state
// changes from waiting to served (or cancelled, on timeout or disconnect)
// once, under its own mutex, which is always taken after a shard lock. Its
// places in the other queues are then stale: serving skips and drops them,
// and the owner removes them (Done, Cancel) one shard at a time.
//
// Waiters live in the shard, not in shardData: SWAPDB exchanges the data of
// two databases, while a client blocked on key k in database 0 stays
// blocked on k in database 0.

type waiterState uint8

const (
	waiting   waiterState = iota
	served                // a hand-off filled the result, or the owner finished
	cancelled             // timed out or disconnected
)

// Waiter is one blocked command. The front-end creates one when a
// blocking command may have to wait, passes it to the type's blocking call
// (BLPopEnd, BLMove…), and once the command completes calls Done
// or Cancel. Methods other than wake's effects run on the owner's goroutine.
type Waiter struct {
	e *Engine
	// wake asks the owner to look again. It is called from any goroutine,
	// possibly with a shard locked: it must return at once and must not
	// call into the engine (server.Peer.Wake qualifies).
	wake func()
	db   DB
	typ  Type // the type of value it waits for
	// take is the hand-off, run under the key's shard lock on a non-empty
	// value of type typ: it removes what the command wants and stores it in
	// result. nil makes a retry waiter.
	take func(key []byte, a aggregate)
	// offer is a hand-off that may decline (streams: XREAD waits for an
	// entry past its ID, and a stream may get others): it reports
	// whether it served the waiter and whether it changed the value
	// (XREADGROUP's PEL), and what a group read did to its group (the
	// hand-off propagated). A waiter it declines stays queued, and
	// serving goes on with the next one.
	offer func(key []byte, a aggregate) (served, changed bool, group *StreamGroupEffects)
	// gone, set for XREADGROUP, answers the waiter when its key stopped
	// being a stream (deleted, overwritten, flushed, swapped away): the
	// group it reads from went with it, and Redis unblocks such clients
	// at once instead of waiting for an XADD that could only fail.
	gone func()
	// popClass and popEvent name what a hand-off does to the key, for the
	// keyspace notification ("lpop", "zpopmin"…).
	popClass Class
	popEvent string
	popCount int        // the count a hand-off takes; negative: one element (BLPOP)
	regs     []*waitReg // its places in queues; the owner's only
	// nudged: a retry waiter was woken and has not retried since, so more
	// pushes need not wake it again (a busy queue would flood its loop).
	nudged atomic.Bool

	mu     sync.Mutex
	state  waiterState
	result any
}

// waitReg is a waiter's place in one key's queue.
type waitReg struct {
	w          *Waiter
	key        string
	h          uint64
	si         int        // global shard index
	q          *waitQueue // nil once out of the queue
	prev, next *waitReg
}

// waitQueue is the FIFO of the waiters of one key.
type waitQueue struct{ head, tail *waitReg }

// NewWaiter returns a waiter whose owner is woken by wake.
func (e *Engine) NewWaiter(wake func()) *Waiter { return &Waiter{e: e, wake: wake} }

// Result returns what a hand-off gave the waiter, or nil.
func (w *Waiter) Result() any {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state != served {
		return nil
	}
	return w.result
}

// Queued reports whether the waiter waits in some key's queue.
func (w *Waiter) Queued() bool { return len(w.regs) > 0 }

// Cancel ends the wait (timeout, disconnect) and takes the waiter out of
// every queue. It returns false when a hand-off came first: the caller
// then owns Result and should deliver it.
func (w *Waiter) Cancel() bool {
	w.mu.Lock()
	ok := w.state == waiting
	if ok {
		w.state = cancelled
	}
	w.mu.Unlock()
	w.release()
	return ok
}

// Done takes a waiter whose command completed out of every queue.
func (w *Waiter) Done() {
	w.finish()
	w.release()
}

// finish marks the waiter done so that queues skip it.
func (w *Waiter) finish() {
	w.mu.Lock()
	if w.state == waiting {
		w.state = served
	}
	w.mu.Unlock()
}

// release removes the waiter from its queues, one shard lock at a time. A
// queue it leaves may hold others that it kept waiting (a retry waiter at
// the front): they are served.
func (w *Waiter) release() {
	regs := w.regs
	w.regs = nil
	for _, r := range regs {
		s := &w.e.shards[r.si]
		s.lock()
		if r.q != nil {
			s.unlinkWaiter(r)
			if s.waiters[r.key] != nil {
				w.db.serveWaitersLocked(s, []byte(r.key), r.h, w.e.clock.NowMs())
			}
		}
		s.unlock()
	}
}

// register queues w on key i of a transaction, once per key.
func (tx *KeyTx) register(i int, w *Waiter) {
	key, si := tx.keys[i], tx.idx[i]
	for _, r := range w.regs {
		if r.si == si && r.key == string(key) {
			return
		}
	}
	s := tx.shard(i)
	w.db = tx.d
	r := &waitReg{w: w, key: string(key), h: tx.hashes[i], si: si}
	if s.waiters == nil {
		s.waiters = make(map[string]*waitQueue)
	}
	q := s.waiters[r.key]
	if q == nil {
		q = &waitQueue{}
		s.waiters[r.key] = q
	}
	r.q, r.prev = q, q.tail
	if q.tail != nil {
		q.tail.next = r
	} else {
		q.head = r
	}
	q.tail = r
	w.regs = append(w.regs, r)
}

// unlinkWaiter takes r out of its queue; an emptied queue is dropped.
func (s *shard) unlinkWaiter(r *waitReg) {
	q := r.q
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		q.head = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	} else {
		q.tail = r.prev
	}
	r.prev, r.next, r.q = nil, nil, nil
	if q.head == nil {
		delete(s.waiters, r.key)
	}
}

// serveWaitersLocked serves the clients blocked on key, first blocked
// first, after a write that may have given it a value. The shard is locked.
// Hand-offs change the value like a command would: memory, dirty counter,
// CAS, and deletion when it empties.
func (d DB) serveWaitersLocked(s *shard, key []byte, h uint64, now int64) {
	if len(s.waiters) == 0 {
		return
	}
	q := s.waiters[string(key)]
	if q == nil || d.e.gate.deferServe(d.num, key) {
		return
	}
	slot := d.find(s, key, h, now)
	if slot < 0 || s.entries[slot].typ != TypeStream {
		if q = d.serveGoneLocked(s, key); q == nil {
			return
		}
	}
	if slot < 0 {
		return
	}
	typ := s.entries[slot].typ
	a := s.aggOf(slot)
	if a == nil || a.length() == 0 {
		return
	}
	for r := q.head; r != nil; {
		next := r.next
		w := r.w
		if w.typ != typ {
			r = next
			continue
		}
		w.mu.Lock()
		if w.state != waiting {
			w.mu.Unlock()
			s.unlinkWaiter(r)
			r = next
			continue
		}
		if w.take == nil && w.offer == nil {
			w.mu.Unlock()
			if !w.nudged.Swap(true) {
				d.wakeLater(w.wake)
			}
			return
		}
		before := a.memSize()
		if w.offer != nil {
			ok, changed, group := w.offer(key, a)
			if ok {
				w.state = served
			}
			w.mu.Unlock()
			if group != nil {
				d.handedOff(Handoff{DB: d.num, Key: key, Group: group})
			}
			if ok {
				s.unlinkWaiter(r)
				d.wakeLater(w.wake)
			}
			if changed {
				s.account(a.memSize() - before)
				s.changed(1)
				en := &s.entries[slot]
				d.e.newVersion(&s.shardData, en)
				d.e.onWrite(&s.shardData, en, now)
			}
			r = next
			continue
		}
		w.take(key, a)
		d.notifyLater(w.popClass, w.popEvent, key)
		d.handedOff(Handoff{DB: d.num, Key: key, Event: w.popEvent, Count: w.poppedCount()})
		w.state = served
		w.mu.Unlock()
		s.unlinkWaiter(r)
		d.wakeLater(w.wake)
		s.account(a.memSize() - before)
		s.changed(1)
		if a.length() == 0 {
			s.remove(slot, h)
			d.notifyLater(ClassGeneric, "del", key)
			return
		}
		en := &s.entries[slot]
		en.enc = a.encoding()
		d.e.newVersion(&s.shardData, en)
		d.e.onWrite(&s.shardData, en, now)
		r = next
	}
}

// serveGoneLocked answers the XREADGROUP waiters of key, which is no
// longer a stream, as Redis's unblockDeletedStreamReadgroupClients: first
// blocked first, other waiters left queued. It returns the key's queue
// afterwards (nil once empty). The shard is locked.
func (d DB) serveGoneLocked(s *shard, key []byte) *waitQueue {
	q := s.waiters[string(key)]
	for r := q.head; r != nil; {
		next := r.next
		w := r.w
		if w.gone == nil {
			r = next
			continue
		}
		w.mu.Lock()
		ok := w.state == waiting
		if ok {
			w.gone()
			w.state = served
		}
		w.mu.Unlock()
		s.unlinkWaiter(r)
		if ok {
			d.wakeLater(w.wake)
		}
		r = next
	}
	return s.waiters[string(key)]
}

// serveDroppedStreams is run as the shard unlocks after a stream left it
// (DEL, an overwrite, expiry, eviction, a flush): the XREADGROUP waiters
// of keys that are no longer streams are answered (serveGoneLocked),
// after the whole operation as Redis does after the command, so a key
// replaced by another stream (RENAME, RESTORE REPLACE) is left to the
// operation's own serving, which checks the group.
func (s *shard) serveDroppedStreams() {
	d := s.eng.DB(s.db)
	now := s.eng.clock.NowMs()
	for key, q := range s.waiters {
		hasGone := false
		for r := q.head; r != nil && !hasGone; r = r.next {
			hasGone = r.w.gone != nil
		}
		if !hasGone {
			continue
		}
		k := []byte(key)
		if d.e.gate.deferServe(d.num, k) {
			continue
		}
		if slot := d.find(s, k, q.head.h, now); slot >= 0 && s.entries[slot].typ == TypeStream {
			continue
		}
		d.serveGoneLocked(s, k)
	}
}

// serveKeysLocked serves the waiters of a transaction's keys, at its end.
func (tx *KeyTx) serveKeysLocked() {
	for i, k := range tx.keys {
		tx.d.serveWaitersLocked(tx.shard(i), k, tx.hashes[i], tx.now)
	}
}

// serveAllLocked serves every queue of the given (locked) shards: after
// SWAPDB brought other values under the waiters' keys.
func (e *Engine) serveAllLocked(shards []int) {
	now := e.clock.NowMs()
	for _, si := range shards {
		s := &e.shards[si]
		if len(s.waiters) == 0 {
			continue
		}
		d := e.DB(si / e.perDB)
		var keys []*waitReg
		for _, q := range s.waiters {
			keys = append(keys, q.head)
		}
		for _, r := range keys {
			d.serveWaitersLocked(s, []byte(r.key), r.h, now)
		}
	}
}

// Waiting returns how many (blocked client, key) waits are queued in the
// whole keyspace. It locks every shard: for tests and diagnostics.
func (e *Engine) Waiting() int {
	n := 0
	for i := range e.shards {
		s := &e.shards[i]
		s.lock()
		for _, q := range s.waiters {
			for r := q.head; r != nil; r = r.next {
				n++
			}
		}
		s.unlock()
	}
	return n
}
