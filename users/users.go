package users

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// DefaultName is the default user's name, Redis's: the user AUTH <password>
// logs in as, and the name a memcached client gives with requirepass.
const DefaultName = "default"

// The reasons Authenticate refuses a login. Front-ends answer all of them
// with one reply (Redis: WRONGPASS; memcached: CLIENT_ERROR authentication
// failure) so a client cannot tell which names exist; the distinction is
// for logs and counters.
var (
	ErrWrongPassword = errors.New("users: wrong password")
	ErrUnknownUser   = errors.New("users: no such user")
	ErrUserDisabled  = errors.New("users: user is disabled")
)

// Spec is what a user may do: log in at all (Enabled), with any password
// (NoPass) or with one of Passwords. A Spec published in a User is never
// changed again; Store.Set edits a copy. Redis ACL's command and key rules
// belong here.
type Spec struct {
	Enabled bool
	NoPass  bool
	// Passwords are the SHA-256 digests of the accepted passwords in
	// lower-case hex (as ACL GETUSER shows them), in the order added.
	Passwords []string
	// Sanitize is SanitizeDefault, SanitizePayload or SkipSanitizePayload
	// (a flag Tandem shows and does not otherwise use).
	Sanitize int
	// Selector is the root selector: the command, key and channel rules
	// written outside parentheses (selector.go).
	Selector
	// Selectors are the "(…)" selectors, in the order added.
	Selectors []*Selector

	open bool // Unrestricted, computed by seal
	// pubsubAll is acl-pubsub-default when the store edits the Spec: a
	// new selector, and reset, get every channel (Store.SetPubsubDefault).
	pubsubAll bool
}

// HashPassword is the stored form of a password: its SHA-256 digest in
// lower-case hex.
func HashPassword(password string) string {
	sum := sha256.Sum256([]byte(password))
	return hex.EncodeToString(sum[:])
}

// AddPassword accepts password from now on (ACL SETUSER >password). As in
// Redis, a user with a password is no longer nopass.
func (s *Spec) AddPassword(password string) { s.addHash(HashPassword(password)) }

// AddHash accepts the password whose digest is hash (ACL SETUSER #hash);
// hash must be 64 hex digits.
func (s *Spec) AddHash(hash string) error {
	if len(hash) != sha256.Size*2 {
		return errors.New("users: a password hash is 64 hex digits")
	}
	if _, err := hex.DecodeString(hash); err != nil {
		return errors.New("users: a password hash is 64 hex digits")
	}
	s.addHash(lowerHex(hash))
	return nil
}

func (s *Spec) addHash(h string) {
	s.NoPass = false
	if !slices.Contains(s.Passwords, h) {
		s.Passwords = append(s.Passwords, h)
	}
}

// RemovePassword stops accepting password (ACL SETUSER <password) and
// reports whether it was accepted.
func (s *Spec) RemovePassword(password string) bool {
	h := HashPassword(password)
	i := slices.Index(s.Passwords, h)
	if i < 0 {
		return false
	}
	s.Passwords = slices.Delete(s.Passwords, i, i+1)
	return true
}

// SetNoPass makes any password work and forgets the stored ones (ACL
// SETUSER nopass).
func (s *Spec) SetNoPass() {
	s.NoPass = true
	s.Passwords = nil
}

// ResetPass forgets every password and clears nopass: nobody can log in
// as the user until a password is added (ACL SETUSER resetpass).
func (s *Spec) ResetPass() {
	s.NoPass = false
	s.Passwords = nil
}

// clone is a copy whose slices the original does not share.
func (s *Spec) clone() *Spec {
	c := *s
	c.Passwords = slices.Clone(s.Passwords)
	c.Selector = *s.Selector.clone()
	c.Selectors = make([]*Selector, len(s.Selectors))
	for i, sel := range s.Selectors {
		c.Selectors[i] = sel.clone()
	}
	return &c
}

// User is one user. A connection that logged in holds its *User; the
// pointer stays valid and names the same user while the store changes
// what the user may do.
type User struct {
	name    string
	spec    atomic.Pointer[Spec]
	removed atomic.Bool // deleted, or replaced by ACL LOAD (notify.go)
}

// Removed reports whether the store no longer holds the user (ACL
// DELUSER, or ACL LOAD, which replaces every user but default).
func (u *User) Removed() bool { return u.removed.Load() }

// Name is the user's name.
func (u *User) Name() string { return u.name }

// Spec returns a copy of what the user may do now.
func (u *User) Spec() Spec { return *u.spec.Load().clone() }

// Enabled reports whether the user may log in.
func (u *User) Enabled() bool { return u.spec.Load().Enabled }

// NoPass reports whether any password logs the user in.
func (u *User) NoPass() bool { return u.spec.Load().NoPass }

// CheckPassword reports whether password is one of the user's (true for
// a nopass user). The comparison takes the same time whichever stored
// digest matches, or none.
func (u *User) CheckPassword(password string) bool { return u.spec.Load().accepts(password) }

// accepts reports whether password logs in a user with this Spec.
func (sp *Spec) accepts(password string) bool {
	if sp.NoPass {
		return true
	}
	h := []byte(HashPassword(password))
	ok := 0
	for _, p := range sp.Passwords {
		ok |= subtle.ConstantTimeCompare(h, []byte(p))
	}
	return ok == 1
}

