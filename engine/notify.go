package engine

import "sync/atomic"

// Keyspace notifications (Redis's notify-keyspace-events).
//
// The engine does not format or deliver events: the binary installs a Sink
// (SetNotifySink) that builds Redis's channel names and publishes, and the
// enabled classes (SetNotifyFlags), which follow the configuration at run
// time. Whoever changes a key reports it through DB.Notify: the front-ends
// for their commands' events (each command emits what Redis's does, in the
// same order), the engine itself for the changes only it sees:
//
//   - "expired" (ClassExpired) when it removes an expired key, on access
//     (lazy expiry) or in ActiveExpireCycle;
//   - "del" when an operation removes the last element of a list, set,
//     sorted set or hash, and so the key: Redis reports it after the
//     command's own event ("lpop" then "del"), so it is queued on the
//     handle's EventQueue, which the front-end flushes after the command;
//   - the pops a blocked client receives when a push hands it elements
//     ("lpop"/"rpop", "zpopmin"/"zpopmax", then "del" if the key emptied).
//     Redis serves blocked clients after the pushing command, so these
//     are queued the same way.
//   - "evicted" (ClassEvicted) when maxmemory eviction removes a key
//     (evict.go reports it right after the removal, with the shard still
//     locked, as reclaim does for "expired").
//
// Notify is on the hot path of every write: with notifications off it is
// one atomic load and a branch.

// Class is an event class; the values are Redis's NOTIFY_* bits (and
// conf.NotifyFlags's), so a configured flag set converts directly.
type Class uint32

// Event classes and the two delivery flags.
const (
	ClassKeyspace Class = 1 << 0  // K: publish on __keyspace@<db>__:<key>
	ClassKeyevent Class = 1 << 1  // E: publish on __keyevent@<db>__:<event>
	ClassGeneric  Class = 1 << 2  // g: DEL, EXPIRE, RENAME…
	ClassString   Class = 1 << 3  // $
	ClassList     Class = 1 << 4  // l
	ClassSet      Class = 1 << 5  // s
	ClassHash     Class = 1 << 6  // h
	ClassZSet     Class = 1 << 7  // z
	ClassExpired  Class = 1 << 8  // x
	ClassEvicted  Class = 1 << 9  // e
	ClassStream   Class = 1 << 10 // t
	ClassKeyMiss  Class = 1 << 11 // m
	ClassModule   Class = 1 << 13 // d
	ClassNew      Class = 1 << 14 // n
)

// Event is one keyspace notification handed to the Sink.
type Event struct {
	DB   int
	Name string // "set", "del", "expired"…
	// Key is only valid during the Sink call: copy it to keep it.
	Key []byte
	// Keyspace and Keyevent say which of the two channels to publish on.
	Keyspace, Keyevent bool
}

// Sink delivers events. It may run with a shard lock held ("expired" is
// reported under the lock of the expired key's shard): it must not call
// back into the engine, and it must not block for long.
type Sink func(ev Event)

// notifier is the engine's notification state.
type notifier struct {
	// mask holds the enabled classes, or 0 when nothing would be
	// delivered (no sink, or neither K nor E set).
	mask  atomic.Uint32
	flags atomic.Uint32 // as configured
	sink  atomic.Pointer[Sink]
}

// EventQueue holds the events a DB handle's operations report for after
// the command's own: a key an operation emptied and removed ("del" comes
// after the command's "lpop", "srem"…), and what blocked clients served by
// a push popped (Redis serves them after the pushing command). A front-end
// gives each connection one (DB.WithEvents) and calls Flush once the
// command has emitted its own events. A handle without a queue delivers
// them at once. A queue belongs to one goroutine.
//
// The queue also holds the wake-ups of the blocked clients a command
// served, run by Flush after the events: a woken client's next commands
// (or a BLMOVE's retry) then report their events after the command that
// woke it, as in Redis, where the served client runs after it.
type EventQueue struct {
	// Origin names the connection the queue belongs to (a client ID):
	// the changes made through a handle with this queue carry it to the
	// change hook (track.go), for client tracking's NOLOOP. 0: none.
	Origin uint64

	e     *Engine
	evs   []queuedEvent
	wakes []func()
}

