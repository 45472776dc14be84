package engine

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/tandemkv/tandem/internal/sampledata"
)

var codecs = []Codec{CodecS2, CodecZstd}

// newCompEngine is a test engine compressing values of 256 bytes and more
// with codec, kept when they save 20 %.
func newCompEngine(t testing.TB, codec Codec) (*Engine, DB) {
	t.Helper()
	e, _ := newTestEngine(t, 2)
	e.SetCompression(Compression{Codec: codec, MinSize: 256, MinSaving: 20})
	return e, e.DB(0)
}

// storedCodec returns the codec key's entry is stored with.
func storedCodec(t testing.TB, d DB, key string) Codec {
	t.Helper()
	s, h := d.shardOf(bs(key))
	s.mu.Lock()
	defer s.mu.Unlock()
	slot := s.lookup(bs(key), h)
	if slot < 0 {
		t.Fatalf("%s: no entry", key)
	}
	return s.entries[slot].codec()
}

// checkCompStats recomputes every shard's compression counters from its
// entries, then checks the shards' memory against the entries too.
func checkCompStats(t testing.TB, e *Engine) {
	t.Helper()
	for i := range e.shards {
		s := &e.shards[i]
		s.mu.Lock()
		var want compStats
		for slot := range s.entries {
			en := &s.entries[slot]
			if en.typ == TypeNone || en.codec() == CodecNone {
				continue
			}
			want.keys++
			want.plain += int64(s.plainSize(en))
			want.stored += int64(len(s.value(en)))
		}
		got := s.comp
		s.mu.Unlock()
		if got != want {
			t.Fatalf("shard %d: compression counters %+v, entries say %+v", i, got, want)
		}
	}
	checkInvariants(t, e)
}

func TestEntryStays20Bytes(t *testing.T) {
	if n := unsafe.Sizeof(entry{}); n != 20 {
		t.Fatalf("entry is %d bytes, want 20", n)
	}
	// The codec bits must not collide with any encoding.
	for _, enc := range []Encoding{EncRaw, EncEmbstr, EncInt, EncListpack, EncQuicklist, EncHashtable, EncIntset, EncSkiplist} {
		if enc&encCodecMask != 0 {
			t.Errorf("encoding %v uses the codec bits", enc)
		}
	}
}

