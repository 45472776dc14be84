package engine

import (
	"runtime"
	"strconv"
	"sync/atomic"
)

// Point-in-time snapshots without fork (SAVE, BGSAVE).
//
// Snapshot takes a barrier: inside an exclusive section of the gate — so no
// command, EXEC or script is half done — it marks every shard pending, a
// pause of a few hundred microseconds. From then on, the first goroutine to
// lock a pending shard, for whatever reason, captures it before doing
// anything else: every shard lock in the engine goes through shard.lock
// (shard.go), which does the capture, except the snapshot's own
// bookkeeping here (marking shards pending, unfreezing them at the end),
// which uses lockNoCapture. The saver walks the shards in order,
// capturing those nobody touched yet, and hands each key of a capture to
// the visitor (the RDB writer), after which the capture is garbage. A
// shard is thus always seen as it was at the barrier, and a multi-key
// write (MSET, EXEC, a script) is either wholly before it or wholly after.
//
// What a capture copies is small: 8 bytes per key (where its record is,
// its type and encoding) and the list of big records. The records
// themselves are shared: their key and value bytes never change, and the
// shard stays frozen until the saver is done with it, so that the CAS and
// expiry fields, which otherwise change in place, are written to a new
// record instead (arena.go). Aggregates, which change in place, are
// cloned. Under a write load touching every shard at once, the extra
// memory is thus about 8 bytes a key plus the aggregates, and what writes
// meanwhile replace.

// SnapItem is one key of a snapshot. Its slices are valid during the visit
// only.
type SnapItem struct {
	DB       int
	Key      []byte
	Type     Type
	ExpireAt int64 // unix ms; 0 = none
	Flags    uint32
	CAS      uint64
	// The value, by type.
	Value          []byte   // TypeString, uncompressed
	Elems          [][]byte // TypeList (head to tail), TypeSet
	Fields, Values [][]byte // TypeHash
	Members        []ZMember
	Stream         *StreamSnapshot // TypeStream (stream_snap.go)
}

// snapshot is one snapshot in progress.
type snapshot struct {
	captured []atomic.Pointer[shardCapture] // by global shard index
}

// shardCapture is a shard as it was at the barrier.
type shardCapture struct {
	arena               // the shard's chunks (shared) and big records (copied)
	keys  []capturedKey // the keys, expired or not
	aggs  []aggregate   // aligned with keys (nil for strings); nil when all are strings
}

// capturedKey is what a capture keeps of an entry: where its record is and
// how to read it.
type capturedKey struct {
	ref  uint32
	typ  Type
	enc  Encoding
	bits uint8
}

// entry returns an entry that reads the key's record.
func (k *capturedKey) entry() entry { return entry{ref: k.ref, typ: k.typ, enc: k.enc, bits: k.bits} }

// capture copies what the snapshot needs of the shard's live state, and
// freezes its records. Locked.
func (s *shard) capture() {
	snap := s.snap
	s.snap = nil
	// Sized once: no growth garbage, and no aggregate column for a shard
	// of strings only.
	c := &shardCapture{keys: make([]capturedKey, 0, s.keys)}
	c.chunks = s.chunks
	if len(s.bigs) > 0 {
		c.bigs = append([][]byte(nil), s.bigs...)
	}
	if len(s.aggs) > 0 {
		c.aggs = make([]aggregate, 0, s.keys)
	}
	for i := range s.entries {
		en := &s.entries[i]
		// A key past its TTL that nothing has reclaimed yet is saved too,
		// as Redis's rdbSaveRio does: a loading master drops it (and counts
		// it in rdb_last_load_keys_expired), a replica keeps it until its
		// master's DEL.
		if en.typ == TypeNone {
			continue
		}
		c.keys = append(c.keys, capturedKey{ref: en.ref, typ: en.typ, enc: en.enc, bits: en.bits})
		if c.aggs != nil {
			var a aggregate
			if en.typ != TypeString {
				a = s.aggs[uint32(i)].clone()
			}
			c.aggs = append(c.aggs, a)
		}
	}
	s.frozen = true
	snap.captured[s.id].Store(c)
}

