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
// item: a multiget stops between two keys (multigetResume below), and
// no other request is cut.
//
// The default bound, 4 MB, is about what Linux lets a socket's send buffer
// grow to (tcp_wmem's maximum), so a reader that keeps up always finds a
// bound's worth of replies ready in user space while the kernel sends
// its own; memcached itself holds references to items rather than copies,
// so its figure is smaller (a few MB for 30 000 pipelined 100 KB gets).

// PacesOutput implements server.OutputPacer: a memcached connection bounds
// its own queued replies, and is never cut off for them.
func (s *session) PacesOutput() {}

// pauseLimit returns the length of s.out at which the pipeline pauses: the
// bound less what the connection holds for its socket, past start (where
// this Serve's replies begin). math.MaxInt when there is no bound.
func (s *session) pauseLimit(start int) int {
	bound := s.fe.cfg.MemcachedMaxPendingOutput()
	if bound <= 0 || bound > math.MaxInt/2 {
		return math.MaxInt
	}
	return start + int(bound) - s.peer.OutboundBuffered()
}

// atBound reports whether serving must stop here: the replies reached
// s.pauseAt and the connection is paused. A connection that cannot pause
// is served on, without looking again.
func (s *session) atBound() bool {
	if len(s.out) < s.pauseAt {
		return false
	}
	if s.pause() {
		return true
	}
	s.pauseAt = math.MaxInt
	return false
}

// A multiget is one request whose replies alone can pass the bound many
// times over (get k1 … k500 of 100 KB items is 50 MB), so retrieve looks
// at the bound before each key but the first it serves. At the bound it
// suspends: Serve leaves the request's line unconsumed, the server keeps
// it with the rest of the input, and when the connection is served again
// the same line is the first one parsed and retrieve goes on from the
// key it stopped at. So the replies keep their order, each key is looked
// up once, END comes once, the keys are never copied, and a multiget
// costs about the bound in queued replies plus one item.
//
// The resume point lives for one request: the one parsed right after the
// suspension, which is the suspended line itself. It is checked to be the
// same command with the same number of keys (a CONFIG SET of a limit in
// between could parse it differently); otherwise the request starts over.
type multigetResume struct {
	cmd  *command
	keys int // len(Request.Keys) of the suspended request
	next int // the index of its first key not served yet
	// crawling: the suspended request is an lru_crawler metadump, to go
	// on from the engine's scan cursor (crawler.go).
	crawling bool
	cursor   uint64
}

// suspendBefore stops the multiget r before its key next when the
// replies have reached the bound (see multigetResume).
func (s *session) suspendBefore(r *Request, next int) bool {
	if !s.atBound() {
		return false
	}
	s.resume = multigetResume{cmd: r.Cmd, keys: len(r.Keys), next: next}
	s.suspended = true
	return true
}

// resumeFrom returns the index of r's first key to serve: where a
// suspended multiget stopped if r is that request parsed again, else 0.
func (s *session) resumeFrom(r *Request) int {
	m := s.resume
	s.resume = multigetResume{}
	if m.cmd != nil && m.cmd == r.Cmd && m.keys == len(r.Keys) {
		return m.next
	}
	return 0
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
