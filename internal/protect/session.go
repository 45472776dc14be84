package protect

import (
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/users"
)

// SilentWait is how long a refused connection that has sent nothing is
// kept before it gets the refusal and is closed.
//
// Why wait at all: a client usually sends its first command at once, and
// it is often already in the kernel's buffer when the connection is
// accepted. Closing a socket with unread bytes makes the kernel send a
// reset instead of a FIN, and a reset makes the client's kernel drop the
// refusal it has not read yet: the user sees "connection reset", not the
// explanation. redis-server 7.0 has that race (it writes and closes at
// accept; a client that sends PING at once sometimes reads only a reset).
// Here the refusal is the answer to the first bytes the client sends
// (read, so nothing is left unread), and only a silent client gets it
// unasked, after SilentWait: same bytes, without the race.
const SilentWait = 50 * time.Millisecond

// Guard applies protected mode to a new connection, as Redis's
// clientAcceptHandler: when Refuses says no, it returns the Refused
// session to hand the server instead of the front-end's own (msg is the
// front-end's refusal with its line ending), and the front-end counts the
// connection as rejected, not as received. nil: the client is accepted.
func Guard(protectedMode bool, defaultUser *users.User, p server.Peer, msg []byte) server.Session {
	if !Refuses(protectedMode, defaultUser.NoPass(), p.RemoteAddr()) {
		return nil
	}
	return Refused(p, msg)
}

// Refused returns the session of a connection protected mode refuses:
// msg (the front-end's refusal, with its line ending) is the reply to
// whatever the client sends first, the rest is discarded and the
// connection closed after the reply; a client that sends nothing within
// SilentWait gets msg unasked and is closed.
func Refused(p server.Peer, msg []byte) server.Session {
	s := &refused{msg: msg}
	s.timer = time.AfterFunc(SilentWait, func() {
		if s.answered.CompareAndSwap(false, true) {
			_ = p.AsyncWrite(msg)
			p.Close() // queued after the write: gnet runs writes first
		}
	})
	return s
}

type refused struct {
	msg      []byte
	answered atomic.Bool // msg sent (by Serve or by the timer)
	timer    *time.Timer
}

// Serve answers the first bytes with the refusal and closes; bytes that
// arrive while the timer's refusal is under way are discarded.
func (s *refused) Serve(in, out []byte) (int, []byte, bool) {
	if s.answered.CompareAndSwap(false, true) {
		s.timer.Stop()
		return len(in), append(out, s.msg...), true
	}
	return len(in), out, false
}

func (s *refused) Closed() { s.timer.Stop() }
