package pubsub

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
)

// rec is a Subscriber that records what it receives.
type rec struct {
	mu  sync.Mutex
	got []string
}

func (r *rec) Deliver(m *Message) {
	var s string
	switch m.Kind {
	case Pattern:
		s = fmt.Sprintf("pmessage %s %s %s", m.Pattern, m.Channel, m.Payload)
	case Shard:
		s = fmt.Sprintf("smessage %s %s", m.Channel, m.Payload)
	default:
		s = fmt.Sprintf("message %s %s", m.Channel, m.Payload)
	}
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
}

func (r *rec) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.got
	r.got = nil
	return g
}

func TestSubscribeCountsAndPublish(t *testing.T) {
	h := New()
	a, b := &rec{}, &rec{}
	if added, n := h.Subscribe(a, Channel, []byte("news")); !added || n != (Counts{Channels: 1}) {
		t.Fatalf("subscribe: %v %+v", added, n)
	}
	if added, n := h.Subscribe(a, Channel, []byte("news")); added || n != (Counts{Channels: 1}) {
		t.Fatalf("repeat subscribe: %v %+v", added, n)
	}
	h.Subscribe(a, Pattern, []byte("n*"))
	h.Subscribe(a, Pattern, []byte("x*"))
	h.Subscribe(b, Channel, []byte("news"))
	h.Subscribe(b, Shard, []byte("news"))
	if n := h.Counts(a); n != (Counts{Channels: 1, Patterns: 2}) {
		t.Fatalf("counts a: %+v", n)
	}
	// Channel subscribers in subscription order, then patterns; a client on
	// both the channel and a matching pattern counts and receives twice.
	if n := h.Publish([]byte("news"), []byte("hi")); n != 3 {
		t.Fatalf("Publish: %d receivers, want 3", n)
	}
	if g := a.take(); !reflect.DeepEqual(g, []string{"message news hi", "pmessage n* news hi"}) {
		t.Fatalf("a got %q", g)
	}
	if g := b.take(); !reflect.DeepEqual(g, []string{"message news hi"}) {
		t.Fatalf("b got %q", g)
	}
	// Shard channels are a separate namespace.
	if n := h.SPublish([]byte("news"), []byte("s")); n != 1 {
		t.Fatalf("SPublish: %d", n)
	}
	if g := b.take(); !reflect.DeepEqual(g, []string{"smessage news s"}) {
		t.Fatalf("b got %q", g)
	}
	if g := a.take(); len(g) != 0 {
		t.Fatalf("a got shard message %q", g)
	}
	if n := h.Publish([]byte("other"), []byte("x")); n != 0 {
		t.Fatalf("Publish other: %d", n)
	}
	if got := h.NumSub(Channel, []byte("news")); got != 2 {
		t.Fatalf("NumSub: %d", got)
	}
	if got := h.NumSub(Shard, []byte("news")); got != 1 {
		t.Fatalf("NumSub shard: %d", got)
	}
	if got := h.NumPat(); got != 2 {
		t.Fatalf("NumPat: %d", got)
	}
	h.Subscribe(b, Pattern, []byte("n*")) // same pattern: still two distinct
	if got := h.NumPat(); got != 2 {
		t.Fatalf("NumPat after a repeat pattern: %d", got)
	}
	if tot := h.Totals(); tot != (Counts{Channels: 1, Patterns: 2, Shard: 1}) {
		t.Fatalf("Totals: %+v", tot)
	}
}

func TestUnsubscribeAllOrderAndCounts(t *testing.T) {
	h := New()
	a := &rec{}
	for _, p := range []string{"p1", "zz", "p3", "aa"} {
		h.Subscribe(a, Pattern, []byte(p))
	}
	h.Subscribe(a, Channel, []byte("c"))
	names, after := h.UnsubscribeAll(a, Pattern)
	if !reflect.DeepEqual(names, []string{"p1", "zz", "p3", "aa"}) {
		t.Fatalf("names %q", names)
	}
	for i, n := range after {
		if want := (Counts{Channels: 1, Patterns: 3 - i}); n != want {
			t.Fatalf("after[%d] = %+v, want %+v", i, n, want)
		}
	}
	if h.NumPat() != 0 {
		t.Fatalf("patterns left: %d", h.NumPat())
	}
	if removed, n := h.Unsubscribe(a, Channel, []byte("nope")); removed || n != (Counts{Channels: 1}) {
		t.Fatalf("unsubscribe unknown: %v %+v", removed, n)
	}
	if removed, n := h.Unsubscribe(a, Channel, []byte("c")); !removed || n != (Counts{}) {
		t.Fatalf("unsubscribe: %v %+v", removed, n)
	}
	if len(h.subs) != 0 || len(h.byName[Channel]) != 0 {
		t.Fatalf("state left behind: %d subscribers, %d channels", len(h.subs), len(h.byName[Channel]))
	}
	if names, _ := h.UnsubscribeAll(a, Channel); len(names) != 0 {
		t.Fatalf("unsubscribe all with nothing: %q", names)
	}
}

