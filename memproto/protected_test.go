package memproto

import (
	"testing"

	"github.com/tandemkv/tandem/server/servertest"
)

// TestProtectedModeRefuses: the memcached port applies the Redis port's
// protected mode: a non-loopback client, with protected mode on and no
// password, gets one SERVER_ERROR line and is closed. The address is only a
// string: no traffic.
func TestProtectedModeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remote string
		args   []string
		refuse bool
	}{
		{"external ipv4", "10.1.2.3:4567", nil, true},
		{"external ipv6", "[2001:db8::7]:4567", nil, true},
		{"loopback ipv4", "127.0.0.1:4567", nil, false},
		{"loopback ipv6", "[::1]:4567", nil, false},
		{"protected-mode no", "10.1.2.3:4567", []string{"--protected-mode", "no"}, false},
		{"password set", "10.1.2.3:4567", []string{"--requirepass", "pw"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newBareEnv(t, tc.args...)
			p := servertest.NewWritePeer("10.0.0.1:11211", tc.remote)
			s := e.fe.NewSession(p)
			_, isSession := s.(*session)
			if tc.refuse {
				n, out, closeAfter := s.Serve([]byte("get k\r\n"), nil)
				if isSession || n != 7 || string(out) != errDeniedProtected+"\r\n" || !closeAfter {
					t.Fatalf("refused client: session %T served %d bytes, replied %q, close %v", s, n, out, closeAfter)
				}
				s.Closed()
			} else if !isSession || p.Closed.Load() || len(p.Written()) != 0 {
				t.Fatalf("accepted client: session %T, closed %v, wrote %q", s, p.Closed.Load(), p.Written())
			}
			want := int64(0)
			if tc.refuse {
				want = 1
			}
			if got := e.fe.stats.rejectedConns.Load(); got != want {
				t.Errorf("rejected_connections = %d, want %d", got, want)
			}
			if got := e.fe.stats.totalConns.Load(); got != 1-want {
				t.Errorf("total_connections = %d, want %d", got, 1-want)
			}
		})
	}
}
