package resp

import (
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/server/servertest"
	"github.com/tandemkv/tandem/services"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// wakePeer is a fake connection that records Wake calls, as the server's
// loop would run Serve again.
type wakePeer struct {
	*fakePeer
	wakes chan struct{}
}

func (p *wakePeer) Wake() error {
	select {
	case p.wakes <- struct{}{}:
	default:
	}
	return nil
}

// loopClient drives a Client as the server does: unconsumed bytes stay
// pending and are offered again on the next Serve.
type loopClient struct {
	t       *testing.T
	env     *testEnv
	c       *Client
	peer    *wakePeer
	pending []byte
}

func (e *testEnv) loopClient() *loopClient {
	p := &wakePeer{fakePeer: servertest.NewPeer("127.0.0.1:6379"), wakes: make(chan struct{}, 1)}
	c := e.fe.NewSession(p).(*Client)
	return &loopClient{t: e.t, env: e, c: c, peer: p}
}

// send delivers bytes (none: a wake-up) and returns the replies written.
func (lc *loopClient) send(in string) string {
	lc.pending = append(lc.pending, in...)
	n, out, _ := lc.c.Serve(lc.pending, nil)
	lc.pending = lc.pending[n:]
	return string(out)
}

func (lc *loopClient) do(args ...string) string { return lc.send(encodeCommand(args...)) }

// woken reports whether Wake was called since the last check.
func (lc *loopClient) woken() bool {
	select {
	case <-lc.peer.wakes:
		return true
	default:
		return false
	}
}

func (lc *loopClient) expect(want string, args ...string) {
	lc.t.Helper()
	if got := lc.do(args...); got != want {
		lc.t.Errorf("%q: got %q, want %q", args, got, want)
	}
}

// expectWoken checks that the client was woken and that serving it now
// writes want.
func (lc *loopClient) expectWoken(want string) {
	lc.t.Helper()
	if !lc.woken() {
		lc.t.Errorf("not woken (want %q)", want)
	}
	if got := lc.send(""); got != want {
		lc.t.Errorf("after wake: got %q, want %q", got, want)
	}
}

// expectBlocks sends a command that must block: it replies nothing yet.
func (lc *loopClient) expectBlocks(args ...string) {
	lc.t.Helper()
	if got := lc.do(args...); got != "" {
		lc.t.Fatalf("%q did not block: %q", args, got)
	}
}

// expectAfter moves the test clock by d and checks what serving the client
// writes then ("": still blocked).
func (lc *loopClient) expectAfter(d time.Duration, want string) {
	lc.t.Helper()
	lc.env.clock.Advance(d)
	if got := lc.send(""); got != want {
		lc.t.Fatalf("after %v: got %q, want %q", d, got, want)
	}
}

// expectWaiting fails the test unless n waiters are queued in the engine.
func (e *testEnv) expectWaiting(n int) {
	e.t.Helper()
	if got := e.eng.Waiting(); got != n {
		e.t.Fatalf("engine waits: %d, want %d", got, n)
	}
}

// expectBlockedClients checks the blocked_clients count of INFO clients.
func (e *testEnv) expectBlockedClients(n int) {
	e.t.Helper()
	want := "blocked_clients:" + itoa(n) + "\r\n"
	if got := e.client().do("INFO", "clients"); !strings.Contains(got, want) {
		e.t.Errorf("INFO clients lacks %q: %q", want, got)
	}
}

// blockAndDisconnect parks a new client on each command, checks that
// together they queue waits waiters, then disconnects them all and checks
// that they leave no trace: no waiter, no blocked client.
func (e *testEnv) blockAndDisconnect(waits int, cmds ...[]string) {
	e.t.Helper()
	var parked []*loopClient
	for _, cmd := range cmds {
		lc := e.loopClient()
		lc.expectBlocks(cmd...)
		parked = append(parked, lc)
	}
	e.expectWaiting(waits)
	for _, lc := range parked {
		lc.c.Closed()
	}
	e.expectWaiting(0)
	e.expectBlockedClients(0)
}

func TestBlockingPopWokenByPush(t *testing.T) {
	env := newTestEnv(t)
	a, b := env.loopClient(), env.loopClient()
	// The pipelined PING waits behind the blocked BLPOP.
	if got := a.send(encodeCommand("BLPOP", "l", "0") + encodeCommand("PING")); got != "" {
		t.Fatalf("BLPOP on a missing key replied %q", got)
	}
	if !a.c.IdleExempt() {
		t.Error("a blocked client is not exempt from the idle timeout")
	}
	if got := a.send(""); got != "" {
		t.Fatalf("spurious serve replied %q", got)
	}
	env.expectBlockedClients(1)
	b.expect(":1\r\n", "RPUSH", "l", "v")
	a.expectWoken("*2\r\n$1\r\nl\r\n$1\r\nv\r\n+PONG\r\n")
	if a.c.IdleExempt() || len(a.pending) != 0 {
		t.Error("still blocked after the reply")
	}
	b.expect(":0\r\n", "EXISTS", "l")
	env.expectWaiting(0)
}

func TestBlockingFIFOAcrossClients(t *testing.T) {
	env := newTestEnv(t)
	c1, c2, c3, p := env.loopClient(), env.loopClient(), env.loopClient(), env.loopClient()
	c1.do("BLPOP", "l", "0")
	c2.do("BRPOP", "other", "l", "0")
	c3.do("BLMPOP", "0", "1", "l", "LEFT", "COUNT", "5")
	p.expect(":4\r\n", "RPUSH", "l", "a", "b", "c", "d")
	c1.expectWoken("*2\r\n$1\r\nl\r\n$1\r\na\r\n")
	c2.expectWoken("*2\r\n$1\r\nl\r\n$1\r\nd\r\n")
	c3.expectWoken("*2\r\n$1\r\nl\r\n*2\r\n$1\r\nb\r\n$1\r\nc\r\n")
	p.expect(":0\r\n", "EXISTS", "l")
	// RPUSH l a b c with two waiters: one element each, the third stays.
	c1.do("BLPOP", "l", "0")
	c2.do("BLPOP", "l", "0")
	p.expect(":3\r\n", "RPUSH", "l", "a", "b", "c")
	c1.expectWoken("*2\r\n$1\r\nl\r\n$1\r\na\r\n")
	c2.expectWoken("*2\r\n$1\r\nl\r\n$1\r\nb\r\n")
	p.expect("*1\r\n$1\r\nc\r\n", "LRANGE", "l", "0", "-1")
}

func TestBlockingTimeout(t *testing.T) {
	env := newTestEnv(t)
	a := env.loopClient()
	a.expectBlocks("BLPOP", "l", "1.5")
	a.expectAfter(1500*time.Millisecond, "") // not at the deadline itself
	a.expectAfter(time.Millisecond, "*-1\r\n")
	a.do("HELLO", "3")
	for _, cmd := range [][]string{
		{"BLPOP", "l", "0.01"},
		{"BRPOP", "l", "0.01"},
		{"BLMPOP", "0.01", "1", "l", "RIGHT"},
		{"BLMOVE", "l", "d", "LEFT", "LEFT", "0.01"},
		{"BRPOPLPUSH", "l", "d", "0.01"},
	} {
		a.expectBlocks(cmd...)
		a.expectAfter(11*time.Millisecond, "_\r\n")
	}
	env.expectWaiting(0)
}

func TestBlockingTimeoutArgument(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	for _, tc := range []struct{ timeout, want string }{
		{"abc", "-ERR timeout is not a float or out of range\r\n"},
		{" 1", "-ERR timeout is not a float or out of range\r\n"},
		{"nan", "-ERR timeout is not a float or out of range\r\n"},
		{"-1", "-ERR timeout is negative\r\n"},
		{"-0.5", "-ERR timeout is negative\r\n"},
		{"inf", "-ERR timeout is negative\r\n"},
		{"-inf", "-ERR timeout is negative\r\n"},
		{"1e30", "-ERR timeout is negative\r\n"},
		{"1e400", "-ERR timeout is negative\r\n"},
	} {
		c.expect(tc.want, "BLPOP", "l", tc.timeout)
	}
	// Tiny and negative-tiny timeouts: rounded up to 1 ms, and to 0 (forever).
	a := env.loopClient()
	a.expectBlocks("BLPOP", "l", "0.0001")
	a.expectAfter(2*time.Millisecond, "*-1\r\n")
	a.expectBlocks("BLPOP", "l", "-0.0009")
	a.expectAfter(time.Hour, "")
	a.c.Closed()
}

func TestBlockingDisconnect(t *testing.T) {
	env := newTestEnv(t)
	env.blockAndDisconnect(4, []string{"BLPOP", "x", "y", "z", "0"}, []string{"BLMOVE", "x", "d", "LEFT", "LEFT", "5"})
	c := env.client()
	c.expect(":1\r\n", "RPUSH", "x", "v")
	c.expect("*1\r\n$1\r\nv\r\n", "LRANGE", "x", "0", "-1")
}

func TestBlockingMoveChain(t *testing.T) {
	env := newTestEnv(t)
	m1, m2, popper, p := env.loopClient(), env.loopClient(), env.loopClient(), env.loopClient()
	m1.do("BLMOVE", "a", "b", "RIGHT", "LEFT", "0")
	m2.do("BRPOPLPUSH", "b", "c", "0")
	popper.do("BLPOP", "c", "0")
	p.expect(":1\r\n", "RPUSH", "a", "x")
	m1.expectWoken("$1\r\nx\r\n")
	m2.expectWoken("$1\r\nx\r\n")
	popper.expectWoken("*2\r\n$1\r\nc\r\n$1\r\nx\r\n")
	p.expect(":0\r\n", "EXISTS", "a", "b", "c")
	env.expectWaiting(0)
	// A destination that turned into another type: WRONGTYPE on wake.
	m1.do("BLMOVE", "a", "s", "LEFT", "LEFT", "0")
	p.expect("+OK\r\n", "SET", "s", "string")
	p.expect(":1\r\n", "RPUSH", "a", "y")
	m1.expectWoken("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n")
	p.expect(":1\r\n", "LLEN", "a")
}

func TestBlockingReplySkipped(t *testing.T) {
	env := newTestEnv(t)
	a, p := env.loopClient(), env.loopClient()
	a.do("CLIENT", "REPLY", "SKIP")
	a.do("BLPOP", "l", "0")
	p.do("RPUSH", "l", "v")
	a.expectWoken("")
	a.expect("+PONG\r\n", "PING")
}

// TestBlockingRealTimeout checks the timer path with the system clock: the
// client is woken by its timer and replies within 50 ms of the timeout.
func TestBlockingRealTimeout(t *testing.T) {
	eng := engine.New(engine.Options{ShardBits: 4})
	fe := New(Options{Services: services.New(services.Options{Engine: eng, Config: conf.Default()}), Facts: ServerFacts{StartTime: time.Now()}})
	env := &testEnv{t: t, fe: fe, eng: eng}
	a := env.loopClient()
	start := time.Now()
	a.do("BLPOP", "l", "0.2")
	select {
	case <-a.peer.wakes:
	case <-time.After(2 * time.Second):
		t.Fatal("timer never woke the client")
	}
	got := a.send("")
	for got == "" { // woken a hair early by the millisecond clock
		<-a.peer.wakes
		got = a.send("")
	}
	elapsed := time.Since(start)
	if got != "*-1\r\n" {
		t.Fatalf("reply %q", got)
	}
	// Never early; late only by scheduling on a loaded machine.
	if elapsed < 200*time.Millisecond || elapsed > 2*time.Second {
		t.Fatalf("timed out after %v, want 200ms (not before; late by scheduling only)", elapsed)
	}
}
