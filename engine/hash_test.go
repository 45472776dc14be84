package engine

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/tandemkv/tandem/internal/num"
)

// hashModel is what a hash must hold: fields in insertion order (the
// listpack's order) and whether Redis would have converted it.
type hashModel struct {
	order     []string
	vals      map[string]string
	hashtable bool
}

func newHashModel() *hashModel { return &hashModel{vals: map[string]string{}} }

// set mirrors Redis's hashTypeSet with its conversion rules.
func (m *hashModel) set(f, v string, lim HashLimits) bool {
	if len(f) > lim.MaxListpackValue || len(v) > lim.MaxListpackValue {
		m.hashtable = true
	}
	_, exists := m.vals[f]
	if !exists {
		m.order = append(m.order, f)
	}
	m.vals[f] = v
	if len(m.order) > lim.MaxListpackEntries {
		m.hashtable = true
	}
	return !exists
}

func (m *hashModel) del(f string) bool {
	if _, ok := m.vals[f]; !ok {
		return false
	}
	delete(m.vals, f)
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == f })
	return true
}

// viewPairs returns a hash's fields and values in its order.
func viewPairs(t *testing.T, d DB, key string) (fields, vals []string, found bool) {
	t.Helper()
	found, err := d.HView(bs(key), func(v HashView) {
		v.Each(func(f, val []byte) {
			fields = append(fields, string(f))
			vals = append(vals, string(val))
		})
	})
	if err != nil {
		t.Fatalf("HView %q: %v", key, err)
	}
	return fields, vals, found
}

// checkHashTable verifies a hashtable's internal bookkeeping: every live
// entry is in the chain of its bucket exactly once, the free list holds
// exactly the free entries, and garbage is the bytes no live record uses.
func checkHashTable(t *testing.T, tb *hashTable) {
	t.Helper()
	n := len(tb.buckets)
	if n == 0 || n&(n-1) != 0 {
		t.Fatalf("bucket count %d is not a power of two", n)
	}
	seen := make([]int, len(tb.ents))
	for b, head := range tb.buckets {
		for i := head; i != 0; i = tb.ents[i-1].next {
			e := tb.ents[i-1]
			if e.off == freeEntry {
				t.Fatalf("free entry %d in bucket %d", i-1, b)
			}
			if int(e.hash)&(n-1) != b {
				t.Fatalf("entry %d (hash %x) in bucket %d", i-1, e.hash, b)
			}
			seen[i-1]++
		}
	}
	live, used := 0, 0
	for i, e := range tb.ents {
		if e.off == freeEntry {
			continue
		}
		live++
		if seen[i] != 1 {
			t.Fatalf("live entry %d is in %d chains", i, seen[i])
		}
		f, _ := tb.record(i)
		if fieldHash(f) != e.hash {
			t.Fatalf("entry %d: stored hash differs from its field's", i)
		}
		r := lpRecordAt(tb.data, int(e.off))
		used += r.ve - r.off
	}
	if live != tb.live {
		t.Fatalf("live counter %d, entries %d", tb.live, live)
	}
	free := 0
	for i := tb.free; i != 0; i = tb.ents[i-1].next {
		if tb.ents[i-1].off != freeEntry {
			t.Fatalf("free list holds live entry %d", i-1)
		}
		free++
	}
	if free != len(tb.ents)-live {
		t.Fatalf("free list %d, free entries %d", free, len(tb.ents)-live)
	}
	if len(tb.data)-used != tb.garbage {
		t.Fatalf("garbage counter %d, actual %d", tb.garbage, len(tb.data)-used)
	}
}

