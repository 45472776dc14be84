package rdb

import (
	"encoding/binary"
	"math"

	"github.com/tandemkv/tandem/internal/num"
)

// Encoders for the compact blobs redis-server 7.0 keeps in memory and
// writes as they are (DUMP, and its RDB files): listpacks, intsets, and
// the quicklist nodes of a list. They build what Redis builds for the same
// elements added in the same order, byte for byte, so a payload made here
// is the payload Redis makes (decoders: encoding.go).

// listpackBuilder appends entries to a listpack under construction:
//
//	<total-bytes uint32le> <count uint16le> <entry>... <0xFF>
//
// Its buffer is reused from one listpack to the next.
type listpackBuilder struct {
	buf []byte
	n   int
}

// lpHeader and lpEmpty are the sizes of a listpack's header and of an
// empty listpack (header and terminator): Redis's LP_HDR_SIZE and lpNew.
const (
	lpHeader = 6
	lpEmpty  = lpHeader + 1
)

// reset starts a new, empty listpack.
func (lp *listpackBuilder) reset() {
	lp.buf = append(lp.buf[:0], 0, 0, 0, 0, 0, 0)
	lp.n = 0
}

// size is what lpBytes would answer for the listpack so far (terminator
// included).
func (lp *listpackBuilder) size() int { return len(lp.buf) + 1 }

// addString appends s as Redis's lpAppend does: as an integer entry when s
// is the canonical decimal of an int64 (lpStringToInt64, Redis's
// string2ll), else as a string entry.
func (lp *listpackBuilder) addString(s []byte) {
	if v, ok := lpInteger(s); ok {
		lp.addInt(v)
		return
	}
	start := len(lp.buf)
	n := len(s)
	switch lpStringHeader(n) {
	case 1:
		lp.buf = append(lp.buf, 0x80|byte(n))
	case 2:
		lp.buf = append(lp.buf, 0xE0|byte(n>>8), byte(n))
	default:
		lp.buf = append(lp.buf, 0xF0)
		lp.buf = binary.LittleEndian.AppendUint32(lp.buf, uint32(n))
	}
	lp.buf = append(lp.buf, s...)
	lp.endEntry(start)
}

// lpInteger reports whether a listpack stores s as an integer, and which.
func lpInteger(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	return num.ParseInt(s)
}

// lpStringHeader is the size of a string entry's header: 6-, 12- or
// 32-bit length.
func lpStringHeader(n int) int {
	switch {
	case n < 64:
		return 1
	case n < 4096:
		return 2
	}
	return 5
}

// lpIntSize is the size of v's integer entry: a 7-bit or 13-bit immediate,
// or a tag byte and 2, 3, 4 or 8 bytes.
func lpIntSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 3
	case v >= -1<<23 && v < 1<<23:
		return 4
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 5
	}
	return 9
}

// addInt appends v in the smallest integer encoding that holds it.
func (lp *listpackBuilder) addInt(v int64) {
	start := len(lp.buf)
	switch n := lpIntSize(v); n {
	case 1:
		lp.buf = append(lp.buf, byte(v))
	case 2:
		u := uint64(v) & (1<<13 - 1) // 13-bit two's complement
		lp.buf = append(lp.buf, 0xC0|byte(u>>8), byte(u))
	default:
		tags := [...]byte{3: 0xF1, 4: 0xF2, 5: 0xF3, 9: 0xF4}
		lp.buf = append(lp.buf, tags[n])
		for i := 0; i < n-1; i++ {
			lp.buf = append(lp.buf, byte(uint64(v)>>(8*i)))
		}
	}
	lp.endEntry(start)
}

