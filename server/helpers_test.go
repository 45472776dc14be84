package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/syncbuf"
)

// lineFrontend is a tiny line protocol for testing the server: each
// "\n"-terminated line is answered with tag + its upper-case copy, except
//
//	panic     the session panics
//	quit      answers "BYE" and closes
//	exempt    the session becomes exempt from the idle timeout
//	big N     answers N bytes of 'x' and a newline
type lineFrontend struct {
	tag         string
	panicOnOpen atomic.Bool
	opened      chan *lineSession // every NewSession, if there is room
	closed      chan uint64       // the id of every Closed session, if there is room
	serves      chan int          // len(in) of every Serve call, when tracing
	trace       atomic.Bool
	io          IOStats // the server counts every test connection's I/O
}

func (f *lineFrontend) IOStats() *IOStats { return &f.io }

func newLineFrontend(tag string) *lineFrontend {
	return &lineFrontend{
		tag:    tag,
		opened: make(chan *lineSession, 1024),
		closed: make(chan uint64, 1024),
		serves: make(chan int, 1024),
	}
}

const rejectMessage = "ERR max number of clients reached\n"

func (f *lineFrontend) RejectMessage() []byte { return []byte(rejectMessage) }

func (f *lineFrontend) NewSession(p Peer) Session {
	if f.panicOnOpen.Load() {
		panic("NewSession asked to panic")
	}
	s := &lineSession{f: f, peer: p}
	select {
	case f.opened <- s:
	default:
	}
	return s
}

type lineSession struct {
	f      *lineFrontend
	peer   Peer
	exempt atomic.Bool
	closes atomic.Int32
}

func (s *lineSession) Serve(in, out []byte) (int, []byte, bool) {
	if s.f.trace.Load() {
		select {
		case s.f.serves <- len(in):
		default:
		}
	}
	consumed := 0
	for {
		i := bytes.IndexByte(in[consumed:], '\n')
		if i < 0 {
			return consumed, out, false
		}
		line := in[consumed : consumed+i]
		consumed += i + 1
		switch {
		case string(line) == "panic":
			panic("client asked for a panic")
		case string(line) == "quit":
			return consumed, append(out, "BYE\n"...), true
		case string(line) == "exempt":
			s.exempt.Store(true)
			out = append(out, s.f.tag+"EXEMPT\n"...)
		case bytes.HasPrefix(line, []byte("big ")):
			n, _ := strconv.Atoi(string(line[4:]))
			for j := 0; j < n; j++ {
				out = append(out, 'x')
			}
			out = append(out, '\n')
		default:
			out = append(out, s.f.tag...)
			out = append(out, bytes.ToUpper(line)...)
			out = append(out, '\n')
		}
	}
}

func (s *lineSession) Closed() {
	if s.closes.Add(1) != 1 {
		panic("Closed called twice")
	}
	select {
	case s.f.closed <- s.peer.ID():
	default:
	}
}

func (s *lineSession) IdleExempt() bool { return s.exempt.Load() }

// testServer is a running server on loopback with one lineFrontend.
type testServer struct {
	*Server
	addr string
	fe   *lineFrontend
	log  *syncbuf.Buffer
	stop func() // stops the server once; also run at cleanup
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startServer runs a server with the given limits and waits until it
// accepts connections; it is stopped when the test ends.
func startServer(t *testing.T, lim Limits, multicore bool) *testServer {
	t.Helper()
	for attempt := 0; ; attempt++ {
		ts := &testServer{addr: freeAddr(t), fe: newLineFrontend(""), log: &syncbuf.Buffer{}}
		ts.Server = New(Options{
			Limits:    lim,
			Logger:    slog.New(slog.NewTextHandler(ts.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
			Multicore: multicore,
		})
		ts.Listeners([]Listener{{Addrs: []string{ts.addr}, Frontend: ts.fe}})
		var err error
		if ts.stop, err = runServer(t, ts.Server); err != nil {
			if attempt < 3 {
				continue // the port was taken in between
			}
			t.Fatalf("server did not start: %v", err)
		}
		return ts
	}
}

// runServer starts s.Run in a goroutine and waits for Ready. It returns a
// function that stops the server and checks that Run returns; that runs
// once, at the latest when the test ends.
func runServer(t *testing.T, s *Server) (stop func(), err error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Run() }()
	select {
	case <-s.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("server not ready after 10s")
	}
	if s.readyErr != nil {
		return nil, s.readyErr
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := s.Stop(ctx); err != nil {
				t.Errorf("Stop: %v", err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("Run did not return after Stop")
			}
		})
	}
	t.Cleanup(stop)
	return stop, nil
}

// client is a test connection with a line reader.
type client struct {
	t *testing.T
	net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{t: t, Conn: c, r: bufio.NewReaderSize(c, 64<<10)}
}

func (c *client) send(s string) {
	c.t.Helper()
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(s)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// readLine returns the next line without its "\n", or an error.
func (c *client) readLine() (string, error) {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := c.r.ReadString('\n')
	if err != nil {
		return line, err
	}
	return strings.TrimSuffix(line, "\n"), nil
}

func (c *client) expect(want string) {
	c.t.Helper()
	got, err := c.readLine()
	if err != nil || got != want {
		c.t.Fatalf("read %q, %v; want %q", got, err, want)
	}
}

// roundTrip checks that the connection is served.
func (c *client) roundTrip(msg string) {
	c.t.Helper()
	c.send(msg + "\n")
	c.expect(strings.ToUpper(msg))
}

// expectClosed reads until the server's close shows: EOF or a reset.
// Whatever the server sent before closing is returned.
func (c *client) expectClosed(within time.Duration) string {
	c.t.Helper()
	c.SetReadDeadline(time.Now().Add(within))
	var got bytes.Buffer
	buf := make([]byte, 64<<10)
	for {
		n, err := c.r.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				c.t.Fatalf("connection still open after %v", within)
			}
			return got.String()
		}
	}
}

// waitClosed waits for the frontend to see a session closed.
func waitClosed(t *testing.T, fe *lineFrontend, id uint64) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-fe.closed:
			if id == 0 || got == id {
				return
			}
		case <-deadline:
			t.Fatalf("session %d not closed after 10s", id)
		}
	}
}

// nextSession returns the next session the frontend opened.
func nextSession(t *testing.T, fe *lineFrontend) *lineSession {
	t.Helper()
	select {
	case s := <-fe.opened:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no session opened after 10s")
		return nil
	}
}

func lines(n int, format string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}
