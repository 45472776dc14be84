package engine

import (
	"fmt"
	"strconv"
	"testing"
)

// HyperLogLog benchmarks for an HLL holding 1K elements (sparse) and 1M
// elements (dense). PFADD adds an element not seen before; PFCOUNT is
// measured with a stale cache (recomputed and stored) and a fresh one.

var hllSizes = []int{1_000, 1_000_000}

func benchHLL(b *testing.B, key string, n int) DB {
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	batch := make([][]byte, 0, 1000)
	for i := 0; i < n; i++ {
		batch = append(batch, []byte("el:"+strconv.Itoa(i)))
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := d.PFAdd([]byte(key), batch, HLLSparseMaxBytes); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return d
}

// BenchmarkPFAdd adds one element not seen before. At 1K elements the HLL
// is put back to its starting state before each add (outside the timer) so
// that it stays a sparse HLL of 1K elements; at 1M most adds change no
// register, the common case for a large HLL.
func BenchmarkPFAdd(b *testing.B) {
	for _, n := range hllSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			d := benchHLL(b, "h", n)
			it, _, _ := d.Get([]byte("h"))
			start := append([]byte(nil), it.Value...)
			elems := make([][]byte, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if n < 10_000 {
					b.StopTimer()
					d.Set([]byte("h"), start, SetOptions{})
					b.StartTimer()
				}
				elems[0] = []byte("new:" + strconv.Itoa(i))
				if _, err := d.PFAdd([]byte("h"), elems, HLLSparseMaxBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPFAddDenseChanging adds elements that each raise a register of
// a dense HLL: the worst case, a 12 KB copy per add.
func BenchmarkPFAddDenseChanging(b *testing.B) {
	d := benchHLL(b, "h", 1_000_000)
	var adds [][]byte
	regs := new([hllRegisters]uint8)
	it, _, _ := d.Get([]byte("h"))
	hllMergeInto(regs, it.Value)
	for i := 0; len(adds) < 1000; i++ {
		e := []byte("x:" + strconv.Itoa(i))
		if idx, c := hllPatLen(e); c > regs[idx] {
			regs[idx] = c
			adds = append(adds, e)
		}
	}
	start := append([]byte(nil), it.Value...)
	elems := make([][]byte, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(adds) == 0 {
			b.StopTimer()
			d.Set([]byte("h"), start, SetOptions{})
			b.StartTimer()
		}
		elems[0] = adds[i%len(adds)]
		if changed, err := d.PFAdd([]byte("h"), elems, HLLSparseMaxBytes); err != nil || !changed {
			b.Fatal("no change", err)
		}
	}
}

func BenchmarkPFCountStale(b *testing.B) {
	for _, n := range hllSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			d := benchHLL(b, "h", n)
			it, _, _ := d.Get([]byte("h"))
			stale := append([]byte(nil), it.Value...)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				d.Set([]byte("h"), stale, SetOptions{})
				b.StartTimer()
				if _, err := d.PFCount([]byte("h")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPFCountCached(b *testing.B) {
	for _, n := range hllSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			d := benchHLL(b, "h", n)
			d.PFCount([]byte("h"))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d.PFCount([]byte("h"))
			}
		})
	}
}

func BenchmarkPFCountUnion(b *testing.B) {
	for _, n := range hllSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			d := benchHLL(b, "a", n)
			keys := [][]byte{[]byte("a"), []byte("a")}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := d.PFCountUnion(keys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPFMerge(b *testing.B) {
	for _, n := range hllSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			d := benchHLL(b, "a", n)
			srcs := [][]byte{[]byte("a")}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := d.PFMerge([]byte("dest"), srcs, HLLSparseMaxBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
