package repl

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandemkv/tandem/propagate"
)

// fakeConn records what a replica was sent.
type fakeConn struct {
	mu      sync.Mutex
	out     bytes.Buffer
	pending int
	closed  bool
}

func (c *fakeConn) Send(p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.Write(p)
	return nil
}
func (c *fakeConn) Pending() int       { c.mu.Lock(); defer c.mu.Unlock(); return c.pending }
func (c *fakeConn) Close()             { c.mu.Lock(); c.closed = true; c.mu.Unlock() }
func (c *fakeConn) RemoteAddr() string { return "10.0.0.7:40000" }
func (c *fakeConn) text() string       { c.mu.Lock(); defer c.mu.Unlock(); return c.out.String() }
func (c *fakeConn) isClosed() bool     { c.mu.Lock(); defer c.mu.Unlock(); return c.closed }
func (c *fakeConn) reset()             { c.mu.Lock(); c.out.Reset(); c.mu.Unlock() }

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func newClock() *clock                   { return &clock{t: time.Unix(1_700_000_000, 0)} }
func cmd(args ...string) []byte          { return propagate.AppendCommand(nil, bs(args)...) }
func bs(args []string) (out [][]byte) {
	for _, a := range args {
		out = append(out, []byte(a))
	}
	return
}
func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// testPrimary is a Primary on a test clock whose snapshot is the text
// "RDB" plus the offset it was cut at.
func testPrimary(t testing.TB, mutate func(*Config)) (*Primary, *clock) {
	cfg := DefaultConfig()
	cfg.BacklogSize = 64
	cfg.DisklessSyncDelay = 0 // TestDisklessDelayShares has its own
	cfg.TempDir = t.TempDir()
	cfg.Snapshot = func(w io.Writer, _ Filter, cut func() Cut) error {
		cut()
		_, err := io.WriteString(w, "RDBDATA")
		return err
	}
	if mutate != nil {
		mutate(&cfg)
	}
	c := newClock()
	p := newPrimary(cfg, c.now)
	t.Cleanup(p.Close) // before TempDir's removal: a sync's spool is gone
	return p, c
}

// attach runs REPLCONF capa … and PSYNC and waits for the link to be
// online; it returns the connection's bytes so far.
func attach(t *testing.T, p *Primary, capa []string, id string, off string) (*Link, *fakeConn) {
	t.Helper()
	c := &fakeConn{}
	l := p.NewLink(c)
	args := []string{"REPLCONF", "listening-port", "6380"}
	for _, k := range capa {
		args = append(args, "capa", k)
	}
	if got := string(l.Replconf(bs(args))); got != "+OK\r\n" {
		t.Fatalf("REPLCONF: %q", got)
	}
	if r := l.Sync(bs([]string{"PSYNC", id, off})); r != nil {
		t.Fatalf("PSYNC: %q", r)
	}
	waitFor(t, "online", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return l.state == stateOnline || l.closed
	})
	return l, c
}

func TestPSYNCFullThenContinue(t *testing.T) {
	p, _ := testPrimary(t, func(c *Config) { c.BacklogSize = 1024 })
	before := p.ReplID()
	p.Feed(0, cmd("SET", "nobody", "listens")) // no backlog, no replica: dropped
	if p.Offset() != 0 {
		t.Fatalf("offset %d before any replica", p.Offset())
	}
	_, c := attach(t, p, []string{"psync2"}, "?", "-1")
	id := p.ReplID()
	if id == before || len(id) != 40 {
		t.Fatalf("backlog creation must pick a new replid: %q -> %q", before, id)
	}
	if want := "+FULLRESYNC " + id + " 0\r\n\n"; !strings.HasPrefix(c.text(), "+FULLRESYNC "+id+" 0\r\n") {
		t.Fatalf("got %q want prefix %q", c.text(), want)
	}
	if !strings.HasSuffix(c.text(), "$7\r\nRDBDATA") {
		t.Fatalf("spooled RDB: %q", c.text())
	}
	c.reset()
	set := cmd("SET", "k", "v")
	p.Feed(0, set)
	p.Feed(0, set)
	p.Feed(3, set)
	want := string(cmd("SELECT", "0")) + string(set) + string(set) + string(cmd("SELECT", "3")) + string(set)
	if c.text() != want {
		t.Fatalf("stream %q want %q", c.text(), want)
	}
	if p.Offset() != int64(len(want)) {
		t.Fatalf("offset %d want %d", p.Offset(), len(want))
	}

	// A second replica that has the first 10 bytes continues from 11.
	_, c2 := attach(t, p, []string{"eof", "psync2"}, id, "11")
	if got := c2.text(); got != "+CONTINUE "+id+"\r\n"+want[10:] {
		t.Fatalf("continue: %q", got)
	}
	// Without capa psync2 the reply has no ID; the exact end of the
	// backlog continues with nothing to send.
	_, c3 := attach(t, p, nil, strings.ToUpper(id), itoa(int64(len(want)+1)))
	if got := c3.text(); got != "+CONTINUE\r\n" {
		t.Fatalf("continue at the end: %q", got)
	}
	if p.syncPartOK != 2 || p.syncFull != 1 {
		t.Fatalf("stats partial ok %d full %d", p.syncPartOK, p.syncFull)
	}
}

