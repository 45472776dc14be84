package memproto

import (
	"bytes"

	"github.com/tandemkv/tandem/users"
)

// memcached 1.6's text-protocol login, the auth-file scheme of
// "memcached -Y <authfile>", over Tandem's user store (package users).
//
// When the store requires a login (requirepass is set: the default user
// has a password), a new session is bound to no user and reads its input
// with login instead of the parser until a login succeeds. Like memcached's
// try_read_command_asciiauth:
//
//   - A line is read (a line with no '\n' within memcached-max-line bytes
//     closes the connection; fewer than 2 bytes buffered are waited on). It
//     must split on spaces into at least 5 tokens, the first exactly "set"
//     and the fifth a length (safe_strtoul: "+12" and "12\t…" count);
//     key, flags and exptime are ignored. Any other line, "quit", "version"
//     and meta commands included, is answered CLIENT_ERROR
//     unauthenticated.
//   - Then <length>+2 bytes are read: a block that does not end in "\r\n"
//     is CLIENT_ERROR bad command line termination; one with fewer than two
//     space-separated tokens (before a NUL) is CLIENT_ERROR bad
//     authentication token format. The first two tokens are the user name
//     and the password; more are ignored. A block longer than memcached's
//     16 KB read buffer can never arrive, and memcached closes the
//     connection once that buffer is full: so does Tandem.
//   - users.Store.Authenticate decides: STORED and the session is bound to
//     the user, or CLIENT_ERROR authentication failure and the session
//     stays as it was (it may try again; the connection stays open).
//     Nothing is stored either way. The default user's name is "default",
//     as in Redis: with requirepass, a client logs in with the data
//     "default <requirepass>".
//   - noreply is not honoured, and memcached builds every reply of this
//     mode in one response object: a reply replaces the one before it that
//     memcached had not yet written (it writes when its input runs out and
//     after 21, then every 20, requests of one read). Pipelined refusals
//     so come back as one line, and a login after them as STORED alone.
//
// Once logged in, the rest of the input (the same read included) goes to
// the parser as usual. stats auth_cmds counts logins tried, auth_errors
// those refused.

// loginReadBuffer is memcached's read buffer (READ_BUFFER_SIZE): an auth
// block must fit in it whole.
const loginReadBuffer = 16384

// userFor is the user a new session is bound to: the default user when no
// login is required, else nobody until login succeeds.
func (f *Frontend) userFor() *users.User {
	if f.users.AuthRequired() {
		return nil
	}
	return f.users.Default()
}

// login runs one step of the login on in, the unconsumed input of a session
// bound to no user. It returns how many bytes it consumed and whether Serve
// should go on with the rest of in (false: more bytes are needed, or the
// connection is closing).
func (s *session) login(in []byte) (int, bool) {
	if s.loginNeed == 0 {
		if len(in) < 2 {
			return 0, false
		}
		eol := bytes.IndexByte(in, '\n')
		if eol < 0 {
			if len(in) > s.parser.lim.MaxLine {
				s.loginClose()
				return len(in), false
			}
			return 0, false
		}
		size, ok := loginLine(in[:eol])
		if !ok {
			s.loginReply(errUnauthenticated)
		} else {
			s.loginNeed = int(size) + 2
		}
		return eol + 1, true
	}
	need := s.loginNeed
	if need > loginReadBuffer && len(in) >= loginReadBuffer {
		s.loginClose() // memcached's buffer is full and still lacks the block
		return len(in), false
	}
	if len(in) < need {
		return 0, false
	}
	s.loginNeed = 0
	block := in[:need]
	if !bytes.HasSuffix(block, []byte("\r\n")) {
		s.loginReply(errAuthTermination)
		return need, true
	}
	name, pass, ok := loginCredentials(block[:need-2])
	if !ok {
		s.loginReply(errAuthFormat)
		return need, true
	}
	s.fe.stats.authCmds.Add(1)
	u, err := s.fe.users.Authenticate(string(name), string(pass))
	if err != nil {
		s.fe.stats.authErrors.Add(1)
		s.loginReply(errAuthFailure)
		return need, true
	}
	s.user.Store(u)
	s.loginReply(replyStored)
	return need, true
}

// loginLine checks a login's command line (without its '\n') and returns
// the length of the data block that follows.
func loginLine(line []byte) (uint32, bool) {
	toks := spaceTokens(line, 5)
	if len(toks) < 5 || string(toks[0]) != "set" {
		return 0, false
	}
	return parseUint32(toks[4])
}

// loginCredentials splits a login's data block into the user name and the
// password.
func loginCredentials(data []byte) (name, pass []byte, ok bool) {
	toks := spaceTokens(data, 2)
	if len(toks) < 2 {
		return nil, nil, false
	}
	return toks[0], toks[1], true
}

// spaceTokens returns up to max tokens of b split on spaces, as memcached's
// tokenize_command: runs of spaces separate, and a NUL ends the string.
func spaceTokens(b []byte, max int) [][]byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	var toks [][]byte
	for len(toks) < max {
		for len(b) > 0 && b[0] == ' ' {
			b = b[1:]
		}
		if len(b) == 0 {
			break
		}
		end := bytes.IndexByte(b, ' ')
		if end < 0 {
			end = len(b)
		}
		toks = append(toks, b[:end])
		b = b[end:]
	}
	return toks
}

// loginReply answers one login request. It replaces the reply before it if
// memcached would not have written that one yet (see above), and counts
// the request toward memcached's per-read batch.
func (s *session) loginReply(text string) {
	s.out = append(s.out[:s.flushed], text...)
	s.crlf()
	s.nreq++
	if s.nreq == reqsPerEvent || s.nreq > reqsPerEvent && (s.nreq-reqsPerEvent)%(reqsPerEvent-1) == 0 {
		s.flushed = len(s.out)
	}
}

// loginClose closes the connection as memcached does: replies not yet
// written are lost.
func (s *session) loginClose() {
	s.out = s.out[:s.flushed]
	s.closing = true
}
