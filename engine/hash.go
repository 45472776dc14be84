package engine

// Hashes: HSET, HGET, HDEL, HINCRBY, HRANDFIELD, HSCAN…
//
// A hash has Redis 7.0's two encodings. It starts as a listpack and stays
// one while it has at most HashLimits.MaxListpackEntries fields and no field
// or value longer than HashLimits.MaxListpackValue bytes; past either it
// becomes a hashtable, for good (as in Redis, a hash never converts back).
//
// The listpack is one byte slice of records in insertion order, which is
// the order HGETALL, HKEYS and HSCAN report, as Redis's listpack does. A
// record is uvarint(len(field)) field uvarint(len(value)) value. Lookups
// walk it, as Redis walks its listpack; it is small by construction.
//
// The hashtable is a chained table kept in three pointer-free slices:
// buckets (the first entry of each chain), entries (a record offset, the
// field's hash and the next entry of the chain) and data (the records, in
// the listpack's format). A hash of a million fields is therefore three
// objects the GC never scans, and costs about 20 bytes per field beyond its
// bytes. A changed value is rewritten in place when it fits and appended
// otherwise; the bytes left behind are counted and compacted away once they
// are a quarter of data, so writes stay amortized O(1).
//
// HSCAN walks the hashtable's buckets in Redis's reverse-binary cursor
// order, so a field present for the whole iteration is returned at least
// once even when the table grows or shrinks between calls.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"

	"github.com/tandemkv/tandem/internal/glob"
	"github.com/tandemkv/tandem/internal/num"
)

// Hash errors, beyond the shared ones.
var (
	// ErrHashNotInteger: HINCRBY on a field whose value is not an integer.
	ErrHashNotInteger = errors.New("engine: hash value is not an integer")
	// ErrHashNotFloat: HINCRBYFLOAT on a field whose value is not a number.
	ErrHashNotFloat = errors.New("engine: hash value is not a float")
)

// HashLimits are the conversion thresholds of hashes: Redis's
// hash-max-listpack-entries and hash-max-listpack-value. Front-ends read
// them from the configuration for every command, so CONFIG SET applies to
// the next write, as in Redis.
type HashLimits struct {
	MaxListpackEntries int
	MaxListpackValue   int
}

// listpackSafetyLimit is Redis's LISTPACK_MAX_SAFETY_SIZE: a listpack that
// would grow past it converts whatever the thresholds say.
const listpackSafetyLimit = 1 << 30

// hash is the value of a hash key.
type hash struct {
	lp  []byte     // listpack records; unused once ht is set
	lpN int        // records in lp
	ht  *hashTable // nil while the hash is a listpack
}

// hashHeaderSize is what a hash costs beyond its slices: the struct and
// its slot in the shard's aggregate map.
const hashHeaderSize = 64

func newHash() aggregate { return &hash{} }

func (h *hash) memSize() int64 {
	if h.ht != nil {
		return hashHeaderSize + h.ht.memSize()
	}
	return hashHeaderSize + allocSize(cap(h.lp))
}

func (h *hash) length() int {
	if h.ht != nil {
		return h.ht.live
	}
	return h.lpN
}

func (h *hash) encoding() Encoding {
	if h.ht != nil {
		return EncHashtable
	}
	return EncListpack
}

func (h *hash) clone() aggregate {
	c := &hash{lpN: h.lpN}
	if h.lp != nil {
		c.lp = append([]byte(nil), h.lp...)
	}
	if h.ht != nil {
		c.ht = h.ht.clone()
	}
	return c
}

// get returns the value of field; it aliases the hash's bytes.
func (h *hash) get(field []byte) ([]byte, bool) {
	if h.ht != nil {
		i := h.ht.find(field, fieldHash(field))
		if i < 0 {
			return nil, false
		}
		_, v := h.ht.record(i)
		return v, true
	}
	r, ok := lpFind(h.lp, field)
	if !ok {
		return nil, false
	}
	return h.lp[r.vs:r.ve], true
}

