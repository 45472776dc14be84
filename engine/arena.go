package engine

import (
	"bytes"
	"encoding/binary"
)

// Records: where a key's bytes live.
//
// Each key has one record holding its key, its string value (nothing for
// an aggregate, which lives in the shard's aggs) and the metadata few keys
// carry, so that a key without them pays nothing for them:
//
//	uvarint key length | uvarint value length |
//	CAS unique (8, if entryHasCAS) | expiry, unix ms (8, if entryHasExpire) |
//	memcached flags (4, if entryHasFlags) | key | value
//
// Records are packed into the shard's arena: chunks of up to chunkMax bytes
// that records are appended to and never moved within. A record of bigMin
// bytes or more gets an allocation of its own (bigs), as does every record
// of a shard whose arena has run out of chunk numbers. The arena and the
// entries hold no pointers but the chunks', so the GC's work does not grow
// with the number of keys.
//
// A read hands out slices of a record (Item.Value) that stay valid and
// unchanged after the shard is unlocked, and a snapshot reads captured
// records while writers go on (snapshot.go). So a write of a new value
// writes a new record and the old one becomes dead space, unless nobody
// can hold the old bytes: an entry whose value no read has handed out
// since it was written (entryShared) in a shard no snapshot is reading
// gets a value of the same layout written over the old (rewriteInPlace).
// The fixed-size CAS and expiry fields change in place (metaForWrite),
// never while a snapshot still has to read the shard's records. Key bytes
// never change.
//
// Dead space is reclaimed by compacting the shard: its live records are
// copied, in slot order, into fresh chunks, and the old chunks are left to
// the GC (with any slices readers still hold of them). It runs when dead
// bytes reach half the arena, an eighth after an eviction, or a sixteenth
// in FreeMemory's compaction pass (evict.go); a write's cost is then one
// more copy of what it writes, at most.
// used_memory counts a chunk record's own bytes, as Redis counts what
// its allocator hands out: a record's bytes leave it when it dies, and
// what a chunk holds beyond its live records (dead records until a
// compaction, the unfilled end) is fragmentation, as jemalloc's partly
// used pages are for Redis. The memory bound covers it all the same:
// FreeMemory counts dead bytes against maxmemory and compacts shards to
// reclaim them before it evicts anything (evict.go), so what the process
// holds stays within the bound.

// arena is where a shard's records are: what a snapshot captures of them
// (snapshot.go).
type arena struct {
	chunks [][]byte // the last one is appended to (shardData.chunkFill)
	bigs   [][]byte // records with an allocation of their own, by entry.ref; nil = free
}

const (
	chunkShift = 12
	chunkMax   = 1 << chunkShift        // largest chunk; also bounds a chunk record's offset
	chunkMin   = 256                    // a shard's first chunk
	bigMin     = 1024                   // records this long get their own allocation
	maxChunks  = 1 << (32 - chunkShift) // what a ref can address
	// compactMinDead is the least dead space worth a compaction.
	compactMinDead = 512
)

// chunkLimit is the number of chunks a shard may have: maxChunks, less
// in tests of what happens beyond.
var chunkLimit = maxChunks

// metaLen is the length of the optional fields the entry's bits announce.
func metaLen(bits uint8) int {
	n := 0
	if bits&entryHasCAS != 0 {
		n += 8
	}
	if bits&entryHasExpire != 0 {
		n += 8
	}
	if bits&entryHasFlags != 0 {
		n += 4
	}
	return n
}

// recordMeta is the optional part of a record a write sets.
type recordMeta struct {
	cas      uint64 // 0: none yet (casOf assigns one when asked)
	expireAt int64  // unix ms; 0: none
	flags    uint32
}

// bits returns the entry bits that announce m's fields.
func (m recordMeta) bits() uint8 {
	var b uint8
	if m.cas != 0 {
		b |= entryHasCAS
	}
	if m.expireAt != 0 {
		b |= entryHasExpire
	}
	if m.flags != 0 {
		b |= entryHasFlags
	}
	return b
}

// recordLen is the length of a record for key and value with m.
func recordLen(keyLen, valueLen int, m recordMeta) int {
	return uvarintLen(keyLen) + uvarintLen(valueLen) + metaLen(m.bits()) + keyLen + valueLen
}

