package repl

import (
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/silenthost"
)

// FAILOVER's questions to the replicas: which one is at host:port, is it
// online, has it acknowledged this master's whole stream.
func TestFailoverFindsSyncedReplica(t *testing.T) {
	p, _ := testPrimary(t, nil)
	if p.Replicas() != 0 {
		t.Fatal("replicas before any attached")
	}
	l, _ := attach(t, p, []string{"psync2"}, "?", "-1")
	if st := p.FindReplica("10.0.0.7", 6380); !st.Found || !st.Online {
		t.Fatalf("the attached replica: %+v", st)
	}
	for _, miss := range []struct {
		host string
		port int
	}{{"10.0.0.7", 6381}, {"10.0.0.8", 6380}, {"localhost", 6380}} {
		if st := p.FindReplica(miss.host, miss.port); st.Found {
			t.Errorf("%s:%d found", miss.host, miss.port)
		}
	}
	p.Feed(0, cmd("SET", "k", "v"))
	off := p.Offset()
	if _, _, ok := p.SyncedReplica("", 0); ok {
		t.Fatal("synced before any ACK")
	}
	l.Replconf(bs([]string{"REPLCONF", "ACK", itoa(off - 1)}))
	if _, _, ok := p.SyncedReplica("10.0.0.7", 6380); ok {
		t.Fatal("synced one byte short")
	}
	l.Replconf(bs([]string{"REPLCONF", "ACK", itoa(off)}))
	if h, port, ok := p.SyncedReplica("", 0); !ok || h != "10.0.0.7" || port != 6380 {
		t.Fatalf("any replica: %s %d %v", h, port, ok)
	}
	if _, _, ok := p.SyncedReplica("10.0.0.7", 1); ok {
		t.Fatal("another target synced")
	}

	// A replica announcing its address (REPLCONF ip-address) is found by
	// it, without case.
	c := &fakeConn{}
	l2 := p.NewLink(c)
	l2.Replconf(bs([]string{"REPLCONF", "listening-port", "7000", "ip-address", "Replica.Example"}))
	l2.Sync(bs([]string{"PSYNC", "?", "-1"}))
	if st := p.FindReplica("replica.example", 7000); !st.Found {
		t.Fatal("not found by its announced address")
	}
	if p.Replicas() != 2 {
		t.Fatalf("%d replicas", p.Replicas())
	}
}

// INFO shows the state; a failover with a timeout holds the cron's PING,
// which would move the offset the replicas must reach.
func TestFailoverStateAndPing(t *testing.T) {
	p, clk := testPrimary(t, func(c *Config) { c.PingPeriod = time.Second })
	attach(t, p, []string{"psync2"}, "?", "-1")
	for _, s := range []FailoverState{FailoverWaitSync, FailoverInProgress, NoFailover} {
		p.SetFailover(s, false)
		in := p.Info()
		if got := string(in.Append(nil)); !strings.Contains(got, "master_failover_state:"+s.String()+"\r\n") {
			t.Errorf("INFO for %v:\n%s", s, got)
		}
	}
	p.SetFailover(FailoverWaitSync, true)
	off := p.Offset()
	for range 3 {
		clk.advance(time.Second)
		p.Cron()
	}
	if p.Offset() != off {
		t.Fatalf("PING fed while the failover holds it: %d -> %d", off, p.Offset())
	}
	// A WAIT meanwhile gets its GETACK once the failover is over.
	cancel := p.WaitAsync(1, off+1, 0, func(int) {})
	defer cancel()
	time.Sleep(20 * time.Millisecond)
	p.sendGetAck()
	if p.Offset() != off {
		t.Fatal("GETACK fed during the failover")
	}
	p.SetFailover(NoFailover, false)
	waitFor(t, "the GETACK after the failover", func() bool { return p.Offset() > off })
	off = p.Offset()
	clk.advance(time.Second)
	p.Cron()
	if p.Offset() == off {
		t.Fatal("no PING after the failover")
	}
}

// A master failed over asks its target with PSYNC <replid> <offset>
// FAILOVER, once, and hears the answer.
func TestReplicaSendsPSYNCFailover(t *testing.T) {
	m := newFakeMaster(t)
	p := NewPrimary(DefaultConfig())
	defer p.Close()
	id, off := p.ReplID(), p.Offset()
	done := make(chan bool, 2)
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: m.port(), ListeningPort: 1, Failover: true},
		Callbacks{Load: func(rd io.Reader) (int, error) { _, err := io.Copy(io.Discard, rd); return 0, err },
			FailoverPSYNC: func(ok bool) { done <- ok }})
	defer r.Stop()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("a +FULLRESYNC reported refused")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no outcome")
	}
	h := handshake(m.conn(0))
	if want := "PSYNC " + id + " " + itoa(off+1) + " FAILOVER"; h[len(h)-1] != want {
		t.Fatalf("%q, want %q last", h, want)
	}
}

