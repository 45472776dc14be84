package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// eventLog is a Sink that records events as "db:name:key", plus which
// channels each asked for.
type eventLog struct {
	events   []string
	channels []string
}

func (l *eventLog) sink(ev Event) {
	l.events = append(l.events, fmt.Sprintf("%d:%s:%s", ev.DB, ev.Name, ev.Key))
	var ch string
	if ev.Keyspace {
		ch += "K"
	}
	if ev.Keyevent {
		ch += "E"
	}
	l.channels = append(l.channels, ch)
}

func (l *eventLog) take() []string {
	out := l.events
	l.events, l.channels = nil, nil
	return out
}

// notifyEngine is a test engine with a recording sink and every class on.
func notifyEngine(t *testing.T) (*Engine, *ManualClock, *eventLog) {
	e, clock := newTestEngine(t, 2)
	log := &eventLog{}
	e.SetNotifySink(log.sink)
	e.SetNotifyFlags(uint32(ClassKeyspace | ClassKeyevent | ClassGeneric | ClassString | ClassList |
		ClassSet | ClassHash | ClassZSet | ClassExpired))
	return e, clock, log
}

func expectEvents(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: events %q, want %q", what, got, want)
	}
}

func TestNotifyLazyExpiry(t *testing.T) {
	e, clock, log := notifyEngine(t)
	d := e.DB(2)
	mustSet(t, d, "k", "v", SetOptions{TTL: TTLSet, ExpireAt: t0 + 1000})
	mustSet(t, d, "p", "v", SetOptions{})
	clock.Advance(time.Second)
	getString(t, d, "k") // its last millisecond: still there
	expectEvents(t, "read in the expire millisecond", log.take())
	clock.Advance(time.Millisecond)
	if getString(t, d, "k") != "<nil>" {
		t.Fatal("expired key read")
	}
	expectEvents(t, "read after expiry", log.take(), "2:expired:k")
	getString(t, d, "k")
	getString(t, d, "p")
	expectEvents(t, "second read and a persistent key", log.take())

	// Every access that reclaims reports it, in the database of the key.
	d0 := e.DB(0)
	mustSet(t, d0, "x", "1", SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + 5})
	clock.Advance(time.Second)
	if n, _ := d0.IncrBy(bs("x"), 1); n != 1 {
		t.Fatalf("INCR on an expired key gave %d", n)
	}
	expectEvents(t, "write on an expired key", log.take(), "0:expired:x")
	if log.channels != nil {
		t.Fatal("take did not reset")
	}
	if st := e.Stats(); st.ExpiredKeys != 2 {
		t.Errorf("ExpiredKeys %d", st.ExpiredKeys)
	}
}

func TestNotifyActiveExpiry(t *testing.T) {
	e, clock, log := notifyEngine(t)
	var want []string
	for db := 0; db < 4; db++ {
		for i := 0; i < 50; i++ {
			key := fmt.Sprintf("k%d", i)
			mustSet(t, e.DB(db), key, "v", SetOptions{TTL: TTLSet, ExpireAt: t0 + 100})
			want = append(want, fmt.Sprintf("%d:expired:%s", db, key))
		}
		mustSet(t, e.DB(db), "keep", "v", SetOptions{})
	}
	if n := e.ActiveExpireCycle(time.Second); n != 0 || len(log.events) != 0 {
		t.Fatalf("cycle before the deadline: %d reclaimed, events %q", n, log.events)
	}
	clock.Advance(time.Second)
	reclaimed, _ := runCyclesUntil(e, time.Second, 1000, func() bool { return len(log.events) >= len(want) })
	got := log.take()
	sort.Strings(got)
	sort.Strings(want)
	if reclaimed != len(want) || !slices.Equal(got, want) {
		t.Errorf("reclaimed %d; events (sorted) %q\nwant %q", reclaimed, got, want)
	}
}

func TestNotifyFlagsAndSink(t *testing.T) {
	e, clock := newTestEngine(t, 2)
	d := e.DB(0)
	log := &eventLog{}
	expire := func(key string) {
		mustSet(t, d, key, "v", SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + 1})
		clock.Advance(time.Second)
		getString(t, d, key)
	}
	// Flags without a sink, or a sink without K or E, deliver nothing.
	e.SetNotifyFlags(uint32(ClassKeyspace | ClassExpired))
	expire("a")
	e.SetNotifySink(log.sink)
	e.SetNotifyFlags(uint32(ClassExpired))
	expire("b")
	d.Notify(ClassGeneric, "del", bs("b"))
	expectEvents(t, "no K nor E", log.take())
	if d.NotifyEnabled(ClassExpired) {
		t.Error("enabled without K or E")
	}
	// K alone, then E alone: the event says which channels.
	e.SetNotifyFlags(uint32(ClassKeyspace | ClassExpired))
	expire("c")
	d.Notify(ClassGeneric, "del", bs("c")) // class g is off
	if !slices.Equal(log.channels, []string{"K"}) {
		t.Errorf("channels %q, want K", log.channels)
	}
	expectEvents(t, "K x", log.take(), "0:expired:c")
	e.SetNotifyFlags(uint32(ClassKeyevent | ClassGeneric))
	expire("d")
	d.Notify(ClassGeneric, "del", bs("d"))
	if !slices.Equal(log.channels, []string{"E"}) {
		t.Errorf("channels %q, want E", log.channels)
	}
	expectEvents(t, "E g", log.take(), "0:del:d")
	if e.NotifyFlags() != uint32(ClassKeyevent|ClassGeneric) {
		t.Errorf("NotifyFlags %b", e.NotifyFlags())
	}
	e.SetNotifySink(nil)
	d.Notify(ClassGeneric, "del", bs("d"))
	expectEvents(t, "sink removed", log.take())
}

