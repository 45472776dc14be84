package rdb

import "errors"

// LZF, the compression Redis uses for strings and quicklist nodes. A
// compressed stream is a series of chunks, each starting with a control byte:
//
//	000LLLLL            a literal run of L+1 bytes (1..32) follows
//	LLLooooo oooooooo   a back reference: copy L+2 bytes (L = 1..6) starting
//	                    o+1 bytes back from the output's end
//	111ooooo LLLLLLLL oooooooo   the same with length L+9 (9..264)
//
// The offset is 13 bits, so a reference reaches at most 8192 bytes back.

const (
	lzfMaxLit = 32
	lzfMaxOff = 1 << 13
	lzfMaxRef = 264 // 7 + 255 + 2
	lzfHashLg = 14
)

// lzfMaxRatio bounds how much LZF can expand: the best case is a 3-byte
// back reference producing 264 bytes. A claimed uncompressed length beyond
// clen*lzfMaxRatio is corrupt and is refused before anything is allocated.
const lzfMaxRatio = 89

// lzfProbe is how much input compress looks at before deciding whether the
// rest is worth compressing.
const lzfProbe = 4096

var errLZF = errors.New("invalid LZF data")

// lzfDecompress expands in into exactly n bytes.
func lzfDecompress(in []byte, n int) ([]byte, error) {
	if n < 0 || n > len(in)*lzfMaxRatio+lzfMaxLit {
		return nil, errLZF
	}
	out := make([]byte, 0, n)
	i := 0
	for i < len(in) {
		ctrl := int(in[i])
		i++
		if ctrl < 32 {
			run := ctrl + 1
			if i+run > len(in) || len(out)+run > n {
				return nil, errLZF
			}
			out = append(out, in[i:i+run]...)
			i += run
			continue
		}
		length := ctrl >> 5
		if length == 7 {
			if i >= len(in) {
				return nil, errLZF
			}
			length += int(in[i])
			i++
		}
		length += 2
		if i >= len(in) {
			return nil, errLZF
		}
		ref := len(out) - (ctrl&0x1f)<<8 - int(in[i]) - 1
		i++
		if ref < 0 || len(out)+length > n {
			return nil, errLZF
		}
		// Byte by byte: the source may overlap what is being written.
		for k := 0; k < length; k++ {
			out = append(out, out[ref+k])
		}
	}
	if len(out) != n {
		return nil, errLZF
	}
	return out, nil
}

// lzfCompress compresses in, returning nil when the result would exceed max
// bytes (the caller then stores the data plainly). It allocates; the
// Writer uses an lzfCompressor, which does not.
func lzfCompress(in []byte, max int) []byte {
	var c lzfCompressor
	out := c.compress(in, max)
	if out == nil {
		return nil
	}
	return append([]byte(nil), out...)
}

// lzfCompressor compresses one value after another without allocating: its
// output buffer is reused, and its hash table is never cleared — entries
// hold positions in one running sequence over all inputs (base moves past
// each input and the largest offset), so an entry left by an earlier
// input is simply too old to match.
type lzfCompressor struct {
	table [1 << lzfHashLg]int32 // base+position+1 of the last occurrence of a 3-byte hash
	base  int32
	out   []byte
}

// compress is lzfCompress whose result is valid until the next call.
func (c *lzfCompressor) compress(in []byte, max int) []byte {
	if len(in) < 4 || max <= 0 {
		return nil
	}
	if int64(c.base)+int64(len(in))+lzfMaxOff+2 > 1<<30 {
		c.table = [1 << lzfHashLg]int32{}
		c.base = 0
	}
	base := int(c.base)
	c.base += int32(len(in) + lzfMaxOff + 1)
	if cap(c.out) < max {
		c.out = make([]byte, 0, max)
	}
	out := c.out[:0]
	table := &c.table
	hash := func(p int) uint32 {
		v := uint32(in[p])<<16 | uint32(in[p+1])<<8 | uint32(in[p+2])
		return (v * 2654435761) >> (32 - lzfHashLg)
	}
	litStart := 0 // start of the pending literal run
	flushLits := func(end int) bool {
		for litStart < end {
			run := end - litStart
			if run > lzfMaxLit {
				run = lzfMaxLit
			}
			if len(out)+1+run > max {
				return false
			}
			out = append(out, byte(run-1))
			out = append(out, in[litStart:litStart+run]...)
			litStart += run
		}
		return true
	}
	ip := 0
	probe := lzfProbe
	for ip+2 < len(in) {
		if ip >= probe {
			// Incompressible data (already compressed values, random
			// bytes) would cost a full pass for nothing: give up when
			// the first lzfProbe bytes took more than their share of
			// max. A dump then stores such a value raw, as Redis does
			// when LZF fails.
			pending := ip - litStart
			if len(out)+pending+pending/lzfMaxLit+1 > ip*max/len(in) {
				return nil
			}
			probe = len(in) // once
		}
		h := hash(ip)
		cand := int(table[h]) - 1 - base
		table[h] = int32(base + ip + 1)
		if cand >= 0 && ip-cand <= lzfMaxOff && in[cand] == in[ip] && in[cand+1] == in[ip+1] && in[cand+2] == in[ip+2] {
			mlen := 3
			maxLen := len(in) - ip
			if maxLen > lzfMaxRef {
				maxLen = lzfMaxRef
			}
			for mlen < maxLen && in[cand+mlen] == in[ip+mlen] {
				mlen++
			}
			if !flushLits(ip) {
				return nil
			}
			off := ip - cand - 1
			l := mlen - 2
			if l < 7 {
				if len(out)+2 > max {
					return nil
				}
				out = append(out, byte(l<<5|off>>8), byte(off))
			} else {
				if len(out)+3 > max {
					return nil
				}
				out = append(out, byte(7<<5|off>>8), byte(l-7), byte(off))
			}
			// Index the positions the match covered so later data can refer to them.
			end := ip + mlen
			for p := ip + 1; p < end && p+2 < len(in); p++ {
				table[hash(p)] = int32(base + p + 1)
			}
			ip = end
			litStart = ip
			continue
		}
		ip++
	}
	if !flushLits(len(in)) {
		return nil
	}
	c.out = out
	return out
}

