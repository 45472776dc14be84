package tlsserver

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tandemkv/tandem/internal/stripe"
	"github.com/tandemkv/tandem/server"
)

// readSize is the most decrypted bytes one Read returns: a TLS record
// carries at most 16 KB of plaintext.
const readSize = 16 << 10

// aLongTimeAgo is the deadline Wake sets to make a blocked Read return.
var aLongTimeAgo = time.Unix(1, 0)

// conn is one TLS connection: the Peer its session is given. The serving
// goroutine (handle) owns sess, pending, out and the pacing fields; the
// output queue is guarded by mu; the rest is atomic or set before the
// session exists.
type conn struct {
	l        *Listener
	raw      net.Conn // the TCP connection: Close and Wake act on it
	tc       *tls.Conn
	id       uint64
	sess     server.Session
	local    string
	remote   string
	fd       int
	lastRead atomic.Int64 // unix nanoseconds
	woken    atomic.Bool  // Wake asked for a Serve
	closing  atomic.Bool

	pending []byte // unconsumed bytes of an incomplete request
	out     []byte // reply buffer, reused

	paced, pauseAsked bool
	resumeBelow       int
	// This connection's share of the server's ClientBuffers total: its
	// buffers (serving goroutine) and its queued output (anyone).
	heldBufs, heldQueue atomic.Int64

	// io is the front-end's socket counters (nil when it keeps none),
	// stripe the copy this connection adds to; bufs is what CLIENT LIST
	// reads of its buffers (server/iostats.go).
	io     *server.IOStats
	stripe uint8
	bufs   server.BufferGauge

	mu       sync.Mutex
	queue    []byte // replies and messages the writer has not taken yet
	spare    []byte // the writer's last buffer, for reuse
	inflight int    // bytes the writer is writing
	gone     bool   // ended: its accounting is removed
	kick     chan struct{}
	drained  chan struct{} // the writer finished a write
	done     chan struct{} // closed when the connection is gone
}

// handle serves one accepted connection until it is closed.
func (l *Listener) handle(raw net.Conn, tc *tls.Conn) {
	defer l.wg.Done()
	defer raw.Close()
	l.handshaking.Store(raw, struct{}{})
	select {
	case <-l.done: // Stop closes what it finds in handshaking, or this sees it
		l.handshaking.Delete(raw)
		return
	default:
	}
	// Counted from accept, as Redis and the loops do: connections still
	// in their handshake are bounded by maxclients too.
	srv := l.o.Server
	id, admitted := srv.Admit()
	if admitted {
		defer srv.Leave()
	}
	_ = raw.SetDeadline(time.Now().Add(handshakeTimeout))
	err := tc.Handshake()
	l.handshaking.Delete(raw)
	if err != nil {
		l.log.Debug("TLS handshake failed", "addr", raw.RemoteAddr().String(), "err", err)
		return
	}
	if !admitted {
		l.counts.rejected.Add(1)
		_ = raw.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = tc.Write(l.o.Frontend.RejectMessage())
		return
	}
	_ = raw.SetDeadline(time.Time{})
	c := &conn{l: l, raw: raw, tc: tc, id: id, local: raw.LocalAddr().String(), remote: raw.RemoteAddr().String(),
		fd: fdOf(raw), kick: make(chan struct{}, 1), drained: make(chan struct{}, 1), done: make(chan struct{})}
	c.lastRead.Store(time.Now().UnixNano())
	c.io, c.stripe = server.IOStatsOf(l.o.Frontend), stripe.Of(id)
	if !srv.Safely(id, c.remote, func() { c.sess = l.o.Frontend.NewSession(c) }) {
		return
	}
	_, c.paced = c.sess.(server.OutputPacer)
	l.conns.Store(c, struct{}{})
	select {
	case <-l.done: // Stop ran its Range before the Store
		c.Close()
	default:
	}
	l.counts.accepted.Add(1)
	l.counts.open.Add(1)
	defer l.counts.open.Add(-1)
	go c.writer()
	c.serveLoop()
	c.closing.Store(true)
	_ = raw.Close()
	close(c.done)
	l.conns.Delete(c)
	c.mu.Lock()
	c.gone = true // no accountQueue after this one
	queued := c.heldQueue.Swap(0)
	c.mu.Unlock()
	srv.AccountBuffers(-c.heldBufs.Swap(0)-queued, 0, 0)
	srv.Safely(id, c.remote, c.sess.Closed)
}

