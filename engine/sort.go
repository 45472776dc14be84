package engine

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"unsafe"
)

// SORT and SORT_RO (Redis sort.c).
//
// The elements of a list, set or sorted set are copied out, given a weight
// (the element itself, or a string key or hash field named by the BY
// pattern), sorted stably, windowed by LIMIT and mapped through the GET
// patterns. When BY or GET patterns name other keys, every shard of the
// database is locked for the whole command, so the result is one instant
// of the keyspace as in Redis; otherwise only the source (and STORE
// destination) shards are.
//
// Known difference: BY nosort on a hashtable-encoded set returns the
// members in this engine's iteration order, which is not Redis's dict
// order (Redis itself calls that order undefined). ALPHA with BY ties keep
// the input order (Redis's qsort does too; its pqsort with LIMIT may not).

// ErrSortNotDouble: a weight that does not parse as a double (strtod).
var ErrSortNotDouble = errors.New("engine: sort score not a double")

// SortSpec is a parsed SORT command.
type SortSpec struct {
	By       []byte   // BY pattern; nil sorts by the elements themselves
	DontSort bool     // some BY pattern had no '*': keep the natural order
	Gets     [][]byte // GET patterns in order
	Offset   int64    // LIMIT offset
	Count    int64    // LIMIT count; negative for all
	Desc     bool
	Alpha    bool
	// ForScript: the caller is a script, for which Redis sorts a set's
	// members even under BY nosort, as for STORE (CLIENT_SCRIPT).
	ForScript bool
}

// sortItem is one element being sorted.
type sortItem struct {
	elem   []byte
	score  float64
	cmp    []byte // ALPHA BY weight
	hasCmp bool
}

// Sort runs SORT/SORT_RO on key and returns the reply's bulk strings in
// order; a nil entry is a missing GET (a null reply). The returned slices
// are copies the caller owns.
func (d DB) Sort(key []byte, spec *SortSpec) ([][]byte, error) {
	var out [][]byte
	err := d.sortRun(key, nil, spec, func(_ *KeyTx, res [][]byte) { out = res })
	return out, err
}

// SortStore is SORT … STORE dst: it replaces dst with a list of the
// result (missing GETs become empty strings), deleting dst when the result
// is empty, and returns the result's length.
func (d DB) SortStore(key, dst []byte, spec *SortSpec) (int, error) {
	n := 0
	err := d.sortRun(key, dst, spec, func(tx *KeyTx, res [][]byte) {
		n = len(res)
		l := &list{}
		for _, v := range res {
			l.pushBack(v)
		}
		tx.Store(1, TypeList, l)
	})
	return n, err
}

// sortNeedsLookups reports whether spec reads keys other than the source.
func sortNeedsLookups(spec *SortSpec) bool {
	if spec.By != nil && !spec.DontSort {
		return true
	}
	for _, g := range spec.Gets {
		if !sortIsHash(g) {
			return true
		}
	}
	return false
}

func sortIsHash(p []byte) bool { return len(p) > 0 && p[0] == '#' && (len(p) == 1 || p[1] == 0) }

// sortRun locks what the command needs and runs it; done receives the
// result while the locks are held.
func (d DB) sortRun(key, dst []byte, spec *SortSpec, done func(tx *KeyTx, res [][]byte)) error {
	keys := [][]byte{key}
	if dst != nil {
		keys = append(keys, dst)
	}
	ls := d.newLockSet()
	tx := d.newKeyTx(keys, ls)
	if sortNeedsLookups(spec) {
		for i := 0; i < d.e.perDB; i++ {
			ls.add(d.base + i)
		}
	}
	tx.now = d.e.clock.NowMs()
	ls.lock()
	defer ls.unlock()
	res, err := d.sortLocked(tx, spec, dst != nil)
	if err == nil {
		done(tx, res)
	}
	tx.serveKeysLocked()
	return err
}

