// Package num holds the number conversions whose exact rules are part of
// Redis's observable behaviour: which strings count as integers or floats,
// and how INCRBYFLOAT prints its result. Both the engine (values) and the
// RESP front-end (arguments) use them, so they live here once.
package num

import (
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

// ParseFloat parses b as Redis's getDoubleFromObject (strtod): no leading
// space, no trailing bytes, no NaN; "inf" and "-inf" are allowed.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch b[0] {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return 0, false
	}
	s := string(b)
	if strings.ContainsAny(s, "_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// strtod accepts values that overflow only as an ERANGE error,
		// which Redis refuses too.
		return 0, false
	}
	if math.IsNaN(f) {
		return 0, false
	}
	return f, true
}
