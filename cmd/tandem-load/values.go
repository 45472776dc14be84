package main

// keyLen is the length of every key: "key:" and 12 digits, the form of
// redis-benchmark's "key:__rand_int__".
const keyLen = 16

// putKey writes "key:%012d" of idx into dst[:keyLen]; idx < 10^12.
func putKey(dst []byte, idx int64) {
	copy(dst, "key:")
	for i := keyLen - 1; i >= 4; i-- {
		dst[i] = byte('0' + idx%10)
		idx /= 10
	}
}

// fillValue fills dst with the value tandem-load stores under key: the key
// and a '|', repeated and cut to len(dst). The key is thus encoded in its
// value, and a GET reply can be checked without remembering what was set.
func fillValue(dst, key []byte) {
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