// A target that refuses the PSYNC (here with an ACL error) aborts the
// failover: the outcome is reported refused.
func TestReplicaPSYNCFailoverRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				readCommands(c, func(args [][]byte) {
					switch strings.ToUpper(string(args[0])) {
					case "PING":
						c.Write([]byte("+PONG\r\n"))
					case "PSYNC":
						c.Write([]byte("-NOPERM this user has no permissions to run the 'psync' command\r\n"))
					default:
						c.Write([]byte("+OK\r\n"))
					}
				})
			}()
		}
	}()
	p := NewPrimary(DefaultConfig())
	defer p.Close()
	done := make(chan bool, 2)
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, ListeningPort: 1, Failover: true},
		Callbacks{FailoverPSYNC: func(ok bool) { done <- ok }})
	defer r.Stop()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("a refused PSYNC reported accepted")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no outcome")
	}
}

// Stop does not wait for a connect to a silent host (FAILOVER ABORT of a
// switch to an unreachable target, REPLICAOF NO ONE).
func TestReplicaStopDuringConnect(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Timeout = time.Minute
	p := NewPrimary(cfg)
	defer p.Close()
	host, port, _ := net.SplitHostPort(silenthost.Addr(t))
	portN, _ := strconv.Atoi(port)
	r := p.StartReplica(ReplicaOptions{Host: host, Port: portN, ListeningPort: 1}, Callbacks{})
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	r.Stop()
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("Stop took %v", d)
	}
}

// Drain ends the session once the master's stream is quiet, without a
// reconnect: a promotion's Stop follows.
func TestReplicaDrainEndsTheSession(t *testing.T) {
	m := newFakeMaster(t)
	p := NewPrimary(DefaultConfig())
	defer p.Close()
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: m.port(), ListeningPort: 1},
		Callbacks{Load: func(rd io.Reader) (int, error) { _, err := io.Copy(io.Discard, rd); return 0, err }})
	eventually(t, "synced", func() bool { return p.Role().State == "connected" })
	t0 := time.Now()
	r.Drain(5 * time.Millisecond)
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("Drain took %v", d)
	}
	if s := p.Role().State; s == "connected" {
		t.Fatal("still connected after Drain")
	}
	time.Sleep(1200 * time.Millisecond) // past the reconnect pause
	if m.conn(1) != nil {
		t.Fatal("reconnected after Drain")
	}
	r.Stop()
}

// Close waits for a spooled full sync in flight and leaves no spool file
// behind (CI saw TempDir's removal race the sync's goroutine).
func TestCloseWaitsForSpooledSync(t *testing.T) {
	dir := t.TempDir()
	started := make(chan struct{})
	p := NewPrimary(DefaultConfig())
	p.SetConfig(func() Config {
		cfg := DefaultConfig()
		cfg.DisklessSync = false
		cfg.TempDir = dir
		cfg.Snapshot = func(w io.Writer, _ Filter, cut func() Cut) error {
			cut()
			close(started)
			for { // an endless dataset: only the replica's going ends it
				if _, err := w.Write(make([]byte, 4096)); err != nil {
					return err
				}
				time.Sleep(time.Millisecond)
			}
		}
		return cfg
	}())
	l := p.NewLink(&fakeConn{})
	l.Sync(bs([]string{"PSYNC", "?", "-1"}))
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the sync never started")
	}
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left in the spool dir after Close: %v", left)
	}
}

// The stream's PING keeps the server's schedule, counted from its start
// as Redis's replication_cron_loops, whenever the cron itself starts: a
// replica attaching five seconds in waits for loop 10, not a PING at once.
func TestPingOnTheServersSchedule(t *testing.T) {
	p, clk := testPrimary(t, func(c *Config) { c.PingPeriod = 10 * time.Second })
	clk.advance(5 * time.Second)
	attach(t, p, []string{"psync2"}, "?", "-1")
	off := p.Offset()
	for i := range 5 { // at 6 to 10 s: loops 5 to 9
		clk.advance(time.Second)
		p.Cron()
		if p.Offset() != off {
			t.Fatalf("PING on cron %d after attaching", i+1)
		}
	}
	clk.advance(time.Second)
	p.Cron() // loop 10
	if p.Offset() == off {
		t.Fatal("no PING at loop 10")
	}
}
