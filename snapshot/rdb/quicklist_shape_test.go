package rdb

import (
	"bytes"
	"testing"
)

// TestPackedThreshold: elements from the threshold on are plain nodes in
// the payload and in QuicklistShape, which counts each packed node's
// listpack and each plain node's element (a one-byte string is 3 bytes
// of listpack: header, byte, backlen).
func TestPackedThreshold(t *testing.T) {
	elems := [][]byte{[]byte("a"), bytes.Repeat([]byte("x"), 10), []byte("b"), []byte("c")}
	nodes, size := QuicklistShape(elems, DumpOptions{ListFill: -2})
	if want := lpEmpty + 3 + 12 + 3 + 3; nodes != 1 || size != want {
		t.Errorf("default threshold: %d nodes, %d bytes, want 1 and %d", nodes, size, want)
	}
	o := DumpOptions{ListFill: -2, PackedThreshold: 5}
	nodes, size = QuicklistShape(elems, o)
	if want := (lpEmpty + 3) + 10 + (lpEmpty + 6); nodes != 3 || size != want {
		t.Errorf("threshold 5: %d nodes, %d bytes, want 3 and %d", nodes, size, want)
	}
	p, err := AppendDump(nil, &Value{Type: List, Elems: elems}, o)
	if err != nil {
		t.Fatal(err)
	}
	// type, node count 3, then packed, plain with the element as is, packed.
	if p[0] != rtListQuicklist2 || p[1] != 3 || p[2] != qlPacked || !bytes.Contains(p, append([]byte{qlPlain, 10}, elems[1]...)) {
		t.Errorf("payload %q", p)
	}
	back, err := DecodeDump(p)
	if err != nil || len(back.Elems) != 4 || !bytes.Equal(back.Elems[1], elems[1]) {
		t.Errorf("decoded %+v, %v", back, err)
	}
}
