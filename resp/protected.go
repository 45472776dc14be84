package resp

import (
	"github.com/tandemkv/tandem/internal/protect"
	"github.com/tandemkv/tandem/server"
)

// refuseProtected applies protected mode to a new connection, as Redis's
// clientAcceptHandler: a client protect.Refuses gets ErrDeniedProtected
// and is closed (protect.Refused says when), counted in
// rejected_connections and not in total_connections_received nor CLIENT
// LIST. It returns the session to hand the server instead of a Client, or
// nil when the client is accepted.
func (f *Frontend) refuseProtected(p server.Peer) server.Session {
	if !protect.Refuses(f.cfg.ProtectedMode(), f.users.Default().NoPass(), p.RemoteAddr()) {
		return nil
	}
	f.stats.rejectedConns.Add(1)
	return protect.Refused(p, []byte("-"+ErrDeniedProtected+"\r\n"))
}
