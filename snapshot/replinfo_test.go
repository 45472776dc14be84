package snapshot

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/engine"
)

// TestReplInfoRoundTrip: the position Repl returns at the dump's instant
// is in its AUX fields, and loading it gives it back; a dump without
// one, or with a partial one (as loadDataFromDisk: an ID of the wrong
// length, a -1 offset), gives none.
func TestReplInfoRoundTrip(t *testing.T) {
	id := strings.Repeat("ab", 20)
	for _, tc := range []struct {
		name string
		info *ReplInfo
		want bool
	}{
		{"recorded", &ReplInfo{StreamDB: 3, ID: id, Offset: 12345}, true},
		{"none", nil, false},
		{"short id", &ReplInfo{StreamDB: 0, ID: "abc", Offset: 1}, false},
		{"no offset", &ReplInfo{StreamDB: 0, ID: id, Offset: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, _ := newEngine()
			eng.DB(0).Set([]byte("k"), []byte("v"), engine.SetOptions{})
			o := FileOptions{Checksum: true}
			cutRan := false
			o.Cut = func() { cutRan = true }
			if tc.info != nil {
				o.Repl = func() (ReplInfo, bool) {
					if !cutRan {
						t.Error("Repl ran before Cut")
					}
					return *tc.info, true
				}
			}
			path := filepath.Join(t.TempDir(), "dump.rdb")
			if _, err := WriteFile(eng, path, o); err != nil {
				t.Fatal(err)
			}
			fresh, _ := newEngine()
			res, err := ReadFile(fresh, path, LoadOptions{Limits: limits})
			if err != nil {
				t.Fatal(err)
			}
			if res.HasRepl != tc.want || tc.want && res.Repl != *tc.info || res.Loaded != 1 {
				t.Errorf("loaded %+v, want HasRepl %v with %+v and 1 key", res, tc.want, tc.info)
			}
		})
	}
}

// TestWriteEmptyKeyspace: a dump of no keys still has its header (written
// after the instant) and loads.
func TestWriteEmptyKeyspace(t *testing.T) {
	eng, _ := newEngine()
	var buf bytes.Buffer
	if _, err := write(&buf, eng, FileOptions{Checksum: true, Functions: [][]byte{[]byte("#!lua name=x\n")}}); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("REDIS0010")) {
		t.Fatalf("no header: %q", buf.Bytes())
	}
	fresh, _ := newEngine()
	if _, err := load(&buf, fresh, LoadOptions{Limits: limits}, 100); err != nil {
		t.Fatal(err)
	}
}
