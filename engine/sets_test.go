package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// Set tests: the two encodings against simple models, then the DB
// operations (memory, encodings, Redis's orders and algorithms).

var defSetLimits = SetLimits{MaxIntsetEntries: 512}

// setCollectSink records members as strings.
type setCollectSink struct{ got []string }

func (c *setCollectSink) Member(m []byte)   { c.got = append(c.got, string(m)) }
func (c *setCollectSink) IntMember(v int64) { c.got = append(c.got, strconv.FormatInt(v, 10)) }

func setSortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func setModelKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// setMembersOf returns the members of a set value in iteration order.
func setMembersOf(s *setValue) []string {
	var c setCollectSink
	s.emitAll(&c)
	return c.got
}

func TestIntsetAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []int64{0, 1, -1, math.MaxInt16, math.MinInt16, math.MaxInt16 + 1, math.MinInt16 - 1,
		math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64, math.MinInt64}
	for round := 0; round < 50; round++ {
		var is intset
		model := map[int64]bool{}
		for op := 0; op < 400; op++ {
			var v int64
			switch rng.IntN(4) {
			case 0:
				v = values[rng.IntN(len(values))]
			default:
				v = int64(rng.IntN(200)) - 100
			}
			if rng.IntN(3) == 0 {
				if got, want := is.remove(v), model[v]; got != want {
					t.Fatalf("remove(%d) = %v, want %v", v, got, want)
				}
				delete(model, v)
			} else {
				if got, want := is.add(v), !model[v]; got != want {
					t.Fatalf("add(%d) = %v, want %v", v, got, want)
				}
				model[v] = true
			}
			if is.len() != len(model) {
				t.Fatalf("len %d, model %d", is.len(), len(model))
			}
		}
		var want []int64
		for v := range model {
			want = append(want, v)
		}
		slices.Sort(want)
		var maxW uint8
		for i, v := range want {
			if got := is.at(i); got != v {
				t.Fatalf("at(%d) = %d, want %d", i, got, v)
			}
			if !is.contains(v) {
				t.Fatalf("contains(%d) false", v)
			}
			maxW = max(maxW, intsetWidth(v))
		}
		if len(want) > 0 && is.width < maxW {
			t.Fatalf("width %d cannot hold the members (need %d)", is.width, maxW)
		}
	}
}

// checkMemberTable verifies a memberTable's invariants: every occupied slot sits
// in the probe run of its home, the count, and that each member is found.
func checkMemberTable(t *testing.T, mt *memberTable, model map[string]bool) {
	t.Helper()
	if mt.count != len(model) {
		t.Fatalf("count %d, model %d", mt.count, len(model))
	}
	mask := len(mt.slots) - 1
	n := 0
	for i, s := range mt.slots {
		if s == 0 {
			continue
		}
		n++
		m := mt.memberAtSlot(i)
		if !model[string(m)] {
			t.Fatalf("slot %d holds %q, not in the model", i, m)
		}
		if mtSlotHash(s) != setMemberHash(m) {
			t.Fatalf("slot %d: stored hash differs", i)
		}
		for j := mt.home(mtSlotHash(s)); j != i; j = (j + 1) & mask {
			if mt.slots[j] == 0 {
				t.Fatalf("slot %d (%q): empty slot %d between home and place", i, m, j)
			}
		}
	}
	if n != mt.count {
		t.Fatalf("%d occupied slots, count %d", n, mt.count)
	}
	for m := range model {
		if mt.find([]byte(m), setMemberHash([]byte(m))) < 0 {
			t.Fatalf("%q not found", m)
		}
	}
	if mt.count > 0 && mt.bits > mtMinBits && mt.count < len(mt.slots)/8 {
		t.Fatalf("table too sparse: %d in %d slots", mt.count, len(mt.slots))
	}
}

func TestMemberTableAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 20; round++ {
		mt := newMemberTable(0, 0)
		model := map[string]bool{}
		space := 10 + rng.IntN(3000)
		for op := 0; op < 6000; op++ {
			m := fmt.Sprintf("m%d", rng.IntN(space))
			if rng.IntN(100) < 45 {
				if got, want := mt.remove([]byte(m), setMemberHash([]byte(m))), model[m]; got != want {
					t.Fatalf("remove(%s) = %v, want %v", m, got, want)
				}
				delete(model, m)
			} else {
				if got, want := mt.add([]byte(m), setMemberHash([]byte(m))), !model[m]; got != want {
					t.Fatalf("add(%s) = %v, want %v", m, got, want)
				}
				model[m] = true
			}
			if op%500 == 0 {
				checkMemberTable(t, mt, model)
			}
		}
		checkMemberTable(t, mt, model)
		if mt.dead > 64 && mt.dead > len(mt.arena)/2 {
			t.Fatalf("arena not compacted: %d dead of %d", mt.dead, len(mt.arena))
		}
	}
}

