package rdb

import (
	"encoding/binary"
	"strconv"
)

// Streams: RDB_TYPE_STREAM_LISTPACKS_2 (what redis-server 7.0 writes) is
// written and read, and RDB_TYPE_STREAM_LISTPACKS (Redis 5 and 6) read.
// A stream is its nodes, each a listpack keyed by its master ID (the ID
// as 16 big-endian bytes):
//
//	count | deleted | num-fields | field ... | 0          (the master entry)
//	flags | ms-diff | seq-diff | [num-fields field ...] value ... | lp-count
//
// then its length, last ID, first ID, largest deleted ID and entries
// added (the last three type 19 only), and its groups: name, last ID,
// entries read (type 19 only), the PEL (16-byte ID, delivery time in ms
// as 8 little-endian bytes, delivery count) and the consumers (name, seen
// time, and the IDs of their pending entries). Nodes are kept as they are
// on both sides, so a stream comes back with the same nodes (XINFO's
// radix-tree-keys, XTRIM ~'s whole nodes).

// StreamID is a stream entry ID.
type StreamID struct{ Ms, Seq uint64 }

// Stream is a stream value.
type Stream struct {
	Nodes                       []StreamNode
	Length                      uint64
	LastID, FirstID, MaxDeleted StreamID
	EntriesAdded                uint64
	Groups                      []StreamGroup
	// V1: read from RDB_TYPE_STREAM_LISTPACKS, which has no FirstID,
	// MaxDeleted, EntriesAdded nor group EntriesRead: the loader derives
	// them as Redis does.
	V1 bool
}

// StreamNode is one listpack node.
type StreamNode struct {
	Master       StreamID
	MasterFields [][]byte
	Entries      []StreamNodeEntry
}

// StreamNodeEntry is one entry of a node: Fields are its field, value
// pairs, flat, whether or not it shares the master's fields.
type StreamNodeEntry struct {
	ID         StreamID
	Deleted    bool
	SameFields bool
	Fields     [][]byte
}

// StreamGroup is a consumer group.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64 // -1: unknown
	PEL         []StreamNACK
	Consumers   []StreamConsumer
}

// StreamNACK is a pending entry of a group.
type StreamNACK struct {
	ID            StreamID
	DeliveryTime  int64
	DeliveryCount uint64
}

// StreamConsumer is a consumer and the IDs it has pending.
type StreamConsumer struct {
	Name     []byte
	SeenTime int64
	PEL      []StreamID
}

const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

func appendStreamKey(b []byte, id StreamID) []byte {
	b = binary.BigEndian.AppendUint64(b, id.Ms)
	return binary.BigEndian.AppendUint64(b, id.Seq)
}

// Stream writes a stream key.
func (w *Writer) Stream(key []byte, s *Stream, m Meta) error {
	if err := w.check(); err != nil {
		return err
	}
	w.keyHeader(rtStreamListpack2, key, m)
	w.streamBody(s)
	return w.err
}

// streamBody writes a stream value after its type byte.
func (w *Writer) streamBody(s *Stream) {
	w.length(uint64(len(s.Nodes)))
	var kb [16]byte
	for i := range s.Nodes {
		n := &s.Nodes[i]
		w.str(appendStreamKey(kb[:0], n.Master))
		w.str(streamListpack(&w.lp, n))
	}
	w.length(s.Length)
	w.length(s.LastID.Ms)
	w.length(s.LastID.Seq)
	w.length(s.FirstID.Ms)
	w.length(s.FirstID.Seq)
	w.length(s.MaxDeleted.Ms)
	w.length(s.MaxDeleted.Seq)
	w.length(s.EntriesAdded)
	w.length(uint64(len(s.Groups)))
	var t [8]byte
	for i := range s.Groups {
		g := &s.Groups[i]
		w.str(g.Name)
		w.length(g.LastID.Ms)
		w.length(g.LastID.Seq)
		w.length(uint64(g.EntriesRead))
		w.length(uint64(len(g.PEL)))
		for _, p := range g.PEL {
			w.raw(appendStreamKey(kb[:0], p.ID))
			w.raw(binary.LittleEndian.AppendUint64(t[:0], uint64(p.DeliveryTime)))
			w.length(p.DeliveryCount)
		}
		w.length(uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			w.str(c.Name)
			w.raw(binary.LittleEndian.AppendUint64(t[:0], uint64(c.SeenTime)))
			w.length(uint64(len(c.PEL)))
			for _, id := range c.PEL {
				w.raw(appendStreamKey(kb[:0], id))
			}
		}
	}
}

// streamListpack builds a node's listpack as Redis's streamAppendItem
// does; the bytes are valid until lp's next use.
func streamListpack(lp *listpackBuilder, n *StreamNode) []byte {
	lp.reset()
	live, dead := 0, 0
	for _, e := range n.Entries {
		if e.Deleted {
			dead++
		} else {
			live++
		}
	}
	lp.addInt(int64(live))
	lp.addInt(int64(dead))
	lp.addInt(int64(len(n.MasterFields)))
	for _, f := range n.MasterFields {
		lp.addString(f)
	}
	lp.addInt(0)
	for _, e := range n.Entries {
		flags := int64(0)
		if e.Deleted {
			flags |= streamFlagDeleted
		}
		if e.SameFields {
			flags |= streamFlagSameFields
		}
		nf := len(e.Fields) / 2
		lp.addInt(flags)
		lp.addInt(int64(e.ID.Ms - n.Master.Ms))
		lp.addInt(int64(e.ID.Seq - n.Master.Seq))
		count := int64(nf + 3)
		if !e.SameFields {
			lp.addInt(int64(nf))
			count += int64(nf + 1)
		}
		for i := 0; i < nf; i++ {
			if !e.SameFields {
				lp.addString(e.Fields[2*i])
			}
			lp.addString(e.Fields[2*i+1])
		}
		lp.addInt(count)
	}
	return lp.finish()
}