// lzfRedis compresses as redis-server's liblzf does (lzf_compress with
// HLOG 16 and VERY_FAST): the same hash of three bytes, the same choice of
// matches, the same literal runs and the same "does not fit" cases, so a
// DUMP payload's compressed strings are the bytes Redis writes. (Redis's
// hash table starts uninitialized, so a stale entry may now and then let
// it find a match this compressor does not; both outputs are valid LZF.)
// It is slower than lzfCompressor and has no early exit for incompressible
// data, which DUMP does not need: values are compressed one at a time.
//
// The table is never cleared: an entry holds base+position+1, and base
// moves past each input, so an entry of an earlier input reads as empty.
type lzfRedis struct {
	table [1 << 16]int32
	base  int32
	out   []byte
}

// compress returns in compressed in at most max bytes, or nil when it
// does not fit (liblzf's 0). The result is valid until the next call.
func (c *lzfRedis) compress(in []byte, max int) []byte {
	const (
		maxLit = 1 << 5
		maxOff = 1 << 13
		maxRef = 1<<8 + 1<<3
	)
	n := len(in)
	if n < 3 || max <= 0 {
		return nil
	}
	if int64(c.base)+int64(n)+1 > 1<<30 {
		c.table = [1 << 16]int32{}
		c.base = 0
	}
	base := c.base
	c.base += int32(n + 1)
	if cap(c.out) < max+4 {
		c.out = make([]byte, max+4)
	}
	out := c.out[:max+4] // spare bytes: an empty run's header is written, then dropped
	idx := func(h uint32) uint32 { return ((h >> 8) - h*5) & (1<<16 - 1) }
	// ref is the position the slot of hash h held, or -1 when it is empty.
	slot := func(h uint32) *int32 { return &c.table[idx(h)] }
	at := func(v int32) int {
		if v <= base {
			return -1
		}
		return int(v - base - 1)
	}
	ip, op, lit := 0, 1, 0 // op 0 is the first literal run's header
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < n-2 {
		hval = hval<<8 | uint32(in[ip+2])
		s := slot(hval)
		ref := at(*s)
		*s = base + int32(ip) + 1
		if ref > 0 && ref < ip && ip-ref-1 < maxOff &&
			in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			off := ip - ref - 1
			l := 2
			maxLen := min(n-ip-l, maxRef)
			if op+3+1 >= max {
				if op-b2i(lit == 0)+3+1 >= max {
					return nil
				}
			}
			out[op-lit-1] = byte(lit - 1)
			op -= b2i(lit == 0)
			if maxLen > 16 {
				// liblzf compares 16 bytes before it looks at maxLen.
				for k := 0; k < 16; k++ {
					l++
					if in[ref+l] != in[ip+l] {
						goto matched
					}
				}
			}
			for {
				l++
				if !(l < maxLen && in[ref+l] == in[ip+l]) {
					break
				}
			}
		matched:
			l -= 2
			ip++
			if l < 7 {
				out[op] = byte(off>>8 + l<<5)
				op++
			} else {
				out[op] = byte(off>>8 + 7<<5)
				out[op+1] = byte(l - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++
			ip += l + 1
			if ip >= n-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			for k := 0; k < 2; k++ {
				hval = hval<<8 | uint32(in[ip+2])
				*slot(hval) = base + int32(ip) + 1
				ip++
			}
			continue
		}
		if op >= max {
			return nil
		}
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == maxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	if op+3 > max {
		return nil
	}
	for ip < n {
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == maxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1)
	op -= b2i(lit == 0)
	return out[:op]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
