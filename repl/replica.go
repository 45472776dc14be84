package repl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tandemkv/tandem/propagate"
)

// ReplicaOptions says which master to replicate and how to introduce
// this server to it.
type ReplicaOptions struct {
	Host string // REPLICAOF host
	Port int    // REPLICAOF port
	User string // masteruser ("" = AUTH <pass>)
	Pass string // masterauth ("" = no AUTH)
	// ListeningPort is REPLCONF listening-port: replica-announce-port, or
	// the port this server listens on.
	ListeningPort int
	AnnounceIP    string // replica-announce-ip ("" = not sent)
	// AtStartup is the replicaof directive read at start-up: this server
	// has no history of its own to offer (PSYNC ? -1) unless
	// RestoreHistory gave it one from the RDB it loaded. Without it, a
	// master turning replica offers its own history (REPLICAOF at run
	// time).
	AtStartup bool
	// Dial opens the connection within timeout (repl-timeout), giving
	// up when ctx ends: Stop ends it, as REPLICAOF NO ONE must not wait
	// for a connect to a silent host. nil is a TCP dial; a TLS
	// replication link dials here.
	Dial func(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error)
	// Failover makes the first PSYNC that gets a reply a PSYNC <replid>
	// <offset> FAILOVER: this master, failed over to its replica, asks
	// it to take over (FAILOVER). Callbacks.FailoverPSYNC hears the
	// outcome.
	Failover bool
}

// Callbacks are what the replica does with what its master sends.
type Callbacks struct {
	// Load replaces the keyspace with the RDB r yields (flush, then
	// load). r ends where the RDB ends; Load need not read it to EOF.
	// It returns the RDB's repl-stream-db AUX field (0 when absent): the
	// database the master's stream goes on in.
	Load func(r io.Reader) (streamDB int, err error)
	// Apply runs one command of the master's stream as the master client
	// (no reply, no propagation to this server's own write stream: see
	// Primary.Feed). db is the database it runs in; SELECT, MULTI and
	// EXEC come through too (db is then the new one). args alias a read
	// buffer: copy what is kept. PING and REPLCONF are answered here and
	// never reach Apply. An error is logged and the stream goes on, as a
	// command that fails on a replica does in Redis.
	Apply func(db int, args [][]byte) error
	// Log receives the link's events (connecting, sync, errors).
	Log func(msg string)
	// FailoverPSYNC reports, with ReplicaOptions.Failover, what became
	// of PSYNC … FAILOVER: accepted (+CONTINUE or +FULLRESYNC, the
	// target is now the master) or not (refused, or not sent: a write
	// error), as Redis's syncWithMaster clears or aborts the failover
	// there. It runs on the link's goroutine: it must not block, nor
	// stop the link itself.
	FailoverPSYNC func(accepted bool)
	// Linked, when set, is called as the master's stream starts being
	// applied (after a full sync's load, or at once on +CONTINUE), with
	// the connection's addresses and a drop that closes it (CLIENT KILL
	// of the master client: the link reconnects and asks to continue, as
	// Redis's). Unlinked is called when that stream ends.
	Linked   func(remote, local string, drop func())
	Unlinked func()
}

// replState is the replica's repl_state, as ROLE names it.
type replState int

const (
	replNone replState = iota
	replConnect
	replConnecting
	replHandshake
	replTransfer
	replConnected
)

func (s replState) String() string {
	return [...]string{"none", "connect", "connecting", "handshake", "sync", "connected"}[s]
}

// Replica is this server's link to its master: a goroutine that
// connects, handshakes, syncs and applies the stream, reconnecting with a
// partial resync after a drop. Its state lives under the Primary's mutex.
type Replica struct {
	p  *Primary
	o  ReplicaOptions
	cb Callbacks

	// Under p.mu.
	state         replState
	conn          net.Conn
	reploff       int64 // processed offset (master->reploff)
	readOff       int64 // read offset (master->read_reploff)
	lastIO        time.Time
	downSince     time.Time // zero: never connected
	transferSize  int64     // -1: EOF-marked
	transferRead  int64
	transferIO    time.Time
	usingMark     bool
	db            int
	everConnected bool
	drainUntil    time.Time // Drain: the stream's reads end then
	failover      bool      // the next PSYNC says FAILOVER (ReplicaOptions.Failover)

	wmu    sync.Mutex // one writer on the master connection
	stop   chan struct{}
	done   chan struct{}
	halted sync.Once
}

