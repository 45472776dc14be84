package engine

import (
	"fmt"
	"testing"
)

// Bitmap benchmarks at 1K and 1M bits. A write copies the whole string
// (values are immutable), so SETBIT and BITFIELD cost grows with the
// bitmap's length; reads do not copy.

var bitmapSizes = []int{1 << 10, 1 << 20} // bits

func benchBitmap(b *testing.B, bits int) (DB, []byte) {
	e := New(Options{Clock: NewManualClock(t0)})
	d := e.DB(0)
	key := []byte("bitmap")
	v := make([]byte, bits/8)
	for i := range v {
		v[i] = byte(i * 7)
	}
	d.Set(key, v, SetOptions{})
	return d, key
}

func BenchmarkSetBit(b *testing.B) {
	for _, bits := range bitmapSizes {
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			d, key := benchBitmap(b, bits)
			off := uint64(bits / 2)
			d.SetBit(key, off, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Toggle the bit so that every call writes.
				if _, _, err := d.SetBit(key, off, (i+1)&1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSetBitUnchanged(b *testing.B) {
	for _, bits := range bitmapSizes {
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			d, key := benchBitmap(b, bits)
			d.SetBit(key, 5, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d.SetBit(key, 5, 1)
			}
		})
	}
}

func BenchmarkGetBit(b *testing.B) {
	for _, bits := range bitmapSizes {
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			d, key := benchBitmap(b, bits)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it, _, _ := d.Get(key)
				GetBit(it.Value, uint64(i*131%bits))
			}
		})
	}
}

func BenchmarkBitCount(b *testing.B) {
	for _, bits := range bitmapSizes {
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			d, key := benchBitmap(b, bits)
			b.ReportAllocs()
			b.SetBytes(int64(bits / 8))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it, _, _ := d.Get(key)
				BitCount(it.Value, BitRange{})
			}
		})
	}
}

func BenchmarkBitPos(b *testing.B) {
	for _, bits := range bitmapSizes {
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			e := New(Options{Clock: NewManualClock(t0)})
			d := e.DB(0)
			key := []byte("bitmap")
			d.Set(key, make([]byte, bits/8), SetOptions{})
			d.SetBit(key, uint64(bits-1), 1) // the only set bit is the last
			b.ReportAllocs()
			b.SetBytes(int64(bits / 8))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it, _, _ := d.Get(key)
				if BitPos(it.Value, 1, BitRange{}) != int64(bits-1) {
					b.Fatal("wrong position")
				}
			}
		})
	}
}

func BenchmarkBitOp(b *testing.B) {
	for _, bits := range bitmapSizes {
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			d, key := benchBitmap(b, bits)
			d.BitOp(BitNot, []byte("other"), [][]byte{key})
			srcs := [][]byte{key, []byte("other")}
			b.ReportAllocs()
			b.SetBytes(int64(bits / 8))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := d.BitOp(BitOr, []byte("dest"), srcs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBitFieldIncrBy(b *testing.B) {
	for _, bits := range bitmapSizes {
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			d, key := benchBitmap(b, bits)
			ops := []BitFieldOp{{Kind: BitFieldIncrBy, Bits: 16, Value: 1}}
			out := make([]BitFieldResult, 0, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ops[0].Offset = uint64(i * 16 % bits)
				if _, _, err := d.BitField(key, ops, out[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