// readStream reads a stream value of type t (15 or 19) after its type
// byte.
func (r *Reader) readStream(typeOff int64, t byte) *Stream {
	const what = "stream"
	v2 := t == rtStreamListpack2
	s := &Stream{V1: !v2}
	nodes := r.readCount(what)
	for i := uint64(0); i < nodes; i++ {
		k, _ := r.readString(what + " node key")
		if len(k) != 16 {
			r.failf(typeOff, "%s: node key of %d bytes", what, len(k))
		}
		blob, off := r.readString(what + " listpack")
		elems, err := decodeListpack(blob)
		r.blobCheck(err, off, typeOff, what, "listpack")
		if len(elems) == 0 {
			r.failf(typeOff, "%s: empty listpack inside stream", what)
		}
		master := StreamID{binary.BigEndian.Uint64(k), binary.BigEndian.Uint64(k[8:])}
		n, ok := parseStreamNode(master, elems)
		if !ok {
			r.failf(typeOff, "%s: bad listpack node", what)
		}
		s.Nodes = append(s.Nodes, n)
	}
	s.Length = r.readCount(what)
	s.LastID = StreamID{r.readCount(what), r.readCount(what)}
	if v2 {
		s.FirstID = StreamID{r.readCount(what), r.readCount(what)}
		s.MaxDeleted = StreamID{r.readCount(what), r.readCount(what)}
		s.EntriesAdded = r.readCount(what)
	}
	groups := r.readCount(what)
	for i := uint64(0); i < groups; i++ {
		name, _ := r.readString(what + " group name")
		g := StreamGroup{Name: name, LastID: StreamID{r.readCount(what), r.readCount(what)}, EntriesRead: -1}
		if v2 {
			g.EntriesRead = int64(r.readCount(what))
		}
		np := r.readCount(what)
		for j := uint64(0); j < np; j++ {
			id := r.readStreamID(what)
			var b [8]byte
			r.fill(b[:], what)
			g.PEL = append(g.PEL, StreamNACK{ID: id, DeliveryTime: int64(binary.LittleEndian.Uint64(b[:])), DeliveryCount: r.readCount(what)})
		}
		nc := r.readCount(what)
		for j := uint64(0); j < nc; j++ {
			cname, _ := r.readString(what + " consumer name")
			var b [8]byte
			r.fill(b[:], what)
			c := StreamConsumer{Name: cname, SeenTime: int64(binary.LittleEndian.Uint64(b[:]))}
			ncp := r.readCount(what)
			for k := uint64(0); k < ncp; k++ {
				c.PEL = append(c.PEL, r.readStreamID(what))
			}
			g.Consumers = append(g.Consumers, c)
		}
		s.Groups = append(s.Groups, g)
	}
	return s
}

func (r *Reader) readStreamID(what string) StreamID {
	var b [16]byte
	r.fill(b[:], what)
	return StreamID{binary.BigEndian.Uint64(b[:]), binary.BigEndian.Uint64(b[8:])}
}

// parseStreamNode reads a node's listpack elements (integers as decimal
// text).
func parseStreamNode(master StreamID, el [][]byte) (StreamNode, bool) {
	n := StreamNode{Master: master}
	i := 0
	next := func() (int64, bool) {
		if i >= len(el) {
			return 0, false
		}
		v, err := strconv.ParseInt(string(el[i]), 10, 64)
		i++
		return v, err == nil
	}
	live, ok1 := next()
	dead, ok2 := next()
	nf, ok3 := next()
	if !ok1 || !ok2 || !ok3 || nf < 0 || int64(len(el)) < 3+nf+1 {
		return n, false
	}
	n.MasterFields = el[3 : 3+nf]
	i = int(3 + nf)
	if z, ok := next(); !ok || z != 0 {
		return n, false
	}
	var gotLive, gotDead int64
	for i < len(el) {
		flags, ok1 := next()
		dms, ok2 := next()
		dseq, ok3 := next()
		if !ok1 || !ok2 || !ok3 {
			return n, false
		}
		e := StreamNodeEntry{ID: StreamID{master.Ms + uint64(dms), master.Seq + uint64(dseq)},
			Deleted: flags&streamFlagDeleted != 0, SameFields: flags&streamFlagSameFields != 0}
		if e.SameFields {
			if i+len(n.MasterFields) > len(el) {
				return n, false
			}
			for _, f := range n.MasterFields {
				e.Fields = append(e.Fields, f, el[i])
				i++
			}
		} else {
			cnt, ok := next()
			if !ok || cnt < 0 || int64(i)+2*cnt > int64(len(el)) {
				return n, false
			}
			e.Fields = el[i : i+int(2*cnt)]
			i += int(2 * cnt)
		}
		if _, ok := next(); !ok { // lp-count
			return n, false
		}
		if e.Deleted {
			gotDead++
		} else {
			gotLive++
		}
		n.Entries = append(n.Entries, e)
	}
	return n, gotLive == live && gotDead == dead && len(n.Entries) > 0
}
