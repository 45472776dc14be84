package resp

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/stripe"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/repl"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/users"
)

// Client is one Redis connection: its parser, reply writer, selected
// database and the state CLIENT and HELLO change. Its methods run on the
// connection's event loop; fields other goroutines read (CLIENT LIST) are
// behind mu or atomic.
type Client struct {
	fe     *Frontend
	peer   server.Peer
	id     uint64
	stripe uint8 // which copy of the shared counters this client adds to (stats.go)
	parser *Parser
	w      Writer
	db     engine.DB
	// expiryAt is the moment key expiry is judged at while a transaction
	// or script runs (stopExpiry); 0 otherwise.
	expiryAt int64
	events   engine.EventQueue // keyspace events for after the command's own (notify.go)
	// authenticated is false until AUTH/HELLO succeeds when requirepass is
	// set at connect time.
	authenticated bool
	closeAfter    bool
	scratch       [64]byte // lower-casing command names without allocating
	lookup        lastLookup
	created       time.Time

	// user is the ACL user the client runs as (acl.go): the default user
	// until AUTH or HELLO AUTH binds another, and again after RESET.
	user *users.User

	dbNum   atomic.Int32
	lastCmd atomic.Pointer[Command]
	proto   atomic.Int32
	mu      sync.Mutex // guards the fields below
	name    string
	libName string
	libVer  string
	noEvict bool
	noTouch bool // mirrors db.NoTouch for CLIENT LIST
	// errCounted: the error reply a script wrote was counted in the error
	// statistics already, by the command it called (countReplyError).
	// Atomic: a detached script writes it (exclusive.go).
	errCounted atomic.Bool
	killed     bool
	// isReplica: a replica's connection, past its SYNC or PSYNC (CLIENT
	// LIST flags=S, TYPE slave).
	isReplica atomic.Bool

	// CLIENT REPLY state, loop-local: replyOff drops every reply,
	// replySkip drops the current command's, replySkipNext makes the next
	// command's dropped.
	replyOff, replySkip, replySkipNext bool

	// blk is the blocking command the client is parked on (blocking.go),
	// loop-local; blocked mirrors it for INFO and the idle sweep.
	blk     *blockState
	blocked atomic.Int32
	// blockGen counts the client's blocking commands; unblockReq is a
	// CLIENT UNBLOCK for the one of that count (cmd_pause.go).
	blockGen   atomic.Uint64
	unblockReq atomic.Pointer[unblockRequest]
	// postponed: a CLIENT PAUSE holds back the command exec was given,
	// which Serve leaves unconsumed (cmd_pause.go), loop-local;
	// pauseParked: the pause's wake-up for this client is parked.
	postponed   bool
	pauseParked atomic.Bool

	// outsideGate: this Serve runs while a busy script holds the keyspace,
	// so only allow-busy commands run (busy.go). inExclusive: the client
	// runs inside an exclusive section (EXEC, a script), which nested
	// sections join rather than take again.
	outsideGate, inExclusive bool
	// gateHeld: this Serve is inside the gate (shared).
	gateHeld bool

	// Transaction state, loop-local (cmd_multi.go): tx is the open MULTI,
	// watched the keys WATCH marked.
	tx      *txState
	watched []watchedKey

	// ps is the client's pub/sub state once it subscribed
	// (pubsub_client.go); loop-local, set under mu for kill().
	ps *subscriber

	obuf outputLimit // client-output-buffer-limit normal (outputlimit.go), loop-local

	trk clientTracking // client-side caching (tracking_client.go)

	// CLIENT LIST's buffer figures (cmd_client.go's infoBuffers): bufs
	// is the server's report of the connection's buffers (nil when its
	// Peer gives none); inLen and inCap the running Serve's input,
	// loop-local; txCount the commands MULTI queued (-1 outside MULTI)
	// and txMem their bytes, for other loops.
	bufs           server.BufferReporter
	inLen, inCap   int
	txCount, txMem atomic.Int64

	// The write stream (effects.go): fx collects the effects of the
	// running command, transaction or script (a script's client shares
	// its caller's); writesTo counts the writes of the client's handles
	// (writes, or its caller's); ordered: the client holds the stream's
	// order lock.
	fx       *effects
	writes   engine.WriteCounter
	writesTo *engine.WriteCounter
	ordered  bool
	emitted  bool // the running batch fed the stream: syncStream before replying
	held     *propagate.Held
	// obeys: the client replays commands accepted once already (the AOF
	// at start, a master's stream: replay.go), which no OOM, MISCONF or
	// pause refuses, as Redis's loader and master client.
	obeys bool
	// link is the client's replication link once it sent REPLCONF or
	// (P)SYNC (cmd_replication.go).
	link *repl.Link
}

