package rdb

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestLZFCompressorReuse: one compressor over many inputs (as the Writer
// uses it) gives output that decompresses to each input, so table entries
// left by earlier inputs never produce a reference.
func TestLZFCompressorReuse(t *testing.T) {
	var c lzfCompressor
	r := rand.New(rand.NewPCG(1, 2))
	prev := []byte("shared prefix shared prefix shared prefix")
	for i := 0; i < 3000; i++ {
		in := append([]byte(nil), prev[:r.IntN(len(prev))]...)
		for n := r.IntN(400); n > 0; n-- {
			in = append(in, "abcab"[r.IntN(5)])
		}
		if i%500 == 0 {
			c.base = 1<<30 - 100 // exercise the wrap-around reset
		}
		out := c.compress(in, len(in)+64)
		if out == nil {
			continue
		}
		got, err := lzfDecompress(out, len(in))
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("input %d: round trip failed (%v)", i, err)
		}
		prev = in
	}
	if testing.AllocsPerRun(100, func() { c.compress(prev, len(prev)+64) }) != 0 {
		t.Error("a reused compressor allocates")
	}
}
