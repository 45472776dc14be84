package repl

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/tandemkv/tandem/propagate"
)

// zeroID is a cleared replid2 (clearReplicationId2).
const zeroID = "0000000000000000000000000000000000000000"

// Primary is this server's replication state and its master role: the
// replication IDs and offset, the backlog, the attached replicas. It is a
// Sink of the write stream. When the server is itself a replica
// (StartReplica), the same Primary proxies the master's stream to its own
// replicas, byte for byte, and ignores Feed.
//
// Lock order: gate → the log's lock (the caller's, held around Feed and
// SnapshotFunc's cut) → mu. Nothing here calls out to the caller while holding mu except
// ReplicaConn.Send, which must not call back.
type Primary struct {
	// gate pauses a replica's apply loop between commands while a full
	// sync of a sub-replica takes its cut (see fullSync).
	gate sync.RWMutex

	cronOnce sync.Once // the cron goroutine started (needCron)

	mu           sync.Mutex
	cfg          Config
	replid       string
	replid2      string
	secondOffset int64 // second_replid_offset
	offset       int64 // master_repl_offset
	backlog      *backlog
	seldb        int // slaveseldb: the db the stream last SELECTed, -1 = none
	links        []*Link
	noLinksSince time.Time
	syncFull     int64
	syncPartOK   int64
	syncPartErr  int64
	waiters      []*waiter
	ackWanted    bool
	cronLoops    int64          // replication_cron_loops; -1 until the first Cron
	started      time.Time      // when the Primary (the server) was made
	syncing      bool           // a full sync's snapshot is being made or sent
	syncs        sync.WaitGroup // the full syncs' goroutines, which Close waits for
	failover     FailoverState
	holdPing     bool // a failover with a timeout waits: no PING (SetFailover)

	replica *Replica     // non-nil while this server replicates a master
	cached  *cachedState // the master state a PSYNC continues from

	now     func() time.Time
	wakeAck chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// cachedState is what Redis keeps of its master client (cached_master)
// to ask for a partial resync: its replication ID and processed offset.
type cachedState struct {
	replid string
	off    int64
	db     int
}

// NewPrimary returns the replication state of a fresh master: a random
// replication ID, offset 0, no backlog until the first replica attaches.
// It runs the replication cron (once a second) from the first moment it
// has work — a replica link, a master, a backlog, a WAIT — until Close: a
// server that never replicates runs no goroutine that would keep it
// alive (a test's services, a fuzz input's).
func NewPrimary(cfg Config) *Primary {
	return newPrimary(cfg, time.Now)
}

// needCron starts the cron, once.
func (p *Primary) needCron() {
	p.cronOnce.Do(func() { go p.cronLoop() })
}

func newPrimary(cfg Config, now func() time.Time) *Primary {
	return &Primary{
		cfg:          cfg,
		replid:       newReplID(),
		replid2:      zeroID,
		secondOffset: -1,
		seldb:        -1,
		now:          now,
		noLinksSince: now(),
		started:      now(),
		cronLoops:    -1,
		wakeAck:      make(chan struct{}, 1),
		stop:         make(chan struct{}),
		done:         make(chan struct{}),
	}
}

// Close stops the cron and the replica link, and closes every replica.
func (p *Primary) Close() {
	p.mu.Lock()
	r := p.replica
	p.mu.Unlock()
	if r != nil {
		r.halt()
	}
	select {
	case <-p.stop:
	default:
		close(p.stop)
		p.cronOnce.Do(func() { close(p.done) }) // it never started
		<-p.done
	}
	p.mu.Lock()
	for len(p.links) > 0 {
		p.dropLocked(p.links[0], "closing")
	}
	p.mu.Unlock()
	// A full sync in flight ends at its next write now that its replicas
	// are gone; its spool file is removed before Close returns.
	p.syncs.Wait()
}

// SetConfig applies a changed configuration (CONFIG SET): a new
// repl-backlog-size resizes the backlog keeping its newest bytes.
func (p *Primary) SetConfig(cfg Config) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.backlog != nil && cfg.BacklogSize != p.backlog.size() {
		p.backlog = p.backlog.resize(cfg.BacklogSize)
	}
	p.cfg = cfg
}

func newReplID() string {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// Feed implements the write stream's Sink: cmd (one RESP multibulk) is
// appended to the backlog and to every replica, after a SELECT when db
// differs from the stream's last. It copies cmd and never blocks. A
// replica ignores it: it proxies its master's stream instead, so its own
// replicas see the master's bytes and offsets (Redis's
// replicationFeedSlaves returns at once when masterhost is set).
func (p *Primary) Feed(db int, cmd []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.replica != nil {
		return
	}
	p.feedLocked(db, cmd)
}

// FeedsReplicas marks the Primary as a propagate.ReplicaSink: it is fed
// the ops meant for replicas alone (PUBLISH).
func (p *Primary) FeedsReplicas() {}

// ForgetDB makes the next fed command start with a SELECT (slaveseldb =
// -1), e.g. after the keyspace was replaced under the stream.
func (p *Primary) ForgetDB() {
	p.mu.Lock()
	p.seldb = -1
	p.mu.Unlock()
}

// Offset is master_repl_offset: the offset of the last byte of the
// stream. A client's WAIT waits for the Offset read after its last write.
func (p *Primary) Offset() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.offset
}

