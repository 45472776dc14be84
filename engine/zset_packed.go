package engine

import (
	"bytes"
	"encoding/binary"
	"math"
)

// zpacked is the compact form of a sorted set, what OBJECT ENCODING calls
// "listpack": a single byte slice, so a small sorted set costs one
// allocation and the GC one pointer. For n members in order it holds n
// fixed records of zpRec bytes (the score's bits, then the end offset of
// the member within the data area), followed by the data area, the
// members' bytes back to back:
//
//	[score0 end0][score1 end1]…[score(n-1) end(n-1)] member0 member1 …
//
// so the i-th member and its score are found in O(1) and a score or rank
// lookup is a binary search. Finding a member by name walks the members,
// as Redis walks its listpack; the form is small by construction.
type zpacked struct {
	buf []byte
	n   int
}

// zpRec is the size of one record: 8 bytes of score, 4 of end offset.
const zpRec = 12

func (p *zpacked) score(i int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(p.buf[i*zpRec:]))
}

func (p *zpacked) end(i int) int {
	return int(binary.LittleEndian.Uint32(p.buf[i*zpRec+8:]))
}

func (p *zpacked) start(i int) int {
	if i == 0 {
		return 0
	}
	return p.end(i - 1)
}

// member returns the i-th member. The bytes are valid until the next
// change and must not be modified.
func (p *zpacked) member(i int) []byte {
	base := p.n * zpRec
	s, e := base+p.start(i), base+p.end(i)
	return p.buf[s:e:e]
}

func (p *zpacked) setRecord(i int, score float64, end int) {
	binary.LittleEndian.PutUint64(p.buf[i*zpRec:], math.Float64bits(score))
	binary.LittleEndian.PutUint32(p.buf[i*zpRec+8:], uint32(end))
}

// dataLen is the size of the data area.
func (p *zpacked) dataLen() int { return len(p.buf) - p.n*zpRec }

// find returns the index of m, or -1.
func (p *zpacked) find(m []byte) int {
	base := p.n * zpRec
	s := 0
	for i := 0; i < p.n; i++ {
		e := p.end(i)
		if e-s == len(m) && bytes.Equal(p.buf[base+s:base+e], m) {
			return i
		}
		s = e
	}
	return -1
}

// cmpAt orders (score, m) against the i-th member as Redis orders a
// sorted set: by score, then by member bytes.
func (p *zpacked) cmpAt(score float64, m []byte, i int) int {
	if s := p.score(i); score < s {
		return -1
	} else if score > s {
		return 1
	}
	return bytes.Compare(m, p.member(i))
}

// insertPos returns where (score, m), which is not in p, belongs.
func (p *zpacked) insertPos(score float64, m []byte) int {
	lo, hi := 0, p.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if p.cmpAt(score, m, mid) > 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// insert adds m, which is not in p, with its score. A negative zero is
// stored as zero: Redis's listpack keeps scores as text and "-0" comes
// back as 0.
func (p *zpacked) insert(m []byte, score float64) {
	if score == 0 {
		score = 0
	}
	p.insertAt(p.insertPos(score, m), m, score)
}

func (p *zpacked) insertAt(i int, m []byte, score float64) {
	old := len(p.buf)
	base := p.n * zpRec
	s := p.start(i)
	grow := zpRec + len(m)
	p.buf = zpGrow(p.buf, old+grow)
	buf := p.buf
	copy(buf[base+s+grow:], buf[base+s:old])   // data after the new member
	copy(buf[base+zpRec:], buf[base:base+s])   // data before it
	copy(buf[base+zpRec+s:], m)                // the member
	copy(buf[(i+1)*zpRec:], buf[i*zpRec:base]) // records from i on
	p.n++
	p.setRecord(i, score, s+len(m))
	for j := i + 1; j < p.n; j++ {
		binary.LittleEndian.PutUint32(buf[j*zpRec+8:], uint32(p.end(j)+len(m)))
	}
}

// zpGrow returns b resized to n bytes, reallocating with a quarter of
// slack when it does not fit: small sorted sets are many, so their
// buffers stay close to their contents.
func zpGrow(b []byte, n int) []byte {
	if n <= cap(b) {
		return b[:n]
	}
	nb := make([]byte, n, int(allocSize(n+n/4)))
	copy(nb, b)
	return nb
}

// removeAt deletes the i-th member.
func (p *zpacked) removeAt(i int) { p.removeRange(i, 1) }

// removeRange deletes k members from the i-th on.
func (p *zpacked) removeRange(i, k int) {
	if k <= 0 {
		return
	}
	old := len(p.buf)
	base := p.n * zpRec
	s, e := p.start(i), p.end(i+k-1)
	gone := e - s
	buf := p.buf
	// Records after the range move down, their ends shifted by gone.
	for j := i + k; j < p.n; j++ {
		sc := binary.LittleEndian.Uint64(buf[j*zpRec:])
		en := binary.LittleEndian.Uint32(buf[j*zpRec+8:])
		binary.LittleEndian.PutUint64(buf[(j-k)*zpRec:], sc)
		binary.LittleEndian.PutUint32(buf[(j-k)*zpRec+8:], en-uint32(gone))
	}
	nbase := base - k*zpRec
	copy(buf[nbase:], buf[base:base+s])
	copy(buf[nbase+s:], buf[base+e:old])
	p.n -= k
	p.buf = buf[:old-k*zpRec-gone]
	if cap(p.buf) > 2*len(p.buf)+64 {
		nb := make([]byte, len(p.buf), int(allocSize(len(p.buf)+len(p.buf)/4)))
		copy(nb, p.buf)
		p.buf = nb
	}
}

// setScore gives the i-th member a new score, moving it as needed.
func (p *zpacked) setScore(i int, score float64) {
	if score == 0 {
		score = 0
	}
	m := p.member(i)
	// In place when the order stays: Redis deletes and re-inserts, which
	// gives the same order.
	if (i == 0 || p.cmpAt(score, m, i-1) > 0) && (i == p.n-1 || p.cmpAt(score, m, i+1) < 0) {
		binary.LittleEndian.PutUint64(p.buf[i*zpRec:], math.Float64bits(score))
		return
	}
	var tmp [64]byte
	mc := append(tmp[:0], m...)
	p.removeAt(i)
	p.insert(mc, score)
}

// memSize is the bytes the buffer occupies.
func (p *zpacked) memSize() int64 { return allocSize(cap(p.buf)) }

// clone returns a copy with its own buffer.
func (p *zpacked) clone() zpacked {
	if p.n == 0 {
		return zpacked{}
	}
	nb := make([]byte, len(p.buf), int(allocSize(len(p.buf))))
	copy(nb, p.buf)
	return zpacked{buf: nb, n: p.n}
}

// firstWhere returns the index of the first member for which pred holds,
// pred being false then true along the order (a score bound).
func (p *zpacked) firstWhere(pred func(score float64, m []byte) bool) int {
	lo, hi := 0, p.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if pred(p.score(mid), p.member(mid)) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
