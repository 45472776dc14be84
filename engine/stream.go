package engine

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"unsafe"
)

// Streams (Redis XADD, XRANGE, XREAD, consumer groups…).
//
// A stream is a sorted slice of blocks; a block holds consecutive entries
// packed in one byte buffer, after a master field list taken from the
// block's first entry, so that entries with the master's fields (the
// common case: every entry of a stream has the same fields) store only
// their values. This is Redis's radix tree of listpacks in Go: the GC sees
// one pointer per block (up to stream-node-max-entries entries), not one
// per entry or value, and a block is found by binary search on its first
// ID (its master ID), as Redis finds a listpack by its rax key.
//
// A block's buffer:
//
//	uvarint master field count | master fields |
//	entry: flags (1 byte) | uvarint ms - master ms | uvarint seq - master seq (mod 2^64) |
//	       [uvarint field count | field value ...]  (when not SAMEFIELDS)
//	       [value ...]                             (when SAMEFIELDS)
//
// each field and value being uvarint length | bytes. Deletion (XDEL, an
// exact trim inside a block) sets the entry's DELETED flag, as Redis
// does, and a block whose last live entry goes is dropped. Blocks split
// where Redis's listpacks do: a new block starts when the last one has
// stream-node-max-entries entries (live and deleted) or when Redis's
// listpack would reach stream-node-max-bytes; each block keeps the size
// Redis's listpack would have (lpRest, stream_lp.go) for that. So XTRIM ~
// removes the same whole blocks, and XINFO STREAM counts the same nodes,
// as redis-server for the same commands.
//
// Consumer groups (stream_group.go) sit beside the blocks. Unlike other
// aggregates, a stream is not deleted when it has no entries: length()
// reports 1 for any stream, so the generic code keeps the key.

// StreamID is an entry ID, ms-seq.
type StreamID struct{ Ms, Seq uint64 }

// MaxStreamID is the largest ID ("+").
var MaxStreamID = StreamID{math.MaxUint64, math.MaxUint64}

