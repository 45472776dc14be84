package engine

import (
	"math"

	"github.com/tandemkv/tandem/internal/num"
)

// The sizes of Redis's listpack elements, for the one decision a stream
// takes from them: where a block ends (stream-node-max-bytes is checked
// against the listpack's size in Redis). The listpack encoder itself is
// snapshot/rdb's (compact.go), which builds the bytes these count.

// lpOverhead is a listpack's header and terminator.
const lpOverhead = 6 + 1

// lpIntElemSize is the size of an integer element: its encoding and its
// backlen.
func lpIntElemSize(v int64) int64 {
	var n int64
	switch {
	case v >= 0 && v <= 127:
		n = 1
	case v >= -4096 && v <= 4095:
		n = 2
	case v >= math.MinInt16 && v <= math.MaxInt16:
		n = 3
	case v >= -1<<23 && v < 1<<23:
		n = 4
	case v >= math.MinInt32 && v <= math.MaxInt32:
		n = 5
	default:
		n = 9
	}
	return n + lpBacklenSize(n)
}

// lpStrElemSize is the size of the element lpAppend makes of s: an
// integer when s is the canonical decimal of an int64, else a string.
func lpStrElemSize(s []byte) int64 {
	if len(s) > 0 && len(s) <= 20 {
		if v, ok := num.ParseInt(s); ok {
			return lpIntElemSize(v)
		}
	}
	n := int64(len(s))
	switch {
	case n < 64:
		n++
	case n < 4096:
		n += 2
	default:
		n += 5
	}
	return n + lpBacklenSize(n)
}

// lpBacklenSize is the size of the backlen of an element of l bytes.
func lpBacklenSize(l int64) int64 {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}