// streamDBLocked is repl-stream-db: on a replica the database its
// master's stream is in; on a master the stream's last SELECT (0 when
// none), which a full sync re-sends anyway.
func (p *Primary) streamDBLocked() int {
	if p.replica != nil {
		return p.replica.db
	}
	if p.seldb < 0 {
		return 0
	}
	return p.seldb
}

// ReplID is the current replication ID.
func (p *Primary) ReplID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.replid
}

func (p *Primary) feedLocked(db int, cmd []byte) {
	if p.backlog == nil && len(p.links) == 0 {
		return
	}
	if p.seldb != db {
		p.writeLocked(selectCommand(db))
		p.seldb = db
	}
	p.writeLocked(cmd)
}

// selectCommand is "SELECT <db>" in the stream's form; db -1 (a command
// fed for no database: PING, REPLCONF GETACK when nothing was selected)
// never differs from a forgotten slaveseldb, so it is never asked for.
func selectCommand(db int) []byte {
	if db >= 0 && db < len(sharedSelects) {
		return sharedSelects[db]
	}
	return propagate.Select(nil, db)
}

// sharedSelects are the SELECTs of the first databases, made once (as
// Redis's shared.select).
var sharedSelects = func() (s [16][]byte) {
	for db := range s {
		s[db] = propagate.Select(nil, db)
	}
	return s
}()

// writeLocked appends stream bytes to the backlog and every replica.
func (p *Primary) writeLocked(b []byte) {
	if p.backlog != nil {
		p.backlog.write(b)
	}
	p.offset += int64(len(b))
	for i := 0; i < len(p.links); i++ {
		l := p.links[i]
		if !l.feedLocked(b) {
			i--
		}
	}
}

// proxyLocked feeds bytes of the master's stream this replica applied
// (replicationFeedStreamFromMasterStream): no SELECT is inserted, the
// bytes are the master's.
func (p *Primary) proxyLocked(b []byte) {
	if p.backlog == nil {
		return
	}
	p.writeLocked(b)
}

// createBacklogLocked starts the backlog after the current offset.
func (p *Primary) createBacklogLocked() {
	p.needCron() // repl-backlog-ttl
	p.backlog = newBacklog(p.cfg.BacklogSize, p.offset)
}

// shiftIDLocked keeps the current history as the secondary ID, valid up
// to the next byte, and starts a new one (shiftReplicationId): replicas
// of the old master can continue with a promoted replica.
func (p *Primary) shiftIDLocked() {
	p.replid2 = p.replid
	p.secondOffset = p.offset + 1
	p.replid = newReplID()
	p.cfg.logf("Setting secondary replication ID to " + p.replid2 + ", valid up to offset: " +
		strconv.FormatInt(p.secondOffset, 10) + ". New replication ID is " + p.replid)
}

func (p *Primary) clearID2Locked() {
	p.replid2 = zeroID
	p.secondOffset = -1
}

// disconnectLinksLocked drops every replica (disconnectSlaves): they
// reconnect and learn the new history.
func (p *Primary) disconnectLinksLocked(why string) {
	for len(p.links) > 0 {
		p.dropLocked(p.links[0], why)
	}
}

// GoodReplicas counts the online replicas whose last ACK is at most
// min-replicas-max-lag old (repl_good_slaves_count), for
// min-replicas-to-write.
func (p *Primary) GoodReplicas() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.goodLocked()
}

func (p *Primary) goodLocked() int {
	now := p.now().Unix()
	lag := int64(p.cfg.MinReplicasMaxLag / time.Second)
	good := 0
	for _, l := range p.links {
		if l.state == stateOnline && now-l.ackTime <= lag {
			good++
		}
	}
	return good
}

// EnoughReplicas is checkGoodReplicasStatus: false when this master has
// min-replicas-to-write and min-replicas-max-lag set and fewer good
// replicas; a write is then refused with -NOREPLICAS.
func (p *Primary) EnoughReplicas() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.replica != nil || p.cfg.MinReplicas == 0 || p.cfg.MinReplicasMaxLag < time.Second {
		return true
	}
	return p.goodLocked() >= p.cfg.MinReplicas
}

// IsReplica reports whether this server replicates a master.
func (p *Primary) IsReplica() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.replica != nil
}
