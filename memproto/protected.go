package memproto

import (
	"github.com/tandemkv/tandem/internal/protect"
	"github.com/tandemkv/tandem/server"
)

// refuseProtected applies protected mode to a new connection, with the
// same decision as the Redis port (protect.Refuses): a refused client gets
// the errDeniedProtected line and is closed (protect.Refused says when),
// counted in rejected_connections and not in curr_connections nor
// total_connections. It returns the session to hand the server instead of
// a session, or nil when the client is accepted.
func (f *Frontend) refuseProtected(p server.Peer) server.Session {
	if !protect.Refuses(f.cfg.ProtectedMode(), f.users.Default().NoPass(), p.RemoteAddr()) {
		return nil
	}
	f.stats.rejectedConns.Add(1)
	return protect.Refused(p, []byte(errDeniedProtected+"\r\n"))
}
