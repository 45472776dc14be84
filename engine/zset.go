package engine

// Sorted sets: ZADD, ZRANGE, ZRANK, ZPOPMIN, ZUNIONSTORE, ZSCAN…
//
// A sorted set has Redis 7.0's two encodings. It starts as a listpack
// (zpacked: one byte slice of records and member bytes, see
// zset_packed.go) and stays one while it has at most
// ZsetLimits.MaxListpackEntries members, none longer than
// ZsetLimits.MaxListpackValue bytes; past either it becomes a skiplist
// (ztree: an order-statistic B+tree, a hash index and a member arena, see
// zset_tree.go), for good, as in Redis. Results that Redis builds from
// scratch (ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE, ZRANGESTORE) take the
// listpack when they fit, as Redis's do.
//
// Members are ordered by score, then by their bytes. Scores are never NaN.
// A listpack holds a -0 score as 0, as Redis's listpack (which keeps
// scores as text) does, while a skiplist keeps the sign: ZSCORE answers
// "0" or "-0" as redis-server does for the same history (see also
// zsetStoreSigns).
//
// Commands that emit members do it through callbacks called under the
// shard lock: a member's bytes are valid only during the call, and the
// front-end writes them out at once, so a range reply copies nothing.

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tandemkv/tandem/internal/glob"
)

// ErrZsetNaN: an increment produced a NaN score (+inf plus -inf).
var ErrZsetNaN = errors.New("engine: resulting score is not a number (NaN)")

// ZsetLimits are the conversion thresholds of sorted sets: Redis's
// zset-max-listpack-entries and zset-max-listpack-value. Front-ends read
// them from the configuration for every command, so CONFIG SET applies to
// the next write, as in Redis.
type ZsetLimits struct {
	MaxListpackEntries int
	MaxListpackValue   int
}

// zsetPackedSafety is Redis's LISTPACK_MAX_SAFETY_SIZE: a listpack that
// would grow past it converts whatever the thresholds say.
const zsetPackedSafety = 1 << 30

// zset is the value of a sorted-set key: the listpack form until tree is
// set.
type zset struct {
	lp   zpacked
	tree *ztree
}

// zsetHeader is what a zset costs beyond its forms: the struct and its
// slot in the shard's aggregate map.
const zsetHeader = 64

// newZset returns an empty sorted set for a first member of firstLen
// bytes: Redis creates a skiplist at once when the thresholds already
// exclude it.
func newZset(lim ZsetLimits, firstLen int) *zset {
	if lim.MaxListpackEntries == 0 || firstLen > lim.MaxListpackValue {
		return &zset{tree: newZtree(0)}
	}
	return &zset{}
}

func (z *zset) memSize() int64 {
	if z.tree != nil {
		return zsetHeader + z.tree.memSize()
	}
	return zsetHeader + z.lp.memSize()
}

func (z *zset) length() int {
	if z.tree != nil {
		return z.tree.count
	}
	return z.lp.n
}

func (z *zset) encoding() Encoding {
	if z.tree != nil {
		return EncSkiplist
	}
	return EncListpack
}

func (z *zset) clone() aggregate {
	if z.tree != nil {
		return &zset{tree: z.tree.clone()}
	}
	return &zset{lp: z.lp.clone()}
}

// convert turns the listpack into a skiplist.
func (z *zset) convert() {
	p := &z.lp
	z.tree = buildZtree(p.n, func(fn func(m []byte, score float64)) {
		for i := 0; i < p.n; i++ {
			fn(p.member(i), p.score(i))
		}
	})
	z.lp = zpacked{}
}

// score returns m's score.
func (z *zset) score(m []byte) (float64, bool) {
	s, pos := z.lookup(m)
	return s, pos >= 0
}

// lookup returns m's score and position (a listpack index or a tree
// element id), -1 when m is not a member. The position is valid until the
// set changes.
func (z *zset) lookup(m []byte) (float64, int) {
	if z.tree != nil {
		if e := z.tree.find(m, zHash(m)); e != 0 {
			return z.tree.elems[e-1].score, int(e - 1)
		}
		return 0, -1
	}
	if i := z.lp.find(m); i >= 0 {
		return z.lp.score(i), i
	}
	return 0, -1
}

// insert adds m, which is not a member, converting the listpack first
// when the new member would take it past the thresholds.
func (z *zset) insert(m []byte, score float64, lim ZsetLimits) {
	if z.tree == nil {
		if z.lp.n+1 > lim.MaxListpackEntries || len(m) > lim.MaxListpackValue ||
			len(z.lp.buf)+len(m)+zpRec > zsetPackedSafety {
			z.convert()
		} else {
			z.lp.insert(m, score)
			return
		}
	}
	z.tree.add(m, score)
}

