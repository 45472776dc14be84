package resp

import (
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/monitor"
)

// MONITOR (redis 7.0's monitorCommand and replicationFeedMonitors).
//
// Every command that ran goes to the process's monitor feed
// (services.Monitor, which the memcached port publishes into too) after
// it ran, unless it is flagged admin or skip_monitor, as Redis's call():
// with the arguments as sent, secrets redacted as the slow log redacts
// them, a script's commands as "[<db> lua]". EVAL, EVALSHA and FCALL
// (skip_monitor) are published before they run, so that their script's
// commands follow them, as Redis does.
//
// A client in MONITOR mode watches the feed through its pub/sub
// subscriber (pubsub_client.go): the lines queue in its outbox, woken and
// drained as messages are, under the normal class of
// client-output-buffer-limit (monitors are normal clients in Redis), so a
// monitor that does not read is closed at the limit. It keeps running
// commands, except those that read or write the keyspace ("Replica can't
// interact with the keyspace", as Redis refuses its replicas), until
// RESET or QUIT.

// errMonitorDenyBlocking is MONITOR's reply inside MULTI (EXEC denies
// blocking).
const errMonitorDenyBlocking = "ERR MONITOR isn't allowed for DENY BLOCKING client"

// errMonitorKeyspace refuses a monitor's keyspace commands.
const errMonitorKeyspace = "ERR Replica can't interact with the keyspace"

func monitorCommand() *Command {
	return &Command{Name: "monitor", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Group: "server",
		ACL: []string{"@admin", "@slow", "@dangerous"}, Since: "1.0.0", Summary: "Listen for all requests received by the server in real time", Run: cmdMonitor}
}

func cmdMonitor(c *Client, _ [][]byte) {
	if !c.canBlock() {
		c.w.Error(errMonitorDenyBlocking)
		return
	}
	s := c.subscriber()
	if s.monitoring {
		return // already a monitor: no reply, as Redis
	}
	s.mu.Lock()
	s.monitoring = true
	s.mu.Unlock()
	c.fe.mon.Add(s)
	c.w.Status("OK")
}

// Watch implements monitor.Watcher: queue the line in the outbox (a
// status line, the same in RESP2 and RESP3), waking the loop when needed,
// or close the client when its output passes the normal limits.
func (s *subscriber) Watch(line []byte) {
	s.mu.Lock()
	if s.dead || !s.monitoring {
		s.mu.Unlock()
		return
	}
	wasEmpty := len(s.outbox) == 0
	s.outbox = append(s.outbox, line...)
	if s.overLimitLocked(len(s.outbox) + int(s.held.Load())) {
		s.mu.Unlock()
		s.c.closeForOutputLimit()
		return
	}
	wake := wasEmpty && !s.busy
	s.mu.Unlock()
	if wake {
		_ = s.c.peer.Wake()
	}
}

// monitorStop leaves MONITOR mode (RESET, the connection closed).
func (c *Client) monitorStop() {
	s := c.ps
	if s == nil || !s.monitoring {
		return
	}
	c.fe.mon.Remove(s)
	s.mu.Lock()
	s.monitoring = false
	s.mu.Unlock()
}

// monitorDenied refuses a monitor's command that reads or writes the
// keyspace, as Redis refuses its replicas' (processCommand).
func (c *Client) monitorDenied(cmd *Command) bool {
	if c.ps == nil || !c.ps.monitoring || cmd.Flags&(FlagWrite|FlagReadonly|FlagMayReplicate) == 0 {
		return false
	}
	c.reject(cmd, errMonitorKeyspace)
	return true
}

// monitorFeed publishes a command that ran (before for the script
// commands, which are flagged skip_monitor: see monitorScript).
func (c *Client) monitorFeed(cmd *Command, args [][]byte) {
	if !c.fe.mon.Active() || cmd.Flags&(FlagAdmin|FlagSkipMonitor) != 0 {
		return
	}
	c.monitorPublish(args)
}

// monitorScript publishes EVAL, EVALSHA or FCALL (and their _RO forms)
// before it runs.
func (c *Client) monitorScript(cmd *Command, args [][]byte) {
	if !c.fe.mon.Active() || cmd.Flags&FlagSkipMonitor == 0 || cmd.Flags&FlagAdmin != 0 {
		return
	}
	c.monitorPublish(args)
}

func (c *Client) monitorPublish(args [][]byte) {
	source := monitor.Script
	if !c.inScript() {
		source = c.peer.RemoteAddr()
	}
	var self monitor.Watcher
	if c.ps != nil && c.ps.monitoring {
		self = c.ps // its own line follows its reply, in the same buffer, as in Redis
	}
	if line := c.fe.mon.Publish(int(c.dbNum.Load()), source, slowlogRedact(args), self); line != nil {
		c.w.Buf = append(c.w.Buf, line...)
	}
}

// limitClass is the client-output-buffer-limit class of the subscriber's
// output: normal for a monitor, pubsub otherwise. s.mu is held.
func (s *subscriber) limitClass() conf.ClientClass {
	if s.monitoring {
		return conf.ClientNormal
	}
	return conf.ClientPubSub
}

// isMonitor reports whether the client is in MONITOR mode (CLIENT LIST's
// O flag, the idle sweep's exemption). Any goroutine.
func (c *Client) isMonitor() bool {
	c.mu.Lock()
	s := c.ps
	c.mu.Unlock()
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.monitoring
}