// TestCompressReadPaths stores a JSON document compressed and reads it
// through every engine path that returns or uses a string value.
func TestCompressReadPaths(t *testing.T) {
	for _, codec := range codecs {
		t.Run(codec.String(), func(t *testing.T) {
			e, d := newCompEngine(t, codec)
			doc := sampledata.Make(sampledata.JSON, 5000, 1)
			mustSet(t, d, "k", string(doc), SetOptions{Flags: 0xdeadbeef})
			if c := storedCodec(t, d, "k"); c != codec {
				t.Fatalf("stored with %v, want %v", c, codec)
			}
			it, ok, err := d.Get(bs("k"))
			if !ok || err != nil || !bytes.Equal(it.Value, doc) || it.Encoding != EncRaw || it.Flags != 0xdeadbeef {
				t.Fatalf("Get: ok=%v err=%v enc=%v flags=%x equal=%v", ok, err, it.Encoding, it.Flags, bytes.Equal(it.Value, doc))
			}
			it.Release()
			if it.Value != nil {
				t.Error("Release kept Value")
			}
			if n, err := d.StrLen(bs("k")); n != len(doc) || err != nil {
				t.Errorf("StrLen = %d, %v", n, err)
			}
			info, _ := d.Info(bs("k"))
			if info.Encoding != EncRaw || info.Value != nil || info.Flags != 0xdeadbeef {
				t.Errorf("Info: %v %q %x", info.Encoding, info.Value, info.Flags)
			}
			if got, _, _ := d.GetEx(bs("k"), ExpireChange{Mode: TTLKeep}, false); !bytes.Equal(got.Value, doc) {
				t.Error("GetEx")
			}
			d.MGet([][]byte{bs("k"), bs("nope"), bs("k")}, func(i int, it Item, ok bool) {
				if ok != (i != 1) || (ok && !bytes.Equal(it.Value, doc)) {
					t.Errorf("MGet %d", i)
				}
				it.Release()
			})
			res, _ := d.Set(bs("k"), doc, SetOptions{GetOld: true})
			if !bytes.Equal(res.Old.Value, doc) {
				t.Error("SET GET old value")
			}
			// Read-modify-write paths see plain bytes.
			if _, err := d.Append(bs("k"), bs("TAIL"), AppendOptions{}, 0); err != nil {
				t.Fatal(err)
			}
			want := append(append([]byte(nil), doc...), "TAIL"...)
			if got := getString(t, d, "k"); got != string(want) {
				t.Fatal("APPEND")
			}
			if _, err := d.Append(bs("k"), bs("HEAD"), AppendOptions{Prepend: true}, 0); err != nil {
				t.Fatal(err)
			}
			want = append([]byte("HEAD"), want...)
			if _, err := d.Append(bs("k"), bs("x"), AppendOptions{}, int64(len(want))); err != ErrTooLarge {
				t.Errorf("APPEND over the limit: %v (the plain length counts)", err)
			}
			if n, err := d.SetRange(bs("k"), 100, bs("XYZ"), 0); err != nil || n != len(want) {
				t.Fatalf("SETRANGE = %d, %v", n, err)
			}
			copy(want[100:], "XYZ")
			if got := getString(t, d, "k"); got != string(want) {
				t.Fatal("SETRANGE")
			}
			if c := storedCodec(t, d, "k"); c != codec {
				t.Errorf("APPEND/SETRANGE result stored with %v", c)
			}
			if _, err := d.IncrBy(bs("k"), 1); err != ErrNotInteger {
				t.Errorf("INCR: %v", err)
			}
			if _, err := d.IncrUnsigned(bs("k"), 1, false, 0); err != ErrNotInteger {
				t.Errorf("memcached incr: %v", err)
			}
			// Bits: SETBIT reads the plain bytes and stores them plain.
			old, _, err := d.SetBit(bs("k"), 8*200+1, 1)
			if err != nil || old != GetBit(want, 8*200+1) {
				t.Fatalf("SETBIT old %d, %v", old, err)
			}
			want[200] |= 0x40
			if got := getString(t, d, "k"); got != string(want) {
				t.Fatal("SETBIT")
			}
			if c := storedCodec(t, d, "k"); c != CodecNone {
				t.Errorf("SETBIT stored with %v", c)
			}
			mustSet(t, d, "k", string(want), SetOptions{})
			mustSet(t, d, "k2", string(want), SetOptions{})
			if _, err := d.BitOp(BitXor, bs("x"), [][]byte{bs("k"), bs("k2")}); err != nil {
				t.Fatal(err)
			}
			if got := getString(t, d, "x"); got != string(make([]byte, len(want))) {
				t.Error("BITOP of compressed sources")
			}
			res2, _, err := d.BitField(bs("k"), []BitFieldOp{{Kind: BitFieldGet, Bits: 8, Offset: 8 * 50}}, nil)
			if err != nil || len(res2) != 1 || res2[0].Value != int64(want[50]) {
				t.Errorf("BITFIELD GET = %v, %v (want %d)", res2, err, want[50])
			}
			// SORT ... BY/GET reads string keys.
			if v, ok := d.lookupForSort("k"); !ok || !bytes.Equal(v, want) {
				t.Error("SORT GET pattern lookup")
			}
			// COPY, RENAME and MOVE keep the compressed form.
			if ok, err := d.Copy(bs("k"), d, bs("c"), false); !ok || err != nil {
				t.Fatal("COPY", err)
			}
			if ok, err := d.Rename(bs("c"), bs("r"), false); !ok || err != nil {
				t.Fatal("RENAME", err)
			}
			if ok, err := d.Move(bs("r"), e.DB(1)); !ok || err != nil {
				t.Fatal("MOVE", err)
			}
			if storedCodec(t, e.DB(1), "r") != codec || getString(t, e.DB(1), "r") != string(want) {
				t.Error("COPY+RENAME+MOVE")
			}
			checkCompStats(t, e)
			st := e.CompressionStats()
			if st.Keys != 3 || st.PlainBytes != 3*int64(len(want)) || 4*st.StoredBytes >= 3*st.PlainBytes {
				t.Errorf("stats %+v", st)
			}
			// GETDEL, DEL, FLUSH, SWAPDB keep the counters right.
			if it, ok, _ := d.GetEx(bs("k"), ExpireChange{}, true); !ok || !bytes.Equal(it.Value, want) {
				t.Error("GETDEL")
			}
			checkCompStats(t, e)
			e.SwapDB(0, 1, nil)
			checkCompStats(t, e)
			d.Delete(bs("r"))
			e.DB(1).Flush()
			checkCompStats(t, e)
			if st := e.CompressionStats(); st != (CompressionStats{}) {
				t.Errorf("stats after deleting all: %+v", st)
			}
		})
	}
}

