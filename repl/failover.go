package repl

import "strings"

// FAILOVER's view from the replication state. The coordination (the
// write pause, the wait, the switch) is the caller's (services); here
// are what it asks of the replicas and what INFO shows of it. The
// replica side of the switch, PSYNC … FAILOVER, is ReplicaOptions.Failover.

// FailoverState is Redis's failover_state.
type FailoverState int

// The states, as INFO's master_failover_state names them.
const (
	NoFailover         FailoverState = iota
	FailoverWaitSync                 // writes paused, waiting for a replica to catch up
	FailoverInProgress               // this master turned replica of the target, PSYNC FAILOVER under way
)

func (s FailoverState) String() string {
	switch s {
	case FailoverWaitSync:
		return "waiting-for-sync"
	case FailoverInProgress:
		return "failover-in-progress"
	}
	return "no-failover"
}

// SetFailover records the failover's state for INFO. While one is in
// progress no REPLCONF GETACK goes into the stream (a WAIT's is sent
// after it: Redis sends none while clients are paused), and holdPing
// stops the cron's PING too, as Redis does during a failover with a
// timeout ("manual_failover_in_progress"): both would move the offset
// the replicas must reach.
func (p *Primary) SetFailover(s FailoverState, holdPing bool) {
	p.mu.Lock()
	p.failover = s
	p.holdPing = holdPing && s != NoFailover
	wanted := p.ackWanted && s == NoFailover
	p.mu.Unlock()
	if wanted { // the GETACK a WAIT asked for meanwhile
		select {
		case p.wakeAck <- struct{}{}:
		default:
		}
	}
}

// Replicas is the number of attached replicas, in any state (Redis's
// listLength(server.slaves)).
func (p *Primary) Replicas() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.links)
}

// ReplicaStatus is what FAILOVER TO asks of its target.
type ReplicaStatus struct {
	Found  bool
	Online bool
}

// FindReplica is Redis's findReplica: the attached replica announcing
// host (its REPLCONF ip-address, else its connection's address; compared
// without case) and listening port.
func (p *Primary) FindReplica(host string, port int) ReplicaStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.findLocked(host, port)
	if l == nil {
		return ReplicaStatus{}
	}
	return ReplicaStatus{Found: true, Online: l.state == stateOnline}
}

func (p *Primary) findLocked(host string, port int) *Link {
	for _, l := range p.links {
		if strings.EqualFold(l.ip(), host) && l.listeningPort == port {
			return l
		}
	}
	return nil
}

// SyncedReplica is updateFailoverStatus's test: the replica at host:port
// (any replica when host is "") whose last ACK is exactly this master's
// offset, and its address. A master being failed over takes no writes,
// so the offset stands still until a replica reaches it.
func (p *Primary) SyncedReplica(host string, port int) (h string, pt int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.replica != nil {
		return "", 0, false
	}
	if host != "" {
		l := p.findLocked(host, port)
		return host, port, l != nil && l.ackOff == p.offset
	}
	for _, l := range p.links {
		if l.ackOff == p.offset {
			return l.ip(), l.listeningPort, true
		}
	}
	return "", 0, false
}

// Attached reports whether the connection is already a replica (its
// SYNC or PSYNC was served): another one is ignored.
func (l *Link) Attached() bool {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	return l.attached
}
