package repl

import (
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/internal/sdsargs"
)

// ReplicaConn is the connection of a replica, handed over by the
// front-end that read its REPLCONF and PSYNC.
type ReplicaConn interface {
	// Send queues a copy of p for the socket and returns at once; it must
	// not block and must not call back into this package. An error means
	// the connection is gone.
	Send(p []byte) error
	// Pending is the bytes Send queued that the socket has not taken
	// yet; safe from any goroutine. The output limit is checked on it.
	Pending() int
	// Close closes the connection (asynchronously is fine).
	Close()
	// RemoteAddr is the replica's "ip:port".
	RemoteAddr() string
}

type linkState int

const (
	stateNone linkState = iota
	stateWaitBgsaveStart
	stateWaitBgsaveEnd
	stateSendBulk
	stateOnline
)

// String is replstateToString, as INFO's slave<n> lines show it.
func (s linkState) String() string {
	switch s {
	case stateWaitBgsaveStart, stateWaitBgsaveEnd:
		return "wait_bgsave"
	case stateSendBulk:
		return "send_bulk"
	case stateOnline:
		return "online"
	}
	return ""
}

// Link is the replication side of one client connection: what its
// REPLCONF said, and once PSYNC or SYNC attached it, the replica's state.
// The front-end makes one per connection that sends REPLCONF or (P)SYNC,
// routes those commands to it, and calls Close when the connection goes.
type Link struct {
	p    *Primary
	conn ReplicaConn

	// From REPLCONF, before the sync.
	listeningPort int
	ipAddress     string
	capaEOF       bool
	capaPSYNC2    bool
	rdbOnly       bool
	filter        Filter // REPLCONF rdb-filter-only

	// Under p.mu once attached.
	attached   bool
	state      linkState
	prePSYNC   bool // came with SYNC: no +FULLRESYNC, no ACKs expected
	ackOff     int64
	ackTime    int64 // Unix seconds of the last ACK
	startOnAck bool  // diskless: the command stream starts at the first ACK
	held       []byte
	initialOff int64
	softSince  time.Time
	waitSince  time.Time // when it began waiting for a full sync
	diskless   bool      // its full sync is diskless ($EOF:)
	closed     bool
}

// NewLink makes the replication side of a connection.
func (p *Primary) NewLink(conn ReplicaConn) *Link {
	p.needCron()
	return &Link{p: p, conn: conn}
}

// The replies REPLCONF and PSYNC give, byte for byte.
const (
	replyOK          = "+OK\r\n"
	replySyntax      = "-ERR syntax error\r\n"
	replyNotInteger  = "-ERR value is not an integer or out of range\r\n"
	replyNoMasterRun = "-NOMASTERLINK Can't SYNC while not connected with my master\r\n"
	// ReplyPendingOutput is (P)SYNC's error on a connection with
	// replies not yet written.
	ReplyPendingOutput = "-ERR SYNC and PSYNC are invalid with pending output\r\n"
	// ErrWaitReplica is WAIT's error on a replica.
	ErrWaitReplica = "-ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.\r\n"
)

// netHostStrLen is NET_HOST_STR_LEN: the longest REPLCONF ip-address.
const netHostStrLen = 256

// Replconf runs REPLCONF (args[0] is the command name) and returns the
// reply, or nil when Redis sends none (ACK, GETACK).
func (l *Link) Replconf(args [][]byte) []byte {
	if len(args)%2 == 0 {
		return []byte(replySyntax)
	}
	p := l.p
	p.mu.Lock()
	locked := true
	unlock := func() {
		if locked {
			locked = false
			p.mu.Unlock()
		}
	}
	defer unlock()
	for j := 1; j < len(args); j += 2 {
		opt, val := strings.ToLower(string(args[j])), args[j+1]
		switch opt {
		case "listening-port":
			port, ok := parseInt(val)
			if !ok || port != int64(int(port)) {
				return []byte(replyNotInteger)
			}
			l.listeningPort = int(port)
		case "ip-address":
			if len(val) >= netHostStrLen {
				return []byte("-ERR REPLCONF ip-address provided by replica instance is too long: " +
					strconv.Itoa(len(val)) + " bytes\r\n")
			}
			l.ipAddress = string(val)
		case "capa":
			switch strings.ToLower(string(val)) {
			case "eof":
				l.capaEOF = true
			case "psync2":
				l.capaPSYNC2 = true
			}
		case "ack":
			unlock()
			if off, ok := parseInt(val); ok {
				p.ack(l, off)
			}
			return nil
		case "getack":
			r := p.replica
			unlock()
			if r != nil {
				r.sendAck()
			}
			return nil
		case "rdb-only":
			v, ok := parseInt(val)
			if !ok {
				return []byte(replyNotInteger)
			}
			if v < 0 || v > 1 {
				return []byte("-ERR value is out of range, must be between 0 and 1\r\n")
			}
			l.rdbOnly = v == 1
		case "rdb-filter-only":
			filters, ok := sdsargs.Strings(string(val))
			if !ok {
				return []byte("-ERR Missing rdb-filter-only values\r\n")
			}
			// Only what the filters include stays: "" leaves an RDB of
			// AUX fields alone.
			f := Filter{NoKeys: true, NoFunctions: true}
			for _, name := range filters {
				if !strings.EqualFold(name, "functions") {
					return []byte("-ERR Unsupported rdb-filter-only option: " + name + "\r\n")
				}
				f.NoFunctions = false
			}
			l.filter = f
		default:
			return []byte("-ERR Unrecognized REPLCONF option: " + string(args[j]) + "\r\n")
		}
	}
	return []byte(replyOK)
}

