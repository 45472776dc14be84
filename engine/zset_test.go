package engine

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// --- structural invariants ---

// checkZset verifies every invariant of a sorted set's representation.
func checkZset(t testing.TB, z *zset) {
	t.Helper()
	if z.tree == nil {
		p := &z.lp
		if p.n*zpRec > len(p.buf) {
			t.Fatalf("packed: %d records need %d bytes, buffer has %d", p.n, p.n*zpRec, len(p.buf))
		}
		if p.n > 0 && p.end(p.n-1) != p.dataLen() {
			t.Fatalf("packed: last end %d, data area %d", p.end(p.n-1), p.dataLen())
		}
		for i := 0; i < p.n; i++ {
			if p.end(i) < p.start(i) {
				t.Fatalf("packed: member %d ends before it starts", i)
			}
			if s := p.score(i); math.IsNaN(s) || (s == 0 && math.Signbit(s)) {
				t.Fatalf("packed: member %d has score %v", i, s)
			}
			if i > 0 && p.cmpAt(p.score(i), p.member(i), i-1) <= 0 {
				t.Fatalf("packed: member %d (%q %v) not after %d (%q %v)", i, p.member(i), p.score(i), i-1, p.member(i-1), p.score(i-1))
			}
		}
		return
	}
	checkZtree(t, z.tree)
}

func checkZtree(t testing.TB, tr *ztree) {
	t.Helper()
	// Elements: free list and live elements partition elems.
	free := map[uint32]bool{}
	for f := tr.free; f != 0; f = tr.elems[f-1].next {
		if free[f-1] || tr.elems[f-1].ref != zFreeRef {
			t.Fatalf("free list broken at %d", f-1)
		}
		free[f-1] = true
	}
	if live := len(tr.elems) - len(free); live != tr.count {
		t.Fatalf("%d elements not free, count %d", live, tr.count)
	}
	// Hash index: every live element is in the chain of its bucket, once.
	inChains := 0
	for b, head := range tr.buckets {
		for e := head; e != 0; e = tr.elems[e-1].next {
			id := e - 1
			if free[id] {
				t.Fatalf("free element %d in bucket %d", id, b)
			}
			if int(tr.bucketOf(tr.elems[id].hash)) != b {
				t.Fatalf("element %d in bucket %d, belongs in %d", id, b, tr.bucketOf(tr.elems[id].hash))
			}
			if zHash(tr.member(id)) != tr.elems[id].hash {
				t.Fatalf("element %d: stale hash", id)
			}
			if tr.find(tr.member(id), tr.elems[id].hash) != e {
				t.Fatalf("element %d: find does not return it", id)
			}
			inChains++
		}
	}
	if inChains != tr.count {
		t.Fatalf("%d elements in hash chains, count %d", inChains, tr.count)
	}
	if tr.count > len(tr.buckets) {
		t.Fatalf("%d elements in %d buckets", tr.count, len(tr.buckets))
	}
	// Arena: live bytes per chunk are what the live elements' records take.
	live := make([]int32, len(tr.chunks))
	var capSum int64
	for c, b := range tr.chunks {
		capSum += int64(cap(b))
		if b == nil && !slices.Contains(tr.freeChunks, int32(c)) {
			t.Fatalf("chunk %d dropped but not free", c)
		}
	}
	if capSum != tr.arenaBytes {
		t.Fatalf("arena bytes %d, chunks hold %d", tr.arenaBytes, capSum)
	}
	for id := range tr.elems {
		if free[uint32(id)] {
			continue
		}
		ref := tr.elems[id].ref
		c, off := int(ref>>32), int(uint32(ref))
		if binary.LittleEndian.Uint32(tr.chunks[c][off:]) != uint32(id) {
			t.Fatalf("element %d: arena record names another element", id)
		}
		live[c] += int32(zRecordLen(len(tr.member(uint32(id)))))
	}
	for c := range live {
		if live[c] != tr.live[c] {
			t.Fatalf("chunk %d: live %d, counted %d", c, tr.live[c], live[c])
		}
		if c != tr.cur && tr.chunks[c] != nil && int(live[c])*2 < len(tr.chunks[c]) {
			t.Fatalf("chunk %d is %d/%d live and not compacted", c, live[c], len(tr.chunks[c]))
		}
	}
	// Tree: sizes, separators, order, equal leaf depth, leaf chain.
	leaves, inners, depth := 0, 0, -1
	var walk func(n *znode, d int) (min uint32, size int)
	walk = func(n *znode, d int) (uint32, int) {
		if n.in == nil {
			leaves++
			if depth < 0 {
				depth = d
			} else if depth != d {
				t.Fatalf("leaves at depths %d and %d", depth, d)
			}
			if n.size != int(n.n) {
				t.Fatalf("leaf size %d, holds %d", n.size, n.n)
			}
			if n.n == 0 && tr.count > 0 {
				t.Fatal("empty leaf in a non-empty tree")
			}
			return n.ids[0], int(n.n)
		}
		inners++
		if n != tr.root && n.n < 2 {
			t.Fatalf("inner node with %d children", n.n)
		}
		total := 0
		for i := 0; i < int(n.n); i++ {
			m, s := walk(n.in.kids[i], d+1)
			if m != n.ids[i] {
				t.Fatalf("separator %d is %d, child's smallest is %d", i, n.ids[i], m)
			}
			if s := tr.elems[m].score; n.in.scores[i] != s || math.Signbit(s) != math.Signbit(n.in.scores[i]) {
				t.Fatalf("separator %d has score %v, element has %v", i, n.in.scores[i], s)
			}
			if s != n.in.sizes[i] {
				t.Fatalf("size %d is %d, child has %d", i, n.in.sizes[i], s)
			}
			total += s
		}
		for i := int(n.n); i < zFan; i++ {
			if n.in.kids[i] != nil {
				t.Fatalf("stale child pointer at %d", i)
			}
		}
		if total != n.size {
			t.Fatalf("inner size %d, children hold %d", n.size, total)
		}
		return n.ids[0], total
	}
	if _, size := walk(tr.root, 0); size != tr.count {
		t.Fatalf("tree holds %d, count %d", size, tr.count)
	}
	if leaves != tr.leaves || inners != tr.inners {
		t.Fatalf("%d leaves %d inners, counted %d %d", tr.leaves, tr.inners, leaves, inners)
	}
	n, prev, seen := tr.head, (*znode)(nil), 0
	var last uint32
	for ; n != nil; prev, n = n, n.next {
		if n.prev != prev {
			t.Fatal("leaf chain: prev link broken")
		}
		for i := 0; i < int(n.n); i++ {
			id := n.ids[i]
			if free[id] {
				t.Fatalf("free element %d in the tree", id)
			}
			if seen > 0 && tr.cmp(tr.elems[id].score, tr.member(id), last) <= 0 {
				t.Fatalf("tree order broken at rank %d", seen)
			}
			if tr.rank(id) != seen {
				t.Fatalf("rank of %q is %d, position %d", tr.member(id), tr.rank(id), seen)
			}
			last = id
			seen++
		}
	}
	if prev != tr.tail || seen != tr.count {
		t.Fatalf("leaf chain: %d elements, tail ok %v", seen, prev == tr.tail)
	}
}

