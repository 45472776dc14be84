package engine

import "errors"

// Stream commands on the keyspace: XADD, XRANGE/XREVRANGE, XLEN, XDEL,
// XTRIM, XSETID and XREAD (blocking through blocking.go). Consumer
// groups are in stream_group_ops.go.

// Stream errors; the front-end words them.
var (
	// ErrStreamIDTooSmall: XADD's ID is not above the stream's top item.
	ErrStreamIDTooSmall = errors.New("engine: stream ID equal or smaller than the top item")
	// ErrStreamExhausted: the stream's last ID is the largest there is.
	ErrStreamExhausted = errors.New("engine: stream exhausted the last possible ID")
	// ErrStreamTooLarge: XADD's fields and values pass 1 GB.
	ErrStreamTooLarge = errors.New("engine: stream elements too large")
	// ErrStreamSetIDSmall: XSETID's ID is below the top item.
	ErrStreamSetIDSmall = errors.New("engine: XSETID ID smaller than the top item")
	// ErrStreamSetIDEntries: XSETID's ENTRIESADDED is below the length.
	ErrStreamSetIDEntries = errors.New("engine: XSETID entries added smaller than the length")
)

// XAddArgs are XADD's.
type XAddArgs struct {
	ID       StreamID // with IDGiven; SeqGiven false for "ms-*"
	IDGiven  bool
	SeqGiven bool
	// NoMkStream (NOMKSTREAM): a missing key is not created.
	NoMkStream bool
	Trim       StreamTrim
	Fields     [][]byte // field, value pairs
	Limits     StreamLimits
}

// XAddResult says what XAdd did.
type XAddResult struct {
	Added   bool // false: the key was missing and NoMkStream set
	ID      StreamID
	Trimmed int64
}

// XAdd is XADD: it appends an entry (creating the stream unless
// NoMkStream), then trims. Clients blocked on the key are served.
func (d DB) XAdd(key []byte, a *XAddArgs) (XAddResult, error) {
	var res XAddResult
	now := d.e.clock.NowMs()
	_, err := d.streamWrite(key, !a.NoMkStream, true, func(s *stream) (bool, bool, error) {
		if s.lastID == MaxStreamID {
			return false, false, ErrStreamExhausted
		}
		var id StreamID
		switch {
		case !a.IDGiven:
			if ms := uint64(now); ms > s.lastID.Ms {
				id = StreamID{Ms: ms}
			} else {
				id, _ = s.lastID.Next()
			}
		case a.SeqGiven:
			id = a.ID
		case s.lastID.Ms == a.ID.Ms:
			if s.lastID.Seq == ^uint64(0) {
				// Redis fails here without setting errno, so its XADD
				// reports the other failure.
				return false, false, ErrStreamTooLarge
			}
			id = StreamID{s.lastID.Ms, s.lastID.Seq + 1}
		default:
			id = StreamID{Ms: a.ID.Ms}
		}
		if id.Cmp(s.lastID) <= 0 {
			return false, false, ErrStreamIDTooSmall
		}
		var tot int64
		for _, v := range a.Fields {
			tot += int64(len(v))
		}
		if tot > streamLPMaxSize {
			return false, false, ErrStreamTooLarge
		}
		s.appendEntry(id, a.Fields, a.Limits)
		res.Added, res.ID = true, id
		res.Trimmed = s.trim(a.Trim)
		return true, true, nil
	})
	return res, err
}

// streamOp is a stream write: it reports whether it changed the stream
// and whether the change touches WATCH (Redis's signalModifiedKey, which
// XSETID and the group commands but XGROUP CREATE MKSTREAM do not call).
type streamOp func(s *stream) (changed, signal bool, err error)

