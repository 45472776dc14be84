package resp

import (
	"strings"
	"time"

	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/services"
)

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds], Redis
// 7.0's coordinated failover (services/failover.go runs it), and the
// target's side: PSYNC <replid> <offset> FAILOVER promotes a replica
// whose master's history it names (cmdSync).

func failoverCommand() *Command {
	return &Command{Name: "failover", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagStale, ACL: []string{"@admin", "@dangerous"},
		Group: "server", Since: "6.2.0", Summary: "Start a coordinated failover between this server and one of its replicas.", Run: cmdFailover}
}

// cmdFailover parses as failoverCommand does: ABORT only alone, each
// option once, an integer checked where it stands; then the state checks
// and the start, whose write pause needs an exclusive section.
func cmdFailover(c *Client, args [][]byte) {
	r := c.fe.svc.Replication
	if len(args) == 2 && argIsC(args[1], "ABORT") {
		failoverAbort(c)
		return
	}
	var o services.FailoverOptions
	var timeout int64
	for j := 1; j < len(args); j++ {
		switch {
		case argIsC(args[j], "TIMEOUT") && j+1 < len(args) && timeout == 0:
			ms, ok := c.intArg(args[j+1])
			if !ok {
				return
			}
			if ms <= 0 {
				c.w.Error("ERR FAILOVER timeout must be greater than 0")
				return
			}
			timeout = ms
			j++
		case argIsC(args[j], "TO") && j+2 < len(args) && !o.HasTarget:
			port, ok := num.ParseInt(args[j+2])
			if !ok {
				c.w.Error(ErrNotInteger)
				return
			}
			o.HasTarget, o.Host, o.Port = true, cString(args[j+1]), int(port)
			j += 2
		case argIsC(args[j], "FORCE") && !o.Force:
			o.Force = true
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	o.Timeout = time.Duration(timeout) * time.Millisecond
	var err error
	c.exclusive(func() { err = r.Failover(o) })
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.Status("OK")
}

// failoverAbort is FAILOVER ABORT. Undoing a switch stops the link to the
// target, whose goroutine may be connecting or applying a command: that
// wait runs off the event loop, the client parked as WAIT's, unless it
// may not block (in EXEC) — then without the gate, as REPLICAOF NO ONE.
func failoverAbort(c *Client) {
	r := c.fe.svc.Replication
	reply := func(err error) {
		if err != nil {
			c.w.Error(err.Error())
			return
		}
		c.w.Status("OK")
	}
	if !r.FailingOver() {
		reply(services.ErrNoFailover)
		return
	}
	if !c.gateHeld || c.inExclusive {
		var err error
		c.withoutGate(func() { err = r.AbortFailover() })
		reply(err)
		return
	}
	done := make(chan error, 1)
	peer := c.peer
	go func() {
		done <- r.AbortFailover()
		_ = peer.Wake()
	}()
	c.blk = &blockState{skipReply: c.replyOff || c.replySkip, resume: func() bool {
		select {
		case err := <-done:
			reply(err)
			return true
		default:
			return false
		}
	}}
}

// cString is arg as a C string: up to its first NUL.
func cString(arg []byte) string {
	s := string(arg)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

// psyncFailover is syncCommand's PSYNC … FAILOVER: a replica asked by its
// master, which names the history this replica follows, becomes a master
// (as REPLICAOF NO ONE, after applying what its master already sent) and
// then serves the PSYNC, which continues. The promotion waits for the
// link's goroutine: off the event loop, the client parked as WAIT's
// (without the gate where it may not block, as REPLICAOF NO ONE).
func psyncFailover(c *Client, args [][]byte) {
	r := c.fe.svc.Replication
	c.fe.log.Warn("Failover request received for replid " + cString(args[1]) + ".")
	if !r.IsReplica() {
		c.w.Error("ERR PSYNC FAILOVER can't be sent to a master.")
		return
	}
	if !strings.EqualFold(cString(args[1]), r.Primary.ReplID()) {
		c.w.Error("ERR PSYNC FAILOVER replid must match my replid.")
		return
	}
	promoted := func() {
		c.fe.log.Info("MASTER MODE enabled (failover request from '" + c.describe() + "')")
		serveSync(c, args)
	}
	if !c.gateHeld || c.inExclusive {
		c.withoutGate(r.PromoteForFailover)
		promoted()
		return
	}
	args = copyArgs(args) // they alias the read buffer, reused meanwhile
	done := make(chan struct{})
	peer := c.peer
	go func() {
		r.PromoteForFailover()
		close(done)
		_ = peer.Wake()
	}()
	c.blk = &blockState{resume: func() bool {
		select {
		case <-done:
			promoted()
			return true
		default:
			return false
		}
	}}
}
