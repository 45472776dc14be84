package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// smallFiles are the corruption tests' inputs: a real redis-server dump, the
// hand-built v9 file and a Writer file.
func smallFiles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range []string{"redis7-small.rdb", "v9-handmade.rdb"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, WriterOptions{Compress: true, Checksum: true, CTime: 1})
	w.SelectDB(0, 4, 1)
	w.String([]byte("s"), []byte(strings.Repeat("abc", 20)), Meta{ExpireAtMs: 4102444800000, Idle: 3, Freq: -1, MCFlags: 5, MCCAS: 6})
	w.List([]byte("l"), [][]byte{[]byte("1"), []byte("x")}, NewMeta())
	w.Set([]byte("st"), [][]byte{[]byte("a")}, NewMeta())
	w.Hash([]byte("h"), [][]byte{[]byte("f")}, [][]byte{[]byte("v")}, NewMeta())
	w.ZSet([]byte("z"), []Member{{Member: []byte("m"), Score: 2}}, NewMeta())
	w.Function([]byte("#!lua name=x\n"))
	w.Close()
	out["writer"] = buf.Bytes()
	return out
}

// readToEnd reads every record, failing the test on a panic or a non-*Error
// error; it returns the error (nil for a clean io.EOF).
func readToEnd(t *testing.T, b []byte) error {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b))
	if err == nil {
		for i := 0; ; i++ {
			if i > len(b) {
				t.Fatalf("more records than bytes: a loop")
			}
			_, err = r.Next()
			if err != nil {
				break
			}
		}
		if err == io.EOF {
			if _, again := r.Next(); again != io.EOF {
				t.Fatalf("Next after EOF: %v", again)
			}
			return nil
		}
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error is %T %v, want *Error", err, err)
	}
	if e.Offset < 0 || e.Offset > int64(len(b)) {
		t.Fatalf("error offset %d outside a %d-byte file: %v", e.Offset, len(b), e)
	}
	if !strings.Contains(e.Error(), "offset") {
		t.Fatalf("error text does not name the offset: %v", e)
	}
	return err
}

func TestTruncatedEverywhere(t *testing.T) {
	for name, b := range smallFiles(t) {
		if err := readToEnd(t, b); err != nil {
			t.Fatalf("%s: whole file: %v", name, err)
		}
		for n := 0; n < len(b); n++ {
			err := readToEnd(t, b[:n])
			if err == nil {
				t.Fatalf("%s: prefix of %d/%d bytes read cleanly", name, n, len(b))
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: prefix %d: error is %T %v, want *Error", name, n, err, err)
			}
			if n > 9 && e.Offset > int64(n) {
				t.Fatalf("%s: prefix %d: offset %d past the end", name, n, e.Offset)
			}
		}
	}
}

func TestFlippedBytes(t *testing.T) {
	for name, b := range smallFiles(t) {
		for i := range b {
			for _, x := range []byte{0x01, 0x80, 0xFF} {
				c := append([]byte(nil), b...)
				c[i] ^= x
				err := readToEnd(t, c)
				// The checksum covers everything: any change is caught,
				// unless it zeroes the stored checksum itself.
				stored := binary.LittleEndian.Uint64(c[len(c)-8:])
				if err == nil && !(i >= len(c)-8 && stored == 0) {
					t.Fatalf("%s: byte %d ^ %#x not detected", name, i, x)
				}
			}
		}
	}
}

