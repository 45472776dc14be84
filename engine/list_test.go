package engine

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkList verifies a list's internal bookkeeping: chunk counts and
// offsets agree with a walk of the packed bytes in both directions, no
// chunk is empty, the buffer memory matches the buffers, and the elements
// are want.
func checkList(t *testing.T, l *list, want []string) {
	t.Helper()
	if l.n != len(want) {
		t.Fatalf("n = %d, want %d", l.n, len(want))
	}
	var got []string
	var mem int64
	total := 0
	for ci, c := range l.live() {
		if c.n == 0 {
			t.Fatalf("chunk %d is empty", ci)
		}
		if c.lo < 0 || c.lo > c.hi || c.hi > len(c.buf) {
			t.Fatalf("chunk %d: lo %d hi %d len %d", ci, c.lo, c.hi, len(c.buf))
		}
		var fwd []string
		for off := c.lo; off < c.hi; {
			var v []byte
			v, off = elemAt(c.buf, off)
			fwd = append(fwd, string(v))
			if off > c.hi {
				t.Fatalf("chunk %d: element runs past hi", ci)
			}
		}
		var back []string
		for end := c.hi; end > c.lo; {
			var v []byte
			v, end = elemBefore(c.buf, end)
			back = append(back, string(v))
		}
		slices.Reverse(back)
		if len(fwd) != c.n || !slices.Equal(fwd, back) {
			t.Fatalf("chunk %d: n %d, forward %d, backward walk differs: %v", ci, c.n, len(fwd), !slices.Equal(fwd, back))
		}
		got = append(got, fwd...)
		mem += allocSize(cap(c.buf))
		total += c.n
	}
	for i := 0; i < l.head; i++ {
		if l.chunks[i].buf != nil {
			t.Fatalf("dead chunk %d before head keeps a buffer", i)
		}
	}
	if mem != l.bufMem {
		t.Fatalf("bufMem %d, buffers %d", l.bufMem, mem)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("elements %q, want %q", shortList(got), shortList(want))
	}
}

func shortList(s []string) []string {
	if len(s) > 12 {
		return append(slices.Clone(s[:12]), fmt.Sprintf("…(%d)", len(s)))
	}
	return s
}

func TestElemPacking(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 129, 16383, 16384, 70000} {
		v := bytes.Repeat([]byte{'x'}, n)
		buf := make([]byte, elemSize(n)+3)
		putElem(buf[1:], v)
		got, next := elemAt(buf, 1)
		if !bytes.Equal(got, v) || next != 1+elemSize(n) {
			t.Fatalf("len %d: forward got %d bytes, next %d", n, len(got), next)
		}
		got, start := elemBefore(buf, next)
		if !bytes.Equal(got, v) || start != 1 {
			t.Fatalf("len %d: backward got %d bytes, start %d", n, len(got), start)
		}
	}
}

// TestListModel runs random operations on a list and on a plain slice and
// compares them after each step.
func TestListModel(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { listModelRun(t, seed, 3000) })
	}
}

func randElem(r *rand.Rand) string {
	switch r.IntN(20) {
	case 0:
		return strings.Repeat("L", 100+r.IntN(9000)) // larger than a chunk sometimes
	case 1:
		return ""
	case 2, 3:
		return strings.Repeat("m", 120+r.IntN(20)) // around the 1-byte varint limit
	}
	return fmt.Sprint(r.IntN(30))
}

