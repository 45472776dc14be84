package servertest

import "sync"

// WritePeer is a Peer that keeps what AsyncWrite sends it: for tests of
// what a connection is told off its own Serve (a refusal on a timer, a
// pub/sub message).
type WritePeer struct {
	*Peer
	mu      sync.Mutex
	written []byte
}

// NewWritePeer returns a WritePeer whose client address is remote ("" for
// the default loopback client).
func NewWritePeer(local, remote string) *WritePeer {
	return &WritePeer{Peer: NewRemotePeer(local, remote)}
}

// AsyncWrite records b.
func (p *WritePeer) AsyncWrite(b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written = append(p.written, b...)
	return nil
}

// Written returns a copy of everything AsyncWrite was given so far.
func (p *WritePeer) Written() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]byte(nil), p.written...)
}
