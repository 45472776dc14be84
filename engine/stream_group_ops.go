package engine

import "errors"

// Consumer-group commands on the keyspace: XGROUP, XREADGROUP's reads
// (called from XRead), XACK, XPENDING, XCLAIM, XAUTOCLAIM and XINFO.

// Group errors; the front-end words them (with the key and group names).
var (
	// ErrStreamGroupKey: XGROUP on a missing key (without MKSTREAM).
	ErrStreamGroupKey = errors.New("engine: XGROUP requires the key to exist")
	// ErrStreamBusyGroup: XGROUP CREATE of a group that exists.
	ErrStreamBusyGroup = errors.New("engine: consumer group name already exists")
	// ErrStreamNoGroupOfKey: no such group in an existing stream (XGROUP,
	// XINFO CONSUMERS).
	ErrStreamNoGroupOfKey = errors.New("engine: no such consumer group for the key")
)

// groupRead is XREADGROUP's read of one stream, under its shard lock:
// with history, the consumer's pending entries above gt (a missing entry
// comes with nil fields); else the entries above gt, which the group
// delivers (last ID, read counter, and the PEL unless NoAck). It creates
// the consumer if needed. served says whether the key is in the reply;
// changed whether the stream changed. With a.Effects, res.Group tells
// what the read did to the group.
func (d DB) groupRead(s *stream, g *streamGroup, gt StreamID, history bool, a *XReadArgs, count int64, key []byte, now int64) (res StreamReadResult, served, changed bool) {
	var fx *StreamGroupEffects
	if a.Effects {
		fx = &StreamGroupEffects{NoAck: a.NoAck, Consumer: string(a.Consumer)}
		res.Group = fx
		defer fx.ended(g, g.lastID)
	}
	c := g.consumer(a.Consumer)
	if c == nil {
		c = g.addConsumer(a.Consumer, now)
		d.notifyLater(ClassStream, "xgroup-createconsumer", key)
		if fx != nil {
			fx.ConsumerCreated = true
		}
	} else {
		c.seenTime = now
	}
	defer s.groupsChanged()
	res.Key = cloneBytes(key)
	start, ok := gt.Next()
	if history {
		if !ok {
			return res, true, true
		}
		var fields [][]byte
		for i, id := range c.pel {
			if id.Cmp(start) < 0 {
				continue
			}
			if count != 0 && int64(len(res.Entries)) >= count {
				break
			}
			f, found := s.get(id, fields[:0])
			if !found {
				res.Entries = append(res.Entries, StreamEntry{ID: id})
				continue
			}
			res.Entries = append(res.Entries, copyEntry(&StreamEntry{ID: id, Fields: f}))
			if j, ok := g.pelIndex(c.pel[i]); ok {
				g.pel[j].delivered = now
				g.pel[j].count++
			}
		}
		return res, true, true
	}
	if !ok {
		return res, true, true
	}
	s.visit(start, MaxStreamID, count, false, func(e *StreamEntry) {
		if e.ID.Cmp(g.lastID) > 0 {
			if g.entriesRead != entriesReadInvalid && !s.rangeHasTombstones(e.ID, nil) {
				g.entriesRead++
			} else if s.entriesAdded != 0 {
				g.entriesRead = s.estimateEntriesRead(e.ID)
			}
			g.lastID = e.ID
		}
		res.Entries = append(res.Entries, copyEntry(e))
		if !a.NoAck {
			fx.claimed(g, g.deliver(e.ID, c, now), 0)
		}
	})
	return res, true, true
}

// XGroupID is where XGROUP CREATE and SETID set a group: an ID, "$" (the
// stream's last ID), or an argument that is not an ID (ErrStreamBadID once
// the key and group checks pass).
type XGroupID struct {
	ID      StreamID
	Dollar  bool
	Invalid bool
}

func (x XGroupID) resolve(s *stream) (StreamID, error) {
	switch {
	case x.Dollar:
		return s.lastID, nil
	case x.Invalid:
		return StreamID{}, ErrStreamBadID
	}
	return x.ID, nil
}

