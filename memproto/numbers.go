package memproto

import "math"

// Number parsing as memcached does it: C's strtol/strtoul/strtoull in base
// 10 wrapped by memcached's safe_strtol, safe_strtoul and safe_strtoull.
// The rules that matter on the wire:
//
//   - leading C white space is skipped and a sign is accepted ("+5", "\t5");
//   - at least one digit is needed;
//   - the byte after the digits must be white space or the end of the
//     token: "1\tjunk" is 1, "1x" is an error;
//   - a magnitude that overflows 64 bits is an error (ERANGE);
//   - the unsigned forms negate a '-' value modulo 2^64 and reject it only
//     when the result looks negative as a signed number ("-0" is 0,
//     "-1" is an error);
//   - the 32-bit forms truncate: flags 4294967296 are stored as 0, and an
//     exptime of 4294967396 is 100.

// isCSpace is C's isspace in the "C" locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// scanDecimal reads tok as strtoull would: the magnitude, whether a '-' was
// seen, and ok=false when there are no digits, the magnitude overflows, or a
// byte other than white space follows the digits.
func scanDecimal(tok []byte) (mag uint64, neg, ok bool) {
	i := 0
	for i < len(tok) && isCSpace(tok[i]) {
		i++
	}
	if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
		neg = tok[i] == '-'
		i++
	}
	start := i
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		d := uint64(tok[i] - '0')
		if mag > (math.MaxUint64-d)/10 {
			return 0, false, false
		}
		mag = mag*10 + d
	}
	if i == start {
		return 0, false, false
	}
	if i < len(tok) && !isCSpace(tok[i]) {
		return 0, false, false
	}
	return mag, neg, true
}

// parseUint64 is safe_strtoull.
func parseUint64(tok []byte) (uint64, bool) {
	mag, neg, ok := scanDecimal(tok)
	if !ok {
		return 0, false
	}
	if neg {
		mag = -mag
		if int64(mag) < 0 {
			return 0, false
		}
	}
	return mag, true
}

// parseUint32 is safe_strtoul on a 64-bit platform: safe_strtoull's rules,
// then truncation to 32 bits.
func parseUint32(tok []byte) (uint32, bool) {
	v, ok := parseUint64(tok)
	return uint32(v), ok
}

// parseInt32 is safe_strtol on a 64-bit platform: strtol into a 64-bit long
// (out of range is an error), then truncation to 32 bits.
func parseInt32(tok []byte) (int32, bool) {
	mag, neg, ok := scanDecimal(tok)
	if !ok {
		return 0, false
	}
	if neg {
		if mag > 1<<63 {
			return 0, false
		}
		return int32(-int64(mag)), true
	}
	if mag > math.MaxInt64 {
		return 0, false
	}
	return int32(int64(mag)), true
}

// appendUint appends v in decimal without allocating.
func appendUint(b []byte, v uint64) []byte {
	if v < 10 {
		return append(b, byte('0'+v))
	}
	var tmp [20]byte
	i := len(tmp)
	for v > 0 {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, tmp[i:]...)
}

// appendInt appends v in decimal without allocating.
func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		return appendUint(append(b, '-'), uint64(-v))
	}
	return appendUint(b, uint64(v))
}
