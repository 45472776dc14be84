package tracking

import (
	"bytes"
	"slices"
)

// client is one connection with tracking on.
type client struct {
	id                           uint64
	conn                         Conn
	redirect                     uint64 // 0: none
	bcast, optIn, optOut, noLoop bool
	broken                       bool     // the redirect target was found gone
	prefixes                     [][]byte // BCAST prefixes, sorted
}

// Options are CLIENT TRACKING ON's.
type Options struct {
	Redirect                     uint64 // 0: none
	BCast, OptIn, OptOut, NoLoop bool
	Prefixes                     [][]byte // in the order given; copied
}

// Mode is what a connection's front-end needs to know of its tracking on
// every command.
type Mode struct {
	On, BCast, OptIn, OptOut bool
}

// TracksReads reports whether the connection's read-only commands
// register their keys (tracking on, not BCAST); with OPTIN only after
// CLIENT CACHING YES, with OPTOUT unless after CLIENT CACHING NO (caching).
func (m Mode) TracksReads(caching bool) bool {
	if !m.On || m.BCast {
		return false
	}
	return !(m.OptIn && !caching || m.OptOut && caching)
}

// Enable turns tracking on for connection id, or changes its options, as
// CLIENT TRACKING ON (Redis's checks in its order, then enableTracking).
// On success ok is true; err is then nil, except in one case Redis has: a
// later prefix of the command overlapping a still later one is refused
// with an error and the tracking enabled all the same, so the client gets
// both replies. The redirect target's existence is the caller's to check
// first.
func (t *Table) Enable(id uint64, conn Conn, o Options) (err error, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.clients[id]
	switch {
	case !o.BCast && len(o.Prefixes) > 0:
		return ErrPrefixNeedsBcast, false
	case c != nil && c.bcast != o.BCast:
		return ErrBcastSwitch, false
	case o.BCast && (o.OptIn || o.OptOut):
		return ErrOptBcast, false
	case o.OptIn && o.OptOut:
		return ErrOptBoth, false
	case c != nil && (o.OptIn && c.optOut || o.OptOut && c.optIn):
		return ErrOptSwitch, false
	}
	if o.BCast {
		err = checkOverlaps(c, o.Prefixes)
		if oe, _ := err.(*OverlapError); err != nil && (oe.Existing || oe.at == 0) {
			return err, false
		}
	}
	if c == nil {
		c = &client{id: id}
		t.clients[id] = c
	}
	c.conn = conn
	c.redirect = o.Redirect
	c.broken = false
	c.bcast, c.optIn, c.optOut, c.noLoop = o.BCast, o.OptIn, o.OptOut, o.NoLoop
	if o.BCast {
		if len(o.Prefixes) == 0 {
			t.addPrefixLocked(c, nil)
		}
		for _, p := range o.Prefixes {
			t.addPrefixLocked(c, p)
		}
	}
	t.syncControl()
	return err, true
}

// checkOverlaps is Redis's checkPrefixCollisionsOrReply: each new prefix
// against the connection's (in order), then against the later new ones.
// Redis reports a clash of the first new prefix with a later one as a
// refusal, and one of a later prefix as an error after which tracking is
// enabled anyway; Enable tells them apart.
func checkOverlaps(c *client, prefixes [][]byte) error {
	for i, p := range prefixes {
		if c != nil {
			for _, have := range c.prefixes {
				if overlap(have, p) {
					return &OverlapError{Prefix: p, Other: have, Existing: true, at: i}
				}
			}
		}
		for _, q := range prefixes[i+1:] {
			if overlap(p, q) {
				return &OverlapError{Prefix: p, Other: q, at: i}
			}
		}
	}
	return nil
}

// overlap reports whether one of a and b starts with the other.
func overlap(a, b []byte) bool {
	n := min(len(a), len(b))
	return bytes.Equal(a[:n], b[:n])
}

// addPrefixLocked subscribes c to prefix p (once); t.mu is held.
func (t *Table) addPrefixLocked(c *client, p []byte) {
	ps := t.prefixes[string(p)]
	if ps == nil {
		ps = &bcastState{prefix: bytes.Clone(p), clients: map[uint64]struct{}{}, changed: map[string]uint64{}}
		if ps.prefix == nil {
			ps.prefix = []byte{}
		}
		t.prefixes[string(p)] = ps
	}
	if _, ok := ps.clients[c.id]; ok {
		return
	}
	ps.clients[c.id] = struct{}{}
	i, _ := slices.BinarySearchFunc(c.prefixes, p, bytes.Compare)
	c.prefixes = slices.Insert(c.prefixes, i, ps.prefix)
}

// Disable turns tracking off for connection id (CLIENT TRACKING OFF,
// RESET, the connection closing): its prefixes go, the keys it read stay
// in the table until they change, as in Redis, which drops such stale
// entries lazily.
func (t *Table) Disable(id uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.clients[id]
	if c == nil {
		return
	}
	for _, p := range c.prefixes {
		ps := t.prefixes[string(p)]
		delete(ps.clients, id)
		if len(ps.clients) == 0 {
			delete(t.prefixes, string(p))
		}
	}
	delete(t.clients, id)
	t.syncControl()
}

// Info is one connection's tracking state (CLIENT TRACKINGINFO, CLIENT
// GETREDIR, CLIENT LIST).
type Info struct {
	Mode
	NoLoop, BrokenRedirect bool
	Redirect               uint64   // 0: none
	Prefixes               [][]byte // BCAST prefixes, sorted; the empty prefix is []byte{}
}

// Info returns connection id's tracking state; the zero Info when off.
func (t *Table) Info(id uint64) Info {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.clients[id]
	if c == nil {
		return Info{}
	}
	return Info{
		Mode:   Mode{On: true, BCast: c.bcast, OptIn: c.optIn, OptOut: c.optOut},
		NoLoop: c.noLoop, BrokenRedirect: c.broken, Redirect: c.redirect,
		Prefixes: slices.Clone(c.prefixes),
	}
}
