// Package num holds the number conversions whose exact rules are part of
// Redis's observable behaviour: which strings count as integers or floats,
// and how INCRBYFLOAT prints its result. Both the engine (values) and the
// RESP front-end (arguments) use them, so they live here once.
package num

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ParseInt parses b as Redis's string2ll does: optional '-', no '+', no
// spaces, no leading zeros ("0" alone is fine, "-0" is not), within int64.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	if b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// ParseIntString is ParseInt for strings.
func ParseIntString(s string) (int64, bool) {
	return ParseInt([]byte(s))
}

// maxLongDoubleChars is Redis's MAX_LONG_DOUBLE_CHARS.
const maxLongDoubleChars = 5 * 1024

// longDoublePrec is the mantissa width of the x87 80-bit long double that
// redis-server uses for INCRBYFLOAT; computing with it (not float64) is what
// makes 10.5 INCRBYFLOAT 0.1 print "10.6" as Redis does.
const longDoublePrec = 64

// ParseLongDouble parses b as Redis's string2ld (strtold): no leading space,
// no trailing bytes, no NaN. Infinity parses and is reported by inf.
func ParseLongDouble(b []byte) (v *big.Float, inf int, ok bool) {
	if len(b) == 0 || len(b) >= maxLongDoubleChars {
		return nil, 0, false
	}
	s := string(b)
	switch c := s[0]; c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return nil, 0, false
	}
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return nil, 0, false
	}
	lb := strings.ToLower(body)
	if lb == "inf" || lb == "infinity" {
		if s[0] == '-' {
			return nil, -1, true
		}
		return nil, 1, true
	}
	if strings.HasPrefix(lb, "nan") {
		return nil, 0, false
	}
	// strtold takes decimal and hex floats; big.Float's base 0 does the same
	// but also allows underscores and 0b/0o prefixes, which strtold refuses.
	if strings.ContainsAny(lb, "_") || strings.HasPrefix(lb, "0b") || strings.HasPrefix(lb, "0o") {
		return nil, 0, false
	}
	f, _, err := big.ParseFloat(s, 0, longDoublePrec, big.ToNearestEven)
	if err != nil {
		return nil, 0, false
	}
	// Beyond long double's range strtold overflows (ERANGE), which Redis
	// refuses; underflow to zero likewise.
	if exp := f.MantExp(nil); exp > 16384 || (f.Sign() != 0 && exp < -16381) {
		return nil, 0, false
	}
	return f, 0, true
}

// AddLongDouble returns a+b rounded to long double precision, and whether
// the result is finite.
func AddLongDouble(a, b *big.Float) (*big.Float, bool) {
	r := new(big.Float).SetPrec(longDoublePrec).SetMode(big.ToNearestEven)
	r.Add(a, b)
	if exp := r.MantExp(nil); exp > 16384 {
		return nil, false
	}
	return r, true
}

// FormatLongDoubleHuman prints v as Redis's ld2string in human mode:
// "%.17Lf" with trailing zeros (and a trailing dot) removed, "-0" as "0".
func FormatLongDoubleHuman(v *big.Float) string {
	s := v.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// Strtod parses the longest prefix of s that C's strtod (glibc, C
// locale) accepts, after its leading white space, and returns the value,
// the bytes consumed (0: no conversion) and whether the literal's value
// overflowed or underflowed to zero (strtod's ERANGE, as Redis tests it).
// A NUL byte ends the input, as it ends a C string.
func Strtod(s []byte) (v float64, n int, erange bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	word := func(w string) bool {
		if len(s)-i < len(w) {
			return false
		}
		for k := 0; k < len(w); k++ {
			c := s[i+k]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[k] {
				return false
			}
		}
		return true
	}
	switch {
	case word("infinity"):
		return math.Inf(zsign(neg)), i + 8, false
	case word("inf"):
		return math.Inf(zsign(neg)), i + 3, false
	case word("nan"):
		i += 3
		if j := bytes.IndexByte(s[i:], ')'); i < len(s) && s[i] == '(' && j > 0 {
			ok := true
			for _, c := range s[i+1 : i+j] {
				if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
					ok = false
				}
			}
			if ok {
				i += j + 1
			}
		}
		return math.NaN(), i, false
	}
	isHex := i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X')
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	if isHex {
		hexDigit := func(c byte) bool { return digit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'f' }
		j := i + 2
		mant, nonzero := 0, false
		for j < len(s) && hexDigit(s[j]) {
			mant++
			nonzero = nonzero || s[j] != '0'
			j++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && hexDigit(s[j]) {
				mant++
				nonzero = nonzero || s[j] != '0'
				j++
			}
		}
		if mant == 0 {
			// "0x" without digits: strtod takes the "0" alone.
			return zsignZero(neg), i + 1, false
		}
		text := string(s[start:j])
		if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && digit(s[k]) {
				for k < len(s) && digit(s[k]) {
					k++
				}
				text = string(s[start:k])
				j = k
			} else {
				text += "p0"
			}
		} else {
			text += "p0"
		}
		f, err := strconv.ParseFloat(text, 64)
		return f, j, err != nil || (f == 0 && nonzero)
	}
	j := i
	mant, nonzero := 0, false
	for j < len(s) && digit(s[j]) {
		mant++
		nonzero = nonzero || s[j] != '0'
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && digit(s[j]) {
			mant++
			nonzero = nonzero || s[j] != '0'
			j++
		}
	}
	if mant == 0 {
		return 0, 0, false
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && digit(s[k]) {
			for k < len(s) && digit(s[k]) {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(string(s[start:j]), 64)
	return f, j, err != nil || (f == 0 && nonzero)
}

func zsign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

func zsignZero(neg bool) float64 {
	if neg {
		return math.Copysign(0, -1)
	}
	return 0
}

// ParseFloat parses a score, an increment, a weight… as Redis's
// getDoubleFromObject: strtod over the whole argument, no leading white
// space, no NaN, no overflow and no underflow to zero.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || b[0] == ' ' || (b[0] >= '\t' && b[0] <= '\r') {
		return 0, false
	}
	v, n, erange := Strtod(b)
	if n != len(b) || math.IsNaN(v) {
		return 0, false
	}
	if erange && (math.IsInf(v, 0) || v == 0) {
		return 0, false
	}
	return v, true
}

// AppendG17 appends f as C's printf("%.17g") under glibc, Redis's
// d2string and addReplyDouble: Go's 'g' with precision 17 picks the same
// notation (exponent below -4 or at least 17), trims the same zeros and
// writes the same two-digit exponents; only the special values' names
// differ ("inf", "-inf", "nan", "-nan").
func AppendG17(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	}
	return strconv.AppendFloat(b, f, 'g', 17, 64)
}
