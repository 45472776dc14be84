package resp

// The front-end's counters for readers outside it (package metrics): each
// read adds up the same striped counters INFO reads, at the reader's time,
// so exposing them costs the command path nothing. The front-end exposes
// the numbers; the reader names and formats them.

// Stats are the Redis front-end's counters and gauges at one moment.
type Stats struct {
	ConnectionsReceived int64 // INFO total_connections_received
	RejectedConnections int64 // INFO rejected_connections (maxclients, protected mode)
	ConnectedClients    int   // Redis-port connections now (INFO counts both ports)
	BlockedClients      int   // INFO blocked_clients
	Commands            int64 // INFO total_commands_processed
	ErrorReplies        int64 // INFO total_error_replies
	NetInputBytes       int64 // INFO total_net_input_bytes
	NetOutputBytes      int64 // INFO total_net_output_bytes
}

// Stats reads the front-end's counters.
func (f *Frontend) Stats() Stats {
	st := &f.stats
	blocked, _ := f.blockedClients()
	n := 0
	f.clients.Range(func(_, _ any) bool { n++; return true })
	return Stats{
		ConnectionsReceived: st.connections.Load(),
		RejectedConnections: st.rejectedConns.Load(),
		ConnectedClients:    n,
		BlockedClients:      blocked,
		Commands:            st.commands.Load(),
		ErrorReplies:        st.errorReplies.Load(),
		NetInputBytes:       st.netInput.Load(),
		NetOutputBytes:      st.netOutput.Load(),
	}
}

// EachCommandStat calls fn with the INFO commandstats counters of every
// command (subcommands as "container|sub", as INFO names them) that was
// called, rejected or failed.
func (f *Frontend) EachCommandStat(fn func(name string, calls, usec, rejected, failed int64)) {
	f.table.forEachCommand(func(cmd *Command) {
		t := cmd.stats.totals()
		if t.calls == 0 && t.rejected == 0 && t.failed == 0 {
			return
		}
		fn(cmd.Name, t.calls, t.usec, t.rejected, t.failed)
	})
}

// Memory are INFO memory's headline figures, in bytes.
type Memory struct {
	Used, Peak, RSS int64
	// Fragmentation is INFO's mem_fragmentation_ratio, RSS / Used.
	Fragmentation float64
}

// Memory reads the figures INFO memory prints, the same way (and raises
// the peak as INFO does).
func (f *Frontend) Memory() Memory {
	mh := f.memoryOverhead()
	return Memory{Used: mh.total, Peak: mh.peak, RSS: mh.rss, Fragmentation: ratio(mh.rss, mh.total)}
}