// TestMemberTableScanUnderChange: members present for a whole scan are
// returned exactly once, however the table grows, shrinks or compacts.
func TestMemberTableScanUnderChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 40; round++ {
		mt := newMemberTable(0, 0)
		n := 1 + rng.IntN(2000)
		for i := 0; i < n; i++ {
			m := []byte(fmt.Sprintf("stable%d", i))
			mt.add(m, setMemberHash(m))
		}
		seen := map[string]int{}
		cursor := uint64(0)
		extra := 0
		for steps := 0; ; steps++ {
			cursor = mt.scan(cursor, 1+rng.IntN(20), func(m []byte) { seen[string(m)]++ })
			// Churn: add and remove transient members, sometimes many,
			// so that the table resizes under the cursor.
			burst := rng.IntN(4)
			if rng.IntN(10) == 0 {
				burst = 500
			}
			for i := 0; i < burst; i++ {
				m := []byte(fmt.Sprintf("tmp%d", extra))
				extra++
				mt.add(m, setMemberHash(m))
			}
			for i := 0; i < burst; i++ {
				m := []byte(fmt.Sprintf("tmp%d", rng.IntN(extra+1)))
				mt.remove(m, setMemberHash(m))
			}
			if cursor == 0 {
				break
			}
			if steps > 100000 {
				t.Fatal("scan does not end")
			}
		}
		for i := 0; i < n; i++ {
			m := fmt.Sprintf("stable%d", i)
			if seen[m] != 1 {
				t.Fatalf("round %d: %s returned %d times", round, m, seen[m])
			}
		}
	}
}

// TestMemberTableScanWraps: members whose probe run wraps past the last
// slot are returned, whatever the batch size and the starting bucket.
func TestMemberTableScanWraps(t *testing.T) {
	// Members whose home is the last of 8 slots fill slots 7, 0, 1, 2.
	var lastHome [][]byte
	for i := 0; len(lastHome) < 4; i++ {
		m := []byte(fmt.Sprintf("w%d", i))
		if setMemberHash(m)>>(mtHashBits-3) == 7 {
			lastHome = append(lastHome, m)
		}
	}
	mt := newMemberTable(0, 0)
	for _, m := range lastHome {
		mt.add(m, setMemberHash(m))
	}
	extra := []byte("zz")
	mt.add(extra, setMemberHash(extra))
	if mt.bits != 3 || mt.slots[0] == 0 || mt.slots[7] == 0 {
		t.Fatalf("setup: bits %d, slots %x", mt.bits, mt.slots)
	}
	for count := 1; count <= 6; count++ {
		seen := map[string]int{}
		for cursor, steps := uint64(0), 0; ; steps++ {
			cursor = mt.scan(cursor, count, func(m []byte) { seen[string(m)]++ })
			if cursor == 0 {
				break
			}
			if steps > 100 {
				t.Fatal("scan does not end")
			}
		}
		if len(seen) != 5 {
			t.Fatalf("count %d: %d members seen: %v", count, len(seen), seen)
		}
		for m, n := range seen {
			if n != 1 {
				t.Fatalf("count %d: %s seen %d times", count, m, n)
			}
		}
	}
}

func TestMemberTableScanForeignCursor(t *testing.T) {
	mt := newMemberTable(0, 0)
	for i := 0; i < 100; i++ {
		m := []byte(strconv.Itoa(i))
		mt.add(m, setMemberHash(m))
	}
	for _, c := range []uint64{1, 7, 12345, setScanCursorEnd - 1, setScanCursorEnd, math.MaxUint64} {
		// Any cursor ends the walk without panicking.
		for steps := 0; c != 0; steps++ {
			c = mt.scan(c, 10, func([]byte) {})
			if steps > 1000 {
				t.Fatalf("cursor %d never ends", c)
			}
		}
	}
}

