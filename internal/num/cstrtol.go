package num

import "math"

// Strtoll is glibc's strtoll(s, NULL, 10): leading white space, an
// optional sign, then digits up to the first other byte (0 when there
// are none); an overflow saturates at the int64 limits. C code reading
// counts from files (Redis's AOF loader, its manifest) accepts what this
// accepts.
func Strtoll[S ~string | ~[]byte](s S) int64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v uint64
	overflow := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxInt64+1-d)/10 {
			overflow = true
			continue
		}
		v = v*10 + d
	}
	switch {
	case overflow || (!neg && v > math.MaxInt64):
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	case neg:
		return -int64(v)
	}
	return int64(v)
}

// Atoi is glibc's atoi, (int)strtol(s, NULL, 10): Strtoll cut to 32 bits
// as the cast does.
func Atoi[S ~string | ~[]byte](s S) int { return int(int32(Strtoll(s))) }
