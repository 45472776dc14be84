package compat

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

// memcached's watch against Tandem's: the same commands on both, the log
// lines a watcher reads compared line for line. Loosened, by name: ts=,
// gid=, cfd= and rport= (a clock, a counter of all events, a socket number,
// a port); for evictions also the key, la= and clsid= (which key goes and
// memcached's slab class depend on each allocator). Two named loosenings
// for a key stored already expired (exptime -1): its item_store ttl= is
// memcached's clock wrapped, which counts from each server's start, and
// memcached keeps the dead item until a get finds it "expired", where
// Tandem's engine drops it at the write (a get logs not_found); and
// clsid= of a too_large store, which memcached fills with the socket.

// watchVolatile are the fields masked in every line.
var watchVolatile = regexp.MustCompile(`\b(ts|gid|cfd|rport)=\S+`)

// normWatch masks the volatile fields of a log line.
func normWatch(line string) string {
	line = watchVolatile.ReplaceAllString(line, "$1=*")
	if strings.Contains(line, " key=wdiff_e ") { // the key stored already expired (above)
		line = regexp.MustCompile(`ttl=\d+`).ReplaceAllString(line, "ttl=*")
		line = strings.Replace(line, "status=expired", "status=not_found", 1)
	}
	if strings.Contains(line, " status=too_large ") { // clsid= is the socket there (memproto/watch.go)
		line = regexp.MustCompile(`clsid=\d+`).ReplaceAllString(line, "clsid=*")
	}
	return line
}

// watchConn is a connection to a memcached port.
type watchConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialWatch(t *testing.T, addr string) *watchConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &watchConn{c: c, r: bufio.NewReader(c)}
}

// send writes req and reads n reply lines.
func (w *watchConn) send(t *testing.T, req string, n int) string {
	t.Helper()
	if _, err := w.c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for range n {
		b.WriteString(w.line(t))
	}
	return b.String()
}

func (w *watchConn) line(t *testing.T) string {
	t.Helper()
	w.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	l, err := w.r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading: %v (so far %q)", err, l)
	}
	return l
}

// until reads log lines until one matching stop and then while more come
// within 300 ms, and returns those keep matches in gid order, normalised:
// memcached's logger thread reads its workers' buffers one after the
// other, so lines of connections on different workers arrive out of
// order (gid is there to put them back, logger.c says).
func (w *watchConn) until(t *testing.T, keep, stop *regexp.Regexp) []string {
	t.Helper()
	var raw []string
	for {
		l := w.line(t)
		raw = append(raw, l)
		if stop.MatchString(l) {
			break
		}
	}
	for {
		w.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		l, err := w.r.ReadString('\n')
		if err != nil {
			break
		}
		raw = append(raw, l)
	}
	gidOf := func(l string) int {
		m := watchGid.FindStringSubmatch(l)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	sort.SliceStable(raw, func(i, j int) bool { return gidOf(raw[i]) < gidOf(raw[j]) })
	var out []string
	for _, l := range raw {
		if keep.MatchString(l) {
			out = append(out, normWatch(l))
		}
	}
	return out
}

var watchCAS = regexp.MustCompile(`(?m)^(VALUE \S+ \d+ \d+) \d+`)

var watchGid = regexp.MustCompile(` gid=(\d+) `)

// watchSteps are the requests of TestMemcWatchDifferential with the number
// of reply lines each gets.
var watchSteps = []struct {
	req   string
	lines int
}{
	{"get wdiff_a\r\n", 1},
	{"set wdiff_a 0 0 3\r\nbar\r\n", 1},
	{"set wdiff_a 5 100 3\r\nbaz\r\n", 1},
	{"get wdiff_a wdiff_b\r\n", 3},
	{"add wdiff_a 0 0 1\r\nx\r\n", 1},
	{"append wdiff_a 0 0 1\r\nx\r\n", 1},
	{"prepend wdiff_b 0 0 1\r\nx\r\n", 1},
	{"replace wdiff_b 0 0 1\r\nx\r\n", 1},
	{"cas wdiff_a 0 0 1 1\r\nx\r\n", 1},
	{"cas wdiff_b 0 0 1 1\r\nx\r\n", 1},
	{"gets wdiff_a\r\n", 3},
	{"gat 10 wdiff_a\r\n", 3},
	{"touch wdiff_a 5\r\n", 1},
	{"incr wdiff_a 1\r\n", 1},
	{"set wdiff_n 0 0 1\r\n5\r\n", 1},
	{"incr wdiff_n 10\r\n", 1},
	{"decr wdiff_n 1\r\n", 1},
	{"delete wdiff_a\r\n", 1},
	{"delete wdiff_a\r\n", 1},
	{"mg wdiff_n v\r\n", 2},
	{"mg wdiff_missing v\r\n", 1},
	{"ms wdiff_m 2\r\nhi\r\n", 1},
	{"ms wdiff_m 2 MA\r\nhi\r\n", 1},
	{"ms wdiff_m 2 ME\r\nhi\r\n", 1},
	{"md wdiff_m\r\n", 1},
	{"ma wdiff_n\r\n", 1},
	{"ma wdiff_v N0 J7 v\r\n", 2},
	{"mg wdiff_w N30 s v\r\n", 2},
	{"get wdiff_%\xff\r\n", 1},
	{"set wdiff_e 0 -1 1\r\nx\r\n", 1},
	{"get wdiff_e\r\n", 1},
	{"set wdiff_big 0 0 2000000\r\n" + strings.Repeat("x", 2000000) + "\r\n", 1},
}

// watchBinarySteps are binary requests (opcode, key, extras, value) sent
// after watchSteps, each waited for: the binary protocol's fetches and
// stores log as the text commands' do.
var watchBinarySteps = []struct {
	op                 byte
	key, extras, value string
}{
	{0x00, "wdiff_bin", "", ""},                                    // Get, a miss
	{0x01, "wdiff_bin", "\x00\x00\x00\x00\x00\x00\x00\x64", "abc"}, // Set, exptime 100
	{0x0c, "wdiff_bin", "", ""},                                    // GetK
	{0x0e, "wdiff_bin", "", "de"},                                  // Append
	{0x02, "wdiff_bin", "\x00\x00\x00\x00\x00\x00\x00\x00", "x"},   // Add, not stored
	{0x1c, "wdiff_bin", "\x00\x00\x00\x0a", ""},                    // Touch
	{0x1d, "wdiff_bin", "\x00\x00\x00\x0a", ""},                    // GAT
	{0x04, "wdiff_bin", "", ""},                                    // Delete
	{0x05, "wdiff_bin_n", "\x00\x00\x00\x00\x00\x00\x00\x01" + "\x00\x00\x00\x00\x00\x00\x00\x05" + "\x00\x00\x00\x00", ""}, // Increment, created at 5
	{0x05, "wdiff_bin_n", "\x00\x00\x00\x00\x00\x00\x00\x01" + "\x00\x00\x00\x00\x00\x00\x00\x05" + "\x00\x00\x00\x00", ""}, // Increment
}

// binRoundTrip sends one binary request and returns its reply's status and
// body.
func (w *watchConn) binRoundTrip(t *testing.T, req []byte) string {
	t.Helper()
	if _, err := w.c.Write(req); err != nil {
		t.Fatal(err)
	}
	w.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	h := make([]byte, 24)
	if _, err := io.ReadFull(w.r, h); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(h[8:]))
	if _, err := io.ReadFull(w.r, body); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("status %#x body %q", binary.BigEndian.Uint16(h[6:]), body[int(h[4]):])
}