// --- model ---

// zmodel is the naive sorted set the engine is checked against.
type zmodel []ZMember

func (m zmodel) find(member string) int {
	return slices.IndexFunc(m, func(e ZMember) bool { return string(e.Member) == member })
}

func zmCmp(a, b ZMember) int {
	if c := cmp.Compare(a.Score, b.Score); c != 0 {
		return c
	}
	return bytes.Compare(a.Member, b.Member)
}

func (m *zmodel) set(member string, score float64) {
	if i := m.find(member); i >= 0 {
		*m = slices.Delete(*m, i, i+1)
	}
	*m = append(*m, ZMember{[]byte(member), score})
	slices.SortFunc(*m, zmCmp)
}

func (m *zmodel) del(member string) bool {
	i := m.find(member)
	if i < 0 {
		return false
	}
	*m = slices.Delete(*m, i, i+1)
	return true
}

// rng returns the members of q in its order, by brute force.
func (m zmodel) rng(q *ZRangeSpec) []ZMember {
	var in []ZMember
	switch q.By {
	case ZByRank:
		n := int64(len(m))
		s, e := q.Start, q.Stop
		if s < 0 {
			s += n
		}
		if e < 0 {
			e += n
		}
		s = max(s, 0)
		e = min(e, n-1)
		if s > e {
			return nil
		}
		in = slices.Clone(m[s : e+1])
		if q.Rev {
			in = slices.Clone(m[n-1-e : n-s])
			slices.Reverse(in)
		}
		return in
	case ZByScore:
		for _, e := range m {
			if q.Score.gteMin(e.Score) && q.Score.lteMax(e.Score) {
				in = append(in, e)
			}
		}
	case ZByLex:
		for _, e := range m {
			if q.Lex.gteMin(e.Member) && q.Lex.lteMax(e.Member) {
				in = append(in, e)
			}
		}
	}
	if q.Rev {
		slices.Reverse(in)
	}
	if q.Offset < 0 || q.Offset >= int64(len(in)) {
		return nil
	}
	in = in[q.Offset:]
	if q.Limit >= 0 && q.Limit < int64(len(in)) {
		in = in[:q.Limit]
	}
	return in
}

func zdump(z []ZMember) string {
	var b bytes.Buffer
	for _, e := range z {
		fmt.Fprintf(&b, "%s:%v ", e.Member, e.Score)
	}
	return b.String()
}

func sameMembers(a, b []ZMember) bool {
	return slices.EqualFunc(a, b, func(x, y ZMember) bool {
		return bytes.Equal(x.Member, y.Member) && x.Score == y.Score
	})
}