// Events an operation reports for after the command's own ("del" of an
// emptied aggregate, hand-offs to blocked clients) wait in the handle's
// queue until Flush; without a queue they are delivered at once.
func TestNotifyQueue(t *testing.T) {
	e, _, log := notifyEngine(t)
	var q EventQueue
	d := e.DB(1).WithEvents(&q)
	if _, err := d.LPushEnd(bs("l"), ListRight, [][]byte{bs("a"), bs("b")}, false); err != nil {
		t.Fatal(err)
	}
	pop := func(d DB) {
		if _, err := d.LPopEnd(bs("l"), ListLeft, 5, func(int, int, []byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	pop(d)
	expectEvents(t, "before Flush", log.take())
	d.Notify(ClassList, "lpop", bs("l")) // the command's own event
	q.Flush()
	expectEvents(t, "after Flush", log.take(), "1:lpop:l", "1:del:l")
	q.Flush()
	expectEvents(t, "second Flush", log.take())

	d.LPushEnd(bs("l"), ListRight, [][]byte{bs("a")}, false)
	pop(e.DB(1))
	expectEvents(t, "no queue", log.take(), "1:del:l")

	// A *STORE whose empty result deletes the destination reports "del",
	// only when there was one.
	d.SAdd(bs("{s}a"), [][]byte{bs("1")}, defSetLimits)
	d.SAdd(bs("{s}dst"), [][]byte{bs("x")}, defSetLimits)
	for range 2 {
		if _, err := d.SCombineStore(SetInter, bs("{s}dst"), [][]byte{bs("{s}a"), bs("{s}none")}, defSetLimits); err != nil {
			t.Fatal(err)
		}
	}
	q.Flush()
	expectEvents(t, "empty SINTERSTORE twice", log.take(), "1:del:{s}dst")
}

// A push that serves blocked clients queues their pops (and the "del" of
// the key they emptied) and their wake-ups on the pusher's queue: they
// come after the push's own event, and the served clients run after it.
func TestNotifyHandOff(t *testing.T) {
	e, _, log := notifyEngine(t)
	var pusherQ, w1Q, w2Q EventQueue
	woken := []string{}
	block := func(q *EventQueue, name string, zset bool) *Waiter {
		w := e.NewWaiter(func() { woken = append(woken, name) })
		d := e.DB(0).WithEvents(q)
		var err error
		if zset {
			_, err = d.BZPop([][]byte{bs("z")}, true, 1, w)
		} else {
			_, err = d.BLPopEnd([][]byte{bs("l")}, ListRight, -1, w)
		}
		if err != nil || !w.Queued() {
			t.Fatalf("%s did not block: %v", name, err)
		}
		return w
	}
	w1 := block(&w1Q, "w1", false)
	w2 := block(&w2Q, "w2", false)
	d := e.DB(0).WithEvents(&pusherQ)
	if _, err := d.LPushEnd(bs("l"), ListRight, [][]byte{bs("a"), bs("b")}, false); err != nil {
		t.Fatal(err)
	}
	if len(woken) != 0 || len(log.events) != 0 {
		t.Fatalf("before the pusher's Flush: woken %v, events %q", woken, log.events)
	}
	d.Notify(ClassList, "rpush", bs("l"))
	pusherQ.Flush()
	expectEvents(t, "two BRPOP served", log.take(), "0:rpush:l", "0:rpop:l", "0:rpop:l", "0:del:l")
	if strings.Join(woken, ",") != "w1,w2" {
		t.Errorf("woken %v", woken)
	}
	w1.Done()
	w2.Done()

	w3 := block(&w1Q, "w3", true)
	if _, err := d.ZAdd(bs("z"), 0, []ZMember{{Member: bs("m"), Score: 1}, {Member: bs("n"), Score: 2}}, ZsetLimits{MaxListpackEntries: 128, MaxListpackValue: 64}); err != nil {
		t.Fatal(err)
	}
	d.Notify(ClassZSet, "zadd", bs("z"))
	pusherQ.Flush()
	expectEvents(t, "BZPOPMAX served", log.take(), "0:zadd:z", "0:zpopmax:z")
	w3.Done()
}

// Notify with notifications off must not allocate: it is on the path of
// every write.
func TestNotifyOffAllocs(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	key := bs("k")
	if n := testing.AllocsPerRun(100, func() { d.Notify(ClassString, "set", key) }); n != 0 {
		t.Errorf("Notify off: %v allocs", n)
	}
	var q EventQueue
	if n := testing.AllocsPerRun(100, q.Flush); n != 0 {
		t.Errorf("empty Flush: %v allocs", n)
	}
}