func TestSetEncodings(t *testing.T) {
	lim := SetLimits{MaxIntsetEntries: 3}
	s := &setValue{}
	for _, m := range []string{"3", "1", "-2"} {
		s.add([]byte(m), lim)
	}
	if s.encoding() != EncIntset || !slices.Equal(setMembersOf(s), []string{"-2", "1", "3"}) {
		t.Fatalf("intset: %v %v", s.encoding(), setMembersOf(s))
	}
	s.add([]byte("1"), lim) // not new: no conversion check
	if s.encoding() != EncIntset {
		t.Fatal("re-adding converted")
	}
	s.add([]byte("4"), lim)
	if s.encoding() != EncHashtable || s.length() != 4 {
		t.Fatalf("fourth integer: %v len %d", s.encoding(), s.length())
	}
	s.remove([]byte("4"))
	if s.encoding() != EncHashtable {
		t.Fatal("conversion is not one-way")
	}
	// Members that string2ll does not round-trip are strings.
	for _, m := range []string{"01", "+1", "-0", " 1", "1 ", "9223372036854775808", "1.0", ""} {
		s := &setValue{}
		s.add([]byte(m), defSetLimits)
		if s.encoding() != EncHashtable {
			t.Errorf("%q kept an intset", m)
		}
		if !s.contains([]byte(m)) || s.contains([]byte("1")) {
			t.Errorf("%q membership wrong", m)
		}
	}
	// An intset never contains a non-canonical spelling.
	is := &setValue{}
	is.add([]byte("1"), defSetLimits)
	if is.contains([]byte("01")) || !is.contains([]byte("1")) {
		t.Error("intset membership by spelling")
	}
	// set-max-intset-entries 0: the first integer converts.
	z := &setValue{}
	z.add([]byte("5"), SetLimits{})
	if z.encoding() != EncHashtable {
		t.Error("limit 0 kept an intset")
	}
}

// TestSetDBAgainstModel runs random set commands against a map model.
func TestSetDBAgainstModel(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	rng := rand.New(rand.NewPCG(7, 8))
	lim := SetLimits{MaxIntsetEntries: 8}
	keys := []string{"a", "b", "c", "d"}
	model := map[string]map[string]bool{}
	member := func() string {
		if rng.IntN(3) == 0 {
			return fmt.Sprintf("s%d", rng.IntN(12))
		}
		return strconv.Itoa(rng.IntN(20) - 5)
	}
	get := func(k string) map[string]bool {
		if model[k] == nil {
			model[k] = map[string]bool{}
		}
		return model[k]
	}
	for op := 0; op < 20000; op++ {
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(8) {
		case 0, 1, 2:
			var ms [][]byte
			want := 0
			seen := map[string]bool{}
			for i := 0; i <= rng.IntN(4); i++ {
				m := member()
				ms = append(ms, []byte(m))
				if !get(k)[m] && !seen[m] {
					want++
				}
				seen[m] = true
			}
			got, err := d.SAdd([]byte(k), ms, lim)
			if err != nil || got != want {
				t.Fatalf("SAdd %s %q = %d %v, want %d", k, ms, got, err, want)
			}
			for m := range seen {
				get(k)[m] = true
			}
		case 3, 4:
			m := member()
			want := 0
			if get(k)[m] {
				want = 1
			}
			got, err := d.SRem([]byte(k), [][]byte{[]byte(m)})
			if err != nil || got != want {
				t.Fatalf("SRem = %d %v, want %d", got, err, want)
			}
			delete(get(k), m)
		case 5:
			var c setCollectSink
			n, err := d.SPop([]byte(k), uint64(rng.IntN(5)), lim, &c)
			if err != nil || n != len(c.got) {
				t.Fatalf("SPop: %d %v %v", n, err, c.got)
			}
			for _, m := range c.got {
				if !get(k)[m] {
					t.Fatalf("SPop returned %q, not a member of %v", m, setModelKeys(get(k)))
				}
				delete(get(k), m)
			}
		case 6:
			dst := keys[rng.IntN(len(keys))]
			m := member()
			moved, _, err := d.SMove([]byte(k), []byte(dst), []byte(m), lim)
			if err != nil || moved != get(k)[m] {
				t.Fatalf("SMove %s %s %s = %v %v", k, dst, m, moved, err)
			}
			if moved {
				delete(get(k), m)
				get(dst)[m] = true
			}
		case 7:
			op := SetOp(rng.IntN(3))
			srcs := [][]byte{[]byte(keys[rng.IntN(4)]), []byte(keys[rng.IntN(4)])}
			want := map[string]bool{}
			a, b := get(string(srcs[0])), get(string(srcs[1]))
			for m := range a {
				if op == SetUnion || (op == SetInter) == b[m] {
					want[m] = true
				}
			}
			if op == SetUnion {
				for m := range b {
					want[m] = true
				}
			}
			n, err := d.SCombineStore(op, []byte(k), srcs, lim)
			if err != nil || n != len(want) {
				t.Fatalf("SCombineStore %d %s %q = %d %v, want %d", op, k, srcs, n, err, len(want))
			}
			model[k] = want
		}
		for _, key := range keys {
			var c setCollectSink
			n, err := d.SMembers([]byte(key), &c)
			want := setModelKeys(get(key))
			if err != nil || n != len(want) || !slices.Equal(setSortedCopy(c.got), want) {
				t.Fatalf("op %d: %s = %v, want %v", op, key, c.got, want)
			}
			info, ok := d.Info([]byte(key))
			if ok != (len(want) > 0) {
				t.Fatalf("%s exists %v with %d members", key, ok, len(want))
			}
			if !ok {
				continue
			}
			// An intset holds only integers, ascending, within the limit.
			if info.Encoding == EncIntset && (!setSortedInts(c.got) || len(c.got) > lim.MaxIntsetEntries) {
				t.Fatalf("intset %s: %v", key, c.got)
			}
		}
		if op%1000 == 0 {
			checkInvariants(t, e)
		}
	}
	checkInvariants(t, e)
}

