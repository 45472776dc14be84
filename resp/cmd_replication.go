package resp

import (
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/repl"
)

// Replication commands (services.Replication, package repl): REPLCONF,
// PSYNC and SYNC turn a connection into a replica's link; REPLICAOF
// (SLAVEOF) makes this server a replica or a master again; ROLE; WAIT.
// A replica's connection gets the stream through its Link (asynchronous
// writes to the peer); what it sends afterwards (REPLCONF ACK) is still
// read as commands.

func replicationCommands() []*Command {
	admin := []string{"@admin", "@dangerous"}
	return []*Command{
		{Name: "replconf", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale | FlagAllowBusy, ACL: admin, Group: "server", Since: "3.0.0", Summary: "An internal command for configuring the replication stream", Run: cmdReplconf},
		{Name: "psync", Arity: -3, Flags: FlagAdmin | FlagNoScript | FlagNoAsyncLoading | FlagNoMulti, ACL: admin, Group: "server", Since: "2.8.0", Summary: "Internal command used for replication", Run: cmdSync},
		{Name: "sync", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoAsyncLoading | FlagNoMulti, ACL: admin, Group: "server", Since: "1.0.0", Summary: "Internal command used for replication", Run: cmdSync},
		{Name: "replicaof", Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagStale | FlagNoAsyncLoading, ACL: admin, Group: "server", Since: "5.0.0", Summary: "Make the server a replica of another instance, or promote it as master.", Run: cmdReplicaOf},
		{Name: "slaveof", Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagStale | FlagNoAsyncLoading, ACL: admin, Group: "server", Since: "1.0.0", Summary: "Make the server a replica of another instance, or promote it as master.", Run: cmdReplicaOf},
		failoverCommand(),
		{Name: "role", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast, ACL: admin, Group: "server", Since: "2.8.12", Summary: "Return the role of the instance in the context of replication", Run: cmdRole},
		{Name: "wait", Arity: 3, Flags: FlagNoScript, ACL: []string{"-@keyspace", "@connection"}, Group: "generic", Since: "3.0.0", Summary: "Wait for the synchronous replication of all the write commands sent in the context of the current connection", Run: cmdWait},
	}
}

// errUnblockedRoleChange is Redis's disconnectAllBlockedClients error.
const errUnblockedRoleChange = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"

// UnblockForReplica is disconnectAllBlockedClients, for a master turning
// replica (REPLICAOF host port, FAILOVER's switch): every client blocked
// in a blocking command or in WAIT gets the UNBLOCKED error and is closed
// after it;
// those a pause holds back are not (their command runs from the start,
// to meet -READONLY). Each client's own loop does it (takeUnblock).
func (f *Frontend) UnblockForReplica() {
	let := func(t *Client) {
		t.unblockReq.Store(&unblockRequest{gen: t.blockGen.Load(), roleChange: true})
		t.wake()
	}
	f.clients.Range(func(_, v any) bool {
		t := v.(*Client)
		if b := t.blocked.Load(); b == blockedForever || b == blockedWithTimeout {
			let(t)
		}
		return true
	})
	f.waiting.Range(func(k, _ any) bool { // WAIT, parked without a blocked state
		let(k.(*Client))
		return true
	})
}

// replicaConn is a client's connection as a replica's (repl.ReplicaConn).
type replicaConn struct{ c *Client }

func (r replicaConn) Send(p []byte) error { return r.c.peer.AsyncWrite(append([]byte(nil), p...)) }
func (r replicaConn) Close()              { r.c.peer.Close() }
func (r replicaConn) RemoteAddr() string  { return r.c.peer.RemoteAddr() }

// Pending is what the socket has not taken yet, as the server reports it.
func (r replicaConn) Pending() int {
	if r.c.bufs == nil {
		return 0
	}
	return r.c.bufs.Buffers().Queued
}

// replLink is the client's replication link, made at its first REPLCONF
// or (P)SYNC.
func (c *Client) replLink() *repl.Link {
	if c.link == nil {
		c.link = c.fe.svc.Replication.NewLink(replicaConn{c})
	}
	return c.link
}

func cmdReplconf(c *Client, args [][]byte) {
	c.w.Buf = append(c.w.Buf, c.replLink().Replconf(args)...)
}

