package engine

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// HyperLogLog in Redis's own representation, byte for byte, so that a value
// written by either server is read by the other (GET, SET, a future RDB
// exchange) and PFCOUNT gives the same number for the same input.
//
// An HLL is a string: a 16-byte header ("HYLL", the encoding byte, three
// unused bytes, the cached cardinality as 8 little-endian bytes whose top
// bit marks it stale) followed by 16384 6-bit registers, either dense
// (12288 bytes, registers packed from the least significant bit) or sparse
// (run-length opcodes: ZERO 00xxxxxx, XZERO 01xxxxxx yyyyyyyy, VAL
// 1vvvvvxx). New HLLs are sparse; a sparse HLL turns dense once a register
// exceeds 32 or it would grow past hll-sparse-max-bytes. Every function
// here is a transcription of Redis 7.0's hyperloglog.c, including what it
// does with corrupted input, because that too is visible to clients.

const (
	hllP           = 14
	hllQ           = 64 - hllP
	hllRegisters   = 1 << hllP
	hllPMask       = hllRegisters - 1
	hllBits        = 6
	hllRegisterMax = 1<<hllBits - 1
	hllHdrSize     = 16
	hllDenseSize   = hllHdrSize + (hllRegisters*hllBits+7)/8
	hllEncDense    = 0
	hllEncSparse   = 1
	hllMaxEncoding = 1
	hllSeed        = 0xadc83b19
	hllAlphaInf    = 0.721347520444481703680 // 0.5/ln(2)

	sparseXZeroBit    = 0x40
	sparseValBit      = 0x80
	sparseValMaxValue = 32
	sparseValMaxLen   = 4
	sparseZeroMaxLen  = 64
	sparseXZeroMaxLen = 16384
)

// HLLSparseMaxBytes is the default of Redis's hll-sparse-max-bytes: a
// sparse HLL that would grow beyond it (header included) turns dense.
const HLLSparseMaxBytes = 3000

// HyperLogLog errors. Front-ends reply them as Redis does:
// "WRONGTYPE Key is not a valid HyperLogLog string value." and
// "INVALIDOBJ Corrupted HLL object detected".
var (
	// ErrNotHLL: the key holds a string that is not an HLL (no "HYLL"
	// header, an unknown encoding, a dense HLL of the wrong length).
	ErrNotHLL = errors.New("engine: key is not a valid HyperLogLog string value")
	// ErrCorruptHLL: a sparse HLL whose opcodes do not cover exactly 16384
	// registers.
	ErrCorruptHLL = errors.New("engine: corrupted HLL object")
)