// set writes field=value and reports whether field is new. It converts the
// hash as Redis's hashTypeSet does: before the write when the field or the
// value is too long for a listpack, after it when there are too many
// fields.
func (h *hash) set(field, value []byte, lim HashLimits) bool {
	if h.ht == nil && (len(field) > lim.MaxListpackValue || len(value) > lim.MaxListpackValue ||
		len(h.lp)+len(field)+len(value) > listpackSafetyLimit) {
		h.convert()
	}
	if h.ht != nil {
		return h.ht.set(field, value)
	}
	added := h.lpSet(field, value)
	if h.lpN > lim.MaxListpackEntries {
		h.convert()
	}
	return added
}

// del removes field and reports whether it was there.
func (h *hash) del(field []byte) bool {
	if h.ht != nil {
		return h.ht.del(field)
	}
	r, ok := lpFind(h.lp, field)
	if !ok {
		return false
	}
	h.lp = append(h.lp[:r.off], h.lp[r.ve:]...)
	h.lpN--
	// Give memory back as Redis's listpack does when it shrinks a lot.
	if cap(h.lp) > 256 && len(h.lp) < cap(h.lp)/4 {
		h.lp = append(make([]byte, 0, len(h.lp)+len(h.lp)/4), h.lp...)
	}
	return true
}

// convert turns a listpack into a hashtable, keeping every field.
func (h *hash) convert() {
	t := newHashTable(h.lpN)
	for off := 0; off < len(h.lp); {
		r := lpRecordAt(h.lp, off)
		t.insert(h.lp[r.fs:r.fe], h.lp[r.vs:r.ve], fieldHash(h.lp[r.fs:r.fe]))
		off = r.ve
	}
	h.ht, h.lp, h.lpN = t, nil, 0
}

// each calls fn for every field in the hash's order (insertion order for a
// listpack) until fn returns false. The slices alias the hash.
func (h *hash) each(fn func(field, value []byte) bool) {
	if h.ht != nil {
		h.ht.each(fn)
		return
	}
	for off := 0; off < len(h.lp); {
		r := lpRecordAt(h.lp, off)
		if !fn(h.lp[r.fs:r.fe], h.lp[r.vs:r.ve]) {
			return
		}
		off = r.ve
	}
}

// ---- listpack ----

// lpRecord is where one record lies in a listpack: it starts at off, its
// field is [fs,fe), its value [vs,ve), and the next record starts at ve.
type lpRecord struct{ off, fs, fe, vs, ve int }

func lpRecordAt(lp []byte, off int) lpRecord {
	fl, fs := lpLen(lp, off)
	fe := fs + fl
	vl, vs := lpLen(lp, fe)
	return lpRecord{off: off, fs: fs, fe: fe, vs: vs, ve: vs + vl}
}

// lpLen decodes the length at off and returns it with the offset of the
// bytes it measures. Lengths below 128, the common case, take one byte.
func lpLen(lp []byte, off int) (n, start int) {
	if b := lp[off]; b < 0x80 {
		return int(b), off + 1
	}
	v, w := binary.Uvarint(lp[off:])
	return int(v), off + w
}

func lpFind(lp []byte, field []byte) (lpRecord, bool) {
	for off := 0; off < len(lp); {
		fl, fs := lpLen(lp, off)
		fe := fs + fl
		vl, vs := lpLen(lp, fe)
		if fl == len(field) && bytes.Equal(lp[fs:fe], field) {
			return lpRecord{off: off, fs: fs, fe: fe, vs: vs, ve: vs + vl}, true
		}
		off = vs + vl
	}
	return lpRecord{}, false
}

// appendRecord appends the record field=value to b.
func appendRecord(b, field, value []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(field)))
	b = append(b, field...)
	b = binary.AppendUvarint(b, uint64(len(value)))
	return append(b, value...)
}

