// Package servertest gives front-end tests a server.Peer without sockets.
package servertest

import (
	"sync/atomic"
	"time"
)

var ids atomic.Uint64

// Peer is an in-process server.Peer: it records Close and ignores writes
// and wake-ups. Tests that need those embed it and override the method.
type Peer struct {
	id     uint64
	local  string
	remote string
	Closed atomic.Bool
}

// NewPeer returns a peer with a fresh ID whose local address is local
// (e.g. "127.0.0.1:6379").
func NewPeer(local string) *Peer { return &Peer{id: ids.Add(1), local: local} }

// NewRemotePeer returns a peer like NewPeer whose client address is remote
// (e.g. "10.1.2.3:4567": only a string, nothing is sent to it).
func NewRemotePeer(local, remote string) *Peer {
	return &Peer{id: ids.Add(1), local: local, remote: remote}
}

func (p *Peer) ID() uint64 { return p.id }
func (p *Peer) RemoteAddr() string {
	if p.remote == "" {
		return "127.0.0.1:50000"
	}
	return p.remote
}
func (p *Peer) LocalAddr() string         { return p.local }
func (p *Peer) AsyncWrite(b []byte) error { return nil }
func (p *Peer) Wake() error               { return nil }
func (p *Peer) Close()                    { p.Closed.Store(true) }
func (p *Peer) Idle() time.Duration       { return 0 }
func (p *Peer) FD() int                   { return 8 }
func (p *Peer) OutboundBuffered() int     { return 0 }
