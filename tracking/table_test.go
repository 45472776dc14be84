package tracking

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeConn records what it is sent, one line a message.
type fakeConn struct {
	mu    sync.Mutex
	proto int
	got   []string
}

func (f *fakeConn) Proto() int { return f.proto }

func (f *fakeConn) Deliver(m *Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var line string
	switch {
	case m.BrokenRedirect != 0:
		line = fmt.Sprintf("broken %d", m.BrokenRedirect)
	case m.All:
		line = fmt.Sprintf("all/%d", m.NullProto)
	default:
		keys := make([]string, len(m.Keys))
		for i, k := range m.Keys {
			keys[i] = string(k)
		}
		line = strings.Join(keys, " ")
	}
	if m.Redirected {
		line = "redirected " + line
	}
	f.got = append(f.got, line)
}

func (f *fakeConn) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.got
	f.got = nil
	return g
}

// world is a table with connections 1..n registered for lookup.
type world struct {
	t     *Table
	conns map[uint64]*fakeConn
}

func newWorld(n int) *world {
	w := &world{t: New(0), conns: map[uint64]*fakeConn{}}
	for i := 1; i <= n; i++ {
		w.conns[uint64(i)] = &fakeConn{proto: 3}
	}
	w.t.SetLookup(func(id uint64) Conn {
		if c, ok := w.conns[id]; ok {
			return c
		}
		return nil
	})
	return w
}

func (w *world) enable(t *testing.T, id uint64, o Options) {
	t.Helper()
	if err, ok := w.t.Enable(id, w.conns[id], o); err != nil || !ok {
		t.Fatalf("Enable(%d, %+v): %v, %v", id, o, err, ok)
	}
}

func (w *world) read(id uint64, keys ...string) {
	bk := make([][]byte, len(keys))
	for i, k := range keys {
		bk[i] = []byte(k)
	}
	w.t.Begin(id, bk)
	w.t.End(id, bk)
}