// checkHash compares the hash at key with the model.
func checkHash(t *testing.T, e *Engine, d DB, key string, m *hashModel) {
	t.Helper()
	fields, vals, found := viewPairs(t, d, key)
	if len(m.order) == 0 {
		if found {
			t.Fatalf("%q: emptied hash still exists", key)
		}
		return
	}
	if !found {
		t.Fatalf("%q: missing, model has %d fields", key, len(m.order))
	}
	info, _ := d.Info(bs(key))
	wantEnc := "listpack"
	if m.hashtable {
		wantEnc = "hashtable"
	}
	if info.Type != TypeHash || info.Encoding.String() != wantEnc {
		t.Fatalf("%q: type %v encoding %v, want hash %s", key, info.Type, info.Encoding, wantEnc)
	}
	if !m.hashtable {
		if !slices.Equal(fields, m.order) {
			t.Fatalf("%q: listpack order %q, want %q", key, fields, m.order)
		}
	} else if got, want := slices.Sorted(slices.Values(fields)), slices.Sorted(slices.Values(m.order)); !slices.Equal(got, want) {
		t.Fatalf("%q: fields %q, want %q", key, got, want)
	}
	for i, f := range fields {
		if vals[i] != m.vals[f] {
			t.Fatalf("%q: %q = %q, want %q", key, f, vals[i], m.vals[f])
		}
	}
	d.HView(bs(key), func(v HashView) {
		if v.Len() != len(m.order) {
			t.Fatalf("%q: Len %d, want %d", key, v.Len(), len(m.order))
		}
		for f, want := range m.vals {
			if got, ok := v.Get(bs(f)); !ok || string(got) != want {
				t.Fatalf("%q: Get(%q) = %q %v, want %q", key, f, got, ok, want)
			}
		}
		if _, ok := v.Get(bs("no such field")); ok {
			t.Fatalf("%q: Get finds a missing field", key)
		}
		if v.h.ht != nil {
			checkHashTable(t, v.h.ht)
		} else if v.h.lpN != len(m.order) {
			t.Fatalf("%q: lpN %d, want %d", key, v.h.lpN, len(m.order))
		}
	})
	checkInvariants(t, e)
}

// TestHashRandomizedAgainstModel drives random writes with small and
// changing thresholds and checks contents, order, encoding and memory
// bookkeeping after every one.
func TestHashRandomizedAgainstModel(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	rng := rand.New(rand.NewPCG(1, 2))
	models := map[string]*hashModel{}
	keys := []string{"h1", "h2", "h3"}
	field := func() string {
		if rng.IntN(20) == 0 {
			return fmt.Sprintf("long-field-%040d", rng.IntN(5))
		}
		return "f" + strconv.Itoa(rng.IntN(40))
	}
	value := func() string {
		switch rng.IntN(10) {
		case 0:
			return ""
		case 1:
			return fmt.Sprintf("%0*d", 1+rng.IntN(120), rng.IntN(1000))
		case 2:
			return strconv.Itoa(rng.IntN(200) - 100)
		}
		return "v" + strconv.Itoa(rng.IntN(1000))
	}
	for step := 0; step < 20000; step++ {
		key := keys[rng.IntN(len(keys))]
		m := models[key]
		if m == nil {
			m = newHashModel()
			models[key] = m
		}
		lim := HashLimits{MaxListpackEntries: 4 + rng.IntN(30), MaxListpackValue: 40 + rng.IntN(60)}
		switch op := rng.IntN(10); {
		case op < 4:
			var pairs [][]byte
			var want int
			n := 1 + rng.IntN(3)
			for i := 0; i < n; i++ {
				f, v := field(), value()
				pairs = append(pairs, bs(f), bs(v))
			}
			for i := 0; i < len(pairs); i += 2 {
				if m.set(string(pairs[i]), string(pairs[i+1]), lim) {
					want++
				}
			}
			got, err := d.HSet(bs(key), pairs, lim)
			if err != nil || got != want {
				t.Fatalf("step %d: HSet = %d %v, want %d", step, got, err, want)
			}
		case op < 5:
			f, v := field(), value()
			_, exists := m.vals[f]
			if !exists {
				m.set(f, v, lim)
			}
			got, err := d.HSetNX(bs(key), bs(f), bs(v), lim)
			if err != nil || got == exists {
				t.Fatalf("step %d: HSetNX = %v %v, field existed %v", step, got, err, exists)
			}
		case op < 7:
			var fields [][]byte
			want := 0
			for i := 0; i < 1+rng.IntN(4); i++ {
				f := field()
				if len(m.order) > 0 && rng.IntN(2) == 0 {
					f = m.order[rng.IntN(len(m.order))]
				}
				fields = append(fields, bs(f))
				if m.del(f) {
					want++
				}
			}
			got, err := d.HDel(bs(key), fields)
			if err != nil || got != want {
				t.Fatalf("step %d: HDel = %d %v, want %d", step, got, err, want)
			}
		case op < 9:
			f := field()
			delta := int64(rng.IntN(2000) - 1000)
			cur, exists := m.vals[f]
			n, isInt := num.ParseInt([]byte(cur))
			got, err := d.HIncrBy(bs(key), bs(f), delta, lim)
			switch {
			case exists && !isInt:
				if err != ErrHashNotInteger {
					t.Fatalf("step %d: HIncrBy on %q: %v", step, cur, err)
				}
			default:
				m.set(f, strconv.FormatInt(n+delta, 10), lim)
				if err != nil || got != n+delta {
					t.Fatalf("step %d: HIncrBy = %d %v, want %d", step, got, err, n+delta)
				}
			}
		default:
			f := field()
			delta, _, _ := num.ParseLongDouble([]byte(strconv.FormatFloat(rng.Float64()*100-50, 'f', 3, 64)))
			cur, exists := m.vals[f]
			got, err := d.HIncrByFloat(bs(key), bs(f), delta, lim)
			if exists {
				if _, _, ok := num.ParseLongDouble([]byte(cur)); !ok {
					if err != ErrHashNotFloat {
						t.Fatalf("step %d: HIncrByFloat on %q: %v", step, cur, err)
					}
					break
				}
			}
			if err != nil {
				t.Fatalf("step %d: HIncrByFloat: %v", step, err)
			}
			m.set(f, string(got), lim)
		}
		checkHash(t, e, d, key, m)
	}
	for _, k := range keys {
		d.Delete(bs(k))
	}
	if e.UsedMemory() != 0 {
		t.Fatalf("used memory after deleting every hash: %d", e.UsedMemory())
	}
}

