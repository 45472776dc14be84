package engine

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// recordingHook records what the change hook hears.
type recordingHook struct {
	mu      sync.Mutex
	changes []hookChange
	flushes int
	batches int
}

type hookChange struct {
	key     string
	origin  uint64
	expired bool
}

func (h *recordingHook) KeyChanged(key []byte, origin uint64, expired bool) {
	h.mu.Lock()
	h.changes = append(h.changes, hookChange{string(key), origin, expired})
	h.mu.Unlock()
}
func (h *recordingHook) Flushed()  { h.mu.Lock(); h.flushes++; h.mu.Unlock() }
func (h *recordingHook) BatchEnd() { h.mu.Lock(); h.batches++; h.mu.Unlock() }

// take returns the keys changed since the last take, each once in the
// order of its first change, and whether every change had origin.
func (h *recordingHook) take(origin uint64) (keys []string, allOrigin bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	allOrigin = true
	for _, c := range h.changes {
		if !slices.Contains(keys, c.key) {
			keys = append(keys, c.key)
		}
		if c.origin != origin {
			allOrigin = false
		}
	}
	h.changes = nil
	return keys, allOrigin
}

func hookedEngine(t *testing.T) (*Engine, *recordingHook, *ManualClock) {
	e, clock := newTestEngine(t, 2)
	h := &recordingHook{}
	e.SetChangeHook(h)
	return e, h, clock
}

func TestChangeHookSeesEveryKindOfWrite(t *testing.T) {
	e, h, _ := hookedEngine(t)
	q := &EventQueue{Origin: 7}
	d := e.DB(0).WithEvents(q)
	k := []byte("k")
	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"create", func() { d.Set(k, []byte("v"), SetOptions{}) }, []string{"k"}},
		{"overwrite same size", func() { d.Set(k, []byte("w"), SetOptions{}) }, []string{"k"}},
		{"incr", func() { d.Set(k, []byte("1"), SetOptions{}); h.take(7); d.IncrBy(k, 1) }, []string{"k"}},
		{"append", func() { d.Append(k, []byte("x"), AppendOptions{}, 1<<20) }, []string{"k"}},
		{"setrange", func() { d.SetRange(k, 0, []byte("9"), 1<<20) }, []string{"k"}},
		{"expire", func() { d.Expire(k, t0+10_000, 0) }, []string{"k"}},
		{"persist", func() { d.Persist(k) }, []string{"k"}},
		{"persist without expiry changes nothing", func() { d.Persist(k) }, nil},
		{"read changes nothing", func() { d.Get(k); d.Exists(k) }, nil},
		{"rename", func() { d.Rename(k, []byte("k2"), false) }, []string{"k", "k2"}},
		{"delete", func() { d.Delete([]byte("k2")) }, []string{"k2"}},
		{"delete missing changes nothing", func() { d.Delete([]byte("k2")) }, nil},
		{"list push", func() { d.LPushEnd([]byte("l"), ListLeft, [][]byte{[]byte("a"), []byte("b")}, false) }, []string{"l"}},
		{"list push again", func() { d.LPushEnd([]byte("l"), ListLeft, [][]byte{[]byte("c")}, false) }, []string{"l"}},
		{"list pop to empty", func() { d.LPopEnd([]byte("l"), ListLeft, 3, func(int, int, []byte) {}) }, []string{"l"}},
		{"mset", func() { d.MSet([][]byte{[]byte("a"), []byte("1"), []byte("b"), []byte("2")}, false) }, []string{"a", "b"}},
	}
	for _, st := range steps {
		h.take(7)
		st.do()
		got, fromOrigin := h.take(7)
		if !slices.Equal(got, st.want) {
			t.Errorf("%s: changed %q, want %q", st.name, got, st.want)
		}
		if !fromOrigin {
			t.Errorf("%s: a change did not carry the handle's origin 7", st.name)
		}
	}
}

func TestChangeHookExpiryEvictionAndFlushes(t *testing.T) {
	e, h, clock := hookedEngine(t)
	d := e.DB(0) // no event queue: origin 0, as memcached's handle
	d.Set([]byte("lazy"), []byte("v"), SetOptions{TTL: TTLSet, ExpireAt: t0 + 100})
	d.Set([]byte("active"), []byte("v"), SetOptions{TTL: TTLSet, ExpireAt: t0 + 100})
	h.take(0)
	clock.Advance(time.Second)

	// Lazy expiry, under a reader's lock, reports the reader's origin.
	q := &EventQueue{Origin: 3}
	if _, ok, _ := d.WithEvents(q).Get([]byte("lazy")); ok {
		t.Fatal("expired key read")
	}
	if got, fromOrigin := h.take(3); !slices.Equal(got, []string{"lazy"}) || !fromOrigin {
		t.Errorf("lazy expiry: %q (origin 3: %v)", got, fromOrigin)
	}
	e.ActiveExpireCycle(time.Second)
	if got, fromOrigin := h.take(0); !slices.Equal(got, []string{"active"}) || !fromOrigin {
		t.Errorf("active expiry: %q (origin 0: %v)", got, fromOrigin)
	}
	if h.batches == 0 {
		t.Error("the expiry cycle's batch end was not reported")
	}

	e.SetEviction(Eviction{Policy: AllKeysRandom, Samples: 5})
	for i := 0; i < 20; i++ {
		d.Set([]byte{'e', byte('a' + i)}, make([]byte, 200), SetOptions{})
	}
	h.take(0)
	e.SetMaxMemory(e.UsedMemory() / 2)
	e.FreeMemory()
	e.SetMaxMemory(0)
	evicted, _ := h.take(0)
	if len(evicted) == 0 || int64(len(evicted)) != e.Stats().EvictedKeys {
		t.Errorf("eviction reported %d keys, stats say %d", len(evicted), e.Stats().EvictedKeys)
	}

	for _, flush := range []func(){d.Flush, e.FlushAll} {
		before := h.flushes
		flush()
		if h.flushes != before+1 {
			t.Errorf("flush reported %d times, want once", h.flushes-before)
		}
	}
	before := h.flushes
	e.SwapDB(0, 1, nil)
	if h.flushes != before {
		t.Error("SWAPDB reported a flush: Redis 7.0 invalidates nothing on SWAPDB")
	}
	if got, _ := h.take(0); len(got) != 0 {
		t.Errorf("flushes reported keys one by one: %q", got)
	}
}

func TestChangeHookBatchEndAtGateLeave(t *testing.T) {
	e, h, _ := hookedEngine(t)
	g := e.Gate()
	before := h.batches
	if !g.Enter() {
		t.Fatal("gate closed")
	}
	g.Leave()
	if h.batches != before+1 {
		t.Errorf("Leave reported %d batch ends, want 1", h.batches-before)
	}
}

func TestChangeHookOriginDoesNotLeak(t *testing.T) {
	e, h, _ := hookedEngine(t)
	d := e.DB(0)
	d.WithEvents(&EventQueue{Origin: 9}).Set([]byte("k"), []byte("v"), SetOptions{})
	h.take(9)
	// The same shard locked next by a handle without an origin.
	d.Set([]byte("k"), []byte("w"), SetOptions{})
	if _, fromZero := h.take(0); !fromZero {
		t.Error("a later change of the same shard kept the earlier origin")
	}
}
