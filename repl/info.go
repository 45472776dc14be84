package repl

import (
	"net"
	"strconv"
	"time"
)

// Info is INFO replication's numbers, in Redis 7.0's order; Append
// renders them. The replica's config lines (slave_priority,
// slave_read_only, replica_announced) come from the caller's config.
type Info struct {
	Master  bool
	Replica *ReplicaInfo // nil on a master

	ConnectedSlaves int
	// GoodSlaves is min_slaves_good_slaves, shown when MinSlavesOn
	// (min-replicas-to-write and min-replicas-max-lag both set).
	MinSlavesOn bool
	GoodSlaves  int
	Slaves      []SlaveInfo

	ReplID, ReplID2  string
	Offset           int64 // master_repl_offset
	SecondOffset     int64 // second_repl_offset
	BacklogActive    bool
	BacklogSize      int64
	BacklogFirstByte int64
	BacklogHistlen   int64
	// BacklogMemory is what the backlog's ring holds allocated
	// (mem_replication_backlog); ReplicaOutput what the replicas have
	// not taken yet, held or queued on their connections
	// (mem_clients_slaves).
	BacklogMemory, ReplicaOutput int64
	SlavePriority                int // replica-priority
	SlaveReadOnly                bool
	ReplicaAnnouncedOn           bool // replica-announced
	FailoverState                FailoverState
}

// ReplicaInfo is the replica half of INFO replication.
type ReplicaInfo struct {
	Host              string
	Port              int
	LinkUp            bool
	LastIOSecondsAgo  int // -1 when not connected
	SyncInProgress    bool
	ReadOffset        int64
	Offset            int64
	TransferTotal     int64 // -1 for a diskless ($EOF:) transfer
	TransferRead      int64
	TransferLastIOAgo int
	DownSinceSeconds  int64 // -1 when never connected
}

// SlaveInfo is one slave<n> line.
type SlaveInfo struct {
	IP     string
	Port   int
	State  string
	Offset int64
	Lag    int64
}

// Role is ROLE's reply: master (offset, online replicas) or slave.
type Role struct {
	Master   bool
	Offset   int64 // master: master_repl_offset; slave: processed offset, -1 with no link
	Replicas []RoleReplica
	Host     string
	Port     int
	State    string // handshake, connect, connecting, sync, connected
}

// RoleReplica is one [ip, port, offset] of a master's ROLE.
type RoleReplica struct {
	IP     string
	Port   int
	Offset int64
}

func (l *Link) ip() string {
	if l.ipAddress != "" {
		return l.ipAddress
	}
	host, _, err := net.SplitHostPort(l.conn.RemoteAddr())
	if err != nil {
		return l.conn.RemoteAddr()
	}
	return host
}

// Info gathers INFO replication.
func (p *Primary) Info() Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	in := Info{
		Master:          p.replica == nil,
		ConnectedSlaves: len(p.links),
		ReplID:          p.replid,
		ReplID2:         p.replid2,
		Offset:          p.offset,
		SecondOffset:    p.secondOffset,
		BacklogActive:   p.backlog != nil,
		BacklogSize:     p.cfg.BacklogSize,
		FailoverState:   p.failover,
	}
	if p.backlog != nil {
		in.BacklogFirstByte = p.backlog.first
		in.BacklogHistlen = p.backlog.histlen
		in.BacklogMemory = p.backlog.size()
	}
	for _, l := range p.links {
		in.ReplicaOutput += l.outputLocked()
	}
	if p.cfg.MinReplicas > 0 && p.cfg.MinReplicasMaxLag >= time.Second {
		in.MinSlavesOn = true
		in.GoodSlaves = p.goodLocked()
	}
	for _, l := range p.links {
		s := SlaveInfo{IP: l.ip(), Port: l.listeningPort, State: l.state.String(), Offset: l.ackOff}
		if s.State == "" {
			continue
		}
		if l.state == stateOnline {
			s.Lag = now.Unix() - l.ackTime
		}
		in.Slaves = append(in.Slaves, s)
	}
	if r := p.replica; r != nil {
		ri := &ReplicaInfo{
			Host:             r.o.Host,
			Port:             r.o.Port,
			LinkUp:           r.state == replConnected,
			LastIOSecondsAgo: -1,
			SyncInProgress:   r.state == replTransfer,
			ReadOffset:       1, // Redis's value with no master and no cached one
			Offset:           1,
			DownSinceSeconds: -1,
		}
		if r.state == replConnected {
			ri.ReadOffset, ri.Offset = r.readOff, r.reploff
		} else if p.cached != nil {
			ri.ReadOffset, ri.Offset = p.cached.off, p.cached.off
		}
		if r.state == replConnected {
			ri.LastIOSecondsAgo = int(now.Unix() - r.lastIO.Unix())
		}
		if r.state == replTransfer {
			ri.TransferTotal, ri.TransferRead = r.transferSize, r.transferRead
			ri.TransferLastIOAgo = int(now.Unix() - r.transferIO.Unix())
		}
		if !r.downSince.IsZero() {
			ri.DownSinceSeconds = now.Unix() - r.downSince.Unix()
		}
		in.Replica = ri
	}
	return in
}

