package users

// Telling the front-ends: Redis 7.0 closes the connections of a user that
// ACL DELUSER removes, and of every user but default at ACL LOAD (it
// builds new users from the file and frees the old ones, so even a user
// the file declares again loses its connections); ACL SETUSER closes the
// pub/sub connections of a user whose channel permissions no longer allow
// what they subscribed to. The store owns users, not connections, so it
// tells whoever subscribed (each front-end, which knows its connections
// and closes them on both ports) after the change is published.

// Change is one change to the users that connections must follow.
type Change struct {
	// Removed are users that no longer exist. Each connection bound to
	// one must close; meanwhile the user may run nothing.
	Removed []*User
	// Narrowed is a user whose channel permissions shrank (Before is its
	// Spec before the change): a connection of that user with a
	// subscription that Narrowed.ACL().KeepsSubscription refuses must
	// close.
	Narrowed *User
	Before   *Spec
	// Origin is the connection that made the change, as the caller gave
	// it (nil for none): it is closed after its reply is sent, as Redis's
	// CLIENT_CLOSE_AFTER_COMMAND, not at once.
	Origin any
}

// Subscribe calls fn after every Change, on the goroutine that made it,
// with no lock of the store held (fn may call the store). Front-ends
// subscribe once, when they are built.
func (s *Store) Subscribe(fn func(Change)) {
	s.mu.Lock()
	s.subs = append(s.subs, fn)
	s.mu.Unlock()
}

// notify tells the subscribers about ch; the caller holds no lock.
func (s *Store) notify(ch Change) {
	if len(ch.Removed) == 0 && ch.Narrowed == nil {
		return
	}
	s.mu.RLock()
	subs := s.subs
	s.mu.RUnlock()
	for _, fn := range subs {
		fn(ch)
	}
}

// kill makes u a user that may run nothing: its connections, until they
// close, are refused every command but AUTH, HELLO, QUIT and RESET. The
// caller holds s.mu.
func (s *Store) kill(u *User) {
	sp := s.newSpec()
	sp.AllChannels = false
	sp.seal()
	u.spec.Store(sp)
	u.removed.Store(true)
}
