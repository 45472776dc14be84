// Package pubsub is the subscription registry behind Redis's publish /
// subscribe: channels, patterns and shard channels, each with its
// subscribers in subscription order, and the per-subscriber sets that
// (P|S)UNSUBSCRIBE without arguments, CLIENT LIST and the PUBSUB
// introspection commands read. It knows no protocol: a subscriber is
// anything with a Deliver method, which formats and queues the message in
// its own protocol.
//
// A Hub is safe for concurrent use from every event loop and from any
// other goroutine (keyspace notifications). Publish takes a read lock on
// the registry and one of a few stripe locks that make concurrent
// publishers on one channel reach every subscriber in the same order; it
// calls Deliver for each receiver and returns. It never waits for a
// subscriber: Deliver must only queue (and may drop, for a subscriber over
// its output limit). Publish never calls into anything else, so it may be
// called while holding other locks (an engine shard's).
package pubsub

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/tandemkv/tandem/internal/glob"
)

// Kind is what a subscription or a message is about.
type Kind uint8

const (
	// Channel: SUBSCRIBE / PUBLISH; messages arrive as "message".
	Channel Kind = iota
	// Pattern: PSUBSCRIBE; messages arrive as "pmessage".
	Pattern
	// Shard: SSUBSCRIBE / SPUBLISH; messages arrive as "smessage".
	Shard
	numKinds
)

// Message is one delivery. Its slices are only valid during Deliver (they
// may alias the publisher's request buffer): a subscriber copies what it
// keeps.
type Message struct {
	Kind    Kind
	Pattern []byte // Kind Pattern: the pattern that matched
	Channel []byte
	Payload []byte
}

// Subscriber receives messages. Deliver is called from any goroutine,
// possibly with locks held (the Hub's, a publisher's), and possibly for
// the subscriber's own connection while it runs a command; it must return
// promptly, must not block and must not call the Hub.
type Subscriber interface {
	Deliver(m *Message)
}

// Counts are one subscriber's subscriptions.
type Counts struct {
	Channels, Patterns, Shard int
}

// Total is every subscription of the subscriber.
func (c Counts) Total() int { return c.Channels + c.Patterns + c.Shard }

func (c *Counts) dec(k Kind) {
	switch k {
	case Channel:
		c.Channels--
	case Pattern:
		c.Patterns--
	default:
		c.Shard--
	}
}

// Of returns the count of one kind.
func (c Counts) Of(k Kind) int {
	switch k {
	case Channel:
		return c.Channels
	case Pattern:
		return c.Patterns
	}
	return c.Shard
}

// orderedSet is a set of names kept in insertion order.
type orderedSet struct {
	names []string
	index map[string]int
}

func (s *orderedSet) has(n string) bool { _, ok := s.index[n]; return ok }

func (s *orderedSet) add(n string) bool {
	if s.has(n) {
		return false
	}
	if s.index == nil {
		s.index = map[string]int{}
	}
	s.index[n] = len(s.names)
	s.names = append(s.names, n)
	return true
}

func (s *orderedSet) remove(n string) bool {
	i, ok := s.index[n]
	if !ok {
		return false
	}
	delete(s.index, n)
	copy(s.names[i:], s.names[i+1:])
	s.names[len(s.names)-1] = ""
	s.names = s.names[:len(s.names)-1]
	for j := i; j < len(s.names); j++ {
		s.index[s.names[j]] = j
	}
	return true
}

// entry is a channel's (or pattern's) subscribers in subscription order.
type entry struct {
	name string
	raw  []byte // name as bytes, for matching without converting
	subs []Subscriber
}

func (e *entry) remove(s Subscriber) {
	for i, x := range e.subs {
		if x == s {
			copy(e.subs[i:], e.subs[i+1:])
			e.subs[len(e.subs)-1] = nil
			e.subs = e.subs[:len(e.subs)-1]
			return
		}
	}
}

// subState is what one subscriber is subscribed to.
type subState struct {
	sets [numKinds]orderedSet
}

func (st *subState) counts() Counts {
	return Counts{Channels: len(st.sets[Channel].names), Patterns: len(st.sets[Pattern].names), Shard: len(st.sets[Shard].names)}
}

const stripes = 64

// Hub is the registry. The zero Hub is not usable: call New.
type Hub struct {
	mu       sync.RWMutex
	byName   [numKinds]map[string]*entry
	patterns []*entry // Pattern entries in creation order, for matching
	subs     map[Subscriber]*subState

	seed  maphash.Seed
	order [stripes]sync.Mutex // per channel hash: one publisher at a time

	// published and delivered count messages published (PUBLISH,
	// SPUBLISH, keyspace notifications) and the copies handed to
	// subscribers, for Messages.
	published, delivered atomic.Int64
}

// New returns an empty hub.
func New() *Hub {
	h := &Hub{subs: map[Subscriber]*subState{}, seed: maphash.MakeSeed()}
	for k := range h.byName {
		h.byName[k] = map[string]*entry{}
	}
	return h
}

// Subscribe adds one subscription; added is false when s already had it.
// It returns s's counts afterwards.
func (h *Hub) Subscribe(s Subscriber, k Kind, name []byte) (added bool, c Counts) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.subs[s]
	if st == nil {
		st = &subState{}
		h.subs[s] = st
	}
	n := string(name)
	if st.sets[k].add(n) {
		added = true
		e := h.byName[k][n]
		if e == nil {
			e = &entry{name: n, raw: []byte(n)}
			h.byName[k][n] = e
			if k == Pattern {
				h.patterns = append(h.patterns, e)
			}
		}
		e.subs = append(e.subs, s)
	}
	return added, st.counts()
}

