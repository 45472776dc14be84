package benchkit

// Keys and values the benchmarks write. Every value is a function of its
// key (or index), so a reader can check what it gets back without keeping
// the data set.

// AppendKey appends prefix and i in decimal, zero-padded to width digits
// (width 0: no padding). "key:" with width 12 is redis-benchmark's
// "key:__rand_int__" form: every key has the same length.
func AppendKey(dst []byte, prefix string, i int64, width int) []byte {
	dst = append(dst, prefix...)
	var d [20]byte
	n := len(d)
	for v := uint64(i); v > 0 || n == len(d); v /= 10 {
		n--
		d[n] = byte('0' + v%10)
	}
	for pad := width - (len(d) - n); pad > 0; pad-- {
		dst = append(dst, '0')
	}
	return append(dst, d[n:]...)
}

// FillPattern fills dst with the value the load generator stores under
// key: the key and a '|', repeated and cut to len(dst). The key is thus
// encoded in its value: a value returned for the wrong key, shifted or
// cut, fails the comparison.
func FillPattern(dst, key []byte) {
	if len(dst) == 0 {
		return
	}
	n := copy(dst, key)
	if n < len(dst) {
		dst[n] = '|'
		n++
	}
	for n < len(dst) {
		n += copy(dst[n:], dst[:n]) // doubling copy of the pattern
	}
}

// FillIncompressible writes n's value into dst: a splitmix64 stream whose
// start is n scrambled, so every byte varies, no two indices share a
// value nor a stretch of one, and nothing compresses. A shorter value is
// the start of a longer one.
func FillIncompressible(dst []byte, n uint64) {
	x := Mix64(n)
	var w uint64
	for i := range dst {
		if i%8 == 0 {
			x += 0x9E3779B97F4A7C15
			w = Mix64(x)
		}
		dst[i] = byte(w >> (8 * (i % 8)))
	}
}
