package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"testing"
)

// HyperLogLog tests: known answers read from redis-server 7.0.15 (bytes
// and counts), and the sparse representation checked against a plain
// register array under random additions.

func pfaddRange(t testing.TB, d DB, key string, n int) {
	t.Helper()
	elems := make([][]byte, 0, 1000)
	for i := 0; i < n; i += 1000 {
		elems = elems[:0]
		for j := i; j < min(n, i+1000); j++ {
			elems = append(elems, []byte(fmt.Sprintf("e%d", j)))
		}
		if _, err := d.PFAdd([]byte(key), elems, HLLSparseMaxBytes); err != nil {
			t.Fatal(err)
		}
	}
}

func sha(v []byte) string {
	s := sha256.Sum256(v)
	return hex.EncodeToString(s[:])
}

// TestHLLKnownAnswers: PFADD of "e0".."e<n-1>" (1000 per command), the
// HLL's length and SHA-256 before and after PFCOUNT, and the count, as
// redis-server 7.0.15 gives them.
func TestHLLKnownAnswers(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	for _, c := range []struct {
		n                        int
		length                   int
		count                    int64
		shaBefore, shaAfterCount string
	}{
		{100, 285, 100, "53986fa020104b2d94c131f7d7b840674634568242921d84d01b767289a56a1d", "aebee27e50c672722325ed27d2acb1011cc7138f9a0f43d52abc23308a822a44"},
		{1000, 1906, 1008, "519a7f0764d633e025ff9f8cdeb30cd2f452e2ad37f729f6b9ea7a4699791162", "ab6313e24c05ff993730105e09ef76d5c0c4fcde58406d6a29d1889220a056e4"},
		{10000, 12304, 9973, "5f94be2c770f456ca505c757976fb27a6222332b042358459ecd3dd8cf30599b", "c44e2d26f9f332c8f4369b82fc1a4a99449b59ddf9337f9680ccdd66872ca7b5"},
		{100000, 12304, 100853, "db44442a96c3ca475b58a386c4e1263c33d76900a2a9f2a934e50769c36644f9", "548dba672576d8a299d51943c2728e21beda0aea57391bd87567dba08eed8e4e"},
	} {
		key := fmt.Sprintf("h%d", c.n)
		pfaddRange(t, d, key, c.n)
		it, _, _ := d.Get([]byte(key))
		if len(it.Value) != c.length || sha(it.Value) != c.shaBefore {
			t.Errorf("%d elements: %d bytes, sha %s; want %d, %s", c.n, len(it.Value), sha(it.Value), c.length, c.shaBefore)
		}
		n, err := d.PFCount([]byte(key))
		if err != nil || n != c.count {
			t.Errorf("%d elements: PFCOUNT %d, %v; want %d", c.n, n, err, c.count)
		}
		if it, _, _ := d.Get([]byte(key)); sha(it.Value) != c.shaAfterCount {
			t.Errorf("%d elements: after PFCOUNT sha %s, want %s", c.n, sha(it.Value), c.shaAfterCount)
		}
	}
	if n, err := d.PFCountUnion([][]byte{[]byte("h100"), []byte("h1000"), []byte("h10000")}); err != nil || n != 9973 {
		t.Errorf("PFCOUNT union = %d, %v; want 9973", n, err)
	}
	if err := d.PFMerge([]byte("m"), [][]byte{[]byte("h100"), []byte("h1000")}, HLLSparseMaxBytes); err != nil {
		t.Fatal(err)
	}
	if it, _, _ := d.Get([]byte("m")); sha(it.Value) != "519a7f0764d633e025ff9f8cdeb30cd2f452e2ad37f729f6b9ea7a4699791162" {
		t.Errorf("PFMERGE result sha %s", sha(it.Value))
	}
	checkInvariants(t, e)
}