// streamWrite runs op on key's stream under its shard lock, creating the
// stream when create is set (and op changes it). With serve it then
// serves the clients blocked on the key: only XADD (and a stream's
// creation) does, as only they signal the key ready in Redis. It reports
// whether the key exists.
func (d DB) streamWrite(key []byte, create, serve bool, op streamOp) (bool, error) {
	k := d.lockKey(key)
	defer k.s.unlock()
	found, err := d.streamWriteLocked(k, key, create, op)
	if serve {
		d.serveWaitersLocked(k.s, key, k.h, k.now) // blocked clients (blocking.go)
	}
	return found, err
}

// streamWriteLocked is streamWrite for a key already looked up in its
// locked shard, as aggregateLocked.
func (d DB) streamWriteLocked(k keyAt, key []byte, create bool, op streamOp) (bool, error) {
	s, h, now, slot := k.s, k.h, k.now, k.slot
	var st *stream
	if slot >= 0 {
		en := &s.entries[slot]
		if en.typ != TypeStream {
			return true, ErrWrongType
		}
		st = s.aggs[uint32(slot)].(*stream)
		d.touch(en, now)
	} else {
		if !create {
			return false, nil
		}
		if d.overLimit() {
			return false, ErrOOM
		}
		st = &stream{}
	}
	before := st.memSize()
	changed, signal, err := op(st)
	if !changed {
		return slot >= 0, err
	}
	s.changed(1)
	d.wrote()
	if slot < 0 {
		slot = s.insert(h, key, nil, TypeStream, d.newMeta())
		s.setAgg(slot, TypeStream, st)
	} else {
		s.account(st.memSize() - before)
		if signal {
			d.e.newVersion(&s.shardData, &s.entries[slot])
		}
	}
	d.e.onWrite(&s.shardData, &s.entries[slot], now)
	return true, err
}

// XRange visits the entries of key from start to end, inclusive (from
// end down to start when rev), at most count of them (0: all; < 0: none,
// the key is only looked up). It reports whether the key exists.
func (d DB) XRange(key []byte, start, end StreamID, count int64, rev bool, fn func(e *StreamEntry)) (bool, error) {
	return d.readAggregate(key, TypeStream, func(a aggregate) {
		if count < 0 {
			return
		}
		a.(*stream).visit(start, end, count, rev, fn)
	})
}

// visit calls fn for up to count (0: all) live entries in range.
func (s *stream) visit(start, end StreamID, count int64, rev bool, fn func(e *StreamEntry)) int64 {
	it := s.iter(start, end, rev)
	var e StreamEntry
	var n int64
	for (count == 0 || n < count) && it.next(true) {
		e.ID, e.Fields = it.e.id, it.e.kv
		fn(&e)
		n++
	}
	return n
}

// XLen is XLEN: the entries of key's stream, 0 for a missing key.
func (d DB) XLen(key []byte) (int64, error) {
	var n int64
	_, err := d.readAggregate(key, TypeStream, func(a aggregate) { n = int64(a.(*stream).count) })
	return n, err
}

// XFirstStored is the ID of the first entry key's stream stores, deleted
// or not (a tombstone may lead a node), or MaxStreamID when it stores
// none: what Redis's streamGetEdgeID(s, 1, 0) finds, the threshold an
// approximate MINID trim propagates as (streamRewriteTrimArgument).
func (d DB) XFirstStored(key []byte) (StreamID, error) {
	id := MaxStreamID
	_, err := d.readAggregate(key, TypeStream, func(a aggregate) {
		it := a.(*stream).iter(StreamID{}, MaxStreamID, false)
		it.withTomb = true
		if it.next(false) {
			id = it.e.id
		}
	})
	return id, err
}