func newClient(f *Frontend, p server.Peer) *Client {
	c := &Client{fe: f, peer: p, id: p.ID(), created: time.Now()}
	c.events.Origin = c.id // its writes are its own, for tracking's NOLOOP
	c.fx, c.writesTo = &effects{}, &c.writes
	c.stripe = stripe.Of(c.id)
	c.bufs, _ = p.(server.BufferReporter)
	c.txCount.Store(-1)
	c.parser = NewParser(Limits{MaxBulkLen: f.cfg.ProtoMaxBulkLen()})
	c.w.Proto = 2
	c.proto.Store(2)
	c.selectDB(0)
	c.authenticated = !f.users.AuthRequired()
	c.user = f.users.Default()
	c.parser.SetAuthRequired(!c.authenticated)
	return c
}

// selectDB switches the client's database.
func (c *Client) selectDB(n int) {
	noTouch, overshoot, fromMaster := c.db.NoTouch, c.db.MayOvershoot, c.db.FromMaster
	c.db = c.countWrites(c.fe.eng.DB(n).WithEvents(&c.events).At(c.expiryAt))
	c.db.NoTouch, c.db.MayOvershoot, c.db.FromMaster = noTouch, overshoot, fromMaster
	c.dbNum.Store(int32(n))
}

// stopExpiry judges key expiry at one moment, now, until the returned
// func runs (EXEC, a script: engine.DB.At says why); a SELECT in between
// keeps it. Nested, the outer moment holds, as Redis's call() keeps the
// time of the outermost command.
func (c *Client) stopExpiry() (restart func()) {
	if c.expiryAt != 0 {
		return func() {}
	}
	c.expiryAt = c.nowMs()
	c.db = c.db.At(c.expiryAt)
	return func() {
		c.expiryAt = 0
		c.db = c.db.At(0)
	}
}

// serve parses and runs every complete command in in, appending replies to
// out: Serve (pubsub_client.go) without the pub/sub outbox.
func (c *Client) serve(in, out []byte) (int, []byte, bool) {
	if c.isKilled() { // CLIENT KILL from another connection: run nothing more
		return len(in), out, true
	}
	c.w.Buf = out
	c.inLen, c.inCap = len(in), cap(in)
	gate := c.fe.eng.Gate()
	if gate.Enter() {
		c.gateHeld = true
		defer func() {
			if c.gateHeld { // a long script may have left it (exclusive.go)
				gate.Leave()
				c.gateHeld = false
			}
		}()
	} else {
		// A busy script holds the keyspace: answer BUSY, run only what
		// may run beside it (busy.go).
		c.outsideGate = true
		defer func() { c.outsideGate = false }()
		if c.blk != nil {
			gate.WhenOpen(c.wake)
			return 0, c.w.Buf, false
		}
	}
	if !c.releaseHeld() {
		return 0, c.w.Buf, false // replies waiting for the AOF: later commands wait (effects.go)
	}
	if c.blk != nil && !c.resumeBlocked() {
		return 0, c.w.Buf, false // still blocked: later commands wait
	}
	if c.blocked.Load() == blockedPaused { // a pause held it back: its command is tried again
		c.blocked.Store(notBlocked)
	}
	consumed := 0
	limitAt := c.outputLimitAt(len(out)) // one comparison per command (outputlimit.go)
	for consumed < len(in) && !c.closeAfter && c.blk == nil {
		args, n, err := c.parser.Next(in[consumed:])
		if err != nil {
			c.w.Error("ERR " + err.Error())
			c.fe.countError("ERR")
			c.closeAfter = true
			break
		}
		if n == 0 {
			break
		}
		consumed += n
		if len(args) > 0 && isCrossProtocol(args[0]) { // POST, Host: (crossproto.go)
			c.abortCrossProtocol(len(out))
			break
		}
		if len(args) > 0 {
			c.execReply(args)
			if c.postponed { // CLIENT PAUSE: it runs when the pause ends (cmd_pause.go)
				c.postponed = false
				consumed -= n
				break
			}
			if len(c.w.Buf) > limitAt && c.overOutputLimit(&limitAt, consumed < len(in)) {
				break // closed past the limit, or yields (outputlimit.go)
			}
		}
	}
	c.events.Flush()       // events of a blocking command that finished
	c.syncStream(len(out)) // the AOF has the batch's writes before its replies go (effects.go)
	c.fe.stats.netInput.Add(c.stripe, int64(consumed))
	c.fe.stats.netOutput.Add(c.stripe, int64(len(c.w.Buf)-len(out)))
	return consumed, c.w.Buf, c.closeAfter
}