// account brings the connection's share of the server's buffer total up
// to date (INFO mem_clients_normal): query and reply buffers at their
// capacity, and the queued output. On the serving goroutine.
func (c *conn) account(input int) {
	bufs := int64(cap(c.pending) + cap(c.out))
	c.l.o.Server.AccountBuffers(bufs-c.heldBufs.Swap(bufs), int64(input), 0)
	c.accountQueue()
}

// accountQueue updates the queued output's share; from any goroutine (the
// sweep refreshes it for connections that are not served, e.g. pub/sub
// subscribers): swapped deltas add up to the last value whatever the
// interleaving.
func (c *conn) accountQueue() {
	c.mu.Lock()
	if c.gone {
		c.mu.Unlock()
		return
	}
	q := int64(len(c.queue) + c.inflight)
	d := q - c.heldQueue.Swap(q)
	c.mu.Unlock()
	c.l.o.Server.AccountBuffers(d, 0, q)
}

// serveLoop reads and serves until the connection fails or is closed.
func (c *conn) serveLoop() {
	buf := make([]byte, readSize)
	for {
		// A Serve may wake the session again (a paused pipeline resumes
		// so): serve until no Wake is left, then read.
		for c.woken.Swap(false) {
			if !c.serve(nil) {
				return
			}
		}
		n, err := c.tc.Read(buf)
		if c.io != nil && (n > 0 || !isTimeout(err)) {
			c.io.Reads.Add(c.stripe, 1) // bytes, or the end of the stream
		}
		if n > 0 {
			c.lastRead.Store(time.Now().UnixNano())
			if !c.serve(buf[:n]) {
				return
			}
		}
		if err != nil {
			if isTimeout(err) && !c.closing.Load() {
				// Wake's kick: clear the deadline, then look at the flag
				// (in this order, so a Wake after the look kicks again).
				_ = c.raw.SetReadDeadline(time.Time{})
				continue
			}
			return
		}
	}
}

// isTimeout tells a Read ended by Wake's deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// serve runs the session over the pending bytes and data, as the event
// loop's OnTraffic does; false closes the connection.
func (c *conn) serve(data []byte) bool {
	srv := c.l.o.Server
	if len(c.pending) > 0 {
		c.pending = append(c.pending, data...)
		data = c.pending
	}
	var (
		n          int
		closeAfter bool
	)
	capBefore := cap(c.out)
	ok := srv.Safely(c.id, c.remote, func() {
		n, c.out, closeAfter = c.sess.Serve(data, c.out[:0])
	})
	replied := len(c.out)
	defer func() { c.bufs.Note(c.pending, cap(c.out), replied, time.Now()) }()
	defer c.account(max(cap(c.pending), len(data)))
	if !ok || n < 0 || n > len(data) {
		return false
	}
	if len(c.out) > 0 {
		if c.enqueue(c.out) != nil {
			return false
		}
		capAfter, dropped := cap(c.out), cap(c.out) > 1<<20
		if dropped {
			c.out = nil
		}
		if c.io != nil {
			c.io.CountReplyResize(c.stripe, capBefore, capAfter, dropped)
		}
	}
	if closeAfter {
		c.flush(5 * time.Second)
		_ = c.tc.CloseWrite() // close_notify, bounded by its own deadline
		return false
	}
	lim := srv.Limits()
	if lim.OutputBufferLimit > 0 && !c.paced && c.OutboundBuffered() > lim.OutputBufferLimit {
		c.l.log.Warn("closing client over the output buffer limit", "id", c.id, "addr", c.remote, "queued", c.OutboundBuffered())
		return false
	}
	rest := data[n:]
	switch {
	case len(rest) == 0:
		c.pending = c.pending[:0]
		if cap(c.pending) > 64<<10 {
			c.pending = nil
		}
	case n == 0 && len(c.pending) > 0:
		// Nothing consumed: the pending bytes stay where they are.
	case len(c.pending) > 0:
		c.pending = c.pending[:copy(c.pending, rest)]
	default:
		c.pending = append(c.pending[:0], rest...)
	}
	if lim.QueryBufferLimit > 0 && len(c.pending) > lim.QueryBufferLimit {
		c.l.log.Warn("closing client over the query buffer limit", "id", c.id, "addr", c.remote, "pending", len(c.pending))
		return false
	}
	if c.pauseAsked {
		c.pauseAsked = false
		if len(c.pending) > 0 {
			// Not reading meanwhile: the kernel's buffers hold what the
			// client sends, and TCP slows it down.
			if !c.waitDrained(c.resumeBelow) {
				return false
			}
			c.woken.Store(true) // serve the rest before reading more
		}
	}
	return true
}

