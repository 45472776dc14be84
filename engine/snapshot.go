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
// anything else (shard.lock): a copy of its live entries, whose key+value
// allocations are immutable and so shared, not copied, and clones of its
// aggregates, which are changed in place. The saver walks the shards in
// order, capturing those nobody touched yet, and hands each capture to the
// visitor (the RDB writer), after which it is garbage. A shard is thus
// always seen as it was at the barrier, and a multi-key write (MSET, EXEC,
// a script) is either wholly before it or wholly after.
//
// Memory: a capture costs its shard's entry array (64 bytes a key) plus
// clones of its aggregates, held from the capture until the saver reaches
// the shard; under a write load touching every shard that approaches a copy
// of the metadata, never of the string values.

// SnapItem is one key of a snapshot. Its slices are valid during the visit
// only.
type SnapItem struct {
	DB       int
	Key      []byte
	Type     Type
	ExpireAt int64 // unix ms; 0 = none
	Flags    uint32
	CAS      uint64
	Idle     int64 // seconds since the last access
	Freq     int64 // LFU counter (meaningful under an LFU policy)
	// The value, by type.
	Value          []byte   // TypeString, uncompressed
	Elems          [][]byte // TypeList (head to tail), TypeSet
	Fields, Values [][]byte // TypeHash
	Members        []ZMember
}

// snapshot is one snapshot in progress.
type snapshot struct {
	now      int64
	captured []atomic.Pointer[shardCapture] // by global shard index
}

// shardCapture is a shard as it was at the barrier.
type shardCapture struct {
	entries []entry
	aggs    []aggregate // aligned with entries (nil for strings); nil when all are strings
}

// lock locks the shard, first capturing it for a snapshot in progress that
// has not seen it yet. Every shard lock in the engine goes through here.
func (s *shard) lock() {
	s.mu.Lock()
	if s.snap != nil {
		s.capture()
	}
}

// capture copies the shard's live state into its snapshot. Locked.
func (s *shard) capture() {
	snap := s.snap
	s.snap = nil
	// Sized once: no growth garbage, and no aggregate column for a shard
	// of strings only.
	c := &shardCapture{entries: make([]entry, 0, s.keys)}
	if len(s.aggs) > 0 {
		c.aggs = make([]aggregate, 0, s.keys)
	}
	for i := range s.entries {
		en := &s.entries[i]
		if en.typ == TypeNone || en.isExpired(snap.now) {
			continue
		}
		c.entries = append(c.entries, *en)
		if c.aggs != nil {
			var a aggregate
			if en.typ != TypeString {
				a = s.aggs[uint32(i)].clone()
			}
			c.aggs = append(c.aggs, a)
		}
	}
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
	snap := &snapshot{captured: make([]atomic.Pointer[shardCapture], len(e.shards))}
	keys := make([]int, e.databases)
	e.gate.Exclusive(func() {
		snap.now = e.clock.NowMs()
		for i := range e.shards {
			s := &e.shards[i]
			s.mu.Lock()
			s.snap = snap
			keys[i/e.perDB] += s.keys
			s.mu.Unlock()
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
		s.mu.Unlock()
		if err != nil || c == nil {
			continue
		}
		db := i / e.perDB
		for j := range c.entries {
			var a aggregate
			if c.aggs != nil {
				a = c.aggs[j]
			}
			e.snapItem(&it, db, &c.entries[j], a, snap.now)
			if err = visit(&it); err != nil {
				break
			}
		}
		// The saver shares the machine's cores with the event loops, and
		// Go preempts a running goroutine only every 10 ms: yielding after
		// each shard (about a millisecond of work at most) lets a loop
		// that became runnable in between serve its clients now.
		runtime.Gosched()
	}
	return err
}

// snapItem fills it from a captured entry.
func (e *Engine) snapItem(it *SnapItem, db int, en *entry, a aggregate, now int64) {
	*it = SnapItem{DB: db, Key: en.key(), Type: en.typ, ExpireAt: en.expireAt, Flags: en.flags, CAS: en.cas,
		Idle: int64(e.lruNow(now) - en.access), Freq: e.freq(en, now)}
	switch a := a.(type) {
	case nil:
		it.Value, _ = en.plainValue(false)
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