// sortLocked is SORT with every shard it reads locked.
func (d DB) sortLocked(tx *KeyTx, spec *SortSpec, store bool) ([][]byte, error) {
	k := tx.at(0)
	s, slot := k.s, k.slot
	var agg aggregate
	typ := TypeList
	if slot >= 0 {
		en := &s.entries[slot]
		typ = en.typ
		if typ != TypeList && typ != TypeSet && typ != TypeZSet {
			d.CountLookups(1, 0)
			return nil, ErrWrongType
		}
		d.touch(en, tx.now)
		d.CountLookups(1, 0)
		agg = s.aggs[uint32(slot)]
		if z, ok := agg.(*zset); ok && z.tree == nil {
			// Redis converts a listpack sorted set for SORT, for good.
			before := z.memSize()
			z.convert()
			delta := z.memSize() - before
			s.account(delta)
			en.enc = z.encoding()
		}
	} else {
		d.CountLookups(0, 1)
	}

	dontSort, alpha, by := spec.DontSort, spec.Alpha, spec.By
	if dontSort && typ == TypeSet && (store || spec.ForScript) {
		// A set has no natural order to keep in a stored result.
		dontSort, alpha, by = false, true, nil
	}

	n := 0
	if agg != nil {
		n = agg.length()
	}
	start, end := sortWindow(spec.Offset, spec.Count, n)

	var items []sortItem
	var order []int32 // the sorted permutation of items; nil: items' order
	if dontSort && (typ == TypeList || typ == TypeZSet) {
		if end >= start {
			items = sortElements(agg, spec.Desc, start, end-start+1)
		}
		end -= start
		start = 0
	} else {
		items = sortElements(agg, false, 0, n)
	}

	if !dontSort {
		badScore := false
		for i := range items {
			it := &items[i]
			w := it.elem
			if by != nil {
				v, ok := d.sortLookup(by, it.elem, tx.now)
				if !ok {
					continue
				}
				w = v
			}
			if alpha {
				if by != nil {
					it.cmp, it.hasCmp = w, true
				}
			} else if f, ok := sortStrtod(w); ok {
				it.score = f
			} else {
				badScore = true
			}
		}
		cmp := sortComparator(alpha, by != nil, store, spec.Desc)
		// A permutation is sorted, not the items: it holds no pointers
		// (no write barriers as it moves) and is an eighth of the size.
		// The input position is the last key: a stable result, as
		// glibc's merge-sort qsort gives, at pdqsort's speed.
		order = make([]int32, len(items))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int {
			if c := cmp(&items[a], &items[b]); c != 0 {
				return c
			}
			return int(a - b)
		})
		if badScore {
			return nil, ErrSortNotDouble
		}
	}

	var res [][]byte
	for j := start; j <= end; j++ {
		it := &items[j]
		if order != nil {
			it = &items[order[j]]
		}
		if len(spec.Gets) == 0 {
			res = append(res, it.elem)
			continue
		}
		for _, g := range spec.Gets {
			v, ok := d.sortLookup(g, it.elem, tx.now)
			switch {
			case ok:
				res = append(res, bytes.Clone(v)[:len(v):len(v)])
			case store:
				res = append(res, []byte{})
			default:
				res = append(res, nil)
			}
		}
	}
	return res, nil
}

// sortWindow is Redis's LIMIT clamping: the inclusive index range of the
// sorted vector to return (end < start when none).
func sortWindow(offset, count int64, n int) (start, end int) {
	vl := int64(n)
	st := min(max(offset, 0), vl)
	cnt := min(max(count, -1), vl)
	var en int64
	if cnt < 0 {
		en = vl - 1
	} else {
		en = st + cnt - 1
	}
	if st >= vl {
		st, en = vl-1, vl-2
	}
	if en >= vl {
		en = vl - 1
	}
	return int(st), int(en)
}

// sortElements copies count elements of a from index start of its natural
// order (reversed when rev). A nil a is an empty list.
func sortElements(a aggregate, rev bool, start, count int) []sortItem {
	if a == nil || count <= 0 {
		return nil
	}
	n := a.length()
	var arena []byte
	ends := make([]int, 0, count)
	add := func(v []byte) {
		arena = append(arena, v...)
		ends = append(ends, len(arena))
	}
	switch v := a.(type) {
	case *list:
		if rev {
			v.each(n-1-start, count, false, func(e []byte) bool { add(e); return true })
		} else {
			v.each(start, count, true, func(e []byte) bool { add(e); return true })
		}
	case *zset:
		r := start
		if rev {
			r = n - 1 - start
		}
		v.each(r, count, rev, func(m []byte, _ float64) bool { add(m); return true })
	case *setValue:
		var scratch [24]byte
		i := 0
		for p := v.first(); p >= 0 && i < start+count; p = v.next(p + 1) {
			if i >= start {
				add(v.memberAt(p, scratch[:0]))
			}
			i++
		}
	}
	if arena == nil {
		arena = []byte{} // empty elements are empty, not nil (missing)
	}
	items := make([]sortItem, len(ends))
	from := 0
	for i, e := range ends {
		items[i].elem = arena[from:e:e]
		from = e
	}
	return items
}

// sortComparator orders items as Redis's sortCompare does.
func sortComparator(alpha, byPattern, store, desc bool) func(a, b *sortItem) int {
	strcmp := cStrcmp
	if store {
		strcmp = bytes.Compare
	}
	var cmp func(a, b *sortItem) int
	switch {
	case !alpha:
		cmp = func(a, b *sortItem) int {
			switch {
			case a.score > b.score:
				return 1
			case a.score < b.score:
				return -1
			}
			return bytes.Compare(a.elem, b.elem)
		}
	case byPattern:
		cmp = func(a, b *sortItem) int {
			switch {
			case !a.hasCmp && !b.hasCmp:
				return 0
			case !a.hasCmp:
				return -1
			case !b.hasCmp:
				return 1
			}
			return strcmp(a.cmp, b.cmp)
		}
	default:
		cmp = func(a, b *sortItem) int { return strcmp(a.elem, b.elem) }
	}
	if desc {
		return func(a, b *sortItem) int { return -cmp(a, b) }
	}
	return cmp
}