// murmurHash64A is MurmurHash2, 64-bit version, as Redis uses it (reading
// 8-byte words little endian on every platform).
func murmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ (uint64(len(key)) * m)
	n := len(key) &^ 7
	for i := 0; i < n; i += 8 {
		k := binary.LittleEndian.Uint64(key[i:])
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	tail := key[n:]
	switch len(tail) {
	case 7:
		h ^= uint64(tail[6]) << 48
		fallthrough
	case 6:
		h ^= uint64(tail[5]) << 40
		fallthrough
	case 5:
		h ^= uint64(tail[4]) << 32
		fallthrough
	case 4:
		h ^= uint64(tail[3]) << 24
		fallthrough
	case 3:
		h ^= uint64(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint64(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint64(tail[0])
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// hllPatLen returns the register an element hashes to and the length of
// the 000..1 pattern after the index bits (1 to 51).
func hllPatLen(ele []byte) (index int, count uint8) {
	hash := murmurHash64A(ele, hllSeed)
	index = int(hash & hllPMask)
	hash >>= hllP
	hash |= 1 << hllQ // the loop in Redis stops at bit Q at the latest
	return index, uint8(bits.TrailingZeros64(hash) + 1)
}

// newHLL returns an empty HLL as Redis's createHLLObject makes it: sparse,
// one XZERO opcode covering all registers, a valid cached cardinality of 0.
func newHLL() []byte {
	v := make([]byte, hllHdrSize+2, hllHdrSize+16)
	copy(v, "HYLL")
	v[4] = hllEncSparse
	sparseXZeroSet(v[hllHdrSize:], hllRegisters)
	return v
}

// isHLL is Redis's isHLLObjectOrReply for a string value.
func isHLL(v []byte) bool {
	if len(v) < hllHdrSize || string(v[:4]) != "HYLL" || v[4] > hllMaxEncoding {
		return false
	}
	return v[4] != hllEncDense || len(v) == hllDenseSize
}

func hllCacheValid(v []byte) bool { return v[15]&0x80 == 0 }
func hllInvalidateCache(v []byte) { v[15] |= 0x80 }

// --- dense registers ---------------------------------------------------

// denseGet reads register i. Redis reads one byte past the registers for
// the last one (the sds terminator); its bits are masked off, so a missing
// byte reads as zero here.
func denseGet(r []byte, i int) uint8 {
	b := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	b0 := uint(r[b])
	var b1 uint
	if b+1 < len(r) {
		b1 = uint(r[b+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & hllRegisterMax)
}

func denseSet(r []byte, i int, val uint8) {
	b := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	fb8 := 8 - fb
	v := uint(val)
	r[b] &^= byte(hllRegisterMax << fb)
	r[b] |= byte(v << fb)
	if b+1 < len(r) {
		r[b+1] &^= byte(hllRegisterMax >> fb8)
		r[b+1] |= byte(v >> fb8)
	}
}

// denseSetMax raises register i to count; it reports whether it changed.
func denseSetMax(r []byte, i int, count uint8) bool {
	if count > denseGet(r, i) {
		denseSet(r, i, count)
		return true
	}
	return false
}

// denseHisto adds the dense registers' value histogram to h, four
// registers per three bytes.
func denseHisto(r []byte, h *[64]int) {
	for i := 0; i+3 <= hllRegisters*hllBits/8; i += 3 {
		b0, b1, b2 := r[i], r[i+1], r[i+2]
		h[b0&63]++
		h[(b0>>6|b1<<2)&63]++
		h[(b1>>4|b2<<4)&63]++
		h[b2>>2]++
	}
}

// --- sparse opcodes ----------------------------------------------------

func sparseIsZero(op byte) bool  { return op&0xc0 == 0 }
func sparseIsXZero(op byte) bool { return op&0xc0 == sparseXZeroBit }
func sparseIsVal(op byte) bool   { return op&sparseValBit != 0 }
func sparseZeroLen(op byte) int  { return int(op&0x3f) + 1 }
func sparseValValue(op byte) int { return int(op>>2&0x1f) + 1 }
func sparseValLen(op byte) int   { return int(op&0x3) + 1 }

// sparseXZeroLen reads the XZERO opcode at v[p]. A truncated opcode at the
// very end reads the byte after the string as Redis does: the sds
// terminator, zero.
func sparseXZeroLen(v []byte, p int) int {
	var lo byte
	if p+1 < len(v) {
		lo = v[p+1]
	}
	return (int(v[p]&0x3f)<<8 | int(lo)) + 1
}

func sparseValByte(val, n int) byte { return byte((val-1)<<2|(n-1)) | sparseValBit }

func sparseXZeroSet(p []byte, n int) {
	n--
	p[0] = byte(n>>8) | sparseXZeroBit
	p[1] = byte(n)
}

// sparseToDense converts a sparse HLL to dense, keeping the header (the
// cached cardinality included). ok is false when the opcodes do not cover
// exactly 16384 registers.
func sparseToDense(v []byte) (dense []byte, ok bool) {
	if v[4] == hllEncDense {
		return v, true
	}
	dense = make([]byte, hllDenseSize)
	copy(dense, v[:hllHdrSize])
	dense[4] = hllEncDense
	regs := dense[hllHdrSize:]
	idx := 0
	for p := hllHdrSize; p < len(v); {
		op := v[p]
		switch {
		case sparseIsZero(op):
			idx += sparseZeroLen(op)
			p++
		case sparseIsXZero(op):
			idx += sparseXZeroLen(v, p)
			p += 2
		default:
			n, val := sparseValLen(op), sparseValValue(op)
			if n+idx > hllRegisters {
				return nil, false
			}
			for ; n > 0; n-- {
				denseSet(regs, idx, uint8(val))
				idx++
			}
			p++
		}
	}
	return dense, idx == hllRegisters
}

// sparseSet is Redis's hllSparseSet: it raises register index to count in
// the sparse HLL v and returns the HLL (reallocated, or promoted to dense)
// and 1 when the register changed, 0 when it did not, -1 when v is
// corrupted. The sparse form is edited in place exactly as Redis edits it,
// so the bytes stay identical.
func sparseSet(v []byte, index int, count uint8, maxBytes int) ([]byte, int) {
	return sparseSetFrom(v, index, count, maxBytes, nil)
}

// sparseCursor lets a caller that sets registers in increasing order
// (PFMERGE) skip the part of the opcodes it has passed: pos is an opcode
// that no later change moves (the one before the last change: Redis's
// step 4 merges from there on, never before) and first the register it
// starts at. The zero value means "from the start". It changes the time a
// PFMERGE into a sparse HLL takes from quadratic to linear; the bytes
// written are the same.
type sparseCursor struct{ pos, first int }

// sparseSetFrom is sparseSet starting its search at cur (nil: the start).
func sparseSetFrom(v []byte, index int, count uint8, maxBytes int, cur *sparseCursor) ([]byte, int) {
	if count > sparseValMaxValue {
		return sparsePromote(v, index, count)
	}
	// Step 1: find the opcode covering index.
	end := len(v)
	p, prev := hllHdrSize, -1
	first, span := 0, 0
	if cur != nil && cur.pos > 0 {
		p, first = cur.pos, cur.first
	}
	prevFirst := 0
	for p < end {
		oplen := 1
		op := v[p]
		switch {
		case sparseIsZero(op):
			span = sparseZeroLen(op)
		case sparseIsVal(op):
			span = sparseValLen(op)
		default:
			span = sparseXZeroLen(v, p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev, prevFirst = p, first
		p += oplen
		first += span
	}
	if cur != nil && cur.pos > 0 && prev < 0 {
		// Found at the cursor itself: its own previous opcode, where the
		// merge step must start, is unknown here. Search from the start.
		*cur = sparseCursor{}
		return sparseSetFrom(v, index, count, maxBytes, cur)
	}
	if cur != nil && prev >= 0 {
		*cur = sparseCursor{pos: prev, first: prevFirst}
	}
	if span == 0 || p >= end {
		return v, -1
	}
	op := v[p]
	isZero, isXZero, isVal := sparseIsZero(op), sparseIsXZero(op), false
	var runlen int
	switch {
	case isZero:
		runlen = sparseZeroLen(op)
	case isXZero:
		runlen = sparseXZeroLen(v, p)
	default:
		isVal = true
		runlen = sparseValLen(op)
	}

	// Step 2: the trivial in-place cases.
	if isVal {
		if sparseValValue(op) >= int(count) {
			return v, 0
		}
		if runlen == 1 {
			v[p] = sparseValByte(int(count), 1)
			return sparseMerge(v, prev), 1
		}
	}
	if isZero && runlen == 1 {
		v[p] = sparseValByte(int(count), 1)
		return sparseMerge(v, prev), 1
	}

	// The general case: split the opcode into up to three.
	var seqBuf [5]byte
	seq := seqBuf[:0]
	last := first + span - 1
	if isZero || isXZero {
		seq = appendZeros(seq, index-first)
		seq = append(seq, sparseValByte(int(count), 1))
		seq = appendZeros(seq, last-index)
	} else {
		cur := sparseValValue(op)
		if index != first {
			seq = append(seq, sparseValByte(cur, index-first))
		}
		seq = append(seq, sparseValByte(int(count), 1))
		if index != last {
			seq = append(seq, sparseValByte(cur, last-index))
		}
	}

	// Step 3: put the sequence in place of the opcode.
	oldlen := 1
	if isXZero {
		oldlen = 2
	}
	delta := len(seq) - oldlen
	if delta > 0 && len(v)+delta > maxBytes {
		return sparsePromote(v, index, count)
	}
	newLen := len(v) + delta
	var tail []byte
	if p+oldlen < len(v) {
		tail = v[p+oldlen:]
	}
	if need := max(newLen, p+len(seq)+len(tail)); need > cap(v) {
		grown := make([]byte, need, need+need/4+8)
		copy(grown, v)
		v = grown
		if tail != nil {
			tail = v[p+oldlen : p+oldlen+len(tail)]
		}
	} else if need > len(v) {
		v = v[:need]
	}
	copy(v[p+len(seq):], tail)
	copy(v[p:], seq)
	// A truncated XZERO at the end loses the bytes past the new length, as
	// in Redis, which adjusts the length by delta whatever was there.
	v = v[:newLen]
	return sparseMerge(v, prev), 1
}

// appendZeros appends a ZERO or XZERO opcode for n registers (none for 0).
func appendZeros(seq []byte, n int) []byte {
	switch {
	case n == 0:
		return seq
	case n > sparseZeroMaxLen:
		var x [2]byte
		sparseXZeroSet(x[:], n)
		return append(seq, x[0], x[1])
	}
	return append(seq, byte(n-1))
}

// sparseMerge is step 4 of hllSparseSet: starting at the opcode before the
// changed one, merge adjacent VAL opcodes of equal value while their runs
// fit one opcode, looking at five opcodes at most. It also marks the cached
// cardinality stale.
func sparseMerge(v []byte, prev int) []byte {
	p := hllHdrSize
	if prev >= 0 {
		p = prev
	}
	end := len(v)
	for scan := 5; p < end && scan > 0; {
		scan--
		op := v[p]
		if sparseIsXZero(op) {
			p += 2
			continue
		}
		if sparseIsZero(op) {
			p++
			continue
		}
		if p+1 < end && sparseIsVal(v[p+1]) {
			v1, v2 := sparseValValue(op), sparseValValue(v[p+1])
			if v1 == v2 {
				if n := sparseValLen(op) + sparseValLen(v[p+1]); n <= sparseValMaxLen {
					v[p+1] = sparseValByte(v1, n)
					copy(v[p:], v[p+1:end])
					end--
					v = v[:end]
					continue
				}
			}
		}
		p++
	}
	hllInvalidateCache(v)
	return v
}

// sparsePromote converts v to dense and sets the register there.
func sparsePromote(v []byte, index int, count uint8) ([]byte, int) {
	dense, ok := sparseToDense(v)
	if !ok {
		return v, -1
	}
	denseSetMax(dense[hllHdrSize:], index, count)
	return dense, 1
}

// sparseHisto adds the sparse registers' histogram to h; ok is false when
// the opcodes do not cover exactly 16384 registers.
func sparseHisto(v []byte, h *[64]int) (ok bool) {
	idx := 0
	for p := hllHdrSize; p < len(v); {
		op := v[p]
		switch {
		case sparseIsZero(op):
			n := sparseZeroLen(op)
			idx += n
			h[0] += n
			p++
		case sparseIsXZero(op):
			n := sparseXZeroLen(v, p)
			idx += n
			h[0] += n
			p += 2
		default:
			n := sparseValLen(op)
			idx += n
			h[sparseValValue(op)] += n
			p++
		}
	}
	return idx == hllRegisters
}

// hllMergeInto raises max[i] to each register of the HLL v (Redis's
// hllMerge); false for a corrupted sparse HLL.
func hllMergeInto(max *[hllRegisters]uint8, v []byte) bool {
	if v[4] == hllEncDense {
		r := v[hllHdrSize:]
		for i := 0; i < hllRegisters; i++ {
			if val := denseGet(r, i); val > max[i] {
				max[i] = val
			}
		}
		return true
	}
	i := 0
	for p := hllHdrSize; p < len(v); {
		op := v[p]
		switch {
		case sparseIsZero(op):
			i += sparseZeroLen(op)
			p++
		case sparseIsXZero(op):
			i += sparseXZeroLen(v, p)
			p += 2
		default:
			n, val := sparseValLen(op), uint8(sparseValValue(op))
			if n+i > hllRegisters {
				return false
			}
			for ; n > 0; n-- {
				if val > max[i] {
					max[i] = val
				}
				i++
			}
			p++
		}
	}
	return i == hllRegisters
}

// hllSigma and hllTau are the helpers of Otmar Ertl's estimator ("New
// cardinality estimation algorithms for HyperLogLog sketches",
// arXiv:1702.01284) as Redis computes them. The explicit float64
// conversions keep Go from fusing a multiply and an add, which C (as
// Redis is built) does not do either.
func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zPrime := z
		z += float64(x * y)
		y += y
		if zPrime == z {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if zPrime == z {
			return z / 3
		}
	}
}

// hllEstimate turns a register histogram into the cardinality estimate.
func hllEstimate(h *[64]int) uint64 {
	const m = float64(hllRegisters)
	z := m * hllTau((m-float64(h[hllQ+1]))/m)
	for j := hllQ; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += m * hllSigma(float64(h[0])/m)
	return uint64(int64(math.Round(hllAlphaInf * m * m / z)))
}

// hllCount computes the cardinality of the HLL v; ok is false for a
// corrupted sparse HLL.
func hllCount(v []byte) (uint64, bool) {
	var h [64]int
	if v[4] == hllEncDense {
		denseHisto(v[hllHdrSize:], &h)
	} else if !sparseHisto(v, &h) {
		return 0, false
	}
	return hllEstimate(&h), true
}

// hllCountRegisters is the cardinality of registers held one per byte
// (PFCOUNT of several keys).
func hllCountRegisters(max *[hllRegisters]uint8) uint64 {
	var h [64]int
	for _, r := range max {
		h[r&63]++
	}
	return hllEstimate(&h)
}

// hllAdd adds the elements to the HLL v (dense or sparse). It returns the
// HLL, whether any register changed, and false when v is corrupted (the
// elements before the failing one stay added, as in Redis).
func hllAdd(v []byte, elems [][]byte, sparseMax int) ([]byte, bool, bool) {
	updated := false
	for _, e := range elems {
		index, count := hllPatLen(e)
		switch v[4] {
		case hllEncDense:
			if denseSetMax(v[hllHdrSize:], index, count) {
				updated = true
			}
		case hllEncSparse:
			var r int
			v, r = sparseSet(v, index, count, sparseMax)
			if r < 0 {
				return v, updated, false
			}
			if r > 0 {
				updated = true
			}
		default:
			return v, updated, false
		}
	}
	return v, updated, true
}

// denseWouldChange reports whether adding elems would raise a register of
// the dense HLL v.
func denseWouldChange(v []byte, elems [][]byte) bool {
	r := v[hllHdrSize:]
	for _, e := range elems {
		if index, count := hllPatLen(e); count > denseGet(r, index) {
			return true
		}
	}
	return false
}

// hllClone copies an HLL with some room to grow a sparse one in place.
func hllClone(v []byte) []byte {
	out := make([]byte, len(v), len(v)+16)
	copy(out, v)
	return out
}

// PFAdd adds elements to the HLL at key, creating it (sparse) when missing.
// It reports whether the HLL changed (a new key always counts as changed).
// Errors: ErrWrongType (not a string), ErrNotHLL, ErrCorruptHLL.
// sparseMax is hll-sparse-max-bytes.
func (d DB) PFAdd(key []byte, elems [][]byte, sparseMax int) (bool, error) {
	updated := false
	err := d.rewriteString(key, true, false, func(old []byte, enc Encoding, exists bool) ([]byte, error) {
		var v []byte
		if exists {
			if !isHLL(old) {
				return nil, ErrNotHLL
			}
			if old[4] == hllEncDense && enc == EncRaw && !denseWouldChange(old, elems) {
				// The common case of a large HLL: nothing to write, no copy.
				return nil, nil
			}
			// Built on a copy; a sparse HLL may grow a few bytes in
			// place, into spare capacity.
			spare := 0
			if old[4] == hllEncSparse {
				spare = 3 * len(elems)
			}
			v = make([]byte, len(old), len(old)+spare)
			copy(v, old)
		} else {
			v = newHLL()
			updated = true
		}
		v, changed, ok := hllAdd(v, elems, sparseMax)
		updated = updated || changed
		if !ok {
			// What was added before the corrupted spot stays, in place.
			if updated || enc != EncRaw {
				return v, ErrCorruptHLL
			}
			return nil, ErrCorruptHLL
		}
		if updated {
			hllInvalidateCache(v)
		} else if enc == EncRaw {
			return nil, nil
		}
		// Redis unshares (makes raw) the value even when nothing changed.
		return v, nil
	})
	return updated, err
}

// PFCount returns the cardinality of the HLL at key (0 when missing). A
// stale cached cardinality is recomputed and stored back, as in Redis, so
// the value's bytes change. Errors: ErrWrongType, ErrNotHLL, ErrCorruptHLL.
func (d DB) PFCount(key []byte) (int64, error) {
	var card uint64
	err := d.rewriteString(key, false, true, func(old []byte, enc Encoding, exists bool) ([]byte, error) {
		if !exists {
			return nil, nil
		}
		if !isHLL(old) {
			return nil, ErrNotHLL
		}
		if hllCacheValid(old) {
			card = binary.LittleEndian.Uint64(old[8:16])
			if enc == EncRaw {
				return nil, nil
			}
			// Redis unshares (makes raw) the value even when it only reads.
			v := make([]byte, len(old))
			copy(v, old)
			return v, nil
		}
		n, ok := hllCount(old)
		if !ok {
			if enc == EncRaw {
				return nil, ErrCorruptHLL
			}
			v := make([]byte, len(old))
			copy(v, old)
			return v, ErrCorruptHLL
		}
		card = n
		v := make([]byte, len(old))
		copy(v, old)
		binary.LittleEndian.PutUint64(v[8:16], n)
		return v, nil
	})
	return int64(card), err
}

// PFCountUnion returns the cardinality of the union of the HLLs at keys
// (missing keys count as empty) without changing any of them. Errors:
// ErrWrongType, ErrNotHLL, ErrCorruptHLL, for the first key that has one.
func (d DB) PFCountUnion(keys [][]byte) (int64, error) {
	var card uint64
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		max := new([hllRegisters]uint8)
		for i := range keys {
			v, _, ok, err := tx.readString(i)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if !isHLL(v) {
				return ErrNotHLL
			}
			if !hllMergeInto(max, v) {
				return ErrCorruptHLL
			}
		}
		card = hllCountRegisters(max)
		return nil
	})
	return int64(card), err
}

// PFMerge merges the HLLs at srcs and at dest into dest (created sparse
// when missing, made dense when any input is dense). dest keeps its
// expiry. Errors: ErrWrongType, ErrNotHLL, ErrCorruptHLL, ErrOOM.
func (d DB) PFMerge(dest []byte, srcs [][]byte, sparseMax int) error {
	keys := make([][]byte, 0, len(srcs)+1)
	keys = append(append(keys, dest), srcs...)
	return d.WithKeys(keys, func(tx *KeyTx) error {
		max := new([hllRegisters]uint8)
		useDense := false
		var old []byte
		exists := false
		for i := range keys {
			v, _, ok, err := tx.readString(i)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if i == 0 {
				old, exists = v, true
			}
			if !isHLL(v) {
				return ErrNotHLL
			}
			if v[4] == hllEncDense {
				useDense = true
			}
			if !hllMergeInto(max, v) {
				return ErrCorruptHLL
			}
		}
		if tx.d.overLimit() {
			return ErrOOM
		}
		var v []byte
		if exists {
			v = hllClone(old)
		} else {
			v = newHLL()
		}
		if useDense {
			dense, ok := sparseToDense(v)
			if !ok {
				return ErrCorruptHLL
			}
			v = dense
		}
		var cur sparseCursor
		for j, m := range max {
			if m == 0 {
				continue
			}
			if v[4] == hllEncDense {
				denseSetMax(v[hllHdrSize:], j, m)
			} else {
				v, _ = sparseSetFrom(v, j, m, sparseMax, &cur)
			}
		}
		hllInvalidateCache(v)
		tx.writeString(0, v, false)
		return nil
	})
}