// streamGroupWrite runs op on key's stream and group, after the checks
// XGROUP makes in Redis's order: the key's type, its existence (unless
// mkstream), then the group's (when needGroup).
func (d DB) streamGroupWrite(key, group []byte, mkstream, needGroup, serve bool, op func(s *stream, g *streamGroup) (changed bool, err error)) error {
	exists := true
	found, err := d.streamWrite(key, mkstream, serve, func(s *stream) (bool, bool, error) {
		g := s.group(group)
		if needGroup && g == nil {
			return false, false, ErrStreamNoGroupOfKey
		}
		changed, err := op(s, g)
		if changed {
			s.groupsChanged()
		}
		return changed, false, err
	})
	if !found && err == nil {
		exists = false
	}
	if !exists {
		return ErrStreamGroupKey
	}
	return err
}

// XGroupCreate is XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]
// (entriesRead -1: not given). A stream MKSTREAM creates touches WATCH.
func (d DB) XGroupCreate(key, group []byte, id XGroupID, mkstream bool, entriesRead int64) error {
	k := d.lockKey(key)
	defer k.s.unlock()
	created := k.slot < 0
	found, err := d.streamWriteLocked(k, key, mkstream, func(s *stream) (bool, bool, error) {
		at, err := id.resolve(s)
		if err != nil {
			return false, false, err
		}
		if !s.addGroup(&streamGroup{name: string(group), lastID: at, entriesRead: entriesRead}) {
			return false, false, ErrStreamBusyGroup
		}
		s.groupsChanged()
		return true, created, nil
	})
	if !found && err == nil {
		return ErrStreamGroupKey
	}
	return err
}

// XGroupSetID is XGROUP SETID key group id|$ [ENTRIESREAD n].
func (d DB) XGroupSetID(key, group []byte, id XGroupID, entriesRead int64) error {
	return d.streamGroupWrite(key, group, false, true, false, func(s *stream, g *streamGroup) (bool, error) {
		at, err := id.resolve(s)
		if err != nil {
			return false, err
		}
		g.lastID, g.entriesRead = at, entriesRead
		return true, nil
	})
}

// XGroupDestroy is XGROUP DESTROY key group: whether the group existed.
// Clients blocked on it are answered (ErrStreamGroupGone).
func (d DB) XGroupDestroy(key, group []byte) (bool, error) {
	gone := false
	err := d.streamGroupWrite(key, group, false, false, true, func(s *stream, g *streamGroup) (bool, error) {
		if g == nil {
			return false, nil
		}
		for i, x := range s.groups {
			if x == g {
				s.groups = append(s.groups[:i], s.groups[i+1:]...)
				break
			}
		}
		gone = true
		return true, nil
	})
	return gone, err
}

// XGroupCreateConsumer is XGROUP CREATECONSUMER: whether it was created.
func (d DB) XGroupCreateConsumer(key, group, consumer []byte) (bool, error) {
	created := false
	now := d.e.clock.NowMs()
	err := d.streamGroupWrite(key, group, false, true, false, func(s *stream, g *streamGroup) (bool, error) {
		if g.consumer(consumer) != nil {
			return false, nil
		}
		g.addConsumer(consumer, now)
		created = true
		return true, nil
	})
	return created, err
}

// XGroupDelConsumer is XGROUP DELCONSUMER: the consumer's pending count,
// and whether it existed.
func (d DB) XGroupDelConsumer(key, group, consumer []byte) (pending int64, existed bool, err error) {
	err = d.streamGroupWrite(key, group, false, true, false, func(s *stream, g *streamGroup) (bool, error) {
		c := g.consumer(consumer)
		if c == nil {
			return false, nil
		}
		pending, existed = int64(len(c.pel)), true
		g.delConsumer(c)
		return true, nil
	})
	return pending, existed, err
}