// setScore changes the score of the member at pos (from lookup).
func (z *zset) setScore(pos int, score float64) {
	if z.tree != nil {
		z.tree.setScore(uint32(pos), score)
		return
	}
	z.lp.setScore(pos, score)
}

// remove deletes m and reports whether it was a member.
func (z *zset) remove(m []byte) bool {
	if z.tree != nil {
		e := z.tree.find(m, zHash(m))
		if e == 0 {
			return false
		}
		z.tree.delete(e - 1)
		return true
	}
	i := z.lp.find(m)
	if i < 0 {
		return false
	}
	z.lp.removeAt(i)
	return true
}

// rank returns m's 0-based ascending rank.
func (z *zset) rank(m []byte) (int, bool) {
	if z.tree != nil {
		e := z.tree.find(m, zHash(m))
		if e == 0 {
			return 0, false
		}
		return z.tree.rank(e - 1), true
	}
	i := z.lp.find(m)
	return i, i >= 0
}

// at returns the member of rank r.
func (z *zset) at(r int) ([]byte, float64) {
	if z.tree != nil {
		p := z.tree.seek(r)
		id := p.id()
		return z.tree.member(id), z.tree.elems[id].score
	}
	return z.lp.member(r), z.lp.score(r)
}

// each calls fn for k members from rank r on, downwards when rev, until
// fn returns false.
func (z *zset) each(r, k int, rev bool, fn func(m []byte, score float64) bool) {
	if z.tree != nil {
		z.tree.each(r, k, rev, fn)
		return
	}
	for ; k > 0; k-- {
		if !fn(z.lp.member(r), z.lp.score(r)) {
			return
		}
		if rev {
			r--
		} else {
			r++
		}
	}
}

// removeRange deletes k members from rank r on.
func (z *zset) removeRange(r, k int) {
	if z.tree == nil {
		z.lp.removeRange(r, k)
		return
	}
	for ; k > 0; k-- {
		p := z.tree.seek(r)
		z.tree.delete(p.id())
	}
}

// firstScore returns the rank of the first member whose score satisfies
// pred, pred being false then true along the order.
func (z *zset) firstScore(pred func(score float64) bool) int {
	if z.tree != nil {
		return z.tree.firstWhere(func(_ uint32, s float64) bool { return pred(s) })
	}
	return z.lp.firstWhere(func(s float64, _ []byte) bool { return pred(s) })
}

// firstMember is firstScore for a predicate on members.
func (z *zset) firstMember(pred func(m []byte) bool) int {
	if z.tree != nil {
		t := z.tree
		return t.firstWhere(func(id uint32, _ float64) bool { return pred(t.member(id)) })
	}
	return z.lp.firstWhere(func(_ float64, m []byte) bool { return pred(m) })
}

// --- ranges ---

// ZRangeBy is what a range is given in.
type ZRangeBy uint8

// Range kinds.
const (
	ZByRank  ZRangeBy = iota // indexes (ZRANGE, ZREVRANGE, ZREMRANGEBYRANK)
	ZByScore                 // score bounds (BYSCORE, ZCOUNT, ZREMRANGEBYSCORE)
	ZByLex                   // member bounds (BYLEX, ZLEXCOUNT, ZREMRANGEBYLEX)
)

// ZScoreRange is a score interval; either end may be excluded.
type ZScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

func (r *ZScoreRange) gteMin(s float64) bool {
	if r.MinEx {
		return s > r.Min
	}
	return s >= r.Min
}

func (r *ZScoreRange) lteMax(s float64) bool {
	if r.MaxEx {
		return s < r.Max
	}
	return s <= r.Max
}

// ZLexKind says what a lex bound is.
type ZLexKind uint8

// Lex bounds: Redis's "-", "+", "[member" and "(member".
const (
	ZLexMin  ZLexKind = iota // "-": below every member
	ZLexMax                  // "+": above every member
	ZLexIncl                 // "[v"
	ZLexExcl                 // "(v"
)

// ZLexBound is one end of a lex range. Value is used with ZLexIncl and
// ZLexExcl.
type ZLexBound struct {
	Kind  ZLexKind
	Value []byte
}

// ZLexRange is a member interval.
type ZLexRange struct{ Min, Max ZLexBound }

// zlexCmp compares m to a bound's position: "-" and "+" are below and
// above everything, as Redis's shared.minstring and maxstring are.
func zlexCmp(m []byte, b *ZLexBound) int {
	switch b.Kind {
	case ZLexMin:
		return 1
	case ZLexMax:
		return -1
	}
	return bytes.Compare(m, b.Value)
}

func (r *ZLexRange) gteMin(m []byte) bool {
	if c := zlexCmp(m, &r.Min); r.Min.Kind != ZLexIncl {
		return c > 0
	} else {
		return c >= 0
	}
}

