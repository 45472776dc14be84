package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"unsafe"
)

// Lists (Redis LPUSH, LRANGE, LMOVE…).
//
// A list is a deque of chunks; a chunk holds consecutive elements packed in
// one byte buffer, each as uvarint(len) | bytes | the same uvarint reversed,
// so a chunk can be walked from either end. This is Redis's quicklist of
// listpacks in Go: the GC sees one pointer per chunk (up to listChunkMax
// bytes of elements), not one per element, and an element costs its bytes
// plus two to six bytes of header.
//
// Push and pop at either end are O(1): a chunk keeps free room at both ends
// of its buffer (buf[:lo] and buf[hi:]), and the chunk slice keeps room
// before its first live chunk (chunks[:head]). Finding element i walks
// chunks from the nearer end, then elements inside one chunk: O(n/chunk +
// chunk). Changes in the middle (LSET with another length, LINSERT, LREM)
// rewrite one chunk, splitting it when it grows past twice the limit.
//
// Redis 7.0 reports every list as "quicklist" (7.2 added listpack for small
// lists), so the encoding never changes.

// listChunkMax is the packed bytes a chunk grows to before the list starts
// a new one: Redis's list-max-listpack-size -2 (8 KB). An element larger
// than this gets a chunk of its own.
const listChunkMax = 8 << 10

// listChunkMin is the buffer a list's first chunk starts with; it doubles
// as elements arrive, so small lists stay small.
const listChunkMin = 32

// ErrIndexOutOfRange: LSET with an index outside the list.
var ErrIndexOutOfRange = errors.New("engine: index out of range")

// ListEnd is the head (left) or the tail (right) of a list.
type ListEnd uint8

// List ends, as Redis's LEFT and RIGHT.
const (
	ListLeft ListEnd = iota
	ListRight
)

type listChunk struct {
	buf    []byte // elements packed in buf[lo:hi]
	lo, hi int
	n      int // elements in the chunk
}

func (c *listChunk) used() int { return c.hi - c.lo }

type list struct {
	chunks []listChunk // live chunks are chunks[head:]
	head   int
	n      int   // elements
	bufMem int64 // allocated bytes of the chunks' buffers
}

var (
	listChunkBytes  = int64(unsafe.Sizeof(listChunk{}))
	listHeaderBytes = allocSize(int(unsafe.Sizeof(list{})))
)

func newList() aggregate { return &list{} }

func (l *list) length() int        { return l.n }
func (l *list) encoding() Encoding { return EncQuicklist }
func (l *list) memSize() int64 {
	return listHeaderBytes + allocSize(cap(l.chunks)*int(listChunkBytes)) + l.bufMem
}

func (l *list) clone() aggregate {
	c := &list{n: l.n, chunks: make([]listChunk, 0, len(l.live()))}
	for _, ch := range l.live() {
		buf := c.alloc(ch.used())
		copy(buf, ch.buf[ch.lo:ch.hi])
		c.chunks = append(c.chunks, listChunk{buf: buf, lo: 0, hi: ch.used(), n: ch.n})
	}
	return c
}

// Element packing.

func varintLen(x int) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// elemSize is the packed size of an element of vlen bytes.
func elemSize(vlen int) int { return vlen + 2*varintLen(vlen) }

// putElem packs v at the start of dst, which holds at least elemSize(len(v)).
func putElem(dst, v []byte) {
	k := binary.PutUvarint(dst, uint64(len(v)))
	copy(dst[k:], v)
	t := dst[k+len(v):]
	for i := 0; i < k; i++ {
		t[i] = dst[k-1-i]
	}
}

// elemAt returns the element packed at off and the offset after it. The
// element aliases buf.
func elemAt(buf []byte, off int) ([]byte, int) {
	var x, k int
	if b := buf[off]; b < 0x80 {
		x, k = int(b), 1
	} else {
		u, n := binary.Uvarint(buf[off:])
		x, k = int(u), n
	}
	start := off + k
	end := start + x
	return buf[start:end:end], end + k
}

// elemBefore returns the element packed just before end and its offset.
func elemBefore(buf []byte, end int) ([]byte, int) {
	var x uint64
	var s uint
	p := end - 1
	for {
		b := buf[p]
		x |= uint64(b&0x7f) << s
		if b < 0x80 {
			break
		}
		s += 7
		p--
	}
	k := end - p
	vstart := p - int(x)
	return buf[vstart:p:p], vstart - k
}

