package resp

// LATENCY LATEST/HISTORY/RESET/HELP over the process's latency monitor
// (services.Latency): every command that ran at least
// latency-monitor-threshold milliseconds is a sample of the "command"
// event, or "fast-command" for a fast one (countRun), as in Redis. GRAPH,
// DOCTOR and HISTOGRAM are not served yet.

func latencyCommands() []*Command {
	const g = "server"
	f := FlagAdmin | FlagNoScript | FlagLoading | FlagStale
	acl := []string{"@admin", "@dangerous"}
	special := []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}
	return []*Command{
		{Name: "latency", Arity: -2, Group: g, Since: "2.8.13", Summary: "A container for latency diagnostics commands", Subcommands: []*Command{
			{Name: "latency|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: g, Since: "2.8.13", Summary: "Show helpful text about the different subcommands.", Run: cmdLatencyHelp},
			{Name: "latency|history", Arity: 3, Flags: f, ACL: acl, Tips: special, Group: g, Since: "2.8.13", Summary: "Return timestamp-latency samples for the event.", Run: cmdLatencyHistory},
			{Name: "latency|latest", Arity: 2, Flags: f, ACL: acl, Tips: special, Group: g, Since: "2.8.13", Summary: "Return the latest latency samples for all events.", Run: cmdLatencyLatest},
			{Name: "latency|reset", Arity: -2, Flags: f, ACL: acl, Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Group: g, Since: "2.8.13", Summary: "Reset latency data for one or more events.", Run: cmdLatencyReset},
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

// latencyRecord gives the latency monitor a command that ran usec
// microseconds.
func (c *Client) latencyRecord(cmd *Command, usec int64) {
	event := "command"
	if cmd.Flags&FlagFast != 0 {
		event = "fast-command"
	}
	c.fe.latency.Add(event, usec/1000)
}
