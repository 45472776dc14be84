package memproto

import (
	"math"

	"github.com/tandemkv/tandem/server"
)

// Pacing, as memcached does with a client that does not read: memcached
// runs a few requests, writes their replies, and while the socket does not
// take them it parses nothing more from that client. Here the session
// stops its pipeline once the replies waiting for the socket (what the
// connection already holds plus what this Serve built) reach
// memcached-max-pending-output; the server keeps the unparsed requests
// and serves them once the socket has taken half of the bound
// (server/pacing.go). The connection is never closed for being slow, and
// a pipeline of any length costs about the bound in replies, plus one
// request's worth (a request is never cut in the middle).
//
// The default bound, 4 MB, is about what Linux lets a socket's send buffer
// grow to (tcp_wmem's maximum), so a reader that keeps up always finds a
// bound's worth of replies ready in user space while the kernel sends
// its own; memcached itself holds references to items rather than copies,
// so its figure is smaller (a few MB for 30 000 pipelined 100 KB gets).

// PacesOutput implements server.OutputPacer: a memcached connection bounds
// its own queued replies, and is never cut off for them.
func (s *session) PacesOutput() {}

// pauseAt returns the length of s.out at which the pipeline pauses: the
// bound less what the connection holds for its socket, past start (where
// this Serve's replies begin). math.MaxInt when there is no bound.
func (s *session) pauseAt(start int) int {
	bound := s.fe.cfg.MemcachedMaxPendingOutput()
	if bound <= 0 || bound > math.MaxInt/2 {
		return math.MaxInt
	}
	return start + int(bound) - s.peer.OutboundBuffered()
}

// pause asks the server to serve the rest of the input once the replies
// have drained to half the bound. It reports false when the peer cannot
// pause (a test double): the pipeline then goes on.
func (s *session) pause() bool {
	p, ok := s.peer.(server.Pauser)
	if !ok {
		return false
	}
	p.PauseUntilDrained(int(s.fe.cfg.MemcachedMaxPendingOutput() / 2))
	return true
}
