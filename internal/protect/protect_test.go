package protect

import (
	"sync"
	"testing"
	"time"

	"github.com/tandemkv/tandem/server/servertest"
)

type settings struct {
	on   bool
	pass string
}

func TestRefuses(t *testing.T) {
	on, off, withPass := settings{on: true}, settings{}, settings{on: true, pass: "pw"}
	for _, tc := range []struct {
		s      settings
		remote string
		want   bool
	}{
		{on, "10.1.2.3:4567", true},
		{on, "[2001:db8::1]:4567", true},
		{on, "192.168.0.9:1", true},
		{on, "127.0.0.2:4567", true}, // Redis compares the text: only 127.0.0.1 is local
		{on, "127.0.0.1:4567", false},
		{on, "[::1]:4567", false},
		{on, "[::ffff:127.0.0.1]:4567", false},
		{on, "", false},                    // unix socket
		{on, "/tmp/tandem.sock", false},    // unix socket
		{off, "10.1.2.3:4567", false},      // protected-mode no
		{withPass, "10.1.2.3:4567", false}, // a password is set
	} {
		if got := Refuses(tc.s.on, tc.s.pass == "", tc.remote); got != tc.want {
			t.Errorf("Refuses(%+v, %q) = %v, want %v", tc.s, tc.remote, got, tc.want)
		}
	}
}

func TestExposed(t *testing.T) {
	on := settings{on: true}
	for _, tc := range []struct {
		s     settings
		hosts []string
		want  bool
	}{
		{on, []string{"127.0.0.1", "-::1"}, false},
		{on, []string{"localhost"}, false},
		{on, []string{"0.0.0.0"}, true},
		{on, []string{"*"}, true},
		{on, []string{"127.0.0.1", "10.0.0.5"}, true},
		{settings{}, []string{"0.0.0.0"}, false},
		{settings{on: true, pass: "x"}, []string{"0.0.0.0"}, false},
	} {
		if got := Exposed(tc.s.on, tc.s.pass == "", tc.hosts); got != tc.want {
			t.Errorf("Exposed(%+v, %q) = %v, want %v", tc.s, tc.hosts, got, tc.want)
		}
	}
}

// recPeer records what is written to a fake peer.
type recPeer struct {
	*servertest.Peer
	mu      sync.Mutex
	written []byte
}

func (p *recPeer) AsyncWrite(b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written = append(p.written, b...)
	return nil
}

func (p *recPeer) got() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.written)
}

// TestRefused: the refusal answers the first bytes and closes after them;
// a silent client gets it unasked after SilentWait, then is closed.
func TestRefused(t *testing.T) {
	p := &recPeer{Peer: servertest.NewRemotePeer("10.0.0.1:6379", "10.1.2.3:4567")}
	s := Refused(p, []byte("NO\r\n"))
	n, out, closeAfter := s.Serve([]byte("PING\r\n"), []byte("x"))
	if n != 6 || string(out) != "xNO\r\n" || !closeAfter {
		t.Fatalf("Serve = %d %q %v", n, out, closeAfter)
	}
	time.Sleep(2 * SilentWait)
	if p.got() != "" || p.Closed.Load() {
		t.Fatalf("answered session also wrote %q / closed %v from its timer", p.got(), p.Closed.Load())
	}
	s.Closed()

	p = &recPeer{Peer: servertest.NewRemotePeer("10.0.0.1:6379", "10.1.2.3:4567")}
	s = Refused(p, []byte("NO\r\n"))
	for deadline := time.Now().Add(5 * time.Second); !p.Closed.Load() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if p.got() != "NO\r\n" || !p.Closed.Load() {
		t.Fatalf("silent client: wrote %q, closed %v", p.got(), p.Closed.Load())
	}
	if n, out, closeAfter := s.Serve([]byte("late\r\n"), nil); n != 6 || len(out) != 0 || closeAfter {
		t.Fatalf("late bytes: Serve = %d %q %v", n, out, closeAfter)
	}
	s.Closed()
}
