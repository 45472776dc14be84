package engine

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"unsafe"

	"github.com/tandemkv/tandem/internal/num"
)

// Sets (SADD, SMEMBERS, SINTER, …), held as redis-server 7.0 holds them so
// that OBJECT ENCODING, and every reply whose order Redis fixes, match:
//
//   - an intset while every member is an integer (string2ll round-trips it)
//     and there are at most set-max-intset-entries: sorted, 2, 4 or 8 bytes
//     a member; SMEMBERS of an intset is ascending.
//   - a hashtable otherwise. Conversion is one-way, checked only when a
//     member is added, as in Redis (lowering the threshold converts
//     nothing until the next successful add).
//
// Redis 7.0 has no listpack sets (they arrived in 7.2), so neither does
// Tandem. The hashtable is pointer-free (see memberTable), so a set with a
// million members is two allocations the GC never scans.

// SetLimits are the set encoding thresholds. The front-end reads them from
// its configuration per command, so CONFIG SET takes effect at once.
type SetLimits struct {
	// MaxIntsetEntries is set-max-intset-entries: an intset that grows
	// beyond it becomes a hashtable.
	MaxIntsetEntries int
}

// MemberSink receives the members of a reply, under the shard locks: a
// member's bytes are valid only during the call and must be copied (or
// written out) before it returns. An intset member comes as its integer.
type MemberSink interface {
	Member(m []byte)
	IntMember(v int64)
}

// SetOp is the operation of SCombine and SCombineStore.
type SetOp uint8

// Set operations.
const (
	SetUnion SetOp = iota
	SetInter
	SetDiff
)

// setValue is a set: an intset until ht is set.
type setValue struct {
	ints intset
	ht   *memberTable
}

var (
	setValueSize    = allocSize(int(unsafe.Sizeof(setValue{})))
	memberTableSize = allocSize(int(unsafe.Sizeof(memberTable{})))
)

func newSetValue() aggregate { return &setValue{} }

func (s *setValue) memSize() int64 {
	n := setValueSize + allocSize(cap(s.ints.data))
	if s.ht != nil {
		n += memberTableSize + allocSize(8*cap(s.ht.slots)) + allocSize(cap(s.ht.arena))
	}
	return n
}

func (s *setValue) length() int {
	if s.ht != nil {
		return s.ht.count
	}
	return s.ints.len()
}

func (s *setValue) encoding() Encoding {
	if s.ht != nil {
		return EncHashtable
	}
	return EncIntset
}

func (s *setValue) clone() aggregate {
	c := &setValue{ints: intset{width: s.ints.width, data: slices.Clone(s.ints.data)}}
	if s.ht != nil {
		t := *s.ht
		t.slots = slices.Clone(t.slots)
		t.arena = slices.Clone(t.arena)
		c.ht = &t
	}
	return c
}

// add adds m and reports whether it was new (Redis's setTypeAdd).
func (s *setValue) add(m []byte, lim SetLimits) bool {
	if s.ht == nil {
		if v, ok := num.ParseInt(m); ok {
			return s.addIntToIntset(v, lim)
		}
		s.toTable()
	}
	return s.ht.add(m, setMemberHash(m))
}

// addInt adds the member whose text is v's decimal form.
func (s *setValue) addInt(v int64, lim SetLimits) bool {
	if s.ht == nil {
		return s.addIntToIntset(v, lim)
	}
	var tmp [20]byte
	m := strconv.AppendInt(tmp[:0], v, 10)
	return s.ht.add(m, setMemberHash(m))
}

func (s *setValue) addIntToIntset(v int64, lim SetLimits) bool {
	if !s.ints.add(v) {
		return false
	}
	if s.ints.len() > lim.MaxIntsetEntries {
		s.toTable()
	}
	return true
}

// toTable converts an intset to a hashtable.
func (s *setValue) toTable() {
	n := s.ints.len()
	t := newMemberTable(n, n*8)
	var tmp [20]byte
	for i := 0; i < n; i++ {
		m := strconv.AppendInt(tmp[:0], s.ints.at(i), 10)
		t.add(m, setMemberHash(m))
	}
	s.ht = t
	s.ints = intset{}
}

func (s *setValue) contains(m []byte) bool {
	if s.ht != nil {
		return s.ht.find(m, setMemberHash(m)) >= 0
	}
	v, ok := num.ParseInt(m)
	return ok && s.ints.contains(v)
}

