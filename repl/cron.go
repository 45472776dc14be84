package repl

import (
	"time"

	"github.com/tandemkv/tandem/propagate"
)

// cronLoop runs Cron once a second (replicationCron's 1 Hz) and sends the
// GETACK a WAIT asked for, batched like Redis's beforeSleep: one GETACK
// however many WAITs arrived since the last.
func (p *Primary) cronLoop() {
	defer close(p.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.Cron()
		case <-p.wakeAck:
			p.sendGetAck()
		}
	}
}

var getAckCommand = propagate.AppendCommand(nil, []byte("REPLCONF"), []byte("GETACK"), []byte("*"))

// pingCommand is shared.ping: Redis writes it in lower case.
var pingCommand = propagate.AppendCommand(nil, []byte("ping"))

// sendGetAck feeds REPLCONF GETACK * when a WAIT asked for acks; it is in
// the stream and counts in the offset, as Redis's.
func (p *Primary) sendGetAck() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ackWanted || p.failover != NoFailover {
		return // during a failover's pause, later (SetFailover), as Redis's beforeSleep
	}
	p.ackWanted = false
	if p.replica == nil {
		p.feedLocked(p.seldb, getAckCommand)
	}
}

// Cron is one second of replicationCron for the master role: PING into
// the stream every repl-ping-replica-period, a newline to replicas
// waiting for a spooled RDB, replicas silent past repl-timeout dropped,
// the soft output limit checked, the backlog freed after repl-backlog-ttl
// without replicas.
func (p *Primary) Cron() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	period := int64(p.cfg.PingPeriod / time.Second)
	if period < 1 {
		period = 1
	}
	if p.cronLoops < 0 {
		// The cron starts with the first replica, WAIT or master, but
		// counts as Redis's, from the server's start (its first run, at
		// one second, is loop 0): a replica attaching gets its first
		// PING on the server's schedule, not at once (the test suite
		// reads the stream with repl-ping-replica-period 3600 and
		// expects none).
		p.cronLoops = max(0, int64(now.Sub(p.started)/time.Second)-1)
	}
	if p.cronLoops%period == 0 && len(p.links) > 0 && p.replica == nil && !p.holdPing {
		p.feedLocked(p.seldb, pingCommand)
	}
	p.cronLoops++
	timeout := int64(p.cfg.Timeout / time.Second)
	for i := 0; i < len(p.links); i++ {
		l := p.links[i]
		switch {
		case l.state == stateWaitBgsaveStart ||
			(l.state == stateWaitBgsaveEnd && !l.diskless):
			// Keeps the replica's read timeout from firing while the
			// RDB is made (the replica skips empty lines before $len).
			if !l.sendLocked([]byte("\n")) {
				i--
				continue
			}
		case l.state == stateOnline && !l.prePSYNC && now.Unix()-l.ackTime > timeout:
			p.cfg.logf("Disconnecting timedout replica (streaming sync): " + l.name())
			p.dropLocked(l, "timeout")
			i--
			continue
		}
		if !l.checkLimitLocked() {
			i--
		}
	}
	p.startSyncLocked(true)
	if len(p.links) == 0 && p.cfg.BacklogTTL > 0 && p.backlog != nil && p.replica == nil &&
		now.Sub(p.noLinksSince) > p.cfg.BacklogTTL {
		p.replid = newReplID()
		p.clearID2Locked()
		p.backlog = nil
		p.cfg.logf("Replication backlog freed after " + p.cfg.BacklogTTL.String() + " without connected replicas.")
	}
}
