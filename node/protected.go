package node

import (
	"github.com/tandemkv/tandem/internal/protect"
)

// warnProtected logs, at start, that protected mode will turn clients from
// other hosts away (protect.Exposed): the server listens beyond loopback
// with no password. Redis 7.0 logs nothing and refuses them silently; the
// container image (which binds 0.0.0.0) makes the warning worth having.
func (n *Node) warnProtected() {
	var hosts []string
	for _, b := range n.cfg.BindAddrs() {
		hosts = append(hosts, b.Host)
	}
	if !protect.Exposed(n.cfg.ProtectedMode(), n.Services.Users.Default().NoPass(), hosts) {
		return
	}
	n.log.Warn("WARNING: protected mode is enabled and no password is set for the default user, "+
		"and Tandem listens beyond the loopback interface: clients from other hosts are refused on the Redis "+
		"and the memcached ports (DENIED). Set a password (requirepass) or disable protected mode "+
		"(protected-mode no) to accept them.", "bind", n.cfg.Bind())
}