func (s *setValue) containsInt(v int64) bool {
	if s.ht == nil {
		return s.ints.contains(v)
	}
	var tmp [20]byte
	m := strconv.AppendInt(tmp[:0], v, 10)
	return s.ht.find(m, setMemberHash(m)) >= 0
}

func (s *setValue) remove(m []byte) bool {
	if s.ht != nil {
		return s.ht.remove(m, setMemberHash(m))
	}
	v, ok := num.ParseInt(m)
	return ok && s.ints.remove(v)
}

// Positions: members are addressed by position, an intset index or a
// hashtable slot, valid until the set changes. first/next walk them in the
// set's iteration order (ascending for an intset).

func (s *setValue) first() int { return s.next(0) }

func (s *setValue) next(pos int) int {
	if s.ht != nil {
		return s.ht.next(pos)
	}
	if pos < s.ints.len() {
		return pos
	}
	return -1
}

// randomPos returns the position of a uniformly chosen member of a
// non-empty set.
func (s *setValue) randomPos() int {
	if s.ht != nil {
		return s.ht.randomSlot()
	}
	return rand.IntN(s.ints.len())
}

// memberAt returns the member at pos; an intset member is formatted into
// scratch.
func (s *setValue) memberAt(pos int, scratch []byte) []byte {
	if s.ht != nil {
		return s.ht.memberAtSlot(pos)
	}
	return strconv.AppendInt(scratch[:0], s.ints.at(pos), 10)
}

// emitAt sends the member at pos to out.
func (s *setValue) emitAt(pos int, out MemberSink) {
	if s.ht != nil {
		out.Member(s.ht.memberAtSlot(pos))
		return
	}
	out.IntMember(s.ints.at(pos))
}

// addFrom adds the member of src at pos.
func (s *setValue) addFrom(src *setValue, pos int, lim SetLimits) bool {
	if src.ht == nil {
		return s.addInt(src.ints.at(pos), lim)
	}
	return s.add(src.ht.memberAtSlot(pos), lim)
}

// removeFrom removes the member of src at pos from s.
func (s *setValue) removeFrom(src *setValue, pos int) bool {
	if src.ht == nil {
		v := src.ints.at(pos)
		if s.ht == nil {
			return s.ints.remove(v)
		}
		var tmp [20]byte
		m := strconv.AppendInt(tmp[:0], v, 10)
		return s.ht.remove(m, setMemberHash(m))
	}
	return s.remove(src.ht.memberAtSlot(pos))
}

// hasFrom reports whether s holds the member of src at pos.
func (s *setValue) hasFrom(src *setValue, pos int) bool {
	if src.ht == nil {
		return s.containsInt(src.ints.at(pos))
	}
	return s.contains(src.ht.memberAtSlot(pos))
}

// removeAt removes the member at pos.
func (s *setValue) removeAt(pos int) {
	if s.ht != nil {
		s.ht.removeSlot(pos)
		return
	}
	s.ints.removeAt(pos)
}

// emitAll sends every member to out in iteration order. A hashtable with
// no dead arena bytes is read in arena order instead of slot order: the
// same members, read sequentially (a hashtable's order is arbitrary
// anyway), which is several times faster on a large set.
func (s *setValue) emitAll(out MemberSink) int {
	if t := s.ht; t != nil && t.dead == 0 {
		for r := 0; r < len(t.arena); {
			n, w := binary.Uvarint(t.arena[r:])
			end := r + w + int(n)
			out.Member(t.arena[r+w : end : end])
			r = end
		}
		return t.count
	}
	n := 0
	for p := s.first(); p >= 0; p = s.next(p + 1) {
		s.emitAt(p, out)
		n++
	}
	return n
}

// rebuilt returns a copy built as Redis builds a result set (an intset
// that converts as members are added), so its encoding is what Redis's
// would be: intset iff every member is an integer and they fit.
func (s *setValue) rebuilt(lim SetLimits) *setValue {
	r := &setValue{}
	for p := s.first(); p >= 0; p = s.next(p + 1) {
		r.addFrom(s, p, lim)
	}
	return r
}

// intset is Redis's intset: members sorted ascending, each in width bytes
// (2, 4 or 8, little-endian), the width growing when a member needs it.
type intset struct {
	data  []byte
	width uint8
}

func (is *intset) len() int {
	if is.width == 0 {
		return 0
	}
	return len(is.data) / int(is.width)
}

func (is *intset) at(i int) int64 { return intsetGet(is.data, int(is.width), i) }