func TestChecksum(t *testing.T) {
	b := smallFiles(t)["writer"]
	c := append([]byte(nil), b...)
	c[len(c)-1] ^= 1
	err := readToEnd(t, c)
	if err == nil || !strings.Contains(err.Error(), "RDB CRC error: checksum mismatch: file says") || !strings.Contains(err.Error(), "computed") {
		t.Fatalf("bad checksum: %v", err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("bad checksum: error is %T %v, want *Error", err, err)
	}
	if e.Offset != int64(len(c)-8) {
		t.Fatalf("checksum error at %d, want %d", e.Offset, len(c)-8)
	}
	// A zero checksum means "not checked", even with a changed payload.
	z := append([]byte(nil), b...)
	copy(z[len(z)-8:], make([]byte, 8))
	if err := readToEnd(t, z); err != nil {
		t.Fatalf("zero checksum: %v", err)
	}
	// Versions before 5 have no checksum at all.
	old := newRaw(4).op(rtString).str("k").str("v").finish(4, false)
	if err := readToEnd(t, old); err != nil {
		t.Fatalf("v4: %v", err)
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct {
		name        string
		file        []byte
		unsupported bool
		want        string
	}{
		{"magic", []byte("REDIX0010\xff"), false, "bad magic"},
		{"version text", []byte("REDIS00a0\xff"), false, "bad version"},
		{"version 0", []byte("REDIS0000\xff"), false, "bad RDB version 0"},
		{"version 11", []byte("REDIS0011\xff"), true, "RDB version 11 is newer"},
		{"stream 7.2", newRaw(10).op(rtStreamListpack3).str("mystream").str("x").finish(10, true), true, `key "mystream" is a Redis 7.2 stream (type 21`},
		{"stream cut short", newRaw(10).op(rtStreamListpack2).str("mystream").str("x").finish(10, true), false, `stream`},
		{"module", newRaw(10).op(rtModule2).str("mod").finish(10, true), true, `key "mod" has a module value (type 7`},
		{"module aux", newRaw(10).op(opModuleAux).finish(10, true), true, "module AUX"},
		{"function rc", newRaw(10).op(opFunction).finish(10, true), true, "FUNCTION opcode (246)"},
		{"unknown type", newRaw(10).op(8).str("k").finish(10, true), false, "unknown opcode or value type 8"},
		{"unknown opcode", newRaw(10).op(200).finish(10, true), false, "unknown opcode or value type 200"},
		{"qlnode", newRaw(10).op(rtListQuicklist2).str("q").length(1).length(3).str("x").finish(10, true), false, "unknown quicklist node container 3"},
		{"nan", newRaw(10).op(rtZSet).str("z").length(1).str("m").op(253).finish(10, true), false, "NaN score"},
		{"bad score", newRaw(10).op(rtZSet).str("z").length(1).str("m").op(2, 'x', 'y').finish(10, true), false, "bad score"},
		{"odd hash", newRaw(10).op(rtHashListpack).str("h").str(string(listpack("a"))).finish(10, true), false, "odd number"},
		{"bad mc", newRaw(10).op(opAux).str(auxMC).str("x y").finish(10, true), false, "malformed tandem-mc"},
		{"lzf", newRaw(10).op(rtString).str("k").op(0xC3, 2, 10, 0, 'a').finish(10, true), false, "invalid LZF"},
		{"lzf ratio", newRaw(10).op(rtString).str("k").op(0xC3, 1, 0x80, 0x7F, 0xFF, 0xFF, 0xFF, 0).finish(10, true), false, "cannot expand"},
		{"enc 5", newRaw(10).op(rtString).str("k").op(0xC5).finish(10, true), false, "unknown string encoding 5"},
		{"bad listpack", newRaw(10).op(rtListQuicklist2).str("q").length(1).length(2).str("xxxxxxx").finish(10, true), false, "bad listpack"},
		{"bad ziplist", newRaw(10).op(rtListZiplist).str("q").str("xxxxxxxxxxxxx").finish(10, true), false, "bad ziplist"},
		{"bad intset", newRaw(10).op(rtSetIntset).str("q").str("xxxxxxxxxxxxx").finish(10, true), false, "bad intset"},
		{"bad zipmap", newRaw(10).op(rtHashZipmap).str("q").str("xxxxxxxxxxxxx").finish(10, true), false, "bad zipmap"},
		{"huge string", append(newRaw(10).op(rtString).str("k").op(0x81, 0x7F, 0, 0, 0, 0, 0, 0, 0).Bytes(), "abc"...), false, "truncated"},
		{"huge list", append(newRaw(10).op(rtList).str("k").op(0x81, 0x7F, 0, 0, 0, 0, 0, 0, 0).Bytes(), 1, 'a'), false, "truncated"},
	} {
		err := readToEnd(t, c.file)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not contain %q", c.name, err, c.want)
		}
		if errors.Is(err, ErrUnsupported) != c.unsupported {
			t.Errorf("%s: errors.Is(ErrUnsupported) = %v", c.name, !c.unsupported)
		}
	}
}

// TestMetaAttachment: opcodes apply to the next key only, in any order, and
// AUX fields between them do not disturb them.
func TestMetaAttachment(t *testing.T) {
	f := newRaw(10)
	f.op(opFreq, 7).op(opAux).str(auxMC).str("9 10").op(opAux).str("other").str("x").Write(expireMsOp(-1))
	f.op(rtString).str("a").str("1")
	f.op(rtString).str("b").str("2")
	f.op(opAux).str(auxMC).str("1 2") // dangling: dropped at EOF
	recs, err := readAll(f.finish(10, true))
	if err != nil {
		t.Fatal(err)
	}
	var keys []*Record
	for _, r := range recs {
		if r.Kind == KindKey {
			keys = append(keys, r)
		}
	}
	if len(keys) != 2 || keys[0].Meta != (Meta{Idle: -1, Freq: 7, MCFlags: 9, MCCAS: 10}) || keys[1].Meta != NewMeta() {
		t.Fatalf("metas: %+v / %+v", keys[0].Meta, keys[1].Meta)
	}
	if len(recs) != 3 || string(recs[0].AuxKey) != "other" {
		t.Fatalf("records: %d", len(recs))
	}
}
