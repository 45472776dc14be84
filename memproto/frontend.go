package memproto

import (
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/server"
)

// Options configure the memcached front-end.
type Options struct {
	Engine  *engine.Engine
	Config  *conf.Config
	Version string
}

// Frontend serves the memcached protocol.
type Frontend struct{ o Options }

// New returns the memcached front-end.
func New(o Options) *Frontend { return &Frontend{o: o} }

// RejectMessage implements server.Frontend.
func (f *Frontend) RejectMessage() []byte { return []byte("SERVER_ERROR Too many open connections\r\n") }

// NewSession implements server.Frontend.
func (f *Frontend) NewSession(p server.Peer) server.Session { return &session{} }

type session struct{}

func (s *session) Serve(in, out []byte) (int, []byte, bool) { return len(in), append(out, "ERROR\r\n"...), false }
func (s *session) Closed()                                  {}