type queuedEvent struct {
	db    int
	class Class
	name  string
	key   string
}

// WithEvents returns the handle with q as its event queue.
func (d DB) WithEvents(q *EventQueue) DB {
	q.e = d.e
	d.events = q
	return d
}

// Flush delivers the queued events in order, then runs the queued
// wake-ups, and empties the queue. It must not be called with a shard
// locked.
func (q *EventQueue) Flush() {
	if len(q.evs) == 0 && len(q.wakes) == 0 {
		return
	}
	for i := range q.evs {
		ev := &q.evs[i]
		q.e.deliver(ev.db, ev.class, ev.name, []byte(ev.key))
	}
	clear(q.evs)
	q.evs = q.evs[:0]
	for i, wake := range q.wakes {
		q.wakes[i] = nil
		wake()
	}
	q.wakes = q.wakes[:0]
}

// wakeLater wakes a served waiter's owner: at the queue's Flush, or now
// for a handle without a queue. wake must not block (Waiter.wake).
func (d DB) wakeLater(wake func()) {
	if d.events == nil {
		wake()
		return
	}
	d.events.wakes = append(d.events.wakes, wake)
}

// notifyLater reports an event that must follow the running command's own
// events: queued on the handle's EventQueue, or delivered now without one.
func (d DB) notifyLater(class Class, name string, key []byte) {
	if d.e.notify.mask.Load()&uint32(class) == 0 {
		return
	}
	if d.events == nil {
		d.e.deliver(d.num, class, name, key)
		return
	}
	d.events.evs = append(d.events.evs, queuedEvent{db: d.num, class: class, name: name, key: string(key)})
}

// SetNotifySink installs the function that delivers events; nil removes it.
func (e *Engine) SetNotifySink(s Sink) {
	if s == nil {
		e.notify.sink.Store(nil)
	} else {
		e.notify.sink.Store(&s)
	}
	e.updateNotifyMask()
}

// SetNotifyFlags sets the enabled classes and delivery flags (the value of
// notify-keyspace-events, whose bits Class shares).
func (e *Engine) SetNotifyFlags(flags uint32) {
	e.notify.flags.Store(flags)
	e.updateNotifyMask()
}

// NotifyFlags returns the flags SetNotifyFlags set.
func (e *Engine) NotifyFlags() uint32 { return e.notify.flags.Load() }

func (e *Engine) updateNotifyMask() {
	f := e.notify.flags.Load()
	if e.notify.sink.Load() == nil || f&uint32(ClassKeyspace|ClassKeyevent) == 0 {
		f = 0
	}
	e.notify.mask.Store(f)
}

// Notify reports that event name of class happened to key in this
// database, as Redis's notifyKeyspaceEvent. It delivers it at once when the
// class is enabled.
func (d DB) Notify(class Class, name string, key []byte) {
	if d.e.notify.mask.Load()&uint32(class) == 0 {
		return
	}
	d.e.deliver(d.num, class, name, key)
}

// NotifyEnabled reports whether events of class are delivered, for callers
// that would otherwise do work to find the keys.
func (d DB) NotifyEnabled(class Class) bool {
	return d.e.notify.mask.Load()&uint32(class) != 0
}

func (e *Engine) deliver(db int, class Class, name string, key []byte) {
	m := e.notify.mask.Load()
	if m&uint32(class) == 0 {
		return
	}
	sp := e.notify.sink.Load()
	if sp == nil {
		return
	}
	(*sp)(Event{DB: db, Name: name, Key: key,
		Keyspace: m&uint32(ClassKeyspace) != 0, Keyevent: m&uint32(ClassKeyevent) != 0})
}

// notifyExpired reports the removal of an expired key. The caller holds
// the key's shard lock and passes the key's bytes before removing it.
func (e *Engine) notifyExpired(db int, key []byte) {
	if e.notify.mask.Load()&uint32(ClassExpired) == 0 {
		return
	}
	e.deliver(db, ClassExpired, "expired", key)
}
