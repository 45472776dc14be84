package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPipelineOneWrite(t *testing.T) {
	for _, multicore := range []bool{false, true} {
		t.Run(fmt.Sprint("multicore=", multicore), func(t *testing.T) {
			ts := startServer(t, Limits{QueryBufferLimit: 1 << 10}, multicore)
			c := dial(t, ts.addr)
			c.send(lines(1000, "line-%d"))
			for i := 0; i < 1000; i++ {
				c.expect(fmt.Sprintf("LINE-%d", i))
			}
		})
	}
}

// A pipeline far bigger than one read (and than the query buffer limit,
// which applies to an incomplete request only) is answered in full and in
// order while the client keeps reading; lines straddle read boundaries.
func TestPipelineLarge(t *testing.T) {
	ts := startServer(t, Limits{QueryBufferLimit: 4 << 10, OutputBufferLimit: 64 << 20}, true)
	c := dial(t, ts.addr)
	const n = 100_000
	payload := lines(n, "request-number-%d-with-some-padding")
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write([]byte(payload)) // no t.Fatal off the test goroutine
		errc <- err
	}()
	for i := 0; i < n; i++ {
		want := fmt.Sprintf("REQUEST-NUMBER-%d-WITH-SOME-PADDING", i)
		if got, err := c.readLine(); err != nil || got != want {
			t.Fatalf("reply %d = %q, %v; want %q", i, got, err, want)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// A request split over many writes is answered once, when complete.
func TestRequestSplitAcrossWrites(t *testing.T) {
	ts := startServer(t, Limits{}, false)
	ts.fe.trace.Store(true)
	c := dial(t, ts.addr)
	parts := []string{"hel", "lo", " ", "wor", "ld", "\nsecond line, also ", "split\n"}
	sent := 0
	for _, p := range parts[:len(parts)-1] {
		c.send(p)
		sent += len(p)
		// Wait until the session has been handed everything so far, so
		// each part really arrives in its own read; no sleeping.
		for got := 0; got < sent; {
			select {
			case got = <-ts.fe.serves:
			case <-time.After(10 * time.Second):
				t.Fatalf("server never saw %d bytes", sent)
			}
		}
	}
	c.expect("HELLO WORLD")
	c.send(parts[len(parts)-1])
	c.expect("SECOND LINE, ALSO SPLIT")
	// A lone newline is an empty request, answered with an empty line.
	c.send("\n")
	c.expect("")
}

func TestQuitAnswersThenCloses(t *testing.T) {
	ts := startServer(t, Limits{}, false)
	c := dial(t, ts.addr)
	c.send("a\nquit\nnever answered\n")
	c.expect("A")
	c.expect("BYE")
	if rest := c.expectClosed(5 * time.Second); rest != "" {
		t.Errorf("after quit the server sent %q", rest)
	}
	waitClosed(t, ts.fe, 0)
	if n := ts.Clients(); n != 0 {
		t.Errorf("Clients = %d after the only client quit", n)
	}
}

func TestPanicRecovery(t *testing.T) {
	ts := startServer(t, Limits{}, true)
	good := dial(t, ts.addr)
	good.roundTrip("before")

	bad := dial(t, ts.addr)
	bad.roundTrip("fine so far")
	nextSession(t, ts.fe)         // good's
	sess := nextSession(t, ts.fe) // bad's
	bad.send("panic\n")
	bad.expectClosed(5 * time.Second)
	waitClosed(t, ts.fe, sess.peer.ID())
	if !strings.Contains(ts.log.String(), "panic serving client") {
		t.Errorf("the panic was not logged:\n%s", ts.log.String())
	}

	good.roundTrip("still served")
	again := dial(t, ts.addr)
	again.roundTrip("reconnected")
	if n := ts.Clients(); n != 2 {
		t.Errorf("Clients = %d, want 2", n)
	}

	// A panic while opening a session closes that connection only and
	// leaves the client count right.
	ts.fe.panicOnOpen.Store(true)
	refused := dial(t, ts.addr)
	refused.expectClosed(5 * time.Second)
	ts.fe.panicOnOpen.Store(false)
	good.roundTrip("after a panic in NewSession")
	if n := ts.Clients(); n != 2 {
		t.Errorf("Clients = %d after a panic in NewSession, want 2", n)
	}
}

func TestMaxClients(t *testing.T) {
	ts := startServer(t, Limits{MaxClients: 2}, true)
	a := dial(t, ts.addr)
	a.roundTrip("a")
	b := dial(t, ts.addr)
	b.roundTrip("b")
	aSess := nextSession(t, ts.fe)
	nextSession(t, ts.fe)

	c := dial(t, ts.addr)
	if got := c.expectClosed(5 * time.Second); got != rejectMessage {
		t.Errorf("third client got %q, want the reject message", got)
	}
	if n := ts.Clients(); n != 2 {
		t.Errorf("Clients = %d after a rejection, want 2", n)
	}
	a.roundTrip("a still served")

	a.Close()
	waitClosed(t, ts.fe, aSess.peer.ID())
	d := dial(t, ts.addr)
	d.roundTrip("d accepted")
	b.roundTrip("b still served")
	if n := ts.Clients(); n != 2 {
		t.Errorf("Clients = %d, want 2", n)
	}

	// The limit follows SetLimits at run time.
	ts.SetLimits(Limits{MaxClients: 3})
	e := dial(t, ts.addr)
	e.roundTrip("e accepted under the raised limit")
}

// The only test that waits on the clock: the idle sweep runs once a second.
func TestIdleTimeout(t *testing.T) {
	ts := startServer(t, Limits{}, false)
	ts.SetLimits(Limits{IdleTimeout: time.Second})
	// The exempt client goes quiet first, so when the sweep closes the
	// idle one, the exempt one has been idle longer and was spared.
	exempt := dial(t, ts.addr)
	exempt.send("exempt\n")
	exempt.expect("EXEMPT")
	start := time.Now()
	idle := dial(t, ts.addr)
	idle.roundTrip("hello")
	idle.expectClosed(5 * time.Second)
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("idle client closed after %v, before the 1s timeout", waited)
	}
	// The exempt client (e.g. one blocked in BLPOP) survives the sweep.
	exempt.roundTrip("still here")
	if n := ts.Clients(); n != 1 {
		t.Errorf("Clients = %d, want 1", n)
	}
}

func TestQueryBufferLimit(t *testing.T) {
	const limit = 64 << 10
	ts := startServer(t, Limits{QueryBufferLimit: limit}, true)
	other := dial(t, ts.addr)
	other.roundTrip("before")
	nextSession(t, ts.fe)

	flood := dial(t, ts.addr)
	floodSess := nextSession(t, ts.fe)
	// A request just under the limit is fine.
	flood.send(strings.Repeat("y", limit-1))
	flood.send("\n")
	flood.expect(strings.Repeat("Y", limit-1))
	// An endless line is cut off once it passes the limit. The writes
	// fail once the server has closed; stop at the first error.
	chunk := []byte(strings.Repeat("z", 16<<10))
	sent := 0
	for ; sent < 64<<20; sent += len(chunk) {
		flood.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := flood.Write(chunk); err != nil {
			break
		}
	}
	waitClosed(t, ts.fe, floodSess.peer.ID())
	if sent >= 64<<20 {
		t.Errorf("server accepted a %d-byte line with a %d-byte limit", sent, limit)
	}
	if !strings.Contains(ts.log.String(), "query buffer limit") {
		t.Errorf("not logged:\n%s", ts.log.String())
	}
	other.roundTrip("after")
}

// A client that sends requests but never reads is cut off once the
// replies queued for it pass the limit. Deterministic: the client's
// receive buffer is pinned small and the replies total many times what
// the kernel can hold on both ends, so the queue must grow.
func TestOutputBufferLimit(t *testing.T) {
	const limit = 256 << 10
	const replySize = 1 << 20
	ts := startServer(t, Limits{OutputBufferLimit: limit}, true)
	other := dial(t, ts.addr)
	other.roundTrip("before")
	nextSession(t, ts.fe)

	slow := dial(t, ts.addr)
	if err := slow.Conn.(interface{ SetReadBuffer(int) error }).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	slowSess := nextSession(t, ts.fe)
	closed := make(chan struct{})
	go func() {
		for id := range ts.fe.closed {
			if id == slowSess.peer.ID() {
				close(closed)
				return
			}
		}
	}()
	requests := 0
send:
	for requests < 64 { // 64 MB of replies at most
		select {
		case <-closed:
			break send
		default:
		}
		slow.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := slow.Write([]byte(fmt.Sprintf("big %d\n", replySize))); err != nil {
			break
		}
		requests++
	}
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // generous: 64 MB of replies on a loaded 2-core machine
		t.Fatalf("slow reader not disconnected after %d requests for %d-byte replies", requests, replySize)
	}
	t.Logf("disconnected after %d requests", requests)
	if !strings.Contains(ts.log.String(), "output buffer limit") {
		t.Errorf("not logged:\n%s", ts.log.String())
	}
	other.roundTrip("unaffected")

	// A client that reads keeps its big replies.
	// A client that reads keeps its big replies (each under the limit,
	// asked for one at a time, so the queue never holds more than one).
	reader := dial(t, ts.addr)
	for i := 0; i < 20; i++ {
		reader.send("big 200000\n")
		if got, err := reader.readLine(); err != nil || len(got) != 200000 {
			t.Fatalf("big reply %d: %d bytes, %v", i, len(got), err)
		}
	}
	reader.roundTrip("small")
}

