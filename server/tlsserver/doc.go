// Package tlsserver serves the TLS ports (tls-port, memcached-tls-port)
// with Go's crypto/tls, driving the same server.Session a plain
// connection gets: command execution stays one code path for both.
//
// # Why crypto/tls on its own listener
//
// gnet has no TLS. The two ways to add it are decoding TLS records over
// gnet's byte stream, or letting crypto/tls own the socket. A record
// layer over gnet means reimplementing the handshake state machine (or
// driving crypto/tls through an in-memory net.Conn whose reads must never
// block an event loop, which its Handshake and Read do): much code, all
// of it security-critical. crypto/tls on a net.Listener is the audited
// implementation as it is meant to be used; it costs one goroutine per
// TLS connection for reading (and one that writes), which the Go runtime
// multiplexes on epoll as gnet does. What must be shared stays shared:
// the connection is admitted under the server's maxclients count and
// takes its id from the same sequence (server.Server.Admit), it follows
// the server's Limits (query buffer, output buffer, idle timeout) and a
// panic in its session is recovered by the same server.Server.Safely.
//
// # How a request moves
//
// The accept loop hands each connection to its own goroutine, which
// counts it under maxclients (from accept on, so handshakes in progress
// are bounded too), runs the handshake under a deadline and creates the
// front-end's session with a Peer of this package; a connection over
// maxclients gets the front-end's reject message once the handshake is
// done. Then it loops: read decrypted
// bytes, call Session.Serve(pending+read, out), queue the replies. Only
// this goroutine calls Serve, so a session is never served concurrently,
// as on an event loop. Bytes of an incomplete request are kept for the
// next read, under the query-buffer limit.
//
// Replies and AsyncWrite's messages (pub/sub) go through one queue that a
// writer goroutine drains into the tls.Conn, so AsyncWrite never blocks
// its caller and messages keep their order with the replies; the queue's
// length (plus the write in flight) is OutboundBuffered, which the
// front-ends' output limits read. A connection whose queue passes the
// output-buffer limit is closed, unless its session paces itself
// (server.OutputPacer).
//
// Wake (a blocked client's key became ready, a timeout) must make Serve
// run even while the goroutine waits in Read: it sets a flag and moves
// the socket's read deadline to the past, so Read returns a timeout;
// the loop clears the deadline and, seeing the flag, calls Serve with no
// new bytes. A timeout is a temporary error for crypto/tls: the record
// being read is kept, nothing is lost. PauseUntilDrained (server.Pauser)
// makes the goroutine wait, not reading, until the writer has brought the
// queue down to the level asked, then serve the rest.
//
// The idle sweep closes connections idle past the timeout once a second,
// sparing sessions that say IdleExempt, as the event loops' OnTick does.
//
// # Certificates
//
// Build reads every file a Settings names (certs.go) — the certificate
// and key, decrypted with their pass when encrypted (keys.go), the client
// certificate and key Tandem would dial with, the CAs, the DH parameters,
// only checked (dhparams.go) — and returns a Bundle, changing nothing.
// Certs holds the Bundle in force behind an atomic pointer, read by
// GetConfigForClient at each handshake; Use swaps in a new one, so new
// connections use the new certificate and established ones are left
// alone. node/tls.go builds a Bundle in conf's applier of the tls-*
// directives (conf.Config.OnApply): a Bundle that cannot be built refuses
// the CONFIG SET, and one that can is put in use when the values are
// published. Each Bundle seals its session tickets with its own keys and
// stamps them with their issue time, so tls-session-cache-timeout bounds
// them (sessions.go).
package tlsserver
