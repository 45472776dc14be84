package benchkit

import (
	"bufio"
	"net"
	"strings"
	"time"
)

// MCConn is a minimal memcached text-protocol client over MemcacheText:
// set and get of one key, version and stats. Not safe for concurrent use.
type MCConn struct {
	c       net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	timeout time.Duration
	out     []byte // the request being encoded, reused
	scratch []byte // where values are read
}

// DialMemcached connects to addr; timeout bounds the dial, each flush and
// each reply read.
func DialMemcached(addr string, timeout time.Duration) (*MCConn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &MCConn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10), timeout: timeout}, nil
}

func (c *MCConn) Close() error { return c.c.Close() }

func (c *MCConn) deadline() { c.c.SetDeadline(time.Now().Add(c.timeout)) }

// WriteSet buffers a set; Flush sends it, SetReply reads its answer.
func (c *MCConn) WriteSet(key, val []byte) {
	c.out = MemcacheText{}.AppendSet(c.out[:0], key, val)
	c.w.Write(c.out)
}

// WriteGet buffers a get of one key; Flush sends it, GetReply reads its
// answer.
func (c *MCConn) WriteGet(key []byte) {
	c.out = MemcacheText{}.AppendGet(c.out[:0], key)
	c.w.Write(c.out)
}

// Flush sets the deadline and sends what is buffered.
func (c *MCConn) Flush() error {
	c.deadline()
	return c.w.Flush()
}

// SetReply reads the answer to a set: nil for STORED, a ReplyErr for an
// error line (SERVER_ERROR out of memory ..., NOT_STORED, ...).
func (c *MCConn) SetReply() error {
	c.deadline()
	return MemcacheText{}.ReadSet(c.r)
}

// GetReply reads the answer to a get of key: found false on a miss; a
// VALUE of another key is a ReplyErr. The value is valid until the next
// read.
func (c *MCConn) GetReply(key []byte) (value []byte, found bool, err error) {
	c.deadline()
	return MemcacheText{}.ReadGet(c.r, key, &c.scratch)
}

// exchange sends one line and reads the first line of the answer.
func (c *MCConn) exchange(cmd string) (string, error) {
	c.w.WriteString(cmd + "\r\n")
	if err := c.Flush(); err != nil {
		return "", err
	}
	return c.line()
}

func (c *MCConn) line() (string, error) {
	l, err := ReadLine(c.r)
	return string(l), err
}

// Version runs version and returns what follows "VERSION ".
func (c *MCConn) Version() (string, error) {
	line, err := c.exchange("version")
	if err != nil {
		return "", err
	}
	if v, ok := strings.CutPrefix(line, "VERSION "); ok {
		return v, nil
	}
	return "", memcacheOther("version", []byte(line))
}

// Stats runs stats (general statistics) and returns its "STAT name value"
// fields.
func (c *MCConn) Stats() (map[string]string, error) {
	line, err := c.exchange("stats")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for line != "END" {
		name, ok := strings.CutPrefix(line, "STAT ")
		if !ok {
			return nil, memcacheOther("stats", []byte(line))
		}
		k, v, _ := strings.Cut(name, " ")
		m[k] = v
		if line, err = c.line(); err != nil {
			return nil, err
		}
	}
	return m, nil
}
