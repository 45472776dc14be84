package resp

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/tracking"
)

// Client-side caching on the Redis port: CLIENT TRACKING, CACHING,
// GETREDIR and TRACKINGINFO, the keys a tracking client's reads register,
// and how invalidation messages reach a connection. The table itself, and
// who is told what, is package tracking's (a shared service: memcached
// writes invalidate too).
//
// Registering reads. A read-only command of a client that tracks reads
// (tracking on, not BCAST, OPTIN/OPTOUT and CLIENT CACHING permitting)
// registers its keys with the table before it runs and again after
// (tracking.Begin, End; trackingBeforeRun, trackingAfterRun), as Redis's
// call() remembers them after the command. Inside a script every
// read-only command registers the keys the script was given (EVAL's,
// FCALL's), as Redis remembers its caller's command's keys; EVAL_RO,
// EVALSHA_RO and FCALL_RO register nothing themselves (NotTracked).
//
// Delivering. The table calls a connection's Deliver from any goroutine,
// often under an engine shard lock. Deliver formats the message in the
// connection's protocol at that moment (a RESP3 push, or for a RESP2
// redirect target in pub/sub mode a message on __redis__:invalidate) and
// appends it to the connection's tracking box, a buffer under its own
// mutex, waking the connection's loop if it is idle. The loop moves the
// box into its output where Redis would have written the messages:
//
//   - at the start of a batch (Serve), unless the client is blocked: a
//     blocked command's reply comes first, as Redis serves it before the
//     invalidation its hand-off caused;
//   - after a command's eviction (its memory check), whose invalidations
//     Redis sends at once, before the reply; outside transactions and
//     scripts;
//   - after a command's reply: the invalidations the command caused to the
//     client's own keys (Redis's pending keys, sent after the reply, and
//     after EXEC's whole reply), and whatever arrived while it ran, which
//     must not come before a reply computed from the old value;
//   - at the end of the batch: what arrived meanwhile, and the broadcasts
//     the batch's writes caused (for a client parked on a long script,
//     after the script's reply).
//
// CLIENT REPLY OFF does not drop them, as Redis's pushes bypass it.

// clientTracking is a client's tracking state on the Redis side.
type clientTracking struct {
	// box holds delivered messages until the loop writes them; created by
	// the first delivery, from any goroutine.
	box atomic.Pointer[trackingBox]
	// Loop-local (and read by the client's scripts, which run while it
	// waits): the table's state for this client, as its commands left it.
	mode    tracking.Mode
	caching bool // CLIENT CACHING YES/NO given for the next command
	// pre: bytes of messages placed before the running command's reply.
	pre int
}

// trackingBox is a connection's queue of invalidation messages. Like a
// subscriber's outbox, it is bounded by client-output-buffer-limit (the
// pubsub class for a subscribed connection, else normal), with what the
// socket still held at the loop's last look: past it the connection is
// closed and the box dropped.
type trackingBox struct {
	mu        sync.Mutex
	buf       []byte
	busy      bool      // the loop is inside Serve and will look before it returns
	dead      bool      // closed for its output limit: drop everything
	held      int64     // bytes the socket held at the loop's last look
	softSince time.Time // over the soft limit since
}

// trackingConn is a Client as the tracking table sees it.
type trackingConn Client

// Proto implements tracking.Conn.
func (tc *trackingConn) Proto() int { return int((*Client)(tc).proto.Load()) }