// endEntry appends the backlen of the entry that starts at start: its size
// in 7-bit groups, most significant first, every byte but the first with
// the high bit set (so it reads right to left).
func (lp *listpackBuilder) endEntry(start int) {
	l := uint64(len(lp.buf) - start)
	n := backlenSize(int(l))
	for i := n - 1; i >= 0; i-- {
		c := byte(l >> (7 * uint(i)) & 0x7F)
		if i != n-1 {
			c |= 0x80
		}
		lp.buf = append(lp.buf, c)
	}
	lp.n++
}

// finish terminates the listpack and fills in its header; the result is
// valid until the next reset.
func (lp *listpackBuilder) finish() []byte {
	lp.buf = append(lp.buf, 0xFF)
	binary.LittleEndian.PutUint32(lp.buf, uint32(len(lp.buf)))
	binary.LittleEndian.PutUint16(lp.buf[4:], uint16(min(lp.n, 0xFFFF))) // 65535: "count unknown"
	return lp.buf
}

// addScore appends a sorted-set score as Redis's zzlInsertAt stores it: an
// integer entry when the score is integral within ±2^62 (double2ll),
// otherwise its d2string text ("%.17g", "inf", "-inf").
func (lp *listpackBuilder) addScore(s float64) {
	const lim = 1 << 62
	if s >= -lim && s <= lim && s == math.Trunc(s) {
		lp.addInt(int64(s))
		return
	}
	var tmp [32]byte
	lp.addString(num.AppendG17(tmp[:0], s))
}

// intsetBlob appends the intset of the integer members (ascending) with
// width bytes a member (2, 4 or 8; 0 picks the narrowest that holds them
// all): <width uint32le> <count uint32le> <members little endian>. Redis
// never narrows an intset when its widest member goes, so the width is the
// holder's to say. ok is false when a member is not an integer or does not
// fit width.
func intsetBlob(dst []byte, members [][]byte, width int) (_ []byte, ok bool) {
	vals := make([]int64, len(members))
	need := 2
	for i, m := range members {
		v, ok := num.ParseInt(m)
		if !ok {
			return dst, false
		}
		vals[i] = v
		switch {
		case v < math.MinInt32 || v > math.MaxInt32:
			need = 8
		case (v < math.MinInt16 || v > math.MaxInt16) && need < 4:
			need = 4
		}
	}
	if width == 0 {
		width = need
	}
	if width != 2 && width != 4 && width != 8 || width < need {
		return dst, false
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(width))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(vals)))
	for _, v := range vals {
		for i := 0; i < width; i++ {
			dst = append(dst, byte(uint64(v)>>(8*i)))
		}
	}
	return dst, true
}

// Quicklist node packing, as redis-server 7.0's quicklistPushTail fills
// nodes: an element goes into the tail node while the node's listpack size
// plus the element's length plus 8 stays within the list-max-listpack-size
// limit (for a negative fill: 4, 8, 16, 32 or 64 KB), or, for a positive
// fill, while that estimate stays within 8 KB and the node has fewer than
// fill elements; otherwise a new node starts. An element of 1 GB or more
// (packed_threshold) is a plain node of its own.

const (
	qlSizeEstimateOverhead = 8
	qlSizeSafetyLimit      = 8192
	qlPackedThreshold      = 1 << 30
	qlFillMax              = 1<<15 - 1
)

var qlOptimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

// quicklistAllows is _quicklistNodeAllowInsert for a packed node of
// nodeSize bytes and count elements receiving an element of sz bytes.
func quicklistAllows(fill, nodeSize, count, sz int) bool {
	if sz >= qlPackedThreshold {
		return false
	}
	newSize := nodeSize + sz + qlSizeEstimateOverhead
	if fill < 0 {
		if off := -fill - 1; off < len(qlOptimizationLevel) && newSize <= qlOptimizationLevel[off] {
			return true
		}
	}
	if newSize > qlSizeSafetyLimit {
		return false
	}
	return count < fill
}

// clampFill is quicklistSetFill: a fill outside -5..32767 is clamped.
func clampFill(fill int) int {
	return max(-5, min(fill, qlFillMax))
}