// Closed implements server.Session.
func (c *Client) Closed() {
	c.abortBlocked()
	if c.link != nil {
		c.link.Close()
	}
	c.unwatch()
	c.events.Flush()
	c.dropSubscriptions()
	c.trackingOff()
	c.monitorStop()
	c.fe.clients.Delete(c.id)
}

// IdleExempt tells the server's idle sweep to spare this client: blocked
// and subscribed clients and monitors are, as in Redis.
func (c *Client) IdleExempt() bool {
	return c.blocked.Load() != notBlocked || c.isPubSub() || c.isMonitor()
}

// makeRoom evicts before a command, any command, as Redis's
// processCommand does whenever maxmemory is set (so a read after a
// lower maxmemory or another policy evicts too), and reports whether
// used memory is still over the bound. A command a transaction or script
// runs makes none (Redis's call() does not), nor one served while a
// script is busy (isInsideYieldingLongCommand).
func (c *Client) makeRoom() bool {
	if c.inExclusive || c.outsideGate || c.fe.cfg.MaxMemory() <= 0 {
		return false
	}
	return c.trackingEvicted(c.fe.overMemory())
}

// refusedOnOOM reports whether cmd is refused while memory is over the
// bound: a denyoom command, an EXEC whose queue holds one, and any
// command a transaction would queue — queuing itself takes memory — but
// those that end it (EXEC, DISCARD, QUIT, RESET).
func (c *Client) refusedOnOOM(cmd *Command) bool {
	switch {
	case cmd.Flags&FlagDenyOOM != 0:
		return true
	case c.tx == nil:
		return false
	case cmd.Internal&RunsQueue != 0:
		return c.tx.denyOOM
	}
	return cmd.Internal&EndsMulti == 0
}

// exec runs one command: lookup, arity, auth, then the handler.
func (c *Client) exec(args [][]byte) {
	fe := c.fe
	if c.orderCommand() { // the write stream's order (effects.go)
		defer c.endOrdered()
	}
	cmd := c.lookup.find(fe.table, args[0], c.scratch[:])
	if cmd == nil {
		c.reject(nil, UnknownCommand(string(args[0]), args[1:]))
		return
	}
	if cmd.sub != nil && len(args) >= 2 {
		sc := cmd.subcommand(args[1], c.scratch[:])
		if sc == nil {
			c.reject(nil, UnknownSubcommand(cmd.Name, args[1]))
			return
		}
		cmd = sc
	}
	if !cmd.arityOK(len(args)) {
		c.reject(cmd, WrongArgs(cmd.Name))
		return
	}
	if !c.authenticated && cmd.Flags&FlagNoAuth == 0 {
		c.reject(cmd, ErrNoAuth)
		return
	}
	if msg := c.aclDenied(cmd, args); msg != "" { // Redis ACL (acl.go)
		c.reject(cmd, msg)
		return
	}
	if c.tx != nil && cmd.Flags&FlagNoMulti != 0 {
		c.reject(cmd, "ERR Command not allowed inside a transaction")
		return
	}
	if !c.obeys && c.makeRoom() && c.refusedOnOOM(cmd) {
		c.reject(cmd, ErrOOM)
		return
	}
	if c.ps != nil {
		if msg := c.pubsubDenied(cmd); msg != "" { // RESP2 subscribe mode
			c.reject(cmd, msg)
			return
		}
	}
	// Refusals by the server's state. EXEC's queue runs as one command:
	// Redis checked them for EXEC (as a write when a write is queued,
	// isWrite), not for what it runs.
	queued := c.inExclusive
	if !c.obeys && !queued && (cmd.Internal&RefusedOnMisconf != 0 || mayBeWrite(cmd)) {
		if msg := fe.diskError(); msg != "" && (cmd.Internal&RefusedOnMisconf != 0 || c.isWrite(cmd, args)) {
			c.reject(cmd, msg)
			return
		}
	}
	if !queued {
		if msg := c.replicationDenied(cmd, args); msg != "" { // a read-only replica, too few replicas (cmd_replication.go)
			c.reject(cmd, msg)
			return
		}
	}
	if !queued && c.staleReplica() && c.deniedWhenStale(cmd, args) { // replica-serve-stale-data no
		c.reject(cmd, errMasterDown)
		return
	}
	if !c.obeys && fe.svc.Loading.Active() && c.deniedWhenLoading(cmd, args) { // the load at start (services.Loading)
		c.reject(cmd, conf.ErrLoading)
		return
	}
	if c.outsideGate && cmd.Flags&FlagAllowBusy == 0 {
		c.reject(cmd, fe.busyError())
		return
	}
	if c.ps != nil && c.monitorDenied(cmd) { // MONITOR (cmd_monitor.go)
		return
	}
	if !c.obeys && c.pausedFor(cmd, args) { // CLIENT PAUSE (cmd_pause.go)
		return
	}
	if c.tx != nil && cmd.Internal&RunsInMulti == 0 {
		c.queue(cmd, args)
		return
	}
	c.lastCmd.Store(cmd)
	start := statNow()
	tracked := c.trackingBeforeRun(cmd, args) // client-side caching (tracking_client.go)
	before := len(c.w.Buf)
	c.monitorScript(cmd, args) // EVAL, FCALL: before their commands (cmd_monitor.go)
	writes := c.writesTo.Count()
	cmd.Run(c, args)
	c.recordEffect(cmd, args, writes, c.w.Buf[before:]) // the write stream (effects.go)
	c.trackingAfterRun(tracked)
	c.events.Flush() // keyspace events for after the command's own (notify.go)
	c.countRun(cmd, args, start, c.w.Buf[before:])
	c.monitorFeed(cmd, args) // MONITOR (cmd_monitor.go)
}