func (r *ZLexRange) lteMax(m []byte) bool {
	if c := zlexCmp(m, &r.Max); r.Max.Kind != ZLexIncl {
		return c < 0
	} else {
		return c <= 0
	}
}

// empty reports the ranges Redis knows to be empty from their bounds
// alone: min above max, or equal with either end excluded ("-" and "+"
// count as excluded).
func (r *ZLexRange) empty() bool {
	var c int
	switch {
	case r.Min.Kind == r.Max.Kind && (r.Min.Kind == ZLexMin || r.Min.Kind == ZLexMax):
		c = 0
	case r.Min.Kind == ZLexMin || r.Max.Kind == ZLexMax:
		c = -1
	case r.Min.Kind == ZLexMax || r.Max.Kind == ZLexMin:
		c = 1
	default:
		c = bytes.Compare(r.Min.Value, r.Max.Value)
	}
	return c > 0 || (c == 0 && (r.Min.Kind != ZLexIncl || r.Max.Kind != ZLexIncl))
}

// ZRangeSpec is a range of a sorted set, as ZRANGE and its older forms
// give it.
type ZRangeSpec struct {
	By  ZRangeBy
	Rev bool // from the highest member down
	// Start and Stop are ZByRank's indexes, negative counting from the
	// end.
	Start, Stop int64
	Score       ZScoreRange // ZByScore: Min is the low end even with Rev
	Lex         ZLexRange   // ZByLex: likewise
	// Offset and Limit are LIMIT's (ZByScore and ZByLex): Offset members
	// of the range are skipped (a negative offset leaves nothing, as in
	// Redis) and at most Limit are taken; Limit < 0 takes all.
	Offset, Limit int64
}

// resolve returns the rank of the first member of the range in its
// direction and how many members it has.
func (z *zset) resolve(q *ZRangeSpec) (first, count int) {
	n := int64(z.length())
	switch q.By {
	case ZByRank:
		start, end := q.Start, q.Stop
		if start < 0 {
			start += n
		}
		if end < 0 {
			end += n
		}
		start = max(start, 0)
		if start > end || start >= n {
			return 0, 0
		}
		end = min(end, n-1)
		if q.Rev {
			return int(n - 1 - start), int(end - start + 1)
		}
		return int(start), int(end - start + 1)
	case ZByLex:
		if z.tree == nil {
			return z.lp.lexWalk(&q.Lex, q.Rev, q.Offset, q.Limit)
		}
		if q.Lex.empty() {
			return 0, 0
		}
	}
	lo, hi := z.bounds(q)
	return zwindow(lo, hi, q.Rev, q.Offset, q.Limit)
}

// bounds returns the ranks [lo, hi) of a score or lex range.
func (z *zset) bounds(q *ZRangeSpec) (lo, hi int) {
	if q.By == ZByScore {
		r := &q.Score
		lo = z.firstScore(r.gteMin)
		hi = z.firstScore(func(s float64) bool { return !r.lteMax(s) })
	} else {
		r := &q.Lex
		lo = z.firstMember(r.gteMin)
		hi = z.firstMember(func(m []byte) bool { return !r.lteMax(m) })
	}
	return lo, hi
}

// zwindow applies LIMIT to the ranks [lo, hi).
func zwindow(lo, hi int, rev bool, offset, limit int64) (first, count int) {
	if hi <= lo || offset < 0 || offset >= int64(hi-lo) {
		return 0, 0
	}
	k := int64(hi-lo) - offset
	if limit >= 0 {
		k = min(k, limit)
	}
	if rev {
		return hi - 1 - int(offset), int(k)
	}
	return lo + int(offset), int(k)
}

// lexWalk is resolve for a lex range of a listpack, done as Redis walks
// its listpack: from the first member at or above min (the last at or
// below max when rev), then on while members stay below max (above min).
// With members of one score this is the lex range; with mixed scores it
// is the same answer redis-server gives.
func (p *zpacked) lexWalk(r *ZLexRange, rev bool, offset, limit int64) (first, count int) {
	if r.empty() || p.n == 0 || !r.gteMin(p.member(p.n-1)) || !r.lteMax(p.member(0)) {
		return 0, 0
	}
	if offset < 0 {
		return 0, 0
	}
	if !rev {
		i := 0
		for i < p.n && !r.gteMin(p.member(i)) {
			i++
		}
		if i == p.n || !r.lteMax(p.member(i)) {
			return 0, 0
		}
		if i += int(min(offset, int64(p.n))); i >= p.n {
			return 0, 0
		}
		k := 0
		for j := i; j < p.n && (limit < 0 || int64(k) < limit) && r.lteMax(p.member(j)); j++ {
			k++
		}
		return i, k
	}
	i := p.n - 1
	for i >= 0 && !r.lteMax(p.member(i)) {
		i--
	}
	if i < 0 || !r.gteMin(p.member(i)) {
		return 0, 0
	}
	if i -= int(min(offset, int64(p.n))); i < 0 {
		return 0, 0
	}
	k := 0
	for j := i; j >= 0 && (limit < 0 || int64(k) < limit) && r.gteMin(p.member(j)); j-- {
		k++
	}
	return i, k
}

