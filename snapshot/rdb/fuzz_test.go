package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	for _, name := range []string{"redis7-small.rdb", "v9-handmade.rdb"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, WriterOptions{Compress: true, Checksum: true, CTime: 1})
	w.SelectDB(2, 1, 1)
	w.String([]byte("k"), bytes.Repeat([]byte("ab"), 30), Meta{ExpireAtMs: 5, Idle: 1, Freq: 2, MCFlags: 3, MCCAS: 4})
	w.ZSet([]byte("z"), []Member{{Member: []byte("m"), Score: 1.5}}, NewMeta())
	w.Close()
	f.Add(buf.Bytes())
	f.Add(newRaw(10).op(rtListQuicklist2).str("q").length(2).length(2).str(string(listpack("a", int64(5), int64(-300)))).
		length(1).str("plain").finish(10, false))
	f.Add(newRaw(9).op(rtListQuicklist).str("q").length(1).str(string(ziplist("a", int64(500)))).
		op(rtHashZipmap).str("h").str(string(zipmap(1, "a", "b"))).
		op(rtSetIntset).str("i").str(string(intset(2, 1, 2))).finish(9, false))
}

// FuzzReader: no input makes the Reader panic, loop, or fail with anything
// but *Error; a clean read ends in io.EOF.
func FuzzReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err == nil {
			for i := 0; ; i++ {
				if i > len(data) {
					t.Fatal("more records than input bytes")
				}
				var rec *Record
				rec, err = r.Next()
				if err != nil {
					break
				}
				if rec == nil || rec.Kind < KindKey || rec.Kind > KindResizeDB {
					t.Fatalf("bad record %+v", rec)
				}
				if rec.Kind == KindKey && (rec.Type < String || rec.Type > StreamType) {
					t.Fatalf("bad type %v", rec.Type)
				}
			}
			if err == io.EOF {
				return
			}
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %T %v", err, err)
		}
	})
}

// FuzzBlobs drives the compact-format decoders and LZF directly.
func FuzzBlobs(f *testing.F) {
	f.Add(listpack("a", int64(1), int64(-5000), int64(1<<40)), uint16(0))
	f.Add(ziplist("a", int64(1), int64(-5000), int64(1<<40)), uint16(0))
	f.Add(intset(4, 1, 2, 3), uint16(0))
	f.Add(zipmap(2, "k", "v"), uint16(0))
	f.Add(lzfCompress(bytes.Repeat([]byte("xyz"), 50), 200), uint16(150))
	f.Fuzz(func(t *testing.T, b []byte, n uint16) {
		decodeListpack(b)
		decodeZiplist(b)
		decodeIntset(b)
		decodeZipmap(b)
		if out, err := lzfDecompress(b, int(n)); err == nil && len(out) != int(n) {
			t.Fatalf("LZF gave %d bytes, want %d", len(out), n)
		}
		if c := lzfCompress(b, len(b)+len(b)/16+64); c != nil {
			out, err := lzfDecompress(c, len(b))
			if err != nil || !bytes.Equal(out, b) {
				t.Fatalf("LZF round trip: %v", err)
			}
		}
	})
}

// TestHugeLengthsAllocateLittle: lengths and counts claiming gigabytes or
// more fail at the end of input without being allocated up front.
func TestHugeLengthsAllocateLittle(t *testing.T) {
	huge := func(b ...byte) []byte { return append([]byte{0x81}, binary.BigEndian.AppendUint64(nil, 1<<62)...) }
	for name, file := range map[string][]byte{
		"string": append(newRaw(10).op(rtString).str("k").Bytes(), huge()...),
		"list":   append(append(newRaw(10).op(rtList).str("k").Bytes(), huge()...), 1, 'a'),
		"zset":   append(newRaw(10).op(rtZSet2).str("k").Bytes(), huge()...),
		"nodes":  append(newRaw(10).op(rtListQuicklist2).str("k").Bytes(), huge()...),
		"lzf":    append(append(newRaw(10).op(rtString).str("k").op(0xC3).Bytes(), huge()...), huge()...),
		"aux":    append(newRaw(10).op(opAux).Bytes(), 0x80, 0xFF, 0xFF, 0xFF, 0xFF),
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := readToEnd(t, file)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 4<<20 {
			t.Errorf("%s: allocated %d bytes", name, d)
		}
	}
}
