package rdb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

// Payloads of FUNCTION DUMP read from redis-server 7.0.15.
const (
	goldenLib = "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)"
	// rdbcompression yes: the source LZF-compressed.
	goldenLibLZF = "f5c34056405b1f23216c7561206e616d653d6d796c69620a72656469732e72656769737465725f0b66756e6374696f6e28276d79400b02272c2040066012116b6579732c2061726773292072657475726e600c075b315d20656e64290a008d5936adc6e707da"
	goldenLibRaw = "f5405b23216c7561206e616d653d6d796c69620a72656469732e72656769737465725f66756e6374696f6e28276d7966756e63272c2066756e6374696f6e286b6579732c2061726773292072657475726e20617267735b315d20656e64290a008e999fad1198c73a"
	goldenNone   = "0a005d9b5c400f7fa2da"
)

func TestFunctionsDumpGolden(t *testing.T) {
	for _, tc := range []struct {
		codes    [][]byte
		compress bool
		golden   string
	}{
		{[][]byte{[]byte(goldenLib)}, true, goldenLibLZF},
		{[][]byte{[]byte(goldenLib)}, false, goldenLibRaw},
		{nil, true, goldenNone},
	} {
		got := AppendFunctionsDump(nil, tc.codes, DumpOptions{Compress: tc.compress})
		if hex.EncodeToString(got) != tc.golden {
			t.Errorf("compress %v: %x\nwant %s", tc.compress, got, tc.golden)
		}
		p, _ := hex.DecodeString(tc.golden)
		codes, err := DecodeFunctionsDump(p)
		if err != nil || len(codes) != len(tc.codes) || (len(codes) == 1 && !bytes.Equal(codes[0], tc.codes[0])) {
			t.Errorf("decoding %s: %q, %v", tc.golden, codes, err)
		}
	}
}

func TestFunctionsDumpErrors(t *testing.T) {
	frame := func(body []byte) []byte {
		p := append(append([]byte(nil), body...), byte(DumpVersion), 0)
		var crc [8]byte
		v := CRC64(p)
		for i := range crc {
			crc[i] = byte(v >> (8 * i))
		}
		return append(p, crc[:]...)
	}
	good := AppendFunctionsDump(nil, [][]byte{[]byte("#!lua name=a\nx")}, DumpOptions{})
	bad := append([]byte(nil), good...)
	bad[len(bad)-1] ^= 1
	for _, p := range [][]byte{nil, good[:9], bad} {
		if _, err := DecodeFunctionsDump(p); err != ErrDumpFooter {
			t.Errorf("%x: %v, want ErrDumpFooter", p, err)
		}
	}
	var fe *FunctionsDumpError
	for body, want := range map[string]string{
		"\x00\x01v": "given type is not a function",
		"\xf5\x40":  "Failed loading library payload",
		"\xf6\x01a": "Failed loading engine name",
	} {
		_, err := DecodeFunctionsDump(frame([]byte(body)))
		if !errors.As(err, &fe) || fe.Msg != want {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
	// A record may run into the footer, as in Redis: its bytes are read.
	if codes, err := DecodeFunctionsDump(frame([]byte("\xf5\x05ab"))); err != nil || len(codes) != 1 || string(codes[0][:3]) != "ab\x0a" {
		t.Errorf("a source running into the footer: %q, %v", codes, err)
	}
	// Redis 7.0 release candidates' format: name, engine, description, code.
	codes, err := DecodeFunctionsDump(frame([]byte("\xf6\x01a\x03LUA\x01\x04desc\x04code")))
	if err != nil || len(codes) != 1 || string(codes[0]) != "#!LUA name=a\ncode" {
		t.Errorf("the old format: %q, %v", codes, err)
	}
}

// FuzzDecodeFunctionsDump: any payload decodes or is refused with one of
// the two errors, without panicking; what decodes re-encodes to sources
// that decode the same.
func FuzzDecodeFunctionsDump(f *testing.F) {
	for _, g := range []string{goldenLibLZF, goldenLibRaw, goldenNone} {
		p, _ := hex.DecodeString(g)
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		codes, err := DecodeFunctionsDump(p)
		var fe *FunctionsDumpError
		if err != nil {
			if err != ErrDumpFooter && !errors.As(err, &fe) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		for _, compress := range []bool{false, true} {
			again, err := DecodeFunctionsDump(AppendFunctionsDump(nil, codes, DumpOptions{Compress: compress}))
			if err != nil || len(again) != len(codes) {
				t.Fatalf("re-encoded: %q, %v", again, err)
			}
			for i := range codes {
				if !bytes.Equal(again[i], codes[i]) {
					t.Fatalf("source %d: %q, want %q", i, again[i], codes[i])
				}
			}
		}
	})
}
