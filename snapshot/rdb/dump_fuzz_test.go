package rdb

import (
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzDecodeDump: no payload makes DecodeDump panic or fail with anything
// but ErrDumpFooter or an *Error matching ErrDumpData; a payload it
// accepts holds a value that encodes again and decodes to itself. Bodies
// are fuzzed with a valid footer added (seal), or taken as they are.
func FuzzDecodeDump(f *testing.F) {
	for _, g := range loadDumpGoldens(f) {
		p := g.payload(f)
		if len(p) < 2000 {
			f.Add(p[:len(p)-dumpFooter], true)
		}
	}
	f.Add([]byte{rtString, 0xC3, 3, 5, 1, 'a', 'b', 0xE0}, true)
	f.Add([]byte{rtZSet, 1, 1, 'm', 3, '1', '.', '5'}, true)
	f.Add([]byte{rtListQuicklist2, 1, qlPlain, 1, 'x'}, false)
	f.Fuzz(func(t *testing.T, body []byte, seal bool) {
		p := body
		if seal {
			p = binary.LittleEndian.AppendUint16(append([]byte(nil), body...), DumpVersion)
			p = binary.LittleEndian.AppendUint64(p, CRC64(p))
		}
		v, err := DecodeDump(p)
		if err != nil {
			var e *Error
			if err != ErrDumpFooter && (!errors.Is(err, ErrDumpData) || !errors.As(err, &e)) {
				t.Fatalf("unexpected error %T %v", err, err)
			}
			return
		}
		// Encode again in the payload's encoding when the members allow
		// it (an intset's width is the narrowest), else the plain one.
		again, err := AppendDump(nil, v, DumpOptions{Compress: true, ListFill: -2})
		if err != nil {
			v.Encoding = EncodingDefault
			if again, err = AppendDump(nil, v, DumpOptions{Compress: true, ListFill: -2}); err != nil {
				t.Fatalf("a decoded value does not encode: %v (%+v)", err, v)
			}
		}
		back, err := DecodeDump(again)
		if err != nil {
			t.Fatalf("our payload does not decode: %v", err)
		}
		sortMembers(v.Members)
		sortMembers(back.Members)
		back.Encoding = v.Encoding
		if v.Encoding != EncodingIntset {
			v.IntsetWidth, back.IntsetWidth = 0, 0
		} else if back.IntsetWidth != v.IntsetWidth {
			// An intset encoded again takes the width the payload said,
			// or the narrowest when the encoding fell back to plain.
			back.IntsetWidth = v.IntsetWidth
		}
		if v.Type == List || v.Encoding == EncodingDefault && v.Type != String {
			back.Encoding = v.Encoding
		}
		if !valuesEqual(back, v) {
			t.Fatalf("round trip changed the value:\n%+v\n%+v", v, back)
		}
	})
}