// XDel is XDEL: it deletes the entries with those IDs and returns how
// many there were. It reports whether the key exists (nil ids only look
// it up, for the front-end's error order).
func (d DB) XDel(key []byte, ids []StreamID) (found bool, deleted int64, err error) {
	found, err = d.streamWrite(key, false, false, func(s *stream) (bool, bool, error) {
		first := false
		for _, id := range ids {
			if s.deleteID(id) {
				if id == s.firstID {
					first = true
				}
				if id.Cmp(s.maxDeleted) > 0 {
					s.maxDeleted = id
				}
				deleted++
			}
		}
		if deleted > 0 {
			if s.count == 0 {
				s.firstID = StreamID{}
			} else if first {
				s.refreshFirst()
			}
		}
		return deleted > 0, deleted > 0, nil
	})
	return found, deleted, err
}

// XTrim is XTRIM: it trims key's stream as t says and returns how many
// entries went (0 for a missing key).
func (d DB) XTrim(key []byte, t StreamTrim) (int64, error) {
	var n int64
	_, err := d.streamWrite(key, false, false, func(s *stream) (bool, bool, error) {
		n = s.trim(t)
		return n > 0, n > 0, nil
	})
	return n, err
}

// XSetIDArgs are XSETID's: the new last ID, ENTRIESADDED (-1: not given)
// and MAXDELETEDID (0-0: not given).
type XSetIDArgs struct {
	ID           StreamID
	EntriesAdded int64
	MaxDeleted   StreamID
}

// XSetID is XSETID. It reports whether the key exists.
func (d DB) XSetID(key []byte, a XSetIDArgs) (bool, error) {
	return d.streamWrite(key, false, false, func(s *stream) (bool, bool, error) {
		if s.count > 0 {
			top, _ := s.edgeID(true)
			if a.ID.Cmp(top) < 0 {
				return false, false, ErrStreamSetIDSmall
			}
			if a.EntriesAdded != -1 && s.count > uint64(a.EntriesAdded) {
				return false, false, ErrStreamSetIDEntries
			}
		}
		s.lastID = a.ID
		if a.EntriesAdded != -1 {
			s.entriesAdded = uint64(a.EntriesAdded)
		}
		if !a.MaxDeleted.IsZero() {
			s.maxDeleted = a.MaxDeleted
		}
		return true, false, nil // Redis's XSETID does not touch WATCH
	})
}

// XReadID is how XREAD and XREADGROUP name where to read from, for one
// key.
type XReadID struct {
	Kind XReadIDKind
	ID   StreamID // XReadAfter
}

// XReadIDKind is an XREAD ID argument's form.
type XReadIDKind uint8

const (
	XReadAfter   XReadIDKind = iota // an ID: entries above it
	XReadDollar                     // "$": entries added from now on
	XReadNew                        // ">": the group's undelivered entries
	XReadInvalid                    // not an ID: ErrStreamBadID when reached
)

// Errors of XREAD and XREADGROUP met while looking at the keys in order;
// XReadError says which key.
var (
	ErrStreamBadID         = errors.New("engine: invalid stream ID")
	ErrStreamNoGroup       = errors.New("engine: no such key or consumer group")
	ErrStreamDollarInGroup = errors.New("engine: $ in XREADGROUP")
	ErrStreamNewWithoutGrp = errors.New("engine: > in XREAD")
	ErrStreamGroupGone     = errors.New("engine: the consumer group of a blocked client no longer exists")
	ErrStreamKeyGone       = errors.New("engine: the stream key of a blocked client no longer exists")
)

// XReadError is an XREAD error at the key of index Key.
type XReadError struct {
	Key int
	Err error
}

func (e *XReadError) Error() string { return e.Err.Error() }
func (e *XReadError) Unwrap() error { return e.Err }

// XReadArgs are XREAD's and XREADGROUP's.
type XReadArgs struct {
	Keys  [][]byte
	IDs   []XReadID // one per key
	Count int64     // 0: all (blocked: 1000)
	// Group and Consumer make it XREADGROUP.
	Group, Consumer []byte
	NoAck           bool
	// Effects asks a group read for its effects (StreamReadResult.Group),
	// which the write stream propagates.
	Effects bool
}

