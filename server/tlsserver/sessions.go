package tlsserver

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"time"
)

// Session resumption, as Redis 7.0 with OpenSSL 3 does it (checked with
// openssl s_client -sess_out/-sess_in against Debian's redis-server):
//
//   - Clients resume through session tickets, TLS 1.2 and 1.3, whatever
//     tls-session-caching says: Redis leaves OpenSSL's tickets on, and
//     "no" turns off only the server's session-ID cache.
//   - With tls-session-caching yes a ticket resumes for
//     tls-session-cache-timeout seconds; with no, or with a timeout of 0,
//     for OpenSSL's default, two hours.
//   - tls-session-cache-size bounds the session-ID cache only (tickets
//     are not in it). Go's server has no session-ID resumption at all, so
//     the size has nothing to bound here; a client that offers only an
//     ID gets a full handshake (so did OpenSSL's s_client -no_ticket
//     against Redis).
//   - A new configuration (a CONFIG SET of a TLS directive) has new
//     ticket keys, as a new OpenSSL context: older tickets make a full
//     handshake.
//
// Go's own tickets are the encrypted session, valid up to 7 days; the
// timeout is added by wrapping them: the issue time rides in the
// session's Extra, and a ticket past the lifetime is not resumed.

// defaultTicketLifetime is OpenSSL's default session timeout for TLS
// (SSL_get_default_timeout): what a ticket lives when Redis sets none.
const defaultTicketLifetime = 2 * time.Hour

// ticketLifetime is how long a ticket resumes under the settings.
func ticketLifetime(caching bool, timeout time.Duration) time.Duration {
	if !caching || timeout <= 0 {
		return defaultTicketLifetime
	}
	return timeout
}

// issuedTag starts the Extra entry that holds a ticket's issue time (Unix
// nanoseconds, big-endian), so that other layers' entries are left alone.
var issuedTag = []byte("tandem-issued/1:")

// tickets issues and checks the tickets of one configuration.
type tickets struct {
	cfg      *tls.Config // whose ticket keys seal them: one set per configuration
	lifetime time.Duration
	now      func() time.Time
}

// install makes t's configuration issue and accept tickets through t.
func (t *tickets) install() {
	t.cfg.WrapSession = t.wrap
	t.cfg.UnwrapSession = t.unwrap
}

// wrap implements tls.Config.WrapSession: the session, stamped with the
// time, sealed with the configuration's keys.
func (t *tickets) wrap(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
	stamp := binary.BigEndian.AppendUint64(append([]byte(nil), issuedTag...), uint64(t.now().UnixNano()))
	replaced := false
	for i, e := range ss.Extra {
		if bytes.HasPrefix(e, issuedTag) {
			ss.Extra[i], replaced = stamp, true
		}
	}
	if !replaced {
		ss.Extra = append(ss.Extra, stamp)
	}
	return t.cfg.EncryptTicket(cs, ss)
}

// unwrap implements tls.Config.UnwrapSession: the session of a ticket
// this configuration sealed, issued within the lifetime; nil (a full
// handshake) for any other.
func (t *tickets) unwrap(ticket []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
	ss, err := t.cfg.DecryptTicket(ticket, cs)
	if err != nil || ss == nil {
		return nil, err
	}
	for _, e := range ss.Extra {
		if bytes.HasPrefix(e, issuedTag) && len(e) == len(issuedTag)+8 {
			issued := time.Unix(0, int64(binary.BigEndian.Uint64(e[len(issuedTag):])))
			if age := t.now().Sub(issued); age >= 0 && age < t.lifetime {
				return ss, nil
			}
		}
	}
	return nil, nil
}
