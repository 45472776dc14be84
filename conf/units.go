package conf

import (
	"math"
	"strconv"
	"strings"
)

// parseMemory parses a byte count the way redis memtoull does: digits
// followed by an optional case-insensitive unit b, k (1000), kb (1024), m,
// mb, g or gb. A leading '-' is refused; no digits at all means 0 (redis
// accepts "" and "kb"). Unlike redis, which wraps silently, a value that does
// not fit an int64 is refused.
func parseMemory(s string) (int64, bool) {
	if strings.HasPrefix(s, "-") {
		return 0, false
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i == 0 {
		return 0, true
	}
	v, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil || v > math.MaxInt64/mul {
		return 0, false
	}
	return int64(v * mul), true
}

// ParseMemory is parseMemory for the commands that take a memory value
// (DEBUG QUICKLIST-PACKED-THRESHOLD).
func ParseMemory(s string) (int64, bool) { return parseMemory(s) }

// parseInteger parses a decimal integer as strictly as redis string2ll: an
// optional '-', no '+', no spaces, no leading zeros, no overflow.
func parseInteger(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	d := s
	if strings.HasPrefix(d, "-") {
		d = d[1:]
	}
	if d == "" || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// parseStrtoll mimics C strtoll(s, &end, 10) followed by a check that *end is
// the terminating NUL, which is how redis reads save rules and soft_seconds:
// leading white space and a sign are allowed, and an empty string reads as 0
// (strtoll consumes nothing and *end is already NUL). Overflow is refused.
func parseStrtoll(s string) (int64, bool) { return strtollWhole(s, 10) }

// parseOctal is strtoll(s, &end, 8) with the same checks, as redis reads
// an OCTAL_CONFIG (unixsocketperm).
func parseOctal(s string) (int64, bool) { return strtollWhole(s, 8) }

func strtollWhole(s string, base int) (int64, bool) {
	if s == "" {
		return 0, true
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] >= '0'+byte(base) {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(t, base, 64)
	if err != nil || v > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// HumanBytes formats a byte count as redis bytesToHuman does for INFO's
// *_human fields: "512B", "1.00K", "965.58K", "6.78M", "23.54G"; powers of
// 1024, two decimals, no space. Negative counts are shown as plain bytes.
func HumanBytes(n int64) string {
	var div float64
	var suffix string
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1<<20:
		div, suffix = 1<<10, "K"
	case n < 1<<30:
		div, suffix = 1<<20, "M"
	case n < 1<<40:
		div, suffix = 1<<30, "G"
	case n < 1<<50:
		div, suffix = 1<<40, "T"
	case n < 1<<60:
		div, suffix = 1<<50, "P"
	default:
		return strconv.FormatInt(n, 10) + "B"
	}
	return strconv.FormatFloat(float64(n)/div, 'f', 2, 64) + suffix
}

// parsePercent parses redis's PERCENT_CONFIG form, "<n>%" with n a
// string2ll integer >= 0, and returns -n (redis stores a percentage as a
// negative number).
func parsePercent(s string) (int64, bool) {
	if len(s) < 2 || s[len(s)-1] != '%' {
		return 0, false
	}
	n, ok := parseInteger(s[:len(s)-1])
	if !ok || n < 0 {
		return 0, false
	}
	return -n, true
}