// XAck is XACK: how many of ids were pending. A missing key or group
// acknowledges nothing; nil ids only look the key up (the front-end
// replies its ID error then).
func (d DB) XAck(key, group []byte, ids []StreamID) (found bool, n int64, err error) {
	_, err = d.streamWrite(key, false, false, func(s *stream) (bool, bool, error) {
		g := s.group(group)
		if g == nil {
			return false, false, nil
		}
		found = true
		for _, id := range ids {
			if g.ack(id) {
				n++
			}
		}
		if n > 0 {
			s.groupsChanged()
		}
		return n > 0, false, nil
	})
	return found, n, err
}

// StreamPending is one PEL entry: its ID, consumer, last delivery (unix
// ms) and delivery count.
type StreamPending struct {
	ID        StreamID
	Consumer  []byte
	Delivered int64
	Count     uint64
}

// StreamPendingSummary is XPENDING's summary form.
type StreamPendingSummary struct {
	Count      int64
	Min, Max   StreamID
	PerConsume []StreamConsumerCount // consumers with pending entries, by name
}

// StreamConsumerCount is a consumer and its pending count.
type StreamConsumerCount struct {
	Name  []byte
	Count int64
}

// XPendingRange is XPENDING's extended form: IDs in [Start, End], at most
// Count, idle at least MinIdle ms, of Consumer only when set.
type XPendingRange struct {
	Start, End StreamID
	Count      int64
	MinIdle    int64
	Consumer   []byte
}

// XPending is XPENDING: the summary when r is nil, else the range. It
// fails with ErrStreamNoGroup for a missing key or group.
func (d DB) XPending(key, group []byte, r *XPendingRange) (*StreamPendingSummary, []StreamPending, error) {
	var sum *StreamPendingSummary
	var list []StreamPending
	now := d.e.clock.NowMs()
	noGroup := true
	found, err := d.readAggregate(key, TypeStream, func(a aggregate) {
		s := a.(*stream)
		g := s.group(group)
		if g == nil {
			return
		}
		noGroup = false
		if r == nil {
			sum = &StreamPendingSummary{Count: int64(len(g.pel))}
			if len(g.pel) > 0 {
				sum.Min, sum.Max = g.pel[0].id, g.pel[len(g.pel)-1].id
				for _, c := range g.consumers {
					if len(c.pel) > 0 {
						sum.PerConsume = append(sum.PerConsume, StreamConsumerCount{Name: []byte(c.name), Count: int64(len(c.pel))})
					}
				}
			}
			return
		}
		list = []StreamPending{}
		emit := func(p *pelEntry) bool {
			if r.Count <= int64(len(list)) {
				return false
			}
			if r.MinIdle != 0 && now-p.delivered < r.MinIdle {
				return true
			}
			list = append(list, StreamPending{ID: p.id, Consumer: []byte(p.consumer.name), Delivered: p.delivered, Count: p.count})
			return true
		}
		if r.Consumer != nil {
			c := g.consumer(r.Consumer)
			if c == nil {
				return
			}
			for _, id := range c.pel {
				if id.Cmp(r.Start) < 0 {
					continue
				}
				if id.Cmp(r.End) > 0 {
					break
				}
				j, _ := g.pelIndex(id)
				if !emit(&g.pel[j]) {
					break
				}
			}
			return
		}
		i, _ := g.pelIndex(r.Start)
		for ; i < len(g.pel) && g.pel[i].id.Cmp(r.End) <= 0; i++ {
			if !emit(&g.pel[i]) {
				break
			}
		}
	})
	if err == nil && (!found || noGroup) {
		err = ErrStreamNoGroup
	}
	return sum, list, err
}

// XClaimArgs are XCLAIM's: the consumer, min-idle-time, the IDs, and its
// options (DeliveryTime -1: IDLE and TIME not given; RetryCount -1: not
// given).
type XClaimArgs struct {
	Consumer     []byte
	MinIdle      int64
	IDs          []StreamID
	DeliveryTime int64
	RetryCount   int64
	Force        bool
	JustID       bool
	LastID       StreamID
	// CheckOnly: only the key and group are checked (the front-end then
	// replies the argument error it found).
	CheckOnly bool
	// Effects, if not nil, receives what the claim did to the group.
	Effects *StreamGroupEffects
}

