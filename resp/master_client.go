package resp

import (
	"sync"
	"time"
)

// A replica's master client. Redis lists the client its master's stream
// runs as (CLIENT LIST flags=M, CLIENT LIST|KILL TYPE master), and a
// CLIENT KILL of it drops the link, which reconnects and asks to continue
// (PSYNC): operators and Redis's own tests force a partial resync so.
// Tandem's is the Replay the link applies the stream with, listed while
// the stream runs.

// NewMasterReplay returns the replaying client of a replica's link to
// its master (services.MasterReplayer), with a client id of its own.
func (f *Frontend) NewMasterReplay() *Replay {
	r := f.newReplayOn(&masterPeer{id: f.newClientID()})
	return r
}

// Linked lists the client as the master client of the stream from
// remote; drop closes that stream's connection.
func (r *Replay) Linked(remote, local string, drop func()) {
	p, ok := r.c.peer.(*masterPeer)
	if !ok {
		return
	}
	p.mu.Lock()
	p.remote, p.local, p.drop, p.lastIO = remote, local, drop, time.Now()
	p.mu.Unlock()
	r.c.fe.clients.Store(r.c.id, r.c)
}

// Unlinked takes the client off the list: the stream ended.
func (r *Replay) Unlinked() {
	p, ok := r.c.peer.(*masterPeer)
	if !ok {
		return
	}
	r.c.fe.clients.Delete(r.c.id)
	p.mu.Lock()
	p.drop = nil
	p.mu.Unlock()
}

// isMaster reports whether c is a replica's master client.
func (c *Client) isMaster() bool {
	_, ok := c.peer.(*masterPeer)
	return ok
}

// masterPeer is the master client's connection: the link's, which the
// link reads itself; Close drops it.
type masterPeer struct {
	id uint64

	mu            sync.Mutex
	remote, local string
	drop          func()
	lastIO        time.Time
}

func (p *masterPeer) ID() uint64 { return p.id }

func (p *masterPeer) RemoteAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.remote
}

func (p *masterPeer) LocalAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.local
}

func (p *masterPeer) AsyncWrite([]byte) error { return nil }
func (p *masterPeer) Wake() error             { return nil }
func (p *masterPeer) FD() int                 { return -1 }
func (p *masterPeer) OutboundBuffered() int   { return 0 }

func (p *masterPeer) Idle() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lastIO.IsZero() {
		return 0
	}
	return time.Since(p.lastIO)
}

// touch notes a command from the master (CLIENT LIST idle).
func (p *masterPeer) touch() {
	p.mu.Lock()
	p.lastIO = time.Now()
	p.mu.Unlock()
}

func (p *masterPeer) Close() {
	p.mu.Lock()
	drop := p.drop
	p.mu.Unlock()
	if drop != nil {
		drop()
	}
}
