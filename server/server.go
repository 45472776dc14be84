package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/tandemkv/tandem/internal/stripe"
)

// Frontend is a protocol served on a listener.
type Frontend interface {
	// NewSession is called on the event loop for each accepted connection.
	NewSession(p Peer) Session
	// RejectMessage is written to a connection refused because maxclients
	// is reached, before it is closed.
	RejectMessage() []byte
}

// Session is one connection's protocol state. Its methods run on the
// connection's event loop, one at a time.
type Session interface {
	// Serve parses and runs every complete request at the start of in and
	// appends the replies to out. It returns how many bytes of in it
	// consumed, the grown out, and whether to close the connection after
	// out is written. in aliases the read buffer: anything kept past the
	// call must be copied.
	Serve(in, out []byte) (consumed int, reply []byte, closeAfter bool)
	// Closed is called once, when the connection is gone.
	Closed()
}

// Peer is what a session may do with its connection from any goroutine.
type Peer interface {
	ID() uint64
	RemoteAddr() string
	LocalAddr() string
	// AsyncWrite queues b for the connection (e.g. a pub/sub message).
	AsyncWrite(b []byte) error
	// Wake makes the loop call Serve again with no new bytes (e.g. a
	// blocked client whose key became ready).
	Wake() error
	// Close closes the connection asynchronously.
	Close()
	// Idle returns the time since the connection last sent bytes.
	Idle() time.Duration
	// FD returns the socket's file descriptor (CLIENT LIST).
	FD() int
	// OutboundBuffered returns the bytes written to the connection that
	// the socket did not take yet. Only on the connection's event loop
	// (inside Serve).
	OutboundBuffered() int
}

// Listener binds a front-end to addresses.
type Listener struct {
	Addrs    []string // host:port each
	Frontend Frontend
}

// Limits are the per-connection limits; they may change at run time.
type Limits struct {
	MaxClients        int           // 0 = unlimited
	IdleTimeout       time.Duration // 0 = never close idle clients
	QueryBufferLimit  int           // bytes of an incomplete request kept; 0 = unlimited
	OutputBufferLimit int           // bytes queued for a slow reader before it is cut off; 0 = unlimited
}

// Options configure a Server.
type Options struct {
	Listeners []Listener
	Limits    Limits
	Logger    *slog.Logger
	Multicore bool
	// NoPlainListeners lets Run serve no listener at all, waiting for
	// Stop: the TLS ports (package server/tlsserver) are then the only
	// ones.
	NoPlainListeners bool
}

// Server runs the event loops.
type Server struct {
	gnet.BuiltinEventEngine
	opts     Options
	limits   atomic.Pointer[Limits]
	byAddr   map[string]Frontend // local "host:port" → front-end
	log      *slog.Logger
	nextID   atomic.Uint64
	clients  atomic.Int64
	conns    sync.Map // id → *conn, for the idle sweep
	eng      gnet.Engine
	ready    chan struct{}
	readyErr error
	once     sync.Once
	stopping atomic.Bool
	bufs     bufferStats // client buffer accounting (ClientBuffers)
	heap     heapGuard   // back-pressure on the Go memory limit (heapguard.go)
	drains   drainWatch  // paused connections (pacing.go)
	done     chan struct{}
	// stopNoLoops is closed by Stop when Run serves no listener.
	stopNoLoops chan struct{}
}