// countReplyError counts an error reply (the bytes after its '-') in
// INFO's error statistics, unless a script's command counted it already
// (errCounted).
func (c *Client) countReplyError(b []byte) {
	if c.errCounted.Swap(false) {
		return
	}
	c.fe.countError(errorCode(b))
}

// execReply runs one command under CLIENT REPLY's rules (the reply is
// dropped while replies are off or skipped) and counts an error reply,
// dropped or not, in INFO's error statistics, as Redis does.
func (c *Client) execReply(args [][]byte) {
	mark := len(c.w.Buf)
	c.exec(args)
	if c.postponed {
		return // not run: nothing to count or drop (cmd_pause.go)
	}
	mark = c.trackingMark(mark) // invalidations placed before the reply
	if len(c.w.Buf) > mark && c.w.Buf[mark] == '-' {
		c.countReplyError(c.w.Buf[mark+1:])
	}
	c.errCounted.Store(false)
	if c.replyOff || c.replySkip {
		c.w.Buf = c.w.Buf[:mark]
	}
	if c.ps != nil && c.ps.active {
		c.afterCommand(mark) // pushes and messages go before the reply
	}
	c.trackingAfterCommand(args) // invalidations go after it
	c.replySkip, c.replySkipNext = c.replySkipNext, false
}

// isKilled reports whether CLIENT KILL closed this client.
func (c *Client) isKilled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

// engineErrors maps each typed error of the engine to its Redis reply.
// A list compared with ==, as a switch would: a map would hash the error,
// which panics on an error type that is not comparable.
var engineErrors = [...]struct {
	err error
	msg string
}{
	{engine.ErrWrongType, ErrWrongType},
	{engine.ErrNotInteger, ErrNotInteger},
	{engine.ErrNotFloat, ErrNotFloat},
	{engine.ErrOverflow, ErrOverflow},
	{engine.ErrNaNOrInf, ErrNaNOrInf},
	{engine.ErrNoSuchKey, ErrNoSuchKey},
	{engine.ErrOOM, ErrOOM},
	{engine.ErrTooLarge, ErrStringTooLong},
	{engine.ErrDBIndex, ErrDBIndex},
	{engine.ErrSameObject, ErrSameObject},
}

// engineError writes the reply for an error the engine returned: its
// Redis text, or "ERR " and the error's own for one Redis has no text for.
func (c *Client) engineError(err error) {
	for _, e := range engineErrors {
		if err == e.err {
			c.w.Error(e.msg)
			return
		}
	}
	c.w.Error("ERR " + err.Error())
}
