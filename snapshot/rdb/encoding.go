package rdb

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Decoders for the compact blobs Redis stores as one RDB string: listpack,
// ziplist, intset and zipmap. Each takes the whole blob, checks its framing
// (header sizes and counts, per-entry back/prev lengths, terminator), and
// returns the elements as strings (integers rendered in decimal, as Redis
// returns them). Element slices alias the blob, capped so an append cannot
// overwrite a neighbour. Errors carry the offset within the blob.

type blobError struct {
	off int
	msg string
}

func (e *blobError) Error() string { return fmt.Sprintf("%s at blob offset %d", e.msg, e.off) }

func blobErr(off int, format string, args ...any) error {
	return &blobError{off: off, msg: fmt.Sprintf(format, args...)}
}

// capHint bounds a slice preallocation by what the blob could hold.
func capHint(n, limit int) int {
	if n < 0 {
		return 0
	}
	if n > limit {
		return limit
	}
	return n
}

// decodeListpack decodes a listpack:
//
//	<total-bytes uint32le> <count uint16le> <entry>... <0xFF>
//	entry = <encoding+data> <backlen: 1..5 bytes, the size of encoding+data>
func decodeListpack(b []byte) ([][]byte, error) {
	if len(b) < 7 {
		return nil, blobErr(0, "listpack too short (%d bytes)", len(b))
	}
	if total := binary.LittleEndian.Uint32(b); int64(total) != int64(len(b)) {
		return nil, blobErr(0, "listpack header says %d bytes, blob has %d", total, len(b))
	}
	count := int(binary.LittleEndian.Uint16(b[4:]))
	out := make([][]byte, 0, capHint(count, len(b)/2))
	p := 6
	for {
		if p >= len(b) {
			return nil, blobErr(p, "listpack has no terminator")
		}
		if b[p] == 0xFF {
			if p != len(b)-1 {
				return nil, blobErr(p, "listpack terminator before the end")
			}
			break
		}
		start := p
		c := b[p]
		var val []byte
		var hdr, dlen int
		var iv int64
		isInt := true
		need := func(n int) bool { return start+n <= len(b)-1 }
		switch {
		case c&0x80 == 0: // 7-bit unsigned
			hdr, iv = 1, int64(c)
		case c&0xC0 == 0x80: // 6-bit string length
			hdr, dlen, isInt = 1, int(c&0x3F), false
		case c&0xE0 == 0xC0: // 13-bit signed
			if !need(2) {
				return nil, blobErr(p, "listpack entry truncated")
			}
			v := int64(c&0x1F)<<8 | int64(b[p+1])
			if v >= 1<<12 {
				v -= 1 << 13
			}
			hdr, iv = 2, v
		case c&0xF0 == 0xE0: // 12-bit string length
			if !need(2) {
				return nil, blobErr(p, "listpack entry truncated")
			}
			hdr, dlen, isInt = 2, int(c&0x0F)<<8|int(b[p+1]), false
		case c == 0xF0: // 32-bit string length
			if !need(5) {
				return nil, blobErr(p, "listpack entry truncated")
			}
			l := binary.LittleEndian.Uint32(b[p+1:])
			if int64(l) > int64(len(b)) {
				return nil, blobErr(p, "listpack string length %d exceeds the blob", l)
			}
			hdr, dlen, isInt = 5, int(l), false
		case c == 0xF1, c == 0xF2, c == 0xF3, c == 0xF4:
			n := [...]int{2, 3, 4, 8}[c-0xF1]
			if !need(1 + n) {
				return nil, blobErr(p, "listpack entry truncated")
			}
			var u uint64
			for k := n - 1; k >= 0; k-- {
				u = u<<8 | uint64(b[p+1+k])
			}
			shift := 64 - 8*uint(n)
			hdr, iv = 1+n, int64(u<<shift)>>shift
		default:
			return nil, blobErr(p, "listpack entry has invalid encoding byte 0x%02x", c)
		}
		if !isInt {
			if !need(hdr + dlen) {
				return nil, blobErr(p, "listpack string entry runs past the end")
			}
			val = b[p+hdr : p+hdr+dlen : p+hdr+dlen]
		} else {
			val = strconv.AppendInt(nil, iv, 10)
		}
		l := hdr + dlen
		bl := backlenSize(l)
		if !need(l + bl) {
			return nil, blobErr(p, "listpack entry's backlen runs past the end")
		}
		if got := decodeBacklen(b[p+l : p+l+bl]); got != uint64(l) {
			return nil, blobErr(p+l, "listpack backlen %d does not match entry size %d", got, l)
		}
		out = append(out, val)
		p += l + bl
	}
	if count != 0xFFFF && count != len(out) {
		return nil, blobErr(4, "listpack header says %d entries, found %d", count, len(out))
	}
	return out, nil
}

