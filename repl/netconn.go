package repl

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
)

// NetConn is a ReplicaConn over a net.Conn, for listeners that own their
// sockets (a TLS port, tests): Send queues, a goroutine writes.
type NetConn struct {
	c       net.Conn
	mu      sync.Mutex
	queue   [][]byte
	wake    chan struct{}
	done    chan struct{}
	pending atomic.Int64
	closed  atomic.Bool
	once    sync.Once
}

var errConnClosed = errors.New("repl: connection closed")

// NewNetConn starts the writer of c.
func NewNetConn(c net.Conn) *NetConn {
	n := &NetConn{c: c, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go n.writer()
	return n
}

// Send queues a copy of p.
func (n *NetConn) Send(p []byte) error {
	if n.closed.Load() {
		return errConnClosed
	}
	b := append([]byte(nil), p...)
	n.mu.Lock()
	n.queue = append(n.queue, b)
	n.mu.Unlock()
	n.pending.Add(int64(len(b)))
	select {
	case n.wake <- struct{}{}:
	default:
	}
	return nil
}

// Pending is the bytes queued, not yet written.
func (n *NetConn) Pending() int { return int(n.pending.Load()) }

// Close closes the socket; queued bytes are dropped.
func (n *NetConn) Close() {
	n.once.Do(func() {
		n.closed.Store(true)
		n.c.Close()
		close(n.done)
	})
}

// RemoteAddr is the peer's address.
func (n *NetConn) RemoteAddr() string { return n.c.RemoteAddr().String() }

func (n *NetConn) writer() {
	for {
		select {
		case <-n.done:
			return
		case <-n.wake:
		}
		for {
			n.mu.Lock()
			q := n.queue
			n.queue = nil
			n.mu.Unlock()
			if len(q) == 0 {
				break
			}
			bufs := net.Buffers(q)
			size := 0
			for _, b := range q {
				size += len(b)
			}
			_, err := bufs.WriteTo(n.c)
			n.pending.Add(-int64(size))
			if err != nil {
				n.Close()
				return
			}
		}
	}
}