func TestHashIncrErrors(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	lim := HashLimits{MaxListpackEntries: 128, MaxListpackValue: 64}
	d.HSet(bs("h"), [][]byte{bs("max"), bs("9223372036854775807"), bs("min"), bs("-9223372036854775808"), bs("inf"), bs("inf"), bs("s"), bs("x")}, lim)
	if _, err := d.HIncrBy(bs("h"), bs("max"), 1, lim); err != ErrOverflow {
		t.Errorf("max+1: %v", err)
	}
	if _, err := d.HIncrBy(bs("h"), bs("min"), -1, lim); err != ErrOverflow {
		t.Errorf("min-1: %v", err)
	}
	if n, err := d.HIncrBy(bs("h"), bs("min"), math.MaxInt64, lim); err != nil || n != -1 {
		t.Errorf("min+max = %d %v", n, err)
	}
	if _, err := d.HIncrBy(bs("h"), bs("s"), 1, lim); err != ErrHashNotInteger {
		t.Errorf("incr of x: %v", err)
	}
	one := big.NewFloat(1)
	if _, err := d.HIncrByFloat(bs("h"), bs("inf"), one, lim); err != ErrNaNOrInf {
		t.Errorf("inf+1: %v", err)
	}
	if _, err := d.HIncrByFloat(bs("h"), bs("s"), one, lim); err != ErrHashNotFloat {
		t.Errorf("x+1.0: %v", err)
	}
	if v, err := d.HIncrByFloat(bs("h"), bs("max"), one, lim); err != nil || string(v) != "9223372036854775808" {
		t.Errorf("max+1.0 = %s %v", v, err)
	}
	huge, _, _ := num.ParseLongDouble(bs("1e4932"))
	d.HIncrByFloat(bs("h"), bs("big"), huge, lim)
	if _, err := d.HIncrByFloat(bs("h"), bs("big"), huge, lim); err != ErrNaNOrInf {
		t.Errorf("overflow: %v", err)
	}
	// A 4933-digit result does not fit a listpack.
	if info, _ := d.Info(bs("h")); info.Encoding != EncHashtable {
		t.Errorf("encoding after a long result: %v", info.Encoding)
	}
	// Errors on a missing key create nothing.
	putRaw(t, d, bs("str"), bs("v"), TypeString)
	if _, err := d.HSet(bs("str"), [][]byte{bs("f"), bs("v")}, lim); err != ErrWrongType {
		t.Errorf("HSet on a string: %v", err)
	}
	if _, err := d.HView(bs("str"), func(HashView) { t.Error("view of a string") }); err != ErrWrongType {
		t.Errorf("HView on a string: %v", err)
	}
	checkInvariants(t, e)
}

