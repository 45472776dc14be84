package engine

import "errors"

// A stream as snapshots and DUMP hand it out, and as loads and RESTORE
// give it back: its blocks as they are (master IDs, master fields,
// tombstones), so that the RDB writer can build Redis's listpack nodes
// from them and a loaded stream keeps the nodes it was saved with.

// StreamSnapshot is a whole stream. Its slices are valid during the
// visit (or the Dump callback) only.
type StreamSnapshot struct {
	Blocks                      []StreamSnapBlock
	Length                      uint64
	LastID, FirstID, MaxDeleted StreamID
	EntriesAdded                uint64
	Groups                      []StreamSnapGroup
	// V1: from an RDB of Redis 5 or 6, without FirstID, MaxDeleted,
	// EntriesAdded and group EntriesRead, which the load derives as
	// Redis does.
	V1 bool
}

// StreamSnapBlock is one block (one of Redis's listpack nodes).
type StreamSnapBlock struct {
	Master       StreamID
	MasterFields [][]byte
	Entries      []StreamSnapEntry
}

// StreamSnapEntry is one entry of a block, tombstones included; Fields
// are its field, value pairs.
type StreamSnapEntry struct {
	ID         StreamID
	Deleted    bool
	SameFields bool
	Fields     [][]byte
}

// StreamSnapGroup is a consumer group: its PEL (Consumer unset) and its
// consumers with the IDs they hold (PEL entries with only ID set).
type StreamSnapGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64
	PEL         []StreamPending
	Consumers   []StreamConsumerInfo
}

// snapshot describes s, aliasing it.
func (s *stream) snapshot() *StreamSnapshot {
	ss := &StreamSnapshot{Length: s.count, LastID: s.lastID, FirstID: s.firstID, MaxDeleted: s.maxDeleted, EntriesAdded: s.entriesAdded}
	for bi := range s.blocks {
		b := &s.blocks[bi]
		sb := StreamSnapBlock{Master: b.master, MasterFields: b.masterFields(nil)}
		var e rawEntry
		for off := int(b.entriesAt); off < len(b.buf); off = e.next {
			e.kv = nil
			b.decode(off, sb.MasterFields, &e, true)
			sb.Entries = append(sb.Entries, StreamSnapEntry{ID: e.id, Deleted: e.flags&sflagDeleted != 0, SameFields: e.flags&sflagSameFields != 0, Fields: e.kv})
		}
		ss.Blocks = append(ss.Blocks, sb)
	}
	for _, g := range s.groups {
		sg := StreamSnapGroup{Name: []byte(g.name), LastID: g.lastID, EntriesRead: g.entriesRead}
		for _, p := range g.pel {
			sg.PEL = append(sg.PEL, StreamPending{ID: p.id, Delivered: p.delivered, Count: p.count})
		}
		for _, c := range g.consumers {
			ci := StreamConsumerInfo{Name: []byte(c.name), SeenTime: c.seenTime, Pending: len(c.pel)}
			for _, id := range c.pel {
				ci.PEL = append(ci.PEL, StreamPending{ID: id})
			}
			sg.Consumers = append(sg.Consumers, ci)
		}
		ss.Groups = append(ss.Groups, sg)
	}
	return ss
}

// errBadStream: a snapshot that no stream could have produced.
var errBadStream = errors.New("engine: restoring an inconsistent stream")

// streamFromSnapshot builds a stream from a snapshot, block for block.
func streamFromSnapshot(ss *StreamSnapshot) (*stream, error) {
	s := &stream{lastID: ss.LastID, firstID: ss.FirstID, maxDeleted: ss.MaxDeleted, entriesAdded: ss.EntriesAdded}
	var prev StreamID
	var n uint64
	for bi := range ss.Blocks {
		sb := &ss.Blocks[bi]
		if len(sb.Entries) == 0 {
			return nil, errBadStream
		}
		b := s.newBlock(sb.Master, sb.MasterFields, 1)
		for _, e := range sb.Entries {
			if (n > 0 || bi > 0) && e.ID.Cmp(prev) <= 0 || e.ID.Cmp(sb.Master) < 0 || len(e.Fields)%2 != 0 {
				return nil, errBadStream
			}
			same := e.SameFields && len(e.Fields) == 2*len(sb.MasterFields)
			for i := 0; same && i < len(sb.MasterFields); i++ {
				same = string(e.Fields[2*i]) == string(sb.MasterFields[i])
			}
			s.encodeEntry(b, e.ID, e.Fields, same, e.Deleted)
			prev = e.ID
			if !e.Deleted {
				n++
			}
		}
		if b.live == 0 {
			return nil, errBadStream
		}
		s.shrinkBuf(b)
	}
	if n != ss.Length || (n > 0 || len(ss.Blocks) > 0) && prev.Cmp(ss.LastID) > 0 {
		return nil, errBadStream
	}
	s.count = n
	if ss.V1 {
		s.entriesAdded = n
		s.maxDeleted = StreamID{}
		s.refreshFirst()
	}
	for _, sg := range ss.Groups {
		g := &streamGroup{name: string(sg.Name), lastID: sg.LastID, entriesRead: sg.EntriesRead}
		if ss.V1 {
			g.entriesRead = s.estimateEntriesRead(g.lastID)
		}
		for _, p := range sg.PEL {
			if len(g.pel) > 0 && p.ID.Cmp(g.pel[len(g.pel)-1].id) <= 0 {
				return nil, errBadStream
			}
			g.pel = append(g.pel, pelEntry{id: p.ID, delivered: p.Delivered, count: p.Count})
		}
		for _, ci := range sg.Consumers {
			if g.consumer(ci.Name) != nil {
				return nil, errBadStream
			}
			c := g.addConsumer(ci.Name, ci.SeenTime)
			for _, p := range ci.PEL {
				i, ok := g.pelIndex(p.ID)
				if !ok || g.pel[i].consumer != nil {
					return nil, errBadStream
				}
				g.pel[i].consumer = c
				c.addPending(p.ID)
			}
		}
		// A pending entry no consumer holds cannot be served: dropped.
		kept := g.pel[:0]
		for _, p := range g.pel {
			if p.consumer != nil {
				kept = append(kept, p)
			}
		}
		g.pel = kept
		if !s.addGroup(g) {
			return nil, errBadStream
		}
	}
	s.groupsChanged()
	return s, nil
}