func TestHLLSmallExact(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	changed, err := d.PFAdd([]byte("h"), [][]byte{[]byte("a"), []byte("b"), []byte("c")}, HLLSparseMaxBytes)
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	want := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	if it, _, _ := d.Get([]byte("h")); string(it.Value) != want {
		t.Fatalf("got %q, want %q", it.Value, want)
	}
	if n, _ := d.PFCount([]byte("h")); n != 3 {
		t.Fatalf("count %d", n)
	}
	want = "HYLL\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	if it, _, _ := d.Get([]byte("h")); string(it.Value) != want {
		t.Fatalf("after PFCOUNT got %q, want %q", it.Value, want)
	}
	// A PFADD that changes nothing writes nothing.
	it, _, _ := d.Get([]byte("h"))
	if changed, _ := d.PFAdd([]byte("h"), [][]byte{[]byte("a")}, HLLSparseMaxBytes); changed {
		t.Fatal("re-adding changed the HLL")
	}
	if it2, _, _ := d.Get([]byte("h")); it2.CAS != it.CAS {
		t.Fatal("an unchanged PFADD wrote")
	}
	// Empty PFADD creates an empty HLL.
	if changed, _ := d.PFAdd([]byte("e"), nil, HLLSparseMaxBytes); !changed {
		t.Fatal("PFADD of a new key must report a change")
	}
	if it, _, _ := d.Get([]byte("e")); string(it.Value) != "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff" {
		t.Fatalf("empty HLL %q", it.Value)
	}
	d.Set([]byte("s"), []byte("abc"), SetOptions{})
	if _, err := d.PFAdd([]byte("s"), nil, HLLSparseMaxBytes); err != ErrNotHLL {
		t.Fatalf("PFADD on a plain string: %v", err)
	}
	putRaw(t, d, []byte("l"), []byte("x"), TypeList)
	if _, err := d.PFCount([]byte("l")); err != ErrWrongType {
		t.Fatalf("PFCOUNT on a list: %v", err)
	}
	checkInvariants(t, e)
}

// sparseRegisters decodes a sparse HLL into one byte per register.
func sparseRegisters(t *testing.T, v []byte) [hllRegisters]uint8 {
	t.Helper()
	var regs [hllRegisters]uint8
	if !hllMergeInto(&regs, v) {
		t.Fatalf("invalid HLL %q", v)
	}
	return regs
}

// TestHLLSparseAgainstModel adds random elements one at a time to a
// sparse HLL and checks after each step that it holds exactly the
// registers a plain array holds, stays within hll-sparse-max-bytes while
// sparse, merges adjacent equal VAL opcodes the way Redis does locally,
// and counts the same as its dense form.
func TestHLLSparseAgainstModel(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for round := 0; round < 20; round++ {
		maxBytes := []int{HLLSparseMaxBytes, 300, 50, 20000}[round%4]
		v := newHLL()
		var model [hllRegisters]uint8
		for i := 0; i < 3000 && v[4] == hllEncSparse; i++ {
			ele := make([]byte, r.Intn(10))
			r.Read(ele)
			idx, count := hllPatLen(ele)
			var changed bool
			if v[4] == hllEncDense {
				changed = denseSetMax(v[hllHdrSize:], idx, count)
			} else {
				var rc int
				v, rc = sparseSet(v, idx, count, maxBytes)
				if rc < 0 {
					t.Fatal("sparseSet reported corruption")
				}
				changed = rc == 1
			}
			if (count > model[idx]) != changed {
				t.Fatalf("round %d step %d: changed=%v, model old %d new %d", round, i, changed, model[idx], count)
			}
			model[idx] = max(model[idx], count)
			if v[4] == hllEncSparse && len(v) > maxBytes && changed {
				// Growth beyond the limit must have promoted it.
				t.Fatalf("sparse HLL of %d bytes above %d", len(v), maxBytes)
			}
			if i%97 == 0 || v[4] == hllEncDense {
				if got := sparseRegisters(t, v); got != model {
					t.Fatalf("round %d step %d: registers differ from the model", round, i)
				}
				c1, ok := hllCount(v)
				if !ok {
					t.Fatal("count failed")
				}
				dense, ok := sparseToDense(bytes.Clone(v))
				c2, _ := hllCount(dense)
				if !ok || c1 != c2 || c1 != hllCountRegisters(&model) {
					t.Fatalf("counts differ: %d %d %d", c1, c2, hllCountRegisters(&model))
				}
			}
		}
	}
}

// TestHLLAccuracy: the estimate stays within a few standard errors
// (1.04/sqrt(16384) ≈ 0.81%) over a range of cardinalities.
func TestHLLAccuracy(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	added := 0
	for _, n := range []int{10, 100, 1000, 5000, 20000, 100000, 300000} {
		pfaddRangeFrom(t, d, "acc", added, n)
		added = n
		got, err := d.PFCount([]byte("acc"))
		if err != nil {
			t.Fatal(err)
		}
		relErr := float64(got-int64(n)) / float64(n)
		if relErr < -0.05 || relErr > 0.05 {
			t.Errorf("n=%d: estimate %d (%.2f%%)", n, got, 100*relErr)
		}
	}
}