// New returns a server; Run starts it.
func New(o Options) *Server {
	s := &Server{opts: o, byAddr: map[string]Frontend{}, ready: make(chan struct{}), done: make(chan struct{}), stopNoLoops: make(chan struct{}), log: o.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	l := o.Limits
	s.limits.Store(&l)
	return s
}

// StartErr is, once Ready is closed, why Run could not start (a listener
// that could not be bound), or nil when it serves.
func (s *Server) StartErr() error {
	<-s.ready
	return s.readyErr
}

// Listeners sets the listeners; call before Run. (They are set after New
// because front-ends want the server's client count.)
func (s *Server) Listeners(l []Listener) { s.opts.Listeners = l }

// SetLimits replaces the limits (CONFIG SET maxclients/timeout/...).
func (s *Server) SetLimits(l Limits) { s.limits.Store(&l) }

// Clients returns the number of connected clients.
func (s *Server) Clients() int { return int(s.clients.Load()) }

// Ready is closed when the listeners accept connections (or Run failed).
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Run serves until Stop is called. It returns an error if a listener
// cannot be bound.
func (s *Server) Run() error {
	var addrs []string
	for _, l := range s.opts.Listeners {
		for _, a := range l.Addrs {
			tcp, err := net.ResolveTCPAddr("tcp", a)
			if err != nil {
				return fmt.Errorf("listen %s: %w", a, err)
			}
			s.byAddr[tcp.String()] = l.Frontend
			if tcp.Port == 0 {
				return fmt.Errorf("listen %s: port 0 is not supported", a)
			}
			addrs = append(addrs, "tcp://"+a)
		}
	}
	if len(addrs) == 0 {
		if !s.opts.NoPlainListeners {
			return errors.New("no listener configured")
		}
		// Only TLS ports (port 0, memcached-port 0): no loop to run, but
		// the server still counts and limits the TLS clients.
		s.once.Do(func() { close(s.ready) })
		<-s.stopNoLoops
		close(s.done)
		return nil
	}
	// gnet reports a port it cannot bind as "setsockopt: bad file
	// descriptor"; trying each address first gives the real reason.
	for _, a := range addrs {
		if err := checkListen(strings.TrimPrefix(a, "tcp://")); err != nil {
			s.once.Do(func() { s.readyErr = err; close(s.ready) })
			return err
		}
	}
	err := gnet.Rotate(s, addrs,
		gnet.WithMulticore(s.opts.Multicore),
		gnet.WithTicker(true),
		gnet.WithReusePort(false),
		// As Redis does: a restart binds at once even while the last
		// run's connections linger in TIME_WAIT.
		gnet.WithReuseAddr(true),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithTCPKeepAlive(300*time.Second),
		gnet.WithLogger(gnetLogger{s.log}),
	)
	s.once.Do(func() { s.readyErr = err; close(s.ready) })
	close(s.done)
	return err
}

// Stop closes the listeners and every connection.
func (s *Server) Stop(ctx context.Context) error {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.readyErr != nil || !s.stopping.CompareAndSwap(false, true) {
		return nil
	}
	if s.eng == (gnet.Engine{}) {
		close(s.stopNoLoops) // Run serves no plain listener
		return nil
	}
	return s.eng.Stop(ctx)
}

// OnBoot implements gnet.EventHandler.
func (s *Server) OnBoot(eng gnet.Engine) gnet.Action {
	s.eng = eng
	s.once.Do(func() { close(s.ready) })
	return gnet.None
}

// conn is the server's state for one connection.
type conn struct {
	gc       gnet.Conn
	id       uint64
	sess     Session
	pending  []byte // unconsumed bytes of an incomplete request
	out      []byte // reply buffer, reused
	local    string
	remote   string
	fd       int
	lastRead atomic.Int64 // unix nanoseconds
	counted  bool
	srv      *Server
	// held is this connection's share of bufferStats.total as last
	// accounted; queued the outbound bytes then (read by OnTick's
	// refresh); closed stops the accounting. All three change on the
	// connection's event loop only.
	held   int64
	queued atomic.Int64
	closed bool
	// Pacing (pacing.go), loop-local: paced sessions are never closed for
	// their output; pauseAsked is set by PauseUntilDrained during Serve;
	// a paused connection is served again once its queued output is
	// down to resumeBelow.
	paced, pauseAsked, paused bool
	resumeBelow               int
	iov                       [][]byte // c.write's pieces, reused
	// io is the front-end's socket counters (nil when it keeps none),
	// stripe the copy this connection adds to; bufs is what CLIENT LIST
	// reads of its buffers (iostats.go).
	io     *IOStats
	stripe uint8
	bufs   BufferGauge
}

// writeChunk: gnet copies what the socket does not take at once into
// buffers rounded up to a power of two, so a 600 KB reply queued whole
// holds 1 MB. Written in pieces of this size, a slow reader's queue holds
// its bytes plus at most a fraction of one piece per write.
const writeChunk = 256 << 10

// write hands b to gnet: at once if the socket takes it, else queued.
func (c *conn) write(b []byte) error {
	if c.io != nil {
		c.io.Writes.Add(c.stripe, 1)
	}
	if len(b) <= writeChunk {
		_, err := c.gc.Write(b)
		return err
	}
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		c.iov = append(c.iov, b[:n])
		b = b[n:]
	}
	_, err := c.gc.Writev(c.iov)
	clear(c.iov) // don't pin the reply buffer
	c.iov = c.iov[:0]
	return err
}