// lookupForSort runs SORT's BY/GET lookup of key (pattern "*").
func (d DB) lookupForSort(key string) ([]byte, bool) {
	ls := d.e.newLockSet()
	i, _ := d.locate(bs(key))
	ls.add(i)
	ls.lock()
	defer ls.unlock()
	return d.sortLookup(bs("*"), bs(key), d.e.clock.NowMs())
}

// TestCompressWhatIsStored checks the rules choosing the stored form.
func TestCompressWhatIsStored(t *testing.T) {
	for _, codec := range codecs {
		t.Run(codec.String(), func(t *testing.T) {
			e, d := newCompEngine(t, codec)
			cases := []struct {
				name  string
				value []byte
				want  Codec
			}{
				{"json", sampledata.Make(sampledata.JSON, 4000, 2), codec},
				{"html", sampledata.Make(sampledata.HTML, 64<<10, 2), codec},
				{"below min-size", bytes.Repeat([]byte("a"), 255), CodecNone},
				{"at min-size", bytes.Repeat([]byte("a"), 256), codec},
				{"random", sampledata.Make(sampledata.Random, 4000, 2), CodecNone},
				{"random, sampled", sampledata.Make(sampledata.Random, 64<<10, 2), CodecNone},
				{"gzip", sampledata.Make(sampledata.Gzip, 32<<10, 2), CodecNone},
			}
			for _, c := range cases {
				mustSet(t, d, c.name, string(c.value), SetOptions{})
				if got := storedCodec(t, d, c.name); got != c.want {
					t.Errorf("%s: stored with %v, want %v", c.name, got, c.want)
				}
				if getString(t, d, c.name) != string(c.value) {
					t.Errorf("%s: value changed", c.name)
				}
			}
			// Integers never are, whatever the minimum size.
			e.SetCompression(Compression{Codec: codec, MinSize: 0, MinSaving: 0})
			mustSet(t, d, "int", "1111111111111111111", SetOptions{})
			if storedCodec(t, d, "int") != CodecNone {
				t.Error("integer compressed")
			}
			// A saving short of min-saving keeps the value plain: a JSON
			// document saves less than 90 %.
			e.SetCompression(Compression{Codec: codec, MinSize: 0, MinSaving: 90})
			mustSet(t, d, "json90", string(cases[0].value), SetOptions{})
			if storedCodec(t, d, "json90") != CodecNone {
				t.Error("kept a compressed form saving less than min-saving")
			}
			checkCompStats(t, e)
		})
	}
}

// TestCompressConfigChange: values stored under one setting stay readable
// under any other; a change applies to new writes only.
func TestCompressConfigChange(t *testing.T) {
	e, d := newCompEngine(t, CodecS2)
	doc := sampledata.Make(sampledata.JSON, 3000, 3)
	mustSet(t, d, "s2", string(doc), SetOptions{})
	e.SetCompression(Compression{Codec: CodecZstd, MinSize: 256, MinSaving: 20})
	mustSet(t, d, "zstd", string(doc), SetOptions{})
	e.SetCompression(Compression{})
	mustSet(t, d, "none", string(doc), SetOptions{})
	for key, want := range map[string]Codec{"s2": CodecS2, "zstd": CodecZstd, "none": CodecNone} {
		if got := storedCodec(t, d, key); got != want {
			t.Errorf("%s stored with %v", key, got)
		}
		if getString(t, d, key) != string(doc) {
			t.Errorf("%s unreadable", key)
		}
		if n, _ := d.StrLen(bs(key)); n != len(doc) {
			t.Errorf("%s: STRLEN %d", key, n)
		}
	}
	if got := e.Compression(); got != (Compression{}) {
		t.Errorf("Compression() = %+v after turning it off", got)
	}
	checkCompStats(t, e)
}

