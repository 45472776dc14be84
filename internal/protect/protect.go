// Package protect is protected mode: the one decision of which new
// connections a Tandem server refuses because anyone who reaches it could
// use it without a password.
//
// Both front-ends ask Refuses when a connection opens (resp.Frontend and
// memproto.Frontend, NewSession); node asks Exposed at start to warn. It is
// a package of its own, not a part of server/ (which moves bytes and knows
// no password) nor of one front-end (the other would then depend on it).
// Callers pass what the decision reads: protected-mode, and whether the
// default user of the users store has no password (users.User.NoPass,
// Redis's USER_FLAG_NOPASS); Refused (session.go) is how a front-end turns
// a refused connection away.
//
// The rule is redis-server 7.0.15's, clientAcceptHandler in
// src/networking.c:
//
//	if (server.protected_mode && DefaultUser->flags & USER_FLAG_NOPASS)
//	    if (!islocalClient(c)) → write the DENIED text, close
//
// It depends on the client's address and on the default user having no
// password, never on the bind list: a server bound to 0.0.0.0 and one
// bound to a single non-loopback address refuse alike; one bound to
// loopback only is unaffected because its clients are all local.
package protect

import (
	"net"
	"strings"
)

// Refuses reports whether protected mode refuses a client connecting from
// remote (a "host:port" address; anything else is a unix socket), given
// protected-mode and whether the default user has no password.
func Refuses(protectedMode, defaultNoPass bool, remote string) bool {
	return protectedMode && defaultNoPass && !IsLocal(remote)
}

// IsLocal reports whether remote is a loopback client as Redis's
// islocalClient decides it: a unix socket, or exactly 127.0.0.1 or ::1
// (other 127.0.0.0/8 addresses are not local to Redis, nor to Tandem).
// An IPv4-mapped ::ffff:127.0.0.1 is 127.0.0.1.
func IsLocal(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return true // not host:port: a unix socket
	}
	if i := strings.IndexByte(host, '%'); i >= 0 {
		host = host[:i] // a zone: fe80::1%eth0
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}

// Exposed reports whether protected mode will refuse clients of a server
// listening on hosts (bind addresses; "*" and "" are every interface):
// protected mode is on, the default user has no password, and one host is
// not loopback. node logs a warning when it is; Redis 7.0 logs none.
func Exposed(protectedMode, defaultNoPass bool, hosts []string) bool {
	if !protectedMode || !defaultNoPass {
		return false
	}
	for _, h := range hosts {
		h = strings.TrimPrefix(h, "-")
		ip := net.ParseIP(h)
		if h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return true
		}
	}
	return false
}