func uvarintLen(n int) int {
	l := 1
	for n >= 0x80 {
		n >>= 7
		l++
	}
	return l
}

func (h *hash) lpSet(field, value []byte) bool {
	r, ok := lpFind(h.lp, field)
	if !ok {
		h.lp = appendRecord(h.lp, field, value)
		h.lpN++
		return true
	}
	// Replace the value part [fe,ve) by uvarint(len(value)) value.
	newPart := uvarintLen(len(value)) + len(value)
	oldPart := r.ve - r.fe
	tail := len(h.lp) - r.ve
	newLen := len(h.lp) - oldPart + newPart
	switch {
	case newLen > cap(h.lp):
		nb := make([]byte, r.fe, newLen+newLen/4)
		copy(nb, h.lp[:r.fe])
		nb = binary.AppendUvarint(nb, uint64(len(value)))
		nb = append(nb, value...)
		h.lp = append(nb, h.lp[r.ve:]...)
		return false
	case newPart != oldPart:
		old := h.lp
		h.lp = h.lp[:newLen]
		copy(h.lp[r.fe+newPart:], old[r.ve:r.ve+tail])
	}
	n := binary.PutUvarint(h.lp[r.fe:], uint64(len(value)))
	copy(h.lp[r.fe+n:], value)
	return false
}

// ---- hashtable ----

// hashSeed keys the hash of fields; fixed for the process's life.
var hashSeed = maphash.MakeSeed()

func fieldHash(f []byte) uint32 { return uint32(maphash.Bytes(hashSeed, f)) }

// hashTable is a hash's hashtable encoding.
type hashTable struct {
	buckets []uint32  // per bucket, index+1 of the chain's first entry; len is a power of two
	ents    []htEntry // entries, live and free
	data    []byte    // records (listpack format) of live entries, and garbage
	free    uint32    // index+1 of the first free entry; free entries chain through next
	live    int       // live entries
	garbage int       // bytes of data no live entry uses
}

// htEntry is one field of a hashtable.
type htEntry struct {
	off  uint64 // offset of the record in data; freeEntry on a free entry
	hash uint32 // fieldHash of the field
	next uint32 // index+1 of the next entry of the chain (or of the free list)
}

const (
	freeEntry     = math.MaxUint64
	htMinBuckets  = 8
	htEntrySize   = 16
	htHeaderSize  = 96
	compactMinGap = 4096 // garbage bytes below which data is never compacted
)

func newHashTable(n int) *hashTable {
	t := &hashTable{}
	t.buckets = make([]uint32, bucketsFor(n))
	t.ents = make([]htEntry, 0, n)
	return t
}

// bucketsFor is the bucket count for n entries: the next power of two, at
// least htMinBuckets (a load factor of at most 1, as Redis's dict).
func bucketsFor(n int) int {
	if n <= htMinBuckets {
		return htMinBuckets
	}
	return 1 << bits.Len(uint(n-1))
}

func (t *hashTable) memSize() int64 {
	return htHeaderSize + allocSize(4*cap(t.buckets)) + allocSize(htEntrySize*cap(t.ents)) + allocSize(cap(t.data))
}

func (t *hashTable) clone() *hashTable {
	c := *t
	c.buckets = append([]uint32(nil), t.buckets...)
	c.ents = append([]htEntry(nil), t.ents...)
	c.data = append([]byte(nil), t.data...)
	return &c
}

// record returns the field and value of entry i.
func (t *hashTable) record(i int) (field, value []byte) {
	r := lpRecordAt(t.data, int(t.ents[i].off))
	return t.data[r.fs:r.fe], t.data[r.vs:r.ve]
}

func (t *hashTable) find(field []byte, h uint32) int {
	mask := uint32(len(t.buckets) - 1)
	for i := t.buckets[h&mask]; i != 0; {
		e := &t.ents[i-1]
		if e.hash == h {
			if f, _ := t.record(int(i - 1)); bytes.Equal(f, field) {
				return int(i - 1)
			}
		}
		i = e.next
	}
	return -1
}

