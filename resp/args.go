package resp

import (
	"bytes"
	"math"
	"strconv"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
)

// Argument helpers shared by the command families.

// argIs reports whether arg equals the upper-case word w, ignoring case.
func argIs(arg []byte, w string) bool {
	if len(arg) != len(w) {
		return false
	}
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// intArg parses an integer argument or replies the Redis error and
// returns ok=false.
func (c *Client) intArg(b []byte) (int64, bool) {
	v, ok := num.ParseInt(b)
	if !ok {
		c.w.Error(ErrNotInteger)
	}
	return v, ok
}

// rangeArgs parses the two integers of an index range (LRANGE's start
// stop, GETRANGE's start end, …), the first checked first, or replies
// ErrNotInteger.
func (c *Client) rangeArgs(first, last []byte) (int64, int64, bool) {
	start, ok := c.intArg(first)
	if !ok {
		return 0, 0, false
	}
	stop, ok := c.intArg(last)
	return start, stop, ok
}

// countArg parses an integer in [min, LONG_MAX] as Redis's
// getRangeLongFromObjectOrReply with a custom message: anything else
// replies msg.
func (c *Client) countArg(b []byte, min int64, msg string) (int64, bool) {
	v, ok := num.ParseInt(b)
	if !ok || v < min {
		c.w.Error(msg)
		return 0, false
	}
	return v, true
}

// randCountArgs parses the count [WITHVALUES|WITHSCORES] of HRANDFIELD and
// ZRANDMEMBER (args[2:]; with is the word) as Redis's
// hrandfieldWithCountCommand and zrandmemberWithCountCommand: an integer,
// LONG_MIN replying countRange; then the optional word, anything else a
// syntax error; with it |count| must stay within 2^62-1, else pairsRange.
func (c *Client) randCountArgs(args [][]byte, with, countRange, pairsRange string) (count int64, withPairs, ok bool) {
	if count, ok = c.intArg(args[2]); !ok {
		return 0, false, false
	}
	if count == math.MinInt64 {
		c.w.Error(countRange)
		return 0, false, false
	}
	if len(args) > 4 || (len(args) == 4 && !argIsC(args[3], with)) {
		c.w.Error(ErrSyntax)
		return 0, false, false
	}
	if len(args) == 4 {
		if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
			c.w.Error(pairsRange)
			return 0, false, false
		}
		withPairs = true
	}
	return count, withPairs, true
}

// nowMs is the engine's clock, which relative expiry times are based on.
func (c *Client) nowMs() int64 { return c.fe.eng.Clock().NowMs() }

// argIsC is argIs as C's strcasecmp sees arg: only the bytes before its
// first NUL count, so redis 7.0 takes "nx\x00junk" for NX. Redis compares
// option words this way in EXPIRE, COPY and the SCAN family.
func argIsC(arg []byte, w string) bool {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	return argIs(arg, w)
}

// int32Arg parses an argument as Redis's getIntFromObjectOrReply (a
// database index): not an integer is ErrNotInteger, an integer outside
// int32 is ErrIntRange. It replies the error itself.
func (c *Client) int32Arg(b []byte) (int, bool) {
	v, ok := c.intArg(b)
	if !ok {
		return 0, false
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		c.w.Error(ErrIntRange)
		return 0, false
	}
	return int(v), true
}

// scanCursorArg parses a SCAN, HSCAN, SSCAN or ZSCAN cursor as Redis's
// parseScanCursorOrReply does with strtoul: the bytes before the first NUL
// must be empty (cursor 0) or an optional sign and decimal digits within
// uint64; a negative number wraps ("-1" is 2^64-1). Otherwise it replies
// ErrInvalidCursor.
func (c *Client) scanCursorArg(b []byte) (uint64, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 0 {
		return 0, true
	}
	neg := b[0] == '-'
	if b[0] == '+' || b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 {
		c.w.Error(ErrInvalidCursor)
		return 0, false
	}
	v, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		c.w.Error(ErrInvalidCursor)
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// scanArgs are the options of SCAN, HSCAN, SSCAN and ZSCAN.
type scanArgs struct {
	count   int64
	pattern []byte      // nil: no filter
	typ     engine.Type // SCAN's TYPE; TypeNone: any type
}

// scanOptions parses the [MATCH pattern] [COUNT count] options of SCAN,
// HSCAN, SSCAN and ZSCAN from args[from:], and SCAN's [TYPE type] when
// typed, as Redis does: COUNT must be at least 1, a repeated option's last
// value wins, and a lone "*" pattern means no filter (nil). optErr is the
// error reply, "" when the options are good; the caller decides when to
// send it (for a key's elements Redis looks the key up first).
func scanOptions(args [][]byte, from int, typed bool) (o scanArgs, optErr string) {
	o.count = 10
	for i := from; i < len(args) && optErr == ""; i += 2 {
		hasValue := i+1 < len(args)
		switch {
		case argIsC(args[i], "COUNT") && hasValue:
			n, ok := num.ParseInt(args[i+1])
			switch {
			case !ok:
				optErr = ErrNotInteger
			case n < 1:
				optErr = ErrSyntax
			default:
				o.count = n
			}
		case argIsC(args[i], "MATCH") && hasValue:
			o.pattern = args[i+1]
			if len(o.pattern) == 1 && o.pattern[0] == '*' {
				o.pattern = nil
			}
		case typed && argIsC(args[i], "TYPE") && hasValue:
			o.typ = scanTypeByName(args[i+1])
		default:
			optErr = ErrSyntax
		}
	}
	return o, optErr
}

// batch is the COUNT hint as the engine's scans take it.
func (o scanArgs) batch() int { return int(min(o.count, math.MaxInt32)) }
