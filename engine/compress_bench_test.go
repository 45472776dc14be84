package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/tandemkv/tandem/internal/sampledata"
)

// Compression benchmarks on realistic values (internal/sampledata): JSON
// documents, HTML pages, gzip output and random bytes of 1 to 64 KB, with
// compression none, s2 and zstd (min-size 1 KB, min-saving 20 %, the
// defaults but for the codec).
//
//	go test -run '^$' -bench 'Compression' -benchmem ./engine
//
// Set and Get report MB/s of plain bytes; Set also reports mem-B/op: the
// used_memory per key once benchLoadKeys keys hold such values, and
// saved-%: the share of used_memory saved against compression none.

const benchLoadKeys = 256

var benchSizes = []int{1 << 10, 4 << 10, 16 << 10, 64 << 10}

func benchCodecs() []Codec { return []Codec{CodecNone, CodecS2, CodecZstd} }

// benchValues returns benchLoadKeys distinct values of one kind and size.
func benchValues(k sampledata.Kind, size int) [][]byte {
	vals := make([][]byte, benchLoadKeys)
	for i := range vals {
		vals[i] = sampledata.Make(k, size, uint64(i))
	}
	return vals
}

func compBenchEngine(codec Codec) *Engine {
	e := New(Options{ShardBits: 4, Databases: 1})
	e.SetCompression(Compression{Codec: codec, MinSize: 1024, MinSaving: 20})
	return e
}

// loadedMemory loads vals under benchLoadKeys keys and returns used_memory.
func loadedMemory(codec Codec, vals [][]byte) int64 {
	e := compBenchEngine(codec)
	d := e.DB(0)
	for i, v := range vals {
		_, _ = d.Set(keyN("k", i), v, SetOptions{})
	}
	return e.UsedMemory()
}

func BenchmarkCompressionSet(b *testing.B) {
	for _, k := range sampledata.Kinds {
		for _, size := range benchSizes {
			vals := benchValues(k, size)
			plainMem := loadedMemory(CodecNone, vals)
			for _, codec := range benchCodecs() {
				b.Run(fmt.Sprintf("%s/%dK/%s", k, size>>10, codec), func(b *testing.B) {
					mem := loadedMemory(codec, vals)
					d := compBenchEngine(codec).DB(0)
					keys := make([][]byte, len(vals))
					for i := range keys {
						keys[i] = keyN("k", i)
					}
					b.SetBytes(int64(size))
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						j := i % len(vals)
						_, _ = d.Set(keys[j], vals[j], SetOptions{})
					}
					b.ReportMetric(float64(mem)/benchLoadKeys, "mem-B/key")
					b.ReportMetric(100*(1-float64(mem)/float64(plainMem)), "saved-%")
				})
			}
		}
	}
}

func BenchmarkCompressionGet(b *testing.B) {
	for _, k := range sampledata.Kinds {
		for _, size := range benchSizes {
			vals := benchValues(k, size)
			for _, codec := range benchCodecs() {
				b.Run(fmt.Sprintf("%s/%dK/%s", k, size>>10, codec), func(b *testing.B) {
					d := compBenchEngine(codec).DB(0)
					keys := make([][]byte, len(vals))
					for i, v := range vals {
						keys[i] = keyN("k", i)
						_, _ = d.Set(keys[i], v, SetOptions{})
					}
					b.SetBytes(int64(size))
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						it, _, _ := d.Get(keys[i%len(keys)])
						it.Release()
					}
				})
			}
		}
	}
}

// BenchmarkCompressionIncompressible is what the sample saves on values
// that do not compress: SET of random bytes and gzip output with the
// sample (the default) and with a full attempt on every value.
func BenchmarkCompressionIncompressible(b *testing.B) {
	for _, k := range []sampledata.Kind{sampledata.Random, sampledata.Gzip} {
		for _, size := range []int{1 << 10, 4 << 10, 16 << 10, 64 << 10} {
			vals := benchValues(k, size)
			for _, codec := range benchCodecs() {
				for _, sampled := range []bool{true, false} {
					if codec == CodecNone && !sampled {
						continue
					}
					name := fmt.Sprintf("%s/%dK/%s", k, size>>10, codec)
					if codec != CodecNone {
						name += map[bool]string{true: "/sampled", false: "/full-attempt"}[sampled]
					}
					b.Run(name, func(b *testing.B) {
						if !sampled {
							old := sampleFrom
							sampleFrom = math.MaxInt
							defer func() { sampleFrom = old }()
						}
						d := compBenchEngine(codec).DB(0)
						keys := make([][]byte, len(vals))
						for i := range keys {
							keys[i] = keyN("k", i)
						}
						b.SetBytes(int64(size))
						b.ReportAllocs()
						b.ResetTimer()
						for i := 0; i < b.N; i++ {
							_, _ = d.Set(keys[i%len(vals)], vals[i%len(vals)], SetOptions{})
						}
					})
				}
			}
		}
	}
}