// StreamReadResult is what XREAD read from one key: copies, valid after
// the call.
type StreamReadResult struct {
	Key     []byte
	Entries []StreamEntry
	// Group is what a group read did to the group, with XReadArgs.Effects.
	Group *StreamGroupEffects
}

// xreadBlockedCount is Redis's XREAD_BLOCKED_DEFAULT_COUNT.
const xreadBlockedCount = 1000

// XRead is XREAD (and XREADGROUP, with a.Group): for each key in order
// it reads what the client has not seen, and returns the keys that had
// something. When none had and w is not nil, w is queued on every key,
// under the same locks: the first write that gives one of them an entry
// past the ID hands the waiter its read (Waiter.StreamResult).
func (d DB) XRead(a *XReadArgs, w *Waiter) ([]StreamReadResult, error) {
	var out []StreamReadResult
	err := d.withKeys(a.Keys, false, func(tx *KeyTx) error {
		ids := make([]StreamID, len(a.Keys))
		streams := make([]*stream, len(a.Keys))
		groups := make([]*streamGroup, len(a.Keys))
		for i := range a.Keys {
			k := tx.at(i)
			var s *stream
			if k.slot >= 0 {
				en := &k.s.entries[k.slot]
				if en.typ != TypeStream {
					tx.d.countLookup(true)
					return &XReadError{i, ErrWrongType}
				}
				s = k.s.aggs[uint32(k.slot)].(*stream)
				tx.d.touch(en, tx.now)
			}
			tx.d.countLookup(s != nil)
			streams[i] = s
			if a.Group != nil {
				if s == nil {
					return &XReadError{i, ErrStreamNoGroup}
				}
				if groups[i] = s.group(a.Group); groups[i] == nil {
					return &XReadError{i, ErrStreamNoGroup}
				}
			}
			switch a.IDs[i].Kind {
			case XReadDollar:
				if a.Group != nil {
					return &XReadError{i, ErrStreamDollarInGroup}
				}
				if s != nil {
					ids[i] = s.lastID
				}
			case XReadNew:
				if a.Group == nil {
					return &XReadError{i, ErrStreamNewWithoutGrp}
				}
				ids[i] = MaxStreamID
			case XReadInvalid:
				return &XReadError{i, ErrStreamBadID}
			default:
				ids[i] = a.IDs[i].ID
			}
		}
		for i, s := range streams {
			// Redis looks every key up twice: to check it, then to read.
			tx.d.countLookup(s != nil)
			if s == nil {
				continue
			}
			if r, ok := tx.readStream(i, s, groups[i], ids[i], a, a.Count); ok {
				out = append(out, r)
			}
		}
		if len(out) > 0 || w == nil {
			return nil
		}
		// The arguments alias the client's read buffer: the waiter keeps
		// copies.
		// A group read served later always tells its effects: the write
		// that serves it propagates them (Handoff.Group).
		a := &XReadArgs{Count: a.Count, Group: cloneBytes(a.Group), Consumer: cloneBytes(a.Consumer), NoAck: a.NoAck, Keys: make([][]byte, len(a.Keys)), Effects: a.Group != nil}
		for i, k := range tx.keys {
			a.Keys[i] = cloneBytes(k)
		}
		w.typ = TypeStream
		w.offer = func(key []byte, ag aggregate) (bool, bool, *StreamGroupEffects) {
			i := 0
			for j, k := range a.Keys {
				if string(k) == string(key) {
					i = j
					break
				}
			}
			return d.serveStreamWaiter(w, ag.(*stream), a, i, ids[i])
		}
		if a.Group != nil {
			w.gone = func() { w.result = &StreamWaitResult{Err: ErrStreamKeyGone} }
		}
		for i := range a.Keys {
			tx.register(i, w)
		}
		return nil
	})
	return out, err
}