// Snapshot visits every key as the keyspace was at one instant, in shard
// order (databases ascending, but a database's keys may be visited in
// several runs; visit gets the database in each item). It returns the
// keys per database at the barrier (for RDB's RESIZEDB hints, via begin,
// called once before the first visit) and visit's first error, which stops
// the walk (the remaining captures are then dropped). The caller must not
// be inside the gate; only one snapshot runs at a time.
func (e *Engine) Snapshot(begin func(keysPerDB []int), visit func(it *SnapItem) error) error {
	return e.SnapshotCut(nil, begin, visit)
}

// SnapshotCut is Snapshot calling cut (when not nil) at the barrier's
// instant, with no command of either protocol running: what cut marks —
// an AOF rotated to a new incr file, a replica's place in the write
// stream — is exactly the point the snapshot shows.
func (e *Engine) SnapshotCut(cut func(), begin func(keysPerDB []int), visit func(it *SnapItem) error) error {
	snap := &snapshot{captured: make([]atomic.Pointer[shardCapture], len(e.shards))}
	keys := make([]int, e.databases)
	e.gate.Exclusive(func() {
		if cut != nil {
			cut()
		}
		for i := range e.shards {
			s := &e.shards[i]
			s.lockNoCapture()
			s.snap = snap
			keys[i/e.perDB] += s.keys
			s.unlock()
		}
	})
	if begin != nil {
		begin(keys)
	}
	var err error
	var it SnapItem
	for i := range e.shards {
		s := &e.shards[i]
		s.lock() // captures it if nobody has
		c := snap.captured[i].Swap(nil)
		s.unlock()
		if c == nil {
			continue
		}
		db := i / e.perDB
		for j := 0; j < len(c.keys) && err == nil; j++ {
			var a aggregate
			if c.aggs != nil {
				a = c.aggs[j]
			}
			en := c.keys[j].entry()
			snapItem(&it, db, &c.arena, &en, a)
			err = visit(&it)
		}
		// The saver shares the machine's cores with the event loops, and
		// Go preempts a running goroutine only every 10 ms: yielding after
		// each shard (about a millisecond of work at most) lets a loop
		// that became runnable in between serve its clients now.
		runtime.Gosched()
	}
	// Records may change in place again (a SWAPDB may have moved frozen
	// data between shards, so this waits for the whole walk).
	for i := range e.shards {
		s := &e.shards[i]
		s.lockNoCapture()
		s.frozen = false
		s.unlock()
	}
	return err
}

// snapItem fills it from a captured key.
func snapItem(it *SnapItem, db int, r *arena, en *entry, a aggregate) {
	v := r.view(en)
	*it = SnapItem{DB: db, Key: v.key, Type: en.typ, ExpireAt: v.expireAt, Flags: v.flags, CAS: v.cas}
	switch a := a.(type) {
	case nil:
		it.Value, _ = r.plainValue(en, false)
	case *list:
		it.Elems = make([][]byte, 0, a.n)
		a.each(0, a.n, true, func(v []byte) bool {
			it.Elems = append(it.Elems, v)
			return true
		})
	case *setValue:
		var sink collectMembers
		a.emitAll(&sink)
		it.Elems = sink.out
	case *hash:
		a.each(func(f, v []byte) bool {
			it.Fields = append(it.Fields, f)
			it.Values = append(it.Values, v)
			return true
		})
	case *stream:
		it.Stream = a.snapshot()
	case *zset:
		it.Members = make([]ZMember, 0, a.length())
		a.each(0, a.length(), false, func(m []byte, score float64) bool {
			it.Members = append(it.Members, ZMember{Member: m, Score: score})
			return true
		})
	}
}

// collectMembers is a MemberSink that keeps copies of the members.
type collectMembers struct{ out [][]byte }

func (c *collectMembers) Member(m []byte) { c.out = append(c.out, append([]byte(nil), m...)) }

func (c *collectMembers) IntMember(v int64) {
	c.out = append(c.out, strconv.AppendInt(nil, v, 10))
}
