package engine

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// ztree is the large form of a sorted set, what OBJECT ENCODING calls
// "skiplist". Redis pairs a skiplist with a dict; Tandem pairs an
// order-statistic B+tree with a chained hash table, both over one table of
// elements, and keeps member bytes in an arena:
//
//   - elems: per member its score, where its bytes are in the arena, its
//     hash and the next element of its hash chain (24 bytes, no pointer).
//     Freed slots are chained through next and reused.
//   - the arena: chunks of up to zChunkMax bytes holding, per member, its
//     element id, uvarint length and bytes. A chunk that falls below half
//     live is compacted into the current chunk, so deletion keeps memory
//     within twice the live bytes at amortized O(1) cost.
//   - the hash index: buckets (the first element of each chain) addressed
//     by the top bits of the member's hash, so that ZSCAN can walk buckets
//     in hash order and a cursor stays meaningful when the table is resized.
//   - the B+tree: leaves hold element ids in (score, member) order, inner
//     nodes hold each child's smallest id and subtree size, which makes
//     ZRANK, ZRANGE by index and the bounds of a score or lex range
//     O(log n).
//
// The GC sees a handful of slices and one object per ~48 members (the tree
// nodes), whatever the number of members.
type ztree struct {
	elems []zelem
	free  uint32 // 1 + id of the first free slot of elems; 0: none
	count int

	buckets []uint32 // 1 + id of the first element of each chain; 0: empty
	bits    uint8    // len(buckets) == 1 << bits

	chunks     [][]byte
	live       []int32 // live bytes of each chunk
	cur        int     // chunk being appended to; -1: none
	freeChunks []int32
	arenaBytes int64 // sum of the chunks' capacities

	root       *znode
	head, tail *znode // first and last leaf
	leaves     int
	inners     int
}

// zelem is one member of a ztree.
type zelem struct {
	score float64
	ref   uint64 // chunk << 32 | offset of the member's arena record
	hash  uint32
	next  uint32 // 1 + id of the next element in the hash chain (or free list)
}

const (
	zFreeRef  = ^uint64(0) // ref of a free elems slot
	zChunkMin = 256
	zChunkMax = 32 << 10
	// zFan is the B+tree's order: at most zFan ids in a leaf, zFan
	// children under an inner node.
	zFan = 64
	// zMinFill is the fill below which a node borrows from or merges with
	// a sibling.
	zMinFill = zFan / 4
)

// znode is a B+tree node. Leaves use ids for element ids; inner nodes use
// ids for the smallest element id of each child, and in for the children.
type znode struct {
	ids        [zFan]uint32
	n          int32
	size       int // elements under this node
	prev, next *znode
	in         *zinner
}

type zinner struct {
	kids  [zFan]*znode
	sizes [zFan]int
	// scores[i] is the score of element ids[i] (the smallest under kid
	// i), so that a descent compares scores without visiting elems.
	scores [zFan]float64
}

// sep makes element id the separator of inner node n's child i.
func (t *ztree) sep(n *znode, i int, id uint32) {
	n.ids[i] = id
	n.in.scores[i] = t.elems[id].score
}

// moveSeps copies the children [from, from+k) of inner node src to
// position to of dst (src and dst may be the same node).
func moveSeps(dst *znode, to int, src *znode, from, k int) {
	copy(dst.ids[to:to+k], src.ids[from:from+k])
	copy(dst.in.kids[to:to+k], src.in.kids[from:from+k])
	copy(dst.in.sizes[to:to+k], src.in.sizes[from:from+k])
	copy(dst.in.scores[to:to+k], src.in.scores[from:from+k])
}

var (
	zLeafCost  = allocSize(int(unsafe.Sizeof(znode{})))
	zInnerCost = zLeafCost + allocSize(int(unsafe.Sizeof(zinner{})))
)

// zTreeHeader is what a ztree costs beyond its slices and nodes.
const zTreeHeader = int64(unsafe.Sizeof(ztree{}))

