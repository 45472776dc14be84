package snapshot

import (
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

// StreamToRDB is a stream as the RDB writer takes it (for SAVE and DUMP);
// it aliases ss.
func StreamToRDB(ss *engine.StreamSnapshot) *rdb.Stream {
	id := func(x engine.StreamID) rdb.StreamID { return rdb.StreamID{Ms: x.Ms, Seq: x.Seq} }
	s := &rdb.Stream{Length: ss.Length, LastID: id(ss.LastID), FirstID: id(ss.FirstID), MaxDeleted: id(ss.MaxDeleted), EntriesAdded: ss.EntriesAdded}
	for _, b := range ss.Blocks {
		n := rdb.StreamNode{Master: id(b.Master), MasterFields: b.MasterFields, Entries: make([]rdb.StreamNodeEntry, len(b.Entries))}
		for i, e := range b.Entries {
			n.Entries[i] = rdb.StreamNodeEntry{ID: id(e.ID), Deleted: e.Deleted, SameFields: e.SameFields, Fields: e.Fields}
		}
		s.Nodes = append(s.Nodes, n)
	}
	for _, g := range ss.Groups {
		rg := rdb.StreamGroup{Name: g.Name, LastID: id(g.LastID), EntriesRead: g.EntriesRead}
		for _, p := range g.PEL {
			rg.PEL = append(rg.PEL, rdb.StreamNACK{ID: id(p.ID), DeliveryTime: p.Delivered, DeliveryCount: p.Count})
		}
		for _, c := range g.Consumers {
			rc := rdb.StreamConsumer{Name: c.Name, SeenTime: c.SeenTime}
			for _, p := range c.PEL {
				rc.PEL = append(rc.PEL, id(p.ID))
			}
			rg.Consumers = append(rg.Consumers, rc)
		}
		s.Groups = append(s.Groups, rg)
	}
	return s
}

// StreamFromRDB is a loaded stream as the engine restores it; it aliases
// s.
func StreamFromRDB(s *rdb.Stream) *engine.StreamSnapshot {
	id := func(x rdb.StreamID) engine.StreamID { return engine.StreamID{Ms: x.Ms, Seq: x.Seq} }
	ss := &engine.StreamSnapshot{Length: s.Length, LastID: id(s.LastID), FirstID: id(s.FirstID), MaxDeleted: id(s.MaxDeleted), EntriesAdded: s.EntriesAdded, V1: s.V1}
	for _, n := range s.Nodes {
		b := engine.StreamSnapBlock{Master: id(n.Master), MasterFields: n.MasterFields, Entries: make([]engine.StreamSnapEntry, len(n.Entries))}
		for i, e := range n.Entries {
			b.Entries[i] = engine.StreamSnapEntry{ID: id(e.ID), Deleted: e.Deleted, SameFields: e.SameFields, Fields: e.Fields}
		}
		ss.Blocks = append(ss.Blocks, b)
	}
	for _, g := range s.Groups {
		sg := engine.StreamSnapGroup{Name: g.Name, LastID: id(g.LastID), EntriesRead: g.EntriesRead}
		for _, p := range g.PEL {
			sg.PEL = append(sg.PEL, engine.StreamPending{ID: id(p.ID), Delivered: p.DeliveryTime, Count: p.DeliveryCount})
		}
		for _, c := range g.Consumers {
			ci := engine.StreamConsumerInfo{Name: c.Name, SeenTime: c.SeenTime, Pending: len(c.PEL)}
			for _, x := range c.PEL {
				ci.PEL = append(ci.PEL, engine.StreamPending{ID: id(x)})
			}
			sg.Consumers = append(sg.Consumers, ci)
		}
		ss.Groups = append(ss.Groups, sg)
	}
	return ss
}