// collect runs ZRange and returns what it emitted.
func collect(t testing.TB, d DB, key string, q *ZRangeSpec) []ZMember {
	t.Helper()
	var out []ZMember
	n := -1
	_, err := d.ZRange(bs(key), q, func(k int) { n = k }, func(m []byte, s float64) {
		out = append(out, ZMember{bytes.Clone(m), s})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n >= 0 && n != len(out) {
		t.Fatalf("ZRange announced %d members, emitted %d", n, len(out))
	}
	return out
}

func zsetOf(t testing.TB, d DB, key string) *zset {
	t.Helper()
	var z *zset
	d.zsetRead(bs(key), func(v *zset) { z = v })
	return z
}

var testScores = []float64{math.Inf(-1), -3, -1.5, -1, 0, 0.5, 1, 1, 2, 2, 2, 3, 10, math.Inf(1)}

func randScore(r *rand.Rand) float64 {
	if r.IntN(4) == 0 {
		return float64(r.IntN(100)) / 4
	}
	return testScores[r.IntN(len(testScores))]
}

func randMember(r *rand.Rand, space int, long bool) string {
	m := "m" + strconv.Itoa(r.IntN(space))
	if long && r.IntN(20) == 0 {
		m += string(bytes.Repeat([]byte{'x'}, 70))
	}
	return m
}

func randLex(r *rand.Rand, space int) ZLexBound {
	switch r.IntN(8) {
	case 0:
		return ZLexBound{Kind: ZLexMin}
	case 1:
		return ZLexBound{Kind: ZLexMax}
	}
	v := []byte("m" + strconv.Itoa(r.IntN(space)))
	if r.IntN(5) == 0 {
		v = v[:1]
	}
	if r.IntN(2) == 0 {
		return ZLexBound{Kind: ZLexExcl, Value: v}
	}
	return ZLexBound{Kind: ZLexIncl, Value: v}
}

func randRange(r *rand.Rand, m zmodel, space int) *ZRangeSpec {
	q := &ZRangeSpec{By: ZRangeBy(r.IntN(3)), Rev: r.IntN(2) == 0, Limit: -1}
	switch q.By {
	case ZByRank:
		n := len(m) + 3
		q.Start, q.Stop = int64(r.IntN(2*n)-n), int64(r.IntN(2*n)-n)
	case ZByScore:
		q.Score = ZScoreRange{Min: randScore(r), Max: randScore(r), MinEx: r.IntN(3) == 0, MaxEx: r.IntN(3) == 0}
	case ZByLex:
		if !sameScore(m) {
			q.By = ZByScore
			q.Score = ZScoreRange{Min: math.Inf(-1), Max: randScore(r)}
			break
		}
		q.Lex = ZLexRange{Min: randLex(r, space), Max: randLex(r, space)}
	}
	if q.By != ZByRank && r.IntN(3) == 0 {
		q.Offset, q.Limit = int64(r.IntN(5)-1), int64(r.IntN(6)-1)
	}
	return q
}

// sameScore reports whether every member has one score: lex ranges are
// defined only then.
func sameScore(m zmodel) bool {
	for _, e := range m {
		if e.Score != m[0].Score {
			return false
		}
	}
	return true
}

// TestZsetModel runs random commands against the engine and a sorted
// slice, under several thresholds (listpack only, conversion midway,
// skiplist from the start), and checks replies, contents, encodings and
// every invariant.
func TestZsetModel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lim   ZsetLimits
		space int
		steps int
		batch int // members per ZADD/ZREM, and POP counts
	}{
		{"listpack", ZsetLimits{1000, 1000}, 30, 3000, 4},
		{"converting", ZsetLimits{16, 64}, 60, 6000, 4},
		{"skiplist", ZsetLimits{0, 64}, 400, 8000, 4},
		// Grow to thousands of members (a B+tree of three levels), then
		// shrink to nothing: splits, merges and borrowing at every level.
		{"grow-shrink", ZsetLimits{8, 64}, 20000, 6000, 120},
	} {
		t.Run(tc.name, func(t *testing.T) { runZsetModel(t, tc.lim, tc.space, tc.steps, tc.batch) })
	}
}