// Cmp orders IDs: -1, 0 or 1.
func (a StreamID) Cmp(b StreamID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// IsZero reports whether a is 0-0.
func (a StreamID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Next returns the ID after a; ok is false when a is the largest ID
// (then 0-0 is returned, as Redis's streamIncrID).
func (a StreamID) Next() (StreamID, bool) {
	switch {
	case a.Seq != math.MaxUint64:
		return StreamID{a.Ms, a.Seq + 1}, true
	case a.Ms != math.MaxUint64:
		return StreamID{a.Ms + 1, 0}, true
	}
	return StreamID{}, false
}

// Prev returns the ID before a; ok is false when a is 0-0.
func (a StreamID) Prev() (StreamID, bool) {
	switch {
	case a.Seq != 0:
		return StreamID{a.Ms, a.Seq - 1}, true
	case a.Ms != 0:
		return StreamID{a.Ms - 1, math.MaxUint64}, true
	}
	return MaxStreamID, false
}

// AppendTo appends "ms-seq".
func (a StreamID) AppendTo(b []byte) []byte {
	b = strconv.AppendUint(b, a.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, a.Seq, 10)
}

// String is "ms-seq".
func (a StreamID) String() string { return string(a.AppendTo(nil)) }

// StreamEntry is one entry: its ID and its field, value pairs, flat.
// What a visitor gets aliases the stream and is valid during the call
// only; results meant to outlive the lock are copies.
type StreamEntry struct {
	ID     StreamID
	Fields [][]byte // field, value, field, value…; nil for a missing entry (a PEL's history)
}

// Entry flags, Redis's STREAM_ITEM_FLAG_*.
const (
	sflagDeleted    = 1 << 0
	sflagSameFields = 1 << 1
)

type streamBlock struct {
	master    StreamID
	last      StreamID // the last entry's ID, deleted or not
	buf       []byte
	entriesAt uint32 // where the first entry starts in buf
	live      uint32 // entries not deleted (Redis's count)
	dead      uint32 // entries marked deleted
	// lpRest is the size of the listpack Redis would hold for the block,
	// less its header, terminator and count and deleted fields.
	lpRest int64
}

type stream struct {
	blocks       []streamBlock
	count        uint64 // live entries (XLEN)
	lastID       StreamID
	firstID      StreamID // the first live entry; 0-0 when empty
	maxDeleted   StreamID
	entriesAdded uint64
	groups       []*streamGroup // by name
	bufMem       int64          // allocated bytes of the blocks' buffers
	groupMem     int64          // what the groups hold (stream_group.go)
}

var (
	streamBlockBytes  = int64(unsafe.Sizeof(streamBlock{}))
	streamHeaderBytes = allocSize(int(unsafe.Sizeof(stream{})))
)

// EncStream is a stream's OBJECT ENCODING.
const EncStream Encoding = 40

func init() { aggEncodingNames[EncStream] = "stream" }

func newStream() aggregate { return &stream{} }

// length is 1: an empty stream is still a key (see above).
func (s *stream) length() int        { return 1 }
func (s *stream) encoding() Encoding { return EncStream }
func (s *stream) memSize() int64 {
	return streamHeaderBytes + allocSize(cap(s.blocks)*int(streamBlockBytes)) + s.bufMem + s.groupMem
}

func (s *stream) clone() aggregate {
	c := *s
	c.blocks = make([]streamBlock, len(s.blocks))
	c.bufMem = 0
	for i, b := range s.blocks {
		nb := b
		nb.buf = make([]byte, len(b.buf), int(allocSize(len(b.buf))))
		copy(nb.buf, b.buf)
		c.bufMem += int64(cap(nb.buf))
		c.blocks[i] = nb
	}
	c.groups = nil
	for _, g := range s.groups {
		c.groups = append(c.groups, g.clone())
	}
	c.groupMem = c.computeGroupMem()
	return &c
}

// --- packing ---

func putStr(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func getStr(b []byte, off int) ([]byte, int) {
	n, k := readUvarint(b[off:])
	s := off + k
	return b[s : s+n : s+n], s + n
}

func getUvarint(b []byte, off int) (uint64, int) {
	if b[off] < 0x80 {
		return uint64(b[off]), off + 1
	}
	v, k := binary.Uvarint(b[off:])
	return v, off + k
}

// masterFields returns the block's master fields, appended to dst.
func (b *streamBlock) masterFields(dst [][]byte) [][]byte {
	n, off := getUvarint(b.buf, 0)
	for i := uint64(0); i < n; i++ {
		var f []byte
		f, off = getStr(b.buf, off)
		dst = append(dst, f)
	}
	return dst
}

// rawEntry is an entry decoded in place.
type rawEntry struct {
	flags byte
	id    StreamID
	off   int      // where the entry starts
	next  int      // where the next one starts
	kv    [][]byte // field, value pairs; aliases the block
}

// decode reads the entry at off; master holds the block's master fields.
func (b *streamBlock) decode(off int, master [][]byte, e *rawEntry, withFields bool) {
	buf := b.buf
	e.off = off
	e.flags = buf[off]
	off++
	var dms, dseq uint64
	dms, off = getUvarint(buf, off)
	dseq, off = getUvarint(buf, off)
	e.id = StreamID{b.master.Ms + dms, b.master.Seq + dseq}
	e.kv = e.kv[:0]
	if e.flags&sflagSameFields != 0 {
		for _, f := range master {
			var v []byte
			if withFields {
				v, off = getStr(buf, off)
				e.kv = append(e.kv, f, v)
			} else {
				_, off = getStr(buf, off)
			}
		}
	} else {
		var n uint64
		n, off = getUvarint(buf, off)
		for i := uint64(0); i < 2*n; i++ {
			var v []byte
			v, off = getStr(buf, off)
			if withFields {
				e.kv = append(e.kv, v)
			}
		}
	}
	e.next = off
}

// offsets returns where each of the block's entries starts.
func (b *streamBlock) offsets(dst []int, master [][]byte) []int {
	var e rawEntry
	for off := int(b.entriesAt); off < len(b.buf); off = e.next {
		b.decode(off, master, &e, false)
		dst = append(dst, off)
	}
	return dst
}

// lpBytes is the size of Redis's listpack for the block.
func (b *streamBlock) lpBytes() int64 {
	return lpOverhead + b.lpRest + lpIntElemSize(int64(b.live)) + lpIntElemSize(int64(b.dead))
}

// growBuf makes room for n more bytes in the block's buffer, with a
// quarter of slack; the block that is being appended to is the only one
// that has any (it is cut to fit when the next block starts).
func (s *stream) growBuf(b *streamBlock, n int) {
	need := len(b.buf) + n
	if need <= cap(b.buf) {
		return
	}
	nb := make([]byte, len(b.buf), int(allocSize(need+need/4)))
	copy(nb, b.buf)
	s.bufMem += int64(cap(nb) - cap(b.buf))
	b.buf = nb
}

// shrinkBuf cuts a block's buffer to fit.
func (s *stream) shrinkBuf(b *streamBlock) {
	if want := int(allocSize(len(b.buf))); cap(b.buf) > want {
		nb := make([]byte, len(b.buf), want)
		copy(nb, b.buf)
		s.bufMem += int64(cap(nb) - cap(b.buf))
		b.buf = nb
	}
}

// StreamLimits are stream-node-max-bytes and stream-node-max-entries.
type StreamLimits struct {
	NodeMaxBytes   int64 // 0: no limit (but Redis's 1 GB)
	NodeMaxEntries int64 // 0: no limit
}

// streamLPMaxSize is Redis's STREAM_LISTPACK_MAX_SIZE.
const streamLPMaxSize = 1 << 30

// appendEntry adds an entry with an ID above lastID. kv holds field,
// value pairs.
func (s *stream) appendEntry(id StreamID, kv [][]byte, lim StreamLimits) {
	var totLen int64
	for _, v := range kv {
		totLen += int64(len(v))
	}
	nf := len(kv) / 2
	var b *streamBlock
	if n := len(s.blocks); n > 0 {
		b = &s.blocks[n-1]
		maxBytes := lim.NodeMaxBytes
		if maxBytes <= 0 || maxBytes > streamLPMaxSize {
			maxBytes = streamLPMaxSize
		}
		if b.lpBytes()+totLen >= maxBytes || lim.NodeMaxEntries > 0 && int64(b.live+b.dead) >= lim.NodeMaxEntries {
			s.shrinkBuf(b)
			b = nil
		}
	}
	same := false
	if b == nil {
		b = s.newBlock(id, kv, 2)
		same = true
	} else {
		n, off := getUvarint(b.buf, 0)
		if int(n) == nf {
			same = true
			for i := 0; i < nf; i++ {
				var f []byte
				f, off = getStr(b.buf, off)
				if string(f) != string(kv[2*i]) {
					same = false
					break
				}
			}
		}
	}
	s.encodeEntry(b, id, kv, same, false)
	s.count++
	s.entriesAdded++
	s.lastID = id
	if s.count == 1 {
		s.firstID = id
	}
}

// encodeEntry appends an entry to block b (same: it has the master's
// fields; deleted: a tombstone, as a snapshot may hold).
func (s *stream) encodeEntry(b *streamBlock, id StreamID, kv [][]byte, same, deleted bool) {
	nf := len(kv) / 2
	dms, dseq := id.Ms-b.master.Ms, id.Seq-b.master.Seq
	size := 1 + uvarintLen64(dms) + uvarintLen64(dseq)
	flags := byte(0)
	if deleted {
		flags = sflagDeleted
	}
	lpCount := int64(nf + 3)
	rest := lpIntElemSize(int64(dms)) + lpIntElemSize(int64(dseq))
	if same {
		flags |= sflagSameFields
		for i := 0; i < nf; i++ {
			v := kv[2*i+1]
			size += uvarintLen(len(v)) + len(v)
			rest += lpStrElemSize(v)
		}
	} else {
		size += uvarintLen(nf)
		lpCount += int64(nf + 1)
		rest += lpIntElemSize(int64(nf))
		for _, v := range kv {
			size += uvarintLen(len(v)) + len(v)
			rest += lpStrElemSize(v)
		}
	}
	rest += lpIntElemSize(int64(flags)) + lpIntElemSize(lpCount)
	s.growBuf(b, size)
	b.buf = append(b.buf, flags)
	b.buf = binary.AppendUvarint(b.buf, dms)
	b.buf = binary.AppendUvarint(b.buf, dseq)
	if same {
		for i := 0; i < nf; i++ {
			b.buf = putStr(b.buf, kv[2*i+1])
		}
	} else {
		b.buf = binary.AppendUvarint(b.buf, uint64(nf))
		for _, v := range kv {
			b.buf = putStr(b.buf, v)
		}
	}
	b.lpRest += rest
	if deleted {
		b.dead++
	} else {
		b.live++
	}
	b.last = id
}

// newBlock starts a block at master ID id whose master fields are every
// step-th of fields (2: the fields of field, value pairs; 1: a list of
// fields).
func (s *stream) newBlock(id StreamID, fields [][]byte, step int) *streamBlock {
	if len(s.blocks) == cap(s.blocks) {
		nbl := make([]streamBlock, len(s.blocks), max(4, cap(s.blocks)+cap(s.blocks)/2))
		copy(nbl, s.blocks)
		s.blocks = nbl
	}
	s.blocks = append(s.blocks, streamBlock{master: id})
	b := &s.blocks[len(s.blocks)-1]
	nf := len(fields) / step
	size := uvarintLen(nf)
	for i := 0; i < nf; i++ {
		size += uvarintLen(len(fields[step*i])) + len(fields[step*i])
	}
	s.growBuf(b, size)
	b.buf = binary.AppendUvarint(b.buf, uint64(nf))
	b.lpRest = lpIntElemSize(int64(nf)) + lpIntElemSize(0) // num-fields, the master terminator
	for i := 0; i < nf; i++ {
		b.buf = putStr(b.buf, fields[step*i])
		b.lpRest += lpStrElemSize(fields[step*i])
	}
	b.entriesAt = uint32(len(b.buf))
	return b
}

func uvarintLen64(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// blockFor returns the index of the block that would hold id: the last
// whose master ID is <= id (0 when none is).
func (s *stream) blockFor(id StreamID) int {
	i, _ := slices.BinarySearchFunc(s.blocks, id, func(b streamBlock, id StreamID) int {
		if b.master.Cmp(id) <= 0 {
			return -1
		}
		return 1
	})
	return max(i-1, 0)
}

// streamIter walks live entries between two IDs, inclusive, forwards or
// backwards.
type streamIter struct {
	s          *stream
	start, end StreamID
	rev        bool
	withTomb   bool // also yields deleted entries
	bi         int  // current block
	master     [][]byte
	offs       []int // backwards: the current block's entry offsets
	oi         int
	off        int // forwards: the next entry's offset
	e          rawEntry
	done       bool
}

func (s *stream) iter(start, end StreamID, rev bool) *streamIter {
	it := &streamIter{s: s, start: start, end: end, rev: rev}
	it.reset()
	return it
}

func (it *streamIter) reset() {
	s := it.s
	it.done = len(s.blocks) == 0 || it.start.Cmp(it.end) > 0
	if it.done {
		return
	}
	if it.rev {
		it.bi = s.blockFor(it.end)
	} else {
		it.bi = s.blockFor(it.start)
	}
	it.enter()
}

// enter prepares the walk of block bi.
func (it *streamIter) enter() {
	b := &it.s.blocks[it.bi]
	it.master = b.masterFields(it.master[:0])
	if it.rev {
		it.offs = b.offsets(it.offs[:0], it.master)
		it.oi = len(it.offs) - 1
	} else {
		it.off = int(b.entriesAt)
	}
}

// next advances to the next entry in range; false at the end. The entry
// is it.e.
func (it *streamIter) next(withFields bool) bool {
	s := it.s
	for !it.done {
		b := &s.blocks[it.bi]
		if it.rev {
			if it.oi < 0 {
				if it.bi == 0 || b.master.Cmp(it.start) <= 0 {
					it.done = true
					return false
				}
				it.bi--
				it.enter()
				continue
			}
			b.decode(it.offs[it.oi], it.master, &it.e, withFields)
			it.oi--
			if it.e.id.Cmp(it.end) > 0 {
				continue
			}
			if it.e.id.Cmp(it.start) < 0 {
				it.done = true
				return false
			}
		} else {
			if it.off >= len(b.buf) {
				if it.bi+1 >= len(s.blocks) {
					it.done = true
					return false
				}
				it.bi++
				if s.blocks[it.bi].master.Cmp(it.end) > 0 {
					it.done = true
					return false
				}
				it.enter()
				continue
			}
			b.decode(it.off, it.master, &it.e, withFields)
			it.off = it.e.next
			if it.e.id.Cmp(it.start) < 0 {
				continue
			}
			if it.e.id.Cmp(it.end) > 0 {
				it.done = true
				return false
			}
		}
		if it.e.flags&sflagDeleted != 0 && !it.withTomb {
			continue
		}
		return true
	}
	return false
}

// markDeleted flags the iterator's current entry deleted, dropping its
// block when that was the block's last live entry. The iterator must be
// reset (or dropped) after it.
func (s *stream) markDeleted(bi int, off int) {
	b := &s.blocks[bi]
	if b.live == 1 {
		s.bufMem -= int64(cap(b.buf))
		s.blocks = slices.Delete(s.blocks, bi, bi+1)
	} else {
		b.buf[off] |= sflagDeleted
		b.live--
		b.dead++
	}
	s.count--
}

// edgeID returns the first (or last) live entry's ID, and false when
// there is none.
func (s *stream) edgeID(last bool) (StreamID, bool) {
	it := s.iter(StreamID{}, MaxStreamID, last)
	if it.next(false) {
		return it.e.id, true
	}
	return StreamID{}, false
}

// refreshFirst recomputes firstID after deletions.
func (s *stream) refreshFirst() {
	if s.count == 0 {
		s.firstID = StreamID{}
		return
	}
	s.firstID, _ = s.edgeID(false)
}

// deleteID removes the live entry id; false when there is none.
func (s *stream) deleteID(id StreamID) bool {
	it := s.iter(id, id, false)
	if !it.next(false) {
		return false
	}
	s.markDeleted(it.bi, it.e.off)
	return true
}

// get returns the live entry id's fields (aliasing the stream).
func (s *stream) get(id StreamID, dst [][]byte) ([][]byte, bool) {
	it := s.iter(id, id, false)
	it.e.kv = dst
	if !it.next(true) {
		return nil, false
	}
	return it.e.kv, true
}

// Trim strategies (XADD and XTRIM's MAXLEN and MINID).
type TrimStrategy uint8

const (
	TrimNone TrimStrategy = iota
	TrimMaxLen
	TrimMinID
)

// StreamTrim is XADD's and XTRIM's trimming: by MAXLEN or MINID, exact
// or approximate (~: whole blocks only), with LIMIT (0: none) on the
// entries removed.
type StreamTrim struct {
	Strategy TrimStrategy
	Approx   bool
	Limit    int64
	MaxLen   int64
	MinID    StreamID
}

// trim removes entries from the head as t says and returns how many.
func (s *stream) trim(t StreamTrim) int64 {
	if t.Strategy == TrimNone {
		return 0
	}
	maxLen := uint64(t.MaxLen)
	var deleted int64
	for len(s.blocks) > 0 {
		if t.Strategy == TrimMaxLen && s.count <= maxLen {
			break
		}
		b := &s.blocks[0]
		entries := int64(b.live)
		if t.Limit != 0 && deleted+entries > t.Limit {
			break
		}
		var whole bool
		if t.Strategy == TrimMaxLen {
			whole = s.count-uint64(entries) >= maxLen
		} else {
			whole = b.last.Cmp(t.MinID) < 0
		}
		if whole {
			s.bufMem -= int64(cap(b.buf))
			s.blocks = slices.Delete(s.blocks, 0, 1)
			s.count -= uint64(entries)
			deleted += entries
			continue
		}
		if t.Approx {
			break
		}
		master := b.masterFields(nil)
		var e rawEntry
		for off := int(b.entriesAt); off < len(b.buf); off = e.next {
			b.decode(off, master, &e, false)
			if t.Strategy == TrimMaxLen && s.count <= maxLen || t.Strategy == TrimMinID && e.id.Cmp(t.MinID) >= 0 {
				break
			}
			if e.flags&sflagDeleted == 0 {
				b.buf[off] |= sflagDeleted
				b.live--
				b.dead++
				s.count--
				deleted++
			}
		}
		break
	}
	if s.count == 0 {
		s.firstID = StreamID{}
	} else if deleted > 0 {
		s.refreshFirst()
	}
	return deleted
}
