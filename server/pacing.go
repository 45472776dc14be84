package server

import (
	"sync"
	"time"
)

// Pacing: a session that stops a pipeline because its replies are not
// being read (memcached's back-pressure) pauses the connection; the
// server keeps the unconsumed bytes and calls Serve again once the socket
// has taken the queued output.
//
// gnet v2 tells the handler nothing when a connection's outbound buffer
// drains: its write path (eventloop.write on EPOLLOUT) drops the writable
// interest and returns, and OnTraffic runs only for readable sockets,
// Wake and nothing else. So the server looks:
//
//   - at once, after the pausing Serve's replies are written: when the
//     socket took them (a client that reads), the connection is woken
//     (Conn.Wake) and served again on its next turn of the loop, after
//     the other connections' events, so a fast reader's big pipeline goes
//     through in bound-sized steps without starving its neighbours;
//   - otherwise later, by the drain watcher: one goroutine that wakes each
//     paused connection after 1 ms, then 2, 4… up to 64 ms while it stays
//     paused. A woken connection whose output is still over its resume
//     level costs one length comparison on its loop and stays paused.
//
// Bytes the client sends meanwhile are kept in the query buffer, under
// the query buffer limit. A paced session's connection is never closed
// for its queued output (Limits.OutputBufferLimit is for the others): its
// own bound holds it.

// Pauser is implemented by the server's Peer: PauseUntilDrained, called
// inside Serve when it stops before the end of its input because the
// connection's output is not read, makes the server serve the connection
// again, with the unconsumed bytes and whatever arrived meanwhile, once
// no more than resumeBelow bytes are queued for its socket. Test doubles
// may not implement it; a session then goes on serving.
type Pauser interface {
	PauseUntilDrained(resumeBelow int)
}

// OutputPacer is implemented by a Session that bounds its queued output
// by pausing (memcached's): the server never closes its connection for
// the output it has queued.
type OutputPacer interface {
	PacesOutput()
}

// PauseUntilDrained implements Pauser. On the connection's event loop,
// inside Serve.
func (c *conn) PauseUntilDrained(resumeBelow int) {
	c.pauseAsked = true
	c.resumeBelow = max(resumeBelow, 0)
}

// Drain watcher delays: the first look after a pause, and the longest
// wait between two looks at a connection that stays paused.
const (
	drainPollMin = time.Millisecond
	drainPollMax = 64 * time.Millisecond
)

// drainWatch is the set of paused connections the watcher wakes.
type drainWatch struct {
	once  sync.Once
	kick  chan struct{} // a connection was added
	mu    sync.Mutex
	conns map[*conn]*drainPoll
}

type drainPoll struct {
	next  time.Time
	delay time.Duration
}

// pause parks c after a Serve that asked for it and left bytes
// unconsumed. On c's event loop.
func (s *Server) pause(c *conn) {
	c.paused = true
	if c.gc.OutboundBuffered() <= c.resumeBelow {
		// The socket took the replies: serve the rest on the loop's next
		// turn (OnTraffic resumes it).
		_ = c.gc.Wake(nil)
		return
	}
	d := &s.drains
	d.once.Do(func() {
		d.kick = make(chan struct{}, 1)
		d.conns = map[*conn]*drainPoll{}
		go s.watchDrains()
	})
	d.mu.Lock()
	d.conns[c] = &drainPoll{next: time.Now().Add(drainPollMin), delay: drainPollMin}
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// unpause ends c's pause (it is served again, or closed). On c's event
// loop.
func (s *Server) unpause(c *conn) {
	if !c.paused {
		return
	}
	c.paused = false
	d := &s.drains
	if d.conns == nil {
		return // only woken at once, never watched
	}
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

// watchDrains wakes the paused connections on their schedule until the
// server stops.
func (s *Server) watchDrains() {
	d := &s.drains
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		d.mu.Lock()
		now := time.Now()
		wait := time.Duration(-1)
		for c, p := range d.conns {
			if !now.Before(p.next) {
				_ = c.gc.Wake(nil) // OnTraffic looks at its output
				p.delay = min(2*p.delay, drainPollMax)
				p.next = now.Add(p.delay)
			}
			if w := p.next.Sub(now); wait < 0 || w < wait {
				wait = w
			}
		}
		d.mu.Unlock()
		if wait < 0 {
			select {
			case <-d.kick:
				continue
			case <-s.done:
				return
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
		select {
		case <-timer.C:
		case <-d.kick:
		case <-s.done:
			return
		}
	}
}
