package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// conn is a minimal RESP2 client: the benchmark encodes its own requests
// so that what it times is the server, not a client library.
type conn struct {
	c  net.Conn
	r  *bufio.Reader
	w  *bufio.Writer
	to time.Duration
}

func dial(addr string, timeout time.Duration) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10), to: timeout}, nil
}

func (c *conn) close() { c.c.Close() }

// writeCmd buffers one command.
func (c *conn) writeCmd(args ...[]byte) {
	c.w.WriteByte('*')
	c.w.WriteString(strconv.Itoa(len(args)))
	c.w.WriteString("\r\n")
	for _, a := range args {
		c.w.WriteByte('$')
		c.w.WriteString(strconv.Itoa(len(a)))
		c.w.WriteString("\r\n")
		c.w.Write(a)
		c.w.WriteString("\r\n")
	}
}

func (c *conn) flush() error {
	c.c.SetDeadline(time.Now().Add(c.to))
	return c.w.Flush()
}

// reply is one parsed reply; arrays are flattened into strs.
type reply struct {
	kind byte // '+', '-', ':', '$', '*'
	str  string
	null bool
	strs []string
}

func (r reply) err() error {
	if r.kind == '-' {
		return errors.New(r.str)
	}
	return nil
}

func (c *conn) line() (string, error) {
	c.c.SetDeadline(time.Now().Add(c.to))
	s, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if len(s) < 3 || s[len(s)-2] != '\r' {
		return "", fmt.Errorf("bad reply line %q", s)
	}
	return s[:len(s)-2], nil
}

// read parses one reply. With discard, a bulk string's bytes are skipped,
// not kept (GET replies of the load).
func (c *conn) read(discard bool) (reply, error) {
	l, err := c.line()
	if err != nil {
		return reply{}, err
	}
	r := reply{kind: l[0], str: l[1:]}
	switch r.kind {
	case '+', '-', ':':
		return r, nil
	case '$':
		n, err := strconv.Atoi(r.str)
		if err != nil {
			return r, fmt.Errorf("bad bulk length %q", l)
		}
		if n < 0 {
			r.null = true
			return r, nil
		}
		c.c.SetDeadline(time.Now().Add(c.to))
		if discard {
			_, err = c.r.Discard(n + 2)
			r.str = ""
			return r, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return r, err
		}
		r.str = string(buf[:n])
		return r, nil
	case '*':
		n, err := strconv.Atoi(r.str)
		if err != nil {
			return r, fmt.Errorf("bad array length %q", l)
		}
		for i := 0; i < n; i++ {
			e, err := c.read(false)
			if err != nil {
				return r, err
			}
			r.strs = append(r.strs, e.str)
		}
		return r, nil
	}
	return r, fmt.Errorf("unexpected reply %q", l)
}

// do sends one command and reads its reply.
func (c *conn) do(args ...string) (reply, error) {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	c.writeCmd(bs...)
	if err := c.flush(); err != nil {
		return reply{}, err
	}
	return c.read(false)
}

// info returns the fields of INFO section.
func (c *conn) info(section string) (map[string]string, error) {
	r, err := c.do("INFO", section)
	if err != nil {
		return nil, err
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(r.str, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m, nil
}

// infoInt returns one integer field of INFO section (0 when missing).
func infoInt(m map[string]string, field string) int64 {
	n, _ := strconv.ParseInt(m[field], 10, 64)
	return n
}