// ack records a replica's REPLCONF ACK and releases the WAITs it
// satisfies; ACKs of a connection that is not an attached replica are
// ignored, as Redis.
func (p *Primary) ack(l *Link, off int64) {
	p.mu.Lock()
	if !l.attached || l.closed {
		p.mu.Unlock()
		return
	}
	if off > l.ackOff {
		l.ackOff = off
	}
	l.ackTime = p.now().Unix()
	if l.startOnAck && l.state == stateOnline {
		l.startOnAck = false
		held := l.held
		l.held = nil
		if len(held) > 0 {
			l.sendLocked(held)
		}
	}
	ready := p.releaseWaitersLocked()
	p.mu.Unlock()
	for _, f := range ready {
		f()
	}
}

// Sync runs SYNC or PSYNC <replid> <offset> (args[0] is the name) for the
// connection: +CONTINUE and the backlog from the offset when the history
// matches, else +FULLRESYNC and an RDB from Config.Snapshot on a
// goroutine of its own. It returns a reply to send only on an error;
// otherwise the connection now belongs to the replication stream: the
// front-end writes nothing more to it itself and routes its REPLCONF
// here. The front-end checks first that the connection has no reply
// still unwritten (a pipeline's earlier replies) and else answers
// ReplyPendingOutput, as Redis: only it knows that synchronously
// (Pending may still count bytes the socket already took).
func (l *Link) Sync(args [][]byte) []byte {
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if l.attached {
		return nil
	}
	if p.replica != nil && !p.replica.connectedLocked() {
		return []byte(replyNoMasterRun)
	}
	if l.filter.filtered() && !l.capaEOF {
		// A filtered RDB is sent over the socket only, never spooled.
		return []byte("-ERR Filtered replica requires EOF capability\r\n")
	}
	psync := strings.EqualFold(string(args[0]), "psync")
	if psync {
		if len(args) < 3 {
			return []byte("-ERR wrong number of arguments for 'psync' command\r\n")
		}
		off, ok := parseInt(args[2])
		if !ok {
			return []byte(replyNotInteger)
		}
		id := string(args[1])
		if p.tryContinueLocked(l, id, off) {
			p.syncPartOK++
			return nil
		}
		if id != "?" {
			p.syncPartErr++
		}
	} else {
		l.prePSYNC = true
	}
	p.syncFull++
	l.attached = true
	l.state = stateWaitBgsaveStart
	p.links = append(p.links, l)
	if len(p.links) == 1 && p.backlog == nil {
		// A backlog made from scratch has no past: new ID, no ID2.
		p.replid = newReplID()
		p.clearID2Locked()
		p.createBacklogLocked()
		p.cfg.logf("Replication backlog created, my new replication IDs are '" + p.replid + "' and '" + p.replid2 + "'")
	}
	l.waitSince = p.now()
	p.startSyncLocked(false)
	return nil
}

// canContinue is masterTryPartialResynchronization's decision: the
// replica's history is ours (our ID, or our previous ID up to where it
// was valid) and the bytes from offset are still in the backlog.
func (p *Primary) canContinue(id string, offset int64) bool {
	if !strings.EqualFold(id, p.replid) &&
		(!strings.EqualFold(id, p.replid2) || offset > p.secondOffset) {
		return false
	}
	return p.backlog != nil && p.backlog.canServe(offset)
}

func (p *Primary) tryContinueLocked(l *Link, id string, offset int64) bool {
	if !p.canContinue(id, offset) {
		p.logRefusedLocked(l, id, offset)
		return false
	}
	l.attached = true
	l.state = stateOnline
	l.ackTime = p.now().Unix()
	p.links = append(p.links, l)
	reply := "+CONTINUE\r\n"
	if l.capaPSYNC2 {
		reply = "+CONTINUE " + p.replid + "\r\n"
	}
	if !l.sendLocked([]byte(reply)) {
		return true
	}
	if pending := p.backlog.appendFrom(nil, offset); len(pending) > 0 {
		l.sendLocked(pending)
	}
	p.cfg.logf("Partial resynchronization request from " + l.name() + " accepted. Sending " +
		strconv.FormatInt(p.offset-offset+1, 10) + " bytes of backlog starting from offset " + strconv.FormatInt(offset, 10) + ".")
	return true
}

