package memproto

import (
	"github.com/tandemkv/tandem/internal/protect"
	"github.com/tandemkv/tandem/server"
)

// refuseProtected applies protected mode to a new connection, with the
// same decision as the Redis port (protect.Refuses): a refused client gets
// the errDeniedProtected line and is closed, counted in
// rejected_connections and not in curr_connections nor total_connections.
// It returns the session to hand the server instead of a session, or nil
// when the client is accepted.
//
// The line is queued with AsyncWrite and the close after it (gnet runs a
// connection's queued writes before its queued close), so it is sent at
// once, before the client says anything.
func (f *Frontend) refuseProtected(p server.Peer) server.Session {
	if !protect.Refuses(f.cfg, p.RemoteAddr()) {
		return nil
	}
	f.stats.rejectedConns.Add(1)
	_ = p.AsyncWrite([]byte(errDeniedProtected + "\r\n"))
	p.Close()
	return refusedSession{}
}

// refusedSession is a refused connection's session until the queued close
// runs: what the client sent meanwhile is discarded, unanswered.
type refusedSession struct{}

func (refusedSession) Serve(in, out []byte) (int, []byte, bool) { return len(in), out, false }
func (refusedSession) Closed()                                  {}