// Chunk bookkeeping.

func (l *list) live() []listChunk { return l.chunks[l.head:] }

// alloc returns a buffer of at least n bytes and accounts for it.
func (l *list) alloc(n int) []byte {
	b := make([]byte, allocSize(n))
	l.bufMem += allocSize(cap(b))
	return b
}

func (l *list) free(buf []byte) { l.bufMem -= allocSize(cap(buf)) }

// appendChunk adds c after the last chunk.
func (l *list) appendChunk(c listChunk) {
	if len(l.chunks) == cap(l.chunks) {
		live := len(l.chunks) - l.head
		if l.head > 0 && 2*live <= cap(l.chunks) {
			// The front emptied (a queue): slide the live chunks down.
			n := copy(l.chunks, l.chunks[l.head:])
			clear(l.chunks[n:])
			l.chunks, l.head = l.chunks[:n], 0
		} else {
			l.regrowChunks(live, 0)
		}
	}
	l.chunks = append(l.chunks, c)
}

// prependChunk adds c before the first chunk.
func (l *list) prependChunk(c listChunk) {
	if l.head == 0 {
		live := len(l.chunks)
		l.regrowChunks(live, max(1, live))
	}
	l.head--
	l.chunks[l.head] = c
}

// regrowChunks moves the live chunks into a larger slice with room for
// front more chunks before them.
func (l *list) regrowChunks(live, front int) {
	// Small lists (one chunk) keep a one-chunk slice; growth doubles.
	nc := make([]listChunk, front+live, max(1, 2*live+front))
	copy(nc[front:], l.chunks[l.head:])
	l.chunks, l.head = nc, front
}

// dropChunk removes live chunk ci, which must be empty of elements the
// list still counts.
func (l *list) dropChunk(ci int) {
	i := l.head + ci
	l.free(l.chunks[i].buf)
	switch {
	case i == l.head:
		l.chunks[i] = listChunk{}
		l.head++
	case i == len(l.chunks)-1:
		l.chunks[i] = listChunk{}
		l.chunks = l.chunks[:i]
	default:
		l.chunks = slices.Delete(l.chunks, i, i+1)
	}
	if l.head == len(l.chunks) {
		l.chunks, l.head = l.chunks[:0], 0
	}
}

// makeRoom ensures chunk c has es free bytes at its back (or front),
// sliding its elements inside the buffer when that frees enough, else
// moving them to a buffer twice as large.
func (l *list) makeRoom(c *listChunk, es int, front bool) {
	used := c.used()
	if used+es > cap(c.buf) {
		nb := l.alloc(max(min(2*cap(c.buf), listChunkMax), used+es))
		l.free(c.buf)
		old := c.buf[c.lo:c.hi]
		c.buf = nb
		if front {
			c.lo = cap(nb) - used
		} else {
			c.lo = 0
		}
		c.hi = c.lo + used
		copy(c.buf[c.lo:c.hi], old)
		return
	}
	if front {
		copy(c.buf[cap(c.buf)-used:], c.buf[c.lo:c.hi])
		c.lo, c.hi = cap(c.buf)-used, cap(c.buf)
	} else {
		copy(c.buf, c.buf[c.lo:c.hi])
		c.lo, c.hi = 0, used
	}
}

// newChunkSize is the buffer for a new end chunk next to neighbour (nil
// for a list's first): full size when the neighbour filled up with
// elements, small (it doubles as it fills) for a list's first chunk and
// after a chunk holding one large element, which says nothing of the list's
// size.
func newChunkSize(es int, neighbour *listChunk) int {
	if neighbour == nil || (neighbour.n == 1 && neighbour.used() > listChunkMax/2) {
		return max(es, listChunkMin)
	}
	return max(es, listChunkMax)
}

// Deque operations.

func (l *list) push(end ListEnd, v []byte) {
	if end == ListLeft {
		l.pushFront(v)
	} else {
		l.pushBack(v)
	}
}