// waitDrained waits until at most below bytes are queued; false when the
// connection closed first.
func (c *conn) waitDrained(below int) bool {
	for c.OutboundBuffered() > below {
		select {
		case <-c.drained:
		case <-c.done:
			return false
		case <-time.After(50 * time.Millisecond):
			if c.closing.Load() {
				return false
			}
		}
	}
	return true
}

// flush waits, at most d, for the queue to be written.
func (c *conn) flush(d time.Duration) {
	deadline := time.Now().Add(d)
	for c.OutboundBuffered() > 0 && time.Now().Before(deadline) && !c.closing.Load() {
		select {
		case <-c.drained:
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// enqueue copies b to the output queue for the writer.
func (c *conn) enqueue(b []byte) error {
	c.mu.Lock()
	if c.closing.Load() {
		c.mu.Unlock()
		return net.ErrClosed
	}
	c.queue = append(c.queue, b...)
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
	return nil
}

// writer writes the queue to the TLS connection until it closes.
func (c *conn) writer() {
	for {
		select {
		case <-c.kick:
		case <-c.done:
			return
		}
		for {
			c.mu.Lock()
			b := c.queue
			if len(b) == 0 {
				c.mu.Unlock()
				break
			}
			c.queue, c.spare = c.spare[:0], nil
			c.inflight = len(b)
			c.mu.Unlock()
			_, err := c.tc.Write(b)
			if c.io != nil {
				c.io.Writes.Add(c.stripe, 1)
			}
			c.mu.Lock()
			c.inflight = 0
			if cap(b) <= 1<<20 {
				c.spare = b[:0]
			}
			c.mu.Unlock()
			select {
			case c.drained <- struct{}{}:
			default:
			}
			if err != nil {
				c.Close()
				return
			}
		}
	}
}

// Peer, for the session.

func (c *conn) ID() uint64                { return c.id }
func (c *conn) RemoteAddr() string        { return c.remote }
func (c *conn) LocalAddr() string         { return c.local }
func (c *conn) AsyncWrite(b []byte) error { return c.enqueue(b) }
func (c *conn) FD() int                   { return c.fd }

// Wake makes the serving goroutine call Serve with no new bytes, even
// while it waits in Read.
func (c *conn) Wake() error {
	if c.closing.Load() {
		return net.ErrClosed
	}
	c.woken.Store(true)
	return c.raw.SetReadDeadline(aLongTimeAgo)
}

// Close closes the connection; the serving goroutine then ends it.
func (c *conn) Close() {
	c.closing.Store(true)
	_ = c.raw.Close()
}

// Idle returns the time since the connection last sent bytes.
func (c *conn) Idle() time.Duration {
	return time.Duration(time.Now().UnixNano() - c.lastRead.Load())
}

// Buffers implements server.BufferReporter.
func (c *conn) Buffers() server.ConnBuffers { return c.bufs.Load(int64(c.OutboundBuffered())) }

// OutboundBuffered returns the bytes queued and being written. From any
// goroutine.
func (c *conn) OutboundBuffered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue) + c.inflight
}

// PauseUntilDrained implements server.Pauser, inside Serve.
func (c *conn) PauseUntilDrained(resumeBelow int) {
	c.pauseAsked = true
	c.resumeBelow = max(resumeBelow, 0)
}

// fdOf returns the socket's descriptor, -1 when it has none.
func fdOf(nc net.Conn) int {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	_ = rc.Control(func(f uintptr) { fd = int(f) })
	return fd
}