// TestMemcWatchDifferential: a "watch fetchers mutations" connection on
// each server, then the same requests; the lines about this test's keys
// must match once normalised. Also watch's own replies: an unknown
// argument, noreply, and a watch pipelined behind another reply.
func TestMemcWatchDifferential(t *testing.T) {
	type result struct {
		replies []string
		lines   []string
	}
	keep := regexp.MustCompile(`key=wdiff_`)
	stop := regexp.MustCompile(`key=wdiff_end `)
	run := func(addr string) result {
		var res result
		probe := dialWatch(t, addr)
		res.replies = append(res.replies,
			probe.send(t, "watch bogus\r\n", 1),
			probe.send(t, "watch fetchers noreply\r\nversion\r\n", 1)[:8],
			probe.send(t, "set wdiff_p 0 0 1\r\nx\r\nwatch\r\n", 2),
		)
		w := dialWatch(t, addr)
		res.replies = append(res.replies, w.send(t, "watch fetchers mutations\r\n", 1))
		time.Sleep(100 * time.Millisecond) // memcached's workers pick up the flags
		c := dialWatch(t, addr)
		for _, st := range watchSteps {
			res.replies = append(res.replies, c.send(t, st.req, st.lines))
		}
		bc := dialWatch(t, addr)
		for _, st := range watchBinarySteps {
			res.replies = append(res.replies, bc.binRoundTrip(t, binaryRequest(st.op, st.key, st.extras, st.value)))
		}
		res.replies = append(res.replies, c.send(t, "get wdiff_end\r\n", 1))
		res.lines = w.until(t, keep, stop)
		return res
	}
	ref, sut := both(run, refMemc, sutMemc)
	for _, r := range []*result{&ref, &sut} { // CAS uniques count each server's writes
		for i, rep := range r.replies {
			r.replies[i] = watchCAS.ReplaceAllString(rep, "$1 *")
		}
	}
	for i := range max(len(ref.replies), len(sut.replies)) {
		if i >= len(ref.replies) || i >= len(sut.replies) || ref.replies[i] != sut.replies[i] {
			t.Errorf("reply %d differs:\nmemcached %q\n%s %q", i, lineAt(ref.replies, i), sideName(), lineAt(sut.replies, i))
		}
	}
	if len(ref.lines) < 40 {
		t.Errorf("memcached logged only %d lines: %q", len(ref.lines), ref.lines)
	}
	compareWatchLines(t, ref.lines, sut.lines)
}

func lineAt(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<none>"
}