func (t *hashTable) set(field, value []byte) bool {
	h := fieldHash(field)
	if i := t.find(field, h); i >= 0 {
		t.setValue(i, value)
		return false
	}
	t.insert(field, value, h)
	return true
}

// setValue replaces the value of entry i: in place when the new value fits
// where the old one was, else as a new record at the end of data.
func (t *hashTable) setValue(i int, value []byte) {
	e := &t.ents[i]
	r := lpRecordAt(t.data, int(e.off))
	if len(value) <= r.ve-r.vs && uvarintLen(len(value)) == r.vs-r.fe {
		binary.PutUvarint(t.data[r.fe:], uint64(len(value)))
		copy(t.data[r.vs:], value)
		t.garbage += r.ve - r.vs - len(value)
		t.maybeCompact()
		return
	}
	t.garbage += r.ve - r.off
	e.off = uint64(len(t.data))
	// The field is copied from data itself: if append reallocates, the old
	// array it reads from stays valid; if not, it writes past the field.
	t.data = appendRecord(t.data, t.data[r.fs:r.fe], value)
	t.maybeCompact()
}

// insert adds a field known to be absent.
func (t *hashTable) insert(field, value []byte, h uint32) {
	if t.live >= len(t.buckets) {
		t.rehash(len(t.buckets) * 2)
	}
	var i uint32
	if t.free != 0 {
		i = t.free - 1
		t.free = t.ents[i].next
	} else {
		i = uint32(len(t.ents))
		t.ents = append(t.ents, htEntry{})
	}
	b := h & uint32(len(t.buckets)-1)
	t.ents[i] = htEntry{off: uint64(len(t.data)), hash: h, next: t.buckets[b]}
	t.buckets[b] = i + 1
	t.data = appendRecord(t.data, field, value)
	t.live++
}

func (t *hashTable) del(field []byte) bool {
	h := fieldHash(field)
	b := h & uint32(len(t.buckets)-1)
	prev := uint32(0)
	for i := t.buckets[b]; i != 0; {
		e := &t.ents[i-1]
		if e.hash == h {
			if f, _ := t.record(int(i - 1)); bytes.Equal(f, field) {
				if prev == 0 {
					t.buckets[b] = e.next
				} else {
					t.ents[prev-1].next = e.next
				}
				r := lpRecordAt(t.data, int(e.off))
				t.garbage += r.ve - r.off
				*e = htEntry{off: freeEntry, next: t.free}
				t.free = i
				t.live--
				t.afterDelete()
				return true
			}
		}
		prev, i = i, e.next
	}
	return false
}

// afterDelete shrinks the table as Redis's dict does below 10% fill, and
// compacts the entries when more than half of them are free (so a random
// entry is found in two tries on average), or data when it is mostly
// garbage.
func (t *hashTable) afterDelete() {
	switch {
	case t.live == 0:
		return // the key is about to be deleted
	case len(t.buckets) > htMinBuckets && t.live*10 < len(t.buckets):
		t.rebuild(bucketsFor(t.live))
	case len(t.ents) > 64 && t.live*2 < len(t.ents):
		t.rebuild(len(t.buckets))
	default:
		t.maybeCompact()
	}
}

// rehash relinks every live entry into n buckets.
func (t *hashTable) rehash(n int) {
	nb := make([]uint32, n)
	mask := uint32(n - 1)
	for i := range t.ents {
		e := &t.ents[i]
		if e.off == freeEntry {
			continue
		}
		b := e.hash & mask
		e.next = nb[b]
		nb[b] = uint32(i) + 1
	}
	t.buckets = nb
}

