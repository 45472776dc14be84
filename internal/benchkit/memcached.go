package benchkit

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// memcached's classic text protocol, as much of it as the benchmark tools
// use: set (client flags 0, no expiry) and get of one key, version and
// stats. The request encoder and the get-reply parser work on a bufio
// pair of the caller's; MCConn wraps them in a connection.

// WriteMemcachedSet buffers "set <key> 0 0 <bytes>", the value and CRLF.
func WriteMemcachedSet(w *bufio.Writer, key, val []byte) {
	w.WriteString("set ")
	w.Write(key)
	w.WriteString(" 0 0 ")
	w.WriteString(strconv.Itoa(len(val)))
	w.WriteString("\r\n")
	w.Write(val)
	w.WriteString("\r\n")
}

// WriteMemcachedGet buffers "get <key>".
func WriteMemcachedGet(w *bufio.Writer, key []byte) {
	w.WriteString("get ")
	w.Write(key)
	w.WriteString("\r\n")
}

// readMCLine reads one reply line without its line end.
func readMCLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// ReadMemcachedGet reads the reply to a get of one key: "END" (a miss,
// found false) or "VALUE <key> <flags> <bytes>[ <cas>]", the data block and
// "END". The value is a fresh slice.
func ReadMemcachedGet(r *bufio.Reader) (key string, value []byte, found bool, err error) {
	line, err := readMCLine(r)
	if err != nil {
		return "", nil, false, err
	}
	if line == "END" {
		return "", nil, false, nil
	}
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "VALUE" {
		return "", nil, false, fmt.Errorf("unexpected reply %q", line)
	}
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 0 {
		return "", nil, false, fmt.Errorf("unexpected reply %q", line)
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", nil, false, err
	}
	if b[n] != '\r' || b[n+1] != '\n' {
		return "", nil, false, fmt.Errorf("the data block of %s does not end in CRLF", f[1])
	}
	if end, err := readMCLine(r); err != nil || end != "END" {
		return "", nil, false, fmt.Errorf("no END after the value (%q, %v)", end, err)
	}
	return f[1], b[:n], true, nil
}

// mcReplyErr classifies a reply line that is not the expected success: a
// ReplyErr for memcached's one-line error answers (the stream is still in
// step), a plain error for anything else.
func mcReplyErr(cmd, line string) error {
	for _, p := range []string{"ERROR", "CLIENT_ERROR", "SERVER_ERROR", "NOT_STORED", "EXISTS", "NOT_FOUND"} {
		if line == p || strings.HasPrefix(line, p+" ") {
			return ReplyErr(line)
		}
	}
	return fmt.Errorf("%s: unexpected reply %q", cmd, line)
}

// MCConn is a minimal memcached text-protocol client. Not safe for
// concurrent use.
type MCConn struct {
	c       net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	timeout time.Duration
}

// DialMemcached connects to addr; timeout bounds the dial, each flush and
// each reply line read.
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
func (c *MCConn) WriteSet(key, val []byte) { WriteMemcachedSet(c.w, key, val) }

// WriteGet buffers a get of one key; Flush sends it, GetReply reads its
// answer.
func (c *MCConn) WriteGet(key []byte) { WriteMemcachedGet(c.w, key) }

// Flush sets the deadline and sends what is buffered.
func (c *MCConn) Flush() error {
	c.deadline()
	return c.w.Flush()
}

// SetReply reads the answer to a set: nil for STORED, a ReplyErr for an
// error line (SERVER_ERROR out of memory ..., NOT_STORED, ...).
func (c *MCConn) SetReply() error {
	c.deadline()
	line, err := readMCLine(c.r)
	if err != nil {
		return err
	}
	if line == "STORED" {
		return nil
	}
	return mcReplyErr("set", line)
}

// GetReply reads the answer to a get of key: found false on a miss; a
// VALUE of another key is an error.
func (c *MCConn) GetReply(key []byte) (value []byte, found bool, err error) {
	c.deadline()
	k, v, found, err := ReadMemcachedGet(c.r)
	if err == nil && found && k != string(key) {
		err = fmt.Errorf("get %s: VALUE of %s", key, k)
	}
	return v, found, err
}

// exchange sends one line and reads the first line of the answer.
func (c *MCConn) exchange(cmd string) (string, error) {
	c.w.WriteString(cmd + "\r\n")
	if err := c.Flush(); err != nil {
		return "", err
	}
	return readMCLine(c.r)
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
	return "", mcReplyErr("version", line)
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
			return nil, mcReplyErr("stats", line)
		}
		k, v, _ := strings.Cut(name, " ")
		m[k] = v
		if line, err = readMCLine(c.r); err != nil {
			return nil, err
		}
	}
	return m, nil
}