// Each listener's connections go to its own front-end.
func TestTwoListeners(t *testing.T) {
	upper, lower := newLineFrontend("A:"), newLineFrontend("B:")
	var a1, a2 string
	for attempt := 0; ; attempt++ {
		a1, a2 = freeAddr(t), freeAddr(t)
		s := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Multicore: true})
		s.Listeners([]Listener{{Addrs: []string{a1}, Frontend: upper}, {Addrs: []string{a2}, Frontend: lower}})
		_, err := runServer(t, s)
		if err == nil {
			break
		}
		if attempt == 3 {
			t.Fatalf("could not bind %s and %s: %v", a1, a2, err)
		}
		// a port was taken between freeAddr and Run: try others
	}
	c1, c2 := dial(t, a1), dial(t, a2)
	c1.send("x\n")
	c2.send("y\n")
	c1.expect("A:X")
	c2.expect("B:Y")
}

func TestRunErrors(t *testing.T) {
	for name, listeners := range map[string][]Listener{
		"none":   nil,
		"port 0": {{Addrs: []string{"127.0.0.1:0"}, Frontend: newLineFrontend("")}},
		"bad":    {{Addrs: []string{"not an address"}, Frontend: newLineFrontend("")}},
	} {
		s := New(Options{Listeners: listeners, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err := s.Run(); err == nil {
			t.Errorf("%s: Run succeeded", name)
		}
	}
	// A port already in use: Run fails, Ready is closed, Stop returns.
	first := startServer(t, Limits{}, false)
	addr := first.addr
	second := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	second.Listeners([]Listener{{Addrs: []string{addr}, Frontend: newLineFrontend("")}})
	if err := second.Run(); err == nil {
		t.Errorf("second Run on a busy port succeeded")
	} else if !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("second Run on a busy port: %v, want the real reason", err)
	}
	select {
	case <-second.Ready():
		if second.StartErr() == nil {
			t.Errorf("StartErr nil after Run failed")
		}
	default:
		t.Errorf("Ready not closed after Run failed")
	}
	if first.StartErr() != nil {
		t.Errorf("StartErr of a serving server: %v", first.StartErr())
	}
}

// Many clients at once on several loops; each sees only its own replies.
func TestManyClients(t *testing.T) {
	ts := startServer(t, Limits{}, true)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		c := dial(t, ts.addr)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				msg := fmt.Sprintf("client %d message %d", i, j)
				if _, err := c.Write([]byte(msg + "\n")); err != nil {
					errs <- err
					return
				}
				if got, err := c.readLine(); err != nil || got != strings.ToUpper(msg) {
					errs <- fmt.Errorf("client %d: %q, %v", i, got, err)
					return
				}
			}
			c.Close()
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := 0; i < 50; i++ {
		waitClosed(t, ts.fe, 0)
	}
	if n := ts.Clients(); n != 0 {
		t.Errorf("Clients = %d after all left", n)
	}
}

// Stop closes every connection.
func TestStopClosesConnections(t *testing.T) {
	ts := startServer(t, Limits{}, false)
	c := dial(t, ts.addr)
	c.roundTrip("hi")
	stopped := make(chan struct{})
	go func() {
		ts.stop()
		close(stopped)
	}()
	c.expectClosed(10 * time.Second)
	<-stopped
	var ne interface{ Timeout() bool }
	if _, err := c.readLine(); err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		t.Errorf("read after Stop: %v", err)
	}
}