// rebuild makes a fresh table of n buckets holding the live entries, with
// no free entry and no garbage.
func (t *hashTable) rebuild(n int) {
	live := 0
	for i := range t.ents {
		if t.ents[i].off != freeEntry {
			r := lpRecordAt(t.data, int(t.ents[i].off))
			live += r.ve - r.off
		}
	}
	ents := make([]htEntry, 0, t.live)
	data := make([]byte, 0, live)
	for i := range t.ents {
		e := t.ents[i]
		if e.off == freeEntry {
			continue
		}
		r := lpRecordAt(t.data, int(e.off))
		ents = append(ents, htEntry{off: uint64(len(data)), hash: e.hash})
		data = append(data, t.data[r.off:r.ve]...)
	}
	t.ents, t.data, t.free, t.garbage = ents, data, 0, 0
	t.rehash(n)
}

// maybeCompact rewrites data without its garbage once garbage is a quarter
// of it.
func (t *hashTable) maybeCompact() {
	if t.garbage < compactMinGap || t.garbage*4 < len(t.data) {
		return
	}
	data := make([]byte, 0, len(t.data)-t.garbage)
	for i := range t.ents {
		e := &t.ents[i]
		if e.off == freeEntry {
			continue
		}
		r := lpRecordAt(t.data, int(e.off))
		e.off = uint64(len(data))
		data = append(data, t.data[r.off:r.ve]...)
	}
	t.data, t.garbage = data, 0
}

func (t *hashTable) each(fn func(field, value []byte) bool) {
	for i := range t.ents {
		if t.ents[i].off == freeEntry {
			continue
		}
		if !fn(t.record(i)) {
			return
		}
	}
}

// randomEntry returns a live entry chosen uniformly. More than half of the
// entries are live (afterDelete sees to it), so this takes two tries on
// average.
func (t *hashTable) randomEntry() int {
	for {
		i := rand.IntN(len(t.ents))
		if t.ents[i].off != freeEntry {
			return i
		}
	}
}

// scanBucket calls fn for the entries of the bucket cursor designates and
// returns the next cursor, 0 after the last bucket: Redis's dictScan
// order, which increments the cursor's reversed bits so that buckets
// already visited are never revisited, and never skipped, when the table
// doubles or halves between calls.
func (t *hashTable) scanBucket(cursor uint64, fn func(field, value []byte)) uint64 {
	mask := uint64(len(t.buckets) - 1)
	for i := t.buckets[cursor&mask]; i != 0; i = t.ents[i-1].next {
		fn(t.record(int(i - 1)))
	}
	cursor |= ^mask
	cursor = bits.Reverse64(cursor)
	cursor++
	return bits.Reverse64(cursor)
}

// ---- commands ----

// hashOp runs op on the hash at key; a missing key is created only when
// create is set.
func (d DB) hashOp(key []byte, create bool, op func(h *hash) (bool, error)) (bool, error) {
	var mk func() aggregate
	if create {
		mk = newHash
	}
	return d.withAggregate(key, TypeHash, mk, func(a aggregate) (bool, error) { return op(a.(*hash)) })
}

// HSet sets field/value pairs (pairs alternates fields and values; a later
// pair wins over an earlier one with the same field). It returns how many
// fields are new (HSET's reply).
func (d DB) HSet(key []byte, pairs [][]byte, lim HashLimits) (added int, err error) {
	_, err = d.hashOp(key, true, func(h *hash) (bool, error) {
		for i := 0; i+1 < len(pairs); i += 2 {
			if h.set(pairs[i], pairs[i+1], lim) {
				added++
			}
		}
		return true, nil
	})
	return added, err
}

// HSetNX sets field only if it does not exist; it reports whether it did.
func (d DB) HSetNX(key, field, value []byte, lim HashLimits) (set bool, err error) {
	_, err = d.hashOp(key, true, func(h *hash) (bool, error) {
		if _, ok := h.get(field); ok {
			return false, nil
		}
		h.set(field, value, lim)
		set = true
		return true, nil
	})
	return set, err
}