// record returns the bytes from the start of en's record (its length is
// in its header).
func (a *arena) record(en *entry) []byte {
	if en.bits&entryBig != 0 {
		return a.bigs[en.ref]
	}
	c := a.chunks[en.ref>>chunkShift]
	return c[en.ref&(chunkMax-1):]
}

// readUvarint decodes a record header field; one byte in the common case.
func readUvarint(b []byte) (int, int) {
	if b[0] < 0x80 {
		return int(b[0]), 1
	}
	v, n := binary.Uvarint(b)
	return int(v), n
}

// recordParts splits en's record into its header length (up to the
// optional fields), key and value. The slices cannot be appended to.
func (a *arena) recordParts(en *entry) (rec []byte, head int, key, value []byte) {
	rec = a.record(en)
	kl, n1 := readUvarint(rec)
	vl, n2 := readUvarint(rec[n1:])
	head = n1 + n2
	k := head + metaLen(en.bits)
	key = rec[k : k+kl : k+kl]
	value = rec[k+kl : k+kl+vl : k+kl+vl]
	return rec, head, key, value
}

// key returns en's key.
func (a *arena) key(en *entry) []byte {
	_, _, k, _ := a.recordParts(en)
	return k
}

// value returns en's stored value (compressed when en's codec says so).
func (a *arena) value(en *entry) []byte {
	_, _, _, v := a.recordParts(en)
	return v
}

// recordBytes is the length of en's record.
func (a *arena) recordBytes(en *entry) int { return recordLenAt(a.record(en), en.bits) }

// metaField returns the bytes of the optional field f (entryHasCAS or
// entryHasExpire, the fields that change in place) of en's record, or nil
// when it has none. The fields come in the order CAS, expiry, flags.
func (a *arena) metaField(en *entry, f uint8) []byte {
	if en.bits&f == 0 {
		return nil
	}
	rec, off, _, _ := a.recordParts(en)
	if f == entryHasExpire && en.bits&entryHasCAS != 0 {
		off += 8
	}
	return rec[off : off+8 : off+8]
}