func pfaddRangeFrom(t testing.TB, d DB, key string, from, to int) {
	t.Helper()
	var elems [][]byte
	for j := from; j < to; j++ {
		elems = append(elems, []byte(fmt.Sprintf("acc:%d", j)))
		if len(elems) == 1000 || j == to-1 {
			if _, err := d.PFAdd([]byte(key), elems, HLLSparseMaxBytes); err != nil {
				t.Fatal(err)
			}
			elems = elems[:0]
		}
	}
}

// TestHLLCorrupted: Redis's answers for sparse HLLs whose opcodes do not
// cover 16384 registers.
func TestHLLCorrupted(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	hdr := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
	d.Set([]byte("s"), []byte(hdr+"\x7f\xfe"), SetOptions{})
	if n, err := d.PFCount([]byte("s")); err != nil || n != 0 {
		t.Fatalf("a valid cached count is trusted: %d, %v", n, err)
	}
	d.PFAdd([]byte("s"), [][]byte{[]byte("a")}, HLLSparseMaxBytes)
	if _, err := d.PFCount([]byte("s")); err != ErrCorruptHLL {
		t.Fatalf("PFCOUNT of a short sparse HLL: %v", err)
	}
	if _, err := d.PFCountUnion([][]byte{[]byte("s"), []byte("x")}); err != ErrCorruptHLL {
		t.Fatalf("union with a corrupt HLL: %v", err)
	}
	if err := d.PFMerge([]byte("x"), [][]byte{[]byte("s")}, HLLSparseMaxBytes); err != ErrCorruptHLL || d.Exists([]byte("x")) != 0 {
		t.Fatalf("PFMERGE of a corrupt HLL: %v", err)
	}
	d.Set([]byte("z"), []byte(hdr), SetOptions{})
	if _, err := d.PFAdd([]byte("z"), [][]byte{[]byte("a")}, HLLSparseMaxBytes); err != ErrCorruptHLL {
		t.Fatalf("PFADD to an HLL without opcodes: %v", err)
	}
	for _, v := range []string{"HYLL", "HYLL\x02" + hdr[5:] + "\x7f\xff", "HYLL\x00" + hdr[5:] + "\x7f\xff", "xYLL" + hdr[4:] + "\x7f\xff"} {
		d.Set([]byte("b"), []byte(v), SetOptions{})
		if _, err := d.PFCount([]byte("b")); err != ErrNotHLL {
			t.Fatalf("%q: %v", v, err)
		}
	}
	checkInvariants(t, e)
}

// TestSparseCursor: setting registers in increasing order with a cursor
// (PFMERGE) writes the same bytes as searching from the start each time.
func TestSparseCursor(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for round := 0; round < 200; round++ {
		// A destination: empty, or sparse with some registers set.
		dst := newHLL()
		for i := r.Intn(300); i > 0; i-- {
			idx, count := r.Intn(hllRegisters), uint8(1+r.Intn(8))
			dst, _ = sparseSet(dst, idx, count, 1<<20)
		}
		var max [hllRegisters]uint8
		for i := r.Intn(1500); i > 0; i-- {
			max[r.Intn(hllRegisters)] = uint8(1 + r.Intn([]int{3, 8, 40}[round%3]))
		}
		if round%7 == 0 {
			for i := 1000; i < 1100; i++ {
				max[i] = 2 // long runs of equal values, merged by step 4
			}
		}
		limit := []int{HLLSparseMaxBytes, 1 << 20}[round%2]
		a, b := bytes.Clone(dst), bytes.Clone(dst)
		var cur sparseCursor
		for j, m := range max {
			if m == 0 {
				continue
			}
			if a[4] == hllEncDense {
				denseSetMax(a[hllHdrSize:], j, m)
				denseSetMax(b[hllHdrSize:], j, m)
				continue
			}
			a, _ = sparseSet(a, j, m, limit)
			b, _ = sparseSetFrom(b, j, m, limit, &cur)
			if !bytes.Equal(a, b) {
				t.Fatalf("round %d register %d: bytes differ", round, j)
			}
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("round %d: results differ", round)
		}
	}
}
