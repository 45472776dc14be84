package tracking

import (
	"bytes"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
)

// Conn is a connection invalidation messages can be sent to: a Redis
// client. Its methods are called from any goroutine, with the table's
// mutex held (and often an engine shard lock): they must not block and
// must not call into the table or the engine.
type Conn interface {
	// Deliver queues one message for the connection, as Redis's
	// sendTrackingMessage writes it to the connection it picked (see
	// Message); the connection formats it in its protocol and may drop it
	// (a RESP2 connection without pub/sub has no way to receive it).
	// m's slices are valid during the call only.
	Deliver(m *Message)
	// Proto is the connection's protocol, 2 or 3.
	Proto() int
}

// Message is one invalidation message.
type Message struct {
	// Keys are the keys no longer valid (one for a change, all of a
	// prefix's for a broadcast), unless All.
	Keys [][]byte
	// All: every key is invalid (a flush). Redis writes a RESP null in
	// the protocol of the tracking connection, NullProto, which is not the
	// receiver's when it redirects.
	All       bool
	NullProto int
	// Redirected: sent to the REDIRECT target of another connection,
	// which may receive it in RESP2 as a pub/sub "message" on
	// __redis__:invalidate if it is in pub/sub mode.
	Redirected bool
	// BrokenRedirect, when not 0, replaces the invalidation: the
	// connection's REDIRECT target (this id) is gone; RESP3 connections
	// get "tracking-redir-broken".
	BrokenRedirect uint64
}

// ref is one connection that may hold a key. prov marks a registration
// Begin made for a command still running.
type ref struct {
	id   uint64
	prov bool
}

// bcastState is one BCAST prefix: its connections, and the keys under it
// changed since the last broadcast with the origin of their last change.
type bcastState struct {
	prefix  []byte
	clients map[uint64]struct{} // under the table's mu
	// mu guards changed, which writes fill without the table's mu; a
	// leaf lock.
	mu      sync.Mutex
	changed map[string]uint64
}

// Table is the process's tracking table. The zero Table is not usable:
// call New.
//
// The keys are spread over stripes, each under its own mutex, so that
// writes on different cores do not queue at one lock while some key is
// tracked: a write to a key nobody tracks takes its stripe's lock for one
// map lookup. Everything else (connections, prefixes, the lookup) is
// under mu, but for what writes need: the bound and the counts are
// atomics, the prefixes a list replaced on change, and each prefix's
// changed keys are under its own leaf lock, so only a write under a BCAST
// prefix takes one. Order: a stripe, then mu, then a prefix's lock or a
// Conn's own locks; never two stripes, and never a stripe while mu is
// held.
type Table struct {
	stripes [keyStripes]keyStripe
	seed    maphash.Seed

	mu       sync.Mutex
	prefixes map[string]*bcastState
	// bcast is prefixes as a list writes read without a lock, replaced
	// whenever a prefix comes or goes.
	bcast   atomic.Pointer[[]*bcastState]
	clients map[uint64]*client // connections with tracking on
	lookup  func(id uint64) Conn
	maxKeys atomic.Int64 // 0: no bound

	// pending: some prefix has changed keys to broadcast.
	pending atomic.Bool
	// counters for INFO, readable without a lock; nKeys and nPrefixes
	// also tell changes whether there is anything to look at
	nClients, nKeys, nItems, nPrefixes atomic.Int64
}

const keyStripes = 64

// keyStripe is one stripe of the tracked keys.
type keyStripe struct {
	mu   sync.Mutex
	keys map[string][]ref
	n    atomic.Int64 // len(keys), for writes that need not lock
	_    [32]byte     // a cache line of its own
}

// New returns an empty table bounded to maxKeys keys (0: unbounded).
func New(maxKeys int64) *Table {
	t := &Table{
		seed:     maphash.MakeSeed(),
		prefixes: map[string]*bcastState{},
		clients:  map[uint64]*client{},
		lookup:   func(uint64) Conn { return nil },
	}
	t.maxKeys.Store(maxKeys)
	for i := range t.stripes {
		t.stripes[i].keys = map[string][]ref{}
	}
	return t
}

func (t *Table) stripeOf(key []byte) *keyStripe {
	return &t.stripes[maphash.Bytes(t.seed, key)%keyStripes]
}

