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

// groupRead is XREADGROUP's read of one stream (stream_group_ops.go).
func (d DB) groupRead(s *stream, g *streamGroup, gt StreamID, a *XReadArgs, count int64, key []byte, now int64) (StreamReadResult, bool) {
	return StreamReadResult{}, false
}