// TestHashScanGuarantee checks HSCAN's promise on a hashtable: a field
// present for the whole iteration is returned, however the table grows
// and shrinks between calls.
func TestHashScanGuarantee(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	lim := HashLimits{MaxListpackEntries: 0, MaxListpackValue: 64}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 20; round++ {
		d.Delete(bs("h"))
		stable := map[string]bool{}
		for i := 0; i < 300; i++ {
			f := fmt.Sprintf("s%d", i)
			stable[f] = true
			d.HSet(bs("h"), [][]byte{bs(f), bs("v")}, lim)
		}
		seen := map[string]bool{}
		cursor := uint64(0)
		churn := 0
		for calls := 0; ; calls++ {
			if calls > 100000 {
				t.Fatal("scan does not terminate")
			}
			d.HView(bs("h"), func(v HashView) {
				cursor = v.Scan(cursor, 1+rng.IntN(20), nil, func(f, _ []byte) { seen[string(f)] = true })
			})
			if cursor == 0 {
				break
			}
			// Grow a lot, or shrink a lot, between calls.
			if rng.IntN(2) == 0 {
				for i := 0; i < rng.IntN(400); i++ {
					churn++
					d.HSet(bs("h"), [][]byte{bs(fmt.Sprintf("c%d", churn)), bs("v")}, lim)
				}
			} else {
				var fs [][]byte
				d.HView(bs("h"), func(v HashView) {
					v.Each(func(f, _ []byte) {
						if f[0] == 'c' && rng.IntN(4) != 0 {
							fs = append(fs, slices.Clone(f))
						}
					})
				})
				d.HDel(bs("h"), fs)
			}
		}
		for f := range stable {
			if !seen[f] {
				t.Fatalf("round %d: stable field %q never returned", round, f)
			}
		}
		d.HView(bs("h"), func(v HashView) { checkHashTable(t, v.h.ht) })
	}
	checkInvariants(t, e)
}

func TestHashScanListpackAndMatch(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	lim := HashLimits{MaxListpackEntries: 128, MaxListpackValue: 64}
	d.HSet(bs("h"), [][]byte{bs("b1"), bs("1"), bs("a1"), bs("2"), bs("b2"), bs("3")}, lim)
	var got []string
	d.HView(bs("h"), func(v HashView) {
		// A listpack comes back whole, in order, whatever cursor and count.
		if next := v.Scan(12345, 1, bs("b*"), func(f, val []byte) { got = append(got, string(f)+"="+string(val)) }); next != 0 {
			t.Errorf("listpack cursor %d", next)
		}
	})
	if !slices.Equal(got, []string{"b1=1", "b2=3"}) {
		t.Errorf("scan = %q", got)
	}
}

func TestHashRandom(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	for _, enc := range []HashLimits{{MaxListpackEntries: 128, MaxListpackValue: 64}, {MaxListpackEntries: 0, MaxListpackValue: 64}} {
		d.Delete(bs("h"))
		var pairs [][]byte
		for i := 0; i < 50; i++ {
			pairs = append(pairs, bs(fmt.Sprintf("f%d", i)), bs(fmt.Sprintf("v%d", i)))
		}
		d.HSet(bs("h"), pairs, enc)
		// Leave holes in the hashtable's entries.
		d.HDel(bs("h"), [][]byte{bs("f3"), bs("f7"), bs("f20")})
		d.HView(bs("h"), func(v HashView) {
			n := v.Len()
			counts := map[string]int{}
			v.RandomRepeat(47000, func(f, val []byte) bool {
				if string(val) != "v"+string(f[1:]) {
					t.Fatalf("random pair %s=%s", f, val)
				}
				counts[string(f)]++
				return true
			})
			if len(counts) != n {
				t.Fatalf("%d of %d fields drawn", len(counts), n)
			}
			for f, c := range counts {
				if c < 700 || c > 1300 { // expected 1000
					t.Errorf("field %s drawn %d times of 47000", f, c)
				}
			}
			for _, count := range []int{1, 5, 15, 16, 30, 46} {
				seen := map[string]bool{}
				v.RandomDistinct(count, func(f, _ []byte) {
					if seen[string(f)] {
						t.Fatalf("RandomDistinct(%d) repeats %s", count, f)
					}
					seen[string(f)] = true
				})
				if len(seen) != count {
					t.Fatalf("RandomDistinct(%d) gave %d", count, len(seen))
				}
			}
			stop := 0
			v.RandomRepeat(100, func(_, _ []byte) bool { stop++; return stop < 3 })
			if stop != 3 {
				t.Errorf("RandomRepeat went on after false: %d", stop)
			}
			if f, _ := v.Random(); len(f) == 0 {
				t.Error("Random gave nothing")
			}
		})
	}
}

