package resp

// LATENCY LATEST/HISTORY/RESET/GRAPH/DOCTOR/HELP over the process's
// latency monitor (services.Latency): every command that ran at least
// latency-monitor-threshold milliseconds is a sample of the "command"
// event, or "fast-command" for a fast one (countRun), as in Redis.
//
// LATENCY HISTOGRAM and INFO latencystats read the per-command latency
// histograms (services.CommandLatency, package latency): while
// latency-tracking is on every command's duration is recorded when it
// completes (countRun; a blocked command when it is unblocked, with the
// time it waited, as Redis's updateStatsOnUnblock), commands a script
// runs too. CONFIG RESETSTAT empties them.

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/latency"
)

func latencyCommands() []*Command {
	const g = "server"
	f := FlagAdmin | FlagNoScript | FlagLoading | FlagStale
	acl := []string{"@admin", "@dangerous"}
	return []*Command{
		{Name: "latency", Arity: -2, Group: g, Since: "2.8.13", Summary: "A container for latency diagnostics commands", Subcommands: []*Command{
			{Name: "latency|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: g, Since: "2.8.13", Summary: "Show helpful text about the different subcommands.", Run: cmdLatencyHelp},
			{Name: "latency|history", Arity: 3, Flags: f, ACL: acl, Group: g, Since: "2.8.13", Summary: "Return timestamp-latency samples for the event.", Run: cmdLatencyHistory},
			{Name: "latency|latest", Arity: 2, Flags: f, ACL: acl, Group: g, Since: "2.8.13", Summary: "Return the latest latency samples for all events.", Run: cmdLatencyLatest},
			{Name: "latency|doctor", Arity: 2, Flags: f, ACL: acl, Group: g, Since: "2.8.13", Summary: "Return a human readable latency analysis report.", Run: cmdLatencyDoctor},
			{Name: "latency|graph", Arity: 3, Flags: f, ACL: acl, Group: g, Since: "2.8.13", Summary: "Return a latency graph for the event.", Run: cmdLatencyGraph},
			{Name: "latency|histogram", Arity: -2, Flags: f, ACL: acl, Group: g, Since: "7.0.0", Summary: "Return the cumulative distribution of latencies of a subset of commands or all.", Run: cmdLatencyHistogram},
			{Name: "latency|reset", Arity: -2, Flags: f, ACL: acl, Group: g, Since: "2.8.13", Summary: "Reset latency data for one or more events.", Run: cmdLatencyReset},
		}},
	}
}

// latencyHelp is LATENCY HELP's text, redis 7.0's.
var latencyHelp = []string{
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
}

func cmdLatencyHelp(c *Client, args [][]byte) { c.help(args[0], latencyHelp) }

// cmdLatencyLatest is LATENCY LATEST: per event, its name, the time and
// latency of its newest sample, and its worst.
func cmdLatencyLatest(c *Client, _ [][]byte) {
	latest := c.fe.latency.Latest()
	c.w.Array(len(latest))
	for _, l := range latest {
		c.w.Array(4)
		c.w.Bulk([]byte(l.Event))
		c.w.Int(l.Time)
		c.w.Int(l.Latency)
		c.w.Int(l.Max)
	}
}

// cmdLatencyHistory is LATENCY HISTORY event: its samples, oldest first,
// each time and latency.
func cmdLatencyHistory(c *Client, args [][]byte) {
	h := c.fe.latency.History(string(args[2]))
	c.w.Array(len(h))
	for _, s := range h {
		c.w.Array(2)
		c.w.Int(s.Time)
		c.w.Int(s.Latency)
	}
}

// cmdLatencyReset is LATENCY RESET [event ...]: how many events it forgot.
func cmdLatencyReset(c *Client, args [][]byte) {
	events := make([]string, 0, len(args)-2)
	for _, a := range args[2:] {
		events = append(events, string(a))
	}
	c.w.Int(int64(c.fe.latency.Reset(events...)))
}

// cmdLatencyGraph is LATENCY GRAPH event: its samples as an ASCII chart.
func cmdLatencyGraph(c *Client, args [][]byte) {
	samples, worst, ok := c.fe.latency.Event(string(args[2]))
	if !ok {
		c.w.Error("ERR No samples available for event '" + string(args[2]) + "'")
		return
	}
	c.w.Verbatim(latency.Graph(string(args[2]), samples, worst, time.Now().Unix()))
}

// cmdLatencyDoctor is LATENCY DOCTOR: Redis's report on the events.
func cmdLatencyDoctor(c *Client, _ [][]byte) {
	m := c.fe.latency
	var events []latency.DoctorEvent
	for _, name := range m.Events() {
		if samples, worst, ok := m.Event(name); ok {
			events = append(events, latency.DoctorEvent{Name: name, Samples: samples, Worst: worst})
		}
	}
	set := latency.DoctorSettings{Threshold: m.Threshold(), SlowerThan: c.fe.cfg.SlowlogLogSlowerThan(),
		AnonHugePages: anonHugePages()}
	c.w.Verbatim(latency.Doctor(events, set, time.Now().Unix()))
}

// anonHugePages reports whether the process has anonymous transparent
// huge pages, as Redis's THPGetAnonHugePagesSize (which DOCTOR warns of).
func anonHugePages() bool {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return false
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("AnonHugePages:")); ok {
			kb, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			return kb > 0
		}
	}
	return false
}