// StartReplica makes this server a replica of o's master (REPLICAOF host
// port) and returns at once; the link runs on its own goroutine. A master
// turning replica first caches its own history, so the new master may
// continue it (replicationCacheMasterUsingMyself); a replica switching
// masters keeps the history it had. From now on Feed is ignored and the
// master's stream is proxied to this server's replicas.
func (p *Primary) StartReplica(o ReplicaOptions, cb Callbacks) *Replica {
	p.needCron()
	p.mu.Lock()
	old := p.replica
	p.mu.Unlock()
	if old != nil {
		old.halt()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if old == nil && !o.AtStartup {
		p.cached = &cachedState{replid: p.replid, off: p.offset, db: -1}
	}
	r := &Replica{p: p, o: o, cb: cb, state: replConnect, db: 0, failover: o.Failover,
		stop: make(chan struct{}), done: make(chan struct{})}
	if p.cached != nil {
		r.reploff, r.readOff = p.cached.off, p.cached.off
		if p.cached.db >= 0 {
			r.db = p.cached.db
		}
	}
	p.replica = r
	go r.run()
	return r
}

// RestoreHistory takes the replication position an RDB loaded at start-up
// recorded (its repl-id, repl-offset and repl-stream-db AUX fields), as
// Redis's loadDataFromDisk: a server about to be a replica
// (asReplica: the replicaof directive) offers it in its first PSYNC; a
// master keeps it as its secondary ID, valid up to offset+1, with a
// backlog from there, so its replicas may continue after its restart.
// It reports whether c was a position to restore.
func (p *Primary) RestoreHistory(c Cut, asReplica bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(c.ReplID) != 40 || c.Offset < 0 || c.StreamDB < 0 {
		return false
	}
	if asReplica {
		p.replid = c.ReplID
		p.offset = c.Offset
		p.cached = &cachedState{replid: c.ReplID, off: c.Offset, db: c.StreamDB}
		return true
	}
	p.replid2 = c.ReplID
	p.secondOffset = c.Offset + 1
	p.offset = c.Offset
	p.createBacklogLocked()
	p.noLinksSince = p.now()
	return true
}

// SaveInfo is what a SAVE or BGSAVE records in the RDB's AUX fields
// (rdbPopulateSaveInfo): ok is false when there is no replication
// history worth recording (a master without backlog, a replica that
// never synced).
func (p *Primary) SaveInfo() (c Cut, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c = Cut{Offset: p.offset, ReplID: p.replid}
	switch {
	case p.replica == nil && p.backlog != nil:
		c.StreamDB = p.streamDBLocked()
		return c, true
	case p.replica != nil && p.replica.state == replConnected:
		c.StreamDB = p.replica.db
		return c, true
	case p.cached != nil && p.cached.db >= 0:
		c.StreamDB = p.cached.db
		return c, true
	}
	return Cut{}, false
}

// SaveCut brackets the instant of a dump this server saves (SAVE,
// BGSAVE, a save rule's, SHUTDOWN's): on a replica the apply loop is
// paused between commands, as for a full sync's cut, so the offset at
// records is exactly what the dump holds — no command applied and not yet
// counted, which a restart would apply twice. Call at at the dump's
// instant (while no command runs: it returns SaveInfo and lets the loop
// go) and release once the instant passed; release is idempotent and
// needed when at never ran. Call it holding no lock the apply loop
// takes (the keyspace's gate).
//
// A save the apply loop runs itself (a SAVE in the master's stream,
// which no master propagates) would wait for its own loop: after
// saveCutPatience the save goes on without the pause.
func (p *Primary) SaveCut() (at func() (Cut, bool), release func()) {
	p.mu.Lock()
	paused := p.replica != nil
	p.mu.Unlock()
	if paused {
		paused = p.lockGateWithin(saveCutPatience)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if paused {
				p.gate.Unlock()
			}
		})
	}
	at = func() (Cut, bool) {
		defer release()
		return p.SaveInfo()
	}
	return at, release
}

