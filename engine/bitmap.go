package engine

import "math/bits"

// Bitmaps are strings seen as arrays of bits, bit 0 being the most
// significant bit of the first byte (SETBIT, GETBIT, BITCOUNT, BITPOS,
// BITOP, BITFIELD). Values written here are ordinary strings, so memcached
// reads the same bytes.
//
// Values are immutable once stored, so a command that changes one bit
// writes a new copy of the string: the new value is built in a buffer,
// then copied into the key's new record. Redis changes it in place; the
// copies are the price of readers that keep a value after the shard lock
// is released, and of cheap snapshots, paid per write in proportion to
// the string's length. A write that would change nothing writes nothing.
//
// The functions without a receiver compute on a value the caller read;
// the DB methods are the writes. Argument checks (offset ranges, syntax)
// belong to the front-end; the functions here take what they are given.

// rewriteFunc computes the new value of a string from its current one
// (nil, exists=false when missing) and its encoding. It returns the new
// value (nil: no write), which the write copies into the key's record.
type rewriteFunc func(old []byte, enc Encoding, exists bool) (value []byte, err error)

// rewriteString is the read-modify-write path of the bit and HyperLogLog
// commands. A value is written even when fn also returns an error (PFADD
// keeps what it added before meeting a corrupted HLL). The key keeps its
// expiry and memcached flags; the new value is a raw string, as Redis
// leaves every string it changes in place. denyOOM refuses the write over
// maxmemory; countLookup counts the lookup as a keyspace hit or miss
// (Redis counts read lookups only).
func (d DB) rewriteString(key []byte, denyOOM, countLookup bool, fn rewriteFunc) error {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, h, now, slot := k.s, k.h, k.now, k.slot
	var (
		old []byte
		enc Encoding
		buf *[]byte
	)
	if slot >= 0 {
		en := &s.entries[slot]
		if countLookup {
			s.lookedUp(1, 0)
		}
		d.touch(en, now)
		if en.typ != TypeString {
			return ErrWrongType
		}
		old, buf = s.plainValue(en, true)
		enc = en.encoding()
	} else if countLookup {
		s.lookedUp(0, 1)
	}
	value, err := fn(old, enc, slot >= 0)
	putBuf(buf) // fn copies what it keeps of old
	if value == nil {
		return err
	}
	if denyOOM && d.overLimit() {
		return ErrOOM
	}
	d.storePlain(s, slot, key, h, value, EncRaw, keepMeta, now)
	return err
}

// readString returns the string at key i of a KeyTx, counting the lookup
// as Redis's lookupKeyRead does. ok is false for a missing key;
// ErrWrongType for another type.
func (tx *KeyTx) readString(i int) (v []byte, enc Encoding, ok bool, err error) {
	k := tx.at(i)
	s := k.s
	if k.slot < 0 {
		s.lookedUp(0, 1)
		return nil, 0, false, nil
	}
	s.lookedUp(1, 0)
	en := &s.entries[k.slot]
	tx.d.touch(en, tx.now)
	if en.typ != TypeString {
		return nil, 0, false, ErrWrongType
	}
	v, _ = s.plainValue(en, false)
	en.bits |= entryShared // v may be the record's bytes (arena.go)
	return v, en.encoding(), true, nil
}

// writeString stores v (a raw string) at key i of a KeyTx, replacing
// whatever it held. With replace (Redis's setKey: BITOP) the key loses its
// expiry and memcached flags; otherwise (PFMERGE changes its destination in
// place) it keeps them.
func (tx *KeyTx) writeString(i int, v []byte, replace bool) {
	k := tx.at(i)
	m := keepMeta
	if replace {
		m = &recordMeta{}
	}
	tx.d.storePlain(k.s, k.slot, tx.keys[i], k.h, v, EncRaw, m, k.now)
}

// --- reading bits --------------------------------------------------------

// GetBit returns the bit at offset of v; bits past the end are 0.
func GetBit(v []byte, offset uint64) int {
	b := offset >> 3
	if b >= uint64(len(v)) {
		return 0
	}
	return int(v[b]>>(7-offset&7)) & 1
}