var zHashSeed = maphash.MakeSeed()

func zHash(m []byte) uint32 { return uint32(maphash.Bytes(zHashSeed, m) >> 32) }

// newZtree returns an empty tree sized for about n members.
func newZtree(n int) *ztree {
	t := &ztree{cur: -1}
	t.bits = zBucketBits(n)
	t.buckets = make([]uint32, 1<<t.bits)
	t.elems = make([]zelem, 0, n)
	t.root = &znode{}
	t.head, t.tail = t.root, t.root
	t.leaves = 1
	return t
}

// zBucketBits is the table size for n members: a load of at most 1.
func zBucketBits(n int) uint8 {
	if n < 16 {
		return 4
	}
	return uint8(bits.Len(uint(n - 1)))
}

func (t *ztree) memSize() int64 {
	return zTreeHeader +
		allocSize(cap(t.elems)*int(unsafe.Sizeof(zelem{}))) +
		allocSize(cap(t.buckets)*4) +
		t.arenaBytes + allocSize(cap(t.chunks)*24) + allocSize(cap(t.live)*4) + allocSize(cap(t.freeChunks)*4) +
		int64(t.leaves)*zLeafCost + int64(t.inners)*zInnerCost
}

// --- elements and the arena ---

// member returns the bytes of element id. They are valid until the tree
// changes and must not be modified.
func (t *ztree) member(id uint32) []byte {
	ref := t.elems[id].ref
	c := t.chunks[ref>>32]
	off := int(uint32(ref)) + 4
	l, k := binary.Uvarint(c[off:])
	off += k
	return c[off : off+int(l) : off+int(l)]
}

func zRecordLen(m int) int {
	return 4 + zUvarintLen(uint64(m)) + m
}

func zUvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// newElem takes a free slot (or a new one) for (m, score) and stores m.
func (t *ztree) newElem(m []byte, score float64, h uint32) uint32 {
	var id uint32
	if t.free != 0 {
		id = t.free - 1
		t.free = t.elems[id].next
	} else {
		id = uint32(len(t.elems))
		t.elems = append(t.elems, zelem{})
	}
	t.elems[id] = zelem{score: score, hash: h}
	t.elems[id].ref = t.storeMember(id, m)
	return id
}

// freeElem releases element id's bytes and slot.
func (t *ztree) freeElem(id uint32) {
	t.freeMember(id)
	t.elems[id] = zelem{ref: zFreeRef, next: t.free}
	t.free = id + 1
}

// storeMember appends id's arena record and returns its ref.
func (t *ztree) storeMember(id uint32, m []byte) uint64 {
	need := zRecordLen(len(m))
	c := t.chunkFor(need)
	b := t.chunks[c]
	off := len(b)
	b = binary.LittleEndian.AppendUint32(b, id)
	b = binary.AppendUvarint(b, uint64(len(m)))
	b = append(b, m...)
	t.chunks[c] = b
	t.live[c] += int32(need)
	return uint64(c)<<32 | uint64(off)
}

// chunkFor returns a chunk with room for a record of need bytes: the
// current one, grown if it is still small, or a new one. A record larger
// than a quarter chunk gets a chunk of its own, freed with it.
func (t *ztree) chunkFor(need int) int {
	if need > zChunkMax/4 {
		return t.newChunk(need)
	}
	if t.cur >= 0 {
		b := t.chunks[t.cur]
		if len(b)+need <= cap(b) {
			return t.cur
		}
		if cap(b) < zChunkMax {
			nc := max(2*cap(b), zChunkMin)
			for nc < len(b)+need {
				nc *= 2
			}
			if nc = min(nc, zChunkMax); nc >= len(b)+need {
				// Records are addressed by offset: moving the chunk
				// moves nothing else.
				grown := make([]byte, len(b), nc)
				copy(grown, b)
				t.arenaBytes += int64(nc - cap(b))
				t.chunks[t.cur] = grown
				return t.cur
			}
		}
	}
	size := zChunkMax
	if t.cur < 0 {
		size = max(zChunkMin, need) // a tree starts small
	}
	old := t.cur
	t.cur = t.newChunk(size)
	if old >= 0 && int(t.live[old])*2 < len(t.chunks[old]) {
		// The chunk left behind is mostly dead already: its records move
		// to the new chunk (less than half of it), leaving room for need.
		t.compactChunk(old)
	}
	return t.cur
}

