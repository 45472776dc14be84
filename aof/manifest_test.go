package aof

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// The corner cases of Redis's tests/integration/aof-multi-part.tcl and
// aofLoadManifestFromFile, with Redis's words.
func TestParseManifestErrors(t *testing.T) {
	for _, c := range manifestErrorCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseManifest("m", []byte(c.text))
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want a ManifestError", err)
			}
			if me.Msg != c.msg || me.Line != c.line {
				t.Errorf("got %q at line %d, want %q at line %d", me.Msg, me.Line, c.msg, c.line)
			}
		})
	}
}

var manifestErrorCases = []struct {
	name, text, msg string
	line            int
}{
	{"non-monotonic", "file appendonly.aof.2.incr.aof seq 2 type i\nfile appendonly.aof.1.incr.aof seq 1 type i\n", ErrMsgNonMonotonicSeq, 2},
	{"blank line", "file appendonly.aof.1.incr.aof seq 1 type i\n\nfile appendonly.aof.3.incr.aof seq 3 type i\n", ErrMsgInvalidFormat, 2},
	{"duplicate base", "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.2.base.aof seq 2 type b\n", ErrMsgDuplicateBase, 2},
	{"type unknown", "file appendonly.aof.1.base.aof seq 1 type x\n", ErrMsgUnknownType, 1},
	{"missing key", "filx appendonly.aof.1.base.aof seq 1 type b\n", ErrMsgInvalidFormat, 1},
	{"line too short", "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof type i\n", ErrMsgInvalidFormat, 2},
	{"line too long", strings.Repeat("file appendonly.aof.1.base.aof seq 1 type b ", 50) + "\n", ErrMsgTooLongLine, 0},
	{"odd parameter", "file appendonly.aof.1.incr.aof seq 1 type i newkey\n", ErrMsgInvalidFormat, 1},
	{"empty", "", ErrMsgEmptyManifest, 0},
	{"no final newline", "file appendonly.aof.1.incr.aof seq 1 type i", ErrMsgTooLongLine, 0},
	{"path", "file dir/appendonly.aof.1.incr.aof seq 1 type i\n", ErrMsgNotBaseName, 1},
	{"backslash path", `file "a\\b" seq 1 type i` + "\n", ErrMsgNotBaseName, 1},
	{"seq zero", "file a seq 0 type i\n", ErrMsgInvalidFormat, 1},
	{"seq not a number", "file a seq x type i\n", ErrMsgInvalidFormat, 1},
	{"unbalanced quotes", "file \"a seq 1 type i\n", ErrMsgInvalidFormat, 1},
	{"equal incr seqs", "file a seq 1 type i\nfile b seq 1 type i\n", ErrMsgNonMonotonicSeq, 2},
}

func TestParseManifestAccepts(t *testing.T) {
	text := "# a comment\n" +
		"file appendonly.aof.1.base.aof seq 1 type b newkey newvalue\n" +
		"FILE appendonly.aof.1.incr.aof SEQ 1 TYPE h\n" +
		"file appendonly.aof.1.incr.aof seq 1 type i\r\n" +
		"  file appendonly.aof.3.incr.aof seq 3 type i  \n" +
		"file \"my file.aof\" seq 5 type incr\n"
	m, err := ParseManifest("m", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if m.Base == nil || m.Base.Name != "appendonly.aof.1.base.aof" || m.BaseSeq != 1 {
		t.Errorf("base %+v", m.Base)
	}
	if len(m.History) != 1 || len(m.Incr) != 3 || m.IncrSeq != 5 || m.Incr[2].Name != "my file.aof" {
		t.Errorf("history %+v incr %+v seq %d", m.History, m.Incr, m.IncrSeq)
	}
}

func TestManifestFormatRoundTrip(t *testing.T) {
	m := &Manifest{}
	m.newBase("append only.aof", true)
	m.newIncr("append only.aof")
	m.newIncr("append only.aof")
	m.newBase("append only.aof", false)
	m.historyBefore(1)
	got := formatted(t, m)
	want := "file \"append only.aof.2.base.aof\" seq 2 type b\n" +
		"file \"append only.aof.1.incr.aof\" seq 1 type h\n" +
		"file \"append only.aof.1.base.rdb\" seq 1 type h\n" +
		"file \"append only.aof.2.incr.aof\" seq 2 type i\n"
	if got != want {
		t.Fatalf("Format:\n%s\nwant\n%s", got, want)
	}
	back, err := ParseManifest("m", []byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if s := formatted(t, back); s != got {
		t.Errorf("round trip changed it:\n%s", s)
	}
	plain := &Manifest{}
	plain.newIncr("appendonly.aof")
	if s := formatted(t, plain); s != "file appendonly.aof.1.incr.aof seq 1 type i\n" {
		t.Errorf("plain name quoted: %q", s)
	}
}

// formatted is m.Format's text, failing the test on an error.
func formatted(t *testing.T, m *Manifest) string {
	t.Helper()
	b, err := m.Format()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A name that parses (raw bytes inside quotes) but grows past Redis's
// line limit when quoted again is refused by Format and writeManifest
// rather than written as a manifest no start-up could read (the fuzzer's
// find).
func TestManifestTooLongToWriteIsRefused(t *testing.T) {
	line := "file \"" + strings.Repeat("\x1e", 900) + "\" seq 1 type b\n"
	m, err := ParseManifest("m", []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Format(); err == nil || !strings.Contains(err.Error(), "longer than the 1024 bytes") {
		t.Fatalf("Format: %v", err)
	}
	o := &Options{Dir: t.TempDir(), DirName: "d", FileName: "appendonly.aof"}
	if err := os.MkdirAll(o.dirPath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeManifest(o, m); err == nil {
		t.Fatal("writeManifest wrote a manifest Redis cannot read")
	}
	if _, err := os.Stat(o.path(ManifestName(o.FileName))); !os.IsNotExist(err) {
		t.Errorf("manifest written: %v", err)
	}
}
