package memproto

// MONITOR on the Redis port shows memcached requests too: the process's
// one monitor feed (services.Monitor) gets each request that ran, as
// "mc:<name>" followed by the request line's other tokens (a retrieval's
// every key; not the data block), in db 0 with the client's addr. A binary
// request is shown as its opcode's text command and its key. session.exec
// and execBinary call these; they cost one atomic load while nobody
// watches.

// shownArgs is how MONITOR and the slow log show a text request.
func shownArgs(r *Request) [][]byte {
	rest := r.Args()
	if len(r.Keys) > len(rest) {
		rest = r.Keys
	}
	args := make([][]byte, 0, 1+len(rest))
	args = append(args, []byte("mc:"+r.Cmd.name))
	return append(args, rest...)
}

// monitorFeed publishes a text request that ran.
func (s *session) monitorFeed(r *Request) {
	if !s.fe.mon.Active() || r.Err != "" || r.Cmd == nil {
		return
	}
	s.fe.mon.Publish(0, s.peer.RemoteAddr(), shownArgs(r), nil)
}

// monitorBinary publishes a binary request about to run; an opcode with
// no text command (Noop, SASL) is not shown.
func (s *session) monitorBinary(r *binRequest) {
	if !s.fe.mon.Active() || r.op.cmd == nil {
		return
	}
	s.fe.mon.Publish(0, s.peer.RemoteAddr(), shownBinaryArgs(r), nil)
}

// shownBinaryArgs is how MONITOR and the slow log show a binary request:
// its opcode's text command and its key.
func shownBinaryArgs(r *binRequest) [][]byte {
	args := [][]byte{[]byte("mc:" + r.op.cmd.name)}
	if len(r.key) > 0 {
		args = append(args, r.key)
	}
	return args
}