func (t *ztree) newChunk(size int) int {
	b := make([]byte, 0, size)
	t.arenaBytes += int64(cap(b))
	if n := len(t.freeChunks); n > 0 {
		c := int(t.freeChunks[n-1])
		t.freeChunks = t.freeChunks[:n-1]
		t.chunks[c] = b
		t.live[c] = 0
		return c
	}
	t.chunks = append(t.chunks, b)
	t.live = append(t.live, 0)
	return len(t.chunks) - 1
}

func (t *ztree) dropChunk(c int) {
	t.arenaBytes -= int64(cap(t.chunks[c]))
	t.chunks[c] = nil
	t.live[c] = 0
	t.freeChunks = append(t.freeChunks, int32(c))
}

// freeMember releases id's arena record and marks the element free. A
// chunk left empty is dropped; a full chunk left less than half live is
// compacted.
func (t *ztree) freeMember(id uint32) {
	c := int(t.elems[id].ref >> 32)
	t.live[c] -= int32(zRecordLen(len(t.member(id))))
	t.elems[id].ref = zFreeRef
	switch {
	case t.live[c] == 0 && c == t.cur:
		t.chunks[c] = t.chunks[c][:0]
	case t.live[c] == 0:
		t.dropChunk(c)
	case c != t.cur && int(t.live[c])*2 < len(t.chunks[c]):
		t.compactChunk(c)
	}
}

// compactChunk moves the live records of chunk c to the current chunk
// and drops c. A record is live when its element still points at it.
func (t *ztree) compactChunk(c int) {
	b := t.chunks[c]
	for off := 0; off < len(b); {
		id := binary.LittleEndian.Uint32(b[off:])
		l, k := binary.Uvarint(b[off+4:])
		rec := 4 + k + int(l)
		if int(id) < len(t.elems) && t.elems[id].ref == uint64(c)<<32|uint64(off) {
			m := b[off+4+k : off+rec]
			t.elems[id].ref = t.storeMember(id, m)
		}
		off += rec
	}
	t.dropChunk(c)
}

// --- hash index ---

func (t *ztree) bucketOf(h uint32) uint32 {
	if t.bits == 0 {
		return 0
	}
	return h >> (32 - t.bits)
}

// find returns 1 + the id of member m, or 0.
func (t *ztree) find(m []byte, h uint32) uint32 {
	for e := t.buckets[t.bucketOf(h)]; e != 0; e = t.elems[e-1].next {
		el := &t.elems[e-1]
		if el.hash == h && bytes.Equal(t.member(e-1), m) {
			return e
		}
	}
	return 0
}

func (t *ztree) hashLink(id uint32) {
	b := t.bucketOf(t.elems[id].hash)
	t.elems[id].next = t.buckets[b]
	t.buckets[b] = id + 1
}

func (t *ztree) hashUnlink(id uint32) {
	b := t.bucketOf(t.elems[id].hash)
	p := &t.buckets[b]
	for *p != id+1 {
		p = &t.elems[*p-1].next
	}
	*p = t.elems[id].next
}

// resize rebuilds the hash index for the current count when it is more
// than full or less than an eighth full.
func (t *ztree) resizeIfNeeded() {
	nb := len(t.buckets)
	if t.count <= nb && (t.count >= nb/8 || nb <= 16) {
		return
	}
	t.bits = zBucketBits(t.count)
	t.buckets = make([]uint32, 1<<t.bits)
	for id := range t.elems {
		if t.elems[id].ref != zFreeRef {
			t.hashLink(uint32(id))
		}
	}
}