// BitRange is the optional range of BITCOUNT and BITPOS: Start and End
// count from 0, negative values from the end; in bytes, or in bits with
// Bit.
type BitRange struct {
	Start, End int64
	HasStart   bool // a range was given (BITCOUNT: both ends; BITPOS: at least Start)
	HasEnd     bool // BITPOS: the end was given
	Bit        bool // BIT: Start and End are bit indexes
}

// normalize applies Redis 7.0's index rules to a string of n bytes: it
// returns the first and last byte of the range and, for a bit range, masks
// of the bits of those bytes that lie outside it. empty reports a range
// with nothing in it.
func (r BitRange) normalize(n int64, defaultEnd int64) (start, end int64, firstMask, lastMask byte, empty bool) {
	total := n
	start, end = r.Start, r.End
	if !r.HasEnd {
		end = defaultEnd
	}
	if r.Bit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	if r.Bit && start <= end {
		firstMask = ^byte(1<<(8-(start&7)) - 1)
		lastMask = byte(1<<(7-(end&7)) - 1)
		start >>= 3
		end >>= 3
	}
	return start, end, firstMask, lastMask, start > end
}

// BitCount counts the bits set in v, in r when r.HasStart (BITCOUNT).
func BitCount(v []byte, r BitRange) int64 {
	if !r.HasStart {
		return popcount(v)
	}
	if r.Start < 0 && r.End < 0 && r.Start > r.End {
		return 0
	}
	r.HasEnd = true
	start, end, firstMask, lastMask, empty := r.normalize(int64(len(v)), 0)
	if empty {
		return 0
	}
	count := popcount(v[start : end+1])
	count -= int64(bits.OnesCount8(v[start] & firstMask))
	count -= int64(bits.OnesCount8(v[end] & lastMask))
	return count
}

func popcount(v []byte) int64 {
	n := 0
	for len(v) >= 8 {
		n += bits.OnesCount64(uint64(v[0])<<56 | uint64(v[1])<<48 | uint64(v[2])<<40 | uint64(v[3])<<32 |
			uint64(v[4])<<24 | uint64(v[5])<<16 | uint64(v[6])<<8 | uint64(v[7]))
		v = v[8:]
	}
	for _, b := range v {
		n += bits.OnesCount8(b)
	}
	return int64(n)
}

// BitPos returns the position of the first bit equal to bit in v, within
// r when r.HasStart (BITPOS on an existing key), with Redis 7.0's answers
// at the edges: looking for a 0 without an explicit end finds the first
// bit after the string when all are 1 (the string is padded with zeros on
// the right); with an explicit end it is -1; an empty range is -1.
func BitPos(v []byte, bit int, r BitRange) int64 {
	var start, end int64
	var firstMask, lastMask byte
	if r.HasStart {
		defaultEnd := int64(len(v)) - 1
		if r.Bit {
			defaultEnd = int64(len(v))<<3 + 7
		}
		var empty bool
		start, end, firstMask, lastMask, empty = r.normalize(int64(len(v)), defaultEnd)
		if empty {
			return -1
		}
	} else {
		start, end = 0, int64(len(v))-1
		if start > end {
			return -1
		}
	}
	bytes := end - start + 1
	var pos int64
	var tmp [1]byte
	switch {
	case firstMask != 0:
		// The first byte holds bits before the range: mask them so they
		// never match.
		if bit == 1 {
			tmp[0] = v[start] &^ firstMask
		} else {
			tmp[0] = v[start] | firstMask
		}
		if lastMask != 0 && bytes == 1 {
			if bit == 1 {
				tmp[0] &^= lastMask
			} else {
				tmp[0] |= lastMask
			}
		}
		pos = bitpos(tmp[:], bit)
		if bytes == 1 || (pos != -1 && pos != 8) {
			break
		}
		start++
		bytes--
		fallthrough
	default:
		cur := bytes
		if lastMask != 0 {
			cur--
		}
		if cur > 0 {
			pos = bitpos(v[start:start+cur], bit)
			if bytes == cur || (pos != -1 && pos != cur<<3) {
				break
			}
			start += cur
			bytes -= cur
		}
		if bit == 1 {
			tmp[0] = v[end] &^ lastMask
		} else {
			tmp[0] = v[end] | lastMask
		}
		pos = bitpos(tmp[:], bit)
	}
	if r.HasEnd && bit == 0 && pos == bytes<<3 {
		return -1
	}
	if pos != -1 {
		pos += start << 3
	}
	return pos
}