// SetLookup installs how connections are found by id: REDIRECT targets,
// and whether one still exists (any Redis connection, tracking or not).
// The Redis front-end installs it; lookup runs under the table's mutex
// and must only read.
func (t *Table) SetLookup(lookup func(id uint64) Conn) {
	t.mu.Lock()
	t.lookup = lookup
	t.mu.Unlock()
}

// Stats are INFO's figures.
type Stats struct {
	Clients  int64 // tracking_clients: connections with tracking on
	Keys     int64 // tracking_total_keys
	Items    int64 // tracking_total_items: (key, connection) pairs
	Prefixes int64 // tracking_total_prefixes
}

// Stats returns INFO's figures.
func (t *Table) Stats() Stats {
	return Stats{Clients: t.nClients.Load(), Keys: t.nKeys.Load(), Items: t.nItems.Load(), Prefixes: t.nPrefixes.Load()}
}

// syncControl publishes the connection and prefix counts; t.mu is held.
func (t *Table) syncControl() {
	list := make([]*bcastState, 0, len(t.prefixes))
	for _, ps := range t.prefixes {
		list = append(list, ps)
	}
	t.bcast.Store(&list) // before the count that makes writes read it
	t.nPrefixes.Store(int64(len(t.prefixes)))
	t.nClients.Store(int64(len(t.clients)))
}

// addRef registers id for key in its locked stripe, provisionally or not,
// or settles a provisional registration.
func (t *Table) addRef(st *keyStripe, key []byte, id uint64, prov bool) {
	refs, ok := st.keys[string(key)]
	for i := range refs {
		if refs[i].id == id {
			if !prov {
				refs[i].prov = false
			}
			return
		}
	}
	if !ok {
		t.nKeys.Add(1)
		st.n.Add(1)
	}
	st.keys[string(key)] = append(refs, ref{id: id, prov: prov})
	t.nItems.Add(1)
}

// Begin registers keys for connection id before it runs a read-only
// command on them (see the package doc); End must follow.
func (t *Table) Begin(id uint64, keys [][]byte) {
	for _, k := range keys {
		st := t.stripeOf(k)
		st.mu.Lock()
		t.addRef(st, k, id, true)
		st.mu.Unlock()
	}
}

// End remembers keys for connection id after its read-only command ran,
// as Redis's trackingRememberKeys, then enforces tracking-table-max-keys.
// Without a Begin (a command inside a script, which runs alone) it simply
// remembers them.
func (t *Table) End(id uint64, keys [][]byte) {
	for _, k := range keys {
		st := t.stripeOf(k)
		st.mu.Lock()
		t.addRef(st, k, id, false)
		st.mu.Unlock()
	}
	t.limit()
}

// KeyChanged implements engine.ChangeHook: key was modified by origin (0:
// not by a connection's command). expired tells a key removed because it
// expired, which Redis reports with no client: a BCAST NOLOOP connection
// is told even of its own keys' expiry.
func (t *Table) KeyChanged(key []byte, origin uint64, expired bool) {
	if t.nPrefixes.Load() > 0 {
		by := origin
		if expired {
			by = 0
		}
		for _, ps := range *t.bcast.Load() {
			if bytes.HasPrefix(key, ps.prefix) {
				ps.mu.Lock()
				ps.changed[string(key)] = by
				ps.mu.Unlock()
				t.pending.Store(true)
			}
		}
	}
	if t.nKeys.Load() == 0 {
		return
	}
	st := t.stripeOf(key)
	if st.n.Load() == 0 {
		return // registered after this load: by a read after the change
	}
	st.mu.Lock()
	t.invalidate(st, key, origin)
	st.mu.Unlock()
}

// invalidate removes key from its locked stripe and tells every
// connection that had it (Redis's trackingInvalidateKey).
func (t *Table) invalidate(st *keyStripe, key []byte, origin uint64) {
	refs, ok := st.keys[string(key)]
	if !ok {
		return
	}
	delete(st.keys, string(key))
	st.n.Add(-1)
	t.nKeys.Add(-1)
	t.nItems.Add(-int64(len(refs)))
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range refs {
		c := t.clients[r.id]
		// Keys of a connection that switched to BCAST since it read them
		// are not reported, as in Redis; nor a NOLOOP connection's own
		// changes, nor a change its own running command made to a key it
		// registered for that command (Redis had not remembered it yet).
		if c == nil || c.bcast || r.id == origin && (c.noLoop || r.prov) {
			continue
		}
		t.sendLocked(c, &Message{Keys: [][]byte{key}})
	}
}