func setAdd(t *testing.T, d DB, key string, lim SetLimits, members ...string) {
	t.Helper()
	ms := make([][]byte, len(members))
	for i, m := range members {
		ms[i] = []byte(m)
	}
	if _, err := d.SAdd([]byte(key), ms, lim); err != nil {
		t.Fatal(err)
	}
}

func setEncodingOf(d DB, key string) string {
	info, ok := d.Info([]byte(key))
	if !ok {
		return "none"
	}
	return info.Encoding.String()
}

func setKeyArgs(keys ...string) [][]byte {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = []byte(k)
	}
	return out
}

func TestSetPopStrategies(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	// Case 3 rebuilds the remaining set: a hashtable whose survivor is
	// an integer becomes an intset, as in Redis.
	for try := 0; try < 50; try++ {
		setAdd(t, d, "y", defSetLimits, "a", "1", "2", "3", "4", "5", "6", "7", "8", "9")
		var c setCollectSink
		if n, err := d.SPop(bs("y"), 9, defSetLimits, &c); n != 9 || err != nil {
			t.Fatal(n, err)
		}
		var rest setCollectSink
		d.SMembers(bs("y"), &rest)
		want := "intset"
		if rest.got[0] == "a" {
			want = "hashtable"
		}
		if got := setEncodingOf(d, "y"); got != want {
			t.Fatalf("after popping 9 of 10, %v left, encoding %s, want %s", rest.got, got, want)
		}
		d.Delete(bs("y"))
	}
	// Case 2 keeps the encoding.
	setAdd(t, d, "h", defSetLimits, "a", "1", "2", "3", "4", "5", "6", "7", "8", "9")
	d.SPop(bs("h"), 1, defSetLimits, &setCollectSink{})
	d.SRem(bs("h"), setKeyArgs("a"))
	if got := setEncodingOf(d, "h"); got != "hashtable" {
		t.Fatalf("popping a few converted: %s", got)
	}
	// Popping everything returns SUNION's order (sorted for integers,
	// even from a hashtable) and deletes the key.
	var all setCollectSink
	card, _ := d.SCard(bs("h"))
	n, _ := d.SPop(bs("h"), 100, defSetLimits, &all)
	if n != card || !setSortedInts(all.got) {
		t.Fatalf("pop all: %v", all.got)
	}
	if d.Exists(bs("h")) != 0 {
		t.Fatal("pop all left the key")
	}
	checkInvariants(t, e)
}

// setSortedInts reports whether ms are integers in ascending order.
func setSortedInts(ms []string) bool {
	ints := make([]int64, len(ms))
	for i, m := range ms {
		v, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			return false
		}
		ints[i] = v
	}
	return slices.IsSorted(ints)
}