// bitpos is Redis's redisBitpos: the first bit equal to bit in v; for a 1
// that is not there -1, for a 0 that is not there len(v)*8 (the first
// padding bit).
func bitpos(v []byte, bit int) int64 {
	skip := byte(0)
	if bit == 0 {
		skip = 0xff
	}
	for i, b := range v {
		if b != skip {
			if bit == 1 {
				return int64(i)<<3 + int64(bits.LeadingZeros8(b))
			}
			return int64(i)<<3 + int64(bits.LeadingZeros8(^b))
		}
	}
	if bit == 1 {
		return -1
	}
	return int64(len(v)) << 3
}

// --- SETBIT ----------------------------------------------------------------

// SetBit sets or clears the bit at offset of the string at key, growing it
// with zero bytes as needed (a missing key is created). It returns the
// bit's previous value, and whether the key was created, grew or had the
// bit flipped: Redis's SETBIT reports "setbit" only then. Errors:
// ErrWrongType, ErrOOM.
func (d DB) SetBit(key []byte, offset uint64, on int) (old int, changed bool, err error) {
	err = d.rewriteString(key, true, false, func(cur []byte, enc Encoding, exists bool) ([]byte, error) {
		b := offset >> 3
		old = GetBit(cur, offset)
		grow := !exists || uint64(len(cur)) <= b
		changed = grow || old != on
		if !grow && old == on && enc == EncRaw {
			return nil, nil // nothing changes; Redis does not signal it either
		}
		v := make([]byte, int(max(uint64(len(cur)), b+1)))
		copy(v, cur)
		shift := 7 - offset&7
		v[b] = v[b]&^(1<<shift) | byte(on)<<shift
		return v, nil
	})
	return old, changed, err
}

// --- BITOP -------------------------------------------------------------------

// BitOpKind is the operation of BITOP.
type BitOpKind uint8

// BITOP operations.
const (
	BitAnd BitOpKind = iota
	BitOr
	BitXor
	BitNot
)

// BitOp stores at dest the bitwise op of the strings at srcs (missing keys
// are empty strings, shorter strings are padded with zero bytes) and
// returns its length. dest loses its expiry; an empty result deletes it.
// Errors: ErrWrongType (a source is not a string), ErrOOM.
func (d DB) BitOp(op BitOpKind, dest []byte, srcs [][]byte) (int, error) {
	keys := make([][]byte, 0, len(srcs)+1)
	keys = append(append(keys, dest), srcs...)
	var n int
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		vals := make([][]byte, len(srcs))
		for i := range srcs {
			v, _, _, err := tx.readString(i + 1)
			if err != nil {
				return err
			}
			vals[i] = v
			n = max(n, len(v))
		}
		if n == 0 {
			if tx.Delete(0) { // Redis reports the destination it deleted
				tx.d.notifyLater(ClassGeneric, "del", dest)
			}
			return nil
		}
		if tx.d.overLimit() {
			return ErrOOM
		}
		tx.writeString(0, bitOp(op, vals, n), true)
		return nil
	})
	return n, err
}

func bitOp(op BitOpKind, vals [][]byte, n int) []byte {
	out := make([]byte, n)
	copy(out, vals[0])
	if op == BitNot {
		for i := range out {
			out[i] = ^out[i]
		}
		return out
	}
	for _, v := range vals[1:] {
		switch op {
		case BitAnd:
			for i := range out {
				if i < len(v) {
					out[i] &= v[i]
				} else {
					clear(out[i:])
					break
				}
			}
		case BitOr:
			for i, b := range v {
				out[i] |= b
			}
		case BitXor:
			for i, b := range v {
				out[i] ^= b
			}
		}
	}
	return out
}

// --- BITFIELD ------------------------------------------------------------------