// --- single-key commands ---

// ZAddFlags are ZADD's options that change what it does.
type ZAddFlags uint8

// ZADD options.
const (
	ZAddNX   ZAddFlags = 1 << iota // only add new members
	ZAddXX                         // only update existing members
	ZAddGT                         // update only to a greater score
	ZAddLT                         // update only to a lower score
	ZAddIncr                       // add the score to the current one (ZINCRBY)
)

// ZMember is a member and its score.
type ZMember struct {
	Member []byte
	Score  float64
}

// ZAddResult reports what ZAdd did.
type ZAddResult struct {
	Added, Updated int
	// Processed is how many members were not skipped by NX, XX, GT or LT.
	Processed int
	// Score is the last processed member's new score (ZADD INCR's reply).
	Score float64
}

// ZAdd adds members or updates their scores (ZADD, ZINCRBY). The options
// were checked by the caller (NX excludes XX, GT and LT; GT excludes LT;
// ZAddIncr takes one member). A missing key is created unless XX is set,
// as a listpack unless the thresholds exclude its first member. An
// increment that gives NaN fails with ErrZsetNaN and changes nothing.
func (d DB) ZAdd(key []byte, flags ZAddFlags, members []ZMember, lim ZsetLimits) (ZAddResult, error) {
	var res ZAddResult
	var create func() aggregate
	if flags&ZAddXX == 0 && len(members) > 0 {
		create = func() aggregate { return newZset(lim, len(members[0].Member)) }
	}
	_, err := d.withAggregate(key, TypeZSet, create, func(a aggregate) (bool, error) {
		z := a.(*zset)
		for _, zm := range members {
			if err := z.add(zm.Member, zm.Score, flags, lim, &res); err != nil {
				return res.Added+res.Updated > 0, err
			}
		}
		return res.Added+res.Updated > 0, nil
	})
	return res, err
}

// add is Redis's zsetAdd for one member.
func (z *zset) add(m []byte, score float64, flags ZAddFlags, lim ZsetLimits, res *ZAddResult) error {
	cur, pos := z.lookup(m)
	switch {
	case pos >= 0:
		if flags&ZAddNX != 0 {
			return nil
		}
		if flags&ZAddIncr != 0 {
			if score += cur; math.IsNaN(score) {
				return ErrZsetNaN
			}
		}
		if (flags&ZAddLT != 0 && score >= cur) || (flags&ZAddGT != 0 && score <= cur) {
			return nil
		}
		res.Processed++
		res.Score = score
		if score != cur {
			z.setScore(pos, score)
			res.Updated++
		}
	case flags&ZAddXX == 0:
		z.insert(m, score, lim)
		res.Processed++
		res.Added++
		res.Score = score
	}
	return nil
}

// zsetRead runs fn on the sorted set at key, if any. The lookup counts as
// a keyspace hit or miss, as in Redis's read commands (a key of another
// type is a hit).
func (d DB) zsetRead(key []byte, fn func(z *zset)) (bool, error) {
	return d.readAggregate(key, TypeZSet, func(a aggregate) { fn(a.(*zset)) })
}

// ZRem removes members and returns how many were there.
func (d DB) ZRem(key []byte, members [][]byte) (int, error) {
	n := 0
	_, err := d.withAggregate(key, TypeZSet, nil, func(a aggregate) (bool, error) {
		z := a.(*zset)
		for _, m := range members {
			if z.remove(m) {
				n++
				if z.length() == 0 {
					break
				}
			}
		}
		return n > 0, nil
	})
	return n, err
}

// ZScore returns member's score; ok is false when the key or the member
// is missing.
func (d DB) ZScore(key, member []byte) (score float64, ok bool, err error) {
	_, err = d.zsetRead(key, func(z *zset) { score, ok = z.score(member) })
	return score, ok, err
}

// ZMScore calls fn with the score of each member in turn (ok false for a
// missing member or key).
func (d DB) ZMScore(key []byte, members [][]byte, fn func(score float64, ok bool)) error {
	found, err := d.zsetRead(key, func(z *zset) {
		for _, m := range members {
			fn(z.score(m))
		}
	})
	if err == nil && !found {
		for range members {
			fn(0, false)
		}
	}
	return err
}

// ZCard returns the number of members (0 for a missing key).
func (d DB) ZCard(key []byte) (int, error) {
	n := 0
	_, err := d.zsetRead(key, func(z *zset) { n = z.length() })
	return n, err
}

