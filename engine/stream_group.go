package engine

import (
	"slices"
	"strings"
	"unsafe"
)

// Consumer groups: a group's last delivered ID and read counter, its
// pending entries list (PEL: every entry delivered and not yet
// acknowledged, with its consumer, last delivery time and count) and its
// consumers, each with the IDs of its own pending entries. Groups and
// consumers are kept sorted by name, PELs by ID, as Redis's radix trees
// keep them, so every listing comes out in Redis's order.

// entriesReadInvalid is Redis's SCG_INVALID_ENTRIES_READ.
const entriesReadInvalid = -1

type streamGroup struct {
	name        string
	lastID      StreamID
	entriesRead int64
	pel         []pelEntry // by ID
	consumers   []*streamConsumer
}

type pelEntry struct {
	id        StreamID
	delivered int64 // unix ms of the last delivery
	count     uint64
	consumer  *streamConsumer
}

type streamConsumer struct {
	name     string
	seenTime int64
	pel      []StreamID // by ID
}

var (
	groupBytes    = allocSize(int(unsafe.Sizeof(streamGroup{})))
	consumerBytes = allocSize(int(unsafe.Sizeof(streamConsumer{})))
	pelEntryBytes = int(unsafe.Sizeof(pelEntry{}))
	streamIDBytes = int(unsafe.Sizeof(StreamID{}))
)

// computeGroupMem is what the groups hold.
func (s *stream) computeGroupMem() int64 {
	var n int64
	if len(s.groups) > 0 {
		n += allocSize(cap(s.groups) * 8)
	}
	for _, g := range s.groups {
		n += groupBytes + allocSize(len(g.name)) + allocSize(cap(g.pel)*pelEntryBytes) + allocSize(cap(g.consumers)*8)
		for _, c := range g.consumers {
			n += consumerBytes + allocSize(len(c.name)) + allocSize(cap(c.pel)*streamIDBytes)
		}
	}
	return n
}

// groupsChanged brings groupMem up to date after a change to the groups.
func (s *stream) groupsChanged() { s.groupMem = s.computeGroupMem() }

func (g *streamGroup) clone() *streamGroup {
	c := &streamGroup{name: g.name, lastID: g.lastID, entriesRead: g.entriesRead}
	byOld := make(map[*streamConsumer]*streamConsumer, len(g.consumers))
	for _, oc := range g.consumers {
		nc := &streamConsumer{name: oc.name, seenTime: oc.seenTime, pel: slices.Clone(oc.pel)}
		byOld[oc] = nc
		c.consumers = append(c.consumers, nc)
	}
	c.pel = slices.Clone(g.pel)
	for i := range c.pel {
		c.pel[i].consumer = byOld[c.pel[i].consumer]
	}
	return c
}

// group returns the group named name, or nil.
func (s *stream) group(name []byte) *streamGroup {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g *streamGroup, n []byte) int { return strings.Compare(g.name, string(n)) })
	if !ok {
		return nil
	}
	return s.groups[i]
}

// addGroup puts g among the groups in name order, or reports false if
// a group of that name exists: every lookup is a binary search, so the
// order is what makes a duplicate visible.
func (s *stream) addGroup(g *streamGroup) bool {
	i, found := slices.BinarySearchFunc(s.groups, g.name, func(o *streamGroup, n string) int { return strings.Compare(o.name, n) })
	if found {
		return false
	}
	s.groups = slices.Insert(s.groups, i, g)
	return true
}

// consumer returns the consumer named name, or nil.
func (g *streamGroup) consumer(name []byte) *streamConsumer {
	i, ok := slices.BinarySearchFunc(g.consumers, name, func(c *streamConsumer, n []byte) int { return strings.Compare(c.name, string(n)) })
	if !ok {
		return nil
	}
	return g.consumers[i]
}

// addConsumer creates consumer name (which must not exist).
func (g *streamGroup) addConsumer(name []byte, now int64) *streamConsumer {
	c := &streamConsumer{name: string(name), seenTime: now}
	i, _ := slices.BinarySearchFunc(g.consumers, name, func(c *streamConsumer, n []byte) int { return strings.Compare(c.name, string(n)) })
	g.consumers = slices.Insert(g.consumers, i, c)
	return c
}

// delConsumer removes c and its pending entries from the group's PEL.
func (g *streamGroup) delConsumer(c *streamConsumer) {
	for _, id := range c.pel {
		if i, ok := g.pelIndex(id); ok {
			g.pel = slices.Delete(g.pel, i, i+1)
		}
	}
	if i := slices.Index(g.consumers, c); i >= 0 {
		g.consumers = slices.Delete(g.consumers, i, i+1)
	}
}

func (g *streamGroup) pelIndex(id StreamID) (int, bool) {
	return slices.BinarySearchFunc(g.pel, id, func(p pelEntry, id StreamID) int { return p.id.Cmp(id) })
}

func (c *streamConsumer) pelIndex(id StreamID) (int, bool) {
	return slices.BinarySearchFunc(c.pel, id, func(a, b StreamID) int { return a.Cmp(b) })
}

// addPending records id in c's PEL.
func (c *streamConsumer) addPending(id StreamID) {
	if n := len(c.pel); n == 0 || c.pel[n-1].Cmp(id) < 0 {
		c.pel = append(c.pel, id)
		return
	}
	if i, ok := c.pelIndex(id); !ok {
		c.pel = slices.Insert(c.pel, i, id)
	}
}

