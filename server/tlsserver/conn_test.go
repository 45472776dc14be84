package tlsserver_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/server/tlsserver"
)

// lineFrontend is a test protocol: each line is answered "echo <line>";
// "panic" panics; "park" makes the session wait to be woken, then answer
// "woken"; "pub" sends "pushed" through AsyncWrite; "quit" closes after
// the reply. It records the sessions' calls.
type lineFrontend struct {
	mu      sync.Mutex
	peers   []server.Peer
	serving atomic.Int32 // Serves running now (never more than 1 per session: one session here)
	overlap atomic.Bool
	closed  atomic.Int32
}

func (f *lineFrontend) NewSession(p server.Peer) server.Session {
	f.mu.Lock()
	f.peers = append(f.peers, p)
	f.mu.Unlock()
	return &lineSession{f: f, p: p}
}
func (f *lineFrontend) RejectMessage() []byte { return []byte("too many\n") }

func (f *lineFrontend) peer(i int) server.Peer {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i < len(f.peers) {
		return f.peers[i]
	}
	return nil
}

type lineSession struct {
	f      *lineFrontend
	p      server.Peer
	parked bool
}

func (s *lineSession) Serve(in, out []byte) (int, []byte, bool) {
	if s.f.serving.Add(1) > 1 {
		s.f.overlap.Store(true)
	}
	defer s.f.serving.Add(-1)
	time.Sleep(time.Millisecond) // widen any window for a concurrent Serve
	if s.parked {
		s.parked = false
		out = append(out, "woken\n"...)
	}
	n := 0
	for {
		i := strings.IndexByte(string(in[n:]), '\n')
		if i < 0 {
			return n, out, false
		}
		line := string(in[n : n+i])
		n += i + 1
		switch line {
		case "panic":
			panic("test panic")
		case "park":
			s.parked = true
			return n, out, false
		case "pub":
			go func() { _ = s.p.AsyncWrite([]byte("pushed\n")) }()
		case "quit":
			return n, append(out, "bye\n"...), true
		default:
			out = append(out, "echo "+line+"\n"...)
		}
	}
}

func (s *lineSession) Closed() { s.f.closed.Add(1) }

// startLines serves a lineFrontend over TLS on a free port.
func startLines(t *testing.T, lim server.Limits) (*lineFrontend, *server.Server, string, *testPKI) {
	t.Helper()
	pki := newPKI(t)
	cert, key := pki.issue(t, "server", true)
	certs, err := tlsserver.NewCerts(tlsserver.Settings{CertFile: cert, KeyFile: key})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Limits: lim, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	fe := &lineFrontend{}
	l, err := tlsserver.Listen(tlsserver.Options{Addrs: []string{"127.0.0.1:0"}, Frontend: fe, Server: srv, Certs: certs})
	if err != nil {
		t.Fatal(err)
	}
	l.Serve()
	t.Cleanup(func() { _ = l.Stop(context.Background()) })
	return fe, srv, l.Addrs()[0].String(), pki
}

type lineClient struct {
	c *tls.Conn
	r *bufio.Reader
}