func TestPSYNCDecisions(t *testing.T) {
	p, _ := testPrimary(t, nil)
	attach(t, p, nil, "?", "-1")
	for i := 0; i < 20; i++ {
		p.Feed(0, cmd("INCR", "counter"))
	}
	id := p.ReplID()
	// Promotion: our ID becomes ID2, valid up to offset+1.
	p.mu.Lock()
	p.shiftIDLocked()
	id1, second := p.replid, p.secondOffset
	p.mu.Unlock()
	p.Feed(0, cmd("INCR", "counter"))
	p.mu.Lock()
	defer p.mu.Unlock()
	first := p.backlog.first
	if first <= 1 || first >= second {
		t.Fatalf("the test needs a wrapped backlog holding the shift: first %d second %d", first, second)
	}
	cases := []struct {
		id   string
		off  int64
		want bool
	}{
		{"?", 1, false},
		{id1, first, true},
		{id1, first - 1, false},   // trimmed from the backlog
		{id1, p.offset + 1, true}, // nothing to send
		{id1, p.offset + 2, false},
		{id, second, true}, // the old history, up to second_replid_offset
		{id, first, true},
		{id, second + 1, false}, // not valid past the shift
		{strings.Repeat("a", 40), first, false},
	}
	for _, c := range cases {
		if got := p.canContinue(c.id, c.off); got != c.want {
			t.Errorf("canContinue(%s, %d) = %v want %v (first %d, second %d, offset %d)", c.id[:1], c.off, got, c.want, first, p.secondOffset, p.offset)
		}
	}
}

// Writes fed between the cut and the end of the RDB reach the replica
// after the RDB, starting with a SELECT; diskless, only after its first
// ACK.
func TestFullSyncHoldsTheStream(t *testing.T) {
	for _, diskless := range []bool{false, true} {
		release := make(chan struct{})
		cutAt := make(chan struct{})
		p, _ := testPrimary(t, func(c *Config) {
			c.Snapshot = func(w io.Writer, _ Filter, cut func() Cut) error {
				cut()
				close(cutAt)
				<-release
				_, err := io.WriteString(w, "RDB")
				return err
			}
		})
		p.Feed(5, cmd("SET", "a", "1"))
		c := &fakeConn{}
		l := p.NewLink(c)
		if diskless {
			l.Replconf(bs([]string{"REPLCONF", "capa", "eof"}))
		}
		l.Sync(bs([]string{"PSYNC", "?", "-1"}))
		<-cutAt
		p.Feed(5, cmd("SET", "b", "2"))
		close(release)
		waitFor(t, "online", func() bool { p.mu.Lock(); defer p.mu.Unlock(); return l.state == stateOnline })
		stream := string(cmd("SELECT", "5")) + string(cmd("SET", "b", "2"))
		out := c.text()
		if diskless {
			if strings.Contains(out, "SELECT") {
				t.Fatalf("diskless: stream before the first ACK: %q", out)
			}
			mark := out[strings.Index(out, "$EOF:")+5:][:40]
			if !strings.HasSuffix(out, "$EOF:"+mark+"\r\nRDB"+mark) {
				t.Fatalf("diskless framing: %q", out)
			}
			l.Replconf(bs([]string{"REPLCONF", "ACK", "0"}))
			if got := strings.TrimPrefix(c.text(), out); got != stream {
				t.Fatalf("after ACK: %q want %q", got, stream)
			}
		} else if !strings.HasSuffix(out, "\r\n$3\r\nRDB"+stream) {
			t.Fatalf("disk: %q", out)
		}
	}
}