func (c *conn) ID() uint64         { return c.id }
func (c *conn) RemoteAddr() string { return c.remote }
func (c *conn) LocalAddr() string  { return c.local }
func (c *conn) AsyncWrite(b []byte) error {
	if c.io != nil && len(b) > 0 {
		c.io.Writes.Add(c.stripe, 1)
	}
	return c.gc.AsyncWrite(b, c.afterAsync)
}

// Buffers implements BufferReporter.
func (c *conn) Buffers() ConnBuffers  { return c.bufs.Load(c.queued.Load()) }
func (c *conn) Wake() error           { return c.gc.Wake(nil) }
func (c *conn) Close()                { _ = c.gc.Close() }
func (c *conn) FD() int               { return c.fd }
func (c *conn) OutboundBuffered() int { return c.gc.OutboundBuffered() }
func (c *conn) Idle() time.Duration {
	return time.Duration(time.Now().UnixNano() - c.lastRead.Load())
}

// OnOpen implements gnet.EventHandler.
func (s *Server) OnOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	local := gc.LocalAddr().String()
	fe := s.byAddr[local]
	if fe == nil {
		// Bound to a wildcard address: match by port.
		for a, f := range s.byAddr {
			if portOf(a) == portOf(local) {
				fe = f
				break
			}
		}
	}
	if fe == nil {
		s.log.Error("connection on unknown listener", "addr", local)
		return nil, gnet.Close
	}
	lim := s.limits.Load()
	if n := s.clients.Add(1); lim.MaxClients > 0 && n > int64(lim.MaxClients) {
		s.clients.Add(-1)
		return fe.RejectMessage(), gnet.Close
	}
	c := &conn{gc: gc, id: s.nextID.Add(1), local: local, remote: gc.RemoteAddr().String(), fd: gc.Fd(), counted: true, srv: s}
	c.io, c.stripe = IOStatsOf(fe), stripe.Of(c.id)
	c.lastRead.Store(time.Now().UnixNano())
	gc.SetContext(c)
	if !s.safely(c, func() { c.sess = fe.NewSession(c) }) {
		return nil, gnet.Close
	}
	_, c.paced = c.sess.(OutputPacer)
	s.conns.Store(c.id, c)
	return nil, gnet.None
}

func portOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		return addr[i+1:]
	}
	return addr
}

// OnClose implements gnet.EventHandler.
func (s *Server) OnClose(gc gnet.Conn, err error) gnet.Action {
	c, _ := gc.Context().(*conn)
	if c == nil {
		return gnet.None
	}
	if c.io != nil && closedByRead(err) {
		c.io.Reads.Add(c.stripe, 1) // the read that saw the peer go
	}
	if c.counted {
		s.clients.Add(-1)
		c.counted = false
	}
	s.conns.Delete(c.id)
	s.unpause(c)
	c.closed = true
	s.bufs.total.Add(-c.held)
	c.held = 0
	if c.sess != nil {
		s.safely(c, c.sess.Closed)
	}
	return gnet.None
}