func listModelRun(t *testing.T, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, 7))
	l := &list{}
	var m []string
	for step := 0; step < steps; step++ {
		op := r.IntN(14)
		switch op {
		case 0, 1, 2:
			v := randElem(r)
			l.pushBack([]byte(v))
			m = append(m, v)
		case 3, 4:
			v := randElem(r)
			l.pushFront([]byte(v))
			m = append([]string{v}, m...)
		case 5:
			if len(m) > 0 {
				if got := string(l.pop(ListLeft)); got != m[0] {
					t.Fatalf("step %d: popFront %q, want %q", step, got, m[0])
				}
				m = m[1:]
			}
		case 6:
			if len(m) > 0 {
				if got := string(l.pop(ListRight)); got != m[len(m)-1] {
					t.Fatalf("step %d: popBack %q, want %q", step, got, m[len(m)-1])
				}
				m = m[:len(m)-1]
			}
		case 7:
			if len(m) > 0 {
				i := r.IntN(len(m))
				v := randElem(r)
				l.set(i, []byte(v))
				m[i] = v
			}
		case 8:
			pivot, v, after := randElem(r), randElem(r), r.IntN(2) == 0
			found := l.insert([]byte(pivot), []byte(v), after)
			i := slices.Index(m, pivot)
			if found != (i >= 0) {
				t.Fatalf("step %d: insert found %v, model %d", step, found, i)
			}
			if i >= 0 {
				if after {
					i++
				}
				m = slices.Insert(m, i, v)
			}
		case 9:
			v := randElem(r)
			count := int64(r.IntN(5) - 2)
			got := l.remove([]byte(v), count)
			want := modelRemove(&m, v, count)
			if got != want {
				t.Fatalf("step %d: remove %q %d = %d, want %d", step, v, count, got, want)
			}
		case 10:
			start, stop := int64(r.IntN(20)-10), int64(r.IntN(40)-10)
			first, n := rangeOf(start, stop, len(m))
			ltrim, rtrim := first, len(m)-first-n
			if n == 0 {
				ltrim, rtrim = len(m), 0
			}
			if r.IntN(4) != 0 { // trimming empties the model too often
				break
			}
			l.drop(ListLeft, ltrim)
			l.drop(ListRight, rtrim)
			m = m[ltrim : len(m)-rtrim]
		case 11:
			i := int64(r.IntN(2*len(m)+2) - len(m) - 1)
			v, ok := l.index(i)
			j := i
			if j < 0 {
				j += int64(len(m))
			}
			wantOK := j >= 0 && j < int64(len(m))
			if ok != wantOK || (ok && string(v) != m[j]) {
				t.Fatalf("step %d: index %d = %q %v", step, i, v, ok)
			}
		case 12:
			if len(m) > 0 {
				start, n := r.IntN(len(m)), r.IntN(len(m)+1)
				forward := r.IntN(2) == 0
				var got []string
				l.each(start, n, forward, func(v []byte) bool { got = append(got, string(v)); return true })
				var want []string
				for i, k := start, 0; k < n && i >= 0 && i < len(m); k++ {
					want = append(want, m[i])
					if forward {
						i++
					} else {
						i--
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("step %d: each(%d,%d,%v) = %q, want %q", step, start, n, forward, shortList(got), shortList(want))
				}
			}
		case 13:
			c := l.clone().(*list)
			checkList(t, c, m)
		}
		checkList(t, l, m)
	}
}

func modelRemove(m *[]string, v string, count int64) int64 {
	var removed int64
	limit := count
	if limit < 0 {
		limit = -limit
	}
	s := *m
	if count >= 0 {
		out := s[:0]
		for _, e := range s {
			if e == v && (limit == 0 || removed < limit) {
				removed++
				continue
			}
			out = append(out, e)
		}
		*m = out
		return removed
	}
	keep := make([]bool, len(s))
	for i := len(s) - 1; i >= 0; i-- {
		keep[i] = !(s[i] == v && removed < limit)
		if !keep[i] {
			removed++
		}
	}
	out := s[:0]
	for i, e := range s {
		if keep[i] {
			out = append(out, e)
		}
	}
	*m = out
	return removed
}

