package services_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/repl"
	"github.com/tandemkv/tandem/services"
)

// fakeReplicaConn is a replica's connection that keeps nothing.
type fakeReplicaConn struct {
	mu  sync.Mutex
	out []byte
}

func (c *fakeReplicaConn) Send(p []byte) error {
	c.mu.Lock()
	c.out = append(c.out, p...)
	c.mu.Unlock()
	return nil
}
func (c *fakeReplicaConn) Pending() int       { return 0 }
func (c *fakeReplicaConn) Close()             {}
func (c *fakeReplicaConn) RemoteAddr() string { return "10.0.0.9:50000" }

func args(s ...string) (out [][]byte) {
	for _, a := range s {
		out = append(out, []byte(a))
	}
	return out
}

func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !f(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out: " + what)
		}
	}
}

// FAILOVER's state machine in the services: its refusals in Redis's
// order, the write pause it holds while waiting, TIMEOUT giving up, ABORT,
// and a switch that cannot start (no replication wired) aborting.
func TestFailoverStates(t *testing.T) {
	cfg, err := conf.Load([]string{"--dir", t.TempDir(), "--repl-diskless-sync-delay", "0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := services.New(services.Options{Config: cfg})
	r, gate := svc.Replication, svc.Engine.Gate()
	to := services.FailoverOptions{HasTarget: true, Host: "10.0.0.9", Port: 6380}
	if err := r.Failover(to); err != services.ErrFailoverNoReplicas {
		t.Fatalf("no replicas: %v", err)
	}
	l := r.NewLink(&fakeReplicaConn{})
	l.Replconf(args("REPLCONF", "listening-port", "6380"))
	l.Sync(args("PSYNC", "?", "-1"))
	eventually(t, "the replica online", func() bool { return r.Primary.FindReplica("10.0.0.9", 6380).Online })

	for _, c := range []struct {
		o    services.FailoverOptions
		want error
	}{
		{services.FailoverOptions{Force: true}, services.ErrFailoverForce},
		{services.FailoverOptions{Force: true, Timeout: time.Second}, services.ErrFailoverForce},
		{services.FailoverOptions{HasTarget: true, Host: "10.0.0.9", Port: 6380, Force: true}, services.ErrFailoverForce},
		{services.FailoverOptions{HasTarget: true, Host: "10.0.0.9", Port: 1}, services.ErrFailoverNotReplica},
	} {
		if err := r.Failover(c.o); err != c.want {
			t.Errorf("%+v: %v, want %v", c.o, err, c.want)
		}
	}
	if gate.Paused(true) || r.FailingOver() {
		t.Fatal("a refused FAILOVER left a pause or a state")
	}
	if err := r.AbortFailover(); err != services.ErrNoFailover {
		t.Fatalf("ABORT with none: %v", err)
	}

	// The replica never ACKs: TIMEOUT gives up, the pause ends.
	r.Primary.Feed(0, []byte("*1\r\n$4\r\nPING\r\n"))
	o := to
	o.Timeout = 30 * time.Millisecond
	if err := r.Failover(o); err != nil {
		t.Fatal(err)
	}
	if !gate.Paused(true) || gate.Paused(false) || !r.FailingOver() {
		t.Fatal("FAILOVER does not pause writes only")
	}
	if err := r.Failover(to); err != services.ErrFailoverInProgress {
		t.Fatalf("a second FAILOVER: %v", err)
	}
	eventually(t, "the timeout", func() bool { return !r.FailingOver() })
	if gate.Paused(true) {
		t.Fatal("paused after the timeout")
	}

	// ABORT while waiting; CLIENT UNPAUSE does not end the failover's pause.
	if err := r.Failover(to); err != nil {
		t.Fatal(err)
	}
	gate.Unpause()
	if !gate.Paused(true) {
		t.Fatal("CLIENT UNPAUSE lifted FAILOVER's pause")
	}
	if err := r.AbortFailover(); err != nil {
		t.Fatal(err)
	}
	if gate.Paused(true) || r.FailingOver() {
		t.Fatal("paused or failing over after ABORT")
	}

	// The replica catches up: the switch starts, but with no replication
	// wired it cannot, and the failover aborts — still a master.
	if err := r.Failover(to); err != nil {
		t.Fatal(err)
	}
	l.Replconf(args("REPLCONF", "ACK", strconv.FormatInt(r.Primary.Offset(), 10)))
	eventually(t, "the aborted switch", func() bool { return !r.FailingOver() })
	if r.IsReplica() || gate.Paused(true) {
		t.Fatalf("after the failed switch: replica %v, paused %v", r.IsReplica(), gate.Paused(true))
	}
	if in := r.Primary.Info(); in.FailoverState != repl.NoFailover {
		t.Fatalf("INFO state %v", in.FailoverState)
	}
}