// BitFieldKind is what one BITFIELD operation does.
type BitFieldKind uint8

// BITFIELD operations.
const (
	BitFieldGet BitFieldKind = iota
	BitFieldSet
	BitFieldIncrBy
)

// Overflow is the OVERFLOW behaviour of BITFIELD SET and INCRBY.
type Overflow uint8

// Overflow behaviours.
const (
	OverflowWrap Overflow = iota
	OverflowSat
	OverflowFail
)

// BitFieldOp is one GET, SET or INCRBY of a BITFIELD command.
type BitFieldOp struct {
	Kind     BitFieldKind
	Signed   bool
	Bits     uint8  // 1..64 signed, 1..63 unsigned
	Offset   uint64 // in bits
	Value    int64  // SET's value, INCRBY's increment
	Overflow Overflow
}

// BitFieldResult is one reply: the value read (GET), the old value (SET),
// the new value (INCRBY); Failed when OVERFLOW FAIL refused the change.
type BitFieldResult struct {
	Value  int64
	Failed bool
}

// BitFieldRead runs GET operations on v (nil for a missing key), bits past
// the end reading as 0, and appends their results to out.
func BitFieldRead(v []byte, ops []BitFieldOp, out []BitFieldResult) []BitFieldResult {
	for _, op := range ops {
		out = append(out, BitFieldResult{Value: bitfieldGet(v, op)})
	}
	return out
}

// BitField runs ops, at least one of them a write, on the string at key,
// which is created or grown with zero bytes first to hold the highest bit
// any write touches (even when OVERFLOW FAIL then writes nothing). Results
// are appended to out. It also reports whether a write that did not fail
// changed the key, created it or grew it: Redis's BITFIELD reports
// "setbit" only then. Errors: ErrWrongType, ErrOOM.
func (d DB) BitField(key []byte, ops []BitFieldOp, out []BitFieldResult) (_ []BitFieldResult, modified bool, err error) {
	var highest uint64
	for _, op := range ops {
		if op.Kind != BitFieldGet {
			highest = max(highest, op.Offset+uint64(op.Bits)-1)
		}
	}
	base := len(out)
	err = d.rewriteString(key, true, false, func(cur []byte, enc Encoding, exists bool) ([]byte, error) {
		out = out[:base]
		need := highest>>3 + 1
		grow := !exists || uint64(len(cur)) < need
		v := make([]byte, int(max(uint64(len(cur)), need)))
		copy(v, cur)
		changed, wrote := false, false
		for _, op := range ops {
			res, c := bitfieldApply(v, op)
			changed = changed || c
			wrote = wrote || op.Kind != BitFieldGet && !res.Failed
			out = append(out, res)
		}
		modified = changed || grow && wrote
		if !grow && !changed && enc == EncRaw {
			return nil, nil
		}
		return v, nil
	})
	return out, modified, err
}

// bitfieldApply runs one operation on v, which is long enough for every
// write; it reports whether the stored bits changed.
func bitfieldApply(v []byte, op BitFieldOp) (BitFieldResult, bool) {
	if op.Kind == BitFieldGet {
		return BitFieldResult{Value: bitfieldGet(v, op)}, false
	}
	bitsN := uint64(op.Bits)
	var oldval, newval, retval uint64
	var overflow bool
	if op.Signed {
		o := getSigned(v, op.Offset, bitsN)
		var n int64
		if op.Kind == BitFieldIncrBy {
			var wrapped int64
			overflow, wrapped = signedOverflow(o, op.Value, bitsN, op.Overflow)
			n = o + op.Value
			if overflow {
				n = wrapped
			}
			retval = uint64(n)
		} else {
			var wrapped int64
			n = op.Value
			overflow, wrapped = signedOverflow(n, 0, bitsN, op.Overflow)
			if overflow {
				n = wrapped
			}
			retval = uint64(o)
		}
		oldval, newval = uint64(o), uint64(n)
	} else {
		oldval = getUnsigned(v, op.Offset, bitsN)
		var wrapped uint64
		if op.Kind == BitFieldIncrBy {
			newval = oldval + uint64(op.Value)
			overflow, wrapped = unsignedOverflow(oldval, op.Value, bitsN, op.Overflow)
			if overflow {
				newval = wrapped
			}
			retval = newval
		} else {
			newval = uint64(op.Value)
			overflow, wrapped = unsignedOverflow(newval, 0, bitsN, op.Overflow)
			if overflow {
				newval = wrapped
			}
			retval = oldval
		}
	}
	if overflow && op.Overflow == OverflowFail {
		return BitFieldResult{Failed: true}, false
	}
	setUnsigned(v, op.Offset, bitsN, newval)
	return BitFieldResult{Value: int64(retval)}, oldval != newval
}

