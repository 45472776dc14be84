package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// streamModel is the obvious representation: a sorted slice of entries.
type streamModel struct {
	ids  []StreamID
	vals [][][]byte
}

func (m *streamModel) add(id StreamID, kv [][]byte) {
	m.ids = append(m.ids, id)
	m.vals = append(m.vals, kv)
}

func (m *streamModel) del(id StreamID) bool {
	i := slices.Index(m.ids, id)
	if i < 0 {
		return false
	}
	m.ids = slices.Delete(m.ids, i, i+1)
	m.vals = slices.Delete(m.vals, i, i+1)
	return true
}

// TestStreamBlocksAgainstModel drives a stream with small blocks through
// appends, deletes, exact trims and ranges, and checks every range and
// the counters against the model, and the memory count against a
// recount.
func TestStreamBlocksAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	s := &stream{}
	m := &streamModel{}
	lim := StreamLimits{NodeMaxBytes: 200, NodeMaxEntries: 5}
	fields := [][]byte{[]byte("a"), []byte("b"), []byte("123")}
	next := StreamID{1, 0}
	for op := 0; op < 4000; op++ {
		switch r := rng.IntN(10); {
		case r < 6:
			var kv [][]byte
			for i := 0; i < 1+rng.IntN(3); i++ {
				kv = append(kv, fields[rng.IntN(len(fields))], []byte(fmt.Sprint(rng.IntN(1000))))
			}
			if rng.IntN(3) == 0 {
				next = StreamID{next.Ms + 1 + uint64(rng.IntN(3)), 0}
			}
			next.Seq++
			s.appendEntry(next, kv, lim)
			m.add(next, kv)
		case r < 8 && len(m.ids) > 0:
			id := m.ids[rng.IntN(len(m.ids))]
			if !s.deleteID(id) || !m.del(id) {
				t.Fatalf("op %d: delete %v failed", op, id)
			}
			if s.deleteID(id) {
				t.Fatalf("op %d: deleted %v twice", op, id)
			}
		case r == 8 && len(m.ids) > 10:
			keep := len(m.ids) - rng.IntN(5)
			n := s.trim(StreamTrim{Strategy: TrimMaxLen, MaxLen: int64(keep)})
			if want := len(m.ids) - keep; n != int64(want) {
				t.Fatalf("op %d: trim removed %d, want %d", op, n, want)
			}
			m.ids, m.vals = m.ids[len(m.ids)-keep:], m.vals[len(m.vals)-keep:]
		default:
			if len(m.ids) == 0 {
				continue
			}
			lo, hi := rng.IntN(len(m.ids)), rng.IntN(len(m.ids))
			if lo > hi {
				lo, hi = hi, lo
			}
			for _, rev := range []bool{false, true} {
				var got []StreamID
				s.visit(m.ids[lo], m.ids[hi], 0, rev, func(e *StreamEntry) {
					got = append(got, e.ID)
					i := slices.Index(m.ids, e.ID)
					if fmt.Sprint(e.Fields) != fmt.Sprint(m.vals[i]) {
						t.Fatalf("op %d: %v has %q, want %q", op, e.ID, e.Fields, m.vals[i])
					}
				})
				want := slices.Clone(m.ids[lo : hi+1])
				if rev {
					slices.Reverse(want)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("op %d: range rev=%v got %v, want %v", op, rev, got, want)
				}
			}
		}
		if s.count != uint64(len(m.ids)) {
			t.Fatalf("op %d: count %d, want %d", op, s.count, len(m.ids))
		}
		var mem int64
		for _, b := range s.blocks {
			mem += int64(cap(b.buf))
			if int64(b.live+b.dead) > lim.NodeMaxEntries {
				t.Fatalf("op %d: block of %d entries", op, b.live+b.dead)
			}
		}
		if mem != s.bufMem {
			t.Fatalf("op %d: bufMem %d, recount %d", op, s.bufMem, mem)
		}
	}
}

func TestStreamIDNextPrev(t *testing.T) {
	if id, ok := MaxStreamID.Next(); ok || !id.IsZero() {
		t.Fatalf("Next of the largest ID: %v %v", id, ok)
	}
	if id, ok := (StreamID{}).Prev(); ok || id != MaxStreamID {
		t.Fatalf("Prev of 0-0: %v %v", id, ok)
	}
	if id, _ := (StreamID{1, ^uint64(0)}).Next(); id != (StreamID{2, 0}) {
		t.Fatalf("Next carries: %v", id)
	}
	if got := (StreamID{12, 34}).String(); got != "12-34" {
		t.Fatalf("String: %q", got)
	}
}

// TestStreamCopyIsDeep: COPY's clone shares no bytes with the source.
func TestStreamCopyIsDeep(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	for i := 1; i <= 20; i++ {
		if _, err := d.XAdd([]byte("s"), &XAddArgs{ID: StreamID{uint64(i), 0}, IDGiven: true, SeqGiven: true, Fields: [][]byte{[]byte("f"), []byte("v")}}); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := d.Copy([]byte("s"), d, []byte("c"), false); err != nil || !ok {
		t.Fatalf("copy: %v %v", ok, err)
	}
	if _, _, err := d.XDel([]byte("s"), []StreamID{{1, 0}, {2, 0}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := d.XLen([]byte("c")); n != 20 {
		t.Fatalf("copy has %d entries after deletes in the source", n)
	}
	if used := e.UsedMemory(); used <= 0 {
		t.Fatalf("used memory %d", used)
	}
}

// TestXReadGroupWaiterKeyGone: a blocked XREADGROUP is answered
// ErrStreamKeyGone when its key is deleted, overwritten or flushed; a
// blocked XREAD on the same key keeps waiting.
func TestXReadGroupWaiterKeyGone(t *testing.T) {
	for _, gone := range []struct {
		name string
		do   func(d DB)
	}{
		{"delete", func(d DB) { d.Delete(bs("s")) }},
		{"overwrite", func(d DB) { mustSet(t, d, "s", "v", SetOptions{}) }},
		{"flush", func(d DB) { d.Flush() }},
	} {
		t.Run(gone.name, func(t *testing.T) {
			e, _ := newTestEngine(t, 2)
			d := e.DB(0)
			if err := d.XGroupCreate(bs("s"), bs("g"), XGroupID{Dollar: true}, true, -1); err != nil {
				t.Fatal(err)
			}
			group, plain := newTestWaiter(e), newTestWaiter(e)
			ga := &XReadArgs{Keys: [][]byte{bs("s")}, IDs: []XReadID{{Kind: XReadNew}}, Group: bs("g"), Consumer: bs("c")}
			if res, err := d.XRead(ga, group.Waiter); res != nil || err != nil {
				t.Fatalf("XREADGROUP did not block: %v %v", res, err)
			}
			pa := &XReadArgs{Keys: [][]byte{bs("s")}, IDs: []XReadID{{Kind: XReadDollar}}}
			if res, err := d.XRead(pa, plain.Waiter); res != nil || err != nil {
				t.Fatalf("XREAD did not block: %v %v", res, err)
			}
			gone.do(d)
			r := group.StreamResult()
			if r == nil || r.Err != ErrStreamKeyGone || group.wakes.Load() != 1 {
				t.Fatalf("XREADGROUP waiter after %s: %+v, %d wakes", gone.name, r, group.wakes.Load())
			}
			if plain.StreamResult() != nil || plain.wakes.Load() != 0 {
				t.Fatalf("XREAD waiter answered after %s", gone.name)
			}
			group.Done()
			plain.Cancel()
			if n := e.Waiting(); n != 0 {
				t.Fatalf("%d waits left", n)
			}
		})
	}
}
