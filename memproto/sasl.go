package memproto

import (
	"bytes"
)

// SASL over the binary protocol, the way memcached built with SASL (-S)
// speaks it, against Tandem's users (package users): the same ones the
// Redis port's AUTH and the text protocol's login (auth.go) check. With
// requirepass, the user is "default" and the password requirepass; ACL
// users log in with their own names.
//
//   - List Mechanisms (0x20) answers "PLAIN", the one mechanism served.
//   - Auth (0x21): the key is the mechanism, the value PLAIN's message,
//     "[authzid] NUL authcid NUL password". An authzid other than the
//     authcid is refused (no proxy authorization). Success answers
//     "Authenticated"; any failure 0x20 "Auth failure.". An Auth with an
//     empty value answers 0x21 (continue) with an empty challenge, and the
//     message then comes in a Step (0x22), as Cyrus SASL's PLAIN server
//     does. A Step with no Auth before it is refused.
//   - A mechanism name over 32 bytes is refused (0x04), an exchange bigger
//     than an item 0x82, both with their value swallowed.
//   - As in memcached, List Mechanisms and Auth start over: the session is
//     logged out until the exchange succeeds. With a password required,
//     any opcode but these and Version then gets 0x20 and the connection
//     closes (binRefusal); without one, the session falls back to the
//     default user, as a failed Redis AUTH leaves a client able to go on.
//   - stats auth_cmds counts completed exchanges, auth_errors failed ones.
//
// Unlike memcached, where SASL and the text protocol exclude each other,
// the port serves both at once: each connection logs in with its own
// protocol's scheme.

const saslPLAIN = "PLAIN"

// saslListMechs serves List Mechanisms.
func (s *session) saslListMechs(r *binRequest) {
	s.saslStart()
	s.binReply(r, 0, []byte(saslPLAIN))
}

// saslStart logs the session out for a new exchange.
func (s *session) saslStart() {
	s.saslPending = false
	s.user.Store(s.fe.userFor())
}

// refusesSASLValue refuses an Auth or Step exchange unread: a mechanism
// name too long, or a message bigger than an item.
func refusesSASLValue(s *session, r *binRequest) binStatus {
	switch {
	case len(r.key) > binMaxSASLMech:
		return binInvalid
	case s.parser.tooLarge(r.key, 0, r.valueLen()):
		return binOutOfMemory
	}
	return binOK
}

// saslAuth serves Auth and Step.
func (s *session) saslAuth(r *binRequest) {
	if r.opcode == opcSASLAuth {
		s.saslStart()
		if string(r.key) == saslPLAIN && len(r.value) == 0 {
			s.saslPending = true
			s.binHeader(r, binAuthContinue, 0, 0, 0, 0)
			s.flush()
			return
		}
	} else if !s.saslPending {
		s.saslFail(r)
		return
	}
	s.saslPending = false
	if string(r.key) != saslPLAIN {
		s.saslFail(r)
		return
	}
	name, pass, ok := plainCredentials(r.value)
	if !ok {
		s.saslFail(r)
		return
	}
	u, err := s.fe.users.Authenticate(string(name), string(pass))
	if err != nil {
		s.saslFail(r)
		return
	}
	s.user.Store(u)
	s.fe.stats.authCmds.Add(1)
	s.binReply(r, 0, []byte("Authenticated"))
}

// saslFail answers a failed exchange.
func (s *session) saslFail(r *binRequest) {
	s.fe.stats.authCmds.Add(1)
	s.fe.stats.authErrors.Add(1)
	s.binError(r, binAuthError, "")
}

// plainCredentials splits a PLAIN message (RFC 4616) into the user name
// and the password; an authorization identity must name the same user.
func plainCredentials(msg []byte) (name, pass []byte, ok bool) {
	authz, rest, ok := bytes.Cut(msg, []byte{0})
	if !ok {
		return nil, nil, false
	}
	name, pass, ok = bytes.Cut(rest, []byte{0})
	if !ok || len(name) == 0 || bytes.IndexByte(pass, 0) >= 0 {
		return nil, nil, false
	}
	if len(authz) > 0 && !bytes.Equal(authz, name) {
		return nil, nil, false
	}
	return name, pass, true
}