// HDel removes fields and returns how many existed. The key goes with its
// last field.
func (d DB) HDel(key []byte, fields [][]byte) (removed int, err error) {
	_, err = d.hashOp(key, false, func(h *hash) (bool, error) {
		for _, f := range fields {
			if h.del(f) {
				removed++
				if h.length() == 0 {
					break
				}
			}
		}
		return removed > 0, nil
	})
	return removed, err
}

// HIncrBy adds delta to the integer in field (0 when missing) and returns
// the result. Errors: ErrHashNotInteger, ErrOverflow, ErrWrongType.
func (d DB) HIncrBy(key, field []byte, delta int64, lim HashLimits) (result int64, err error) {
	_, err = d.hashOp(key, true, func(h *hash) (bool, error) {
		var cur int64
		if v, ok := h.get(field); ok {
			n, ok := num.ParseInt(v)
			if !ok {
				return false, ErrHashNotInteger
			}
			cur = n
		}
		if (delta < 0 && cur < 0 && delta < math.MinInt64-cur) || (delta > 0 && cur > 0 && delta > math.MaxInt64-cur) {
			return false, ErrOverflow
		}
		result = cur + delta
		var buf [20]byte
		h.set(field, appendInt(buf[:0], result), lim)
		return true, nil
	})
	return result, err
}

// HIncrByFloat adds delta (finite, parsed by the caller with Redis's long
// double rules) to the number in field (0 when missing) and returns the
// result as Redis prints and stores it. Errors: ErrHashNotFloat,
// ErrNaNOrInf, ErrWrongType.
func (d DB) HIncrByFloat(key, field []byte, delta *big.Float, lim HashLimits) (result []byte, err error) {
	_, err = d.hashOp(key, true, func(h *hash) (bool, error) {
		cur := new(big.Float)
		if v, ok := h.get(field); ok {
			f, inf, ok := num.ParseLongDouble(v)
			if !ok {
				return false, ErrHashNotFloat
			}
			if inf != 0 {
				return false, ErrNaNOrInf
			}
			cur = f
		}
		sum, finite := num.AddLongDouble(cur, delta)
		if !finite {
			return false, ErrNaNOrInf
		}
		result = []byte(num.FormatLongDoubleHuman(sum))
		h.set(field, result, lim)
		return true, nil
	})
	return result, err
}

func appendInt(b []byte, n int64) []byte {
	if n == 0 {
		return append(b, '0')
	}
	var tmp [20]byte
	i := len(tmp)
	u := uint64(n)
	if n < 0 {
		u = -u
	}
	for u > 0 {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
	}
	if n < 0 {
		b = append(b, '-')
	}
	return append(b, tmp[i:]...)
}

// HashView reads one hash under its shard's lock. It is valid only inside
// the function given to HView; the slices it hands out alias the hash
// and must be neither kept nor modified, nor may the function call back
// into the engine.
type HashView struct{ h *hash }

// HView runs fn on the hash at key. found is false (and fn not called)
// when the key does not exist; ErrWrongType when it holds another type.
// The lookup counts as a keyspace hit or miss, as Redis's read commands do.
func (d DB) HView(key []byte, fn func(v HashView)) (found bool, err error) {
	return d.readAggregate(key, TypeHash, func(a aggregate) { fn(HashView{a.(*hash)}) })
}

// Len is the number of fields.
func (v HashView) Len() int { return v.h.length() }

// Get returns the value of field.
func (v HashView) Get(field []byte) ([]byte, bool) { return v.h.get(field) }

// Each calls fn for every field in the hash's order: insertion order for
// a listpack, the table's order for a hashtable.
func (v HashView) Each(fn func(field, value []byte)) {
	v.h.each(func(f, val []byte) bool { fn(f, val); return true })
}

