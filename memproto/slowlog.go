package memproto

import (
	"time"
)

// The memcached requests slower than slowlog-log-slower-than go into the
// process's one slow log (services.Slowlog), which SLOWLOG GET on the
// Redis port reads: the command as "mc:<name>" followed by the request
// line's other tokens (a retrieval's every key), as MONITOR shows them;
// the data block is not logged. A binary request is logged as its
// opcode's text command and its key, as MONITOR shows it; one with no text
// command (Noop, Version's reply aside, SASL) is not. session.exec calls
// slowlogRecord, execBinary slowlogBinary.

// slowlogRecord logs r, which began at start, if it ran and was slow,
// and records its duration in its latency histogram.
func (s *session) slowlogRecord(r *Request, start time.Time) {
	if r.Err != "" || r.Cmd == nil {
		return
	}
	usec := time.Since(start).Microseconds()
	s.trackLatency(r.Cmd, usec) // latency.go
	if !s.fe.slow.Slower(usec) {
		return
	}
	s.fe.slow.Add(shownArgs(r), usec, s.peer.RemoteAddr(), "")
}

// slowlogBinary logs the binary request r, which began at start, if it
// ran and was slow, and records its duration in its latency histogram.
func (s *session) slowlogBinary(r *binRequest, start time.Time) {
	if r.op == nil || r.op.cmd == nil {
		return
	}
	usec := time.Since(start).Microseconds()
	s.trackLatency(r.op.cmd, usec) // latency.go
	if !s.fe.slow.Slower(usec) {
		return
	}
	s.fe.slow.Add(shownBinaryArgs(r), usec, s.peer.RemoteAddr(), "")
}

// slowlogStart is when a request begins, for slowlogRecord.
func slowlogStart() time.Time { return time.Now() }