// Deliver implements tracking.Conn (sendTrackingMessage's second half:
// the connection is chosen, here it is written for).
func (tc *trackingConn) Deliver(m *tracking.Message) {
	c := (*Client)(tc)
	proto := tc.Proto()
	pubsubForm := false
	switch {
	case m.BrokenRedirect != 0 || proto == 3:
		if proto != 3 {
			return // RESP2 has no push to say the redirect broke
		}
	case m.Redirected && c.isPubSub():
		pubsubForm = true
	default:
		return // RESP2 without a pub/sub redirect cannot be told
	}
	class := conf.ClientNormal
	if c.isPubSub() {
		class = conf.ClientPubSub
	}
	lim := c.fe.cfg.ClientOutputBufferLimit(class)
	b := c.trackingBox()
	b.mu.Lock()
	if b.dead {
		b.mu.Unlock()
		return
	}
	wasEmpty := len(b.buf) == 0
	w := Writer{Buf: b.buf, Proto: proto}
	switch {
	case m.BrokenRedirect != 0:
		w.Push(2)
		w.BulkString("tracking-redir-broken")
		w.Int(int64(m.BrokenRedirect))
	case pubsubForm:
		w.Push(3)
		w.BulkString("message")
		w.BulkString("__redis__:invalidate")
	default:
		w.Push(2)
		w.BulkString("invalidate")
	}
	if m.BrokenRedirect == 0 {
		switch {
		case m.All && m.NullProto == 3:
			w.Raw([]byte("_\r\n")) // the tracking client's null, whoever receives it
		case m.All:
			w.Raw([]byte("$-1\r\n"))
		default:
			w.Array(len(m.Keys))
			for _, k := range m.Keys {
				w.Bulk(k)
			}
		}
	}
	b.buf = w.Buf
	if overBufferLimit(lim, int64(len(b.buf))+b.held, &b.softSince) {
		b.dead, b.buf = true, nil
		b.mu.Unlock()
		// Not here: the table's mutex is held, and the close's log line
		// asks the table for this client's flags.
		go c.closeForOutputLimit()
		return
	}
	wake := wasEmpty && !b.busy
	b.mu.Unlock()
	if wake {
		_ = c.peer.Wake()
	}
}

// trackingBox returns the client's box, making it.
func (c *Client) trackingBox() *trackingBox {
	if b := c.trk.box.Load(); b != nil {
		return b
	}
	c.trk.box.CompareAndSwap(nil, &trackingBox{})
	return c.trk.box.Load()
}

// takeInto appends the box to out and empties it; b.mu is held.
func (b *trackingBox) takeInto(out []byte) []byte {
	if len(b.buf) == 0 {
		return out
	}
	out = append(out, b.buf...)
	if cap(b.buf) > 64<<10 {
		b.buf = nil // don't pin a burst's buffer
	} else {
		b.buf = b.buf[:0]
	}
	return out
}

// trackingServeBegin starts a batch: the loop will look at the box before
// Serve returns; what waited goes out first, unless the client is blocked
// (its reply comes first).
func (c *Client) trackingServeBegin(out []byte) []byte {
	b := c.trk.box.Load()
	if b == nil {
		return out
	}
	n := len(out)
	held := int64(c.peer.OutboundBuffered())
	b.mu.Lock()
	b.busy = true
	b.held = held
	if c.blk == nil {
		out = b.takeInto(out)
	}
	b.mu.Unlock()
	c.fe.stats.netOutput.Add(c.stripe, int64(len(out)-n))
	return out
}

// trackingServeEnd ends a batch: what arrived meanwhile follows its
// replies, and deliveries wake the loop again. A client parked alone
// gets its messages after that command's reply; one blocked on keys gets
// them at once, as in Redis.
func (c *Client) trackingServeEnd(out []byte) []byte {
	b := c.trk.box.Load()
	if b == nil {
		return out
	}
	n := len(out)
	b.mu.Lock()
	if !c.parkedAlone() {
		out = b.takeInto(out)
	}
	b.busy = false
	b.mu.Unlock()
	c.fe.stats.netOutput.Add(c.stripe, int64(len(out)-n))
	return out
}

// parkedAlone reports whether the client waits on a command Redis would
// run to its end before anything else (a script past the busy threshold,
// MIGRATE: parked with no engine waiter), whose invalidations must follow
// its reply.
func (c *Client) parkedAlone() bool { return c.blk != nil && c.blk.w == nil }

// trackingFlushBox appends what the box holds to the reply buffer.
func (c *Client) trackingFlushBox() {
	b := c.trk.box.Load()
	if b == nil {
		return
	}
	b.mu.Lock()
	c.w.Buf = b.takeInto(c.w.Buf)
	b.mu.Unlock()
}

// trackingEvicted runs after the eviction a command's memory check made
// (overMemory, whose result it returns): the invalidations of what it
// evicted go before the command's reply, or its OOM error, as Redis sends
// them from processCommand; not inside a transaction or script.
func (c *Client) trackingEvicted(over bool) bool {
	if !c.inExclusive && c.trk.box.Load() != nil {
		n := len(c.w.Buf)
		c.trackingFlushBox()
		c.trk.pre += len(c.w.Buf) - n
	}
	return over
}