func (l *list) pushBack(v []byte) {
	es := elemSize(len(v))
	var last *listChunk
	if len(l.chunks) > l.head {
		c := &l.chunks[len(l.chunks)-1]
		last = c
		if c.used()+es <= listChunkMax {
			if len(c.buf)-c.hi < es {
				l.makeRoom(c, es, false)
			}
			putElem(c.buf[c.hi:], v)
			c.hi += es
			c.n++
			l.n++
			return
		}
	}
	c := listChunk{buf: l.alloc(newChunkSize(es, last)), n: 1, hi: es}
	putElem(c.buf, v)
	l.appendChunk(c)
	l.n++
}

func (l *list) pushFront(v []byte) {
	es := elemSize(len(v))
	var first *listChunk
	if len(l.chunks) > l.head {
		c := &l.chunks[l.head]
		first = c
		if c.used()+es <= listChunkMax {
			if c.lo < es {
				l.makeRoom(c, es, true)
			}
			c.lo -= es
			putElem(c.buf[c.lo:], v)
			c.n++
			l.n++
			return
		}
	}
	buf := l.alloc(newChunkSize(es, first))
	c := listChunk{buf: buf, n: 1, lo: len(buf) - es, hi: len(buf)}
	putElem(c.buf[c.lo:], v)
	if l.n == 0 {
		l.appendChunk(c)
	} else {
		l.prependChunk(c)
	}
	l.n++
}

// pop removes the element at end and returns it. The element aliases the
// list's memory: it is valid until the list changes again.
func (l *list) pop(end ListEnd) []byte {
	var v []byte
	if end == ListLeft {
		c := &l.chunks[l.head]
		v, c.lo = elemAt(c.buf, c.lo)
		c.n--
		if c.n == 0 {
			l.dropChunk(0)
		}
	} else {
		ci := len(l.chunks) - 1 - l.head
		c := &l.chunks[l.head+ci]
		v, c.hi = elemBefore(c.buf, c.hi)
		c.n--
		if c.n == 0 {
			l.dropChunk(ci)
		}
	}
	l.n--
	return v
}

// drop removes k elements at end.
func (l *list) drop(end ListEnd, k int) {
	for k > 0 {
		ci := 0
		if end == ListRight {
			ci = len(l.chunks) - 1 - l.head
		}
		c := &l.chunks[l.head+ci]
		if c.n <= k {
			k -= c.n
			l.n -= c.n
			l.dropChunk(ci)
			continue
		}
		for ; k > 0; k-- {
			if end == ListLeft {
				_, c.lo = elemAt(c.buf, c.lo)
			} else {
				_, c.hi = elemBefore(c.buf, c.hi)
			}
			c.n--
			l.n--
		}
	}
}

// locate returns the live chunk holding element i (0 <= i < n) and the
// element's offset in it.
func (l *list) locate(i int) (ci, off int) {
	cs := l.live()
	if i < l.n/2 {
		for i >= cs[ci].n {
			i -= cs[ci].n
			ci++
		}
	} else {
		j := l.n - 1 - i
		ci = len(cs) - 1
		for j >= cs[ci].n {
			j -= cs[ci].n
			ci--
		}
		i = cs[ci].n - 1 - j
	}
	c := &cs[ci]
	if i <= c.n/2 {
		off = c.lo
		for ; i > 0; i-- {
			_, off = elemAt(c.buf, off)
		}
		return ci, off
	}
	end := c.hi
	for k := c.n - 1; k > i; k-- {
		_, end = elemBefore(c.buf, end)
	}
	_, off = elemBefore(c.buf, end)
	return ci, off
}

// index returns element i (negative counts from the tail) or nil, false.
func (l *list) index(i int64) ([]byte, bool) {
	if i < 0 {
		i += int64(l.n)
	}
	if i < 0 || i >= int64(l.n) {
		return nil, false
	}
	ci, off := l.locate(int(i))
	v, _ := elemAt(l.live()[ci].buf, off)
	return v, true
}

