package resp

import (
	"math"

	"github.com/tandemkv/tandem/engine"
)

// stringCommands is the string family (Redis group "string").
func stringCommands() []*Command {
	return []*Command{
		{Name: "get", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: "string", Since: "1.0.0", Summary: "Returns the string value of a key.", Run: cmdGet},
		{Name: "set", Arity: -3, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: "string", Since: "1.0.0", Summary: "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", Run: cmdSet},
	}
}

func cmdGet(c *Client, args [][]byte) {
	it, ok, err := c.db.Get(args[1])
	switch {
	case err != nil:
		c.engineError(err)
	case !ok:
		c.w.Null()
	default:
		c.w.Bulk(it.Value)
	}
}

// expiryOptions are the expiry words SET and GETEX share.
type expiryOptions struct {
	mode    engine.TTLMode
	at      int64 // unix ms
	set     bool  // an EX/PX/EXAT/PXAT was given
	word    string
	keepTTL bool
	persist bool
}

// parseExpiry reads an EX/PX/EXAT/PXAT value as Redis's
// getExpireMillisecondsOrReply: a positive integer whose absolute time
// does not overflow. It replies the error itself.
func (c *Client) parseExpiry(cmdName string, word string, arg []byte) (int64, bool) {
	v, ok := c.intArg(arg)
	if !ok {
		return 0, false
	}
	seconds := word == "EX" || word == "EXAT"
	if v <= 0 || (seconds && v > math.MaxInt64/1000) {
		c.w.Error(invalidExpire(cmdName))
		return 0, false
	}
	if seconds {
		v *= 1000
	}
	if word == "EX" || word == "PX" {
		now := c.nowMs()
		if v > math.MaxInt64-now {
			c.w.Error(invalidExpire(cmdName))
			return 0, false
		}
		v += now
	}
	return v, true
}

// setOther reports whether a different expiry word than a was given
// before: "EX 1 EX 2" is accepted (last wins), "EX 1 PX 2" is not.
func (e *expiryOptions) setOther(a []byte) bool { return e.set && !argIs(a, e.word) }

// upperWord returns the canonical spelling of an expiry word.
func upperWord(a []byte) string {
	for _, w := range []string{"EX", "PX", "EXAT", "PXAT"} {
		if argIs(a, w) {
			return w
		}
	}
	return ""
}

func invalidExpire(cmdName string) string {
	return "ERR invalid expire time in '" + cmdName + "' command"
}

// cmdSet is SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ts|KEEPTTL],
// with Redis 7.0's option rules: conflicting words are a syntax error,
// repeated compatible words are accepted and the last value wins.
func cmdSet(c *Client, args [][]byte) {
	var (
		o      engine.SetOptions
		exp    expiryOptions
		nx, xx bool
	)
	for j := 3; j < len(args); j++ {
		a := args[j]
		hasNext := j+1 < len(args)
		switch {
		case argIs(a, "NX") && !xx:
			nx = true
		case argIs(a, "XX") && !nx:
			xx = true
		case argIs(a, "GET"):
			o.GetOld = true
		case argIs(a, "KEEPTTL") && !exp.set:
			exp.keepTTL = true
		case (argIs(a, "EX") || argIs(a, "PX") || argIs(a, "EXAT") || argIs(a, "PXAT")) && !exp.keepTTL && hasNext && !exp.setOther(a):
			at, ok := c.parseExpiry("set", upperWord(a), args[j+1])
			if !ok {
				return
			}
			exp.set, exp.at = true, at
			exp.word = upperWord(a)
			j++
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	switch {
	case nx:
		o.Cond = engine.CondAbsent
	case xx:
		o.Cond = engine.CondPresent
	}
	switch {
	case exp.set:
		o.TTL, o.ExpireAt = engine.TTLSet, exp.at
	case exp.keepTTL:
		o.TTL = engine.TTLKeep
	}
	res, err := c.db.Set(args[1], args[2], o)
	if err != nil {
		c.engineError(err)
		return
	}
	switch {
	case o.GetOld && res.Existed:
		c.w.Bulk(res.Old.Value)
	case o.GetOld:
		c.w.Null()
	case res.Stored:
		c.w.Status("OK")
	default:
		c.w.Null()
	}
}