func runZsetModel(t *testing.T, lim ZsetLimits, space, steps, batch int) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	r := rand.New(rand.NewPCG(uint64(space), uint64(steps)))
	models := map[string]*zmodel{"a": {}, "b": {}, "c": {}}
	big := map[string]bool{} // converted (one-way), per the model
	keys := []string{"a", "b", "c"}
	sameScoreOnly := map[string]bool{"c": true} // c gets one score, for lex ranges
	// noteAdd tracks the encoding: a new member takes a listpack past the
	// thresholds for good.
	noteAdd := func(key, m string) {
		if len(*models[key]) > lim.MaxListpackEntries || len(m) > lim.MaxListpackValue {
			big[key] = true
		}
	}
	maxLen, bigSteps := 0, 0
	for step := 0; step < steps; step++ {
		key := keys[r.IntN(len(keys))]
		model := models[key]
		op := r.IntN(20)
		if batch > 4 {
			// First half: mostly adds; second half: mostly removals.
			if grow := step < steps/2; grow && r.IntN(3) > 0 {
				op = 0
			} else if !grow && r.IntN(3) > 0 {
				op = 7 + r.IntN(2)*9 // ZREM or ZPOP
			}
		}
		ctx := fmt.Sprintf("step %d key %s op %d", step, key, op)
		switch {
		case op < 7: // ZADD
			var flags ZAddFlags
			switch r.IntN(6) {
			case 0:
				flags = ZAddNX
			case 1:
				flags = ZAddXX
			case 2:
				flags = ZAddGT
			case 3:
				flags = ZAddLT | ZAddXX
			}
			if r.IntN(6) == 0 {
				flags |= ZAddIncr
			}
			k := 1 + r.IntN(batch)
			if flags&ZAddIncr != 0 {
				k = 1
			}
			var ms []ZMember
			for range k {
				s := randScore(r)
				if sameScoreOnly[key] {
					s = 0
					if flags&ZAddIncr != 0 {
						flags &^= ZAddIncr
					}
				}
				ms = append(ms, ZMember{[]byte(randMember(r, space, !sameScoreOnly[key])), s})
			}
			res, err := d.ZAdd(bs(key), flags, ms, lim)
			// Model.
			var want ZAddResult
			var wantErr error
			if len(*model) == 0 && flags&ZAddXX == 0 {
				// A new key: its first member decides its first encoding.
				big[key] = lim.MaxListpackEntries == 0 || len(ms[0].Member) > lim.MaxListpackValue
			}
			for _, zm := range ms {
				i := model.find(string(zm.Member))
				score := zm.Score
				if i >= 0 {
					cur := (*model)[i].Score
					if flags&ZAddNX != 0 {
						continue
					}
					if flags&ZAddIncr != 0 {
						if score += cur; math.IsNaN(score) {
							wantErr = ErrZsetNaN
							break
						}
					}
					if (flags&ZAddLT != 0 && score >= cur) || (flags&ZAddGT != 0 && score <= cur) {
						continue
					}
					want.Processed++
					want.Score = score
					if score != cur {
						want.Updated++
						model.set(string(zm.Member), score)
					}
				} else if flags&ZAddXX == 0 {
					want.Processed++
					want.Added++
					want.Score = score
					model.set(string(zm.Member), score)
					noteAdd(key, string(zm.Member))
				}
			}
			if err != wantErr || res.Added != want.Added || res.Updated != want.Updated || res.Processed != want.Processed ||
				(want.Processed > 0 && res.Score != want.Score) {
				t.Fatalf("%s: ZAdd %v %s = %+v %v, want %+v %v", ctx, flags, zdump(ms), res, err, want, wantErr)
			}
		case op < 9: // ZREM
			var ms [][]byte
			want := 0
			for range 1 + r.IntN(batch) {
				m := randMember(r, space, false)
				ms = append(ms, []byte(m))
			}
			for _, m := range ms {
				if model.del(string(m)) {
					want++
				}
			}
			if got, err := d.ZRem(bs(key), ms); err != nil || got != want {
				t.Fatalf("%s: ZRem = %d %v, want %d", ctx, got, err, want)
			}
		case op < 13: // ranges
			q := randRange(r, *model, space)
			want := model.rng(q)
			if got := collect(t, d, key, q); !sameMembers(got, want) {
				t.Fatalf("%s: ZRange %+v\n got  %s\n want %s\n all  %s", ctx, q, zdump(got), zdump(want), zdump(*model))
			}
			if q.By != ZByRank {
				cq := *q
				cq.Rev, cq.Offset, cq.Limit = false, 0, -1
				if got, _ := d.ZCount(bs(key), *q); got != len(model.rng(&cq)) {
					t.Fatalf("%s: ZCount %+v = %d, want %d", ctx, q, got, len(model.rng(&cq)))
				}
			}
		case op < 14: // ZREMRANGE*
			q := randRange(r, *model, space)
			q.Rev, q.Offset, q.Limit = false, 0, -1
			gone := model.rng(q)
			for _, g := range gone {
				model.del(string(g.Member))
			}
			if got, err := d.ZRemRange(bs(key), *q); err != nil || got != len(gone) {
				t.Fatalf("%s: ZRemRange %+v = %d %v, want %d", ctx, q, got, err, len(gone))
			}
		case op < 16: // ZRANK, ZSCORE
			m := randMember(r, space, false)
			rev := r.IntN(2) == 0
			rank, ok, _ := d.ZRank(bs(key), bs(m), rev)
			wi := model.find(m)
			if rev && wi >= 0 {
				wi = len(*model) - 1 - wi
			}
			if ok != (wi >= 0) || (ok && rank != wi) {
				t.Fatalf("%s: ZRank %s rev %v = %d %v, want %d", ctx, m, rev, rank, ok, wi)
			}
			s, ok, _ := d.ZScore(bs(key), bs(m))
			if i := model.find(m); ok != (i >= 0) || (ok && s != (*model)[i].Score) {
				t.Fatalf("%s: ZScore %s = %v %v", ctx, m, s, ok)
			}
		case op < 17: // ZPOP
			max := r.IntN(2) == 0
			count := r.IntN(batch)
			existed := len(*model) > 0
			var got []ZMember
			idx, err := d.ZPop([][]byte{bs(key)}, max, count, func(int, int) {}, func(m []byte, s float64) {
				got = append(got, ZMember{bytes.Clone(m), s})
			})
			var want []ZMember
			for i := 0; i < count && len(*model) > 0; i++ {
				j := 0
				if max {
					j = len(*model) - 1
				}
				want = append(want, (*model)[j])
				*model = slices.Delete(*model, j, j+1)
			}
			if err != nil || !sameMembers(got, want) || (idx == 0) != existed {
				t.Fatalf("%s: ZPop max %v count %d = %d %s %v, want %s", ctx, max, count, idx, zdump(got), err, zdump(want))
			}
		case op < 18: // ZRANGESTORE into another key
			dst := keys[r.IntN(len(keys))]
			if sameScoreOnly[dst] {
				break
			}
			q := randRange(r, *model, space)
			want := model.rng(q)
			n, err := d.ZRangeStore(bs(dst), bs(key), q, lim)
			if err != nil || n != len(want) {
				t.Fatalf("%s: ZRangeStore = %d %v, want %d", ctx, n, err, len(want))
			}
			nm := zmodel(slices.Clone(want))
			slices.SortFunc(nm, zmCmp)
			for i := range nm {
				nm[i].Member = bytes.Clone(nm[i].Member)
				if nm[i].Score == 0 && len(nm) <= lim.MaxListpackEntries {
					nm[i].Score = 0
				}
			}
			*models[dst] = nm
			longest := 0
			for _, e := range nm {
				longest = max(longest, len(e.Member))
			}
			big[dst] = len(nm) > lim.MaxListpackEntries || longest > lim.MaxListpackValue
		case op < 19: // COPY, then change the copy: the original must not move
			if len(*model) == 0 {
				break
			}
			if ok, err := d.Copy(bs(key), d, bs("copy"), true); !ok || err != nil {
				t.Fatalf("%s: Copy = %v %v", ctx, ok, err)
			}
			d.ZRemRange(bs("copy"), ZRangeSpec{By: ZByRank, Start: 0, Stop: 0})
			d.ZAdd(bs("copy"), 0, []ZMember{{bs("zz-copy-only"), 1}}, lim)
			if c := zsetOf(t, d, "copy"); c != nil {
				checkZset(t, c)
			}
		default: // ZCARD
			if n, _ := d.ZCard(bs(key)); n != len(*model) {
				t.Fatalf("%s: ZCard = %d, want %d", ctx, n, len(*model))
			}
		}
		// After every step (every 25th once large): contents, encoding,
		// structure.
		total := len(*models["a"]) + len(*models["b"]) + len(*models["c"])
		if total > 600 && step%25 != 0 {
			continue
		}
		for _, k := range keys {
			m := *models[k]
			maxLen = max(maxLen, len(m))
			if big[k] {
				bigSteps++
			}
			z := zsetOf(t, d, k)
			if len(m) == 0 {
				if z != nil {
					t.Fatalf("%s: key %s empty in the model but exists (%d members)", ctx, k, z.length())
				}
				delete(big, k)
				continue
			}
			if z == nil {
				t.Fatalf("%s: key %s missing, model has %s", ctx, k, zdump(m))
			}
			checkZset(t, z)
			all := collect(t, d, k, &ZRangeSpec{By: ZByRank, Start: 0, Stop: -1})
			if !sameMembers(all, m) {
				t.Fatalf("%s: key %s holds\n %s\nwant\n %s", ctx, k, zdump(all), zdump(m))
			}
			if (z.tree != nil) != big[k] {
				t.Fatalf("%s: key %s encoding %v, model says skiplist=%v (%d members)", ctx, k, z.encoding(), big[k], len(m))
			}
		}
		if step%100 == 0 {
			checkInvariants(t, e)
		}
	}
	checkInvariants(t, e)
	t.Logf("largest sorted set %d members; %d key-steps as skiplist", maxLen, bigSteps)
}