// ZCount returns how many members a score or lex range holds (ZCOUNT,
// ZLEXCOUNT); q.By must be ZByScore or ZByLex.
func (d DB) ZCount(key []byte, q ZRangeSpec) (int, error) {
	q.Rev, q.Offset, q.Limit = false, 0, -1
	n := 0
	_, err := d.zsetRead(key, func(z *zset) { _, n = z.resolve(&q) })
	return n, err
}

// ZRank returns member's 0-based rank, from the highest score when rev.
func (d DB) ZRank(key, member []byte, rev bool) (rank int, ok bool, err error) {
	_, err = d.zsetRead(key, func(z *zset) {
		if rank, ok = z.rank(member); ok && rev {
			rank = z.length() - 1 - rank
		}
	})
	return rank, ok, err
}

// ZRange emits the members of a range in its order: begin with their
// number, then fn for each. Neither is called when the key is missing
// (found is false).
func (d DB) ZRange(key []byte, q *ZRangeSpec, begin func(n int), fn func(member []byte, score float64)) (found bool, err error) {
	return d.zsetRead(key, func(z *zset) {
		first, n := z.resolve(q)
		begin(n)
		z.each(first, n, q.Rev, func(m []byte, s float64) bool {
			fn(m, s)
			return true
		})
	})
}

// ZRemRange removes the members of a range (ZREMRANGEBYRANK, BYSCORE,
// BYLEX) and returns how many; q.Rev, Offset and Limit are ignored.
func (d DB) ZRemRange(key []byte, q ZRangeSpec) (int, error) {
	q.Rev, q.Offset, q.Limit = false, 0, -1
	n := 0
	_, err := d.withAggregate(key, TypeZSet, nil, func(a aggregate) (bool, error) {
		z := a.(*zset)
		var first int
		first, n = z.resolve(&q)
		z.removeRange(first, n)
		return n > 0, nil
	})
	return n, err
}

// ZRangeStore stores the members of a range of src at dst, a sorted set
// in the encoding Redis would give it, and returns how many. An empty
// range (or a missing src) deletes dst.
func (d DB) ZRangeStore(dst, src []byte, q *ZRangeSpec, lim ZsetLimits) (int, error) {
	n := 0
	err := d.WithKeys([][]byte{src, dst}, func(tx *KeyTx) error {
		var entries []zentry
		_, err := tx.readAggregate(0, TypeZSet, func(a aggregate) {
			z := a.(*zset)
			first, k := z.resolve(q)
			if q.Rev {
				first -= k - 1 // the same members, ascending
			}
			entries = make([]zentry, 0, k)
			z.each(first, k, false, func(m []byte, s float64) bool {
				entries = append(entries, zentry{m, s})
				return true
			})
		})
		if err != nil {
			return err
		}
		n = len(entries)
		zsetStoreSigns(entries, q.Rev, q.By == ZByRank, lim)
		tx.Store(1, TypeZSet, zsetBuild(entries, lim))
		return nil
	})
	return n, err
}

// zsetStoreSigns replays on entries (ascending; emitted descending when
// rev) the one trace ZRANGESTORE leaves of its history. Redis 7.0.15
// creates the destination as a skiplist at once when the range's size is
// known (an index range) and above zset-max-listpack-entries; otherwise as
// a listpack, to which it adds the range one member at a time, converting
// at the first member past the thresholds. The members added before then
// went through the listpack, which turns a -0 score into 0, and keep that
// 0 in the skiplist.
func zsetStoreSigns(entries []zentry, rev, sizeKnown bool, lim ZsetLimits) {
	if sizeKnown && len(entries) > lim.MaxListpackEntries {
		return
	}
	for i := range entries {
		j := i
		if rev {
			j = len(entries) - 1 - i
		}
		e := &entries[j]
		if i+1 > lim.MaxListpackEntries || len(e.m) > lim.MaxListpackValue {
			return
		}
		if e.score == 0 {
			e.score = 0
		}
	}
}

// ZPop removes and emits up to count of the lowest (highest when max)
// members of the first non-empty key of keys (ZPOPMIN, ZPOPMAX, ZMPOP,
// and the blocking forms once a key is ready): begin with the key's index
// and how many follow, then fn for each in pop order, before it is
// removed. It returns the key's index, or -1 when every key is missing; a
// key of another type met first fails with ErrWrongType. count 0 finds
// the key and pops nothing.
func (d DB) ZPop(keys [][]byte, max bool, count int, begin func(key, n int), fn func(member []byte, score float64)) (int, error) {
	pop := func(idx int, a aggregate) (bool, error) {
		z := a.(*zset)
		begin(idx, min(count, z.length()))
		return z.pop(max, count, fn) > 0, nil
	}
	if len(keys) == 1 {
		found, err := d.withAggregate(keys[0], TypeZSet, nil, func(a aggregate) (bool, error) { return pop(0, a) })
		if err != nil || !found {
			return -1, err
		}
		return 0, nil
	}
	idx := -1
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		i, err := tx.firstOfType(TypeZSet)
		if i < 0 {
			return err
		}
		idx = i
		_, err = tx.Aggregate(i, TypeZSet, nil, func(a aggregate) (bool, error) { return pop(i, a) })
		return err
	})
	if err != nil {
		return -1, err
	}
	return idx, nil
}