// XClaim is XCLAIM: the entries (IDs only with JustID) it claimed for
// the consumer. A pending entry whose message is gone is dropped from the
// PEL. It fails with ErrStreamNoGroup for a missing key or group.
func (d DB) XClaim(key, group []byte, a *XClaimArgs) ([]StreamEntry, error) {
	var out []StreamEntry
	now := d.e.clock.NowMs()
	noGroup := true
	found, err := d.streamWrite(key, false, false, func(s *stream) (bool, bool, error) {
		g := s.group(group)
		if g == nil {
			return false, false, nil
		}
		noGroup = false
		if a.CheckOnly {
			return false, false, nil
		}
		out = []StreamEntry{}
		changed := false
		defer a.Effects.ended(g, g.lastID)
		if a.LastID.Cmp(g.lastID) > 0 {
			g.lastID = a.LastID
			changed = true
		}
		dt := a.DeliveryTime
		if dt == -1 || dt < 0 || dt > now {
			dt = now
		}
		var c *streamConsumer
		var fields [][]byte
		for arg, id := range a.IDs {
			i, pending := g.pelIndex(id)
			f, exists := s.get(id, fields[:0])
			if !exists {
				if pending {
					a.Effects.claimed(g, &g.pel[i], arg)
					g.ack(id)
					changed = true
				}
				continue
			}
			if a.Force && !pending {
				g.pel = append(g.pel, pelEntry{})
				copy(g.pel[i+1:], g.pel[i:])
				g.pel[i] = pelEntry{id: id, delivered: now, count: 1}
				pending = true
			}
			if !pending {
				continue
			}
			p := &g.pel[i]
			if p.consumer != nil && a.MinIdle != 0 && now-p.delivered < a.MinIdle {
				continue
			}
			if c == nil {
				if c = g.consumer(a.Consumer); c == nil {
					c = g.addConsumer(a.Consumer, now)
					d.notifyLater(ClassStream, "xgroup-createconsumer", key)
				} else {
					c.seenTime = now
				}
			}
			if p.consumer != c && p.consumer != nil {
				p.consumer.dropPending(id)
			}
			p.delivered = dt
			if a.RetryCount >= 0 {
				p.count = uint64(a.RetryCount)
			} else if !a.JustID {
				p.count++
			}
			if p.consumer != c {
				c.addPending(id)
				p.consumer = c
			}
			if a.JustID {
				out = append(out, StreamEntry{ID: id})
			} else {
				out = append(out, copyEntry(&StreamEntry{ID: id, Fields: f}))
			}
			a.Effects.claimed(g, p, arg)
			changed = true
		}
		if changed {
			s.groupsChanged()
		}
		return changed, false, nil
	})
	if err == nil && (!found || noGroup) {
		err = ErrStreamNoGroup
	}
	return out, err
}

// XAutoClaimResult is XAUTOCLAIM's reply: the cursor to go on from, the
// claimed entries (IDs only with JUSTID) and the IDs whose messages were
// gone (dropped from the PEL).
type XAutoClaimResult struct {
	Next    StreamID
	Claimed []StreamEntry
	Deleted []StreamID
}