func dialLines(t *testing.T, addr string, pki *testPKI) *lineClient {
	t.Helper()
	c, err := tls.Dial("tcp", addr, pki.clientConfig(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &lineClient{c: c, r: bufio.NewReader(c)}
}

func (lc *lineClient) send(t *testing.T, s string) {
	t.Helper()
	if _, err := lc.c.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

func (lc *lineClient) expect(t *testing.T, want string) {
	t.Helper()
	_ = lc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := lc.r.ReadString('\n')
	if err != nil || got != want+"\n" {
		t.Fatalf("got %q (%v), want %q", got, err, want)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for " + what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestServePipelineAndSplit: a pipeline is served whole; a request split
// across reads is kept until complete.
func TestServePipelineAndSplit(t *testing.T) {
	_, _, addr, pki := startLines(t, server.Limits{})
	c := dialLines(t, addr, pki)
	c.send(t, "a\nb\nc")
	c.expect(t, "echo a")
	c.expect(t, "echo b")
	c.send(t, "d\n")
	c.expect(t, "echo cd")
}

// TestWakeServesWhileReading: Wake from another goroutine makes Serve run
// although the client sends nothing (a blocked client's key is ready).
func TestWakeServesWhileReading(t *testing.T) {
	fe, _, addr, pki := startLines(t, server.Limits{})
	c := dialLines(t, addr, pki)
	c.send(t, "park\n")
	eventually(t, "the session", func() bool { return fe.peer(0) != nil })
	time.Sleep(20 * time.Millisecond) // the goroutine is back in Read
	if err := fe.peer(0).Wake(); err != nil {
		t.Fatal(err)
	}
	c.expect(t, "woken")
	c.send(t, "after\n") // the connection still reads normally
	c.expect(t, "echo after")
}

// TestServeNeverConcurrent: Wakes and AsyncWrites racing with a pipeline
// never make two Serves of one session overlap, and every reply arrives.
func TestServeNeverConcurrent(t *testing.T) {
	fe, _, addr, pki := startLines(t, server.Limits{})
	c := dialLines(t, addr, pki)
	c.send(t, "x\n")
	c.expect(t, "echo x")
	p := fe.peer(0)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				_ = p.Wake()
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	for i := 0; i < 200; i++ {
		c.send(t, "pub\n")
		c.expect(t, "pushed")
	}
	close(stop)
	if fe.overlap.Load() {
		t.Fatal("Serve ran concurrently for one session")
	}
}

// TestPanicClosesOnlyThatConnection: a panicking session's connection is
// closed, its Closed called; the others go on.
func TestPanicClosesOnlyThatConnection(t *testing.T) {
	fe, srv, addr, pki := startLines(t, server.Limits{})
	a, b := dialLines(t, addr, pki), dialLines(t, addr, pki)
	a.send(t, "1\n")
	a.expect(t, "echo 1")
	b.send(t, "panic\n")
	_ = b.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := b.r.ReadString('\n'); err == nil {
		t.Fatal("the panicking connection answered")
	}
	eventually(t, "Closed", func() bool { return fe.closed.Load() == 1 })
	eventually(t, "the client count", func() bool { return srv.Clients() == 1 })
	a.send(t, "2\n")
	a.expect(t, "echo 2")
}

// TestQuitClosesAfterReply: closeAfter writes the reply, then closes.
func TestQuitClosesAfterReply(t *testing.T) {
	fe, srv, addr, pki := startLines(t, server.Limits{})
	c := dialLines(t, addr, pki)
	c.send(t, "quit\n")
	c.expect(t, "bye")
	if _, err := c.r.ReadString('\n'); err != io.EOF {
		t.Fatalf("after quit: %v, want EOF (close_notify)", err)
	}
	eventually(t, "Closed", func() bool { return fe.closed.Load() == 1 && srv.Clients() == 0 })
}

// TestMaxClientsCountsTLS: TLS connections count under maxclients; the
// one over it gets the front-end's reject message.
func TestMaxClientsCountsTLS(t *testing.T) {
	_, srv, addr, pki := startLines(t, server.Limits{MaxClients: 2})
	a, b := dialLines(t, addr, pki), dialLines(t, addr, pki)
	a.send(t, "1\n")
	a.expect(t, "echo 1")
	b.send(t, "2\n")
	b.expect(t, "echo 2")
	if srv.Clients() != 2 {
		t.Fatalf("clients %d, want 2", srv.Clients())
	}
	c := dialLines(t, addr, pki)
	c.expect(t, "too many")
}

// TestIdleTimeout: the sweep closes a TLS connection idle past timeout.
func TestIdleTimeout(t *testing.T) {
	fe, _, addr, pki := startLines(t, server.Limits{IdleTimeout: 500 * time.Millisecond})
	c := dialLines(t, addr, pki)
	c.send(t, "1\n")
	c.expect(t, "echo 1")
	eventually(t, "the idle close", func() bool { return fe.closed.Load() == 1 })
}

// TestQueryBufferLimit: an incomplete request past the limit closes.
func TestQueryBufferLimit(t *testing.T) {
	fe, _, addr, pki := startLines(t, server.Limits{QueryBufferLimit: 64 << 10})
	c := dialLines(t, addr, pki)
	_, _ = c.c.Write(make([]byte, 100<<10)) // no newline
	eventually(t, "the close", func() bool { return fe.closed.Load() == 1 })
}
