package memproto

import (
	"strings"
	"testing"
)

// Hot-path benchmarks through Serve, as server/ drives it. Run with
// -benchmem: get allocates nothing; set allocates only what the engine
// stores (one key+value block, plus map growth while new keys arrive).

func benchServe(b *testing.B, setup, req string) {
	env := newBareEnv(b)
	c := env.client()
	if setup != "" {
		c.send(setup)
	}
	in := []byte(req)
	out := make([]byte, 0, 4096)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n, o, _ := c.s.Serve(in, out[:0])
		if n != len(in) || len(o) == 0 {
			b.Fatalf("consumed %d, reply %q", n, o)
		}
		out = o
	}
}

func BenchmarkGet(b *testing.B) {
	benchServe(b, "set key:000001 0 0 32\r\n"+strings.Repeat("v", 32)+"\r\n", "get key:000001\r\n")
}

func BenchmarkGetMiss(b *testing.B) { benchServe(b, "", "get key:000001\r\n") }

func BenchmarkGetMulti10(b *testing.B) {
	setup, req := "", "get"
	for i := 0; i < 10; i++ {
		k := "key:00000" + string(rune('0'+i))
		setup += "set " + k + " 0 0 32\r\n" + strings.Repeat("v", 32) + "\r\n"
		req += " " + k
	}
	benchServe(b, setup, req+"\r\n")
}

func BenchmarkSet(b *testing.B) {
	benchServe(b, "", "set key:000001 0 0 32\r\n"+strings.Repeat("v", 32)+"\r\n")
}

func BenchmarkSetPipelined16(b *testing.B) {
	benchServe(b, "", strings.Repeat("set key:000001 0 0 32 noreply\r\n"+strings.Repeat("v", 32)+"\r\n", 16)+"mn\r\n")
}

func BenchmarkMetaGet(b *testing.B) {
	benchServe(b, "set key:000001 5 0 32\r\n"+strings.Repeat("v", 32)+"\r\n", "mg key:000001 v f t c k\r\n")
}

func BenchmarkMetaSet(b *testing.B) {
	benchServe(b, "", "ms key:000001 32 T100 F5\r\n"+strings.Repeat("v", 32)+"\r\n")
}

// BenchmarkParse is the parser alone on a set request.
func BenchmarkParse(b *testing.B) {
	p := NewParser(Limits{})
	var r Request
	in := []byte("set key:000001 0 0 32\r\n" + strings.Repeat("v", 32) + "\r\n")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if n, st := p.Next(in, &r); st != Parsed || n != len(in) {
			b.Fatal(st)
		}
	}
}

// The binary protocol's Get and Set, and a pipeline of 16 quiet Sets
// ended by a Noop (as clients batch them).

func BenchmarkBinaryGet(b *testing.B) {
	benchServe(b, binFrameSpec{opcode: opcSet, key: "key:000001", extras: setExtras(0, 0), value: strings.Repeat("v", 32)}.bytes(),
		binFrameSpec{opcode: opcGet, key: "key:000001"}.bytes())
}

func BenchmarkBinarySet(b *testing.B) {
	benchServe(b, "", binFrameSpec{opcode: opcSet, key: "key:000001", extras: setExtras(0, 0), value: strings.Repeat("v", 32)}.bytes())
}

func BenchmarkBinarySetQPipelined16(b *testing.B) {
	setq := binFrameSpec{opcode: opcSetQ, key: "key:000001", extras: setExtras(0, 0), value: strings.Repeat("v", 32)}.bytes()
	benchServe(b, "", strings.Repeat(setq, 16)+binFrameSpec{opcode: opcNoop}.bytes())
}