// TestHashCloneAndMemory checks COPY's deep copy and that memory follows a
// hash up and down.
func TestHashCloneAndMemory(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	lim := HashLimits{MaxListpackEntries: 128, MaxListpackValue: 64}
	for i := 0; i < 1000; i++ {
		d.HSet(bs("h"), [][]byte{keyN("f", i), bs("some value")}, lim)
	}
	big := e.UsedMemory()
	if big < 1000*20 {
		t.Fatalf("used memory %d for 1000 fields", big)
	}
	if ok, err := d.Copy(bs("h"), d, bs("c"), false); !ok || err != nil {
		t.Fatalf("copy: %v %v", ok, err)
	}
	d.HSet(bs("c"), [][]byte{bs("f1"), bs("changed")}, lim)
	d.HView(bs("h"), func(v HashView) {
		if got, _ := v.Get(bs("f1")); string(got) != "some value" {
			t.Fatalf("copy shares the source: %s", got)
		}
	})
	d.Delete(bs("c"))
	// Deleting most fields gives most of the memory back.
	var fs [][]byte
	for i := 10; i < 1000; i++ {
		fs = append(fs, keyN("f", i))
	}
	d.HDel(bs("h"), fs)
	if small := e.UsedMemory(); small > big/10 {
		t.Fatalf("used memory %d after deleting 99%% of %d", small, big)
	}
	checkInvariants(t, e)
}

// TestHashValueRewrites exercises in-place rewrites and compaction of a
// hashtable's data.
func TestHashValueRewrites(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	lim := HashLimits{MaxListpackEntries: 0, MaxListpackValue: 64}
	m := newHashModel()
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200; i++ {
		f, v := fmt.Sprintf("f%d", i), "x"
		d.HSet(bs("h"), [][]byte{bs(f), bs(v)}, lim)
		m.set(f, v, lim)
	}
	for step := 0; step < 20000; step++ {
		f := fmt.Sprintf("f%d", rng.IntN(200))
		v := string(make([]byte, rng.IntN(300)))
		d.HSet(bs("h"), [][]byte{bs(f), bs(v)}, lim)
		m.set(f, v, lim)
	}
	checkHash(t, e, d, "h", m)
	d.HView(bs("h"), func(v HashView) {
		if tb := v.h.ht; tb.garbage*4 >= len(tb.data) && tb.garbage >= compactMinGap {
			t.Errorf("garbage %d of %d bytes not compacted", tb.garbage, len(tb.data))
		}
	})
}

func TestHashListpackSet(t *testing.T) {
	// lpSet's in-place, shifting and reallocating replacements.
	h := &hash{}
	lim := HashLimits{MaxListpackEntries: 100, MaxListpackValue: 1000}
	h.set(bs("a"), bs("1"), lim)
	h.set(bs("b"), bs("22"), lim)
	h.set(bs("c"), bs("333"), lim)
	for _, v := range []string{"x", "", string(make([]byte, 200)), "yy", string(make([]byte, 900)), "z"} {
		h.set(bs("b"), bs(v), lim)
		var got []string
		h.each(func(f, val []byte) bool { got = append(got, string(f)+"="+string(val)); return true })
		want := []string{"a=1", "b=" + v, "c=333"}
		if !slices.Equal(got, want) {
			t.Fatalf("after b=%d bytes: %q", len(v), got)
		}
	}
}
