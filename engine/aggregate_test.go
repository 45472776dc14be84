package engine

import (
	"slices"
	"testing"
)

// testSet is a minimal aggregate for testing the plumbing every real type
// relies on: creation, in-place change, memory, emptiness, COPY, RENAME.
type testSet struct{ members []string }

func (t *testSet) memSize() int64 {
	n := int64(16)
	for _, m := range t.members {
		n += int64(len(m)) + 16
	}
	return n
}
func (t *testSet) length() int        { return len(t.members) }
func (t *testSet) encoding() Encoding { return EncListpack }
func (t *testSet) clone() aggregate   { return &testSet{members: slices.Clone(t.members)} }

func addMember(d DB, key, m string) error {
	_, err := d.withAggregate([]byte(key), TypeSet, func() aggregate { return &testSet{} }, func(a aggregate) (bool, error) {
		s := a.(*testSet)
		if slices.Contains(s.members, m) {
			return false, nil
		}
		s.members = append(s.members, m)
		return true, nil
	})
	return err
}

func removeMember(d DB, key, m string) (bool, error) {
	return d.withAggregate([]byte(key), TypeSet, nil, func(a aggregate) (bool, error) {
		s := a.(*testSet)
		i := slices.Index(s.members, m)
		if i < 0 {
			return false, nil
		}
		s.members = slices.Delete(s.members, i, i+1)
		return true, nil
	})
}

func members(t *testing.T, d DB, key string) []string {
	t.Helper()
	var out []string
	found, err := d.withAggregate([]byte(key), TypeSet, nil, func(a aggregate) (bool, error) {
		out = slices.Clone(a.(*testSet).members)
		return false, nil
	})
	if err != nil || (!found && out != nil) {
		t.Fatalf("members(%s): %v", key, err)
	}
	return out
}

func TestAggregatePlumbing(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	if err := addMember(d, "s", "a"); err != nil {
		t.Fatal(err)
	}
	addMember(d, "s", "b")
	if got := members(t, d, "s"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("members = %v", got)
	}
	if info, _ := d.Info([]byte("s")); info.Type != TypeSet || info.Encoding.String() != "listpack" {
		t.Fatalf("info = %+v", info)
	}
	checkInvariants(t, e)

	// Strings and aggregates do not mix.
	if _, _, err := d.Get([]byte("s")); err != ErrWrongType {
		t.Fatalf("GET on a set: %v", err)
	}
	mustSet(t, d, "str", "v", SetOptions{})
	if err := addMember(d, "str", "x"); err != ErrWrongType {
		t.Fatalf("set op on a string: %v", err)
	}

	// COPY is deep, RENAME moves.
	if ok, err := d.Copy([]byte("s"), e.DB(1), []byte("c"), false); !ok || err != nil {
		t.Fatalf("copy: %v %v", ok, err)
	}
	addMember(e.DB(1), "c", "z")
	if got := members(t, d, "s"); len(got) != 2 {
		t.Fatalf("copy shares the source: %v", got)
	}
	if ok, err := d.Rename([]byte("s"), []byte("r"), false); !ok || err != nil {
		t.Fatalf("rename: %v %v", ok, err)
	}
	if got := members(t, d, "r"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("renamed members = %v", got)
	}
	checkInvariants(t, e)

	// SET replaces an aggregate; an emptied aggregate disappears.
	mustSet(t, d, "r", "now a string", SetOptions{})
	if got := getString(t, d, "r"); got != "now a string" {
		t.Fatalf("GET r = %q", got)
	}
	addMember(d, "e", "only")
	if ok, _ := removeMember(d, "e", "only"); !ok {
		t.Fatal("remove reported no key")
	}
	if d.Exists([]byte("e")) != 0 {
		t.Fatal("emptied aggregate still exists")
	}
	// A create that stores nothing leaves no key.
	d.withAggregate([]byte("n"), TypeSet, func() aggregate { return &testSet{} }, func(aggregate) (bool, error) { return false, nil })
	if d.Exists([]byte("n")) != 0 {
		t.Fatal("empty aggregate was stored")
	}
	checkInvariants(t, e)
	e.FlushAll()
	if e.UsedMemory() != 0 {
		t.Fatalf("used memory after flush: %d", e.UsedMemory())
	}
	checkInvariants(t, e)
}

func TestKeyTxStoreAndMove(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	addMember(d, "src", "a")
	addMember(d, "src", "b")
	mustSet(t, d, "dst", "a string", SetOptions{})
	// Move one member from src to a new key, and store a copy over a string.
	err := d.WithKeys([][]byte{[]byte("src"), []byte("dst"), []byte("new")}, func(tx *KeyTx) error {
		var moved string
		if _, err := tx.Aggregate(0, TypeSet, nil, func(a aggregate) (bool, error) {
			s := a.(*testSet)
			moved = s.members[0]
			s.members = s.members[1:]
			return true, nil
		}); err != nil {
			return err
		}
		if _, err := tx.Aggregate(2, TypeSet, func() aggregate { return &testSet{} }, func(a aggregate) (bool, error) {
			a.(*testSet).members = append(a.(*testSet).members, moved)
			return true, nil
		}); err != nil {
			return err
		}
		if tx.Type(1) != TypeString {
			t.Errorf("dst type %v", tx.Type(1))
		}
		if !tx.Store(1, TypeSet, &testSet{members: []string{"x", "y"}}) {
			t.Error("Store did not see the old string")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := members(t, d, "src"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("src = %v", got)
	}
	if got := members(t, d, "new"); !slices.Equal(got, []string{"a"}) {
		t.Errorf("new = %v", got)
	}
	if got := members(t, d, "dst"); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("dst = %v", got)
	}
	// Storing an empty aggregate deletes the destination.
	d.WithKeys([][]byte{[]byte("dst")}, func(tx *KeyTx) error { tx.Store(0, TypeSet, &testSet{}); return nil })
	if d.Exists([]byte("dst")) != 0 {
		t.Error("empty store left the key")
	}
	checkInvariants(t, e)
}