func TestSetRandMembers(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	var ms []string
	for i := 0; i < 100; i++ {
		ms = append(ms, fmt.Sprintf("m%d", i))
	}
	setAdd(t, d, "s", defSetLimits, ms...)
	for _, count := range []int64{1, 2, 10, 33, 34, 50, 99, 100, 1000} {
		var c setCollectSink
		n, err := d.SRandMembers(bs("s"), count, &c)
		want := int(min(count, 100))
		if err != nil || n != want || len(c.got) != want {
			t.Fatalf("count %d: %d %v", count, n, err)
		}
		seen := map[string]bool{}
		for _, m := range c.got {
			if seen[m] || !slices.Contains(ms, m) {
				t.Fatalf("count %d: %q repeated or foreign", count, m)
			}
			seen[m] = true
		}
	}
	// A large set takes the other strategies: a map of picks, a shuffle.
	var big []string
	for i := 0; i < 1000; i++ {
		big = append(big, strconv.Itoa(i*3))
	}
	setAdd(t, d, "big", defSetLimits, big...)
	for _, count := range []int64{65, 200, 333, 334, 999} {
		var c setCollectSink
		if n, _ := d.SRandMembers(bs("big"), count, &c); n != int(count) {
			t.Fatalf("big count %d: %d", count, n)
		}
		seen := map[string]bool{}
		for _, m := range c.got {
			if seen[m] || !slices.Contains(big, m) {
				t.Fatalf("big count %d: %q repeated or foreign", count, m)
			}
			seen[m] = true
		}
	}
	var c setCollectSink
	if n, _ := d.SRandMembers(bs("s"), -500, &c); n != 500 {
		t.Fatalf("negative count: %d", n)
	}
	for _, m := range c.got {
		if !slices.Contains(ms, m) {
			t.Fatalf("foreign %q", m)
		}
	}
	if n, _ := d.SRandMembers(bs("nosuch"), 5, &c); n != 0 {
		t.Fatal("missing key")
	}
	m, ok, err := d.SRandMember(bs("s"), nil)
	if !ok || err != nil || !slices.Contains(ms, string(m)) {
		t.Fatalf("SRandMember: %q %v %v", m, ok, err)
	}
	// Reads do not change memory or the set.
	before := e.UsedMemory()
	d.SRandMembers(bs("s"), 60, &setCollectSink{})
	if e.UsedMemory() != before {
		t.Fatal("SRANDMEMBER changed memory")
	}
	checkInvariants(t, e)
}