// histogramEntry is one command's part of LATENCY HISTOGRAM.
type histogramEntry struct {
	name string
	snap *latency.Snapshot
}

// cmdLatencyHistogram is LATENCY HISTOGRAM [command ...]: per command that
// has a histogram (every one without arguments; else each named, by its
// full name in any case, a container with its subcommands, an unknown
// name skipped), its calls and its cumulative distribution over
// power-of-two microsecond buckets.
func cmdLatencyHistogram(c *Client, args [][]byte) {
	var out []histogramEntry
	add := func(cmd *Command) {
		if s := cmd.hist.Snapshot(); s != nil {
			out = append(out, histogramEntry{cmd.Name, s})
		}
	}
	if len(args) == 2 {
		c.fe.table.forEachCommand(add)
	}
	for _, name := range args[min(2, len(args)):] {
		cmd := c.fe.table.lookupFullName(name)
		if cmd == nil {
			continue
		}
		add(cmd)
		for _, sc := range cmd.Subcommands {
			add(sc)
		}
	}
	c.w.Map(len(out))
	for _, e := range out {
		c.w.BulkString(e.name)
		c.w.Map(2)
		c.w.BulkString("calls")
		c.w.Int(e.snap.Count())
		c.w.BulkString("histogram_usec")
		steps := e.snap.PowersOfTwo()
		c.w.Map(len(steps))
		for _, st := range steps {
			c.w.Int(st.UpperNs / 1000)
			c.w.Int(st.Cumulative)
		}
	}
}

// trackLatency records a command that ran from start for usec
// microseconds in its histogram, unless it blocked: then it is recorded
// when it is done (trackUnblocked).
func (c *Client) trackLatency(cmd *Command, start time.Duration, usec int64) {
	if c.blk != nil {
		c.blk.cmd, c.blk.start = cmd, start
		return
	}
	if c.fe.cmdLatency.Enabled() {
		cmd.hist.RecordUsec(c.stripe, usec)
	}
}

// trackUnblocked records a blocked command that is done, from its start.
func (c *Client) trackUnblocked(b *blockState) {
	if b.cmd != nil && c.fe.cmdLatency.Enabled() {
		b.cmd.hist.RecordUsec(c.stripe, (statNow() - b.start).Microseconds())
	}
}

// infoLatencyStats is INFO latencystats: per command with a histogram,
// the latency-tracking-info-percentiles of its durations in microseconds,
// while latency-tracking is on.
func (f *Frontend) infoLatencyStats(b *infoBuilder) {
	if !f.cmdLatency.Enabled() {
		return
	}
	names, values := f.cfg.LatencyTrackingInfoPercentiles()
	f.table.forEachCommand(func(cmd *Command) {
		s := cmd.hist.Snapshot()
		if s == nil {
			return
		}
		b.WriteString("latency_percentiles_usec_")
		b.WriteString(cmd.Name)
		b.WriteByte(':')
		for i, p := range values {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('p')
			b.WriteString(names[i])
			b.WriteByte('=')
			b.WriteString(strconv.FormatFloat(float64(s.Percentile(p))/1000, 'f', 3, 64))
		}
		b.WriteString("\r\n")
	})
}

// latencyRecord gives the latency monitor a command that ran usec
// microseconds.
func (c *Client) latencyRecord(cmd *Command, usec int64) {
	event := "command"
	if cmd.Flags&FlagFast != 0 {
		event = "fast-command"
	}
	c.fe.latency.Add(event, usec/1000)
}
