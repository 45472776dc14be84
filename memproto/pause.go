package memproto

// CLIENT PAUSE on the memcached port. A pause is the engine's
// (engine.Gate.Pause), started by a Redis client's CLIENT PAUSE, and
// holds back memcached requests as it holds back Redis commands: every
// request under PAUSE ALL, those that may change data under PAUSE WRITE
// (command.writes, the requests a failed BGSAVE refuses). A request held
// back is not consumed: serving stops before it, the server keeps it and
// what follows, and the session's loop is woken when the pause ends to
// serve them. Requests refused before they run (a bad line) are answered
// at once.

// paused reports whether the pause in force holds back r, a request of
// cmd (nil: a binary Noop or SASL step, which changes nothing), and if so
// parks the session's wake-up. One atomic load when no pause is in force.
func (s *session) paused(cmd *command, r *Request) bool {
	g := s.fe.eng.Gate()
	if !g.Paused(true) || !g.Paused(cmd != nil && cmd.writes(r)) {
		return false
	}
	if s.pauseParked.CompareAndSwap(false, true) {
		peer := s.peer
		g.WhenUnpaused(func() {
			s.pauseParked.Store(false)
			_ = peer.Wake()
		})
	}
	return true
}

// loadingParked holds every request back while the data loads at start
// (services.Loading): memcached has no LOADING reply, and its own
// listener would not be open yet, so requests wait unread and the
// session's loop is woken once the data is there. One atomic load after
// the start.
func (s *session) loadingParked() bool {
	l := s.fe.svc.Loading
	if !l.Active() {
		return false
	}
	if s.loadParked.Load() {
		return true
	}
	s.loadParked.Store(true)
	peer := s.peer
	if !l.WhenDone(func() {
		s.loadParked.Store(false)
		_ = peer.Wake()
	}) {
		s.loadParked.Store(false) // it ended meanwhile
		return false
	}
	return true
}