// XAutoClaim is XAUTOCLAIM key group consumer min-idle-time start [COUNT
// n] [JUSTID]. It fails with ErrStreamNoGroup for a missing key or group.
// fx, if not nil, receives what it did to the group.
//
// With checkOnly (a COUNT the front-end refuses once the group is found)
// it only looks the key and group up, and returns nil, nil.
func (d DB) XAutoClaim(key, group, consumer []byte, minIdle int64, start StreamID, count int64, justID, checkOnly bool, fx *StreamGroupEffects) (*XAutoClaimResult, error) {
	var res *XAutoClaimResult
	now := d.e.clock.NowMs()
	noGroup := true
	found, err := d.streamWrite(key, false, false, func(s *stream) (bool, bool, error) {
		g := s.group(group)
		if g == nil {
			return false, false, nil
		}
		noGroup = false
		if checkOnly {
			return false, false, nil
		}
		res = &XAutoClaimResult{Claimed: []StreamEntry{}}
		changed := false
		defer fx.ended(g, g.lastID)
		attempts := count * 10
		var c *streamConsumer
		var fields [][]byte
		i, _ := g.pelIndex(start)
		for ; attempts > 0 && count > 0 && i < len(g.pel); attempts-- {
			p := &g.pel[i]
			id := p.id
			f, exists := s.get(id, fields[:0])
			if !exists {
				fx.claimed(g, p, 0)
				g.ack(id)
				res.Deleted = append(res.Deleted, id)
				count--
				changed = true
				continue // the next entry is at i now
			}
			i++
			if minIdle != 0 && now-p.delivered < minIdle {
				continue
			}
			if c == nil {
				if c = g.consumer(consumer); c == nil {
					c = g.addConsumer(consumer, now)
					d.notifyLater(ClassStream, "xgroup-createconsumer", key)
				} else {
					c.seenTime = now
				}
			}
			if p.consumer != c && p.consumer != nil {
				p.consumer.dropPending(id)
			}
			p.delivered = now
			if !justID {
				p.count++
			}
			if p.consumer != c {
				c.addPending(id)
				p.consumer = c
			}
			if justID {
				res.Claimed = append(res.Claimed, StreamEntry{ID: id})
			} else {
				res.Claimed = append(res.Claimed, copyEntry(&StreamEntry{ID: id, Fields: f}))
			}
			fx.claimed(g, p, 0)
			count--
			changed = true
		}
		if i < len(g.pel) {
			res.Next = g.pel[i].id
		}
		if changed {
			s.groupsChanged()
		}
		return changed, false, nil
	})
	if err == nil && (!found || noGroup) {
		err = ErrStreamNoGroup
	}
	return res, err
}

// StreamInfo is what XINFO STREAM reports; copies.
type StreamInfo struct {
	Length                       uint64
	RadixKeys, RadixNodes        int64
	LastID, MaxDeleted, FirstRec StreamID
	EntriesAdded                 uint64
	GroupCount                   int
	First, Last                  *StreamEntry // nil when empty
	// FULL only.
	Entries []StreamEntry
	Groups  []StreamGroupInfo
}

// StreamGroupInfo is one group of XINFO GROUPS and XINFO STREAM FULL.
type StreamGroupInfo struct {
	Name        []byte
	Consumers   int
	Pending     int
	LastID      StreamID
	EntriesRead int64 // -1: unknown (nil)
	Lag         int64
	LagKnown    bool
	// FULL only: up to COUNT of the PEL, and the consumers.
	PEL           []StreamPending
	ConsumersFull []StreamConsumerInfo
}

// StreamConsumerInfo is one consumer of XINFO CONSUMERS and STREAM FULL.
type StreamConsumerInfo struct {
	Name     []byte
	SeenTime int64
	Pending  int
	PEL      []StreamPending // FULL only
}

// XInfoStream is XINFO STREAM [FULL [COUNT n]] (count 0: all); found is
// false for a missing key.
func (d DB) XInfoStream(key []byte, full bool, count int64) (*StreamInfo, bool, error) {
	var info *StreamInfo
	found, err := d.readAggregate(key, TypeStream, func(a aggregate) {
		s := a.(*stream)
		info = &StreamInfo{Length: s.count, RadixKeys: int64(len(s.blocks)), RadixNodes: s.raxNodes(),
			LastID: s.lastID, MaxDeleted: s.maxDeleted, FirstRec: s.firstID, EntriesAdded: s.entriesAdded, GroupCount: len(s.groups)}
		if !full {
			s.visit(StreamID{}, MaxStreamID, 1, false, func(e *StreamEntry) { c := copyEntry(e); info.First = &c })
			s.visit(StreamID{}, MaxStreamID, 1, true, func(e *StreamEntry) { c := copyEntry(e); info.Last = &c })
			return
		}
		info.Entries = []StreamEntry{}
		s.visit(StreamID{}, MaxStreamID, count, false, func(e *StreamEntry) { info.Entries = append(info.Entries, copyEntry(e)) })
		info.Groups = s.groupInfos(true, count)
	})
	return info, found, err
}

