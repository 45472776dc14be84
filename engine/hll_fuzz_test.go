package engine

import (
	"bytes"
	"errors"
	"strconv"
	"testing"
)

// hllSeedValues are real HLLs as PFADD leaves them: empty, sparse with a
// few registers, sparse near the promotion limit, and dense.
func hllSeedValues(t testing.TB) [][]byte {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	var out [][]byte
	for _, n := range []int{0, 3, 200, 5000} {
		key := []byte("h" + strconv.Itoa(n))
		elems := make([][]byte, n)
		for i := range elems {
			elems[i] = []byte("e" + strconv.Itoa(i))
		}
		if _, err := d.PFAdd(key, elems, HLLSparseMaxBytes); err != nil {
			t.Fatal(err)
		}
		it, ok, err := d.Get(key)
		if !ok || err != nil {
			t.Fatalf("get %s: %v %v", key, ok, err)
		}
		out = append(out, bytes.Clone(it.Value))
		it.Release()
	}
	return out
}

// hllError reports whether err is one the HLL commands may answer with.
func hllError(err error) bool {
	return err == nil || errors.Is(err, ErrNotHLL) || errors.Is(err, ErrCorruptHLL) || errors.Is(err, ErrOOM)
}

// FuzzHLLDecode stores any bytes as a string and runs the HLL decoders and
// commands over it: nothing panics, every failure is the engine's HLL
// error, a sparse HLL counts the same before and after turning dense, and
// whatever PFMERGE writes is a valid HLL.
func FuzzHLLDecode(f *testing.F) {
	for _, v := range hllSeedValues(f) {
		f.Add(v, []byte("x"))
		if len(v) > 20 {
			c := bytes.Clone(v)
			c[len(c)/2] ^= 0xff // a corrupted opcode or register
			f.Add(c, []byte("a\x00b"))
			f.Add(v[:len(v)-1], []byte{}) // truncated
		}
	}
	f.Add([]byte("HYLL"), []byte("x"))
	f.Add([]byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff"), []byte("x"))
	f.Add([]byte("HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), []byte("x"))
	f.Fuzz(func(t *testing.T, v, elem []byte) {
		if len(v) > 2*hllDenseSize {
			return
		}
		if isHLL(v) {
			checkHLLDecoders(t, v)
		}
		e, _ := newTestEngine(t, 2)
		d := e.DB(0)
		other := []byte("other")
		if _, err := d.PFAdd(other, [][]byte{[]byte("a"), []byte("b")}, HLLSparseMaxBytes); err != nil {
			t.Fatal(err)
		}
		key := []byte("k")
		if _, err := d.Set(key, v, SetOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.PFCount(key); !hllError(err) {
			t.Fatalf("PFCOUNT: %v", err)
		}
		if _, err := d.PFCountUnion([][]byte{key, other}); !hllError(err) {
			t.Fatalf("PFCOUNT union: %v", err)
		}
		if err := d.PFMerge([]byte("dest"), [][]byte{key, other}, HLLSparseMaxBytes); !hllError(err) {
			t.Fatalf("PFMERGE: %v", err)
		} else if err == nil {
			if _, err := d.PFCount([]byte("dest")); err != nil {
				t.Fatalf("PFCOUNT of a merged HLL: %v", err)
			}
		}
		// Merging into the fuzzed value as the destination.
		if err := d.PFMerge(key, [][]byte{other}, HLLSparseMaxBytes); !hllError(err) {
			t.Fatalf("PFMERGE into it: %v", err)
		}
		if _, err := d.PFAdd(key, [][]byte{elem, []byte("zz")}, HLLSparseMaxBytes); !hllError(err) {
			t.Fatalf("PFADD: %v", err)
		}
		if _, err := d.PFAdd(key, [][]byte{elem}, 40); !hllError(err) { // a tiny sparse limit promotes
			t.Fatalf("PFADD, small sparse limit: %v", err)
		}
		if _, err := d.PFCount(key); !hllError(err) {
			t.Fatalf("PFCOUNT after PFADD: %v", err)
		}
		if e.UsedMemory() < 0 {
			t.Fatalf("used memory %d", e.UsedMemory())
		}
		checkInvariants(t, e)
	})
}

// checkHLLDecoders runs the decoders on a value with a valid header.
func checkHLLDecoders(t *testing.T, v []byte) {
	t.Helper()
	var regs [hllRegisters]uint8
	merged := hllMergeInto(&regs, v)
	for i, r := range regs {
		if r > hllRegisterMax {
			t.Fatalf("register %d is %d", i, r)
		}
	}
	cnt, counted := hllCount(v)
	if v[4] != hllEncSparse {
		return
	}
	dense, ok := sparseToDense(v)
	if ok != merged {
		t.Fatalf("sparseToDense ok=%v, merge ok=%v", ok, merged)
	}
	if !ok {
		return
	}
	if len(dense) != hllDenseSize || !isHLL(dense) || dense[4] != hllEncDense {
		t.Fatalf("sparseToDense made %d bytes, header %q", len(dense), dense[:min(len(dense), 5)])
	}
	for i := 0; i < hllRegisters; i++ {
		if got := denseGet(dense[hllHdrSize:], i); got != regs[i] {
			t.Fatalf("register %d: dense %d, merged %d", i, got, regs[i])
		}
	}
	if counted {
		hllInvalidateCache(dense)
		dcnt, dok := hllCount(dense)
		if !dok || dcnt != cnt {
			t.Fatalf("sparse counts %d, dense %d (%v)", cnt, dcnt, dok)
		}
	}
}