// each calls fn for count elements from index start towards the tail
// (forward) or towards the head, stopping early when fn returns false.
func (l *list) each(start, count int, forward bool, fn func(v []byte) bool) {
	if count <= 0 || start < 0 || start >= l.n {
		return
	}
	cs := l.live()
	ci, off := l.locate(start)
	if forward {
		for {
			c := &cs[ci]
			for off < c.hi {
				var v []byte
				v, off = elemAt(c.buf, off)
				if !fn(v) {
					return
				}
				if count--; count == 0 {
					return
				}
			}
			if ci++; ci == len(cs) {
				return
			}
			off = cs[ci].lo
		}
	}
	_, end := elemAt(cs[ci].buf, off)
	for {
		c := &cs[ci]
		for end > c.lo {
			var v []byte
			v, end = elemBefore(c.buf, end)
			if !fn(v) {
				return
			}
			if count--; count == 0 {
				return
			}
		}
		if ci--; ci < 0 {
			return
		}
		end = cs[ci].hi
	}
}

// rewrite replaces the bytes [from, to) of live chunk ci with the packed
// elements ins, which change the chunk's count by dn. A chunk that grows
// past twice the limit is split in two.
func (l *list) rewrite(ci, from, to int, ins []byte, dn int) {
	c := &l.chunks[l.head+ci]
	size := c.used() - (to - from) + len(ins)
	n := c.n + dn
	l.n += dn
	if n == 0 {
		l.dropChunk(ci)
		return
	}
	nb := l.alloc(size)
	w := copy(nb, c.buf[c.lo:from])
	w += copy(nb[w:], ins)
	copy(nb[w:], c.buf[to:c.hi])
	l.free(c.buf)
	*c = listChunk{buf: nb, lo: 0, hi: size, n: n}
	if size <= 2*listChunkMax || n < 2 {
		return
	}
	// Split at the element boundary nearest the middle.
	off, k := 0, 0
	for off < size/2 && k < n-1 {
		_, off = elemAt(nb, off)
		k++
	}
	right := listChunk{buf: l.alloc(size - off), n: n - k}
	right.hi = copy(right.buf, nb[off:size])
	left := listChunk{buf: l.alloc(off), n: k}
	left.hi = copy(left.buf, nb[:off])
	l.free(nb)
	l.chunks[l.head+ci] = left
	l.chunks = slices.Insert(l.chunks, l.head+ci+1, right)
}

func packElem(v []byte) []byte {
	b := make([]byte, elemSize(len(v)))
	putElem(b, v)
	return b
}

// set replaces element i (0 <= i < n) with v.
func (l *list) set(i int, v []byte) {
	ci, off := l.locate(i)
	c := &l.chunks[l.head+ci]
	_, next := elemAt(c.buf, off)
	if next-off == elemSize(len(v)) {
		putElem(c.buf[off:], v)
		return
	}
	l.rewrite(ci, off, next, packElem(v), 0)
}

// insert puts v before (or after) the first element equal to pivot and
// reports whether the pivot was found.
func (l *list) insert(pivot, v []byte, after bool) bool {
	for ci := range l.live() {
		c := &l.chunks[l.head+ci]
		for off := c.lo; off < c.hi; {
			e, next := elemAt(c.buf, off)
			if bytes.Equal(e, pivot) {
				at := off
				if after {
					at = next
				}
				l.rewrite(ci, at, at, packElem(v), 1)
				return true
			}
			off = next
		}
	}
	return false
}

// remove deletes elements equal to v: the first count from the head when
// count > 0, the last -count from the tail when count < 0, all when count
// is 0. It returns how many it removed.
func (l *list) remove(v []byte, count int64) int64 {
	limit := count
	if limit < 0 {
		limit = -limit // LONG_MIN stays negative: no limit, as in Redis
	}
	var removed int64
	done := func() bool { return limit > 0 && removed == limit }
	type span struct{ from, to int }
	var marks []span
	forward := count >= 0
	ci := 0
	if !forward {
		ci = len(l.chunks) - l.head - 1
	}
	for ci >= 0 && ci < len(l.chunks)-l.head && !done() {
		c := &l.chunks[l.head+ci]
		marks = marks[:0]
		if forward {
			for off := c.lo; off < c.hi && !done(); {
				e, next := elemAt(c.buf, off)
				if bytes.Equal(e, v) {
					marks = append(marks, span{off, next})
					removed++
				}
				off = next
			}
		} else {
			for end := c.hi; end > c.lo && !done(); {
				e, start := elemBefore(c.buf, end)
				if bytes.Equal(e, v) {
					marks = append(marks, span{start, end})
					removed++
				}
				end = start
			}
			slices.Reverse(marks)
		}
		if len(marks) == 0 {
			if forward {
				ci++
			} else {
				ci--
			}
			continue
		}
		cut := 0
		for _, m := range marks {
			cut += m.to - m.from
		}
		l.n -= len(marks)
		if c.n == len(marks) {
			l.dropChunk(ci)
			if !forward {
				ci--
			}
			continue
		}
		nb := l.alloc(c.used() - cut)
		w, prev := 0, c.lo
		for _, m := range marks {
			w += copy(nb[w:], c.buf[prev:m.from])
			prev = m.to
		}
		w += copy(nb[w:], c.buf[prev:c.hi])
		l.free(c.buf)
		*c = listChunk{buf: nb, lo: 0, hi: w, n: c.n - len(marks)}
		if forward {
			ci++
		} else {
			ci--
		}
	}
	return removed
}