// TestZtreeLarge drives a tree deep enough for three inner levels through
// inserts, score changes and deletes, checking ranks against a sorted
// model at checkpoints and the structure throughout.
func TestZtreeLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	r := rand.New(rand.NewPCG(7, 7))
	tr := newZtree(0)
	scores := map[string]float64{}
	check := func(phase string) {
		checkZtree(t, tr)
		model := make(zmodel, 0, len(scores))
		for m, s := range scores {
			model = append(model, ZMember{[]byte(m), s})
		}
		slices.SortFunc(model, zmCmp)
		for i := 0; i < len(model); i += 1 + len(model)/500 {
			p := tr.seek(i)
			if id := p.id(); !bytes.Equal(tr.member(id), model[i].Member) || tr.elems[id].score != model[i].Score {
				t.Fatalf("%s: rank %d is %q, want %q", phase, i, tr.member(id), model[i].Member)
			}
		}
	}
	const n = 150000
	for i := 0; i < n; i++ {
		m := "member:" + strconv.Itoa(r.IntN(4*n))
		if _, ok := scores[m]; ok {
			continue
		}
		s := float64(r.IntN(1000))
		scores[m] = s
		tr.add([]byte(m), s)
	}
	check("grown")
	if depth := func() int {
		d := 0
		for n := tr.root; n.in != nil; n = n.in.kids[0] {
			d++
		}
		return d
	}(); depth < 3 {
		t.Fatalf("tree of %d members has %d inner levels, want 3", tr.count, depth)
	}
	i := 0
	for m := range scores {
		if i++; i%3 == 0 {
			s := float64(r.IntN(1000))
			tr.setScore(tr.find([]byte(m), zHash([]byte(m)))-1, s)
			scores[m] = s
		}
	}
	check("rescored")
	for m := range scores {
		if r.IntN(10) < 9 {
			tr.delete(tr.find([]byte(m), zHash([]byte(m))) - 1)
			delete(scores, m)
		}
	}
	check("shrunk")
	for m := range scores {
		tr.delete(tr.find([]byte(m), zHash([]byte(m))) - 1)
		delete(scores, m)
	}
	check("emptied")
	if tr.root.in != nil || tr.leaves != 1 || tr.inners != 0 || tr.arenaBytes > zChunkMax {
		t.Fatalf("empty tree keeps %d leaves, %d inners, %d arena bytes", tr.leaves, tr.inners, tr.arenaBytes)
	}
}

// TestZsetNegativeZero: a listpack stores -0 as 0, a skiplist keeps it;
// an increment reports the score it computed.
func TestZsetNegativeZero(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	negZero := math.Copysign(0, -1)
	small, big := ZsetLimits{128, 64}, ZsetLimits{0, 64}
	for _, tc := range []struct {
		key      string
		lim      ZsetLimits
		wantSign bool
	}{{"lp", small, false}, {"sl", big, true}} {
		d.ZAdd(bs(tc.key), 0, []ZMember{{bs("m"), negZero}, {bs("n"), 1}}, tc.lim)
		s, ok, _ := d.ZScore(bs(tc.key), bs("m"))
		if !ok || s != 0 || math.Signbit(s) != tc.wantSign {
			t.Errorf("%s: ZScore of -0 = %v (sign %v)", tc.key, s, math.Signbit(s))
		}
		res, _ := d.ZAdd(bs(tc.key), ZAddIncr, []ZMember{{bs("i"), negZero}}, tc.lim)
		if !math.Signbit(res.Score) {
			t.Errorf("%s: ZINCRBY -0 reported %v", tc.key, res.Score)
		}
		// 0 over -0 is no change.
		if res, _ := d.ZAdd(bs(tc.key), 0, []ZMember{{bs("m"), 0}}, tc.lim); res.Updated != 0 {
			t.Errorf("%s: 0 over -0 counted as an update", tc.key)
		}
	}
	// A stored result small enough becomes a listpack: -0 becomes 0.
	d.ZCombineStore(bs("u"), [][]byte{bs("sl")}, &ZCombineSpec{Op: ZUnion}, small)
	if s, _, _ := d.ZScore(bs("u"), bs("m")); math.Signbit(s) {
		t.Error("ZUNIONSTORE into a listpack kept -0")
	}
	d.ZCombineStore(bs("u2"), [][]byte{bs("sl")}, &ZCombineSpec{Op: ZUnion}, big)
	if s, _, _ := d.ZScore(bs("u2"), bs("m")); !math.Signbit(s) {
		t.Error("ZUNIONSTORE into a skiplist lost -0")
	}
	checkInvariants(t, e)
}