// pop removes up to count of the lowest (highest when max) members and
// returns how many; fn sees each, in pop order, before it goes.
func (z *zset) pop(max bool, count int, fn func(m []byte, score float64)) int {
	n := min(count, z.length())
	first := 0
	if max {
		first = z.length() - 1
	}
	z.each(first, n, max, func(m []byte, s float64) bool {
		fn(m, s)
		return true
	})
	if max {
		first = z.length() - n
	}
	z.removeRange(first, n)
	return n
}

// ZPopResult is what a pop took, in copies that outlive the lock: the
// form a blocked BZPOPMIN, BZPOPMAX or BZMPOP receives from the hand-off
// (Waiter.take) that zsetPopCopies makes.
type ZPopResult struct {
	Key     []byte
	Members []ZMember
}

// zsetPopCopies pops as ZPop does from the sorted set a at key and returns
// copies: the hand-off of the blocking pops.
func zsetPopCopies(a aggregate, key []byte, max bool, count int) *ZPopResult {
	z := a.(*zset)
	res := &ZPopResult{Key: bytes.Clone(key), Members: make([]ZMember, 0, min(count, z.length()))}
	z.pop(max, count, func(m []byte, s float64) {
		res.Members = append(res.Members, ZMember{bytes.Clone(m), s})
	})
	return res
}

// ZRandMember emits random members (ZRANDMEMBER). Without withCount one
// member is emitted (begin is not called). With a count, as in Redis: 0
// emits nothing; a negative count or 1 emits |count| members drawn
// independently; a count at least the cardinality emits every member from
// the highest score down; otherwise count distinct members in random
// order. found is false for a missing key.
func (d DB) ZRandMember(key []byte, count int64, withCount bool, begin func(n int), fn func(member []byte, score float64)) (found bool, err error) {
	return d.zsetRead(key, func(z *zset) {
		size := z.length()
		if !withCount {
			fn(z.at(rand.IntN(size)))
			return
		}
		switch {
		case count == 0:
			begin(0)
		case count < 0 || count == 1:
			n := int(count)
			if count < 0 {
				n = int(-count)
			}
			begin(n)
			for ; n > 0; n-- {
				fn(z.at(rand.IntN(size)))
			}
		case count >= int64(size):
			begin(size)
			z.each(size-1, size, true, func(m []byte, s float64) bool {
				fn(m, s)
				return true
			})
		default:
			k := int(count)
			begin(k)
			if k*3 > size {
				// Draw without replacement from every rank.
				ranks := make([]int32, size)
				for i := range ranks {
					ranks[i] = int32(i)
				}
				for i := 0; i < k; i++ {
					j := i + rand.IntN(size-i)
					ranks[i], ranks[j] = ranks[j], ranks[i]
					fn(z.at(int(ranks[i])))
				}
				return
			}
			seen := make(map[int]struct{}, k)
			for len(seen) < k {
				r := rand.IntN(size)
				if _, dup := seen[r]; dup {
					continue
				}
				seen[r] = struct{}{}
				fn(z.at(r))
			}
		}
	})
}

// ZScan emits members matching pattern (nil: all) from cursor on and
// returns the next cursor, 0 when the iteration is over. A listpack is
// returned whole whatever the cursor, as Redis does, and fn is told so
// (listpack true): Redis replies the scores of a listpack as it stores
// them, in text. A skiplist is walked in hash order, about count members
// per call, and a member present for the whole iteration is returned at
// least once.
func (d DB) ZScan(key []byte, cursor uint64, count int, pattern []byte, fn func(member []byte, score float64, listpack bool)) (uint64, error) {
	next := uint64(0)
	_, err := d.zsetRead(key, func(z *zset) {
		emit := func(m []byte, s float64) {
			if pattern == nil || glob.Match(pattern, m, false) {
				fn(m, s, z.tree == nil)
			}
		}
		if z.tree != nil {
			next = z.tree.scan(cursor, count, emit)
			return
		}
		for i := 0; i < z.lp.n; i++ {
			emit(z.lp.member(i), z.lp.score(i))
		}
	})
	return next, err
}

// --- building results ---