func intsetGet(data []byte, w, i int) int64 {
	switch w {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(data[2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(data[8*i:]))
}

func intsetPut(data []byte, w, i int, v int64) {
	switch w {
	case 2:
		binary.LittleEndian.PutUint16(data[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(data[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(data[8*i:], uint64(v))
	}
}

// intsetWidth is the width an intset needs to hold v.
func intsetWidth(v int64) uint8 {
	switch {
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 2
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 4
	}
	return 8
}

// search returns v's index, or where it would be inserted.
func (is *intset) search(v int64) (int, bool) {
	lo, hi := 0, is.len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		x := is.at(mid)
		switch {
		case x < v:
			lo = mid + 1
		case x > v:
			hi = mid
		default:
			return mid, true
		}
	}
	return lo, false
}

func (is *intset) contains(v int64) bool {
	if is.width == 0 || intsetWidth(v) > is.width {
		return false
	}
	_, ok := is.search(v)
	return ok
}

func (is *intset) add(v int64) bool {
	if need := intsetWidth(v); need > is.width {
		is.upgrade(need)
	}
	i, found := is.search(v)
	if found {
		return false
	}
	w := int(is.width)
	n := len(is.data)
	is.data = slices.Grow(is.data, w)[:n+w]
	copy(is.data[(i+1)*w:], is.data[i*w:n])
	intsetPut(is.data, w, i, v)
	return true
}

// upgrade rewrites the members in a wider width.
func (is *intset) upgrade(w uint8) {
	n := is.len()
	data := make([]byte, n*int(w), (n+1)*int(w))
	for i := 0; i < n; i++ {
		intsetPut(data, int(w), i, is.at(i))
	}
	is.data, is.width = data, w
}

func (is *intset) remove(v int64) bool {
	if is.width == 0 || intsetWidth(v) > is.width {
		return false
	}
	i, found := is.search(v)
	if !found {
		return false
	}
	is.removeAt(i)
	return true
}

func (is *intset) removeAt(i int) {
	w := int(is.width)
	is.data = append(is.data[:i*w], is.data[(i+1)*w:]...)
	// Give back memory once most of it is unused, as Redis's realloc does.
	if c := cap(is.data); c >= 64 && len(is.data) < c/4 {
		is.data = slices.Clip(slices.Clone(is.data))
	}
}

// memberTable is the hashtable encoding: open addressing with linear
// probing over slots that hold no pointers. A slot is 0 when empty, else
// the member's 28-bit hash in the high bits and its arena offset+1 in the
// low 36. Members live in one arena, each as a uvarint length and its
// bytes. A slot's home is the hash's top bits, so slots are (cyclically)
// in hash order: SSCAN's cursor is a position in hash space and survives
// any resize. Deletion shifts the probe run back (no tombstones); the
// arena is compacted once half of it is dead.
type memberTable struct {
	slots []uint64
	arena []byte
	count int
	dead  int   // arena bytes of removed members
	bits  uint8 // len(slots) == 1<<bits
}

const (
	mtHashBits = 28
	mtOffBits  = 64 - mtHashBits
	mtOffMask  = 1<<mtOffBits - 1
	mtMinBits  = 3
)

// setMemberSeed keys the member hash; fixed for the process so that clones
// and copies keep valid slots.
var setMemberSeed = maphash.MakeSeed()

func setMemberHash(m []byte) uint32 {
	return uint32(maphash.Bytes(setMemberSeed, m) >> (64 - mtHashBits))
}

// memberTableBits is the table size for n members at a load of at most 3/4.
func memberTableBits(n int) uint8 {
	b := uint8(mtMinBits)
	for b < mtHashBits && n > (3<<b)/4 {
		b++
	}
	return b
}

func newMemberTable(n, arenaBytes int) *memberTable {
	b := memberTableBits(n)
	return &memberTable{slots: make([]uint64, 1<<b), arena: make([]byte, 0, arenaBytes), bits: b}
}

func (t *memberTable) home(h uint32) int { return int(h >> (mtHashBits - t.bits)) }

func mtSlotHash(s uint64) uint32 { return uint32(s >> mtOffBits) }

func (t *memberTable) memberAtOff(off int) []byte {
	n, w := binary.Uvarint(t.arena[off:])
	return t.arena[off+w : off+w+int(n) : off+w+int(n)]
}

func (t *memberTable) memberAtSlot(i int) []byte {
	return t.memberAtOff(int(t.slots[i]&mtOffMask) - 1)
}

// probe returns m's slot, or the empty slot where it would go (found false).
func (t *memberTable) probe(m []byte, h uint32) (int, bool) {
	mask := len(t.slots) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return i, false
		}
		if mtSlotHash(s) == h && bytes.Equal(t.memberAtSlot(i), m) {
			return i, true
		}
	}
}

func (t *memberTable) find(m []byte, h uint32) int {
	if i, ok := t.probe(m, h); ok {
		return i
	}
	return -1
}

// add inserts m unless present. It grows the table only for a new member,
// so that adding a present one changes nothing (not even memory).
func (t *memberTable) add(m []byte, h uint32) bool {
	i, found := t.probe(m, h)
	if found {
		return false
	}
	if t.count+1 > (3*len(t.slots))/4 && t.bits < mtHashBits {
		t.rebuild(t.bits+1, false)
		i, _ = t.probe(m, h)
	}
	if t.count+2 > len(t.slots) {
		panic("engine: set exceeds the hashtable's capacity")
	}
	off := len(t.arena)
	if off+binary.MaxVarintLen64+len(m) >= mtOffMask {
		panic("engine: set members exceed the hashtable's arena")
	}
	t.arena = binary.AppendUvarint(t.arena, uint64(len(m)))
	t.arena = append(t.arena, m...)
	t.slots[i] = uint64(h)<<mtOffBits | uint64(off+1)
	t.count++
	return true
}

func (t *memberTable) remove(m []byte, h uint32) bool {
	i, found := t.probe(m, h)
	if !found {
		return false
	}
	t.removeSlot(i)
	return true
}

// removeSlot deletes the member in slot i, shifting later members of its
// probe run back so that lookups need no tombstones.
func (t *memberTable) removeSlot(i int) {
	m := t.memberAtSlot(i)
	t.dead += setVarintLen(len(m)) + len(m)
	t.count--
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s == 0 {
			break
		}
		k := t.home(mtSlotHash(s))
		// The member at j may move to i unless its home lies cyclically
		// in (i, j].
		if (i <= j && i < k && k <= j) || (i > j && (k > i || k <= j)) {
			continue
		}
		t.slots[i] = s
		i = j
	}
	t.slots[i] = 0
	switch {
	case t.bits > mtMinBits && t.count < len(t.slots)/8:
		t.rebuild(memberTableBits(t.count), true)
	case t.dead > 64 && t.dead > len(t.arena)/2:
		t.compact()
	}
}

// compact squeezes the dead bytes out of the arena in place: it walks the
// records in order, keeps those a slot points to (found by probing for
// the record's offset) and moves them down. No allocation, unless the
// arena ends up mostly empty capacity, which is given back.
func (t *memberTable) compact() {
	mask := len(t.slots) - 1
	w := 0
	for r := 0; r < len(t.arena); {
		n, vw := binary.Uvarint(t.arena[r:])
		end := r + vw + int(n)
		m := t.arena[r+vw : end]
		h := setMemberHash(m)
		for i := t.home(h); t.slots[i] != 0; i = (i + 1) & mask {
			if s := t.slots[i]; int(s&mtOffMask)-1 == r {
				copy(t.arena[w:], t.arena[r:end])
				t.slots[i] = s&^mtOffMask | uint64(w+1)
				w += end - r
				break
			}
		}
		r = end
	}
	t.arena = t.arena[:w]
	t.dead = 0
	if cap(t.arena) > 4*len(t.arena) && cap(t.arena) > 256 {
		t.arena = slices.Clip(slices.Clone(t.arena))
	}
}

// rebuild resizes the slots to 1<<bits and, with compact, rewrites the
// arena without its dead bytes.
func (t *memberTable) rebuild(bits uint8, compact bool) {
	old := t.slots
	oldArena := t.arena
	t.slots = make([]uint64, 1<<bits)
	t.bits = bits
	if compact {
		t.arena = make([]byte, 0, len(oldArena)-t.dead)
		t.dead = 0
	}
	mask := len(t.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		if compact {
			off := int(s&mtOffMask) - 1
			n, w := binary.Uvarint(oldArena[off:])
			newOff := len(t.arena)
			t.arena = append(t.arena, oldArena[off:off+w+int(n)]...)
			s = s&^mtOffMask | uint64(newOff+1)
		}
		i := t.home(mtSlotHash(s))
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

func setVarintLen(n int) int {
	l := 1
	for n >= 0x80 {
		n >>= 7
		l++
	}
	return l
}

// next returns the first occupied slot at or after i, or -1.
func (t *memberTable) next(i int) int {
	for ; i < len(t.slots); i++ {
		if t.slots[i] != 0 {
			return i
		}
	}
	return -1
}

// randomSlot returns a uniformly chosen occupied slot. The table is kept
// at least 1/8 full, so this takes eight probes at worst on average.
func (t *memberTable) randomSlot() int {
	for {
		if i := rand.IntN(len(t.slots)); t.slots[i] != 0 {
			return i
		}
	}
}

// setScanCursorEnd is where hash space ends: the cursor that means done.
const setScanCursorEnd = 1 << mtHashBits

// scan visits members whose hash is at or after cursor, in hash order,
// whole home buckets at a time, until at least count were visited; it
// returns the next cursor (0 when the walk is complete). A member present
// for a whole scan is visited exactly once whatever the table does
// meanwhile, because the cursor is a hash, not a slot.
func (t *memberTable) scan(cursor uint64, count int, visit func(m []byte)) uint64 {
	if cursor >= setScanCursorEnd {
		return 0
	}
	shift := mtHashBits - t.bits
	size := len(t.slots)
	mask := size - 1
	start := int(cursor >> shift)
	visited := 0
	// Unwrapped walk from the start bucket: a member at slot q&mask whose
	// home h is in [start, q] (or, past the end, wrapped around from a
	// home >= start) has not been visited by an earlier call. An empty
	// slot ends every probe run through it, so all members whose home is
	// at or before it have been seen: a place to stop.
	for q := start; ; q++ {
		p := q & mask
		s := t.slots[p]
		if q >= size {
			// Past the end: only members that wrapped around from a
			// home at or after start are still due. There is always an
			// empty slot, which ends the run.
			if s == 0 || q >= 2*size {
				return 0
			}
			if h := t.home(mtSlotHash(s)); h > p && h >= start && uint64(mtSlotHash(s)) >= cursor {
				visit(t.memberAtSlot(p))
			}
			continue
		}
		if s == 0 {
			if visited >= count && q+1 < size {
				return uint64(q+1) << shift
			}
			continue
		}
		h := t.home(mtSlotHash(s))
		if h >= start && h <= q && uint64(mtSlotHash(s)) >= cursor {
			visit(t.memberAtSlot(p))
			visited++
		}
	}
}

// ---- DB operations ----

// setOf reads key i of tx as a set: nil when missing, ErrWrongType for
// another type. It counts a keyspace hit or miss, as Redis's
// lookupKeyRead does.
func (tx *KeyTx) setOf(i int) (*setValue, error) {
	var sv *setValue
	_, err := tx.readAggregate(i, TypeSet, func(a aggregate) { sv = a.(*setValue) })
	return sv, err
}

// readSet runs fn on the set at key for a read-only command (fn must not
// change it). found is false for a missing key.
func (d DB) readSet(key []byte, fn func(s *setValue)) (bool, error) {
	return d.readAggregate(key, TypeSet, func(a aggregate) { fn(a.(*setValue)) })
}

// SAdd adds members to the set at key, creating it (SADD). It returns
// how many were new.
func (d DB) SAdd(key []byte, members [][]byte, lim SetLimits) (int, error) {
	added := 0
	_, err := d.withAggregate(key, TypeSet, newSetValue, func(a aggregate) (bool, error) {
		s := a.(*setValue)
		for _, m := range members {
			if s.add(m, lim) {
				added++
			}
		}
		return added > 0, nil
	})
	return added, err
}

// SRem removes members from the set at key (SREM) and returns how
// many it held; an emptied set is deleted.
func (d DB) SRem(key []byte, members [][]byte) (int, error) {
	removed := 0
	_, err := d.withAggregate(key, TypeSet, nil, func(a aggregate) (bool, error) {
		s := a.(*setValue)
		for _, m := range members {
			if s.remove(m) {
				removed++
			}
		}
		return removed > 0, nil
	})
	return removed, err
}

// SCard returns the number of members (SCARD); 0 for a missing key.
func (d DB) SCard(key []byte) (int, error) {
	n := 0
	_, err := d.readSet(key, func(s *setValue) { n = s.length() })
	return n, err
}

// SIsMember reports whether m is a member (SISMEMBER).
func (d DB) SIsMember(key, m []byte) (bool, error) {
	ok := false
	_, err := d.readSet(key, func(s *setValue) { ok = s.contains(m) })
	return ok, err
}

// SMIsMember appends to dst, for each of members, whether it is a member
// (SMISMEMBER).
func (d DB) SMIsMember(key []byte, members [][]byte, dst []bool) ([]bool, error) {
	found, err := d.readSet(key, func(s *setValue) {
		for _, m := range members {
			dst = append(dst, s.contains(m))
		}
	})
	if err == nil && !found {
		for range members {
			dst = append(dst, false)
		}
	}
	return dst, err
}

// SMembers sends every member to out (SMEMBERS) and returns how many;
// an intset's come in ascending order.
func (d DB) SMembers(key []byte, out MemberSink) (int, error) {
	n := 0
	_, err := d.readSet(key, func(s *setValue) { n = s.emitAll(out) })
	return n, err
}

// SPopOne removes a random member and appends it to buf (SPOP without a
// count); ok is false for a missing key.
func (d DB) SPopOne(key, buf []byte) (member []byte, ok bool, err error) {
	ok, err = d.withAggregate(key, TypeSet, nil, func(a aggregate) (bool, error) {
		s := a.(*setValue)
		p := s.randomPos()
		buf = append(buf, s.memberAt(p, buf[len(buf):])...)
		s.removeAt(p)
		return true, nil
	})
	return buf, ok && err == nil, err
}

// spopMoveStrategyMul is Redis's SPOP_MOVE_STRATEGY_MUL: when fewer than
// count/5 members would remain, SPOP keeps random members in a new set
// and returns the rest.
const spopMoveStrategyMul = 5

// SPop removes count random members and sends them to out (SPOP with a
// count), returning how many. A missing key or a count of 0 sends none.
// It follows Redis's three strategies, which show in the result's order
// and in the encoding left behind: count >= size returns the whole set,
// ordered as Redis's SUNION would order it, and deletes the key; a few
// members are popped one by one; when few would remain, the remaining
// ones are picked into a new set, whose encoding is derived afresh (a
// hashtable can become an intset again).
func (d DB) SPop(key []byte, count uint64, lim SetLimits, out MemberSink) (int, error) {
	n := 0
	_, err := d.withAggregate(key, TypeSet, nil, func(a aggregate) (bool, error) {
		if count == 0 {
			return false, nil
		}
		s := a.(*setValue)
		size := uint64(s.length())
		switch {
		case count >= size:
			n = s.rebuilt(lim).emitAll(out)
			*s = setValue{}
		case (size-count)*spopMoveStrategyMul > count:
			for i := uint64(0); i < count; i++ {
				p := s.randomPos()
				s.emitAt(p, out)
				s.removeAt(p)
			}
			n = int(count)
		default:
			kept := &setValue{}
			for remaining := size - count; remaining > 0; remaining-- {
				p := s.randomPos()
				kept.addFrom(s, p, lim)
				s.removeAt(p)
			}
			n = s.emitAll(out)
			*s = *kept
		}
		return true, nil
	})
	return n, err
}

// SRandMember appends a random member to buf (SRANDMEMBER without a
// count); ok is false for a missing key.
func (d DB) SRandMember(key, buf []byte) (member []byte, ok bool, err error) {
	ok, err = d.readSet(key, func(s *setValue) {
		buf = append(buf, s.memberAt(s.randomPos(), buf[len(buf):])...)
	})
	return buf, ok && err == nil, err
}

// srandmemberSubStrategyMul is Redis's SRANDMEMBER_SUB_STRATEGY_MUL: for a
// count above size/3, pick by removing from a copy of the set.
const srandmemberSubStrategyMul = 3

// SRandMembers sends random members to out (SRANDMEMBER with a count)
// and returns how many: count distinct ones (at most the set's size) when
// count >= 0, -count possibly repeated ones when it is negative. A count of
// at least the set's size sends the whole set in its iteration order.
func (d DB) SRandMembers(key []byte, count int64, out MemberSink) (int, error) {
	n := 0
	_, err := d.readSet(key, func(s *setValue) {
		size := s.length()
		switch {
		case count == 0:
		case count < 0 || count == 1:
			if count < 0 {
				count = -count
			}
			for i := int64(0); i < count; i++ {
				s.emitAt(s.randomPos(), out)
			}
			n = int(count)
		case count >= int64(size):
			n = s.emitAll(out)
		case count*srandmemberSubStrategyMul > int64(size):
			pos := make([]int32, 0, size)
			for p := s.first(); p >= 0; p = s.next(p + 1) {
				pos = append(pos, int32(p))
			}
			// A partial Fisher-Yates shuffle chooses count of them.
			for i := 0; i < int(count); i++ {
				j := i + rand.IntN(len(pos)-i)
				pos[i], pos[j] = pos[j], pos[i]
				s.emitAt(int(pos[i]), out)
			}
			n = int(count)
		case count <= 64:
			// Few picks: remember them in a small array.
			var stack [64]int
			seen := stack[:0]
			for len(seen) < int(count) {
				if p := s.randomPos(); !slices.Contains(seen, p) {
					seen = append(seen, p)
					s.emitAt(p, out)
				}
			}
			n = int(count)
		default:
			seen := make(map[int]struct{}, count)
			for len(seen) < int(count) {
				p := s.randomPos()
				if _, dup := seen[p]; dup {
					continue
				}
				seen[p] = struct{}{}
				s.emitAt(p, out)
			}
			n = int(count)
		}
	})
	return n, err
}

// SMove moves member from the set src to the set dst (SMOVE) and
// reports whether src held it. A missing src moves nothing, whatever dst
// holds; otherwise a dst of another type is ErrWrongType even when src
// lacks the member. Moving to the same key only checks membership. It
// also reports whether dst gained the member (it may hold it already):
// Redis's SMOVE reports "sadd" only then.
func (d DB) SMove(src, dst, member []byte, lim SetLimits) (moved, added bool, err error) {
	err = d.WithKeys([][]byte{src, dst}, func(tx *KeyTx) error {
		switch tx.Type(0) {
		case TypeNone:
			return nil
		case TypeSet:
		default:
			return ErrWrongType
		}
		if t := tx.Type(1); t != TypeNone && t != TypeSet {
			return ErrWrongType
		}
		if bytes.Equal(src, dst) {
			_, err := tx.Aggregate(0, TypeSet, nil, func(a aggregate) (bool, error) {
				moved = a.(*setValue).contains(member)
				return false, nil
			})
			return err
		}
		if _, err := tx.Aggregate(0, TypeSet, nil, func(a aggregate) (bool, error) {
			moved = a.(*setValue).remove(member)
			return moved, nil
		}); err != nil || !moved {
			return err
		}
		_, err := tx.Aggregate(1, TypeSet, newSetValue, func(a aggregate) (bool, error) {
			added = a.(*setValue).add(member, lim)
			return added, nil
		})
		return err
	})
	return moved, added, err
}

// loadSets reads keys[from:] of tx as sets (nil for a missing key),
// stopping at the first of another type, as Redis does.
func loadSets(tx *KeyTx, from, n int) ([]*setValue, error) {
	sets := make([]*setValue, n)
	for i := range sets {
		s, err := tx.setOf(from + i)
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	return sets, nil
}

// interWalk calls fn for each member of the intersection of sets, in
// Redis's order: the sets sorted by size (stably, as glibc's qsort on
// a few elements), the smallest walked in its iteration order. fn
// returns false to stop. A missing set makes the result empty.
func interWalk(sets []*setValue, fn func(s0 *setValue, pos int) bool) {
	for _, s := range sets {
		if s == nil {
			return
		}
	}
	sorted := slices.Clone(sets)
	slices.SortStableFunc(sorted, func(a, b *setValue) int { return a.length() - b.length() })
	s0 := sorted[0]
outer:
	for p := s0.first(); p >= 0; p = s0.next(p + 1) {
		for _, sj := range sorted[1:] {
			if sj != s0 && !sj.hasFrom(s0, p) {
				continue outer
			}
		}
		if !fn(s0, p) {
			return
		}
	}
}

// combine computes SUNION or SDIFF of sets into a new set built as Redis
// builds it (an intset that converts as it grows), which decides the
// result's encoding and iteration order. Missing sets are empty.
func setCombine(op SetOp, sets []*setValue, lim SetLimits) *setValue {
	dst := &setValue{}
	switch op {
	case SetUnion:
		for _, s := range sets {
			if s == nil {
				continue
			}
			for p := s.first(); p >= 0; p = s.next(p + 1) {
				dst.addFrom(s, p, lim)
			}
		}
	case SetDiff:
		if sets[0] == nil {
			break
		}
		// Redis's choice between its two algorithms: it shows in the
		// result's encoding, since the second adds all of the first set
		// before removing.
		var one, two int
		for _, s := range sets {
			if s != nil {
				one += sets[0].length()
				two += s.length()
			}
		}
		if one/2 <= two {
			rest := slices.Clone(sets[1:])
			slices.SortStableFunc(rest, func(a, b *setValue) int { return setLen(b) - setLen(a) })
			s0 := sets[0]
		members:
			for p := s0.first(); p >= 0; p = s0.next(p + 1) {
				for _, sj := range rest {
					if sj == nil {
						continue
					}
					if sj == s0 || sj.hasFrom(s0, p) {
						continue members
					}
				}
				dst.addFrom(s0, p, lim)
			}
			break
		}
		for j, s := range sets {
			if s == nil {
				continue
			}
			for p := s.first(); p >= 0; p = s.next(p + 1) {
				if j == 0 {
					dst.addFrom(s, p, lim)
				} else {
					dst.removeFrom(s, p)
				}
			}
			if dst.length() == 0 {
				break
			}
		}
	}
	return dst
}

func setLen(s *setValue) int {
	if s == nil {
		return 0
	}
	return s.length()
}

// SCombine sends the union, intersection or difference of the sets at
// keys to out (SUNION, SINTER, SDIFF, SMEMBERS) and returns how many
// members it sent. Missing keys are empty sets; the first key of another
// type is ErrWrongType.
func (d DB) SCombine(op SetOp, keys [][]byte, lim SetLimits, out MemberSink) (int, error) {
	n := 0
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		sets, err := loadSets(tx, 0, len(keys))
		if err != nil {
			return err
		}
		if op == SetInter {
			interWalk(sets, func(s0 *setValue, p int) bool {
				s0.emitAt(p, out)
				n++
				return true
			})
			return nil
		}
		n = setCombine(op, sets, lim).emitAll(out)
		return nil
	})
	return n, err
}

// SCombineStore stores the union, intersection or difference of the
// sets at keys in dst, replacing whatever dst held and its expiry, or
// deleting dst when the result is empty (SUNIONSTORE, SINTERSTORE,
// SDIFFSTORE). It returns the result's size.
func (d DB) SCombineStore(op SetOp, dst []byte, keys [][]byte, lim SetLimits) (int, error) {
	n := 0
	all := make([][]byte, 0, len(keys)+1)
	all = append(append(all, dst), keys...)
	err := d.WithKeys(all, func(tx *KeyTx) error {
		sets, err := loadSets(tx, 1, len(keys))
		if err != nil {
			return err
		}
		var res *setValue
		if op == SetInter {
			res = &setValue{}
			interWalk(sets, func(s0 *setValue, p int) bool {
				res.addFrom(s0, p, lim)
				return true
			})
		} else {
			res = setCombine(op, sets, lim)
		}
		n = res.length()
		tx.Store(0, TypeSet, res)
		return nil
	})
	return n, err
}

// SInterCard returns the size of the intersection of the sets at keys,
// counting no further than limit when limit > 0 (SINTERCARD).
func (d DB) SInterCard(keys [][]byte, limit int64) (int64, error) {
	var n int64
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		sets, err := loadSets(tx, 0, len(keys))
		if err != nil {
			return err
		}
		interWalk(sets, func(*setValue, int) bool {
			n++
			return limit <= 0 || n < limit
		})
		return nil
	})
	return n, err
}

// SScan sends a batch of members matching match (nil: all) to out
// (SSCAN) and returns the next cursor (0 when done) and how many members
// it sent. An intset is sent whole in one call, as Redis does. A hashtable
// is walked in hash order, about count members a call (counted before
// matching, as Redis counts), so a member present for the whole iteration
// is sent exactly once. A missing key sends nothing.
func (d DB) SScan(key []byte, cursor uint64, count int, match func(m []byte) bool, out MemberSink) (next uint64, sent int, err error) {
	_, err = d.readSet(key, func(s *setValue) {
		if s.ht == nil {
			var tmp [20]byte
			for i := 0; i < s.ints.len(); i++ {
				v := s.ints.at(i)
				if match == nil || match(strconv.AppendInt(tmp[:0], v, 10)) {
					out.IntMember(v)
					sent++
				}
			}
			return
		}
		next = s.ht.scan(cursor, count, func(m []byte) {
			if match == nil || match(m) {
				out.Member(m)
				sent++
			}
		})
	})
	return next, sent, err
}