// rangeOf converts Redis start/stop indexes (negative from the tail) to a
// first index and a count; count 0 means an empty range.
func rangeOf(start, stop int64, n int) (first, count int) {
	ln := int64(n)
	if start < 0 {
		start += ln
	}
	if stop < 0 {
		stop += ln
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= ln {
		return 0, 0
	}
	if stop >= ln {
		stop = ln - 1
	}
	return int(start), int(stop - start + 1)
}

// Commands.

// ListVisit receives the elements of a list reply under the shard lock:
// total is how many there will be, i the position of v among them. v is
// valid only during the call.
type ListVisit func(total, i int, v []byte)

// LPushEnd is LPUSH/RPUSH (and LPUSHX/RPUSHX when onlyIfExists): it pushes
// vals one by one at end and returns the new length (0 when onlyIfExists
// and the key is missing). Clients blocked on the key are served after the
// push.
func (d DB) LPushEnd(key []byte, end ListEnd, vals [][]byte, onlyIfExists bool) (int, error) {
	create := newList
	if onlyIfExists {
		create = nil
	}
	n := 0
	_, err := d.withAggregate(key, TypeList, create, func(a aggregate) (bool, error) {
		l := a.(*list)
		for _, v := range vals {
			l.push(end, v)
		}
		n = l.n
		return len(vals) > 0, nil
	})
	return n, err
}

// LPopEnd is LPOP/RPOP: it removes up to count elements at end and passes
// them to visit in the order popped. found is false when the key is
// missing; count 0 pops nothing.
func (d DB) LPopEnd(key []byte, end ListEnd, count int, visit ListVisit) (found bool, err error) {
	return d.withAggregate(key, TypeList, nil, func(a aggregate) (bool, error) {
		l := a.(*list)
		k := min(count, l.n)
		for i := 0; i < k; i++ {
			visit(k, i, l.pop(end))
		}
		return k > 0, nil
	})
}

// readList runs fn on the list at key as a read: it counts a keyspace hit
// or miss as Redis's lookupKeyRead does.
func (d DB) readList(key []byte, fn func(l *list)) (bool, error) {
	return d.readAggregate(key, TypeList, func(a aggregate) { fn(a.(*list)) })
}

// LLen is LLEN.
func (d DB) LLen(key []byte) (int, error) {
	n := 0
	_, err := d.readList(key, func(l *list) { n = l.n })
	return n, err
}

// LRange is LRANGE: it visits the elements from start to stop
// (inclusive, negative from the tail) and returns how many it visited.
func (d DB) LRange(key []byte, start, stop int64, visit ListVisit) (int, error) {
	count := 0
	_, err := d.readList(key, func(l *list) {
		first, n := rangeOf(start, stop, l.n)
		count = n
		i := 0
		l.each(first, n, true, func(v []byte) bool {
			visit(n, i, v)
			i++
			return true
		})
	})
	return count, err
}

// LIndex is LINDEX: it visits element idx (negative from the tail) and
// reports whether there was one.
func (d DB) LIndex(key []byte, idx int64, visit func(v []byte)) (bool, error) {
	ok := false
	_, err := d.readList(key, func(l *list) {
		var v []byte
		if v, ok = l.index(idx); ok {
			visit(v)
		}
	})
	return ok, err
}

// LSet is LSET: ErrNoSuchKey for a missing key, ErrIndexOutOfRange for an
// index outside the list.
func (d DB) LSet(key []byte, idx int64, v []byte) error {
	found, err := d.withAggregate(key, TypeList, nil, func(a aggregate) (bool, error) {
		l := a.(*list)
		if idx < 0 {
			idx += int64(l.n)
		}
		if idx < 0 || idx >= int64(l.n) {
			return false, ErrIndexOutOfRange
		}
		l.set(int(idx), v)
		return true, nil
	})
	if err == nil && !found {
		return ErrNoSuchKey
	}
	return err
}

// LInsert is LINSERT: the new length, 0 when the key is missing, -1 when
// the pivot is not found.
func (d DB) LInsert(key []byte, after bool, pivot, v []byte) (int, error) {
	n := 0
	_, err := d.withAggregate(key, TypeList, nil, func(a aggregate) (bool, error) {
		l := a.(*list)
		if !l.insert(pivot, v, after) {
			n = -1
			return false, nil
		}
		n = l.n
		return true, nil
	})
	return n, err
}

// LRem is LREM: it removes elements equal to v (count > 0: the first
// count; < 0: the last -count; 0: all) and returns how many.
func (d DB) LRem(key []byte, count int64, v []byte) (int64, error) {
	var removed int64
	_, err := d.withAggregate(key, TypeList, nil, func(a aggregate) (bool, error) {
		removed = a.(*list).remove(v, count)
		return removed > 0, nil
	})
	return removed, err
}

// LTrim is LTRIM: it keeps the elements from start to stop; a range
// outside the list deletes the key. It reports whether the key existed
// (LTRIM reports "ltrim" then).
func (d DB) LTrim(key []byte, start, stop int64) (found bool, err error) {
	return d.withAggregate(key, TypeList, nil, func(a aggregate) (bool, error) {
		l := a.(*list)
		first, n := rangeOf(start, stop, l.n)
		ltrim, rtrim := first, l.n-first-n
		if n == 0 {
			ltrim, rtrim = l.n, 0
		}
		l.drop(ListLeft, ltrim)
		l.drop(ListRight, rtrim)
		return true, nil // Redis signals the key even when nothing is trimmed (WATCH)
	})
}

// ListPosOptions are LPOS's RANK, COUNT and MAXLEN; Count < 0 means no
// COUNT option.
type ListPosOptions struct {
	Rank, Count, MaxLen int64
}

// LPos is LPOS: the indexes of the matches of v, scanning as Redis's
// lposCommand does (a negative rank scans from the tail). Without a COUNT
// it returns at most one index.
func (d DB) LPos(key []byte, v []byte, o ListPosOptions) ([]int64, error) {
	var out []int64
	_, err := d.readList(key, func(l *list) {
		rank, forward := o.Rank, true
		if rank < 0 {
			rank, forward = -rank, false
		}
		llen := int64(l.n)
		var index, matches int64
		start := 0
		if !forward {
			start = l.n - 1
		}
		l.each(start, l.n, forward, func(e []byte) bool {
			if o.MaxLen != 0 && index >= o.MaxLen {
				return false
			}
			if bytes.Equal(e, v) {
				matches++
				if matches >= rank {
					at := index
					if !forward {
						at = llen - index - 1
					}
					out = append(out, at)
					if o.Count < 0 || (o.Count != 0 && matches-rank+1 >= o.Count) {
						return false
					}
				}
			}
			index++
			return true
		})
	})
	return out, err
}

// LMPop is LMPOP: it pops up to count elements at end from the first
// non-empty list among keys, visiting them with that key. It reports
// whether it found one; a key of another type met first is ErrWrongType.
func (d DB) LMPop(keys [][]byte, end ListEnd, count int, visit func(key []byte, total, i int, v []byte)) (bool, error) {
	found := false
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		i, err := tx.firstOfType(TypeList)
		if i < 0 {
			return err
		}
		found = true
		_, err = tx.Aggregate(i, TypeList, nil, func(a aggregate) (bool, error) {
			l := a.(*list)
			k := min(count, l.n)
			for j := 0; j < k; j++ {
				visit(keys[i], k, j, l.pop(end))
			}
			return true, nil
		})
		return err
	})
	return found, err
}

