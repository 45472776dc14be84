package geohash

// The order of a sorted GEO reply. Redis sorts its matches by distance
// with glibc's qsort when it returns them all, and with its own partial
// quicksort (pqsort) when COUNT keeps fewer. Both are visible: glibc's
// qsort is a merge sort, so matches at equal distances keep the order the
// boxes were read in, while the partial quicksort moves them about, and
// which of them a COUNT keeps depends on it. The comparison Redis uses is
// not a total order for NaN distances either (NaN compares below
// everything, both ways), so only the same algorithms give the same
// answer; these are they.

// SortAll sorts s as glibc 2.36's qsort does (msort: top-down merge, the
// first half n/2 elements, ties taken from the first half).
func SortAll[T any](s []T, cmp func(a, b T) int) {
	if len(s) < 2 {
		return
	}
	tmp := make([]T, len(s))
	mergeSort(s, tmp, cmp)
}

func mergeSort[T any](s, tmp []T, cmp func(a, b T) int) {
	n := len(s)
	if n <= 1 {
		return
	}
	n1 := n / 2
	a, b := s[:n1], s[n1:]
	mergeSort(a, tmp, cmp)
	mergeSort(b, tmp, cmp)
	out := tmp[:0]
	for len(a) > 0 && len(b) > 0 {
		if cmp(a[0], b[0]) <= 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	out = append(out, a...)
	copy(s, out) // what is left of b is in place already
}

// SortFirst puts the k smallest elements of s, sorted, at its front, with
// the other elements in the order Redis's pqsort(s, 0, k-1) leaves them:
// Bentley and McIlroy's quicksort ("Engineering a Sort Function", 1993:
// insertion sort below 7 elements, the median of three or, above 40, of
// three medians of three as pivot, elements equal to the pivot gathered at
// both ends and swapped to the middle), recursing only into the parts
// that overlap the positions wanted.
func SortFirst[T any](s []T, k int, cmp func(a, b T) int) {
	if k <= 0 || len(s) < 2 {
		return
	}
	partialQuicksort(s, 0, k-1, cmp)
}

// partialQuicksort sorts what of s the positions lo..hi (relative to s,
// possibly beyond it) need.
func partialQuicksort[T any](s []T, lo, hi int, cmp func(a, b T) int) {
	for {
		n := len(s)
		if n < 7 {
			for m := 1; m < n; m++ {
				for l := m; l > 0 && cmp(s[l-1], s[l]) > 0; l-- {
					s[l], s[l-1] = s[l-1], s[l]
				}
			}
			return
		}
		med3 := func(a, b, c int) int {
			if cmp(s[a], s[b]) < 0 {
				switch {
				case cmp(s[b], s[c]) < 0:
					return b
				case cmp(s[a], s[c]) < 0:
					return c
				}
				return a
			}
			switch {
			case cmp(s[b], s[c]) > 0:
				return b
			case cmp(s[a], s[c]) < 0:
				return a
			}
			return c
		}
		m := n / 2
		if n > 7 {
			l, r := 0, n-1
			if n > 40 {
				d := n / 8
				l = med3(l, l+d, l+2*d)
				m = med3(m-d, m, m+d)
				r = med3(r-2*d, r-d, r)
			}
			m = med3(l, m, r)
		}
		s[0], s[m] = s[m], s[0]
		// s[0] is the pivot; s[1:pa] and s[pd+1:] gather its equals, s[pa:pb]
		// the smaller, s[pc+1:pd+1] the larger elements.
		pa, pb, pc, pd := 1, 1, n-1, n-1
		for {
			for pb <= pc {
				c := cmp(s[pb], s[0])
				if c > 0 {
					break
				}
				if c == 0 {
					s[pa], s[pb] = s[pb], s[pa]
					pa++
				}
				pb++
			}
			for pb <= pc {
				c := cmp(s[pc], s[0])
				if c < 0 {
					break
				}
				if c == 0 {
					s[pc], s[pd] = s[pd], s[pc]
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			s[pb], s[pc] = s[pc], s[pb]
			pb++
			pc--
		}
		swapBlocks(s, 0, pb-min(pa, pb-pa), min(pa, pb-pa))
		r := min(pd-pc, n-pd-1)
		swapBlocks(s, pb, n-r, r)
		if r := pb - pa; r > 1 && hi >= 0 && lo < r {
			partialQuicksort(s[:r], lo, hi, cmp)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		off := n - r
		s, lo, hi = s[off:], lo-off, hi-off
		if hi < 0 || lo >= r {
			return
		}
	}
}

// swapBlocks exchanges s[i:i+n] and s[j:j+n] element by element.
func swapBlocks[T any](s []T, i, j, n int) {
	for k := 0; k < n; k++ {
		s[i+k], s[j+k] = s[j+k], s[i+k]
	}
}