// Append renders the section's lines (after its "# Replication" header),
// each ending in CRLF, as Redis 7.0's genRedisInfoString.
func (in *Info) Append(b []byte) []byte {
	line := func(k string, v string) {
		b = append(b, k...)
		b = append(b, ':')
		b = append(b, v...)
		b = append(b, '\r', '\n')
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	b01 := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	if in.Replica == nil {
		line("role", "master")
	} else {
		r := in.Replica
		line("role", "slave")
		line("master_host", r.Host)
		line("master_port", strconv.Itoa(r.Port))
		if r.LinkUp {
			line("master_link_status", "up")
		} else {
			line("master_link_status", "down")
		}
		line("master_last_io_seconds_ago", strconv.Itoa(r.LastIOSecondsAgo))
		line("master_sync_in_progress", b01(r.SyncInProgress))
		line("slave_read_repl_offset", i64(r.ReadOffset))
		line("slave_repl_offset", i64(r.Offset))
		if r.SyncInProgress {
			line("master_sync_total_bytes", i64(r.TransferTotal))
			line("master_sync_read_bytes", i64(r.TransferRead))
			line("master_sync_left_bytes", i64(r.TransferTotal-r.TransferRead))
			perc := 0.0
			if r.TransferTotal != 0 {
				perc = float64(r.TransferRead) / float64(r.TransferTotal) * 100
			}
			line("master_sync_perc", strconv.FormatFloat(perc, 'f', 2, 64))
			line("master_sync_last_io_seconds_ago", strconv.Itoa(r.TransferLastIOAgo))
		}
		if !r.LinkUp {
			line("master_link_down_since_seconds", i64(r.DownSinceSeconds))
		}
		line("slave_priority", strconv.Itoa(in.SlavePriority))
		line("slave_read_only", b01(in.SlaveReadOnly))
		line("replica_announced", b01(in.ReplicaAnnouncedOn))
	}
	line("connected_slaves", strconv.Itoa(in.ConnectedSlaves))
	if in.MinSlavesOn {
		line("min_slaves_good_slaves", strconv.Itoa(in.GoodSlaves))
	}
	for i, s := range in.Slaves {
		line("slave"+strconv.Itoa(i), "ip="+s.IP+",port="+strconv.Itoa(s.Port)+",state="+s.State+
			",offset="+i64(s.Offset)+",lag="+i64(s.Lag))
	}
	line("master_failover_state", in.FailoverState.String())
	line("master_replid", in.ReplID)
	line("master_replid2", in.ReplID2)
	line("master_repl_offset", i64(in.Offset))
	line("second_repl_offset", i64(in.SecondOffset))
	line("repl_backlog_active", b01(in.BacklogActive))
	line("repl_backlog_size", i64(in.BacklogSize))
	line("repl_backlog_first_byte_offset", i64(in.BacklogFirstByte))
	line("repl_backlog_histlen", i64(in.BacklogHistlen))
	return b
}

// Role gathers ROLE.
func (p *Primary) Role() Role {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.replica; r != nil {
		ro := Role{Host: r.o.Host, Port: r.o.Port, State: r.state.String(), Offset: -1}
		if r.state == replConnected {
			ro.Offset = r.reploff
		}
		return ro
	}
	ro := Role{Master: true, Offset: p.offset}
	for _, l := range p.links {
		if l.state != stateOnline {
			continue
		}
		ro.Replicas = append(ro.Replicas, RoleReplica{IP: l.ip(), Port: l.listeningPort, Offset: l.ackOff})
	}
	return ro
}

// SyncStats are INFO stats' sync_full, sync_partial_ok and
// sync_partial_err: the full syncs served, and the PSYNCs continued and
// refused (a "?" asks for a full sync and counts as neither).
func (p *Primary) SyncStats() (full, partialOK, partialErr int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.syncFull, p.syncPartOK, p.syncPartErr
}

// ResetSyncStats zeroes SyncStats (CONFIG RESETSTAT).
func (p *Primary) ResetSyncStats() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.syncFull, p.syncPartOK, p.syncPartErr = 0, 0, 0
}