// zentry is a member of a result being built; m may point into a source.
type zentry struct {
	m     []byte
	score float64
}

func zentryCmp(a, b zentry) int {
	if a.score < b.score {
		return -1
	}
	if a.score > b.score {
		return 1
	}
	return bytes.Compare(a.m, b.m)
}

// zsetBuild makes a sorted set of entries, which are in order and
// distinct, in the encoding Redis gives a computed result: a listpack when
// it has at most MaxListpackEntries members, none longer than
// MaxListpackValue.
func zsetBuild(entries []zentry, lim ZsetLimits) *zset {
	longest, total := 0, 0
	for _, e := range entries {
		longest = max(longest, len(e.m))
		total += len(e.m)
	}
	if len(entries) > lim.MaxListpackEntries || longest > lim.MaxListpackValue ||
		total+len(entries)*zpRec > zsetPackedSafety {
		return &zset{tree: buildZtree(len(entries), func(fn func(m []byte, score float64)) {
			for _, e := range entries {
				fn(e.m, e.score)
			}
		})}
	}
	size := len(entries)*zpRec + total
	p := zpacked{buf: make([]byte, size, int(allocSize(size))), n: len(entries)}
	base, end := len(entries)*zpRec, 0
	for i, e := range entries {
		copy(p.buf[base+end:], e.m)
		end += len(e.m)
		s := e.score
		if s == 0 {
			s = 0 // the listpack's "-0" reads back as 0
		}
		p.setRecord(i, s, end)
	}
	return &zset{lp: p}
}

// --- multi-key algebra ---

// ZSetOp is the operation of ZUNION, ZINTER and ZDIFF.
type ZSetOp uint8

// Sorted-set operations.
const (
	ZUnion ZSetOp = iota
	ZInter
	ZDiff
)

// ZAggregate is AGGREGATE's function.
type ZAggregate uint8

// Aggregates.
const (
	ZAggSum ZAggregate = iota
	ZAggMin
	ZAggMax
)

// ZCombineSpec is a ZUNION, ZINTER or ZDIFF.
type ZCombineSpec struct {
	Op      ZSetOp
	Weights []float64 // one per key; nil: all 1 (ZDIFF ignores them)
	Agg     ZAggregate
}

// zsrc is one input of the algebra: a sorted set, a plain set (each
// member scoring 1) or a missing key.
type zsrc struct {
	z      *zset
	s      *setValue
	weight float64
}

func (s *zsrc) length() int {
	switch {
	case s.z != nil:
		return s.z.length()
	case s.s != nil:
		return s.s.length()
	}
	return 0
}

// each calls fn for every member: a sorted set from its highest member
// down, as Redis walks it.
func (s *zsrc) each(fn func(m []byte, score float64) bool) {
	switch {
	case s.z != nil:
		s.z.each(s.z.length()-1, s.z.length(), true, fn)
	case s.s != nil:
		var scratch [20]byte
		for p := s.s.first(); p >= 0; p = s.s.next(p + 1) {
			if !fn(s.s.memberAt(p, scratch[:0]), 1) {
				return
			}
		}
	}
}

func (s *zsrc) find(m []byte) (float64, bool) {
	switch {
	case s.z != nil:
		return s.z.score(m)
	case s.s != nil:
		return 1, s.s.contains(m)
	}
	return 0, false
}

// zstable returns m, a member src emitted, in a form that outlives the
// emission: sorted-set and hashtable members stay put while the keys are
// locked, an intset member is formatted in a scratch buffer.
func zstable(m []byte, src *zsrc) []byte {
	if src.s != nil && src.s.ht == nil {
		return bytes.Clone(m)
	}
	return m
}

// zaggregate is Redis's zunionInterAggregate; a SUM giving NaN (inf plus
// -inf) is 0.
func zaggregate(target *float64, v float64, agg ZAggregate) {
	switch agg {
	case ZAggSum:
		if *target += v; math.IsNaN(*target) {
			*target = 0
		}
	case ZAggMin:
		if v < *target {
			*target = v
		}
	case ZAggMax:
		if v > *target {
			*target = v
		}
	}
}

// zsources reads the inputs of keys[from:] under tx: a key of a type other
// than sorted set or set fails with ErrWrongType.
func zsources(tx *KeyTx, from, n int, weights []float64) ([]zsrc, error) {
	srcs := make([]zsrc, n)
	for i := range srcs {
		srcs[i].weight = 1
		if weights != nil {
			srcs[i].weight = weights[i]
		}
		typ := tx.Type(from + i)
		tx.d.countLookup(typ != TypeNone)
		switch typ {
		case TypeNone:
			continue
		case TypeZSet, TypeSet:
		default:
			return nil, ErrWrongType
		}
		src := &srcs[i]
		if _, err := tx.Aggregate(from+i, typ, nil, func(a aggregate) (bool, error) {
			switch v := a.(type) {
			case *zset:
				src.z = v
			case *setValue:
				src.s = v
			}
			return false, nil
		}); err != nil {
			return nil, err
		}
	}
	return srcs, nil
}

