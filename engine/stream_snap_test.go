package engine

import (
	"slices"
	"testing"
)

// TestRestoreStreamGroupsAnyOrder: a snapshot's groups may come in any
// order; the restored stream has them by name, and a name given twice is
// refused wherever the two stand (a fuzzed DUMP had "0", "", "": the
// second "" was let in, and the stream's own DUMP then did not restore).
func TestRestoreStreamGroupsAnyOrder(t *testing.T) {
	snap := func(names ...string) *StreamSnapshot {
		ss := &StreamSnapshot{
			Blocks: []StreamSnapBlock{{Master: StreamID{Ms: 1}, Entries: []StreamSnapEntry{{ID: StreamID{Ms: 1}, Fields: [][]byte{[]byte("f"), []byte("v")}}}}},
			Length: 1, LastID: StreamID{Ms: 1}, FirstID: StreamID{Ms: 1}, EntriesAdded: 1,
		}
		for _, n := range names {
			ss.Groups = append(ss.Groups, StreamSnapGroup{Name: []byte(n)})
		}
		return ss
	}
	for _, names := range [][]string{{"0", "", ""}, {"", "0", ""}, {"b", "a", "b"}} {
		if _, err := streamFromSnapshot(snap(names...)); err != errBadStream {
			t.Errorf("groups %q: %v, want %v", names, err, errBadStream)
		}
	}
	s, err := streamFromSnapshot(snap("c", "", "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range s.groups {
		got = append(got, g.name)
	}
	if want := []string{"", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("groups in the order %q, want %q", got, want)
	}
	for _, n := range []string{"", "a", "b", "c"} {
		if s.group([]byte(n)) == nil {
			t.Errorf("group %q not found", n)
		}
	}
}
