// Package nullserver is a benchmark fixture, not a mode of Tandem: the
// network floor. It runs on Tandem's own event loops (package server,
// gnet) and parses requests with Tandem's RESP parser (resp.Parser), but
// it never touches an engine: SET is answered +OK, GET a bulk of fixed
// bytes. The throughput of Tandem as a share of the null server's, in the
// same run, says how much of the cost per request is Tandem's own (the
// engine, the command table, the reply writer) rather than the loop's and
// the kernel's.
//
// How a request moves: the server reads a connection's bytes and hands
// them to the session's Serve, which takes every complete request from
// them with resp.Parser.Next and appends the canned reply of its command
// name (by length and first letter: no map, no allocation) to the
// server's reply buffer; the server writes that buffer once per read,
// exactly as it does for Tandem.
//
// A GET is answered with as many bytes as the last SET stored (any
// connection; initially Options.ValueSize), so the floor moves the bytes
// a benchmark's values have without keeping any of them. MGET answers a
// bulk per key, PING +PONG, anything else +OK (FLUSHALL, flush between
// runs, INFO for the process id is answered by Info).
package nullserver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/tandemkv/tandem/resp"
	"github.com/tandemkv/tandem/server"
)

// Options configure a null server.
type Options struct {
	Addr      string // host:port to listen on
	ValueSize int    // bytes of a GET's bulk until a SET says otherwise
	Logger    *slog.Logger
}

// Server is a running null server.
type Server struct {
	srv  *server.Server
	size atomic.Int64 // the length of a GET's bulk
	errc chan error
}

// Start listens on o.Addr and serves until Stop.
func Start(o Options) (*Server, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	s := &Server{errc: make(chan error, 1)}
	s.size.Store(int64(max(o.ValueSize, 0)))
	s.srv = server.New(server.Options{Logger: log, Multicore: true})
	s.srv.Listeners([]server.Listener{{Addrs: []string{o.Addr}, Frontend: frontend{s}}})
	go func() { s.errc <- s.srv.Run() }()
	select {
	case <-s.srv.Ready():
		if err := s.srv.StartErr(); err != nil {
			return nil, err
		}
	case err := <-s.errc:
		return nil, fmt.Errorf("null server on %s: %v", o.Addr, err)
	}
	return s, nil
}

// Stop closes the listener and every connection.
func (s *Server) Stop(ctx context.Context) error { return s.srv.Stop(ctx) }

// Wait returns when the server has stopped.
func (s *Server) Wait() error { return <-s.errc }

type frontend struct{ s *Server }

func (f frontend) NewSession(server.Peer) server.Session {
	return &session{s: f.s, p: resp.NewParser(resp.Limits{})}
}

func (frontend) RejectMessage() []byte { return []byte("-ERR max number of clients reached\r\n") }

type session struct {
	s    *Server
	p    *resp.Parser
	bulk []byte // the fixed bytes of a GET's reply, grown as needed
}

func (*session) Closed() {}

func (c *session) Serve(in, out []byte) (int, []byte, bool) {
	consumed := 0
	for consumed < len(in) {
		args, n, err := c.p.Next(in[consumed:])
		if err != nil {
			return consumed, append(append(out, "-ERR "...), err.Error()+"\r\n"...), true
		}
		if n == 0 {
			break
		}
		consumed += n
		if len(args) > 0 {
			out = c.reply(out, args)
		}
	}
	return consumed, out, false
}

// is reports whether name is cmd, ASCII case-insensitively; cmd is upper
// case.
func is(name []byte, cmd string) bool {
	if len(name) != len(cmd) {
		return false
	}
	for i := range name {
		if name[i]&^0x20 != cmd[i] {
			return false
		}
	}
	return true
}

func (c *session) reply(out []byte, args [][]byte) []byte {
	name := args[0]
	switch {
	case is(name, "SET") && len(args) >= 3:
		if n := int64(len(args[2])); n != c.s.size.Load() {
			c.s.size.Store(n)
		}
		return append(out, "+OK\r\n"...)
	case is(name, "GET"):
		return c.appendBulk(out)
	case is(name, "MGET"):
		out = append(out, '*')
		out = strconv.AppendInt(out, int64(len(args)-1), 10)
		out = append(out, '\r', '\n')
		for range args[1:] {
			out = c.appendBulk(out)
		}
		return out
	case is(name, "PING"):
		return append(out, "+PONG\r\n"...)
	case is(name, "INFO"):
		info := "# Server\r\nnull_server:1\r\nprocess_id:" + strconv.Itoa(os.Getpid()) + "\r\n"
		out = append(out, '$')
		out = strconv.AppendInt(out, int64(len(info)), 10)
		return append(append(append(out, '\r', '\n'), info...), '\r', '\n')
	}
	return append(out, "+OK\r\n"...)
}

// appendBulk appends a bulk string of the current size.
func (c *session) appendBulk(out []byte) []byte {
	n := int(c.s.size.Load())
	if len(c.bulk) < n {
		c.bulk = make([]byte, n)
		for i := range c.bulk {
			c.bulk[i] = 'x'
		}
	}
	out = append(out, '$')
	out = strconv.AppendInt(out, int64(n), 10)
	out = append(out, '\r', '\n')
	out = append(out, c.bulk[:n]...)
	return append(out, '\r', '\n')
}