func compareWatchLines(t *testing.T, ref, sut []string) {
	t.Helper()
	for i := range max(len(ref), len(sut)) {
		if lineAt(ref, i) != lineAt(sut, i) {
			t.Errorf("log line %d differs:\nmemcached %q\n%s %q", i, lineAt(ref, i), sideName(), lineAt(sut, i))
		}
	}
}

// TestMemcWatchEvictionsConnEvents runs a server of its own on each side
// with 8 MB of memory, fills it past that with "watch evictions
// connevents" attached, and compares: the connection events of one client
// (rip= and reason=), and the first eviction lines with the key, la= and
// clsid= masked (which key goes, and memcached's slab class, are each
// allocator's own).
func TestMemcWatchEvictionsConnEvents(t *testing.T) {
	dir := t.TempDir()
	memcBin, err := realserver.Lookup(realserver.Memcached)
	if err != nil {
		t.Fatal(err)
	}
	memc := memcachedArgs(memcBin, "-m", "8")
	ref := startFor(t, dir, "memcached-watch", 1, memc).addrs[0]
	var sut string
	if selfTest {
		sut = startFor(t, dir, "memcached-watch-selftest", 1, memc).addrs[0]
	} else {
		sut = startFor(t, dir, "tandem-watch", 2, func(p []int) []string {
			return []string{tandemBin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
				"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--maxmemory", "8mb", "--maxmemory-policy", "allkeys-lru"}
		}).addrs[1]
	}
	evictMask := regexp.MustCompile(`\b(key|la|clsid)=\S+`)
	value := strings.Repeat("v", 10000)
	run := func(addr string) []string {
		w := dialWatch(t, addr)
		if got := w.send(t, "watch evictions connevents\r\n", 1); got != "OK\r\n" {
			t.Errorf("%s: watch: %q", addr, got)
		}
		time.Sleep(100 * time.Millisecond)
		c := dialWatch(t, addr)
		c.send(t, "version\r\n", 1)
		c.send(t, "quit\r\n", 0)
		lines := []string{normWatch(w.line(t)), normWatch(w.line(t))}
		f := dialWatch(t, addr)
		for i := range 3000 {
			f.send(t, fmt.Sprintf("set wfill_%d 0 0 %d noreply\r\n%s\r\n", i, len(value), value), 0)
		}
		f.send(t, "version\r\n", 1)
		evictions := 0
		for evictions < 5 {
			l := w.line(t)
			if !strings.Contains(l, "type=eviction") {
				continue
			}
			evictions++
			lines = append(lines, evictMask.ReplaceAllString(normWatch(l), "$1=*"))
		}
		return lines
	}
	r, s := both(run, ref, sut)
	t.Logf("memcached's lines, normalised: %q", r)
	compareWatchLines(t, r, s)
}

// TestMemcWatchSlowWatcher: a watcher that never reads must not slow other
// clients nor grow the server: with one attached, 100 000 gets (some 15 MB
// of log lines) run about as fast as without, the server's resident
// memory grows by far less than the lines' size, and stats counts the
// lines skipped. Tandem only (it reads the server's /proc status).
func TestMemcWatchSlowWatcher(t *testing.T) {
	mustNotSelfTest(t)
	dir := t.TempDir()
	srv := startFor(t, dir, "tandem-slow-watcher", 2, func(p []int) []string {
		return []string{tandemBin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
			"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--memcached-watcher-logbuf-size", "65536"}
	})
	addr := srv.addrs[1]
	key := strings.Repeat("k", 100)
	gets := func(c *watchConn, n int) time.Duration {
		start := time.Now()
		const batch = 100
		req := strings.Repeat("get "+key+"\r\n", batch)
		for range n / batch {
			c.send(t, req, batch)
		}
		return time.Since(start)
	}
	c := dialWatch(t, addr)
	base := gets(c, 20000) // also warms the server up
	rss0 := residentKB(t, srv.cmd.Process.Pid)
	w := dialWatch(t, addr)
	if tc, ok := w.c.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096) // a small window: the server's socket fills soon
	}
	if got := w.send(t, "watch fetchers\r\n", 1); got != "OK\r\n" {
		t.Fatalf("watch: %q", got)
	}
	slow := gets(c, 100000) / 5 // per 20 000, as base
	rss1 := residentKB(t, srv.cmd.Process.Pid)
	stats := c.send(t, "stats\r\n", 0)
	for {
		l := c.line(t)
		stats += l
		if l == "END\r\n" {
			break
		}
	}
	if !strings.Contains(stats, "STAT log_watchers 1\r\n") || strings.Contains(stats, "STAT log_watcher_skipped 0\r\n") {
		t.Errorf("want one watcher and skipped lines:\n%s", stats)
	}
	t.Logf("20 000 gets: %v without a watcher, %v with one that does not read; RSS %d kB -> %d kB", base, slow, rss0, rss1)
	if slow > 3*base+time.Second {
		t.Errorf("a watcher that does not read slowed a client from %v to %v per 20 000 gets", base, slow)
	}
	if grown := rss1 - rss0; grown > 8<<10 {
		t.Errorf("resident memory grew by %d kB with a watcher that does not read (its lines: ~15 MB)", grown)
	}
}

// residentKB is a process's VmRSS.
func residentKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