func TestReplconfReplies(t *testing.T) {
	p, _ := testPrimary(t, nil)
	l := p.NewLink(&fakeConn{})
	cases := []struct{ args, want string }{
		{"REPLCONF", "+OK\r\n"},
		{"REPLCONF listening-port", "-ERR syntax error\r\n"},
		{"REPLCONF listening-port x", "-ERR value is not an integer or out of range\r\n"},
		{"REPLCONF capa eof capa psync2 capa other", "+OK\r\n"},
		{"REPLCONF ip-address " + strings.Repeat("i", 256), "-ERR REPLCONF ip-address provided by replica instance is too long: 256 bytes\r\n"},
		{"REPLCONF nosuch 1", "-ERR Unrecognized REPLCONF option: nosuch\r\n"},
		{"REPLCONF ack 10", ""},
		{"REPLCONF getack *", ""},
		{"REPLCONF rdb-only 2", "-ERR value is out of range, must be between 0 and 1\r\n"},
	}
	for _, c := range cases {
		if got := string(l.Replconf(bs(strings.Fields(c.args)))); got != c.want {
			t.Errorf("%s: %q want %q", c.args, got, c.want)
		}
	}
	if !l.capaEOF || !l.capaPSYNC2 {
		t.Fatal("capa not recorded")
	}
	if got := string(l.Sync(bs([]string{"PSYNC", "?", "x"}))); got != "-ERR value is not an integer or out of range\r\n" {
		t.Fatalf("PSYNC bad offset: %q", got)
	}
}

func TestWaitAndGoodReplicas(t *testing.T) {
	p, clk := testPrimary(t, func(c *Config) { c.MinReplicas = 1 })
	l, _ := attach(t, p, []string{"psync2"}, "?", "-1")
	p.Feed(0, cmd("SET", "k", "v"))
	off := p.Offset()
	got := make(chan int, 1)
	p.WaitAsync(1, off, 0, func(n int) { got <- n })
	select {
	case n := <-got:
		t.Fatalf("WAIT returned %d before any ACK", n)
	default:
	}
	p.sendGetAck()
	l.Replconf(bs([]string{"REPLCONF", "ACK", "1"}))
	select {
	case n := <-got:
		t.Fatalf("WAIT returned %d on a short ACK", n)
	default:
	}
	l.Replconf(bs([]string{"REPLCONF", "ACK", itoa(off)}))
	if n := <-got; n != 1 {
		t.Fatalf("WAIT %d", n)
	}
	if p.GoodReplicas() != 1 || !p.EnoughReplicas() {
		t.Fatal("fresh ACK: one good replica")
	}
	clk.advance(11 * time.Second)
	if p.GoodReplicas() != 0 || p.EnoughReplicas() {
		t.Fatal("ACK 11s old with min-replicas-max-lag 10: no good replica")
	}
	// Timeout: the count then.
	done := make(chan int, 1)
	p.WaitAsync(2, off, 20*time.Millisecond, func(n int) { done <- n })
	if n := <-done; n != 1 {
		t.Fatalf("WAIT timeout %d", n)
	}
	clk.advance(61 * time.Second)
	p.Cron()
	if len(p.Info().Slaves) != 0 {
		t.Fatal("replica silent past repl-timeout must be dropped")
	}
}