// TestZsetEncodings checks when a sorted set is created as, stays or
// becomes a skiplist.
func TestZsetEncodings(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	lim := ZsetLimits{MaxListpackEntries: 3, MaxListpackValue: 5}
	enc := func(key string) string {
		info, ok := d.Info(bs(key))
		if !ok {
			return "none"
		}
		return info.Encoding.String()
	}
	add := func(key string, ms ...string) {
		var zm []ZMember
		for i, m := range ms {
			zm = append(zm, ZMember{bs(m), float64(i)})
		}
		if _, err := d.ZAdd(bs(key), 0, zm, lim); err != nil {
			t.Fatal(err)
		}
	}
	add("a", "x", "y", "z")
	if enc("a") != "listpack" {
		t.Errorf("3 short members: %s", enc("a"))
	}
	add("a", "w")
	if enc("a") != "skiplist" {
		t.Errorf("4 members: %s", enc("a"))
	}
	d.ZRem(bs("a"), [][]byte{bs("x"), bs("y")})
	if enc("a") != "skiplist" {
		t.Errorf("conversion is one-way, got %s", enc("a"))
	}
	add("b", "toolong", "x")
	if enc("b") != "skiplist" {
		t.Errorf("long first member: %s", enc("b"))
	}
	add("c", "x", "toolong")
	if enc("c") != "skiplist" {
		t.Errorf("long second member: %s", enc("c"))
	}
	// Updating an existing member never converts.
	add("d", "x")
	d.ZAdd(bs("d"), 0, []ZMember{{bs("x"), 5}}, ZsetLimits{0, 0})
	if enc("d") != "listpack" {
		t.Errorf("update converted: %s", enc("d"))
	}
	// ZRANGESTORE and ZUNIONSTORE build listpacks when the result fits.
	if n, _ := d.ZRangeStore(bs("r"), bs("a"), &ZRangeSpec{By: ZByRank, Start: 0, Stop: -1}, lim); n != 2 || enc("r") != "listpack" {
		t.Errorf("ZRANGESTORE of 2: %d %s", n, enc("r"))
	}
	if n, _ := d.ZCombineStore(bs("u"), [][]byte{bs("a"), bs("d"), bs("c")}, &ZCombineSpec{Op: ZUnion}, lim); n != 4 || enc("u") != "skiplist" {
		t.Errorf("ZUNIONSTORE of 4: %d %s", n, enc("u"))
	}
	// COPY keeps the encoding.
	d.Copy(bs("a"), d, bs("a2"), false)
	if enc("a2") != "skiplist" {
		t.Errorf("copy of a skiplist: %s", enc("a2"))
	}
	checkInvariants(t, e)
}

// TestZsetAlgebra checks ZUNION, ZINTER, ZDIFF and ZINTERCARD with
// weights, aggregates, missing keys, plain sets and wrong types.
func TestZsetAlgebra(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	lim := ZsetLimits{128, 64}
	d.ZAdd(bs("a"), 0, []ZMember{{bs("x"), 1}, {bs("y"), 2}, {bs("z"), 3}}, lim)
	d.ZAdd(bs("b"), 0, []ZMember{{bs("y"), 10}, {bs("z"), 20}, {bs("w"), math.Inf(1)}}, lim)
	d.ZAdd(bs("c"), 0, []ZMember{{bs("w"), math.Inf(-1)}}, lim)
	d.SAdd(bs("s"), [][]byte{bs("y"), bs("w"), bs("v")}, SetLimits{MaxIntsetEntries: 512})
	d.SAdd(bs("is"), [][]byte{bs("1"), bs("2"), bs("z")}, SetLimits{MaxIntsetEntries: 512})
	d.SAdd(bs("ints"), [][]byte{bs("1"), bs("2")}, SetLimits{MaxIntsetEntries: 512})
	mustSet(t, d, "str", "v", SetOptions{})
	run := func(keys []string, spec ZCombineSpec) string {
		var ks [][]byte
		for _, k := range keys {
			ks = append(ks, bs(k))
		}
		var out []ZMember
		err := d.ZCombine(ks, &spec, func(int) {}, func(m []byte, s float64) { out = append(out, ZMember{bytes.Clone(m), s}) })
		if err != nil {
			return err.Error()
		}
		return zdump(out)
	}
	for _, tc := range []struct {
		keys []string
		spec ZCombineSpec
		want string
	}{
		{[]string{"a", "b"}, ZCombineSpec{Op: ZUnion}, "x:1 y:12 z:23 w:+Inf "},
		{[]string{"a", "b", "c"}, ZCombineSpec{Op: ZUnion}, "w:0 x:1 y:12 z:23 "}, // inf + -inf is 0
		{[]string{"a", "b", "s"}, ZCombineSpec{Op: ZUnion, Weights: []float64{1, 2, 3}, Agg: ZAggMax}, "x:1 v:3 y:20 z:40 w:+Inf "},
		{[]string{"a", "b", "s"}, ZCombineSpec{Op: ZInter}, "y:13 "},
		{[]string{"a", "nosuch"}, ZCombineSpec{Op: ZInter}, ""},
		{[]string{"a", "b"}, ZCombineSpec{Op: ZInter, Agg: ZAggMin}, "y:2 z:3 "},
		{[]string{"b", "c"}, ZCombineSpec{Op: ZInter, Weights: []float64{0, 1}}, "w:0 "},            // -inf + 0*inf is 0
		{[]string{"b", "c"}, ZCombineSpec{Op: ZUnion, Weights: []float64{0, 1}}, "w:-Inf y:0 z:0 "}, // 0*inf alone is 0
		{[]string{"a", "b"}, ZCombineSpec{Op: ZDiff}, "x:1 "},
		{[]string{"b", "s", "a"}, ZCombineSpec{Op: ZDiff}, ""},
		{[]string{"nosuch", "a"}, ZCombineSpec{Op: ZDiff}, ""},
		{[]string{"is", "a"}, ZCombineSpec{Op: ZInter}, "z:4 "},
		{[]string{"ints", "is"}, ZCombineSpec{Op: ZUnion}, "z:1 1:2 2:2 "},
		{[]string{"a", "str"}, ZCombineSpec{Op: ZUnion}, ErrWrongType.Error()},
	} {
		if got := run(tc.keys, tc.spec); got != tc.want {
			t.Errorf("%v %+v = %q, want %q", tc.keys, tc.spec, got, tc.want)
		}
	}
	if n, err := d.ZInterCard([][]byte{bs("a"), bs("b")}, 0); n != 2 || err != nil {
		t.Errorf("ZInterCard = %d %v", n, err)
	}
	if n, _ := d.ZInterCard([][]byte{bs("a"), bs("b")}, 1); n != 1 {
		t.Errorf("ZInterCard limit 1 = %d", n)
	}
	// Storing over a source and over a string; an empty result deletes.
	if n, _ := d.ZCombineStore(bs("a"), [][]byte{bs("a"), bs("b")}, &ZCombineSpec{Op: ZUnion}, lim); n != 4 {
		t.Errorf("ZUNIONSTORE a = %d", n)
	}
	if n, _ := d.ZCombineStore(bs("str"), [][]byte{bs("c")}, &ZCombineSpec{Op: ZUnion}, lim); n != 1 {
		t.Errorf("ZUNIONSTORE over a string = %d", n)
	}
	if n, _ := d.ZCombineStore(bs("str"), [][]byte{bs("nosuch")}, &ZCombineSpec{Op: ZInter}, lim); n != 0 || d.Exists(bs("str")) != 0 {
		t.Errorf("empty ZINTERSTORE = %d, key left: %d", n, d.Exists(bs("str")))
	}
	if err := d.ZCheckSources([][]byte{bs("a"), bs("s"), bs("nosuch")}); err != nil {
		t.Error(err)
	}
	mustSet(t, d, "str", "v", SetOptions{})
	if err := d.ZCheckSources([][]byte{bs("a"), bs("str")}); err != ErrWrongType {
		t.Errorf("ZCheckSources over a string: %v", err)
	}
	checkInvariants(t, e)
}