func TestRemoveAndActive(t *testing.T) {
	h := New()
	a, b := &rec{}, &rec{}
	h.Subscribe(a, Channel, []byte("foo"))
	h.Subscribe(a, Channel, []byte("bar"))
	h.Subscribe(b, Channel, []byte("foo"))
	h.Subscribe(a, Pattern, []byte("*"))
	h.Subscribe(a, Shard, []byte("s"))
	got := h.Active(Channel, nil)
	sort.Strings(got)
	if !reflect.DeepEqual(got, []string{"bar", "foo"}) {
		t.Fatalf("Active: %q", got)
	}
	if got := h.Active(Channel, []byte("f?o")); !reflect.DeepEqual(got, []string{"foo"}) {
		t.Fatalf("Active f?o: %q", got)
	}
	if got := h.Active(Shard, nil); !reflect.DeepEqual(got, []string{"s"}) {
		t.Fatalf("Active shard: %q", got)
	}
	h.Remove(a)
	if n := h.Counts(a); n != (Counts{}) {
		t.Fatalf("counts after Remove: %+v", n)
	}
	if got := h.Active(Channel, nil); !reflect.DeepEqual(got, []string{"foo"}) {
		t.Fatalf("Active after Remove: %q", got)
	}
	if h.NumPat() != 0 || len(h.Active(Shard, nil)) != 0 {
		t.Fatal("pattern or shard channel left after Remove")
	}
	if n := h.Publish([]byte("foo"), []byte("m")); n != 1 {
		t.Fatalf("Publish after Remove: %d", n)
	}
	if g := a.take(); len(g) != 0 {
		t.Fatalf("removed subscriber got %q", g)
	}
	h.Remove(a) // twice is harmless
}

// TestPatternMatching: Redis's stringmatchlen, "*" not matching the empty
// channel.
func TestPatternMatching(t *testing.T) {
	h := New()
	a := &rec{}
	for _, p := range []string{"*", "a?c", "h[ae]llo", "x\\*", ""} {
		h.Subscribe(a, Pattern, []byte(p))
	}
	cases := map[string]int{"abc": 2, "hello": 2, "hallo": 2, "hillo": 1, "x*": 2, "xy": 1, "": 1}
	for ch, want := range cases {
		if n := h.Publish([]byte(ch), []byte("m")); n != want {
			t.Errorf("Publish %q: %d receivers, want %d", ch, n, want)
		}
	}
}

// TestConcurrentOrder: concurrent publishers on one channel reach all
// subscribers in one order, and each publisher's messages stay in order,
// while subscribers come and go.
func TestConcurrentOrder(t *testing.T) {
	h := New()
	const subs, pubs, msgs = 8, 4, 2000
	rs := make([]*rec, subs)
	for i := range rs {
		rs[i] = &rec{}
		h.Subscribe(rs[i], Channel, []byte("ch"))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // churn
		x := &rec{}
		for {
			select {
			case <-stop:
				return
			default:
			}
			h.Subscribe(x, Channel, []byte("ch"))
			h.Subscribe(x, Pattern, []byte("c*"))
			h.Remove(x)
		}
	}()
	for p := 0; p < pubs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < msgs; i++ {
				h.Publish([]byte("ch"), []byte(fmt.Sprintf("%d:%d", p, i)))
			}
		}(p)
	}
	wg.Wait()
	close(stop)
	first := rs[0].take()
	if len(first) != pubs*msgs {
		t.Fatalf("got %d messages, want %d", len(first), pubs*msgs)
	}
	next := make([]int, pubs)
	for _, m := range first {
		var p, i int
		fmt.Sscanf(m, "message ch %d:%d", &p, &i)
		if i != next[p] {
			t.Fatalf("publisher %d: message %d after %d", p, i, next[p]-1)
		}
		next[p]++
	}
	for _, r := range rs[1:] {
		if g := r.take(); !reflect.DeepEqual(g, first) {
			t.Fatal("subscribers saw different orders")
		}
	}
}

// TestPublishDuringSubscribe: Subscribe and Publish from many goroutines
// under the race detector.
func TestPublishDuringSubscribe(t *testing.T) {
	h := New()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := &rec{}
			for i := 0; i < 500; i++ {
				ch := []byte(fmt.Sprintf("c%d", i%7))
				h.Subscribe(r, Channel, ch)
				h.Subscribe(r, Pattern, []byte("c*"))
				h.Publish(ch, []byte("x"))
				h.NumSub(Channel, ch)
				h.Active(Channel, nil)
				h.Unsubscribe(r, Channel, ch)
				if i%50 == 0 {
					h.Remove(r)
				}
			}
			h.Remove(r)
		}(g)
	}
	wg.Wait()
	if tot := h.Totals(); tot != (Counts{}) {
		t.Fatalf("left: %+v", tot)
	}
}
