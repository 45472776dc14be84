package resp

import (
	"testing"
	"time"

	"github.com/tandemkv/tandem/server/servertest"
)

// TestProtectedModeRefuses: with protected mode on and no password, a
// client from a non-loopback address gets Redis's DENIED text and is
// closed before it sends anything; loopback clients, a password or
// protected-mode no let it in. The address is only a string: no traffic.
func TestProtectedModeRefuses(t *testing.T) {
	denied := "-" + ErrDeniedProtected + "\r\n"
	for _, tc := range []struct {
		name   string
		remote string
		config [][2]string
		refuse bool
	}{
		{"external ipv4", "10.1.2.3:4567", nil, true},
		{"external ipv6", "[2001:db8::7]:4567", nil, true},
		{"other 127/8 address", "127.0.0.2:4567", nil, true},
		{"loopback ipv4", "127.0.0.1:4567", nil, false},
		{"loopback ipv6", "[::1]:4567", nil, false},
		{"protected-mode no", "10.1.2.3:4567", [][2]string{{"protected-mode", "no"}}, false},
		{"password set", "10.1.2.3:4567", [][2]string{{"requirepass", "pw"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			for _, kv := range tc.config {
				if err := e.cfg.Set(kv); err != nil {
					t.Fatal(err)
				}
			}
			p := servertest.NewWritePeer("10.0.0.1:6379", tc.remote)
			s := e.fe.NewSession(p)
			_, isClient := s.(*Client)
			if tc.refuse {
				// The first bytes are answered with the DENIED text, and
				// not run; the connection is closed after the reply.
				n, out, closeAfter := s.Serve([]byte("*1\r\n$4\r\nPING\r\n"), nil)
				if isClient || n != 14 || string(out) != denied || !closeAfter {
					t.Fatalf("refused client: session %T served %d bytes, replied %q, close %v", s, n, out, closeAfter)
				}
				s.Closed()
			} else if !isClient || p.Closed.Load() || len(p.Written()) != 0 {
				t.Fatalf("accepted client: session %T, closed %v, wrote %q", s, p.Closed.Load(), p.Written())
			}
			want := int64(0)
			if tc.refuse {
				want = 1
			}
			if got := e.fe.stats.rejectedConns.Load(); got != want {
				t.Errorf("rejected_connections = %d, want %d", got, want)
			}
			if got := e.fe.stats.connections.Load(); got != 1-want {
				t.Errorf("total_connections_received = %d, want %d", got, 1-want)
			}
		})
	}
}

// TestProtectedModeSilentClient: a refused client that sends nothing gets
// the DENIED text unasked, and is closed, as Redis sends it at accept.
func TestProtectedModeSilentClient(t *testing.T) {
	e := newTestEnv(t)
	p := servertest.NewWritePeer("10.0.0.1:6379", "10.1.2.3:4567")
	s := e.fe.NewSession(p)
	deadline := time.Now().Add(5 * time.Second)
	for !p.Closed.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	written := string(p.Written())
	if !p.Closed.Load() || written != "-"+ErrDeniedProtected+"\r\n" {
		t.Fatalf("silent refused client: closed %v, wrote %q", p.Closed.Load(), written)
	}
	// Bytes arriving after the refusal was sent are discarded.
	if n, out, _ := s.Serve([]byte("PING\r\n"), nil); n != 6 || len(out) != 0 {
		t.Fatalf("after the refusal: served %d, replied %q", n, out)
	}
	s.Closed()
}

// TestProtectedModeFollowsConfigSet: CONFIG SET protected-mode and
// requirepass apply to the next connection, as in Redis.
func TestProtectedModeFollowsConfigSet(t *testing.T) {
	e := newTestEnv(t)
	admin := e.client()
	external := func() bool {
		p := servertest.NewWritePeer("10.0.0.1:6379", "10.1.2.3:4567")
		_, ok := e.fe.NewSession(p).(*Client)
		return ok
	}
	if external() {
		t.Fatal("external client accepted with protected mode on")
	}
	admin.expect("+OK\r\n", "CONFIG", "SET", "protected-mode", "no")
	if !external() {
		t.Fatal("external client refused after CONFIG SET protected-mode no")
	}
	admin.expect("+OK\r\n", "CONFIG", "SET", "protected-mode", "yes")
	admin.expect("+OK\r\n", "CONFIG", "SET", "requirepass", "pw")
	if !external() {
		t.Fatal("external client refused with a password set")
	}
}

// TestProtectedModeLoopbackSocket: on a real socket over 127.0.0.1 a
// default server (protected mode on, no password) serves as before.
func TestProtectedModeLoopbackSocket(t *testing.T) {
	e := newTestEnv(t)
	if !e.cfg.ProtectedMode() {
		t.Fatal("protected-mode is not on by default")
	}
	addr, _ := startRESPServer(t, e.cfg)
	c := dialRESP(t, addr)
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := c.r.ReadString('\n')
	if err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING over loopback: %q %v", line, err)
	}
}