// sendLocked sends m on c's behalf, to c or its redirect target
// (Redis's sendTrackingMessage); t.mu is held.
func (t *Table) sendLocked(c *client, m *Message) {
	if c.redirect != 0 {
		target := t.lookup(c.redirect)
		if target == nil {
			c.broken = true
			c.conn.Deliver(&Message{BrokenRedirect: c.redirect})
			return
		}
		m.Redirected = true
		target.Deliver(m)
		return
	}
	c.conn.Deliver(m)
}

// Flushed implements engine.ChangeHook: every tracking connection is told
// that all keys are invalid, and the table is emptied (Redis's
// trackingInvalidateKeysOnFlush). BCAST prefixes stay.
func (t *Table) Flushed() {
	t.mu.Lock()
	for _, id := range t.sortedClientIDs() {
		c := t.clients[id]
		t.sendLocked(c, &Message{All: true, NullProto: c.conn.Proto()})
	}
	t.mu.Unlock()
	for i := range t.stripes {
		st := &t.stripes[i]
		st.mu.Lock()
		for _, refs := range st.keys {
			t.nKeys.Add(-1)
			t.nItems.Add(-int64(len(refs)))
		}
		clear(st.keys)
		st.n.Store(0)
		st.mu.Unlock()
	}
}

// sortedClientIDs returns the tracking connections' ids in ascending
// order, the order Redis's client list has them in.
func (t *Table) sortedClientIDs() []uint64 {
	ids := make([]uint64, 0, len(t.clients))
	for id := range t.clients {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// BatchEnd implements engine.ChangeHook: the prefixes' changed keys are
// broadcast (Redis's trackingBroadcastInvalidationMessages, run before
// the event loop sleeps).
func (t *Table) BatchEnd() {
	if !t.pending.Load() {
		return
	}
	t.mu.Lock()
	t.pending.Store(false)
	names := make([]string, 0, len(t.prefixes))
	for p := range t.prefixes {
		names = append(names, p)
	}
	slices.Sort(names) // Redis walks its prefix table in order
	for _, p := range names {
		ps := t.prefixes[p]
		ps.mu.Lock()
		changed := ps.changed
		if len(changed) == 0 {
			// Still the prefix's live map: writers may add to it once the
			// lock is released, so it is not read after.
			ps.mu.Unlock()
			continue
		}
		ps.changed = map[string]uint64{}
		ps.mu.Unlock()
		keys := make([]string, 0, len(changed))
		for k := range changed {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		all := make([][]byte, len(keys))
		for i, k := range keys {
			all[i] = []byte(k)
		}
		ids := make([]uint64, 0, len(ps.clients))
		for id := range ps.clients {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			c := t.clients[id]
			if c == nil {
				continue
			}
			msg := all
			if c.noLoop {
				msg = make([][]byte, 0, len(keys))
				for i, k := range keys {
					if changed[k] != id {
						msg = append(msg, all[i])
					}
				}
				if len(msg) == 0 {
					continue
				}
			}
			t.sendLocked(c, &Message{Keys: msg})
		}
	}
	t.mu.Unlock()
}

// SetMaxKeys changes tracking-table-max-keys (0: no bound); a lower bound
// applies at once.
func (t *Table) SetMaxKeys(n int64) {
	t.maxKeys.Store(n)
	t.limit()
}

// limit invalidates random keys, as if modified by no connection, until
// the table holds at most maxKeys (Redis's trackingLimitUsedSlots).
func (t *Table) limit() {
	max := t.maxKeys.Load()
	if max <= 0 || t.nKeys.Load() <= max {
		return
	}
	for i := rand.IntN(keyStripes); t.nKeys.Load() > max; i = (i + 1) % keyStripes {
		st := &t.stripes[i]
		st.mu.Lock()
		for k := range st.keys { // map order: a random key of a random stripe
			t.invalidate(st, []byte(k), 0)
			break
		}
		st.mu.Unlock()
	}
}