// TestZsetPopAndRandom covers ZPOPMIN/ZPOPMAX across keys and the shapes
// of ZRANDMEMBER.
func TestZsetPopAndRandom(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	for _, lim := range []ZsetLimits{{128, 64}, {0, 64}} {
		d.ZAdd(bs("z"), 0, []ZMember{{bs("a"), 1}, {bs("b"), 2}, {bs("c"), 3}}, lim)
		mustSet(t, d, "str", "v", SetOptions{})
		var got []string
		emit := func(m []byte, s float64) { got = append(got, fmt.Sprintf("%s:%v", m, s)) }
		idx, err := d.ZPop([][]byte{bs("nosuch"), bs("z"), bs("str")}, true, 2, func(k, n int) {
			if k != 1 || n != 2 {
				t.Errorf("begin(%d, %d)", k, n)
			}
		}, emit)
		if idx != 1 || err != nil || fmt.Sprint(got) != "[c:3 b:2]" {
			t.Errorf("ZPop max = %d %v %v", idx, err, got)
		}
		if idx, err := d.ZPop([][]byte{bs("str"), bs("z")}, false, 1, func(int, int) {}, emit); idx != -1 || err != ErrWrongType {
			t.Errorf("ZPop over a string first = %d %v", idx, err)
		}
		if idx, _ := d.ZPop([][]byte{bs("nosuch")}, false, 1, func(int, int) {}, emit); idx != -1 {
			t.Errorf("ZPop of nothing = %d", idx)
		}
		got = nil
		if idx, _ := d.ZPop([][]byte{bs("z")}, false, 0, func(int, int) {}, emit); idx != 0 || got != nil {
			t.Errorf("ZPop count 0 = %d %v", idx, got)
		}
		d.ZPop([][]byte{bs("z")}, false, 5, func(int, int) {}, emit)
		if d.Exists(bs("z")) != 0 {
			t.Error("emptied by ZPOP but still there")
		}

		var ms []ZMember
		for i := range 50 {
			ms = append(ms, ZMember{bs("m" + strconv.Itoa(i)), float64(i)})
		}
		d.ZAdd(bs("r"), 0, ms, lim)
		randm := func(count int64, withCount bool) []string {
			var out []string
			n := -1
			d.ZRandMember(bs("r"), count, withCount, func(k int) { n = k }, func(m []byte, _ float64) { out = append(out, string(m)) })
			if withCount && n != len(out) {
				t.Errorf("ZRandMember %d announced %d, emitted %d", count, n, len(out))
			}
			return out
		}
		if got := randm(0, false); len(got) != 1 {
			t.Errorf("no count: %v", got)
		}
		if got := randm(-200, true); len(got) != 200 {
			t.Errorf("-200: %d", len(got))
		}
		for _, c := range []int64{5, 20, 49} {
			got := randm(c, true)
			if len(got) != int(c) || len(slices.Compact(slices.Sorted(slices.Values(got)))) != int(c) {
				t.Errorf("%d distinct: %v", c, got)
			}
		}
		if got := randm(100, true); len(got) != 50 || got[0] != "m49" || got[49] != "m0" {
			t.Errorf("count above the size: %v", got)
		}
		d.ZRemRange(bs("r"), ZRangeSpec{By: ZByRank, Start: 0, Stop: -1})
	}
	checkInvariants(t, e)
}

