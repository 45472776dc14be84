package memproto

import (
	"slices"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/users"
)

// Redis ACL on the memcached port: a logged-in session runs as its
// *users.User, and each request is checked against that user's rules
// before it runs (the one hook in session.exec). memcached commands are not
// in the Redis command table, so only the user's category rules apply to
// them, replayed from +@all or -@all as users.Spec.CheckCategories does:
//
//   - get, gets, gat, gats, mg, me: @read, and every key needs read
//     permission (~ or %R~);
//   - set, add, replace, append, prepend, cas, incr, decr, delete, touch,
//     ms, md, ma: @write, and the key needs write permission (~ or %W~);
//   - flush_all, cache_memlimit, shutdown, verbosity: @admin @dangerous;
//   - anything else (version, stats, mn, quit…): not checked.
//
// A refused request is answered errPermissionDenied (a CLIENT_ERROR line,
// so clients treat it as a failed request and go on) and logged in ACL
// LOG with context "memcached".

// errPermissionDenied answers a request the user's ACL rules refuse.
const errPermissionDenied = "CLIENT_ERROR permission denied"

var (
	catRead  = users.CategoryBit("read")
	catWrite = users.CategoryBit("write")
	catAdmin = users.CategoryBit("admin") | users.CategoryBit("dangerous")
)

// aclAccess is what r needs: its categories and whether its keys are read
// or written; cats is 0 for a request that is not checked.
func aclAccess(r *Request) (cats uint32, write bool) {
	switch r.Cmd.shape {
	case shapeRetrieve, shapeRetrieveTouch, shapeMetaGet, shapeMetaDebug:
		return catRead, false
	case shapeStore, shapeStoreCAS, shapeArith, shapeDelete, shapeTouch,
		shapeMetaSet, shapeMetaDelete, shapeMetaArith:
		return catWrite, true
	}
	switch r.Cmd.name {
	case "flush_all", "cache_memlimit", "shutdown", "verbosity":
		return catAdmin, false
	}
	return 0, false
}

// aclRefused checks r against the session's user; when it is refused it
// answers errPermissionDenied, logs the denial and reports true.
func (s *session) aclRefused(r *Request) bool {
	if !s.aclDenied(r) {
		return false
	}
	s.line(r, errPermissionDenied)
	return true
}

// aclDenied checks r against the session's user and logs a denial. As on
// the Redis port, the user's root selector and each "(…)" selector is
// tried: one must allow the categories and every key. Binary requests are
// checked as the text command they are (binOp.cmd).
func (s *session) aclDenied(r *Request) bool {
	u := s.user.Load()
	if u == nil {
		return false
	}
	sp := u.ACL()
	if sp.Unrestricted() {
		return false
	}
	cats, write := aclAccess(r)
	if cats == 0 {
		return false
	}
	keys := r.Keys
	if len(keys) == 0 {
		keys = [][]byte{r.Key}
	}
	need := users.KeyRead
	if write {
		need = users.KeyWrite
	}
	d := sp.CheckCategories(cats, keys, need)
	object := r.Cmd.name
	switch d.Reason {
	case users.Allowed:
		return false
	case users.DeniedKey:
		object = string(keys[d.Pos])
	}
	now := time.Now()
	s.fe.users.Log(users.LogEntry{Reason: d.Reason.String(), Context: "memcached", Object: object, Username: u.Name(),
		ClientInfo: "id=" + strconv.FormatUint(s.peer.ID(), 10) + " addr=" + s.peer.RemoteAddr() +
			" proto=memcached cmd=" + r.Cmd.name + " user=" + u.Name()}, now)
	return true
}

// followUsers closes the sessions of users the store removed (ACL DELUSER,
// ACL LOAD), as Redis closes its clients of such a user; until the close
// takes effect the user may run nothing. Channel changes do not concern
// this port.
func (f *Frontend) followUsers(ch users.Change) {
	if len(ch.Removed) == 0 {
		return
	}
	f.sessions.Range(func(_, v any) bool {
		s := v.(*session)
		if u := s.user.Load(); u != nil && slices.Contains(ch.Removed, u) {
			s.peer.Close()
		}
		return true
	})
}