func backlenSize(l int) int {
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

// decodeBacklen reads a backlen forwards: the last byte holds the lowest 7
// bits; every byte but the first has the 0x80 continuation bit.
func decodeBacklen(p []byte) uint64 {
	var v uint64
	var shift uint
	for i := len(p) - 1; i >= 0; i-- {
		v |= uint64(p[i]&0x7F) << shift
		cont := p[i]&0x80 != 0
		if cont != (i > 0) {
			return ^uint64(0)
		}
		shift += 7
	}
	return v
}

// decodeZiplist decodes a ziplist:
//
//	<zlbytes uint32le> <zltail uint32le> <zllen uint16le> <entry>... <0xFF>
//	entry = <prevlen: 1 byte < 254, or 0xFE + uint32le> <encoding> <data>
func decodeZiplist(b []byte) ([][]byte, error) {
	if len(b) < 11 {
		return nil, blobErr(0, "ziplist too short (%d bytes)", len(b))
	}
	if total := binary.LittleEndian.Uint32(b); int64(total) != int64(len(b)) {
		return nil, blobErr(0, "ziplist header says %d bytes, blob has %d", total, len(b))
	}
	tail := int64(binary.LittleEndian.Uint32(b[4:]))
	count := int(binary.LittleEndian.Uint16(b[8:]))
	out := make([][]byte, 0, capHint(count, len(b)/2))
	p := 10
	prevSize := 0
	lastStart := 10
	for {
		if p >= len(b) {
			return nil, blobErr(p, "ziplist has no terminator")
		}
		if b[p] == 0xFF {
			if p != len(b)-1 {
				return nil, blobErr(p, "ziplist terminator before the end")
			}
			break
		}
		start := p
		end := len(b) - 1 // entries must end before the terminator
		var prevlen, ph int
		if b[p] < 0xFE {
			prevlen, ph = int(b[p]), 1
		} else {
			if p+5 > end {
				return nil, blobErr(p, "ziplist entry truncated")
			}
			prevlen, ph = int(binary.LittleEndian.Uint32(b[p+1:])), 5
		}
		if prevlen != prevSize {
			return nil, blobErr(p, "ziplist prevlen %d does not match previous entry size %d", prevlen, prevSize)
		}
		q := p + ph
		if q >= end {
			return nil, blobErr(p, "ziplist entry truncated")
		}
		c := b[q]
		var val []byte
		var hdr, dlen int
		switch c >> 6 {
		case 0:
			hdr, dlen = 1, int(c&0x3F)
		case 1:
			if q+2 > end {
				return nil, blobErr(p, "ziplist entry truncated")
			}
			hdr, dlen = 2, int(c&0x3F)<<8|int(b[q+1])
		case 2:
			if c != 0x80 || q+5 > end {
				return nil, blobErr(p, "ziplist entry has a bad 32-bit length")
			}
			l := binary.BigEndian.Uint32(b[q+1:])
			if int64(l) > int64(len(b)) {
				return nil, blobErr(p, "ziplist string length %d exceeds the blob", l)
			}
			hdr, dlen = 5, int(l)
		}
		if c>>6 != 3 {
			if q+hdr+dlen > end {
				return nil, blobErr(p, "ziplist string entry runs past the end")
			}
			val = b[q+hdr : q+hdr+dlen : q+hdr+dlen]
		} else {
			n := 0
			var iv int64
			switch c {
			case 0xC0:
				n = 2
			case 0xD0:
				n = 4
			case 0xE0:
				n = 8
			case 0xF0:
				n = 3
			case 0xFE:
				n = 1
			default:
				if c >= 0xF1 && c <= 0xFD {
					iv = int64(c&0x0F) - 1
				} else {
					return nil, blobErr(q, "ziplist entry has invalid encoding byte 0x%02x", c)
				}
			}
			if q+1+n > end {
				return nil, blobErr(p, "ziplist integer entry runs past the end")
			}
			if n > 0 {
				var u uint64
				for k := n - 1; k >= 0; k-- {
					u = u<<8 | uint64(b[q+1+k])
				}
				shift := 64 - 8*uint(n)
				iv = int64(u<<shift) >> shift
			}
			hdr, dlen = 1, n
			val = strconv.AppendInt(nil, iv, 10)
		}
		p = q + hdr + dlen
		prevSize = p - start
		lastStart = start
		out = append(out, val)
	}
	if tail != int64(lastStart) {
		return nil, blobErr(4, "ziplist tail offset %d does not match last entry at %d", tail, lastStart)
	}
	if count != 0xFFFF && count != len(out) {
		return nil, blobErr(8, "ziplist header says %d entries, found %d", count, len(out))
	}
	return out, nil
}

// decodeIntset decodes an intset: <encoding uint32le: 2, 4 or 8>
// <length uint32le> <length values of that width, little endian, strictly
// ascending>.
func decodeIntset(b []byte) ([][]byte, error) {
	if len(b) < 8 {
		return nil, blobErr(0, "intset too short (%d bytes)", len(b))
	}
	enc := binary.LittleEndian.Uint32(b)
	if enc != 2 && enc != 4 && enc != 8 {
		return nil, blobErr(0, "intset has invalid encoding %d", enc)
	}
	n := uint64(binary.LittleEndian.Uint32(b[4:]))
	if 8+n*uint64(enc) != uint64(len(b)) {
		return nil, blobErr(4, "intset of %d %d-byte values does not fit a %d-byte blob", n, enc, len(b))
	}
	if n == 0 {
		return nil, blobErr(4, "intset is empty")
	}
	out := make([][]byte, 0, n)
	var prev int64
	for i := 0; i < int(n); i++ {
		p := 8 + i*int(enc)
		var v int64
		switch enc {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(b[p:])))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(b[p:])))
		default:
			v = int64(binary.LittleEndian.Uint64(b[p:]))
		}
		if i > 0 && v <= prev {
			return nil, blobErr(p, "intset values not strictly ascending")
		}
		prev = v
		out = append(out, strconv.AppendInt(nil, v, 10))
	}
	return out, nil
}