// LMove is LMOVE and RPOPLPUSH: it pops at from of src and pushes at to
// of dst, returning the element (nil when src is missing). A dst of
// another type is ErrWrongType and nothing moves.
func (d DB) LMove(src, dst []byte, from, to ListEnd) ([]byte, error) {
	return d.BLMove(src, dst, from, to, nil)
}

// moveLocked is LMOVE inside a transaction on keys src (0) and dst (1).
func moveLocked(tx *KeyTx, from, to ListEnd) ([]byte, error) {
	switch tx.Type(0) {
	case TypeNone:
		return nil, nil
	case TypeList:
	default:
		return nil, ErrWrongType
	}
	var val []byte
	if bytes.Equal(tx.keys[0], tx.keys[1]) {
		_, err := tx.Aggregate(0, TypeList, nil, func(a aggregate) (bool, error) {
			l := a.(*list)
			val = bytes.Clone(l.pop(from))
			l.push(to, val)
			return true, nil
		})
		return val, err
	}
	if t := tx.Type(1); t != TypeNone && t != TypeList {
		return nil, ErrWrongType
	}
	if _, err := tx.Aggregate(0, TypeList, nil, func(a aggregate) (bool, error) {
		val = bytes.Clone(a.(*list).pop(from))
		return true, nil
	}); err != nil {
		return nil, err
	}
	_, err := tx.Aggregate(1, TypeList, newList, func(a aggregate) (bool, error) {
		a.(*list).push(to, val)
		return true, nil
	})
	return val, err
}