// saveCutPatience is how long SaveCut waits for the apply loop to pause.
const saveCutPatience = 2 * time.Second

// lockGateWithin takes gate for writing, giving up after patience; a
// lock taken later is let go at once.
func (p *Primary) lockGateWithin(patience time.Duration) bool {
	locked := make(chan struct{})
	go func() {
		p.gate.Lock()
		close(locked)
	}()
	t := time.NewTimer(patience)
	defer t.Stop()
	select {
	case <-locked:
		return true
	case <-t.C:
		go func() {
			<-locked
			p.gate.Unlock()
		}()
		p.cfg.logf("Saving without pausing the replication stream: its apply loop did not pause")
		return false
	}
}

// Stop is REPLICAOF NO ONE: the link ends and this server becomes a
// master that keeps its data and offset, with the master's ID as its
// secondary ID valid up to the next byte and a new ID of its own
// (shiftReplicationId), so its former fellow replicas can PSYNC continue
// with it. Its own replicas are disconnected to learn the new ID.
//
// Stop (and StartReplica replacing a link) waits for the link's goroutine
// to return, which may be inside Apply or Load: call it without holding
// a lock those take.
func (r *Replica) Stop() {
	r.halt()
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.replica != r {
		return
	}
	p.replica = nil
	p.cached = nil
	p.shiftIDLocked()
	p.disconnectLinksLocked("master mode enabled")
	p.seldb = -1
	p.noLinksSince = p.now()
	p.cfg.logf("MASTER MODE enabled")
}

// halt ends the link goroutine and caches what a PSYNC continues from.
func (r *Replica) halt() {
	r.halted.Do(func() {
		close(r.stop)
		r.p.mu.Lock()
		if r.conn != nil {
			r.conn.Close()
		}
		r.p.mu.Unlock()
		<-r.done
	})
}

func (r *Replica) logf(format string, a ...any) {
	if r.cb.Log != nil {
		r.cb.Log(fmt.Sprintf(format, a...))
	}
}

func (r *Replica) connectedLocked() bool { return r.state == replConnected }

func (r *Replica) stopped() bool {
	select {
	case <-r.stop:
		return true
	default:
		return false
	}
}

// run is the link: connect, sync, stream; on any failure wait a second
// (replicationCron's pace) and reconnect.
func (r *Replica) run() {
	defer close(r.done)
	for !r.stopped() {
		err := r.session()
		p := r.p
		p.mu.Lock()
		if r.state == replConnected {
			// replicationCacheMaster: the history to continue from.
			p.cached = &cachedState{replid: p.replid, off: r.reploff, db: r.db}
			r.downSince = p.now()
		}
		if r.conn != nil {
			r.conn.Close()
			r.conn = nil
		}
		r.state = replConnect
		p.mu.Unlock()
		if r.stopped() {
			return
		}
		if err == errDrained { // a Stop follows
			<-r.stop
			return
		}
		if err != nil {
			r.logf("Replication link with MASTER %s:%d: %v", r.o.Host, r.o.Port, err)
		}
		select {
		case <-r.stop:
			return
		case <-time.After(time.Second):
		}
	}
}

func (r *Replica) timeout() time.Duration {
	r.p.mu.Lock()
	defer r.p.mu.Unlock()
	if r.p.cfg.Timeout <= 0 {
		return 60 * time.Second
	}
	return r.p.cfg.Timeout
}

func (r *Replica) setState(s replState) {
	r.p.mu.Lock()
	r.state = s
	r.p.mu.Unlock()
}