// trackingBeforeRun runs right before a command's handler: a read-only
// command of a client that tracks reads registers its keys. It returns
// the keys for trackingAfterRun.
func (c *Client) trackingBeforeRun(cmd *Command, args [][]byte) [][]byte {
	if !c.trk.mode.TracksReads(c.trk.caching) || cmd.Flags&FlagReadonly == 0 ||
		cmd.Internal&NotTracked != 0 || cmd.Flags&FlagPubSub != 0 {
		return nil
	}
	keys := keyArgs(cmd, args)
	c.fe.tracking.Begin(c.id, keys)
	return keys
}

// trackingAfterRun keeps the keys trackingBeforeRun registered.
func (c *Client) trackingAfterRun(keys [][]byte) {
	if keys != nil {
		c.fe.tracking.End(c.id, keys)
	}
}

// keyArgs returns the command's key arguments.
func keyArgs(cmd *Command, args [][]byte) [][]byte {
	idx := cmd.KeysOf(args)
	if len(idx) == 0 {
		return nil
	}
	keys := make([][]byte, len(idx))
	for i, j := range idx {
		keys[i] = args[j]
	}
	return keys
}

// trackingScriptRead registers, for a read-only command a script ran, the
// keys the script was given, as Redis remembers its caller's keys.
func (c *Client) trackingScriptRead(cmd *Command, scriptKeys [][]byte) {
	if len(scriptKeys) == 0 || cmd.Flags&FlagReadonly == 0 || !c.trk.mode.TracksReads(c.trk.caching) {
		return
	}
	c.fe.tracking.End(c.id, scriptKeys)
}

// trackingMark moves a reply's start past the messages placed before it
// (trackingBeforeRun).
func (c *Client) trackingMark(mark int) int {
	mark += c.trk.pre
	c.trk.pre = 0
	return mark
}

// trackingAfterCommand runs after a top-level command's reply: messages
// the command caused go after it; CLIENT CACHING's flag lasts for one
// command (or transaction) and any CLIENT subcommand, even one refused,
// as in Redis.
func (c *Client) trackingAfterCommand(args [][]byte) {
	if !c.parkedAlone() {
		c.trackingFlushBox()
	}
	if c.trk.caching && c.tx == nil && !c.isClientSubcommand(args) {
		c.trk.caching = false
	}
}

// isClientSubcommand reports whether args name a CLIENT subcommand.
func (c *Client) isClientSubcommand(args [][]byte) bool {
	cmd := c.fe.table.Lookup(args[0], c.scratch[:])
	if cmd == nil || cmd.Name != "client" || len(args) < 2 {
		return false
	}
	return cmd.subcommand(args[1], c.scratch[:]) != nil
}

// trackingOff turns tracking off (CLIENT TRACKING OFF, RESET, closing).
func (c *Client) trackingOff() {
	if c.trk.mode.On {
		c.fe.tracking.Disable(c.id)
	}
	c.trk.mode = tracking.Mode{}
	c.trk.caching = false
}

// lookupTrackingConn finds a Redis connection by id for the table.
func (f *Frontend) lookupTrackingConn(id uint64) tracking.Conn {
	v, ok := f.clients.Load(id)
	if !ok {
		return nil
	}
	return (*trackingConn)(v.(*Client))
}

// Tracking errors of CLIENT TRACKING's parsing and of CLIENT CACHING, in
// Redis's words; the table's own refusals are package tracking's.
const (
	errTrackingRedirectTwice = "ERR A client can only redirect to a single other client"
	errTrackingNoRedirect    = "ERR The client ID you want redirect to does not exist"
	errCachingNotTracking    = "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"
	errCachingYes            = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."
	errCachingNo             = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."
)

// cmdClientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST]
// [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP]: the options are parsed first,
// then ON or OFF, as in Redis.
func cmdClientTracking(c *Client, args [][]byte) {
	var o tracking.Options
	for j := 3; j < len(args); j++ {
		more := j < len(args)-1
		switch a := args[j]; {
		case argIs(a, "REDIRECT") && more:
			j++
			if o.Redirect != 0 {
				c.w.Error(errTrackingRedirectTwice)
				return
			}
			id, ok := c.intArg(args[j])
			if !ok {
				return
			}
			if c.fe.lookupTrackingConn(uint64(id)) == nil {
				c.w.Error(errTrackingNoRedirect)
				return
			}
			o.Redirect = uint64(id)
		case argIs(a, "BCAST"):
			o.BCast = true
		case argIs(a, "OPTIN"):
			o.OptIn = true
		case argIs(a, "OPTOUT"):
			o.OptOut = true
		case argIs(a, "NOLOOP"):
			o.NoLoop = true
		case argIs(a, "PREFIX") && more:
			j++
			o.Prefixes = append(o.Prefixes, args[j])
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	switch {
	case argIs(args[2], "ON"):
		err, ok := c.fe.tracking.Enable(c.id, (*trackingConn)(c), o)
		if err != nil {
			c.w.Error("ERR " + err.Error())
		}
		if !ok {
			return
		}
		c.trk.mode = tracking.Mode{On: true, BCast: o.BCast, OptIn: o.OptIn, OptOut: o.OptOut}
	case argIs(args[2], "OFF"):
		c.trackingOff()
	default:
		c.w.Error(ErrSyntax)
		return
	}
	c.w.Status("OK")
}

// cmdClientCaching is CLIENT CACHING YES|NO: whether the next command's
// reads are tracked, in OPTIN or OPTOUT mode.
func cmdClientCaching(c *Client, args [][]byte) {
	m := c.trk.mode
	switch {
	case !m.On:
		c.w.Error(errCachingNotTracking)
		return
	case argIs(args[2], "YES"):
		if !m.OptIn {
			c.w.Error(errCachingYes)
			return
		}
	case argIs(args[2], "NO"):
		if !m.OptOut {
			c.w.Error(errCachingNo)
			return
		}
	default:
		c.w.Error(ErrSyntax)
		return
	}
	c.trk.caching = true
	c.w.Status("OK")
}

// cmdClientGetRedir is CLIENT GETREDIR: the redirect target, 0 for none,
// -1 when tracking is off.
func cmdClientGetRedir(c *Client, _ [][]byte) {
	inf := c.fe.tracking.Info(c.id)
	if !inf.On {
		c.w.Int(-1)
		return
	}
	c.w.Int(int64(inf.Redirect))
}

// cmdClientTrackingInfo is CLIENT TRACKINGINFO: flags, redirect and
// prefixes, as Redis 7.0 reports them.
func cmdClientTrackingInfo(c *Client, _ [][]byte) {
	inf := c.fe.tracking.Info(c.id)
	flags := []string{"off"}
	if inf.On {
		flags[0] = "on"
	}
	if inf.BCast {
		flags = append(flags, "bcast")
	}
	if inf.OptIn {
		flags = append(flags, "optin")
		if c.trk.caching {
			flags = append(flags, "caching-yes")
		}
	}
	if inf.OptOut {
		flags = append(flags, "optout")
		if c.trk.caching {
			flags = append(flags, "caching-no")
		}
	}
	if inf.NoLoop {
		flags = append(flags, "noloop")
	}
	if inf.BrokenRedirect {
		flags = append(flags, "broken_redirect")
	}
	c.w.Map(3)
	c.w.BulkString("flags")
	c.w.Set(len(flags))
	for _, f := range flags {
		c.w.BulkString(f)
	}
	c.w.BulkString("redirect")
	if inf.On {
		c.w.Int(int64(inf.Redirect))
	} else {
		c.w.Int(-1)
	}
	c.w.BulkString("prefixes")
	c.w.Array(len(inf.Prefixes))
	for _, p := range inf.Prefixes {
		c.w.Bulk(p)
	}
}

// trackingListFlags are CLIENT LIST's tracking flags ('t' tracking, 'R'
// broken redirect, 'B' BCAST) and its redir field (-1 when off), from
// any goroutine.
func (c *Client) trackingListFlags() (flags []byte, redir int64) {
	inf := c.fe.tracking.Info(c.id)
	if !inf.On {
		return nil, -1
	}
	flags = append(flags, 't')
	if inf.BrokenRedirect {
		flags = append(flags, 'R')
	}
	if inf.BCast {
		flags = append(flags, 'B')
	}
	return flags, int64(inf.Redirect)
}
