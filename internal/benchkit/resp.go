package benchkit

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

// Conn is a minimal RESP2 client: requests are encoded here, replies
// parsed here. Not safe for concurrent use.
type Conn struct {
	c       net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	timeout time.Duration
	perRead bool // every reply line read extends the deadline
	scratch []byte
	out     []byte // WriteCmd's encoding, reused
}

// Dial connects to addr; timeout bounds the dial and each exchange.
func Dial(addr string, timeout time.Duration) (*Conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &Conn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10), timeout: timeout}, nil
}

// DeadlinePerRead makes every reply read extend the deadline by the
// timeout, so that a long pipeline is bounded reply by reply rather than
// as a whole.
func (c *Conn) DeadlinePerRead() { c.perRead = true }

func (c *Conn) Close() error { return c.c.Close() }

// Deadline bounds the next exchange.
func (c *Conn) Deadline() { c.c.SetDeadline(time.Now().Add(c.timeout)) }

func (c *Conn) readDeadline() {
	if c.perRead {
		c.Deadline()
	}
}

// WriteCmd buffers one command; Flush sends it.
func (c *Conn) WriteCmd(args ...[]byte) {
	c.out = AppendCommand(c.out[:0], args...)
	c.w.Write(c.out)
}

// Flush sets the deadline and sends what is buffered.
func (c *Conn) Flush() error {
	c.Deadline()
	return c.w.Flush()
}

// Send sets the deadline and sends pre-encoded commands (AppendCommand).
func (c *Conn) Send(out []byte) error {
	c.Deadline()
	if _, err := c.w.Write(out); err != nil {
		return err
	}
	return c.w.Flush()
}

// Reply is one parsed RESP reply.
type Reply struct {
	Kind  byte // '+', '-', ':', '$', '*'
	Str   []byte
	Null  bool
	Int   int64
	Elems []Reply
}

func (r Reply) String() string {
	switch r.Kind {
	case '$':
		if r.Null {
			return "(nil)"
		}
		return string(r.Str)
	case ':':
		return strconv.FormatInt(r.Int, 10)
	case '*':
		parts := make([]string, len(r.Elems))
		for i, e := range r.Elems {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, " ") + "]"
	default:
		return string(r.Str)
	}
}

// Err is the error of an error reply, nil for any other.
func (r Reply) Err() error {
	if r.Kind == '-' {
		return ReplyErr(r.Str)
	}
	return nil
}

// line reads one CRLF-terminated line; the slice is valid until the next
// read.
func (c *Conn) line() ([]byte, error) {
	c.readDeadline()
	l, err := ReadLine(c.r)
	if err == nil && len(l) == 0 {
		return nil, errors.New("empty reply line")
	}
	return l, err
}

// length parses the length of a bulk string ("$") or array ("*") reply
// line: -1 for a null one.
func length(l []byte) (int, error) {
	n, err := strconv.Atoi(string(l[1:]))
	if err != nil || n < -1 {
		what := "bulk"
		if l[0] == '*' {
			what = "array"
		}
		return 0, fmt.Errorf("bad %s length %q", what, l)
	}
	return n, nil
}

// ReadReply reads any reply, copying its strings. An error reply is a
// Reply of Kind '-', not an error.
func (c *Conn) ReadReply() (Reply, error) { return c.read(false) }

// ReadReplyDiscard reads any reply but skips the bytes of a top-level
// bulk string (a GET's value) instead of keeping them.
func (c *Conn) ReadReplyDiscard() (Reply, error) { return c.read(true) }

func (c *Conn) read(discard bool) (Reply, error) {
	l, err := c.line()
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Kind: l[0]}
	switch l[0] {
	case '+', '-':
		r.Str = bytes.Clone(l[1:])
	case ':':
		r.Int, err = strconv.ParseInt(string(l[1:]), 10, 64)
	case '$', '*':
		n, lerr := length(l)
		if lerr != nil {
			return r, lerr
		}
		if n == -1 {
			r.Null = true
			return r, nil
		}
		if l[0] == '*' {
			for i := 0; i < n; i++ {
				e, err := c.read(false)
				if err != nil {
					return r, err
				}
				r.Elems = append(r.Elems, e)
			}
			break
		}
		c.readDeadline()
		if discard {
			_, err = c.r.Discard(n + 2)
			return r, err
		}
		r.Str = make([]byte, n+2)
		if _, err = io.ReadFull(c.r, r.Str); err != nil {
			return r, err
		}
		r.Str = r.Str[:n]
	default:
		return r, fmt.Errorf("unexpected reply %q", l)
	}
	return r, err
}

// Do sends one command and reads its reply; an error reply is an error
// (a ReplyErr).
func (c *Conn) Do(args ...string) (Reply, error) {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	c.WriteCmd(bs...)
	if err := c.Flush(); err != nil {
		return Reply{}, err
	}
	r, err := c.ReadReply()
	if err != nil {
		return r, err
	}
	return r, r.Err()
}

// Pipeline sends pre-encoded commands and reads n replies. It fails on a
// broken stream; otherwise its error is the first error reply (a
// ReplyErr), after all n replies are read.
func (c *Conn) Pipeline(out []byte, n int) error {
	if err := c.Send(out); err != nil {
		return err
	}
	var first error
	for i := 0; i < n; i++ {
		r, err := c.ReadReply()
		if err != nil {
			return err
		}
		if e := r.Err(); e != nil && first == nil {
			first = e
		}
	}
	return first
}

// GetReply reads the reply to a GET. hit is false on a nil reply; err is
// a ReplyErr for an error reply (the stream is still in step), anything
// else for a broken stream. The value is valid until the next read.
func (c *Conn) GetReply() (value []byte, hit bool, err error) {
	c.readDeadline()
	return RESP{}.ReadGet(c.r, nil, &c.scratch)
}

// SetReply reads the reply to a SET: nil for +OK, a ReplyErr for an error
// reply (OOM among them).
func (c *Conn) SetReply() error {
	c.readDeadline()
	return RESP{}.ReadSet(c.r)
}

// Info runs INFO [section] ("" for the default sections) and returns its
// "name:value" fields.
func (c *Conn) Info(section string) (map[string]string, error) {
	args := []string{"INFO"}
	if section != "" {
		args = append(args, section)
	}
	r, err := c.Do(args...)
	if err != nil {
		return nil, err
	}
	return ParseInfo(r.Str), nil
}

// ParseInfo returns the "name:value" fields of an INFO reply's text.
func ParseInfo(text []byte) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(string(text), "\n") {
		l = strings.TrimRight(l, "\r")
		if l == "" || l[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// InfoInt runs INFO section and returns one integer field of it; a
// missing field is an error.
func (c *Conn) InfoInt(section, field string) (int64, error) {
	m, err := c.Info(section)
	if err != nil {
		return 0, err
	}
	v, ok := m[field]
	if !ok {
		return 0, fmt.Errorf("INFO %s has no %s", section, field)
	}
	return strconv.ParseInt(v, 10, 64)
}

// IntField returns one integer field of INFO fields, 0 when it is missing
// or not an integer.
func IntField(m map[string]string, field string) int64 {
	n, _ := strconv.ParseInt(m[field], 10, 64)
	return n
}