// decodeZipmap decodes a zipmap (RDB versions before 4 stored small hashes
// this way):
//
//	<zmlen byte> (<len>key <len><free byte>value <free bytes>)... <0xFF>
//	len = one byte 0..253, or 254 followed by a uint32le
func decodeZipmap(b []byte) (fields, values [][]byte, err error) {
	if len(b) < 2 {
		return nil, nil, blobErr(0, "zipmap too short (%d bytes)", len(b))
	}
	p := 1
	readLen := func() (int, bool, error) {
		if p >= len(b) {
			return 0, false, blobErr(p, "zipmap truncated")
		}
		c := b[p]
		switch {
		case c < 254:
			p++
			return int(c), false, nil
		case c == 254:
			if p+5 > len(b) {
				return 0, false, blobErr(p, "zipmap truncated")
			}
			l := binary.LittleEndian.Uint32(b[p+1:])
			if int64(l) > int64(len(b)) {
				return 0, false, blobErr(p, "zipmap length %d exceeds the blob", l)
			}
			p += 5
			return int(l), false, nil
		}
		return 0, true, nil // 255: end
	}
	hint := capHint(int(b[0]), len(b)/4)
	fields, values = make([][]byte, 0, hint), make([][]byte, 0, hint)
	for {
		kl, end, err := readLen()
		if err != nil {
			return nil, nil, err
		}
		if end {
			if p != len(b)-1 {
				return nil, nil, blobErr(p, "zipmap terminator before the end")
			}
			break
		}
		if p+kl > len(b) {
			return nil, nil, blobErr(p, "zipmap key runs past the end")
		}
		key := b[p : p+kl : p+kl]
		p += kl
		vl, end, err := readLen()
		if err != nil {
			return nil, nil, err
		}
		if end {
			return nil, nil, blobErr(p, "zipmap key without a value")
		}
		if p >= len(b) {
			return nil, nil, blobErr(p, "zipmap truncated")
		}
		free := int(b[p])
		p++
		if p+vl+free > len(b) {
			return nil, nil, blobErr(p, "zipmap value runs past the end")
		}
		fields = append(fields, key)
		values = append(values, b[p:p+vl:p+vl])
		p += vl + free
	}
	if b[0] < 254 && int(b[0]) != len(fields) {
		return nil, nil, blobErr(0, "zipmap header says %d entries, found %d", b[0], len(fields))
	}
	return fields, values, nil
}