// groupInfos describes the groups; with full, their PELs (up to count,
// 0: all) and consumers.
func (s *stream) groupInfos(full bool, count int64) []StreamGroupInfo {
	out := make([]StreamGroupInfo, 0, len(s.groups))
	for _, g := range s.groups {
		gi := StreamGroupInfo{Name: []byte(g.name), Consumers: len(g.consumers), Pending: len(g.pel), LastID: g.lastID, EntriesRead: g.entriesRead}
		gi.Lag, gi.LagKnown = s.lag(g)
		if full {
			gi.PEL = []StreamPending{}
			for _, p := range g.pel {
				if count != 0 && int64(len(gi.PEL)) >= count {
					break
				}
				gi.PEL = append(gi.PEL, StreamPending{ID: p.id, Consumer: []byte(p.consumer.name), Delivered: p.delivered, Count: p.count})
			}
			for _, c := range g.consumers {
				ci := StreamConsumerInfo{Name: []byte(c.name), SeenTime: c.seenTime, Pending: len(c.pel), PEL: []StreamPending{}}
				for _, id := range c.pel {
					if count != 0 && int64(len(ci.PEL)) >= count {
						break
					}
					j, _ := g.pelIndex(id)
					ci.PEL = append(ci.PEL, StreamPending{ID: id, Delivered: g.pel[j].delivered, Count: g.pel[j].count})
				}
				gi.ConsumersFull = append(gi.ConsumersFull, ci)
			}
		}
		out = append(out, gi)
	}
	return out
}

// XInfoGroups is XINFO GROUPS; found is false for a missing key.
func (d DB) XInfoGroups(key []byte) ([]StreamGroupInfo, bool, error) {
	var out []StreamGroupInfo
	found, err := d.readAggregate(key, TypeStream, func(a aggregate) { out = a.(*stream).groupInfos(false, 0) })
	return out, found, err
}

// XInfoConsumers is XINFO CONSUMERS key group; found is false for a
// missing key, and ErrStreamNoGroupOfKey for a missing group.
func (d DB) XInfoConsumers(key, group []byte) ([]StreamConsumerInfo, bool, error) {
	var out []StreamConsumerInfo
	noGroup := false
	found, err := d.readAggregate(key, TypeStream, func(a aggregate) {
		g := a.(*stream).group(group)
		if g == nil {
			noGroup = true
			return
		}
		out = []StreamConsumerInfo{}
		for _, c := range g.consumers {
			out = append(out, StreamConsumerInfo{Name: []byte(c.name), SeenTime: c.seenTime, Pending: len(c.pel)})
		}
	})
	if err == nil && noGroup {
		err = ErrStreamNoGroupOfKey
	}
	return out, found, err
}

// raxNodes is the node count of Redis's radix tree over the blocks'
// master IDs (XINFO STREAM's radix-tree-nodes), for the canonical form
// rax keeps: a compressed node for each run of bytes its keys share, a
// branching node where they part, and a node for each key's end.
func (s *stream) raxNodes() int64 {
	if len(s.blocks) == 0 {
		return 1
	}
	keys := make([][16]byte, len(s.blocks))
	for i, b := range s.blocks {
		putBE(keys[i][:8], b.master.Ms)
		putBE(keys[i][8:], b.master.Seq)
	}
	return raxCount(keys, 0)
}

func putBE(b []byte, v uint64) {
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}

// raxCount counts the nodes of the subtree at depth for sorted, distinct
// keys sharing their first depth bytes.
func raxCount(keys [][16]byte, depth int) int64 {
	if depth == 16 {
		return 1
	}
	l := 0
	for depth+l < 16 && keys[0][depth+l] == keys[len(keys)-1][depth+l] {
		l++
	}
	if l > 0 {
		return 1 + raxCount(keys, depth+l)
	}
	n := int64(1)
	for i := 0; i < len(keys); {
		j := i
		for j < len(keys) && keys[j][depth] == keys[i][depth] {
			j++
		}
		n += raxCount(keys[i:j], depth+1)
		i = j
	}
	return n
}