// expireAt returns en's expiry (unix ms), 0 for none.
func (a *arena) expireAt(en *entry) int64 {
	if b := a.metaField(en, entryHasExpire); b != nil {
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// cas returns en's CAS unique, 0 when it has none yet (casOf assigns one).
func (a *arena) cas(en *entry) uint64 {
	if b := a.metaField(en, entryHasCAS); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// recordView is a record decoded at once: what a read of a whole key needs.
type recordView struct {
	key, value []byte
	recordMeta
}

// view decodes en's record with one pass over its header.
func (a *arena) view(en *entry) recordView {
	rec, off, key, value := a.recordParts(en)
	v := recordView{key: key, value: value}
	if en.bits&entryHasCAS != 0 {
		v.cas = binary.LittleEndian.Uint64(rec[off:])
		off += 8
	}
	if en.bits&entryHasExpire != 0 {
		v.expireAt = int64(binary.LittleEndian.Uint64(rec[off:]))
		off += 8
	}
	if en.bits&entryHasFlags != 0 {
		v.flags = binary.LittleEndian.Uint32(rec[off:])
	}
	return v
}

// meta returns en's optional fields.
func (a *arena) meta(en *entry) recordMeta { return a.view(en).recordMeta }

// isExpired reports whether en's time has passed.
func (a *arena) isExpired(en *entry, now int64) bool {
	// Redis's keyIsExpired: a key is still there in its expire millisecond.
	if en.bits&entryHasExpire == 0 {
		return false
	}
	at := a.expireAt(en)
	return at != 0 && now > at
}

// writeRecord gives en a new record for key, value and m, releasing the
// one it had (if any: ref is meaningful only when hadRecord). key and value
// may be slices of the old record.
func (s *shardData) writeRecord(en *entry, hadRecord bool, key, value []byte, m recordMeta) {
	if hadRecord && s.rewriteInPlace(en, key, value, m) {
		return
	}
	var hb [recordHeadMax]byte
	head := appendRecordHead(hb[:0], len(key), len(value), m)
	n := len(head) + len(key) + len(value)
	ref, buf, ok := s.allocChunk(n)
	big := !ok
	if ok {
		p := copy(buf, head)
		p += copy(buf[p:], key)
		copy(buf[p:], value)
	} else {
		// A record of its own, in one allocation that is not cleared
		// first: bytes.Join copies into memory it does not zero. A
		// make and three copies spent 11 % of a 20 KB SET's server time
		// clearing the buffer they then overwrote.
		ref = s.addBig(bytes.Join([][]byte{head, key, value}, nil))
	}
	if hadRecord {
		s.releaseRecord(en)
	}
	en.ref = ref
	en.bits = en.bits&^(entryBig|entryHasCAS|entryHasExpire|entryHasFlags|entryShared) | m.bits()
	if big {
		en.bits |= entryBig
	}
}

// rewriteInPlace overwrites en's record with value and m when the new
// record has the old one's layout (the same key and value lengths, the
// same optional fields) and nobody can be holding its bytes: no slice of
// the value was handed out since it was written (entryShared) and no
// snapshot is reading the shard. An overwrite of a value of the same size,
// the common SET, then writes no new record: no dead space to compact
// away, no garbage for the collector.
func (s *shardData) rewriteInPlace(en *entry, key, value []byte, m recordMeta) bool {
	if en.bits&entryShared != 0 || s.frozen || en.bits&(entryHasCAS|entryHasExpire|entryHasFlags) != m.bits() {
		return false
	}
	rec, off, oldKey, oldValue := s.recordParts(en)
	if len(oldKey) != len(key) || len(oldValue) != len(value) {
		return false
	}
	if m.cas != 0 {
		binary.LittleEndian.PutUint64(rec[off:], m.cas)
		off += 8
	}
	if m.expireAt != 0 {
		binary.LittleEndian.PutUint64(rec[off:], uint64(m.expireAt))
		off += 8
	}
	if m.flags != 0 {
		binary.LittleEndian.PutUint32(rec[off:], m.flags)
	}
	copy(oldValue, value) // the record's own bytes: value may be them already
	return true
}

// recordHeadMax is the longest record head: two uvarint lengths and
// every optional field.
const recordHeadMax = 2*binary.MaxVarintLen64 + 8 + 8 + 4

// appendRecordHead appends a record's head, up to its key: the lengths
// and m's fields.
func appendRecordHead(b []byte, keyLen, valueLen int, m recordMeta) []byte {
	b = binary.AppendUvarint(b, uint64(keyLen))
	b = binary.AppendUvarint(b, uint64(valueLen))
	if m.cas != 0 {
		b = binary.LittleEndian.AppendUint64(b, m.cas)
	}
	if m.expireAt != 0 {
		b = binary.LittleEndian.AppendUint64(b, uint64(m.expireAt))
	}
	if m.flags != 0 {
		b = binary.LittleEndian.AppendUint32(b, m.flags)
	}
	return b
}

// allocRecord reserves n bytes for a record: at the end of the arena's last
// chunk, in a new chunk, or in an allocation of its own.
func (s *shardData) allocRecord(n int) (ref uint32, buf []byte, big bool) {
	if ref, buf, ok := s.allocChunk(n); ok {
		return ref, buf, false
	}
	buf = make([]byte, n)
	return s.addBig(buf), buf, true
}

// allocChunk reserves n bytes for a record in the arena's chunks: at the
// end of the last one, or in a new one. ok is false for a record that
// must have an allocation of its own (bigMin bytes or more, or no chunk
// numbers left).
func (s *shardData) allocChunk(n int) (ref uint32, buf []byte, ok bool) {
	if n >= bigMin {
		return 0, nil, false
	}
	if k := len(s.chunks); k > 0 {
		last := s.chunks[k-1]
		if off := s.chunkFill; len(last)-off >= n {
			s.chunkFill += n
			s.arenaUsed += int64(n)
			s.account(int64(n))
			return uint32(k-1)<<chunkShift | uint32(off), last[off : off+n : off+n], true
		}
	}
	if len(s.chunks) >= chunkLimit {
		return 0, nil, false
	}
	// Chunks grow with the arena, so a small shard wastes little at its
	// last chunk's end and a large one makes few. A compaction knows what
	// it has left to copy and sizes its chunks to fit.
	size := chunkMin
	for size < chunkMax && (size < n || int64(size) < s.arenaUsed/8) {
		size <<= 1
	}
	if s.chunkWant > 0 {
		size = int(allocSize(int(min(chunkMax, max(int64(n), s.chunkWant-s.arenaUsed)))))
	}
	// Chunks are made at their full length, and their slice headers never
	// change: a snapshot shares s.chunks.
	c := make([]byte, size)
	s.chunks = append(s.chunks, c)
	s.chunkFill = n
	s.arenaCap += int64(size)
	s.arenaUsed += int64(n)
	s.account(int64(n))
	return uint32(len(s.chunks)-1) << chunkShift, c[:n:n], true
}

// addBig adds a record with an allocation of its own and returns its ref.
func (s *shardData) addBig(buf []byte) uint32 {
	var i uint32
	if k := len(s.bigFree); k > 0 {
		i = s.bigFree[k-1]
		s.bigFree = s.bigFree[:k-1]
		s.bigs[i] = buf
	} else {
		i = uint32(len(s.bigs))
		s.bigs = append(s.bigs, buf)
	}
	s.account(allocSize(len(buf)))
	return i
}

// releaseRecord drops en's record: a big one is freed, a chunk one becomes
// dead space. The caller points en at a new record or frees the slot.
func (s *shardData) releaseRecord(en *entry) {
	if en.bits&entryBig != 0 {
		s.account(-allocSize(len(s.bigs[en.ref])))
		s.bigs[en.ref] = nil
		s.bigFree = append(s.bigFree, en.ref)
		return
	}
	n := int64(s.recordBytes(en))
	s.addDead(n)
	s.account(-n)
}

// ArenaStats are the arenas' dead space and how often it was compacted.
type ArenaStats struct {
	DeadBytes   int64 // dead records awaiting compaction (the quick sum, as UsedMemory)
	Compactions int64 // shard compactions since start
}

// ArenaStats reads the arenas' counters.
func (e *Engine) ArenaStats() ArenaStats {
	return ArenaStats{DeadBytes: e.dead.Load(), Compactions: e.stats.compactions.Load()}
}

// addDead adds to the shard's and the engine's dead record bytes.
func (s *shardData) addDead(n int64) {
	s.dead += n
	if s.eng != nil {
		s.tally.dead = s.eng.spread(&s.eng.dead, s.tally.dead+n)
	}
}

// maybeCompact compacts the arena once dead space reaches 1/2^shift of it,
// and reports whether it did. Callers run it when the shard's entries are
// consistent again.
func (s *shardData) maybeCompact(shift uint) bool {
	if s.dead >= compactMinDead && s.dead<<shift >= s.arenaUsed {
		s.compact()
		return true
	}
	return false
}

// compact copies the live chunk records into fresh chunks. Old chunks are
// not written to: slices of them that readers or a snapshot hold stay valid.
func (s *shardData) compact() {
	if s.eng != nil {
		s.eng.stats.compactions.Add(1)
	}
	old, live := s.chunks, s.arenaUsed-s.dead
	s.account(-live) // counted again as the records are copied
	s.addDead(-s.dead)
	s.chunks, s.chunkFill, s.arenaCap, s.arenaUsed = nil, 0, 0, 0
	s.chunkWant = live
	defer func() { s.chunkWant = 0 }()
	for i := range s.entries {
		en := &s.entries[i]
		if en.typ == TypeNone || en.bits&entryBig != 0 {
			continue
		}
		c := old[en.ref>>chunkShift]
		rec := c[en.ref&(chunkMax-1):]
		n := recordLenAt(rec, en.bits)
		ref, buf, big := s.allocRecord(n)
		copy(buf, rec[:n])
		en.ref = ref
		en.bits &^= entryShared // the copy has not been handed out
		if big {
			en.bits |= entryBig
		}
	}
}

// recordLenAt is the length of the record at the start of rec.
func recordLenAt(rec []byte, bits uint8) int {
	kl, n1 := readUvarint(rec)
	vl, n2 := readUvarint(rec[n1:])
	return n1 + n2 + metaLen(bits) + kl + vl
}

// keyMemory is what one key costs apart from an aggregate's elements: its
// record, its entry and its share of the index.
func (s *shardData) keyMemory(en *entry) int64 {
	n := int64(s.recordBytes(en))
	if en.bits&entryBig != 0 {
		n = allocSize(int(n))
	}
	return n + entrySize + bucketSize/2
}