// TestZsetScan: a listpack comes back whole; a skiplist scan returns every
// member present throughout, even when the table grows and shrinks
// between calls.
func TestZsetScan(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	lim := ZsetLimits{0, 64}
	var ms []ZMember
	for i := range 1000 {
		ms = append(ms, ZMember{bs("m" + strconv.Itoa(i)), float64(i)})
	}
	d.ZAdd(bs("z"), 0, ms, lim)
	seen := map[string]int{}
	cursor, calls := uint64(0), 0
	for {
		var err error
		cursor, err = d.ZScan(bs("z"), cursor, 10, nil, func(m []byte, _ float64, lp bool) {
			if lp {
				t.Error("a skiplist reported as a listpack")
			}
			seen[string(m)]++
		})
		if err != nil {
			t.Fatal(err)
		}
		calls++
		switch calls {
		case 5: // grow: the table doubles twice
			var more []ZMember
			for i := range 3000 {
				more = append(more, ZMember{bs("extra" + strconv.Itoa(i)), 1})
			}
			d.ZAdd(bs("z"), 0, more, lim)
		case 30: // shrink back
			d.ZRemRange(bs("z"), ZRangeSpec{By: ZByScore, Score: ZScoreRange{Min: 1, Max: 1}})
			d.ZAdd(bs("z"), 0, []ZMember{{bs("m1"), 1}}, lim)
		}
		if cursor == 0 {
			break
		}
	}
	for i := range 1000 {
		if seen["m"+strconv.Itoa(i)] == 0 {
			t.Errorf("m%d never returned", i)
		}
	}
	seen = map[string]int{}
	d.ZAdd(bs("small"), 0, ms[:5], ZsetLimits{128, 64})
	if next, _ := d.ZScan(bs("small"), 12345, 1, []byte("m[12]"), func(m []byte, _ float64, _ bool) { seen[string(m)]++ }); next != 0 || len(seen) != 2 {
		t.Errorf("listpack scan: next %d, %v", next, seen)
	}
	checkInvariants(t, e)
}

// TestZsetMemory: used memory follows a sorted set up and back down.
func TestZsetMemory(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	base := e.UsedMemory()
	lim := ZsetLimits{128, 64}
	var ms []ZMember
	for i := range 20000 {
		ms = append(ms, ZMember{bs("member:" + strconv.Itoa(i)), float64(i)})
	}
	d.ZAdd(bs("z"), 0, ms, lim)
	grown := e.UsedMemory() - base
	if per := grown / 20000; per < 20 || per > 100 {
		t.Errorf("%d bytes per member", per)
	}
	checkInvariants(t, e)
	var gone [][]byte
	for _, m := range ms[:19000] {
		gone = append(gone, m.Member)
	}
	d.ZRem(bs("z"), gone)
	if after := e.UsedMemory() - base; after > grown/4 {
		t.Errorf("after removing 95%%: %d bytes of %d", after, grown)
	}
	checkInvariants(t, e)
	d.ZRemRange(bs("z"), ZRangeSpec{By: ZByRank, Start: 0, Stop: -1})
	if e.UsedMemory() != base {
		t.Errorf("emptied: %d bytes left", e.UsedMemory()-base)
	}
}

// TestZsetPopCopies: the blocking pops' hand-off takes copies that stay
// valid after the set changes.
func TestZsetPopCopies(t *testing.T) {
	for _, lim := range []ZsetLimits{{128, 64}, {0, 64}} {
		z := newZset(lim, 1)
		for i, m := range []string{"a", "b", "c"} {
			z.insert(bs(m), float64(i), lim)
		}
		res := zsetPopCopies(z, bs("k"), true, 2)
		z.insert(bs("zzz"), 9, lim)
		z.insert(bs("yyy"), 8, lim)
		if string(res.Key) != "k" || len(res.Members) != 2 || string(res.Members[0].Member) != "c" || string(res.Members[1].Member) != "b" || res.Members[1].Score != 1 {
			t.Errorf("%+v: %s", lim, zdump(res.Members))
		}
		checkZset(t, z)
	}
}

// TestZsetLookupStats: read commands count keyspace hits and misses as
// Redis does (a key of another type is a hit); writes count nothing.
func TestZsetLookupStats(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	lim := ZsetLimits{128, 64}
	mustSet(t, d, "str", "v", SetOptions{})
	d.ZAdd(bs("z"), 0, []ZMember{{bs("a"), 1}}, lim)
	for _, tc := range []struct {
		name         string
		run          func()
		hits, misses int64
	}{
		{"ZSCORE hit", func() { d.ZScore(bs("z"), bs("a")) }, 1, 0},
		{"ZSCORE miss", func() { d.ZScore(bs("nokey"), bs("a")) }, 0, 1},
		{"ZSCORE wrong type", func() { d.ZScore(bs("str"), bs("a")) }, 1, 0},
		{"ZADD", func() { d.ZAdd(bs("z"), 0, []ZMember{{bs("b"), 2}}, lim) }, 0, 0},
		{"ZPOPMIN", func() { d.ZPop([][]byte{bs("nokey")}, false, 1, func(int, int) {}, func([]byte, float64) {}) }, 0, 0},
		{"ZUNION", func() {
			d.ZCombine([][]byte{bs("z"), bs("nokey")}, &ZCombineSpec{Op: ZUnion}, func(int) {}, func([]byte, float64) {})
		}, 1, 1},
		{"ZUNION wrong type", func() {
			d.ZCombine([][]byte{bs("z"), bs("str"), bs("nokey")}, &ZCombineSpec{Op: ZUnion}, func(int) {}, func([]byte, float64) {})
		}, 2, 0},
		{"ZUNIONSTORE", func() { d.ZCombineStore(bs("d"), [][]byte{bs("z"), bs("nokey")}, &ZCombineSpec{Op: ZUnion}, lim) }, 1, 1},
		{"ZRANGESTORE", func() { d.ZRangeStore(bs("d"), bs("z"), &ZRangeSpec{Stop: -1}, lim) }, 1, 0},
		{"ZINTERCARD", func() { d.ZInterCard([][]byte{bs("z"), bs("nokey")}, 0) }, 1, 1},
	} {
		e.ResetStats()
		tc.run()
		if st := e.Stats(); st.Hits != tc.hits || st.Misses != tc.misses {
			t.Errorf("%s: %d hits %d misses, want %d %d", tc.name, st.Hits, st.Misses, tc.hits, tc.misses)
		}
	}
}