// Random returns a field chosen uniformly at random, with its value.
func (v HashView) Random() (field, value []byte) {
	if t := v.h.ht; t != nil {
		return t.record(t.randomEntry())
	}
	var buf [128]int32
	offs := lpOffsets(buf[:0], v.h.lp)
	r := lpRecordAt(v.h.lp, int(offs[rand.IntN(len(offs))]))
	return v.h.lp[r.fs:r.fe], v.h.lp[r.vs:r.ve]
}

// RandomRepeat calls fn count times with a field chosen uniformly at
// random each time (HRANDFIELD with a negative count), until fn returns
// false.
func (v HashView) RandomRepeat(count int64, fn func(field, value []byte) bool) {
	if t := v.h.ht; t != nil {
		for ; count > 0; count-- {
			if !fn(t.record(t.randomEntry())) {
				return
			}
		}
		return
	}
	var buf [128]int32
	offs := lpOffsets(buf[:0], v.h.lp)
	for ; count > 0; count-- {
		r := lpRecordAt(v.h.lp, int(offs[rand.IntN(len(offs))]))
		if !fn(v.h.lp[r.fs:r.fe], v.h.lp[r.vs:r.ve]) {
			return
		}
	}
}

// RandomDistinct calls fn for count distinct fields chosen at random
// (HRANDFIELD with a positive count below the length), in no set order.
func (v HashView) RandomDistinct(count int, fn func(field, value []byte)) {
	n := v.h.length()
	count = min(count, n)
	if t := v.h.ht; t != nil {
		if count*3 <= n {
			// Few of many: draw, skipping repeats.
			seen := make(map[int]struct{}, count)
			for len(seen) < count {
				i := t.randomEntry()
				if _, dup := seen[i]; dup {
					continue
				}
				seen[i] = struct{}{}
				fn(t.record(i))
			}
			return
		}
		// Most of them: a partial Fisher-Yates shuffle of the live entries.
		idx := make([]uint32, 0, n)
		for i := range t.ents {
			if t.ents[i].off != freeEntry {
				idx = append(idx, uint32(i))
			}
		}
		for i := 0; i < count; i++ {
			j := i + rand.IntN(n-i)
			idx[i], idx[j] = idx[j], idx[i]
			fn(t.record(int(idx[i])))
		}
		return
	}
	var buf [128]int32
	offs := lpOffsets(buf[:0], v.h.lp)
	for i := 0; i < count; i++ {
		j := i + rand.IntN(n-i)
		offs[i], offs[j] = offs[j], offs[i]
		r := lpRecordAt(v.h.lp, int(offs[i]))
		fn(v.h.lp[r.fs:r.fe], v.h.lp[r.vs:r.ve])
	}
}

// lpOffsets appends the offsets of a listpack's records to dst.
func lpOffsets(dst []int32, lp []byte) []int32 {
	for off := 0; off < len(lp); {
		dst = append(dst, int32(off))
		off = lpRecordAt(lp, off).ve
	}
	return dst
}

// Scan is one HSCAN call: it calls fn for the fields it visits that match
// pattern (nil: all) and returns the next cursor, 0 when the iteration is
// complete. A listpack is returned whole whatever the cursor, as Redis
// does. A hashtable is walked bucket by bucket in reverse-binary cursor
// order until about count fields were visited (Redis counts a field and
// its value as two) or count*10 buckets were; a field present for the
// whole iteration is returned at least once.
func (v HashView) Scan(cursor uint64, count int, pattern []byte, fn func(field, value []byte)) uint64 {
	emit := func(f, val []byte) {
		if pattern == nil || glob.Match(pattern, f, false) {
			fn(f, val)
		}
	}
	t := v.h.ht
	if t == nil {
		v.Each(emit)
		return 0
	}
	visited := 0
	maxIter := count * 10
	for {
		cursor = t.scanBucket(cursor, func(f, val []byte) {
			visited += 2
			emit(f, val)
		})
		if cursor == 0 || maxIter == 0 || visited >= count {
			return cursor
		}
		maxIter--
	}
}