// cmdSync is PSYNC replid offset and SYNC: +CONTINUE or +FULLRESYNC and
// the RDB go out through the link.
func cmdSync(c *Client, args [][]byte) {
	if c.link != nil && c.link.Attached() {
		return // already a replica: ignored, as Redis
	}
	if len(args) > 3 && argIs(args[0], "PSYNC") && argIsC(args[3], "FAILOVER") {
		psyncFailover(c, args) // then serveSync, once promoted
		return
	}
	serveSync(c, args)
}

// serveSync is (P)SYNC past the failover request.
func serveSync(c *Client, args [][]byte) {
	if c.fe.svc.Replication.FailingOver() { // don't let replicas sync with us meanwhile
		c.w.Error("NOMASTERLINK Can't SYNC while failing over")
		return
	}
	if len(c.w.Buf) > 0 { // replies of this batch not sent yet, as Redis's clientHasPendingReplies
		c.w.Buf = append(c.w.Buf, repl.ReplyPendingOutput...)
		return
	}
	c.w.Buf = append(c.w.Buf, c.replLink().Sync(args)...)
	if c.link.Attached() {
		c.isReplica.Store(true) // CLIENT LIST flags=S, TYPE slave
	}
}

// cmdReplicaOf is REPLICAOF host port | NO ONE.
func cmdReplicaOf(c *Client, args [][]byte) {
	r := c.fe.svc.Replication
	if r.FailingOver() {
		c.w.Error("ERR REPLICAOF not allowed while failing over.")
		return
	}
	if strings.EqualFold(string(args[1]), "no") && strings.EqualFold(string(args[2]), "one") {
		if r.IsReplica() {
			// The link's goroutine may be applying a command, in the gate
			// and under the stream's order: stop it from outside both.
			c.withoutGate(r.NoOne)
			c.fe.log.Info("MASTER MODE enabled (user request from '" + c.describe() + "')")
		}
		c.w.Status("OK")
		return
	}
	if c.isReplicaLink() {
		c.w.Error("ERR Command is not valid when client is a replica.")
		return
	}
	port, err := strconv.ParseInt(string(args[2]), 10, 64)
	if err != nil || port < 0 || port > 65535 {
		c.w.Error("ERR Invalid master port")
		return
	}
	host := string(args[1])
	if addr, ok := r.Master(); ok && addr == joinHostPort(host, int(port)) {
		c.w.Status("OK Already connected to specified master")
		return
	}
	c.withoutGate(func() { err = r.ReplicaOf(host, int(port), false) }) // it may stop a link: see NO ONE
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.fe.log.Info("REPLICAOF " + host + ":" + strconv.Itoa(int(port)) + " enabled (user request from '" + c.describe() + "')")
	c.w.Status("OK")
}

// isReplicaLink reports whether the client is a replica of this server.
func (c *Client) isReplicaLink() bool { return c.link != nil }

// describe is the client as Redis's log names it: id=… addr=… laddr=….
func (c *Client) describe() string {
	return "id=" + strconv.FormatUint(c.id, 10) + " addr=" + c.peer.RemoteAddr() + " laddr=" + c.peer.LocalAddr()
}

func joinHostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + strconv.Itoa(port)
	}
	return host + ":" + strconv.Itoa(port)
}

// cmdRole is ROLE: master, offset and replicas; or slave, master host,
// port, link state and offset.
func cmdRole(c *Client, _ [][]byte) {
	role := c.fe.svc.Replication.Primary.Role()
	if role.Master {
		c.w.Array(3)
		c.w.BulkString("master")
		c.w.Int(role.Offset)
		c.w.Array(len(role.Replicas))
		for _, r := range role.Replicas {
			c.w.Array(3)
			c.w.BulkString(r.IP)
			c.w.BulkString(strconv.Itoa(r.Port))
			c.w.BulkString(strconv.FormatInt(r.Offset, 10))
		}
		return
	}
	c.w.Array(5)
	c.w.BulkString("slave")
	c.w.BulkString(role.Host)
	c.w.Int(int64(role.Port))
	c.w.BulkString(role.State)
	c.w.Int(role.Offset)
}