func expect(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

func TestReadThenChangeInvalidatesOnce(t *testing.T) {
	w := newWorld(2)
	w.enable(t, 1, Options{})
	w.read(1, "a", "b")
	w.t.KeyChanged([]byte("a"), 2, false)
	expect(t, "first change", w.conns[1].take(), "a")
	w.t.KeyChanged([]byte("a"), 2, false)
	expect(t, "second change", w.conns[1].take())
	if st := w.t.Stats(); st != (Stats{Clients: 1, Keys: 1, Items: 1}) {
		t.Errorf("stats %+v", st)
	}
	w.t.KeyChanged([]byte("never-read"), 2, false)
	expect(t, "a key nobody read", w.conns[1].take())
}

func TestNoLoopSparesOwnChanges(t *testing.T) {
	w := newWorld(2)
	w.enable(t, 1, Options{NoLoop: true})
	w.read(1, "a", "b")
	w.t.KeyChanged([]byte("a"), 1, false)
	w.t.KeyChanged([]byte("b"), 2, false)
	expect(t, "noloop", w.conns[1].take(), "b")
	w.enable(t, 1, Options{}) // re-enabled without NOLOOP
	w.read(1, "a")
	w.t.KeyChanged([]byte("a"), 1, false)
	expect(t, "own change without noloop", w.conns[1].take(), "a")
}

func TestProvisionalKeysOfARunningRead(t *testing.T) {
	w := newWorld(2)
	w.enable(t, 1, Options{})
	k := [][]byte{[]byte("k")}
	// The reader's own command finds k expired: not reported, and k is
	// tracked after the command, as Redis remembers it then.
	w.t.Begin(1, k)
	w.t.KeyChanged(k[0], 1, true)
	w.t.End(1, k)
	expect(t, "own change to a provisional key", w.conns[1].take())
	w.t.KeyChanged(k[0], 2, false)
	expect(t, "after End", w.conns[1].take(), "k")
	// Another writer between the read and End: reported, never lost.
	w.t.Begin(1, k)
	w.t.KeyChanged(k[0], 2, false)
	w.t.End(1, k)
	expect(t, "a write racing the read", w.conns[1].take(), "k")
	w.t.KeyChanged(k[0], 2, false)
	expect(t, "tracked again after End", w.conns[1].take(), "k")
	// A key tracked before the command is reported even for the
	// command's own change, as Redis's pending invalidation.
	w.read(1, "k")
	w.t.Begin(1, k)
	w.t.KeyChanged(k[0], 1, true)
	w.t.End(1, k)
	expect(t, "own change to a key tracked before", w.conns[1].take(), "k")
}

func TestRedirectAndBrokenRedirect(t *testing.T) {
	w := newWorld(3)
	w.enable(t, 1, Options{Redirect: 2})
	w.read(1, "a", "b")
	w.t.KeyChanged([]byte("a"), 3, false)
	expect(t, "target", w.conns[2].take(), "redirected a")
	expect(t, "tracking conn", w.conns[1].take())
	delete(w.conns, 2) // the target disconnects
	w.t.KeyChanged([]byte("b"), 3, false)
	expect(t, "after the target left", w.conns[1].take(), "broken 2")
	if inf := w.t.Info(1); !inf.BrokenRedirect || inf.Redirect != 2 {
		t.Errorf("info %+v", inf)
	}
	w.enable(t, 1, Options{}) // a new ON clears the redirect and the broken flag
	if inf := w.t.Info(1); inf.BrokenRedirect || inf.Redirect != 0 {
		t.Errorf("info after re-enabling %+v", inf)
	}
}

func TestBroadcast(t *testing.T) {
	w := newWorld(3)
	w.enable(t, 1, Options{BCast: true, Prefixes: [][]byte{[]byte("b:"), []byte("a:")}})
	w.enable(t, 2, Options{BCast: true, NoLoop: true})
	for _, k := range []string{"a:2", "a:1", "b:1", "c:1", "a:1"} {
		w.t.KeyChanged([]byte(k), 2, false)
	}
	w.t.KeyChanged([]byte("x"), 2, true) // expired: reported even under NOLOOP
	expect(t, "before the batch ends", w.conns[1].take())
	w.t.BatchEnd()
	expect(t, "prefixes in order, keys sorted", w.conns[1].take(), "a:1 a:2", "b:1")
	expect(t, "noloop keeps only others' changes", w.conns[2].take(), "x")
	w.t.BatchEnd()
	expect(t, "nothing new", w.conns[1].take())
	if st := w.t.Stats(); st.Prefixes != 3 || st.Clients != 2 {
		t.Errorf("stats %+v", st)
	}
	if inf := w.t.Info(1); len(inf.Prefixes) != 2 || string(inf.Prefixes[0]) != "a:" {
		t.Errorf("prefixes %q", inf.Prefixes)
	}
	w.t.Disable(1)
	if st := w.t.Stats(); st.Prefixes != 1 || st.Clients != 1 {
		t.Errorf("stats after disable %+v", st)
	}
}

func TestKeysReadBeforeBcastAreNotReported(t *testing.T) {
	w := newWorld(2)
	w.enable(t, 1, Options{})
	w.read(1, "k")
	w.t.Disable(1)
	w.enable(t, 1, Options{BCast: true})
	w.t.KeyChanged([]byte("k"), 2, false)
	w.t.BatchEnd()
	expect(t, "only the broadcast", w.conns[1].take(), "k")
}

func TestFlushTellsEveryTrackingConnection(t *testing.T) {
	w := newWorld(3)
	w.conns[1].proto = 2
	w.enable(t, 1, Options{Redirect: 3})
	w.enable(t, 2, Options{BCast: true, NoLoop: true})
	w.read(1, "a")
	w.t.Flushed()
	expect(t, "redirected, in the tracking conn's protocol", w.conns[3].take(), "redirected all/2")
	expect(t, "bcast noloop too", w.conns[2].take(), "all/3")
	if st := w.t.Stats(); st.Keys != 0 || st.Items != 0 {
		t.Errorf("table not emptied: %+v", st)
	}
}

func TestDisabledConnectionsKeysStayUntilChanged(t *testing.T) {
	w := newWorld(2)
	w.enable(t, 1, Options{})
	w.read(1, "a")
	w.t.Disable(1)
	if st := w.t.Stats(); st.Keys != 1 || st.Items != 1 || st.Clients != 0 {
		t.Errorf("stats %+v", st)
	}
	w.t.KeyChanged([]byte("a"), 2, false)
	expect(t, "disabled", w.conns[1].take())
	if st := w.t.Stats(); st.Keys != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestMaxKeysEvictsRandomKeys(t *testing.T) {
	w := newWorld(1)
	w.enable(t, 1, Options{})
	w.read(1, "a", "b", "c")
	w.t.SetMaxKeys(1)
	if got := w.conns[1].take(); len(got) != 2 {
		t.Errorf("lowering the bound to 1 of 3 keys sent %q", got)
	}
	w.read(1, "d")
	if got := w.conns[1].take(); len(got) != 1 {
		t.Errorf("a read past the bound sent %q", got)
	}
	if st := w.t.Stats(); st.Keys != 1 {
		t.Errorf("keys %d, want 1", st.Keys)
	}
}

func TestEnableRefusals(t *testing.T) {
	w := newWorld(1)
	p := func(ps ...string) [][]byte {
		out := make([][]byte, len(ps))
		for i, s := range ps {
			out[i] = []byte(s)
		}
		return out
	}
	cases := []struct {
		name   string
		before *Options
		o      Options
		err    string
		ok     bool
	}{
		{"prefix without bcast", nil, Options{Prefixes: p("a")}, ErrPrefixNeedsBcast.Error(), false},
		{"bcast switch", &Options{}, Options{BCast: true}, ErrBcastSwitch.Error(), false},
		{"opt with bcast", nil, Options{BCast: true, OptIn: true}, ErrOptBcast.Error(), false},
		{"both opts", nil, Options{OptIn: true, OptOut: true}, ErrOptBoth.Error(), false},
		{"opt switch", &Options{OptIn: true}, Options{OptOut: true}, ErrOptSwitch.Error(), false},
		{"first prefix overlaps a later one", nil, Options{BCast: true, Prefixes: p("FOOBAR", "FOO")},
			"Prefix 'FOOBAR' overlaps with another provided prefix 'FOO'. Prefixes for a single client must not overlap.", false},
		{"overlaps an existing one", &Options{BCast: true, Prefixes: p("FOO", "BAR")}, Options{BCast: true, Prefixes: p("FO")},
			"Prefix 'FO' overlaps with an existing prefix 'FOO'. Prefixes for a single client must not overlap.", false},
		{"the empty prefix overlaps everything", &Options{BCast: true, Prefixes: p("a")}, Options{BCast: true},
			"", true}, // no prefixes given: "" is added unchecked, as in Redis
		{"a later prefix overlapping: error and enabled", nil, Options{BCast: true, Prefixes: p("a", "b", "bc")},
			"Prefix 'b' overlaps with another provided prefix 'bc'. Prefixes for a single client must not overlap.", true},
		{"NUL ends a prefix in the message", nil, Options{BCast: true, Prefixes: p("x\x00y", "x")},
			"Prefix 'x' overlaps with another provided prefix 'x'. Prefixes for a single client must not overlap.", false},
	}
	for _, c := range cases {
		w.t.Disable(1)
		if c.before != nil {
			w.enable(t, 1, *c.before)
		}
		err, ok := w.t.Enable(1, w.conns[1], c.o)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != c.err || ok != c.ok {
			t.Errorf("%s: (%q, %v), want (%q, %v)", c.name, msg, ok, c.err, c.ok)
		}
		var oe *OverlapError
		if err != nil && !errors.As(err, &oe) && strings.HasPrefix(c.err, "Prefix") {
			t.Errorf("%s: %T is not an OverlapError", c.name, err)
		}
	}
}

// TestConcurrentUseKeepsCounts drives every entry point at once (run it
// with -race) and checks that the counters still match the stripes.
func TestConcurrentUseKeepsCounts(t *testing.T) {
	w := newWorld(8)
	var wg sync.WaitGroup
	for g := 1; g <= 8; g++ {
		wg.Add(1)
		go func(id uint64) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				k := [][]byte{[]byte("k" + strconvI(i%50)), []byte("j" + strconvI(i%7))}
				switch i % 97 {
				case 0:
					w.t.Disable(id)
				case 1:
					w.t.Enable(id, w.conns[id], Options{BCast: id%2 == 0, Prefixes: nil, NoLoop: id%3 == 0})
				case 2:
					w.t.Flushed()
				case 3:
					w.t.SetMaxKeys(int64(i % 30))
				}
				w.t.Begin(id, k)
				w.t.KeyChanged(k[i%2], uint64(i%9), i%5 == 0)
				w.t.End(id, k)
				w.t.BatchEnd()
				w.t.Info(id)
			}
		}(uint64(g))
	}
	wg.Wait()
	var keys, items int64
	for i := range w.t.stripes {
		for _, refs := range w.t.stripes[i].keys {
			keys++
			items += int64(len(refs))
		}
	}
	if st := w.t.Stats(); st.Keys != keys || st.Items != items {
		t.Errorf("stats %+v, stripes hold %d keys and %d items", st, keys, items)
	}
}

func strconvI(i int) string { return fmt.Sprint(i) }

// BenchmarkWriteUntrackedKey is the cost a write pays while other keys
// are tracked, from every core at once.
func BenchmarkWriteUntrackedKey(b *testing.B) {
	w := newWorld(1)
	w.t.Enable(1, w.conns[1], Options{})
	w.read(1, "tracked")
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		key := []byte("some:untracked:key:" + strconvI(int(next.Add(1))))
		for pb.Next() {
			w.t.KeyChanged(key, 2, false)
		}
	})
}