// cStrcmp is strcmp (strcoll in the C locale): bytes up to the first NUL.
func cStrcmp(a, b []byte) int { return bytes.Compare(cString(a), cString(b)) }

func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// sortLookup is Redis's lookupKeyByPattern: the first '*' of pattern is
// replaced by subst; "key->field" reads a hash field. "#" is subst itself.
// The value aliases engine memory: the caller copies it before unlocking.
func (d DB) sortLookup(pattern, subst []byte, now int64) ([]byte, bool) {
	if sortIsHash(pattern) {
		return subst, true
	}
	c := cString(pattern)
	star := bytes.IndexByte(c, '*')
	if star < 0 {
		return nil, false
	}
	var field []byte
	hasField := false
	if f := bytes.Index(c[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(c) {
		field = pattern[star+1+f+2:]
		hasField = true
	}
	post := pattern[star+1:]
	if hasField {
		post = post[:len(post)-len(field)-2]
	}
	key := make([]byte, 0, star+len(subst)+len(post))
	key = append(append(append(key, pattern[:star]...), subst...), post...)

	s, h := d.shardOf(key)
	slot := d.find(s, key, h, now)
	if slot < 0 {
		d.CountLookups(0, 1)
		return nil, false
	}
	d.CountLookups(1, 0)
	en := &s.entries[slot]
	d.touch(en, now)
	if hasField {
		hv, ok := s.aggs[uint32(slot)].(*hash)
		if !ok || en.typ != TypeHash {
			return nil, false
		}
		return hv.get(field)
	}
	if en.typ != TypeString {
		return nil, false
	}
	v, _ := s.plainValue(en, false) // kept in the sort's items: not pooled
	en.bits |= entryShared          // v may be the record's bytes (arena.go)
	return v, true
}

// sortStrtod parses b as Redis's SORT does: glibc strtod on the bytes up
// to the first NUL, which must all be consumed, without ERANGE or NaN. So
// "" is 0, leading white space and hexadecimal are accepted, and inexact
// results in the subnormal range are refused.
func sortStrtod(b []byte) (float64, bool) {
	c := cString(b)
	if len(c) == 0 {
		return 0, true
	}
	i := 0
	for i < len(c) && (c[i] == ' ' || (c[i] >= '\t' && c[i] <= '\r')) {
		i++
	}
	s := c[i:]
	body := s
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	switch {
	case len(body) == 0:
		return 0, false
	case isInfWord(body):
		if s[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	hex := len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	nonzero, ok := strtodSyntax(body, hex)
	if !ok {
		return 0, false
	}
	// s does not escape ParseFloat (its errors copy it): no allocation.
	str := unsafe.String(unsafe.SliceData(s), len(s))
	if hex && bytes.IndexAny(body, "pP") < 0 {
		str += "p0"
	}
	f, err := strconv.ParseFloat(str, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	if f == 0 {
		return f, !nonzero
	}
	if math.Abs(f) < 0x1p-1022 {
		// glibc reports ERANGE for an inexact subnormal result.
		r, ok := new(big.Rat).SetString(str)
		if !ok {
			return 0, false
		}
		if new(big.Rat).SetFloat64(f).Cmp(r) != 0 {
			return 0, false
		}
	}
	return f, true
}

func isInfWord(b []byte) bool {
	return bytes.EqualFold(b, []byte("inf")) || bytes.EqualFold(b, []byte("infinity"))
}

// strtodSyntax checks that body (no sign) is one complete decimal or
// hexadecimal floating-point number and reports whether its mantissa has a
// non-zero digit.
func strtodSyntax(b []byte, hex bool) (nonzero, ok bool) {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	if hex {
		b = b[2:]
		isDigit = func(c byte) bool {
			return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
		}
	}
	digits := 0
	i := 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		digits++
		nonzero = nonzero || b[i] != '0'
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && isDigit(b[i]); i++ {
			digits++
			nonzero = nonzero || b[i] != '0'
		}
	}
	if digits == 0 {
		return false, false
	}
	if i == len(b) {
		return nonzero, true
	}
	e := b[i]
	if (hex && e != 'p' && e != 'P') || (!hex && e != 'e' && e != 'E') {
		return false, false
	}
	i++
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	j := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return nonzero, i > j && i == len(b)
}