// zcombine computes a union, intersection or difference as Redis does,
// including the order in which scores are added (inputs by increasing
// size), which decides the last bits of a float sum. It returns the
// result in order; members point into the inputs or into the result map.
func zcombine(srcs []zsrc, spec *ZCombineSpec) []zentry {
	if spec.Op != ZDiff {
		slices.SortStableFunc(srcs, func(a, b zsrc) int { return a.length() - b.length() })
	}
	var out []zentry
	switch spec.Op {
	case ZInter:
		if srcs[0].length() == 0 {
			return nil
		}
		srcs[0].each(func(m []byte, s float64) bool {
			score := srcs[0].weight * s
			if math.IsNaN(score) {
				score = 0
			}
			for j := 1; j < len(srcs); j++ {
				v, ok := srcs[j].find(m)
				if !ok {
					return true
				}
				zaggregate(&score, v*srcs[j].weight, spec.Agg)
			}
			out = append(out, zentry{zstable(m, &srcs[0]), score})
			return true
		})
	case ZUnion:
		acc := make(map[string]int, srcs[len(srcs)-1].length())
		for i := range srcs {
			srcs[i].each(func(m []byte, s float64) bool {
				score := srcs[i].weight * s
				if math.IsNaN(score) {
					score = 0
				}
				if j, ok := acc[string(m)]; ok {
					zaggregate(&out[j].score, score, spec.Agg)
				} else {
					mc := bytes.Clone(m)
					acc[string(mc)] = len(out)
					out = append(out, zentry{mc, score})
				}
				return true
			})
		}
	case ZDiff:
		if srcs[0].length() == 0 {
			return nil
		}
		srcs[0].each(func(m []byte, s float64) bool {
			for j := 1; j < len(srcs); j++ {
				if _, ok := srcs[j].find(m); ok {
					return true
				}
			}
			out = append(out, zentry{zstable(m, &srcs[0]), s})
			return true
		})
	}
	slices.SortFunc(out, zentryCmp)
	return out
}

// ZCombine computes a ZUNION, ZINTER or ZDIFF of keys and emits the result
// in order: begin with its size, then fn for each member.
func (d DB) ZCombine(keys [][]byte, spec *ZCombineSpec, begin func(n int), fn func(member []byte, score float64)) error {
	return d.WithKeys(keys, func(tx *KeyTx) error {
		srcs, err := zsources(tx, 0, len(keys), spec.Weights)
		if err != nil {
			return err
		}
		out := zcombine(srcs, spec)
		begin(len(out))
		for _, e := range out {
			fn(e.m, e.score)
		}
		return nil
	})
}

// ZCombineStore stores a ZUNION, ZINTER or ZDIFF of keys at dst (deleting
// dst when the result is empty) and returns the result's size.
func (d DB) ZCombineStore(dst []byte, keys [][]byte, spec *ZCombineSpec, lim ZsetLimits) (int, error) {
	n := 0
	all := append([][]byte{dst}, keys...)
	err := d.WithKeys(all, func(tx *KeyTx) error {
		srcs, err := zsources(tx, 1, len(keys), spec.Weights)
		if err != nil {
			return err
		}
		out := zcombine(srcs, spec)
		n = len(out)
		tx.Store(0, TypeZSet, zsetBuild(out, lim))
		return nil
	})
	return n, err
}

// ZInterCard returns the size of the intersection of keys, counting no
// further than limit when limit > 0 (ZINTERCARD).
func (d DB) ZInterCard(keys [][]byte, limit int64) (int, error) {
	n := 0
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		srcs, err := zsources(tx, 0, len(keys), nil)
		if err != nil {
			return err
		}
		slices.SortStableFunc(srcs, func(a, b zsrc) int { return a.length() - b.length() })
		if srcs[0].length() == 0 {
			return nil
		}
		srcs[0].each(func(m []byte, _ float64) bool {
			for j := 1; j < len(srcs); j++ {
				if _, ok := srcs[j].find(m); !ok {
					return true
				}
			}
			n++
			return limit <= 0 || int64(n) < limit
		})
		return nil
	})
	return n, err
}

// ZCheckSources reports ErrWrongType if a key holds neither a sorted set
// nor a set: ZUNION and its family look their keys up before they read
// their options, so that error wins over a bad option.
func (d DB) ZCheckSources(keys [][]byte) error {
	return d.WithKeys(keys, func(tx *KeyTx) error {
		_, err := zsources(tx, 0, len(keys), nil)
		return err
	})
}