// OnTraffic implements gnet.EventHandler: read everything, serve every
// complete request, write all replies at once.
func (s *Server) OnTraffic(gc gnet.Conn) gnet.Action {
	c, _ := gc.Context().(*conn)
	if c == nil || c.sess == nil {
		return gnet.Close
	}
	data, _ := gc.Next(-1)
	now := time.Now()
	replied := 0 // bytes of replies this event wrote (the reply buffer's peak)
	if len(data) > 0 {
		c.lastRead.Store(now.UnixNano())
		s.heap.note(len(data)) // may collect first when the heap is over the limit
		if c.io != nil {
			c.io.Reads.Add(c.stripe, 1)
		}
	}
	if len(c.pending) > 0 {
		c.pending = append(c.pending, data...)
		data = c.pending
	}
	s.bufs.input.note(int64(max(cap(c.pending), len(data))), now)
	defer c.account()
	defer func() { c.bufs.Note(c.pending, cap(c.out), replied, now) }()
	lim := s.limits.Load()
	if c.paused {
		if gc.OutboundBuffered() > c.resumeBelow {
			// Still not read: keep what arrived, serve nothing yet.
			if lim.QueryBufferLimit > 0 && len(c.pending) > lim.QueryBufferLimit {
				s.log.Warn("closing client over the query buffer limit", "id", c.id, "addr", c.remote, "pending", len(c.pending))
				return gnet.Close
			}
			return gnet.None
		}
		s.unpause(c)
	}
	var (
		n          int
		closeAfter bool
	)
	capBefore := cap(c.out)
	ok := s.safely(c, func() {
		n, c.out, closeAfter = c.sess.Serve(data, c.out[:0])
	})
	if !ok || n < 0 || n > len(data) {
		return gnet.Close // a panic, or a session that broke its contract
	}
	replied = len(c.out)
	if len(c.out) > 0 {
		if err := c.write(c.out); err != nil {
			return gnet.Close
		}
		capAfter, dropped := cap(c.out), cap(c.out) > maxKeptReply
		if dropped {
			c.out = nil // don't pin a huge reply's buffer
		}
		if c.io != nil {
			c.io.CountReplyResize(c.stripe, capBefore, capAfter, dropped)
		}
	}
	if closeAfter {
		return gnet.Close
	}
	if lim.OutputBufferLimit > 0 && !c.paced && gc.OutboundBuffered() > lim.OutputBufferLimit {
		s.log.Warn("closing client over the output buffer limit", "id", c.id, "addr", c.remote, "queued", gc.OutboundBuffered())
		return gnet.Close
	}
	rest := data[n:]
	switch {
	case len(rest) == 0:
		c.pending = c.pending[:0]
		if cap(c.pending) > 64<<10 {
			c.pending = nil
		}
	case len(c.pending) > 0:
		c.pending = c.pending[:copy(c.pending, rest)]
	default:
		c.pending = append(c.pending[:0], rest...)
	}
	if lim.QueryBufferLimit > 0 && len(c.pending) > lim.QueryBufferLimit {
		s.log.Warn("closing client over the query buffer limit", "id", c.id, "addr", c.remote, "pending", len(c.pending))
		return gnet.Close
	}
	if c.pauseAsked {
		c.pauseAsked = false
		if len(c.pending) > 0 {
			s.pause(c)
		}
	}
	return gnet.None
}

// bufferStats account for the memory the connections' buffers hold, for
// INFO (mem_clients_normal, client_recent_max_*_buffer). Each event on a
// connection adds the change of its buffers to total: one atomic add.
type bufferStats struct {
	total         atomic.Int64
	input, output recentMax
}

// recentMax is the largest value seen over the last recentSlots seconds,
// as Redis's client_recent_max_* fields: one slot per second, the oldest
// cleared by OnTick.
type recentMax struct {
	slots [recentSlots]atomic.Int64
}

const recentSlots = 8

func recentSlot(t time.Time) int { return int(t.Unix() % recentSlots) }

// note records v in the slot of now's second.
func (r *recentMax) note(v int64, now time.Time) {
	slot := &r.slots[recentSlot(now)]
	for {
		cur := slot.Load()
		if v <= cur || slot.CompareAndSwap(cur, v) {
			return
		}
	}
}

func (r *recentMax) max() int64 {
	var m int64
	for i := range r.slots {
		m = max(m, r.slots[i].Load())
	}
	return m
}

