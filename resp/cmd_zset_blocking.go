package resp

import (
	"math"

	"github.com/tandemkv/tandem/engine"
)

// Blocking sorted-set pops (blocking.go parks the client): BZPOPMIN and
// BZPOPMAX key [key ...] timeout, and BZMPOP timeout numkeys key [key ...]
// MIN|MAX [COUNT count], as redis 7.0.15's blockingGenericZpopCommand. A
// timeout, or a client that may not block (inside MULTI), replies a null
// array.

func cmdBZPopMin(c *Client, args [][]byte) { bzpopMinMax(c, args, false) }
func cmdBZPopMax(c *Client, args [][]byte) { bzpopMinMax(c, args, true) }

// bzpopMinMax replies [key, member, score]. The timeout is parsed first,
// before any key is looked at.
func bzpopMinMax(c *Client, args [][]byte, max bool) {
	timeout, ok := c.timeoutArg(args[len(args)-1])
	if !ok {
		return
	}
	c.zsetBlockPop(args[1:len(args)-1], max, -1, timeout)
}

// cmdBZMPop is BZMPOP: as ZMPOP, blocking while every key is missing. The
// arguments are checked as ZMPOP's (numkeys, too few arguments, MIN|MAX,
// COUNT), then the timeout.
func cmdBZMPop(c *Client, args [][]byte) {
	keys, max, count, ok := c.zmpopArgs(args, 2)
	if !ok {
		return
	}
	timeout, ok := c.timeoutArg(args[1])
	if !ok {
		return
	}
	c.zsetBlockPop(keys, max, count, timeout)
}

// zsetBlockPop pops or blocks for BZPOPMIN, BZPOPMAX (count < 0: one
// member) and BZMPOP.
func (c *Client) zsetBlockPop(keys [][]byte, max bool, count, timeout int64) {
	w := c.newWaiter()
	res, err := c.db.BZPop(keys, max, int(min(count, math.MaxInt)), w)
	blockingPop(c, w, timeout, res, err, c.zsetError,
		func(r *engine.ZPopResult) {
			c.notify(evZSet, zpopEvent(max), r.Key)
			c.propagatePop(zpopEvent(max), r.Key, popCount(count, len(r.Members))) // as ZPOPMIN/ZPOPMAX, Redis's form
		},
		w.ZSetResult, func(r *engine.ZPopResult) { c.writeZPopResult(r, count) })
}

// writeZPopResult replies [key, member, score] (BZPOPMIN/BZPOPMAX, count <
// 0) or [key, [[member, score], ...]] (BZMPOP).
func (c *Client) writeZPopResult(r *engine.ZPopResult, count int64) {
	if count < 0 {
		c.w.Array(3)
		c.w.Bulk(r.Key)
		c.w.Bulk(r.Members[0].Member)
		c.w.Double(r.Members[0].Score)
		return
	}
	c.mpopHeader(r.Key, len(r.Members))
	for _, m := range r.Members {
		c.zsetPair(m.Member, m.Score)
	}
}