func TestSetCombineOrderAndEncoding(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	lim := SetLimits{MaxIntsetEntries: 3}
	setAdd(t, d, "{x}t", lim, "1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
	setAdd(t, d, "{x}w", lim, "1", "2")
	setAdd(t, d, "{x}x", lim, "7", "8", "9", "10")
	setAdd(t, d, "{x}i", lim, "3", "1", "2")
	// SDIFF's second algorithm adds all of t first, so the result is a
	// hashtable even when it would fit an intset.
	n, _ := d.SCombineStore(SetDiff, bs("{x}v"), setKeyArgs("{x}t", "{x}w", "{x}x"), lim)
	if n != 4 || setEncodingOf(d, "{x}v") != "hashtable" {
		t.Fatalf("sdiffstore: %d %s", n, setEncodingOf(d, "{x}v"))
	}
	// The first algorithm adds survivors only.
	n, _ = d.SCombineStore(SetDiff, bs("{x}v"), setKeyArgs("{x}i", "{x}w"), lim)
	if n != 1 || setEncodingOf(d, "{x}v") != "intset" {
		t.Fatalf("sdiffstore small: %d %s", n, setEncodingOf(d, "{x}v"))
	}
	// SINTER walks the smallest set: an intset gives ascending order.
	var c setCollectSink
	d.SCombine(SetInter, setKeyArgs("{x}t", "{x}i"), lim, &c)
	if !slices.Equal(c.got, []string{"1", "2", "3"}) {
		t.Fatalf("sinter = %v", c.got)
	}
	// A missing key empties an intersection, but a wrong type is still an
	// error.
	mustSet(t, d, "{x}str", "v", SetOptions{})
	if _, err := d.SCombine(SetInter, setKeyArgs("{x}nosuch", "{x}str"), lim, &c); err != ErrWrongType {
		t.Fatalf("sinter nosuch str: %v", err)
	}
	// Stores replace any type and delete on an empty result.
	n, _ = d.SCombineStore(SetUnion, bs("{x}str"), setKeyArgs("{x}w", "{x}i"), lim)
	if n != 3 || setEncodingOf(d, "{x}str") != "intset" {
		t.Fatalf("sunionstore over a string: %d %s", n, setEncodingOf(d, "{x}str"))
	}
	n, _ = d.SCombineStore(SetInter, bs("{x}str"), setKeyArgs("{x}w", "{x}nosuch"), lim)
	if n != 0 || d.Exists(bs("{x}str")) != 0 {
		t.Fatal("empty store kept the key")
	}
	if c, _ := d.SInterCard(setKeyArgs("{x}t", "{x}t"), 4); c != 4 {
		t.Fatalf("sintercard limit: %d", c)
	}
	if c, _ := d.SInterCard(setKeyArgs("{x}t", "{x}x"), 0); c != 4 {
		t.Fatalf("sintercard: %d", c)
	}
	checkInvariants(t, e)
}

func TestSetMoveRules(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet(t, d, "str", "v", SetOptions{})
	setAdd(t, d, "a", defSetLimits, "1")
	if ok, _, err := d.SMove(bs("nosuch"), bs("str"), bs("m"), defSetLimits); ok || err != nil {
		t.Fatal("missing src must give 0 whatever dst is")
	}
	if _, _, err := d.SMove(bs("a"), bs("str"), bs("zz"), defSetLimits); err != ErrWrongType {
		t.Fatal("wrong-type dst must fail even without the member")
	}
	if ok, _, _ := d.SMove(bs("a"), bs("a"), bs("1"), defSetLimits); !ok {
		t.Fatal("same key: member")
	}
	if ok, _, _ := d.SMove(bs("a"), bs("b"), bs("1"), defSetLimits); !ok || d.Exists(bs("a")) != 0 {
		t.Fatal("move of the last member must delete src")
	}
	if setEncodingOf(d, "b") != "intset" {
		t.Fatal("dst created as intset")
	}
	checkInvariants(t, e)
}

func TestSetScanDB(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	setAdd(t, d, "i", defSetLimits, "5", "1", "3")
	var c setCollectSink
	next, sent, err := d.SScan(bs("i"), 99, 1, nil, &c)
	if next != 0 || sent != 3 || err != nil || !slices.Equal(c.got, []string{"1", "3", "5"}) {
		t.Fatalf("intset scan: %d %d %v %v", next, sent, err, c.got)
	}
	var ms []string
	for i := 0; i < 1000; i++ {
		ms = append(ms, fmt.Sprintf("member:%d", i))
	}
	setAdd(t, d, "h", defSetLimits, ms...)
	seen := map[string]int{}
	cursor := uint64(0)
	calls := 0
	for {
		var c setCollectSink
		cursor, _, _ = d.SScan(bs("h"), cursor, 10, nil, &c)
		calls++
		for _, m := range c.got {
			seen[m]++
		}
		if cursor == 0 {
			break
		}
	}
	if len(seen) != 1000 || calls < 50 {
		t.Fatalf("scan: %d members in %d calls", len(seen), calls)
	}
	for m, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", m, n)
		}
	}
}

func TestSetMemoryTracksSize(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	base := e.UsedMemory()
	var ms [][]byte
	for i := 0; i < 100000; i++ {
		ms = append(ms, []byte(fmt.Sprintf("member:%d", i)))
	}
	d.SAdd(bs("big"), ms, defSetLimits)
	grown := e.UsedMemory() - base
	if per := grown / 100000; per < 15 || per > 40 {
		t.Fatalf("%d bytes per member", per)
	}
	checkInvariants(t, e)
	d.SRem(bs("big"), ms[:99990])
	if after := e.UsedMemory() - base; after > 2048 {
		t.Fatalf("10 members left hold %d bytes", after)
	}
	checkInvariants(t, e)
	// COPY is deep.
	if ok, err := d.Copy(bs("big"), d, bs("copy"), false); !ok || err != nil {
		t.Fatal(ok, err)
	}
	d.SAdd(bs("copy"), setKeyArgs("new"), defSetLimits)
	if n, _ := d.SCard(bs("big")); n != 10 {
		t.Fatal("copy shares the source")
	}
	checkInvariants(t, e)
}