// bitfieldGet reads the field op describes; bits past the end of v are 0.
func bitfieldGet(v []byte, op BitFieldOp) int64 {
	// Copy the (at most 9) bytes holding the field into a zero-padded
	// buffer, as Redis does.
	var buf [9]byte
	b := op.Offset >> 3
	if b < uint64(len(v)) {
		copy(buf[:], v[b:])
	}
	off := op.Offset - b*8
	if op.Signed {
		return getSigned(buf[:], off, uint64(op.Bits))
	}
	return int64(getUnsigned(buf[:], off, uint64(op.Bits)))
}

func getUnsigned(p []byte, offset, n uint64) uint64 {
	var v uint64
	for j := uint64(0); j < n; j++ {
		o := offset + j
		v = v<<1 | uint64(p[o>>3]>>(7-o&7)&1)
	}
	return v
}

func getSigned(p []byte, offset, n uint64) int64 {
	v := getUnsigned(p, offset, n)
	if n < 64 && v&(1<<(n-1)) != 0 {
		v |= ^uint64(0) << n
	}
	return int64(v)
}

func setUnsigned(p []byte, offset, n, value uint64) {
	for j := uint64(0); j < n; j++ {
		bit := byte(value>>(n-1-j)) & 1
		o := offset + j
		shift := 7 - o&7
		p[o>>3] = p[o>>3]&^(1<<shift) | bit<<shift
	}
}

// unsignedOverflow is Redis's checkUnsignedBitfieldOverflow: whether
// value+incr leaves the n-bit unsigned range and, when it does, the value
// to store instead (wrapped, or saturated at the limit passed).
func unsignedOverflow(value uint64, incr int64, n uint64, ow Overflow) (bool, uint64) {
	maxv := uint64(1)<<n - 1
	maxincr := int64(maxv - value)
	minincr := -int64(value)
	wrap := func() uint64 { return (value + uint64(incr)) & maxv }
	if value > maxv || (incr > 0 && incr > maxincr) {
		return overflowed(ow, wrap, maxv)
	}
	if incr < 0 && incr < minincr {
		return overflowed(ow, wrap, 0)
	}
	return false, 0
}

// signedOverflow is Redis's checkSignedBitfieldOverflow for an n-bit
// signed field.
func signedOverflow(value, incr int64, n uint64, ow Overflow) (bool, int64) {
	maxv := int64(1)<<(n-1) - 1
	if n == 64 {
		maxv = 1<<63 - 1
	}
	minv := -maxv - 1
	maxincr := maxv - value
	minincr := minv - value
	wrap := func() int64 {
		c := uint64(value) + uint64(incr)
		mask := ^uint64(0) << n // 0 for n == 64
		if c&(1<<(n-1)) != 0 {
			c |= mask
		} else {
			c &^= mask
		}
		return int64(c)
	}
	if value > maxv || (n != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr) {
		return overflowed(ow, wrap, maxv)
	}
	if value < minv || (n != 64 && incr < minincr) || (value < 0 && incr < 0 && incr < minincr) {
		return overflowed(ow, wrap, minv)
	}
	return false, 0
}

// overflowed is the answer of the overflow checks for a value out of
// range: the value to store under ow, the wrapped one or limit (the bound
// it crossed); with FAIL, 0, and the write does not happen.
func overflowed[T int64 | uint64](ow Overflow, wrap func() T, limit T) (bool, T) {
	switch ow {
	case OverflowWrap:
		return true, wrap()
	case OverflowSat:
		return true, limit
	}
	return true, 0
}