// TestCompressMemory: used_memory and MemoryUsage count the compressed
// bytes, the real footprint.
func TestCompressMemory(t *testing.T) {
	for _, codec := range codecs {
		plain, _ := newTestEngine(t, 2)
		comp, _ := newCompEngine(t, codec)
		for i := 0; i < 100; i++ {
			v := sampledata.Make(sampledata.JSON, 8<<10, uint64(i))
			mustSet(t, plain.DB(0), fmt.Sprint(i), string(v), SetOptions{})
			mustSet(t, comp.DB(0), fmt.Sprint(i), string(v), SetOptions{})
		}
		if p, c := plain.UsedMemory(), comp.UsedMemory(); 4*c > 3*p {
			t.Errorf("%v: used memory %d compressed vs %d plain", codec, c, p)
		}
		pu, _ := plain.DB(0).MemoryUsage(bs("7"))
		cu, ok := comp.DB(0).MemoryUsage(bs("7"))
		if !ok || 4*cu > 3*pu || pu < 8<<10 {
			t.Errorf("%v: MemoryUsage %d compressed vs %d plain", codec, cu, pu)
		}
	}
}

// TestCompressConcurrentReads reads compressed values from many goroutines
// with Release, so pooled buffers are reused under the race detector.
func TestCompressConcurrentReads(t *testing.T) {
	e, d := newCompEngine(t, CodecZstd)
	vals := make([][]byte, 16)
	for i := range vals {
		vals[i] = sampledata.Make(sampledata.HTML, 1000+i*500, uint64(i))
		mustSet(t, d, fmt.Sprint(i), string(vals[i]), SetOptions{})
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				i := (g + n) % len(vals)
				it, ok, _ := d.Get(bs(fmt.Sprint(i)))
				if !ok || !bytes.Equal(it.Value, vals[i]) {
					t.Errorf("key %d: wrong value", i)
					return
				}
				it.Release()
				if n%50 == 0 {
					mustSet(t, d, fmt.Sprint(i), string(vals[i]), SetOptions{})
				}
			}
		}(g)
	}
	wg.Wait()
	checkCompStats(t, e)
}

// FuzzDecodeValue feeds arbitrary stored bytes to the decompressing
// accessor's decoder: it must refuse them or decode to the declared
// length, never panic nor decode past its limit.
func FuzzDecodeValue(f *testing.F) {
	doc := sampledata.Make(sampledata.JSON, 2000, 1)
	for _, c := range codecs {
		cc := &compressConf{Compression: Compression{Codec: c}}
		v, _, _ := cc.pack(doc, EncRaw)
		f.Add(append([]byte(nil), v...), byte(c))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0}, byte(CodecS2))
	f.Add([]byte{5, 0x28, 0xb5, 0x2f, 0xfd}, byte(CodecZstd))
	f.Fuzz(func(t *testing.T, data []byte, c byte) {
		out, err := decodeValue(nil, data, Codec(c%3), 1<<20)
		if err == nil {
			n, _, _ := plainLen(data)
			if len(out) != n || n > 1<<20 {
				t.Fatalf("decoded %d bytes, header says %d", len(out), n)
			}
		}
	})
}

// FuzzCompressRoundTrip compresses arbitrary values as a write does and
// reads them back through decodeValue.
func FuzzCompressRoundTrip(f *testing.F) {
	f.Add(sampledata.Make(sampledata.HTML, 3000, 1), byte(CodecS2))
	f.Add(sampledata.Make(sampledata.Random, 100, 1), byte(CodecZstd))
	f.Fuzz(func(t *testing.T, data []byte, c byte) {
		codec := Codec(1 + c%2)
		cc := &compressConf{Compression: Compression{Codec: codec}}
		v, enc, scratch := cc.pack(data, EncRaw)
		defer putScratch(scratch)
		if Codec(enc>>encCodecShift) == CodecNone {
			if !bytes.Equal(v, data) || enc != EncRaw || scratch != nil {
				t.Fatal("plain value changed")
			}
			return
		}
		if Codec(enc>>encCodecShift) != codec || len(v) >= len(data) {
			t.Fatalf("stored with %v in %d bytes for %d", Codec(enc>>encCodecShift), len(v), len(data))
		}
		back, err := decodeValue(nil, v, codec, len(data))
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