func TestListChunking(t *testing.T) {
	l := &list{}
	var m []string
	for i := 0; i < 20000; i++ {
		v := fmt.Sprint("element-", i)
		l.pushBack([]byte(v))
		m = append(m, v)
	}
	if len(l.live()) < 10 {
		t.Fatalf("20000 elements in %d chunks", len(l.live()))
	}
	for _, c := range l.live() {
		if c.used() > listChunkMax {
			t.Fatalf("chunk holds %d bytes", c.used())
		}
	}
	checkList(t, l, m)
	// A queue: pushes at the tail, pops at the head, must not keep the
	// drained chunks or grow the chunk slice without bound.
	for i := 0; i < 200000; i++ {
		l.pushBack([]byte("q"))
		l.pop(ListLeft)
	}
	if cap(l.chunks) > 128 { // 30 chunks at most were live
		t.Fatalf("chunk slice cap %d for %d live chunks", cap(l.chunks), len(l.live()))
	}
	checkList(t, l, slices.Repeat([]string{"q"}, 20000))
	// Inserting many elements into one chunk splits it.
	l = &list{}
	l.pushBack([]byte("pivot"))
	for i := 0; i < 3000; i++ {
		l.insert([]byte("pivot"), []byte("inserted-element-of-some-length"), true)
	}
	if len(l.live()) < 2 {
		t.Fatal("no split after 3000 inserts")
	}
	for _, c := range l.live() {
		if c.used() > 2*listChunkMax {
			t.Fatalf("chunk of %d bytes after inserts", c.used())
		}
	}
}

func TestListCommands(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	k := bs("l")
	if n, err := d.LPushEnd(k, ListRight, [][]byte{bs("a"), bs("b"), bs("c")}, false); n != 3 || err != nil {
		t.Fatalf("RPUSH = %d %v", n, err)
	}
	if n, _ := d.LPushEnd(k, ListLeft, [][]byte{bs("x"), bs("y")}, false); n != 5 {
		t.Fatalf("LPUSH = %d", n)
	}
	if n, _ := d.LPushEnd(bs("nosuch"), ListLeft, [][]byte{bs("x")}, true); n != 0 || d.Exists(bs("nosuch")) != 0 {
		t.Fatal("LPUSHX created a key")
	}
	rng := func(start, stop int64) []string {
		var out []string
		d.LRange(k, start, stop, func(total, i int, v []byte) { out = append(out, string(v)) })
		return out
	}
	if got := rng(0, -1); !slices.Equal(got, []string{"y", "x", "a", "b", "c"}) {
		t.Fatalf("LRANGE = %q", got)
	}
	if got := rng(-2, 100); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("LRANGE -2 100 = %q", got)
	}
	if err := d.LSet(k, 10, bs("v")); err != ErrIndexOutOfRange {
		t.Fatalf("LSET out of range: %v", err)
	}
	if err := d.LSet(bs("nosuch"), 0, bs("v")); err != ErrNoSuchKey {
		t.Fatalf("LSET missing: %v", err)
	}
	if n, _ := d.LInsert(k, false, bs("a"), bs("before-a")); n != 6 {
		t.Fatalf("LINSERT = %d", n)
	}
	if n, _ := d.LInsert(k, true, bs("zzz"), bs("v")); n != -1 {
		t.Fatalf("LINSERT no pivot = %d", n)
	}
	var popped []string
	found, err := d.LPopEnd(k, ListRight, 2, func(total, i int, v []byte) { popped = append(popped, string(v)) })
	if !found || err != nil || !slices.Equal(popped, []string{"c", "b"}) {
		t.Fatalf("RPOP 2 = %q %v %v", popped, found, err)
	}
	pos, _ := d.LPos(k, bs("x"), ListPosOptions{Rank: 1, Count: -1})
	if !slices.Equal(pos, []int64{1}) {
		t.Fatalf("LPOS = %v", pos)
	}
	if v, err := d.LMove(k, bs("dst"), ListLeft, ListRight); string(v) != "y" || err != nil {
		t.Fatalf("LMOVE = %q %v", v, err)
	}
	if v, _ := d.LMove(k, k, ListLeft, ListRight); string(v) != "x" {
		t.Fatalf("LMOVE rotate = %q", v)
	}
	if got := rng(0, -1); !slices.Equal(got, []string{"before-a", "a", "x"}) {
		t.Fatalf("after rotate = %q", got)
	}
	mustSet(t, d, "str", "v", SetOptions{})
	if _, err := d.LMove(k, bs("str"), ListLeft, ListRight); err != ErrWrongType {
		t.Fatalf("LMOVE into a string: %v", err)
	}
	if _, err := d.LPushEnd(bs("str"), ListLeft, [][]byte{bs("x")}, false); err != ErrWrongType {
		t.Fatalf("LPUSH on a string: %v", err)
	}
	if n, _ := d.LRem(k, 0, bs("a")); n != 1 {
		t.Fatalf("LREM = %d", n)
	}
	if _, err := d.LTrim(k, 5, 10); err != nil || d.Exists(k) != 0 {
		t.Fatalf("LTRIM out of range kept the key: %v", err)
	}
	var mkey string
	var mvals []string
	ok, err := d.LMPop([][]byte{bs("nosuch"), bs("dst")}, ListLeft, 10, func(key []byte, total, i int, v []byte) {
		mkey = string(key)
		mvals = append(mvals, string(v))
	})
	if !ok || err != nil || mkey != "dst" || !slices.Equal(mvals, []string{"y"}) {
		t.Fatalf("LMPOP = %v %v %q %q", ok, err, mkey, mvals)
	}
	if info, ok := d.Info(bs("nosuch")); ok {
		t.Fatalf("info %+v", info)
	}
	d.LPushEnd(k, ListLeft, [][]byte{bs("a")}, false)
	if info, _ := d.Info(k); info.Type != TypeList || info.Encoding.String() != "quicklist" {
		t.Fatalf("info %+v", info)
	}
	checkInvariants(t, e)
}