// readStream reads key i's stream for XREAD, if there is something to
// read past gt; a group read changes the group (done through the
// transaction so that memory and the change count follow).
func (tx *KeyTx) readStream(i int, s *stream, g *streamGroup, gt StreamID, a *XReadArgs, count int64) (StreamReadResult, bool) {
	var r StreamReadResult
	ok := false
	if g == nil {
		if s.count == 0 {
			return r, false
		}
		if top, _ := s.edgeID(true); top.Cmp(gt) <= 0 {
			return r, false
		}
		r = StreamReadResult{Key: cloneBytes(tx.keys[i]), Entries: s.readAfter(gt, count)}
		return r, true
	}
	tx.d.streamWriteLocked(tx.at(i), tx.keys[i], false, func(s *stream) (bool, bool, error) {
		if gt != MaxStreamID { // an ID: the consumer's history
			var changed bool
			r, ok, changed = tx.d.groupRead(s, g, gt, true, a, count, tx.keys[i], tx.now)
			return changed, false, nil
		}
		if s.count == 0 {
			return false, false, nil
		}
		if top, _ := s.edgeID(true); top.Cmp(g.lastID) <= 0 {
			return false, false, nil
		}
		var changed bool
		r, ok, changed = tx.d.groupRead(s, g, g.lastID, false, a, count, tx.keys[i], tx.now)
		return changed, false, nil
	})
	return r, ok
}

// readAfter copies up to count (0: all) entries above gt.
func (s *stream) readAfter(gt StreamID, count int64) []StreamEntry {
	start, ok := gt.Next()
	if !ok {
		return nil
	}
	var out []StreamEntry
	s.visit(start, MaxStreamID, count, false, func(e *StreamEntry) { out = append(out, copyEntry(e)) })
	return out
}

func copyEntry(e *StreamEntry) StreamEntry {
	c := StreamEntry{ID: e.ID, Fields: make([][]byte, len(e.Fields))}
	n := 0
	for _, f := range e.Fields {
		n += len(f)
	}
	buf := make([]byte, 0, n)
	for j, f := range e.Fields {
		buf = append(buf, f...)
		c.Fields[j] = buf[len(buf)-len(f) : len(buf) : len(buf)]
	}
	return c
}

// cloneBytes copies b; nil stays nil, empty stays empty.
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// StreamWaitResult is what a write handed a blocked XREAD: the read, or
// the error that ends the wait (a group that went away).
type StreamWaitResult struct {
	Read []StreamReadResult
	Err  error
}

// serveStreamWaiter is a blocked XREAD's hand-off on key i (its first
// occurrence), under the shard lock: it serves the waiter when the stream
// has an entry past its ID (the group's last ID for XREADGROUP ">").
func (d DB) serveStreamWaiter(w *Waiter, s *stream, a *XReadArgs, i int, gt StreamID) (served, changed bool, fx *StreamGroupEffects) {
	count := a.Count
	if count == 0 {
		count = xreadBlockedCount
	}
	if a.Group != nil {
		g := s.group(a.Group)
		if g == nil {
			w.result = &StreamWaitResult{Err: ErrStreamGroupGone}
			return true, false, nil
		}
		gt = g.lastID
		if s.lastID.Cmp(gt) <= 0 {
			return false, false, nil
		}
		r, _, _ := d.groupRead(s, g, gt, false, a, count, a.Keys[i], d.e.clock.NowMs())
		w.result = &StreamWaitResult{Read: []StreamReadResult{r}}
		return true, true, r.Group
	}
	if s.lastID.Cmp(gt) <= 0 {
		return false, false, nil
	}
	w.result = &StreamWaitResult{Read: []StreamReadResult{{Key: cloneBytes(a.Keys[i]), Entries: s.readAfter(gt, count)}}}
	return true, false, nil
}

// StreamResult returns what a write handed a waiter of XRead, or nil.
func (w *Waiter) StreamResult() *StreamWaitResult {
	r, _ := w.Result().(*StreamWaitResult)
	return r
}
