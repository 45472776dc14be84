package resp

import (
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

// nowMs is the engine's clock, which relative expiry times are based on.
func (c *Client) nowMs() int64 { return c.fe.eng.Clock().NowMs() }
