package engine

// Aggregates: hashes, lists, sets and sorted sets.
//
// A string keeps its value in its key's record in the shard's arena
// (arena.go). An aggregate cannot, so it lives in its shard's aggs map
// under the entry's slot; the record keeps only the key. Strings, by far the most numerous
// keys, therefore pay nothing for aggregates, and the GC sees one extra
// pointer per aggregate key only. Aggregates are changed in place under the
// shard lock; each keeps its own byte count up to date so memory
// accounting stays O(1) per write.

// aggregate is the value of a non-string key.
type aggregate interface {
	// memSize is the bytes the aggregate holds, kept current by every
	// change (elements, their headers, the structure's share).
	memSize() int64
	// length is the element count; an aggregate emptied by a command is
	// deleted with its key, as in Redis.
	length() int
	// encoding is what OBJECT ENCODING reports.
	encoding() Encoding
	// clone is a deep copy (COPY).
	clone() aggregate
}

// Encodings of aggregates, as OBJECT ENCODING names them.
const (
	EncListpack Encoding = iota + 16
	EncQuicklist
	EncHashtable
	EncIntset
	EncSkiplist
)

var aggEncodingNames = map[Encoding]string{
	EncListpack:  "listpack",
	EncQuicklist: "quicklist",
	EncHashtable: "hashtable",
	EncIntset:    "intset",
	EncSkiplist:  "skiplist",
}

// aggOf returns the aggregate of the entry in slot, or nil for a string.
func (s *shardData) aggOf(slot int) aggregate {
	if s.entries[slot].typ == TypeString {
		return nil
	}
	return s.aggs[uint32(slot)]
}

// setAgg attaches a to the entry in slot.
func (s *shardData) setAgg(slot int, typ Type, a aggregate) {
	if s.aggs == nil {
		s.aggs = make(map[uint32]aggregate)
	}
	s.dropAgg(slot)
	s.aggs[uint32(slot)] = a
	en := &s.entries[slot]
	en.typ = typ
	en.enc = a.encoding()
	s.account(a.memSize())
}

// dropAgg detaches the entry's aggregate, if any.
func (s *shardData) dropAgg(slot int) {
	a, ok := s.aggs[uint32(slot)]
	if !ok {
		return
	}
	delete(s.aggs, uint32(slot))
	s.account(-a.memSize())
	if _, ok := a.(*stream); ok {
		s.streamDropped = true
	}
}

// AggregateOp is what a command does to an aggregate under its shard lock.
// It returns whether it changed the aggregate (a write: dirty counter, CAS,
// access time) and an error that aborts the command.
type AggregateOp func(a aggregate) (changed bool, err error)

// withAggregate runs op on the aggregate of type typ at key, under the
// shard lock. A missing key is created with create() when create is not
// nil (and not stored if op leaves it empty); otherwise op is not called
// and found is false. A key of another type gives ErrWrongType. After op,
// memory, encoding and emptiness are brought up to date.
func (d DB) withAggregate(key []byte, typ Type, create func() aggregate, op AggregateOp) (found bool, err error) {
	k := d.lockKey(key)
	defer k.s.unlock()
	found, err = d.aggregateLocked(k, key, typ, create, op)
	d.serveWaitersLocked(k.s, key, k.h, k.now) // blocked clients (blocking.go)
	return found, err
}

// readAggregate runs fn on the aggregate of type typ at key for a read
// command: fn must not change it, and the lookup counts as a keyspace hit
// or miss, as Redis's lookupKeyRead does (a key of another type is a hit,
// and ErrWrongType). found is false, and fn not called, for a missing key.
func (d DB) readAggregate(key []byte, typ Type, fn func(a aggregate)) (found bool, err error) {
	found, err = d.withAggregate(key, typ, nil, func(a aggregate) (bool, error) {
		fn(a)
		return false, nil
	})
	d.countLookup(found)
	return found, err
}

// aggregateLocked is withAggregate for a key already looked up in its
// locked shard; multi-key commands call it for each key they hold locks
// for.
func (d DB) aggregateLocked(k keyAt, key []byte, typ Type, create func() aggregate, op AggregateOp) (bool, error) {
	s, h, now, slot := k.s, k.h, k.now, k.slot
	var a aggregate
	if slot >= 0 {
		en := &s.entries[slot]
		if en.typ != typ {
			return true, ErrWrongType
		}
		a = s.aggs[uint32(slot)]
		d.touch(en, now)
	} else {
		if create == nil {
			return false, nil
		}
		if d.overLimit() {
			return false, ErrOOM
		}
		a = create()
	}
	before := a.memSize()
	changed, err := op(a)
	if err != nil || !changed {
		if slot < 0 || err != nil {
			return slot >= 0, err
		}
		return true, nil
	}
	s.changed(1)
	d.wrote()
	if slot < 0 {
		if a.length() == 0 {
			return false, nil
		}
		slot = s.insert(h, key, nil, typ, d.newMeta())
		s.setAgg(slot, typ, a)
	} else {
		s.account(a.memSize() - before)
		if a.length() == 0 {
			s.remove(slot, h)
			d.notifyLater(ClassGeneric, "del", key)
			return true, nil
		}
		d.e.newVersion(&s.shardData, &s.entries[slot])
	}
	en := &s.entries[slot]
	en.enc = a.encoding()
	d.e.onWrite(&s.shardData, en, now)
	return true, nil
}