// logRefusedLocked says why a PSYNC gets a full resync, in Redis's words
// (masterTryPartialResynchronization).
func (p *Primary) logRefusedLocked(l *Link, id string, offset int64) {
	switch {
	case id == "?":
		p.cfg.logf("Full resync requested by replica " + l.name())
	case !strings.EqualFold(id, p.replid) && !strings.EqualFold(id, p.replid2):
		p.cfg.logf("Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '" + id +
			"', my replication IDs are '" + p.replid + "' and '" + p.replid2 + "')")
	case !strings.EqualFold(id, p.replid):
		p.cfg.logf("Partial resynchronization not accepted: Requested offset for second ID was " + strconv.FormatInt(offset, 10) +
			", but I can reply up to " + strconv.FormatInt(p.secondOffset, 10))
	default:
		p.cfg.logf("Unable to partial resync with replica " + l.name() + " for lack of backlog (Replica request was: " + strconv.FormatInt(offset, 10) + ").")
		if offset > p.offset {
			p.cfg.logf("Warning: replica " + l.name() + " tried to PSYNC with an offset that is greater than the master replication offset.")
		}
	}
}

func (l *Link) name() string {
	return l.ip() + ":" + strconv.Itoa(l.listeningPort)
}

// feedLocked hands stream bytes to the replica as its state wants: not
// yet (they will be in its RDB), kept (the RDB is on its way), or sent.
// It returns false when the replica was dropped.
func (l *Link) feedLocked(b []byte) bool {
	switch {
	case l.state == stateWaitBgsaveStart:
		return true
	case l.state == stateOnline && !l.startOnAck:
		if !l.sendLocked(b) {
			return false
		}
	default:
		l.held = append(l.held, b...)
	}
	return l.checkLimitLocked()
}

// sendLocked writes to the connection; false when it failed and the
// replica was dropped.
func (l *Link) sendLocked(b []byte) bool {
	if l.closed {
		return false
	}
	if err := l.conn.Send(b); err != nil {
		l.p.dropLocked(l, "write error: "+err.Error())
		return false
	}
	return true
}

// outputLocked is what the replica has not taken yet: its held stream
// and its connection's queue (client-output-buffer-limit's measure, and
// INFO memory's mem_clients_slaves).
func (l *Link) outputLocked() int64 { return int64(len(l.held) + l.conn.Pending()) }

// checkLimitLocked applies client-output-buffer-limit replica to what the
// replica has not taken: its held stream and its connection's queue.
func (l *Link) checkLimitLocked() bool {
	p := l.p
	used := l.outputLocked()
	if p.cfg.OutputHard > 0 && used >= p.cfg.OutputHard {
		p.dropLocked(l, "output buffer hard limit")
		return false
	}
	if p.cfg.OutputSoft > 0 && used >= p.cfg.OutputSoft {
		now := p.now()
		if l.softSince.IsZero() {
			l.softSince = now
		} else if now.Sub(l.softSince) > p.cfg.OutputSoftTime {
			p.dropLocked(l, "output buffer soft limit")
			return false
		}
	} else {
		l.softSince = time.Time{}
	}
	return true
}

// dropLocked detaches and closes a replica.
func (p *Primary) dropLocked(l *Link, why string) {
	if p.detachLocked(l) {
		if l.attached {
			p.cfg.logf("Connection with replica " + l.name() + " lost (" + why + ").")
		}
		go l.conn.Close()
	}
}

// detachLocked forgets the replica; false when it already was.
func (p *Primary) detachLocked(l *Link) bool {
	if l.closed {
		return false
	}
	l.closed = true
	l.held = nil
	for i, x := range p.links {
		if x == l {
			p.links = append(p.links[:i], p.links[i+1:]...)
			break
		}
	}
	if len(p.links) == 0 {
		p.noLinksSince = p.now()
	}
	return true
}

// Close detaches the link when its connection went away.
func (l *Link) Close() {
	l.p.mu.Lock()
	l.p.detachLocked(l)
	l.p.mu.Unlock()
}

// putOnlineLocked ends a full sync (replicaPutOnline): the replica is
// online; after a diskless transfer its command stream waits for its
// first ACK (it loads the RDB first), else the held stream goes now.
func (p *Primary) putOnlineLocked(l *Link, diskless bool) {
	if l.closed {
		return
	}
	if l.rdbOnly {
		p.dropLocked(l, "rdb-only replica sent its RDB")
		return
	}
	l.state = stateOnline
	l.ackTime = p.now().Unix()
	p.cfg.logf("Synchronization with replica " + l.name() + " succeeded")
	if diskless {
		l.startOnAck = true
		return
	}
	held := l.held
	l.held = nil
	if len(held) > 0 {
		l.sendLocked(held)
	}
}