// --- ordering ---

// cmp orders (score, m) against element id.
func (t *ztree) cmp(score float64, m []byte, id uint32) int {
	if s := t.elems[id].score; score < s {
		return -1
	} else if score > s {
		return 1
	}
	return bytes.Compare(m, t.member(id))
}

// childFor returns the child of inner node n whose range holds (score, m):
// the last child whose smallest element is not above it, or the first.
func (t *ztree) childFor(n *znode, score float64, m []byte) int {
	lo, hi := 1, int(n.n)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c := 0
		if s := n.in.scores[mid]; score < s {
			c = -1
		} else if score > s {
			c = 1
		} else {
			c = bytes.Compare(m, t.member(n.ids[mid]))
		}
		if c >= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// leafPos returns the first index of leaf n whose element is not below
// (score, m).
func (t *ztree) leafPos(n *znode, score float64, m []byte) int {
	lo, hi := 0, int(n.n)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if t.cmp(score, m, n.ids[mid]) > 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// --- tree operations ---

// insert places element id (not in the tree) in order.
func (t *ztree) insert(id uint32) {
	e := &t.elems[id]
	score, m := e.score, t.member(id)
	if sib := t.insertUnder(t.root, id, score, m); sib != nil {
		root := &znode{in: &zinner{}}
		t.inners++
		root.n = 2
		t.sep(root, 0, t.root.ids[0])
		t.sep(root, 1, sib.ids[0])
		root.in.kids[0], root.in.kids[1] = t.root, sib
		root.in.sizes[0], root.in.sizes[1] = t.root.size, sib.size
		root.size = t.root.size + sib.size
		t.root = root
	}
}

// insertUnder inserts under n and returns n's new right sibling if n split.
func (t *ztree) insertUnder(n *znode, id uint32, score float64, m []byte) *znode {
	n.size++
	if n.in == nil {
		i := t.leafPos(n, score, m)
		copy(n.ids[i+1:n.n+1], n.ids[i:n.n])
		n.ids[i] = id
		n.n++
		if n.n == zFan {
			return t.splitLeaf(n, i == int(n.n)-1)
		}
		return nil
	}
	i := t.childFor(n, score, m)
	c := n.in.kids[i]
	sib := t.insertUnder(c, id, score, m)
	t.sep(n, i, c.ids[0])
	n.in.sizes[i] = c.size
	if sib == nil {
		return nil
	}
	j := i + 1
	moveSeps(n, j+1, n, j, int(n.n)-j)
	t.sep(n, j, sib.ids[0])
	n.in.kids[j], n.in.sizes[j] = sib, sib.size
	n.n++
	if n.n == zFan {
		return t.splitInner(n)
	}
	return nil
}

// splitLeaf moves the upper part of a full leaf to a new right sibling.
// A leaf filled by appending at its end keeps most of its ids, so that
// members added in order (the usual leaderboard and time series) leave
// leaves nearly full.
func (t *ztree) splitLeaf(n *znode, appended bool) *znode {
	keep := int32(zFan / 2)
	if appended && n.next == nil {
		keep = zFan - zFan/8
	}
	sib := &znode{}
	t.leaves++
	sib.n = n.n - keep
	copy(sib.ids[:], n.ids[keep:n.n])
	n.n = keep
	n.size, sib.size = int(keep), int(sib.n)
	sib.prev, sib.next = n, n.next
	if n.next != nil {
		n.next.prev = sib
	} else {
		t.tail = sib
	}
	n.next = sib
	return sib
}

func (t *ztree) splitInner(n *znode) *znode {
	keep := int32(zFan / 2)
	sib := &znode{in: &zinner{}}
	t.inners++
	sib.n = n.n - keep
	moveSeps(sib, 0, n, int(keep), int(sib.n))
	clear(n.in.kids[keep:n.n])
	n.n = keep
	sib.size = 0
	for i := int32(0); i < sib.n; i++ {
		sib.size += sib.in.sizes[i]
	}
	n.size -= sib.size
	return sib
}

// remove takes element id out of the tree.
func (t *ztree) remove(id uint32) {
	e := &t.elems[id]
	t.removeUnder(t.root, id, e.score, t.member(id), false, 0)
	t.collapseRoot()
}

func (t *ztree) collapseRoot() {
	for t.root.in != nil && t.root.n == 1 {
		t.root = t.root.in.kids[0]
		t.inners--
	}
}

// removeUnder removes element id, of key (score, m), from under n and
// reports whether it did. With move, the element is to get score to: when
// that keeps it between its neighbours, its score is changed in place and
// nothing else is.
func (t *ztree) removeUnder(n *znode, id uint32, score float64, m []byte, move bool, to float64) bool {
	if n.in == nil {
		i := t.leafPos(n, score, m)
		if move && t.fitsAt(zpos{n, int32(i)}, to, m) {
			t.elems[id].score = to
			return false
		}
		copy(n.ids[i:], n.ids[i+1:n.n])
		n.n--
		n.size--
		return true
	}
	i := t.childFor(n, score, m)
	c := n.in.kids[i]
	if !t.removeUnder(c, id, score, m, move, to) {
		if n.ids[i] == id {
			n.in.scores[i] = to // moved in place, and the smallest under c
		}
		return false
	}
	n.size--
	n.in.sizes[i] = c.size
	if c.n > 0 {
		t.sep(n, i, c.ids[0])
	}
	if c.n < zMinFill && n.n > 1 {
		t.rebalance(n, i)
	}
	return true
}

// rebalance fixes child i of n, which fell below zMinFill: it merges with
// a sibling when both fit in one node, and otherwise takes ids from it.
func (t *ztree) rebalance(n *znode, i int) {
	l := i
	if l == int(n.n)-1 {
		l--
	}
	a, b := n.in.kids[l], n.in.kids[l+1]
	if a.n+b.n <= zFan-zFan/8 {
		t.merge(a, b)
		// Drop child l+1.
		moveSeps(n, l+1, n, l+2, int(n.n)-l-2)
		n.in.kids[n.n-1] = nil
		n.n--
	} else {
		t.even(a, b)
		t.sep(n, l+1, b.ids[0])
		n.in.sizes[l+1] = b.size
	}
	t.sep(n, l, a.ids[0])
	n.in.sizes[l] = a.size
}

// merge moves all of b into a (its left sibling).
func (t *ztree) merge(a, b *znode) {
	if a.in != nil {
		moveSeps(a, int(a.n), b, 0, int(b.n))
		t.inners--
	} else {
		a.next = b.next
		if b.next != nil {
			b.next.prev = a
		} else {
			t.tail = a
		}
		copy(a.ids[a.n:], b.ids[:b.n])
		t.leaves--
	}
	a.n += b.n
	a.size += b.size
}

// even moves ids between siblings a and b so that they hold about as many.
func (t *ztree) even(a, b *znode) {
	total := a.n + b.n
	want := total / 2
	if a.n < want { // move the first want-a.n of b to a's end
		k := want - a.n
		if a.in != nil {
			moveSeps(a, int(a.n), b, 0, int(k))
			moveSeps(b, 0, b, int(k), int(b.n-k))
			clear(b.in.kids[b.n-k : b.n])
		} else {
			copy(a.ids[a.n:], b.ids[:k])
			copy(b.ids[:], b.ids[k:b.n])
		}
		a.n, b.n = want, b.n-k
	} else { // move the last a.n-want of a to b's front
		k := a.n - want
		if a.in != nil {
			moveSeps(b, int(k), b, 0, int(b.n))
			moveSeps(b, 0, a, int(want), int(k))
			clear(a.in.kids[want:a.n])
		} else {
			copy(b.ids[k:], b.ids[:b.n])
			copy(b.ids[:k], a.ids[want:a.n])
		}
		a.n, b.n = want, b.n+k
	}
	a.size, b.size = a.countSize(), b.countSize()
}

func (n *znode) countSize() int {
	if n.in == nil {
		return int(n.n)
	}
	s := 0
	for i := int32(0); i < n.n; i++ {
		s += n.in.sizes[i]
	}
	return s
}

// rank returns the 0-based position of element id.
func (t *ztree) rank(id uint32) int {
	e := &t.elems[id]
	score, m := e.score, t.member(id)
	r := 0
	n := t.root
	for n.in != nil {
		i := t.childFor(n, score, m)
		for j := 0; j < i; j++ {
			r += n.in.sizes[j]
		}
		n = n.in.kids[i]
	}
	return r + t.leafPos(n, score, m)
}

// zpos is a position in the tree: a leaf and an index in it.
type zpos struct {
	leaf *znode
	i    int32
}

// seek returns the position of rank r (0 <= r < count).
func (t *ztree) seek(r int) zpos {
	n := t.root
	for n.in != nil {
		i := 0
		for r >= n.in.sizes[i] {
			r -= n.in.sizes[i]
			i++
		}
		n = n.in.kids[i]
	}
	return zpos{n, int32(r)}
}

func (p *zpos) id() uint32 { return p.leaf.ids[p.i] }

func (p *zpos) forward() {
	if p.i++; p.i == p.leaf.n && p.leaf.next != nil {
		p.leaf, p.i = p.leaf.next, 0
	}
}

func (p *zpos) backward() {
	if p.i--; p.i < 0 && p.leaf.prev != nil {
		p.leaf = p.leaf.prev
		p.i = p.leaf.n - 1
	}
}

// firstWhere returns the rank of the first element for which pred holds,
// pred being false then true along the order; count if it never holds.
// pred gets the element's id and score.
func (t *ztree) firstWhere(pred func(id uint32, score float64) bool) int {
	r := 0
	n := t.root
	for n.in != nil {
		lo, hi := 0, int(n.n)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if pred(n.ids[mid], n.in.scores[mid]) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		c := max(lo-1, 0)
		for j := 0; j < c; j++ {
			r += n.in.sizes[j]
		}
		n = n.in.kids[c]
	}
	lo, hi := 0, int(n.n)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if id := n.ids[mid]; pred(id, t.elems[id].score) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return r + lo
}

// --- members ---

// add inserts member m, not in the tree, with its score.
func (t *ztree) add(m []byte, score float64) {
	h := zHash(m)
	id := t.newElem(m, score, h)
	t.count++
	t.hashLink(id)
	t.insert(id)
	t.resizeIfNeeded()
}

// delete removes element id. When three quarters of the element table
// are free slots the tree is rebuilt compactly (ids change), so memory
// follows a shrinking set down at amortized O(1) per deletion.
func (t *ztree) delete(id uint32) {
	t.remove(id)
	t.hashUnlink(id)
	t.freeElem(id)
	t.count--
	if len(t.elems) >= 256 && t.count < len(t.elems)/4 {
		*t = *t.clone()
		return
	}
	t.resizeIfNeeded()
}

// setScore moves element id to a new score: in place when its neighbours
// stay on either side, as Redis's zslUpdateScore does, so a small change
// (ZINCRBY on a leaderboard) costs one descent.
func (t *ztree) setScore(id uint32, score float64) {
	e := &t.elems[id]
	if !t.removeUnder(t.root, id, e.score, t.member(id), true, score) {
		return
	}
	t.collapseRoot()
	t.elems[id].score = score
	t.insert(id)
}

// fitsAt reports whether (score, m) would still sort between the
// neighbours of position p.
func (t *ztree) fitsAt(p zpos, score float64, m []byte) bool {
	prev, next := p, p
	prev.backward()
	next.forward()
	return (prev.i < 0 || t.cmp(score, m, prev.id()) > 0) && (next.i >= next.leaf.n || t.cmp(score, m, next.id()) < 0)
}

// buildZtree bulk-loads a tree from n members given in order by each:
// leaves are filled to 7/8, then the inner levels on top.
func buildZtree(n int, each func(fn func(m []byte, score float64))) *ztree {
	t := newZtree(n)
	if n == 0 {
		return t
	}
	ids := make([]uint32, 0, n)
	each(func(m []byte, score float64) {
		id := t.newElem(m, score, zHash(m))
		t.hashLink(id)
		ids = append(ids, id)
	})
	t.count = len(ids)
	const fill = zFan - zFan/8
	level := t.buildLevel(len(ids), fill, func(node *znode, from, to int) {
		node.n = int32(copy(node.ids[:], ids[from:to]))
		node.size = int(node.n)
	}, false)
	t.leaves = len(level)
	for i, l := range level {
		if i > 0 {
			l.prev = level[i-1]
		}
		if i+1 < len(level) {
			l.next = level[i+1]
		}
	}
	t.head, t.tail = level[0], level[len(level)-1]
	for len(level) > 1 {
		kids := level
		level = t.buildLevel(len(kids), fill, func(node *znode, from, to int) {
			for j, k := range kids[from:to] {
				t.sep(node, j, k.ids[0])
				node.in.kids[j] = k
				node.in.sizes[j] = k.size
				node.size += k.size
			}
			node.n = int32(to - from)
		}, true)
		t.inners += len(level)
	}
	t.root = level[0]
	return t
}

// buildLevel makes ceil(n/fill) nodes sharing n items evenly.
func (t *ztree) buildLevel(n, fill int, fillNode func(node *znode, from, to int), inner bool) []*znode {
	k := (n + fill - 1) / fill
	nodes := make([]*znode, k)
	from := 0
	for i := range nodes {
		to := from + (n-from)/(k-i)
		nodes[i] = &znode{}
		if inner {
			nodes[i].in = &zinner{}
		}
		fillNode(nodes[i], from, to)
		from = to
	}
	return nodes
}

// each calls fn for k elements from rank r, forward or backward, until fn
// returns false.
func (t *ztree) each(r, k int, rev bool, fn func(m []byte, score float64) bool) {
	if k <= 0 {
		return
	}
	p := t.seek(r)
	for ; k > 0; k-- {
		id := p.id()
		if !fn(t.member(id), t.elems[id].score) {
			return
		}
		if rev {
			p.backward()
		} else {
			p.forward()
		}
	}
}

// scan calls fn for the members of the buckets from cursor on (cursors
// are positions in hash order) until at least count were returned, and
// returns the next cursor, 0 at the end.
func (t *ztree) scan(cursor uint64, count int, fn func(m []byte, score float64)) uint64 {
	if cursor >= 1<<32 {
		return 0
	}
	b := uint32(cursor) >> (32 - t.bits)
	if t.bits == 0 {
		b = 0
	}
	seen := 0
	for int(b) < len(t.buckets) {
		for e := t.buckets[b]; e != 0; e = t.elems[e-1].next {
			fn(t.member(e-1), t.elems[e-1].score)
			seen++
		}
		b++
		if seen >= count {
			break
		}
	}
	if int(b) >= len(t.buckets) {
		return 0
	}
	return uint64(b) << (32 - t.bits)
}

// clone returns a deep, compacted copy.
func (t *ztree) clone() *ztree {
	return buildZtree(t.count, func(fn func(m []byte, score float64)) {
		t.each(0, t.count, false, func(m []byte, score float64) bool {
			fn(m, score)
			return true
		})
	})
}