// Store holds the users. It is safe for concurrent use.
type Store struct {
	mu    sync.RWMutex     // guards users and cat; a User's Spec is atomic
	users map[string]*User // by name
	def   *User
	cat   *Catalog       // the commands ACL rules name (SetCatalog)
	subs  []func(Change) // Subscribe (notify.go)
	log   aclLog         // ACL LOG (log.go)
	// pubsubAll is acl-pubsub-default allchannels (SetPubsubDefault).
	pubsubAll atomic.Bool
}

// newSpec is a new user's Spec (off, no password, no key, -@all, and no
// channel unless acl-pubsub-default is allchannels) over the catalog.
func (s *Store) newSpec() *Spec {
	sp := &Spec{pubsubAll: s.pubsubAll.Load()}
	sp.cat = s.cat
	sp.AllChannels = sp.pubsubAll
	sp.setAll(false)
	return sp
}

// edit is a copy of u's Spec to change, over the current catalog and
// acl-pubsub-default.
func (s *Store) edit(u *User) *Spec {
	sp := u.spec.Load().clone()
	sp.cat = s.cat
	sp.pubsubAll = s.pubsubAll.Load()
	sp.ensureBits()
	return sp
}

// SetPubsubDefault is acl-pubsub-default: whether a user or selector
// created from now on, and a user "reset", may use every channel
// (allchannels) or none (resetchannels, Redis 7.0's default).
func (s *Store) SetPubsubDefault(all bool) { s.pubsubAll.Store(all) }

// New returns a store holding only the default user, enabled and nopass
// (Redis's "user default on nopass"): nobody has to log in.
func New() *Store {
	s := &Store{users: map[string]*User{}}
	s.log.maxLen = LogMaxLen
	s.def = s.Set(DefaultName, func(sp *Spec) {
		sp.Enabled = true
		sp.SetNoPass()
		sp.AllKeys, sp.AllChannels = true, true
		sp.setAll(true)
	})
	return s
}

// Default is the default user.
func (s *Store) Default() *User { return s.def }

// Lookup returns the user called name, or nil.
func (s *Store) Lookup(name string) *User {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.users[name]
}

// Names lists the users' names, sorted.
func (s *Store) Names() []string {
	s.mu.RLock()
	names := make([]string, 0, len(s.users))
	for n := range s.users {
		names = append(names, n)
	}
	s.mu.RUnlock()
	slices.Sort(names)
	return names
}

// Set changes the user called name with edit, creating it first if it
// does not exist (a new user is disabled and has no password, as one ACL
// SETUSER creates), and returns it. edit works on a copy; the result is
// published at once to every connection bound to the user.
func (s *Store) Set(name string, edit func(*Spec)) *User {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[name]
	sp := s.newSpec()
	if u == nil {
		u = &User{name: name}
	} else {
		sp = s.edit(u)
	}
	if edit != nil {
		edit(sp)
	}
	sp.seal()
	u.spec.Store(sp)
	s.users[name] = u
	return u
}

// Delete removes the user called name and reports whether it existed.
// The default user cannot be removed.
func (s *Store) Delete(name string) bool { return s.DeleteUsers(nil, name) == 1 }

// DeleteUsers is ACL DELUSER: it removes the users named (the default
// user excepted), tells the subscribers, whose connections of them close
// (origin's after its reply), and returns how many existed.
func (s *Store) DeleteUsers(origin any, names ...string) int {
	var gone []*User
	s.mu.Lock()
	for _, name := range names {
		if u, ok := s.users[name]; ok && name != DefaultName {
			s.kill(u)
			delete(s.users, name)
			gone = append(gone, u)
		}
	}
	s.mu.Unlock()
	s.notify(Change{Removed: gone, Origin: origin})
	return len(gone)
}

// SetDefaultPassword makes password the default user's only password, as
// Redis applies requirepass; "" makes the default user nopass.
func (s *Store) SetDefaultPassword(password string) {
	s.Set(DefaultName, func(sp *Spec) {
		if password == "" {
			sp.SetNoPass()
			return
		}
		sp.ResetPass()
		sp.AddPassword(password)
	})
}

// AuthRequired reports whether a new connection must log in: the default
// user needs a password, or is disabled (Redis's authRequired).
func (s *Store) AuthRequired() bool {
	sp := s.def.spec.Load()
	return !sp.NoPass || !sp.Enabled
}

// Authenticate returns the user called name if password logs it in. The
// error is ErrUnknownUser, ErrUserDisabled or ErrWrongPassword otherwise.
func (s *Store) Authenticate(name, password string) (*User, error) {
	u := s.Lookup(name)
	if u == nil {
		return nil, ErrUnknownUser
	}
	sp := u.spec.Load() // one Spec for the whole check, whatever Set does meanwhile
	if !sp.Enabled {
		return nil, ErrUserDisabled
	}
	if !sp.accepts(password) {
		return nil, ErrWrongPassword
	}
	return u, nil
}

// lowerHex lower-cases the hex digits A-F of h.
func lowerHex(h string) string {
	b := []byte(h)
	for i, c := range b {
		if c >= 'A' && c <= 'F' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
