package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// conn is a minimal RESP2 client: requests are encoded here (no client
// library), replies parsed here. Not safe for concurrent use.
type conn struct {
	c       net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	timeout time.Duration
	scratch []byte
}

func dial(addr string, timeout time.Duration) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10), timeout: timeout}, nil
}

func (c *conn) Close() error { return c.c.Close() }

// deadline bounds the next exchange.
func (c *conn) deadline() { c.c.SetDeadline(time.Now().Add(c.timeout)) }

// appendBulk appends one RESP bulk string.
func appendBulk(dst, s []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// appendCommand appends a RESP array of bulk strings.
func appendCommand(dst []byte, args ...[]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = appendBulk(dst, a)
	}
	return dst
}

// reply is one parsed RESP reply.
type reply struct {
	kind  byte // '+', '-', ':', '$', '*'
	str   []byte
	null  bool
	int   int64
	elems []reply
}

func (r reply) String() string {
	switch r.kind {
	case '$':
		if r.null {
			return "(nil)"
		}
		return string(r.str)
	case ':':
		return strconv.FormatInt(r.int, 10)
	case '*':
		parts := make([]string, len(r.elems))
		for i, e := range r.elems {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, " ") + "]"
	default:
		return string(r.str)
	}
}

func (r reply) err() error {
	if r.kind == '-' {
		return errors.New(string(r.str))
	}
	return nil
}

// line reads one CRLF-terminated line; the slice is valid until the next
// read.
func (c *conn) line() ([]byte, error) {
	l, err := c.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("reply line longer than %d bytes", c.r.Size())
		}
		return nil, err
	}
	if len(l) < 3 || l[len(l)-2] != '\r' {
		return nil, fmt.Errorf("malformed reply line %q", l)
	}
	return l[:len(l)-2], nil
}

// readReply reads any reply, copying its strings.
func (c *conn) readReply() (reply, error) {
	l, err := c.line()
	if err != nil {
		return reply{}, err
	}
	r := reply{kind: l[0]}
	switch l[0] {
	case '+', '-':
		r.str = bytes.Clone(l[1:])
	case ':':
		r.int, err = strconv.ParseInt(string(l[1:]), 10, 64)
	case '$':
		n, perr := strconv.Atoi(string(l[1:]))
		if perr != nil || n < -1 {
			return r, fmt.Errorf("bad bulk length %q", l)
		}
		if n == -1 {
			r.null = true
			return r, nil
		}
		r.str = make([]byte, n+2)
		if _, err = io.ReadFull(c.r, r.str); err != nil {
			return r, err
		}
		r.str = r.str[:n]
	case '*':
		n, perr := strconv.Atoi(string(l[1:]))
		if perr != nil || n < -1 {
			return r, fmt.Errorf("bad array length %q", l)
		}
		if n == -1 {
			r.null = true
			return r, nil
		}
		for i := 0; i < n; i++ {
			e, err := c.readReply()
			if err != nil {
				return r, err
			}
			r.elems = append(r.elems, e)
		}
	default:
		return r, fmt.Errorf("unexpected reply %q", l)
	}
	return r, err
}

// do sends one command and reads its reply; an error reply is an error.
func (c *conn) do(args ...string) (reply, error) {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	c.deadline()
	if _, err := c.w.Write(appendCommand(nil, bs...)); err != nil {
		return reply{}, err
	}
	if err := c.w.Flush(); err != nil {
		return reply{}, err
	}
	r, err := c.readReply()
	if err != nil {
		return r, err
	}
	return r, r.err()
}

// getReply reads the reply to a GET. hit is false on a nil reply; err is
// a replyErr for an error reply (the stream is still in step), anything
// else for a broken stream. The value is valid until the next read.
func (c *conn) getReply() (value []byte, hit bool, err error) {
	l, err := c.line()
	if err != nil {
		return nil, false, err
	}
	switch l[0] {
	case '$':
		n, perr := strconv.Atoi(string(l[1:]))
		if perr != nil || n < -1 {
			return nil, false, fmt.Errorf("bad bulk length %q", l)
		}
		if n == -1 {
			return nil, false, nil
		}
		if cap(c.scratch) < n+2 {
			c.scratch = make([]byte, n+2)
		}
		buf := c.scratch[:n+2]
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, false, err
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return nil, false, errors.New("bulk reply does not end in CRLF")
		}
		return buf[:n], true, nil
	case '-':
		return nil, false, replyErr(l[1:])
	}
	return nil, false, fmt.Errorf("unexpected reply to GET: %q", l)
}

// setReply reads the reply to a SET: nil for +OK, a replyErr for an error
// reply (OOM among them).
func (c *conn) setReply() error {
	l, err := c.line()
	if err != nil {
		return err
	}
	switch {
	case string(l) == "+OK":
		return nil
	case l[0] == '-':
		return replyErr(l[1:])
	}
	return fmt.Errorf("unexpected reply to SET: %q", l)
}

// replyErr is an error reply: well-formed, the connection stays in step.
type replyErr string

func (e replyErr) Error() string { return string(e) }

// isOOM reports whether an error reply is Redis's "-OOM command not
// allowed when used memory > 'maxmemory'." (Tandem answers the same).
func (e replyErr) isOOM() bool { return strings.HasPrefix(string(e), "OOM") }

// infoFields runs INFO [section] and returns its "name:value" fields.
func (c *conn) infoFields(section string) (map[string]string, error) {
	args := []string{"INFO"}
	if section != "" {
		args = append(args, section)
	}
	r, err := c.do(args...)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(r.str), "\n") {
		l = strings.TrimRight(l, "\r")
		if l == "" || l[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[k] = v
		}
	}
	return m, nil
}

// infoInt returns one integer field of INFO.
func (c *conn) infoInt(section, field string) (int64, error) {
	m, err := c.infoFields(section)
	if err != nil {
		return 0, err
	}
	v, ok := m[field]
	if !ok {
		return 0, fmt.Errorf("INFO %s has no %s", section, field)
	}
	return strconv.ParseInt(v, 10, 64)
}
