package resp

import (
	"math"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/server"
)

// The normal class of client-output-buffer-limit, applied while a
// pipeline runs, as Redis's checkClientOutputBufferLimits after each
// reply: a client's output is what its connection holds for the socket
// (sampled once per Serve) plus the replies this Serve built. Past the hard
// limit, or over the soft limit for more than soft-seconds, the client is
// closed at once: the rest of the pipeline is not run and this Serve's
// replies are dropped. So a client that pipelines big GETs and never
// reads costs about the limit, not a whole read's worth of replies.
//
// While a limit is set, a Serve also yields after serveYieldBytes of
// replies when more of the pipeline is left: the server writes them and
// calls Serve again on the loop's next turn (server.Pauser), so the
// replies being built never hold more than that, and what the socket did
// not take is counted, exactly, at the next Serve. Without a limit the
// pipeline runs whole, as in Redis.
//
// The loop pays one length comparison per command: outputLimitAt turns
// the limits into the length of the reply buffer at which the slow path
// (overOutputLimit) must look. Subscribed clients are of the pubsub
// class, which pubsub_client.go applies.
const serveYieldBytes = 512 << 10 // under the 1 MB the server keeps a reply buffer up to for reuse

type outputLimit struct {
	start     int       // where this Serve's replies begin in c.w.Buf
	queued    int       // bytes the connection held for the socket when Serve began
	softSince time.Time // when the output first went over the soft limit; zero: not over
}

// outputLimitAt returns the length of c.w.Buf past which overOutputLimit
// must run in this Serve, math.MaxInt when no limit applies. Serve's
// replies begin at start.
func (c *Client) outputLimitAt(start int) int {
	if c.inSubscribeMode() {
		return math.MaxInt
	}
	lim := c.fe.cfg.ClientOutputBufferLimit(conf.ClientNormal)
	if lim.Hard <= 0 && lim.Soft <= 0 {
		return math.MaxInt
	}
	o := &c.obuf
	o.start, o.queued = start, c.peer.OutboundBuffered()
	if lim.Soft <= 0 || int64(o.queued) < lim.Soft {
		o.softSince = time.Time{} // back under the soft limit
	}
	first := lim.Hard
	if lim.Soft > 0 && (first <= 0 || lim.Soft < first) {
		first = lim.Soft
	}
	return min(o.limitAt(first), start+serveYieldBytes)
}

// limitAt is the buffer length at which the output reaches bound bytes.
func (o *outputLimit) limitAt(bound int64) int {
	if bound <= 0 || bound > math.MaxInt/4 {
		return math.MaxInt
	}
	return max(o.start+int(bound)-o.queued-1, 0) // Redis: used >= limit
}

// overOutputLimit applies the limits to the output so far and reports
// whether the pipeline stops here: when they are passed it closes the
// client and drops this Serve's replies; when serveYieldBytes were built
// and more is left to run, it yields. Otherwise it moves *limitAt to where
// the next look is due (over the soft limit: the hard limit, later calls
// of Serve checking the soft seconds).
func (c *Client) overOutputLimit(limitAt *int, more bool) bool {
	lim := c.fe.cfg.ClientOutputBufferLimit(conf.ClientNormal)
	o := &c.obuf
	used := int64(o.queued + len(c.w.Buf) - o.start)
	over := lim.Hard > 0 && used >= lim.Hard
	if lim.Soft > 0 && used >= lim.Soft {
		now := time.Now()
		if o.softSince.IsZero() {
			o.softSince = now
		} else if now.Unix()-o.softSince.Unix() > lim.SoftSeconds { // seconds, as Redis's unixtime
			over = true
		}
	}
	if over {
		c.closeForOutputLimit()
		c.w.Buf = c.w.Buf[:o.start] // dropped, as Redis frees the client's replies
		c.closeAfter = true
		return true
	}
	if built := len(c.w.Buf) - o.start; built >= serveYieldBytes {
		if p, ok := c.peer.(server.Pauser); ok && more {
			p.PauseUntilDrained(math.MaxInt) // served again at once
			return true
		}
	}
	next := o.limitAt(lim.Hard) // not reached yet: used < hard
	if lim.Soft > 0 && int64(o.queued+len(c.w.Buf)-o.start) < lim.Soft {
		next = o.limitAt(lim.Soft)
	}
	if y := o.start + serveYieldBytes; y > len(c.w.Buf) {
		next = min(next, y) // the yield is still ahead
	}
	*limitAt = next
	return false
}