// cmdWait is WAIT numreplicas timeout: the replicas that acknowledged
// the stream up to now, once numreplicas did or timeout (ms, 0: never)
// passed. The client parks like a blocked one meanwhile.
func cmdWait(c *Client, args [][]byte) {
	r := c.fe.svc.Replication
	if r.IsReplica() {
		c.w.Error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
	n, ok := c.intArg(args[1])
	if !ok {
		return
	}
	timeout, ok := c.waitTimeoutArg(args[2])
	if !ok {
		return
	}
	offset := r.Primary.Offset()
	if c.inExclusive || !c.gateHeld {
		c.w.Int(int64(r.Primary.CountAcks(offset)))
		return
	}
	done := make(chan int, 1)
	peer := c.peer
	cancel := r.Primary.WaitAsync(int(n), offset, timeout, func(acked int) {
		done <- acked
		_ = peer.Wake()
	})
	select {
	case acked := <-done:
		c.w.Int(int64(acked))
		return
	default:
	}
	// Parked, it is one of the clients a master turning replica lets go
	// (UnblockForReplica); a request for an earlier blocking command is
	// void.
	c.blockGen.Add(1)
	f := c.fe
	f.waiting.Store(c, struct{}{})
	forget := func() {
		f.waiting.Delete(c)
		cancel()
	}
	c.blk = &blockState{skipReply: c.replyOff || c.replySkip, resume: func() bool {
		select {
		case acked := <-done:
			f.waiting.Delete(c)
			c.w.Int(int64(acked))
			return true
		default:
			return false
		}
	}, cancel: forget, endOnRoleChange: forget}
	c.blocked.Store(blockedParked)
}

// waitTimeoutArg parses WAIT's timeout in milliseconds, as Redis's
// getTimeoutFromObjectOrReply with UNIT_MILLISECONDS: an integer, not
// negative.
func (c *Client) waitTimeoutArg(a []byte) (time.Duration, bool) {
	ms, ok := num.ParseInt(a)
	if !ok {
		c.w.Error("ERR timeout is not an integer or out of range")
		return 0, false
	}
	if ms < 0 {
		c.w.Error(ErrTimeoutNegative)
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// The refusals by replication, as Redis's processCommand and, for a
// script's calls, scriptVerifyWriteCommandAllow and
// scriptVerifyAllowStale.
const (
	errReadOnlyReplica = "READONLY You can't write against a read only replica."
	errNoReplicas      = "NOREPLICAS Not enough good replicas to write."
	errMasterDown      = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	errScriptStale     = "Can not execute the command on a stale replica"
)

// staleReplica reports whether this server is a replica whose link to its
// master is down while replica-serve-stale-data is no: then only the
// commands flagged stale run (deniedWhenStale).
func (c *Client) staleReplica() bool {
	return !c.obeys && !c.fe.cfg.ReplicaServeStaleData() && c.fe.svc.Replication.Stale()
}

// readOnlyReplica reports whether the client's writes are refused with
// READONLY: this server is a read-only replica and the client is not its
// master (whose stream is obeyed, not refused).
func (c *Client) readOnlyReplica() bool {
	return !c.obeys && c.fe.svc.Replication.IsReplica() && c.fe.cfg.ReplicaReadOnly()
}

// tooFewReplicas reports whether the client's writes are refused with
// NOREPLICAS: this master has fewer good replicas than
// min-replicas-to-write.
func (c *Client) tooFewReplicas() bool {
	return !c.obeys && c.fe.cfg.MinReplicasToWrite() > 0 && !c.fe.svc.Replication.Primary.EnoughReplicas()
}

// replicationDenied is the refusal by replication of args, a call of cmd,
// when it is a write (isWrite: a write command, a script declaring
// writes, EXEC with a write queued), or "".
func (c *Client) replicationDenied(cmd *Command, args [][]byte) string {
	if !mayBeWrite(cmd) {
		return ""
	}
	var msg string
	switch {
	case c.readOnlyReplica():
		msg = errReadOnlyReplica
	case c.tooFewReplicas():
		msg = errNoReplicas
	default:
		return ""
	}
	if !c.isWrite(cmd, args) {
		return ""
	}
	return msg
}
