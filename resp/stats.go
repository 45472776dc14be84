package resp

import (
	"sync/atomic"
	"time"
)

// Counters every command adds to: INFO commandstats, and the totals of
// INFO stats. One copy shared by every client made event loops running the
// same command take turns at its cache line on every call (the engine's
// shared counters showed that at 8 % of SET's time, engine/tally.go), so
// each counter has statStripes copies on cache lines of their own, a
// client adds to the copy its id picks, and INFO adds them up.

// statStripes is the copies of each counter: enough that event loops
// (one per core) seldom share one.
const statStripes = 8

// cacheLine is what each copy is padded to.
const cacheLine = 64

// stripedCount is a counter in statStripes copies.
type stripedCount [statStripes]struct {
	n atomic.Int64
	_ [cacheLine - 8]byte
}

func (s *stripedCount) add(stripe uint8, n int64) { s[stripe].n.Add(n) }

func (s *stripedCount) load() int64 {
	var n int64
	for i := range s {
		n += s[i].n.Load()
	}
	return n
}

func (s *stripedCount) reset() {
	for i := range s {
		s[i].n.Store(0)
	}
}

// commandStats feed INFO commandstats: one command's counters, in
// statStripes copies.
type commandStats [statStripes]struct {
	calls, usec, rejected, failed atomic.Int64
	_                             [cacheLine - 32]byte
}

// commandTotals is one command's counters, added up.
type commandTotals struct{ calls, usec, rejected, failed int64 }

func (s *commandStats) rejectedOne(stripe uint8) { s[stripe].rejected.Add(1) }

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
// first byte) in its statistics and in INFO's total of commands, and
// logs it in the slow log (cmd_slowlog.go) and the latency monitor
// unless args is nil (a script's command) or it blocked.
func (c *Client) countRun(cmd *Command, args [][]byte, start time.Duration, reply []byte) {
	st := &cmd.stats[c.stripe]
	st.calls.Add(1)
	c.fe.stats.commands.add(c.stripe, 1) // as Redis: executed commands only, counted after they ran
	usec := (statNow() - start).Microseconds()
	st.usec.Add(usec)
	if args != nil && c.blk == nil {
		c.slowlogRecord(cmd, args, usec)
		c.latencyRecord(cmd, usec) // cmd_latency.go
	}
	if len(reply) > 0 && reply[0] == '-' {
		st.failed.Add(1)
	}
}