// TestListMemory checks that used memory follows a list up and back down.
func TestListMemory(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	base := e.UsedMemory()
	var vals [][]byte
	for i := 0; i < 1000; i++ {
		vals = append(vals, []byte(fmt.Sprintf("value-%06d", i)))
	}
	d.LPushEnd(bs("l"), ListRight, vals, false)
	grown := e.UsedMemory() - base
	if grown < 1000*14 || grown > 1000*40 {
		t.Fatalf("1000 elements of 12 bytes account %d bytes", grown)
	}
	checkInvariants(t, e)
	d.LTrim(bs("l"), 0, 9)
	checkInvariants(t, e)
	d.LPopEnd(bs("l"), ListLeft, 10, func(int, int, []byte) {})
	if got := e.UsedMemory(); got != base {
		t.Fatalf("used memory %d after emptying, was %d", got, base)
	}
	checkInvariants(t, e)
}

func TestListPosRankMin(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	d.LPushEnd(bs("l"), ListRight, [][]byte{bs("a"), bs("b"), bs("a")}, false)
	// Redis 7.0 negates LONG_MIN into itself: every match qualifies, from the tail.
	pos, _ := d.LPos(bs("l"), bs("a"), ListPosOptions{Rank: math.MinInt64, Count: -1})
	if !slices.Equal(pos, []int64{2}) {
		t.Fatalf("LPOS RANK LONG_MIN = %v", pos)
	}
}

// TestListLargeElementsMemory: small elements pushed between large ones
// must not each get a full-size chunk.
func TestListLargeElementsMemory(t *testing.T) {
	l := &list{}
	big := bytes.Repeat([]byte{'b'}, 9000)
	for i := 0; i < 100; i++ {
		l.pushBack(big)
		l.pushBack([]byte("s"))
		l.pushFront(big)
		l.pushFront([]byte("s"))
	}
	if limit := int64(200 * (allocSize(9000+6) + 64)); l.bufMem > limit {
		t.Fatalf("200 large and 200 one-byte elements hold %d bytes of buffers, want <= %d", l.bufMem, limit)
	}
}
