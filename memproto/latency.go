package memproto

import (
	"slices"

	"github.com/tandemkv/tandem/latency"
)

// Per-command latency histograms (latency-tracking), in the process's
// set (services.CommandLatency) under protocol "memcached" and the
// command's memcached name ("get", "mg", "set"; a binary request under
// its opcode's text command), as the slow log and MONITOR name them
// after their "mc:" prefix. A request is recorded when it has run
// (slowlogRecord, slowlogBinary); "stats reset" empties them. Nothing on
// the memcached port reads them: exporters do (latency.Commands).

// initLatency gives every command of commandTable its histogram.
func (fe *Frontend) initLatency(c *latency.Commands) {
	fe.cmdLatency = c
	cmds := make([]*command, 0, len(commandTable))
	for _, cmd := range commandTable {
		cmds = append(cmds, cmd)
	}
	slices.SortFunc(cmds, func(a, b *command) int { return a.idx - b.idx })
	fe.hists = make([]*latency.Histogram, len(cmds))
	for _, cmd := range cmds {
		fe.hists[cmd.idx] = c.Histogram(latency.ProtocolMemcached, cmd.name)
	}
}

// trackLatency records that cmd ran for usec microseconds.
func (s *session) trackLatency(cmd *command, usec int64) {
	if s.fe.cmdLatency.Enabled() {
		s.fe.hists[cmd.idx].RecordUsec(s.stripe, usec)
	}
}
