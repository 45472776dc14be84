package resp

import (
	"strings"
	"testing"
)

// Benchmarks of the whole request path in one process: parse, dispatch,
// engine, reply. They prove the hot path allocates nothing per request
// (run with -benchmem).

func benchServe(b *testing.B, setup []string, request string, perBatch int) {
	env := newTestEnv(&testing.T{})
	c := env.client()
	for _, s := range setup {
		c.raw(s)
	}
	in := []byte(strings.Repeat(request, perBatch))
	out := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i += perBatch {
		n, o, _ := c.c.Serve(in, out[:0])
		if n != len(in) {
			b.Fatalf("consumed %d of %d", n, len(in))
		}
		out = o
	}
}

func BenchmarkServeGet(b *testing.B) {
	benchServe(b, []string{encodeCommand("SET", "key:000001", strings.Repeat("v", 100))}, encodeCommand("GET", "key:000001"), 1)
}

func BenchmarkServeGetPipelined16(b *testing.B) {
	benchServe(b, []string{encodeCommand("SET", "key:000001", strings.Repeat("v", 100))}, encodeCommand("GET", "key:000001"), 16)
}

func BenchmarkServeSet(b *testing.B) {
	benchServe(b, nil, encodeCommand("SET", "key:000001", strings.Repeat("v", 100)), 1)
}

// BenchmarkServePublish is PUBLISH to a channel nobody reads: the hub's
// path with its message counters (pubsub.Hub.Messages), no delivery.
func BenchmarkServePublish(b *testing.B) {
	benchServe(b, nil, encodeCommand("PUBLISH", "news", strings.Repeat("v", 100)), 1)
}

// The same without latency-tracking: the cost of the per-command
// histograms is the difference (docs/benchmarks.md).
var trackingOff = encodeCommand("CONFIG", "SET", "latency-tracking", "no")

func BenchmarkServeGetUntracked(b *testing.B) {
	benchServe(b, []string{trackingOff, encodeCommand("SET", "key:000001", strings.Repeat("v", 100))}, encodeCommand("GET", "key:000001"), 1)
}

func BenchmarkServeSetUntracked(b *testing.B) {
	benchServe(b, []string{trackingOff}, encodeCommand("SET", "key:000001", strings.Repeat("v", 100)), 1)
}

// discardSink is a write stream's sink that keeps nothing.
type discardSink struct{ n int }

func (d *discardSink) Feed(_ int, cmd []byte) { d.n += len(cmd) }

// BenchmarkServeSetStreamed is SET with a sink on the write stream (an
// AOF, a replica): the order lock, the effect's encoding and its feeding
// over BenchmarkServeSet.
func BenchmarkServeSetStreamed(b *testing.B) {
	env := newTestEnv(&testing.T{})
	env.fe.stream.Add(&discardSink{})
	c := env.client()
	in := []byte(encodeCommand("SET", "key:000001", strings.Repeat("v", 100)))
	out := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for range b.N {
		_, out, _ = c.c.Serve(in, out[:0])
	}
}
