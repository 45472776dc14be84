package resp

import (
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/internal/stripe"
)

// Counters every command adds to: INFO commandstats, and the totals of
// INFO stats, in copies per stripe (internal/stripe): a client adds to the
// copy its id picks, and INFO adds them up.

// commandStats feed INFO commandstats: one command's counters, in
// stripe.N copies.
type commandStats [stripe.N]struct {
	calls, usec, rejected, failed atomic.Int64
	_                             [stripe.CacheLine - 32]byte
}

// commandTotals is one command's counters, added up.
type commandTotals struct{ calls, usec, rejected, failed int64 }

func (s *commandStats) rejectedOne(st uint8) { s[st].rejected.Add(1) }

func (s *commandStats) totals() commandTotals {
	var t commandTotals
	for i := range s {
		t.calls += s[i].calls.Load()
		t.usec += s[i].usec.Load()
		t.rejected += s[i].rejected.Load()
		t.failed += s[i].failed.Load()
	}
	return t
}

func (s *commandStats) reset() {
	for i := range s {
		s[i].calls.Store(0)
		s[i].usec.Store(0)
		s[i].rejected.Store(0)
		s[i].failed.Store(0)
	}
}

// statEpoch is what command times are measured from: time.Since of a time
// with a monotonic reading reads one clock, where time.Now reads two.
var statEpoch = time.Now()

// statNow is the monotonic time for command statistics.
func statNow() time.Duration { return time.Since(statEpoch) }

// countRun counts a command that ran from start with reply (from its
// first byte) in its statistics, its latency histogram and INFO's total
// of commands, and logs it in the slow log (cmd_slowlog.go) and the latency monitor
// unless args is nil (a script's command) or it blocked.
func (c *Client) countRun(cmd *Command, args [][]byte, start time.Duration, reply []byte) {
	st := &cmd.stats[c.stripe]
	st.calls.Add(1)
	c.fe.stats.commands.Add(c.stripe, 1) // as Redis: executed commands only, counted after they ran
	usec := (statNow() - start).Microseconds()
	st.usec.Add(usec)
	if args != nil && c.blk == nil {
		c.slowlogRecord(cmd, args, usec)
		c.latencyRecord(cmd, usec) // cmd_latency.go
	}
	if len(reply) > 0 && reply[0] == '-' {
		st.failed.Add(1)
	}
	c.trackLatency(cmd, start, usec) // cmd_latency.go
}