// ClientBuffers is what the connections' buffers hold, both protocols
// together.
type ClientBuffers struct {
	// Total is the bytes held for all connections: the query buffers
	// (unconsumed bytes of incomplete requests, at their capacity), the
	// reply buffers kept for reuse (capacity) and the replies written but
	// not yet taken by the sockets (gnet's outbound buffers). It is
	// updated at each event of a connection; output drained by the socket
	// alone is seen within a second.
	Total int64
	// RecentMaxInput and RecentMaxOutput are the largest query buffer
	// (with the bytes of one read) and the largest output queued for the
	// socket of one connection over the last 8 seconds.
	RecentMaxInput, RecentMaxOutput int64
}

// ClientBuffers returns the client buffer figures.
func (s *Server) ClientBuffers() ClientBuffers {
	return ClientBuffers{
		Total:           max(s.bufs.total.Load(), 0),
		RecentMaxInput:  s.bufs.input.max(),
		RecentMaxOutput: s.bufs.output.max(),
	}
}

// account brings the connection's share of the buffer total up to date.
// On the connection's event loop only.
func (c *conn) account() {
	if c.closed {
		return
	}
	queued := int64(c.gc.OutboundBuffered())
	held := int64(cap(c.pending)+cap(c.out)) + queued
	if d := held - c.held; d != 0 {
		c.srv.bufs.total.Add(d)
		c.held = held
	}
	if queued != c.queued.Load() {
		c.queued.Store(queued)
	}
	if queued > 0 {
		c.srv.bufs.output.note(queued, time.Now())
	}
}

// afterAsync runs on the event loop after an asynchronous write (pub/sub
// messages, and OnTick's refresh of connections with queued output).
func (c *conn) afterAsync(gnet.Conn, error) error {
	c.account()
	return nil
}

// safely runs fn and turns a panic into a log line; it reports whether fn
// returned normally. Only the panicking connection is affected.
func (s *Server) safely(c *conn, fn func()) bool { return s.Safely(c.id, c.remote, fn) }

// OnTick implements gnet.EventHandler: closes idle clients, refreshes the
// buffer accounting of connections whose output was queued (the socket
// may have taken it since) and starts a new second of the recent maxima.
func (s *Server) OnTick() (time.Duration, gnet.Action) {
	lim := s.limits.Load()
	next := (recentSlot(time.Now()) + 1) % recentSlots
	s.bufs.input.slots[next].Store(0)
	s.bufs.output.slots[next].Store(0)
	s.conns.Range(func(_, v any) bool {
		c := v.(*conn)
		if c.queued.Load() > 0 {
			// An empty write whose callback runs on the connection's loop.
			_ = c.gc.AsyncWrite(nil, c.afterAsync)
		}
		if lim.IdleTimeout > 0 && c.Idle() > lim.IdleTimeout {
			if ex, ok := c.sess.(interface{ IdleExempt() bool }); ok && ex.IdleExempt() {
				return true
			}
			c.Close()
		}
		return true
	})
	return time.Second, gnet.None
}

// gnetLogger sends gnet's own log lines to slog.
type gnetLogger struct{ l *slog.Logger }

func (g gnetLogger) Debugf(f string, a ...any) { g.l.Debug(fmt.Sprintf(f, a...)) }
func (g gnetLogger) Infof(f string, a ...any)  { g.l.Debug(fmt.Sprintf(f, a...)) }
func (g gnetLogger) Warnf(f string, a ...any)  { g.l.Warn(fmt.Sprintf(f, a...)) }
func (g gnetLogger) Errorf(f string, a ...any) { g.l.Error(fmt.Sprintf(f, a...)) }
func (g gnetLogger) Fatalf(f string, a ...any) { g.l.Error(fmt.Sprintf(f, a...)) }

// checkListen binds addr as gnet will (SO_REUSEADDR) and lets it go,
// reporting why it cannot be bound.
func checkListen(addr string) error {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
		}); err != nil {
			return err
		}
		return serr
	}}
	l, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return err
	}
	return l.Close()
}
