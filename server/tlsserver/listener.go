package tlsserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/server"
)

// handshakeTimeout bounds a TLS handshake: a client that connects and says
// nothing does not hold a goroutine forever.
const handshakeTimeout = 10 * time.Second

// Options configure a Listener.
type Options struct {
	Addrs    []string // host:port each
	Frontend server.Frontend
	// Server is the plain server whose client count, ids, limits and
	// panic recovery the TLS connections share.
	Server *server.Server
	Certs  *Certs
	Logger *slog.Logger // nil: Server's
}

// Listener serves one front-end over TLS on its addresses.
type Listener struct {
	o     Options
	log   *slog.Logger
	lns   []net.Listener
	conns sync.Map // *conn → struct{}
	// handshaking are the connections in their handshake (net.Conn →
	// struct{}), which Stop closes too.
	handshaking sync.Map
	wg          sync.WaitGroup
	done        chan struct{}
	once        sync.Once
	counts      struct{ open, accepted, rejected atomic.Int64 }
}

// Counts are a listener's connections: open now, and since start those
// that became sessions and those refused at maxclients.
type Counts struct{ Open, Accepted, Rejected int64 }

// Counts reads the listener's connection counts (metrics).
func (l *Listener) Counts() Counts {
	return Counts{Open: l.counts.open.Load(), Accepted: l.counts.accepted.Load(), Rejected: l.counts.rejected.Load()}
}

// Frontend is the protocol the listener serves.
func (l *Listener) Frontend() server.Frontend { return l.o.Frontend }

// Listen binds every address; Serve then accepts.
func Listen(o Options) (*Listener, error) {
	l := &Listener{o: o, log: o.Logger, done: make(chan struct{})}
	if l.log == nil {
		l.log = o.Server.Logger()
	}
	if len(o.Addrs) == 0 {
		return nil, errors.New("tls: no address to listen on")
	}
	for _, a := range o.Addrs {
		ln, err := net.Listen("tcp", a) // Go sets SO_REUSEADDR, as the plain ports
		if err != nil {
			for _, prev := range l.lns {
				_ = prev.Close()
			}
			return nil, fmt.Errorf("listen tls %s: %w", a, err)
		}
		l.lns = append(l.lns, ln)
	}
	return l, nil
}

// Addrs returns the bound addresses.
func (l *Listener) Addrs() []net.Addr {
	out := make([]net.Addr, len(l.lns))
	for i, ln := range l.lns {
		out[i] = ln.Addr()
	}
	return out
}

// Serve starts accepting on every address and the idle sweep; it returns
// at once.
func (l *Listener) Serve() {
	for _, ln := range l.lns {
		l.wg.Add(1)
		go l.accept(ln)
	}
	l.wg.Add(1)
	go l.sweep()
}

func (l *Listener) accept(ln net.Listener) {
	defer l.wg.Done()
	cfg := l.o.Certs.Config()
	var delay time.Duration
	for {
		raw, err := ln.Accept()
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errTooManyFiles) {
				// As net/http: out of file descriptors, wait a little.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				l.log.Warn("accepting a TLS connection", "err", err, "retry_in", delay)
				time.Sleep(delay)
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			l.log.Warn("accepting a TLS connection", "err", err)
			time.Sleep(5 * time.Millisecond)
			continue
		}
		delay = 0
		if tc, ok := raw.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
			_ = tc.SetKeepAlivePeriod(300 * time.Second)
			_ = tc.SetKeepAlive(true)
		}
		l.wg.Add(1)
		go l.handle(raw, tls.Server(raw, cfg))
	}
}

// sweep closes idle connections once a second and refreshes the
// accounting of queued output, as the loops' OnTick.
func (l *Listener) sweep() {
	defer l.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		idle := l.o.Server.Limits().IdleTimeout
		l.conns.Range(func(k, _ any) bool {
			c := k.(*conn)
			c.accountQueue() // AsyncWrite may have queued, the writer drained
			if idle <= 0 || c.Idle() <= idle {
				return true
			}
			if ex, ok := c.sess.(interface{ IdleExempt() bool }); ok && ex.IdleExempt() {
				return true
			}
			c.Close()
			return true
		})
	}
}

// Stop closes the listeners and every connection, and waits for their
// goroutines (each calls its session's Closed) or for ctx.
func (l *Listener) Stop(ctx context.Context) error {
	l.once.Do(func() {
		close(l.done)
		for _, ln := range l.lns {
			_ = ln.Close()
		}
	})
	l.conns.Range(func(k, _ any) bool {
		k.(*conn).Close()
		return true
	})
	l.handshaking.Range(func(k, _ any) bool {
		_ = k.(net.Conn).Close()
		return true
	})
	waited := make(chan struct{})
	go func() { l.wg.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
