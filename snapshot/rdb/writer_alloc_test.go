package rdb

import (
	"io"
	"testing"
)

func TestWriterStringAllocs(t *testing.T) {
	w, _ := NewWriter(io.Discard, WriterOptions{Compress: true, Checksum: true})
	key, val := []byte("key:123456"), make([]byte, 100)
	m := NewMeta()
	m.MCCAS = 123456789
	if n := testing.AllocsPerRun(1000, func() { w.String(key, val, m) }); n != 0 {
		t.Errorf("Writer.String allocates %v times per key", n)
	}
}