func TestCronPingAndOutputLimit(t *testing.T) {
	p, clk := testPrimary(t, func(c *Config) { c.OutputSoft = 100; c.OutputSoftTime = 2 * time.Second })
	_, c := attach(t, p, []string{"psync2"}, "?", "-1")
	c.reset()
	for i := 0; i < 10; i++ {
		p.Cron()
	}
	if got := c.text(); got != string(pingCommand) {
		t.Fatalf("ten cron seconds: %q want one PING", got)
	}
	c.mu.Lock()
	c.pending = 150
	c.mu.Unlock()
	p.Cron()
	clk.advance(time.Second)
	p.Cron()
	if c.isClosed() {
		t.Fatal("dropped before the soft limit's time")
	}
	clk.advance(time.Second)
	p.Cron()
	if c.isClosed() || len(p.Info().Slaves) != 1 {
		t.Fatal("dropped at exactly the soft limit's time (Redis drops past it)")
	}
	clk.advance(time.Second)
	p.Cron()
	waitFor(t, "drop over the soft limit", c.isClosed)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// SYNC (before PSYNC) gets the RDB with no +FULLRESYNC line; a replica
// whose link is down refuses to serve; over the hard output limit a
// replica is dropped at once.
func TestSyncNoMasterLinkHardLimit(t *testing.T) {
	p, _ := testPrimary(t, func(c *Config) { c.OutputHard = 1000 })
	c := &fakeConn{}
	l := p.NewLink(c)
	if r := l.Sync(bs([]string{"SYNC"})); r != nil {
		t.Fatalf("SYNC: %q", r)
	}
	waitFor(t, "online", func() bool { p.mu.Lock(); defer p.mu.Unlock(); return l.state == stateOnline })
	if got := c.text(); got != "$7\r\nRDBDATA" {
		t.Fatalf("SYNC sent %q", got)
	}
	c.mu.Lock()
	c.pending = 1000 // at the limit: Redis drops at >= hard
	c.mu.Unlock()
	p.Feed(0, cmd("SET", "k", "0123456789"))
	waitFor(t, "drop over the hard limit", c.isClosed)

	p.mu.Lock()
	p.replica = &Replica{p: p, state: replConnecting}
	p.mu.Unlock()
	t.Cleanup(func() { p.mu.Lock(); p.replica = nil; p.mu.Unlock() }) // a fake: nothing to halt
	if got := string(p.NewLink(&fakeConn{}).Sync(bs([]string{"PSYNC", "?", "-1"}))); got != "-NOMASTERLINK Can't SYNC while not connected with my master\r\n" {
		t.Fatalf("PSYNC on a replica without link: %q", got)
	}
	off := p.Offset()
	p.Feed(0, cmd("SET", "k", "v"))
	if p.Offset() != off {
		t.Fatal("a replica's Primary must ignore Feed")
	}
}

// INFO replication's lines and ROLE on a master with one replica.
func TestInfoAndRole(t *testing.T) {
	p, clk := testPrimary(t, func(c *Config) { c.MinReplicas = 1 })
	l, _ := attach(t, p, []string{"psync2"}, "?", "-1")
	l.Replconf(bs([]string{"REPLCONF", "ACK", "0"}))
	p.Feed(0, cmd("SET", "k", "v"))
	clk.advance(2 * time.Second)
	in := p.Info()
	got := string(in.Append(nil))
	want := "role:master\r\nconnected_slaves:1\r\nmin_slaves_good_slaves:1\r\n" +
		"slave0:ip=10.0.0.7,port=6380,state=online,offset=0,lag=2\r\n" +
		"master_failover_state:no-failover\r\nmaster_replid:" + p.ReplID() + "\r\n" +
		"master_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:50\r\n" +
		"second_repl_offset:-1\r\nrepl_backlog_active:1\r\nrepl_backlog_size:64\r\n" +
		"repl_backlog_first_byte_offset:1\r\nrepl_backlog_histlen:50\r\n"
	if got != want {
		t.Fatalf("INFO\n%q\nwant\n%q", got, want)
	}
	ro := p.Role()
	if !ro.Master || ro.Offset != 50 || len(ro.Replicas) != 1 || ro.Replicas[0] != (RoleReplica{"10.0.0.7", 6380, 0}) {
		t.Fatalf("ROLE %+v", ro)
	}
}

// A master restarted from an RDB that recorded its replication position
// lets its replicas continue: the recorded ID is its ID2 up to offset+1.
func TestRestoreHistory(t *testing.T) {
	p, _ := testPrimary(t, nil)
	old := strings.Repeat("c", 40)
	p.RestoreHistory(Cut{Offset: 1000, ReplID: old, StreamDB: 2}, false)
	_, c := attach(t, p, []string{"psync2"}, old, "1001")
	if got := c.text(); got != "+CONTINUE "+p.ReplID()+"\r\n" {
		t.Fatalf("%q", got)
	}
	if info, ok := p.SaveInfo(); !ok || info.Offset != 1000 || info.ReplID != p.ReplID() || info.StreamDB != 0 {
		t.Fatalf("SaveInfo %+v %v", info, ok)
	}
	p.Feed(4, cmd("SET", "k", "v"))
	if info, _ := p.SaveInfo(); info.StreamDB != 4 {
		t.Fatalf("stream db %d", info.StreamDB)
	}
	fresh, _ := testPrimary(t, nil)
	if _, ok := fresh.SaveInfo(); ok {
		t.Fatal("a master without backlog records no replication info")
	}
}

// BenchmarkFeed is the write path with two online replicas: backlog,
// SELECT check, two sends.
func BenchmarkFeed(b *testing.B) {
	p, _ := testPrimary(b, func(c *Config) { c.BacklogSize = 1 << 20; c.OutputHard, c.OutputSoft = 0, 0 })
	for i := 0; i < 2; i++ {
		l := p.NewLink(discardConn{})
		p.mu.Lock()
		l.attached, l.state = true, stateOnline
		p.links = append(p.links, l)
		p.createBacklogLocked()
		p.mu.Unlock()
	}
	c := cmd("SET", "key:000000000001", "value-of-some-sixty-four-bytes-0123456789012345678901234567890")
	b.SetBytes(int64(len(c)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.Feed(i&1, c)
	}
}

type discardConn struct{}

func (discardConn) Send([]byte) error  { return nil }
func (discardConn) Pending() int       { return 0 }
func (discardConn) Close()             {}
func (discardConn) RemoteAddr() string { return "127.0.0.1:1" }

// Diskless replicas wait repl-diskless-sync-delay (checked by the cron)
// so that those arriving together share one snapshot; with
// repl-diskless-sync-max-replicas waiting it starts at once.
func TestDisklessDelayShares(t *testing.T) {
	var snapshots atomic.Int32
	p, clk := testPrimary(t, func(c *Config) {
		c.DisklessSyncDelay = 5 * time.Second
		c.DisklessSyncMaxReplicas = 3
		c.Snapshot = func(w io.Writer, _ Filter, cut func() Cut) error {
			snapshots.Add(1)
			cut()
			_, err := io.WriteString(w, "RDB")
			return err
		}
	})
	var conns []*fakeConn
	var links []*Link
	join := func() {
		c := &fakeConn{}
		l := p.NewLink(c)
		l.Replconf(bs([]string{"REPLCONF", "capa", "eof", "capa", "psync2"}))
		l.Sync(bs([]string{"PSYNC", "?", "-1"}))
		conns, links = append(conns, c), append(links, l)
	}
	online := func(l *Link) bool { p.mu.Lock(); defer p.mu.Unlock(); return l.state == stateOnline }
	join()
	clk.advance(3 * time.Second)
	join()
	p.Cron()
	time.Sleep(20 * time.Millisecond)
	if snapshots.Load() != 0 || strings.Contains(conns[0].text(), "FULLRESYNC") {
		t.Fatal("started before repl-diskless-sync-delay")
	}
	clk.advance(2 * time.Second)
	p.Cron()
	waitFor(t, "both online", func() bool { return online(links[0]) && online(links[1]) })
	if n := snapshots.Load(); n != 1 {
		t.Fatalf("%d snapshots for two replicas waiting together", n)
	}
	first := func(c *fakeConn) string {
		s := strings.TrimLeft(c.text(), "\n")
		return s[:strings.Index(s, "\r\n")]
	}
	if a, b := first(conns[0]), first(conns[1]); a != b || !strings.HasPrefix(a, "+FULLRESYNC ") {
		t.Fatalf("different transfers: %q, %q", a, b)
	}
	for range 3 {
		join()
	}
	waitFor(t, "max-replicas start at once", func() bool { return online(links[2]) && online(links[3]) && online(links[4]) })
	if n := snapshots.Load(); n != 2 {
		t.Fatalf("%d snapshots", n)
	}
}
