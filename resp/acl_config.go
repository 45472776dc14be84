package resp

import (
	"slices"

	"github.com/tandemkv/tandem/pubsub"
	"github.com/tandemkv/tandem/users"
)

// initACL gives the users store this front-end's command table, the one
// ACL rules name, then applies the configuration's users: each "user"
// line as Redis's ACLLoadConfiguredUsers does (reset, then its rules),
// then the aclfile, which replaces them all. A refused line is logged and
// leaves its user out, so nobody can log in as it; Tandem starts anyway.
// It subscribes to the store's changes (followUsers).
func (f *Frontend) initACL() {
	f.users.SetCatalog(newACLCatalog(f.table))
	f.users.Subscribe(f.followUsers)
	for _, u := range f.cfg.ACLUsers() {
		rules := u.Rules
		if f.users.Lookup(u.Name) != nil { // the default user: reset first, as Redis
			rules = append([]string{"reset"}, rules...)
		}
		if err := f.users.SetUser(u.Name, rules...); err != nil && f.log != nil {
			f.log.Error("ACL: user line refused", "user", u.Name, "err", err)
		}
	}
	if name := f.cfg.ACLFile(); name != "" {
		if err := f.users.LoadFile(nil, name, f.cfg.ACLFilePath()); err != nil && f.log != nil {
			f.log.Error("ACL: aclfile not loaded", "file", name, "err", err)
		}
	}
}

// followUsers closes what the users store says must close (users.Change):
// the clients of a removed user, and the subscribed clients of a user whose
// channel permissions no longer allow one of their subscriptions. The
// client that made the change gets its reply first.
func (f *Frontend) followUsers(ch users.Change) {
	f.forEachClient(func(o *Client) {
		u := o.boundUser()
		if u == nil || !slices.Contains(ch.Removed, u) && (ch.Narrowed != u || o.subscriptionsAllowed(u.ACL())) {
			return
		}
		if o == ch.Origin {
			o.closeAfter = true // on this goroutine: the origin is running the command
			return
		}
		o.kill()
	})
}

// subscriptionsAllowed reports whether sp still allows every channel,
// pattern and shard channel the client is subscribed to.
func (c *Client) subscriptionsAllowed(sp *users.Spec) bool {
	c.mu.Lock()
	s := c.ps
	c.mu.Unlock()
	if s == nil {
		return true
	}
	for _, k := range []pubsub.Kind{pubsub.Channel, pubsub.Pattern, pubsub.Shard} {
		for _, n := range c.fe.hub.Names(s, k) {
			if !sp.KeepsSubscription([]byte(n), k == pubsub.Pattern) {
				return false
			}
		}
	}
	return true
}