// Unsubscribe removes one subscription; removed is false when s did not
// have it. It returns s's counts afterwards.
func (h *Hub) Unsubscribe(s Subscriber, k Kind, name []byte) (removed bool, c Counts) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.subs[s]
	if st == nil {
		return false, Counts{}
	}
	removed = h.unsubscribeLocked(s, st, k, string(name))
	c = st.counts()
	if c.Total() == 0 {
		delete(h.subs, s)
	}
	return removed, c
}

func (h *Hub) unsubscribeLocked(s Subscriber, st *subState, k Kind, n string) bool {
	if !st.sets[k].remove(n) {
		return false
	}
	h.dropLocked(s, k, n)
	return true
}

// dropLocked removes s from the subscribers of name, and the name once it
// has none.
func (h *Hub) dropLocked(s Subscriber, k Kind, n string) {
	e := h.byName[k][n]
	e.remove(s)
	if len(e.subs) == 0 {
		delete(h.byName[k], n)
		if k == Pattern {
			for i, p := range h.patterns {
				if p == e {
					h.patterns = append(h.patterns[:i], h.patterns[i+1:]...)
					break
				}
			}
		}
	}
}

// Names returns s's subscriptions of one kind, in subscription order.
func (h *Hub) Names(s Subscriber, k Kind) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	st := h.subs[s]
	if st == nil {
		return nil
	}
	return append([]string(nil), st.sets[k].names...)
}

// UnsubscribeAll removes s's subscriptions of one kind and returns the
// names removed, in subscription order, each with s's counts right after
// its removal.
func (h *Hub) UnsubscribeAll(s Subscriber, k Kind) (names []string, after []Counts) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.subs[s]
	if st == nil {
		return nil, nil
	}
	names = st.sets[k].names
	after = make([]Counts, len(names))
	c := st.counts()
	for i := range names {
		h.dropLocked(s, k, names[i])
		c.dec(k)
		after[i] = c
	}
	st.sets[k] = orderedSet{}
	if c.Total() == 0 {
		delete(h.subs, s)
	}
	return names, after
}

// Remove drops every subscription of s (a connection closed or reset).
// Once it returns, no Publish delivers to s any more.
func (h *Hub) Remove(s Subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.subs[s]
	if st == nil {
		return
	}
	for k := Kind(0); k < numKinds; k++ {
		for _, n := range st.sets[k].names {
			h.dropLocked(s, k, n)
		}
	}
	delete(h.subs, s)
}

// Counts returns s's subscription counts.
func (h *Hub) Counts(s Subscriber) Counts {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if st := h.subs[s]; st != nil {
		return st.counts()
	}
	return Counts{}
}

// matches is Redis's pattern test for PSUBSCRIBE and PUBSUB CHANNELS
// (stringmatchlen, case-sensitive). Unlike glob.Match's shortcut, "*"
// does not match the empty channel, as in Redis.
func matches(pattern, channel []byte) bool {
	if len(channel) == 0 {
		return len(pattern) == 0
	}
	return glob.Match(pattern, channel, false)
}

// Publish sends message to the subscribers of channel, then to those of
// every pattern that matches it, and returns the number of deliveries, as
// Redis's PUBLISH counts them (a client subscribed to the channel and to
// a matching pattern counts, and receives, twice).
func (h *Hub) Publish(channel, message []byte) int {
	return h.publish(Channel, channel, message)
}

// SPublish sends message to the subscribers of shard channel and returns
// their number (SPUBLISH).
func (h *Hub) SPublish(channel, message []byte) int {
	return h.publish(Shard, channel, message)
}

func (h *Hub) publish(k Kind, channel, message []byte) (n int) {
	h.published.Add(1)
	defer func() { h.delivered.Add(int64(n)) }()
	lock := &h.order[maphash.Bytes(h.seed, channel)%stripes]
	lock.Lock()
	defer lock.Unlock()
	h.mu.RLock()
	defer h.mu.RUnlock()
	m := Message{Kind: k, Channel: channel, Payload: message}
	if e := h.byName[k][string(channel)]; e != nil {
		for _, s := range e.subs {
			s.Deliver(&m)
			n++
		}
	}
	if k != Channel {
		return n
	}
	m.Kind = Pattern
	for _, e := range h.patterns {
		if !matches(e.raw, channel) {
			continue
		}
		m.Pattern = e.raw
		for _, s := range e.subs {
			s.Deliver(&m)
			n++
		}
	}
	return n
}

// Messages returns the messages published since start and the copies of
// them delivered to subscribers.
func (h *Hub) Messages() (published, delivered int64) {
	return h.published.Load(), h.delivered.Load()
}

// Active returns the channels (k Channel) or shard channels (k Shard)
// that have subscribers, those matching pattern when it is not nil
// (PUBSUB CHANNELS / SHARDCHANNELS), in no particular order.
func (h *Hub) Active(k Kind, pattern []byte) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	for n := range h.byName[k] {
		if pattern == nil || matches(pattern, []byte(n)) {
			out = append(out, n)
		}
	}
	return out
}

// NumSub returns the number of subscribers of a channel or shard channel,
// pattern subscribers excluded (PUBSUB NUMSUB / SHARDNUMSUB).
func (h *Hub) NumSub(k Kind, name []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if e := h.byName[k][string(name)]; e != nil {
		return len(e.subs)
	}
	return 0
}

// NumPat returns the number of distinct patterns subscribed to by anyone
// (PUBSUB NUMPAT, INFO's pubsub_patterns).
func (h *Hub) NumPat() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.patterns)
}

// Totals returns the number of channels, patterns and shard channels with
// at least one subscriber (INFO stats).
func (h *Hub) Totals() Counts {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return Counts{Channels: len(h.byName[Channel]), Patterns: len(h.patterns), Shard: len(h.byName[Shard])}
}
