package compat

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// respClient is a minimal synchronous RESP client for tests that need to
// act on replies (SCAN loops, cross-protocol checks).
type respClient struct {
	t    testing.TB
	addr string
	conn net.Conn
	r    *bufio.Reader
}

func dialRESP(t testing.TB, addr string) *respClient {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, timeoutFor(addr))
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return &respClient{t: t, addr: addr, conn: conn, r: bufio.NewReader(conn)}
}

// do sends one command and returns its reply; a transport error fails the test.
func (c *respClient) do(args ...string) reply {
	c.t.Helper()
	c.conn.SetDeadline(time.Now().Add(timeoutFor(c.addr)))
	if _, err := c.conn.Write([]byte(cmd(args...))); err != nil {
		c.t.Fatalf("%s: writing %v: %v", c.addr, args, err)
	}
	rep, err := readReply(c.r)
	if err != nil {
		c.t.Fatalf("%s: reading reply to %v: %v", c.addr, args, err)
	}
	return rep
}

// pipeline sends all commands in one write and reads all replies.
func (c *respClient) pipeline(commands []string) []reply {
	c.t.Helper()
	c.conn.SetDeadline(time.Now().Add(timeoutFor(c.addr)))
	if _, err := c.conn.Write([]byte(strings.Join(commands, ""))); err != nil {
		c.t.Fatalf("%s: writing pipeline: %v", c.addr, err)
	}
	out := make([]reply, len(commands))
	for i := range commands {
		rep, err := readReply(c.r)
		if err != nil {
			c.t.Fatalf("%s: reading reply %d of pipeline: %v", c.addr, i, err)
		}
		out[i] = rep
	}
	return out
}

// memcClient is a minimal memcached client speaking raw text.
type memcClient struct {
	t    testing.TB
	addr string
	conn net.Conn
	r    *bufio.Reader
}

func dialMemc(t testing.TB, addr string) *memcClient {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, timeoutFor(addr))
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return &memcClient{t: t, addr: addr, conn: conn, r: bufio.NewReader(conn)}
}

// do sends raw text followed by mn and returns everything answered before MN.
func (c *memcClient) do(raw string) string {
	c.t.Helper()
	c.conn.SetDeadline(time.Now().Add(timeoutFor(c.addr)))
	if _, err := c.conn.Write([]byte(raw + "mn\r\n")); err != nil {
		c.t.Fatalf("%s: writing %q: %v", c.addr, raw, err)
	}
	out, err := readUntilMN(c.r)
	if err != nil {
		c.t.Fatalf("%s: reading reply to %q: %v (got %q)", c.addr, raw, err, out)
	}
	return string(out)
}

// text renders a reply for messages.
func (r reply) String() string { return fmt.Sprintf("%q", r.raw) }
