package memproto

import (
	"strconv"
	"time"

	"github.com/tandemkv/tandem/users"
)

// Redis ACL on the memcached port: a logged-in session runs as its
// *users.User, and each request is checked against that user's rules
// before it runs (the one hook in session.exec). memcached commands are not
// in the Redis command table, so only the user's category rules apply to
// them, replayed from +@all or -@all as users.Spec.CanRunCategories does:
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
	if s.user == nil {
		return false
	}
	sp := s.user.ACL()
	if sp.Unrestricted() {
		return false
	}
	cats, write := aclAccess(r)
	if cats == 0 {
		return false
	}
	reason, object := "", ""
	if !sp.CanRunCategories(cats) {
		reason, object = "command", r.Cmd.name
	} else if !sp.AllKeys {
		keys := r.Keys
		if len(keys) == 0 {
			keys = [][]byte{r.Key}
		}
		for _, k := range keys {
			if !sp.KeyAllowed(k, !write, write) {
				reason, object = "key", string(k)
				break
			}
		}
	}
	if reason == "" {
		return false
	}
	now := time.Now()
	s.fe.users.Log(users.LogEntry{Reason: reason, Context: "memcached", Object: object, Username: s.user.Name(),
		ClientInfo: "id=" + strconv.FormatUint(s.peer.ID(), 10) + " addr=" + s.peer.RemoteAddr() +
			" proto=memcached cmd=" + r.Cmd.name + " user=" + s.user.Name()}, now)
	s.line(r, errPermissionDenied)
	return true
}
