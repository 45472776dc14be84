package mclog

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fixedLog is a log whose clock stands at 1700000000.000042.
func fixedLog() *Log {
	l := New()
	l.now = func() time.Time { return time.Unix(1700000000, 42000) }
	return l
}

func TestLineFormats(t *testing.T) {
	l := fixedLog()
	w, err := l.Add(Fetchers|Mutations|Evictions|ConnEvents, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.ItemGet([]byte("foo"), NotFound, 0, 25, 0)
	l.ItemGet([]byte("a%b\xff c"), Found, 1, 25, 3)
	l.ItemStore([]byte("foo"), Stored, CmdSet, 100, 1, 25, 3)
	l.ItemStore([]byte("foo"), NotStored, CmdAdd, 4294967233, 1, 25, 1)
	l.Evicted(&Eviction{Key: []byte("k~1"), TTL: -1, Idle: 3, ClsID: 1, Size: 10000})
	l.Evicted(&Eviction{Key: []byte("k"), Fetched: true, TTL: 20, ClsID: 1})
	l.ConnNew(Conn{IP: "127.0.0.1", Port: 57232, FD: 25})
	l.ConnClose(Conn{IP: "::1", Port: 1, FD: 26}, CloseError)
	want := "" +
		"ts=1700000000.42 gid=2 type=item_get key=foo status=not_found clsid=0 cfd=25 size=0\n" +
		"ts=1700000000.42 gid=3 type=item_get key=a%25b%FF%20c status=found clsid=1 cfd=25 size=3\n" +
		"ts=1700000000.42 gid=4 type=item_store key=foo status=stored cmd=set ttl=100 clsid=1 cfd=25 size=3\n" +
		"ts=1700000000.42 gid=5 type=item_store key=foo status=not_stored cmd=add ttl=4294967233 clsid=1 cfd=25 size=1\n" +
		"ts=1700000000.42 gid=6 type=eviction key=k~1 fetch=no ttl=-1 la=3 clsid=1 size=10000\n" +
		"ts=1700000000.42 gid=7 type=eviction key=k fetch=yes ttl=20 la=0 clsid=1 size=0\n" +
		"ts=1700000000.42 gid=8 type=conn_new rip=127.0.0.1 rport=57232 transport=tcp cfd=25\n" +
		"ts=1700000000.42 gid=9 type=conn_close rip=::1 rport=1 transport=tcp reason=error cfd=26\n"
	if got := string(w.Take(nil)); got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseFlags(t *testing.T) {
	cases := []struct {
		args string
		want Flags
		ok   bool
	}{
		{"", Fetchers, true},
		{"mutations", Mutations, true},
		{"fetchers mutations evictions connevents", Fetchers | Mutations | Evictions | ConnEvents, true},
		{"rawcmds sysevents proxyreqs proxyevents proxyuser", RawCmds | SysEvents | ProxyReqs | ProxyEvents | ProxyUser, true},
		{"fetchers bogus", 0, false},
		{"Fetchers", 0, false}, // memcached compares with strcmp
	}
	for _, c := range cases {
		var args [][]byte
		for _, a := range strings.Fields(c.args) {
			args = append(args, []byte(a))
		}
		got, ok := ParseFlags(args)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseFlags(%q) = %v, %v; want %v, %v", c.args, got, ok, c.want, c.ok)
		}
	}
}

// A watcher sees only its flags' events, and none from before it joined.
func TestWatcherFilters(t *testing.T) {
	l := fixedLog()
	if l.Wants(Fetchers) {
		t.Fatal("wants fetchers with no watcher")
	}
	l.ItemGet([]byte("before"), NotFound, 0, 1, 0)
	m, _ := l.Add(Mutations, nil)
	f, _ := l.Add(Fetchers, nil)
	if !l.Wants(Fetchers) || !l.Wants(Mutations) || l.Wants(Evictions) {
		t.Fatal("wants: wrong union")
	}
	l.ItemGet([]byte("g"), NotFound, 0, 1, 0)
	l.ItemStore([]byte("s"), Stored, CmdSet, 0, 1, 1, 0)
	if got := string(m.Take(nil)); strings.Count(got, "\n") != 1 || !strings.Contains(got, "key=s ") {
		t.Errorf("mutations watcher got %q", got)
	}
	if got := string(f.Take(nil)); strings.Count(got, "\n") != 1 || !strings.Contains(got, "key=g ") {
		t.Errorf("fetchers watcher got %q", got)
	}
	l.Remove(m)
	if l.Wants(Mutations) {
		t.Error("still wants mutations after its watcher went")
	}
	l.Remove(f)
	if st := l.Stats(); st.Watchers != 0 || st.WorkerWritten != 2 || st.WatcherSent != 2 {
		t.Errorf("stats %+v", st)
	}
}

// A full buffer skips lines, counts them, and says so before the next line
// that fits; the buffer never holds more than its size.
func TestWatcherBound(t *testing.T) {
	l := fixedLog()
	l.SetBufferSize(1024)
	var wakes atomic.Int32
	w, _ := l.Add(Fetchers, func() { wakes.Add(1) })
	key := []byte(strings.Repeat("k", 100))
	for range 50 {
		l.ItemGet(key, NotFound, 0, 7, 0)
		if n := w.Buffered(); n > 1024 {
			t.Fatalf("buffered %d bytes, over 1024", n)
		}
	}
	if wakes.Load() != 1 {
		t.Errorf("woken %d times before a Take, want 1", wakes.Load())
	}
	got := string(w.Take(nil))
	lines := strings.Count(got, "\n")
	st := l.Stats()
	if lines == 0 || st.WatcherSkip == 0 || int(st.WatcherSent)+int(st.WatcherSkip) != 50 || int(st.WatcherSent) != lines {
		t.Fatalf("%d lines taken, stats %+v", lines, st)
	}
	l.ItemGet([]byte("after"), NotFound, 0, 7, 0)
	if wakes.Load() != 2 {
		t.Errorf("not woken after the Take")
	}
	next := string(w.Take(nil))
	want := "skipped=" + strconv.FormatInt(st.WatcherSkip, 10) + "\nts=1700000000.42 gid=52 type=item_get key=after status=not_found clsid=0 cfd=7 size=0\n"
	if next != want {
		t.Errorf("after the skip: %q, want %q", next, want)
	}
}

func TestWatcherLimit(t *testing.T) {
	l := New()
	for i := range WatcherLimit {
		if _, err := l.Add(Fetchers, nil); err != nil {
			t.Fatalf("watcher %d: %v", i+1, err)
		}
	}
	if _, err := l.Add(Fetchers, nil); err != ErrTooMany {
		t.Errorf("watcher %d: %v, want ErrTooMany", WatcherLimit+1, err)
	}
}

// Publishing with nobody watching allocates nothing.
func TestIdleNoAlloc(t *testing.T) {
	l := New()
	key := []byte("k")
	if n := testing.AllocsPerRun(100, func() {
		l.ItemGet(key, Found, 1, 3, 10)
		l.ItemStore(key, Stored, CmdSet, 0, 1, 3, 10)
	}); n != 0 {
		t.Errorf("%v allocations per event with no watcher", n)
	}
}