// Blocking pops.

// ListPopResult is what a blocked BLPOP, BRPOP or BLMPOP received: the key
// it was popped from and the elements, in the order popped.
type ListPopResult struct {
	Key    []byte
	Values [][]byte
}

// BLPopEnd is BLPOP, BRPOP (count < 0: one element) and BLMPOP: it pops
// from the first non-empty list among keys, as LMPop. When every key is
// missing and w is not nil, w is queued on each key, atomically with the
// check, and a later push hands the elements to it (w.ListResult) and wakes
// it; a nil result with w nil means nothing to pop (BLPOP inside MULTI).
func (d DB) BLPopEnd(keys [][]byte, end ListEnd, count int, w *Waiter) (*ListPopResult, error) {
	n := max(count, 1)
	var res *ListPopResult
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		i, err := tx.firstOfType(TypeList)
		if err != nil {
			return err
		}
		if i >= 0 {
			_, err := tx.Aggregate(i, TypeList, nil, func(a aggregate) (bool, error) {
				res = popCopies(a.(*list), keys[i], end, n)
				return true, nil
			})
			return err
		}
		if w != nil {
			w.typ = TypeList
			w.take = func(key []byte, a aggregate) { w.result = popCopies(a.(*list), key, end, n) }
			w.popClass, w.popEvent, w.popCount = ClassList, "lpop", count
			if end == ListRight {
				w.popEvent = "rpop"
			}
			for i := range keys {
				tx.register(i, w)
			}
		}
		return nil
	})
	return res, err
}

func popCopies(l *list, key []byte, end ListEnd, count int) *ListPopResult {
	k := min(count, l.n)
	res := &ListPopResult{Key: bytes.Clone(key), Values: make([][]byte, k)}
	for i := range res.Values {
		res.Values[i] = bytes.Clone(l.pop(end))
	}
	return res
}

// ListResult returns what a push handed to a waiter of BLPopEnd, or
// nil when it has not been served.
func (w *Waiter) ListResult() *ListPopResult {
	r, _ := w.Result().(*ListPopResult)
	return r
}

// BLMove is BLMOVE and BRPOPLPUSH: LMove, and when src is missing
// and w is not nil, w is queued on src (once: a waiter woken to retry stays
// queued in its place). A push to src wakes w, and its command runs
// BLMove again with the same w; once it moved an element w leaves
// the queue when the caller calls w.Done.
func (d DB) BLMove(src, dst []byte, from, to ListEnd, w *Waiter) ([]byte, error) {
	var val []byte
	if w != nil {
		w.nudged.Store(false) // retrying now: the next push wakes it again
	}
	err := d.WithKeys([][]byte{src, dst}, func(tx *KeyTx) error {
		var err error
		val, err = moveLocked(tx, from, to)
		switch {
		case w == nil:
		case err != nil || val != nil:
			w.finish()
		case len(w.regs) == 0:
			w.typ = TypeList
			tx.register(0, w)
		}
		return err
	})
	return val, err
}
