package memproto

import (
	"regexp"
	"strings"
	"testing"
)

var watchTS = regexp.MustCompile(`ts=\d+\.\d+ gid=\d+ `)

// A watcher sees another client's fetches and stores as memcached prints
// them, runs nothing after watch, and leaves the stats' log_ fields true.
func TestWatchLines(t *testing.T) {
	env := newTestEnv(t)
	w := env.client()
	if got := w.send("watch fetchers mutations\r\nget ignored\r\n"); got != "OK\r\n" {
		t.Fatalf("watch: %q", got)
	}
	c := env.client()
	c.expect("set k 0 0 3\r\nabc\r\n", "STORED\r\n")
	c.expect("get k\r\n", "VALUE k 0 3\r\nabc\r\nEND\r\n")
	got := watchTS.ReplaceAllString(w.send("version\r\n"), "")
	want := "type=item_get key=k status=not_found clsid=0 cfd=8 size=0\n" +
		"type=item_store key=k status=stored cmd=set ttl=0 clsid=1 cfd=8 size=3\n" +
		"type=item_get key=k status=found clsid=1 cfd=8 size=3\n"
	if got != want {
		t.Errorf("watcher read:\n%s\nwant:\n%s", got, want)
	}
	stats := c.send("stats\r\n")
	for _, f := range []string{"STAT log_watchers 1\r\n", "STAT log_watcher_sent 3\r\n", "STAT log_worker_written 3\r\n"} {
		if !strings.Contains(stats, f) {
			t.Errorf("stats lacks %q", f)
		}
	}
	w.s.Closed()
	if !strings.Contains(c.send("stats\r\n"), "STAT log_watchers 0\r\n") {
		t.Error("log_watchers not 0 after the watcher closed")
	}
}

func TestWatchReplies(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("watch bogus\r\n", "ERROR\r\n")
	c.expect("watch fetchers noreply\r\n", "")
	c.expect("set p 0 0 1\r\nx\r\nwatch\r\n", "STORED\r\nERROR cannot pipeline other commands before watch\r\n")
	for range 20 {
		if got := env.client().send("watch\r\n"); got != "OK\r\n" {
			t.Fatalf("watch: %q", got)
		}
	}
	c.expect("watch\r\n", "WATCHER_TOO_MANY log watcher limit reached\r\n")

	off := newTestEnv(t, "--memcached-disable-watch", "yes")
	off.client().expect("watch mutations\r\n", "CLIENT_ERROR watch commands not allowed\r\n")
}

// With nobody watching, get and set allocate nothing more (BenchmarkGet
// and BenchmarkSet check 0 allocs/op too).
func TestWatchIdleNoAlloc(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("set k 0 0 3\r\nabc\r\n", "STORED\r\n")
	in := []byte("get k\r\nset k 0 0 3\r\nabc\r\n")
	out := make([]byte, 0, 256)
	c.s.Serve(in, out[:0]) // warm
	if n := testing.AllocsPerRun(200, func() { c.s.Serve(in, out[:0]) }); n != 0 {
		t.Errorf("%v allocations per get+set", n)
	}
}
