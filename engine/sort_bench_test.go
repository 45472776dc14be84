package engine

import (
	"strconv"
	"testing"
)

// Benchmarks of SORT on lists of 1K and 1M numbers: numeric sort, ALPHA,
// BY nosort with a small LIMIT (the direct range path), and BY weights.
func BenchmarkSort(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		e, _ := newTestEngine(b, 4)
		d := e.DB(0)
		key := []byte("l")
		batch := make([][]byte, 0, 1024)
		for i := 0; i < n; i++ {
			v := []byte(strconv.Itoa((i * 7919) % n))
			batch = append(batch, v)
			if len(batch) == cap(batch) || i == n-1 {
				d.LPushEnd(key, ListRight, batch, false)
				batch = batch[:0]
			}
			d.Set([]byte("w_"+string(v)), []byte(strconv.Itoa(n-i)), SetOptions{})
		}
		name := strconv.Itoa(n)
		run := func(label string, spec SortSpec) {
			b.Run(label+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := d.Sort(key, &spec); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		run("numeric", SortSpec{Count: -1})
		run("alpha", SortSpec{Count: -1, Alpha: true})
		run("nosort-limit10", SortSpec{By: []byte("nosort"), DontSort: true, Offset: int64(n / 2), Count: 10})
		run("by-weights", SortSpec{By: []byte("w_*"), Count: 10})
	}
}