// session is one connection to the master, from dial to its end.
func (r *Replica) session() error {
	timeout := r.timeout()
	r.setState(replConnecting)
	addr := net.JoinHostPort(r.o.Host, strconv.Itoa(r.o.Port))
	r.logf("Connecting to MASTER %s", addr)
	// Stop (REPLICAOF NO ONE, FAILOVER ABORT) must not wait for a
	// connect to a silent host to time out: in a partition, the
	// failover that stops this link is waiting on it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-r.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	dial := r.o.Dial
	if dial == nil {
		dial = func(ctx context.Context, addr string, t time.Duration) (net.Conn, error) {
			return (&net.Dialer{Timeout: t}).DialContext(ctx, "tcp", addr)
		}
	}
	conn, err := dial(ctx, addr, timeout)
	if err != nil {
		return err
	}
	r.p.mu.Lock()
	r.conn = conn
	r.state = replHandshake
	r.p.mu.Unlock()
	if r.stopped() {
		return nil
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	readLine := func() (string, error) {
		conn.SetReadDeadline(time.Now().Add(timeout))
		line, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	write := func(b []byte) error {
		r.wmu.Lock()
		defer r.wmu.Unlock()
		conn.SetWriteDeadline(time.Now().Add(timeout))
		_, err := conn.Write(b)
		return err
	}

	// PING: any reply but an error other than an auth one means the
	// master is there (it may want AUTH first).
	if err := write(propagate.AppendCommand(nil, []byte("PING"))); err != nil {
		return err
	}
	reply, err := readLine()
	if err != nil {
		return err
	}
	if strings.HasPrefix(reply, "-") && !strings.HasPrefix(reply, "-NOAUTH") &&
		!strings.HasPrefix(reply, "-NOPERM") && !strings.HasPrefix(reply, "-ERR operation not permitted") {
		return fmt.Errorf("Error reply to PING from master: '%s'", reply)
	}

	// AUTH, REPLCONF listening-port, ip-address and capa go in one write
	// and their replies are read in order, as Redis's handshake.
	var hs []byte
	var steps []string
	if r.o.Pass != "" {
		if r.o.User != "" {
			hs = propagate.AppendCommand(hs, []byte("AUTH"), []byte(r.o.User), []byte(r.o.Pass))
		} else {
			hs = propagate.AppendCommand(hs, []byte("AUTH"), []byte(r.o.Pass))
		}
		steps = append(steps, "auth")
	}
	hs = propagate.AppendCommand(hs, []byte("REPLCONF"), []byte("listening-port"), []byte(strconv.Itoa(r.o.ListeningPort)))
	steps = append(steps, "port")
	if r.o.AnnounceIP != "" {
		hs = propagate.AppendCommand(hs, []byte("REPLCONF"), []byte("ip-address"), []byte(r.o.AnnounceIP))
		steps = append(steps, "ip")
	}
	hs = propagate.AppendCommand(hs, []byte("REPLCONF"), []byte("capa"), []byte("eof"), []byte("capa"), []byte("psync2"))
	steps = append(steps, "capa")
	if err := write(hs); err != nil {
		return err
	}
	for _, step := range steps {
		reply, err := readLine()
		if err != nil {
			return err
		}
		if step == "auth" && strings.HasPrefix(reply, "-") {
			return fmt.Errorf("Unable to AUTH to MASTER: %s", reply)
		}
		if strings.HasPrefix(reply, "-") {
			// Old masters refuse some REPLCONF options; Redis goes on.
			r.logf("(Non critical) Master does not understand REPLCONF %s: %s", step, reply)
		}
	}

	// PSYNC with the cached history, or ask for a full sync.
	r.p.mu.Lock()
	psyncID, psyncOff := "?", "-1"
	var cached *cachedState
	if r.p.cached != nil {
		cached = r.p.cached
		psyncID = cached.replid
		psyncOff = strconv.FormatInt(cached.off+1, 10)
	}
	failover := r.failover
	r.p.mu.Unlock()
	psync := [][]byte{[]byte("PSYNC"), []byte(psyncID), []byte(psyncOff)}
	if failover {
		psync = append(psync, []byte("FAILOVER"))
	}
	if err := write(propagate.AppendCommand(nil, psync...)); err != nil {
		if failover {
			r.failoverDone(false)
		}
		return err
	}
	for {
		reply, err = readLine()
		if err != nil {
			return err // the failover stays in progress: the next session asks again, as Redis
		}
		if reply != "" { // newlines while the master prepares
			break
		}
	}
	if failover {
		// Redis's FAILOVER expects +CONTINUE, but a full resync completes
		// it too; any other reply aborts it.
		accepted := strings.HasPrefix(reply, "+FULLRESYNC") || strings.HasPrefix(reply, "+CONTINUE")
		if accepted && strings.HasPrefix(reply, "+CONTINUE") {
			r.continueSync(strings.TrimSpace(strings.TrimPrefix(reply, "+CONTINUE")), cached)
			r.failoverDone(true)
			return r.stream(conn, br, timeout)
		}
		r.failoverDone(accepted) // refused: the switch below says why
	}
	switch {
	case strings.HasPrefix(reply, "+FULLRESYNC"):
		f := strings.Fields(reply)
		id, off := "", int64(-1)
		if len(f) == 3 && len(f[1]) == 40 {
			id = f[1]
			off, _ = strconv.ParseInt(f[2], 10, 64)
		}
		r.logf("Full resync from master: %s:%d", id, off)
		if err := r.fullSync(br, readLine, id, off, timeout); err != nil {
			return err
		}
	case strings.HasPrefix(reply, "+CONTINUE"):
		r.continueSync(strings.TrimSpace(strings.TrimPrefix(reply, "+CONTINUE")), cached)
	case strings.HasPrefix(reply, "-NOMASTERLINK"), strings.HasPrefix(reply, "-LOADING"):
		return fmt.Errorf("Master is currently unable to PSYNC but should be in the future: %s", reply)
	default:
		return fmt.Errorf("Unexpected reply to PSYNC from master: %s", reply)
	}
	return r.stream(conn, br, timeout)
}

// errDrained ends a session Drain stopped.
var errDrained = errors.New("the stream was drained for a promotion")

// Drain lets the link apply what its master already sent, waiting at
// most d for more, then ends its session; it returns once the session
// ended (or d plus a margin passed). A replica promoted by PSYNC …
// FAILOVER calls it before Stop: the master's last writes, which may have
// reached it just before the PSYNC did (a replica that was stalled), are
// applied first, as Redis's one event loop reads them first.
func (r *Replica) Drain(d time.Duration) {
	p := r.p
	until := time.Now().Add(d)
	p.mu.Lock()
	if r.state != replConnected || r.conn == nil {
		p.mu.Unlock()
		return
	}
	r.drainUntil = until
	r.conn.SetReadDeadline(until)
	p.mu.Unlock()
	for time.Now().Before(until.Add(drainMargin)) {
		p.mu.Lock()
		ended := r.state != replConnected
		p.mu.Unlock()
		if ended {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// drainMargin bounds how long Drain waits past its deadline for the
// commands being applied.
const drainMargin = 100 * time.Millisecond

// failoverDone ends the PSYNC … FAILOVER: later PSYNCs are plain ones.
func (r *Replica) failoverDone(accepted bool) {
	r.p.mu.Lock()
	r.failover = false
	r.p.mu.Unlock()
	if r.cb.FailoverPSYNC != nil {
		r.cb.FailoverPSYNC(accepted)
	}
}

// continueSync resumes the cached history (+CONTINUE [<replid>]); a new
// ID means the master was promoted: our ID becomes the secondary one, and
// our own replicas reconnect to learn the change.
func (r *Replica) continueSync(newID string, cached *cachedState) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(newID) == 40 && cached != nil && newID != cached.replid {
		p.replid2 = cached.replid
		p.secondOffset = p.offset + 1
		p.replid = newID
		p.disconnectLinksLocked("master replication ID changed")
	}
	if p.backlog == nil {
		p.createBacklogLocked()
	}
	if cached != nil {
		r.reploff, r.readOff = cached.off, cached.off
	}
	p.cached = nil
	r.state = replConnected
	r.everConnected = true
	r.lastIO = p.now()
	r.downSince = time.Time{}
	r.logf("Successful partial resynchronization with master.")
}

// fullSync reads the RDB that follows +FULLRESYNC into Load and makes the
// master's history ours.
func (r *Replica) fullSync(br *bufio.Reader, readLine func() (string, error), id string, off int64, timeout time.Duration) error {
	var header string
	for {
		line, err := readLine()
		if err != nil {
			return err
		}
		if line == "" {
			continue // keepalive while the master saves
		}
		header = line
		break
	}
	if strings.HasPrefix(header, "-") {
		return fmt.Errorf("MASTER aborted replication with an error: %s", header)
	}
	if !strings.HasPrefix(header, "$") {
		return fmt.Errorf("Bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host and port are right?", header)
	}
	p := r.p
	var body io.Reader
	var mark []byte
	size := int64(-1)
	if strings.HasPrefix(header, "$EOF:") && len(header) == 5+eofMarkSize {
		mark = []byte(header[5:])
	} else {
		n, err := strconv.ParseInt(header[1:], 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("Bad RDB length from MASTER: %s", header)
		}
		size = n
	}
	// replicationAttachToNewMaster: the old history is gone, and so are
	// replicas that followed it.
	p.mu.Lock()
	r.state = replTransfer
	r.transferSize, r.transferRead, r.transferIO = size, 0, p.now()
	r.usingMark = mark != nil
	p.cached = nil
	p.disconnectLinksLocked("full resync with a new master")
	p.backlog = nil
	p.mu.Unlock()
	conn := r.connLocked()
	counted := &transferReader{r: r, br: br, conn: conn, timeout: timeout}
	if mark != nil {
		body = &eofReader{src: counted, mark: mark}
	} else {
		body = io.LimitReader(counted, size)
	}
	if r.cb.Load == nil {
		return errors.New("repl: no Load callback")
	}
	streamDB, err := r.cb.Load(body)
	if err != nil {
		return fmt.Errorf("Failed trying to load the MASTER synchronization DB from socket: %v", err)
	}
	// What Load left unread must still be consumed up to the RDB's end.
	if _, err := io.Copy(io.Discard, body); err != nil {
		return err
	}
	if er, ok := body.(*eofReader); ok && !er.found {
		return errors.New("Failed trying to load the MASTER synchronization DB from socket: EOF mark not found")
	}
	p.mu.Lock()
	p.replid = id
	p.offset = off
	p.clearID2Locked()
	p.createBacklogLocked()
	p.seldb = -1
	r.reploff, r.readOff = off, off
	r.db = streamDB
	r.state = replConnected
	r.everConnected = true
	r.lastIO = p.now()
	r.downSince = time.Time{}
	p.mu.Unlock()
	r.logf("MASTER <-> REPLICA sync: Finished with success")
	if mark != nil {
		// The master starts the stream at our first ACK.
		r.sendAck()
	}
	return nil
}

func (r *Replica) connLocked() net.Conn {
	r.p.mu.Lock()
	defer r.p.mu.Unlock()
	return r.conn
}

// transferReader counts the RDB's bytes for INFO and keeps the read
// deadline at repl-timeout.
type transferReader struct {
	r       *Replica
	br      *bufio.Reader
	conn    net.Conn
	timeout time.Duration
}

func (t *transferReader) Read(b []byte) (int, error) {
	t.conn.SetReadDeadline(time.Now().Add(t.timeout))
	n, err := t.br.Read(b)
	if n > 0 {
		t.r.p.mu.Lock()
		t.r.transferRead += int64(n)
		t.r.transferIO = t.r.p.now()
		t.r.p.mu.Unlock()
	}
	return n, err
}

// eofReader yields a diskless RDB: everything before the 40-byte mark
// that ends it. It keeps the last 40 bytes read back until it knows they
// are not the mark.
type eofReader struct {
	src   io.Reader
	mark  []byte
	buf   []byte // read, not yet returned; the last len(mark) are held
	found bool
	err   error
}

func (e *eofReader) Read(p []byte) (int, error) {
	for {
		if e.found {
			if len(e.buf) > 0 {
				n := copy(p, e.buf)
				e.buf = e.buf[n:]
				return n, nil
			}
			return 0, io.EOF
		}
		if ready := len(e.buf) - len(e.mark); ready > 0 {
			n := copy(p, e.buf[:ready])
			e.buf = append(e.buf[:0], e.buf[n:]...)
			return n, nil
		}
		if e.err != nil {
			return 0, e.err
		}
		chunk := make([]byte, 32<<10)
		n, err := e.src.Read(chunk)
		e.buf = append(e.buf, chunk[:n]...)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		e.err = err
		if len(e.buf) >= len(e.mark) && bytes.Equal(e.buf[len(e.buf)-len(e.mark):], e.mark) {
			e.found = true
			e.buf = e.buf[:len(e.buf)-len(e.mark)]
		}
	}
}

// sendAck sends REPLCONF ACK <processed offset> (replicationSendAck).
func (r *Replica) sendAck() {
	r.p.mu.Lock()
	conn, off, ok := r.conn, r.reploff, r.state == replConnected
	r.p.mu.Unlock()
	if ok && conn != nil {
		r.writeAck(conn, off)
	}
}

func (r *Replica) writeAck(conn net.Conn, off int64) {
	b := propagate.AppendCommand(nil, []byte("REPLCONF"), []byte("ACK"), []byte(strconv.FormatInt(off, 10)))
	r.wmu.Lock()
	defer r.wmu.Unlock()
	conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	conn.Write(b)
}

// stream applies the master's command stream until the link fails.
func (r *Replica) stream(conn net.Conn, br *bufio.Reader, timeout time.Duration) error {
	p := r.p
	if r.cb.Linked != nil {
		r.cb.Linked(conn.RemoteAddr().String(), conn.LocalAddr().String(), func() { conn.Close() })
	}
	if r.cb.Unlinked != nil {
		defer r.cb.Unlinked()
	}
	// REPLCONF ACK once a second (replicationCron).
	ackDone := make(chan struct{})
	defer close(ackDone)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ackDone:
				return
			case <-t.C:
				r.sendAck()
			}
		}
	}()
	buf := make([]byte, 0, 64<<10)
	inMulti := false
	// buf[:applied] is applied and proxied; buf[applied:parsed] is parsed
	// and executed but held back inside an open MULTI (Redis counts a
	// transaction in the offset at its EXEC); buf[parsed:] is unparsed.
	applied, parsed := 0, 0
	for {
		if applied > 0 {
			rest := copy(buf, buf[applied:])
			buf = buf[:rest]
			parsed -= applied
			applied = 0
		}
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		// Under p.mu, so that a Drain's shorter deadline is never
		// overwritten by this one.
		p.mu.Lock()
		if !r.drainUntil.IsZero() {
			conn.SetReadDeadline(r.drainUntil)
		} else {
			conn.SetReadDeadline(time.Now().Add(timeout))
		}
		p.mu.Unlock()
		n, err := br.Read(buf[len(buf):cap(buf)])
		if n == 0 && err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				p.mu.Lock()
				draining := !r.drainUntil.IsZero() // set while this Read waited, too
				p.mu.Unlock()
				if draining {
					return errDrained
				}
				return errors.New("MASTER timeout: no data nor PING received")
			}
			return err
		}
		buf = buf[:len(buf)+n]
		p.mu.Lock()
		r.readOff += int64(n)
		r.lastIO = p.now()
		p.mu.Unlock()

		p.gate.RLock()
		var perr error
		for {
			args, used, err := ParseCommand(buf[parsed:])
			if err != nil {
				perr = err
				break
			}
			if used == 0 {
				break
			}
			parsed += used
			if len(args) > 0 {
				inMulti = r.execute(args, inMulti)
			}
			if !inMulti {
				// The applied bytes become our offset and are proxied
				// to our replicas, as commandProcessed.
				p.mu.Lock()
				r.reploff += int64(parsed - applied)
				p.proxyLocked(buf[applied:parsed])
				p.mu.Unlock()
				applied = parsed
			}
		}
		p.gate.RUnlock()
		if perr != nil {
			return perr
		}
	}
}

// execute runs one command of the stream and returns whether a MULTI is
// open after it.
func (r *Replica) execute(args [][]byte, inMulti bool) bool {
	name := strings.ToLower(string(args[0]))
	switch name {
	case "ping":
		if len(args) > 1 {
			break // a PING with an argument carries Tandem's note of a memcached item: Apply's
		}
		return inMulti
	case "replconf":
		if len(args) >= 2 && strings.EqualFold(string(args[1]), "getack") {
			r.sendAck() // the offset before this GETACK, as Redis
		}
		return inMulti
	case "select":
		if len(args) == 2 {
			if db, ok := parseInt(args[1]); ok {
				r.p.mu.Lock()
				r.db = int(db)
				r.p.mu.Unlock()
			}
		}
	case "multi":
		inMulti = true
	case "exec", "discard":
		inMulti = false
	}
	r.p.mu.Lock()
	db := r.db
	r.p.mu.Unlock()
	if r.cb.Apply != nil {
		if err := r.cb.Apply(db, args); err != nil {
			r.logf("== CRITICAL == This replica failed to apply a command from its master: '%s': %v", name, err)
		}
	}
	return inMulti
}