// dropPending removes id from c's PEL.
func (c *streamConsumer) dropPending(id StreamID) {
	if i, ok := c.pelIndex(id); ok {
		c.pel = slices.Delete(c.pel, i, i+1)
	}
}

// ack removes id from the group's PEL and its consumer's; false when it
// was not pending.
func (g *streamGroup) ack(id StreamID) bool {
	i, ok := g.pelIndex(id)
	if !ok {
		return false
	}
	if c := g.pel[i].consumer; c != nil {
		c.dropPending(id)
	}
	g.pel = slices.Delete(g.pel, i, i+1)
	return true
}

// deliver records the delivery of id to c, as Redis's streamReplyWithRange
// does for a group read: a new pending entry, or one that moves to c
// with its count reset to 1. It returns the pending entry, valid until
// the PEL changes.
func (g *streamGroup) deliver(id StreamID, c *streamConsumer, now int64) *pelEntry {
	i, ok := g.pelIndex(id)
	if !ok {
		if n := len(g.pel); n == 0 || g.pel[n-1].id.Cmp(id) < 0 {
			g.pel = append(g.pel, pelEntry{id: id, delivered: now, count: 1, consumer: c})
		} else {
			g.pel = slices.Insert(g.pel, i, pelEntry{id: id, delivered: now, count: 1, consumer: c})
		}
		c.addPending(id)
		return &g.pel[i]
	}
	p := &g.pel[i]
	if p.consumer != nil {
		p.consumer.dropPending(id)
	}
	p.consumer, p.delivered, p.count = c, now, 1
	c.addPending(id)
	return p
}

// rangeHasTombstones is Redis's streamRangeHasTombstones: whether a
// deleted entry may lie between start and the end (end nil: the top).
func (s *stream) rangeHasTombstones(start StreamID, end *StreamID) bool {
	if s.count == 0 || s.maxDeleted.IsZero() {
		return false
	}
	if s.firstID.Cmp(s.maxDeleted) > 0 {
		return false
	}
	e := MaxStreamID
	if end != nil {
		e = *end
	}
	return start.Cmp(s.maxDeleted) <= 0 && s.maxDeleted.Cmp(e) <= 0
}

// estimateEntriesRead is Redis's streamEstimateDistanceFromFirstEverEntry:
// the read counter of id, or entriesReadInvalid when it cannot be known.
func (s *stream) estimateEntriesRead(id StreamID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.count == 0 && id.Cmp(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	switch c := id.Cmp(s.lastID); {
	case c == 0:
		return int64(s.entriesAdded)
	case c > 0:
		return entriesReadInvalid
	}
	if s.maxDeleted.IsZero() || s.maxDeleted.Cmp(s.firstID) < 0 {
		switch id.Cmp(s.firstID) {
		case -1:
			return int64(s.entriesAdded - s.count)
		case 0:
			return int64(s.entriesAdded - s.count + 1)
		}
	}
	return entriesReadInvalid
}

// lag is a group's lag as XINFO reports it; false for "unknown" (nil).
func (s *stream) lag(g *streamGroup) (int64, bool) {
	if s.entriesAdded == 0 {
		return 0, true
	}
	if g.entriesRead != entriesReadInvalid && !s.rangeHasTombstones(g.lastID, nil) {
		return int64(s.entriesAdded) - g.entriesRead, true
	}
	if er := s.estimateEntriesRead(g.lastID); er != entriesReadInvalid {
		return int64(s.entriesAdded) - er, true
	}
	return 0, false
}

// StreamGroupEffects are the facts of what a group command (XREADGROUP,
// XCLAIM, XAUTOCLAIM) did to a group, which the write stream propagates
// in Redis's command forms (the front-end builds them): the consumer it
// created, the pending entries it changed, and where the group ended.
type StreamGroupEffects struct {
	Group    string // the group's name
	Consumer string // XREADGROUP's consumer
	// NoAck: an XREADGROUP NOACK, whose deliveries make no pending entries.
	NoAck bool
	// ConsumerCreated: the command created its consumer.
	ConsumerCreated bool
	// Claims are the pending entries given to a consumer, or dropped
	// because their message was gone, in the order it changed them.
	Claims []StreamClaim
	// LastIDMoved: the group's last delivered ID moved; LastID and
	// EntriesRead are the group's after the command.
	LastIDMoved bool
	LastID      StreamID
	EntriesRead int64
}

// StreamClaim is one pending entry a group command changed: its state
// after the change (before it, for an entry dropped because its message
// was gone), and the group's last delivered ID then.
type StreamClaim struct {
	ID        StreamID
	Arg       int // XCLAIM: the index of the ID among its IDs
	Consumer  string
	Delivered int64
	Count     uint64
	LastID    StreamID
}

// claimed records p's state in fx (nil: not recording).
func (fx *StreamGroupEffects) claimed(g *streamGroup, p *pelEntry, arg int) {
	if fx == nil {
		return
	}
	c := StreamClaim{ID: p.id, Arg: arg, Delivered: p.delivered, Count: p.count, LastID: g.lastID}
	if p.consumer != nil {
		c.Consumer = p.consumer.name
	}
	fx.Claims = append(fx.Claims, c)
}

// ended records where g ended (fx nil: not recording).
func (fx *StreamGroupEffects) ended(g *streamGroup, lastBefore StreamID) {
	if fx == nil {
		return
	}
	fx.Group = g.name
	fx.LastIDMoved = g.lastID != lastBefore
	fx.LastID, fx.EntriesRead = g.lastID, g.entriesRead
}
