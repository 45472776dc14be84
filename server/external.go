package server

import (
	"log/slog"
	"runtime/debug"
	"time"
)

// Connections served outside the event loops. gnet has no TLS, so the TLS
// listeners (package server/tlsserver) run crypto/tls on goroutines of
// their own and drive the same Sessions; these methods let them share
// what the loops enforce: one id sequence (CLIENT LIST/KILL), one client
// count under maxclients, the same limits and the same panic recovery.

// Admit counts one more client, as OnOpen does; ok is false when
// maxclients is reached (nothing is counted then). A connection admitted
// must call Leave once when it is gone.
func (s *Server) Admit() (id uint64, ok bool) {
	lim := s.limits.Load()
	if n := s.clients.Add(1); lim.MaxClients > 0 && n > int64(lim.MaxClients) {
		s.clients.Add(-1)
		return 0, false
	}
	return s.nextID.Add(1), true
}

// NewClientID returns the next id of the connections' sequence, for a
// client with no connection (a replica's master client), counted nowhere.
func (s *Server) NewClientID() uint64 { return s.nextID.Add(1) }

// Leave uncounts a client Admit counted.
func (s *Server) Leave() { s.clients.Add(-1) }

// Limits returns the connection limits in force (SetLimits changes them).
func (s *Server) Limits() Limits { return *s.limits.Load() }

// Logger is the server's logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// Safely runs fn and turns a panic into a log line; it reports whether fn
// returned normally. id and remote name the connection in the log.
func (s *Server) Safely(id uint64, remote string, fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic serving client; closing its connection", "id", id, "addr", remote, "panic", r, "stack", string(debug.Stack()))
			ok = false
		}
	}()
	fn()
	return true
}

// AccountBuffers adds delta bytes to what the connections' buffers hold
// (ClientBuffers.Total) and notes a connection's query buffer (input) and
// queued output for the recent maxima; a connection served off the loops
// reports its buffers' changes so, and removes what it holds when it ends.
func (s *Server) AccountBuffers(delta, input, output int64) {
	if delta != 0 {
		s.bufs.total.Add(delta)
	}
	now := time.Now()
	if input > 0 {
		s.bufs.input.note(input, now)
	}
	if output > 0 {
		s.bufs.output.note(output, now)
	}
}
