package resp

import (
	"testing"
	"time"
)

func TestDispatch(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+PONG\r\n", "PING")
	c.expect("+PONG\r\n", "pInG")
	c.expect("$2\r\nhi\r\n", "ping", "hi")
	c.expect("-ERR wrong number of arguments for 'ping' command\r\n", "ping", "a", "b")
	c.expect("-ERR wrong number of arguments for 'get' command\r\n", "get")
	c.expect("-ERR unknown command 'nope', with args beginning with: 'x' \r\n", "nope", "x")
	c.expect("+OK\r\n", "SET", "k", "v")
	c.expect("$1\r\nv\r\n", "GET", "k")
	// Pipelined: every complete command in one read, replies in order.
	if got := c.raw(encodeCommand("SET", "a", "1") + encodeCommand("GET", "a") + "PING\r\n"); got != "+OK\r\n$1\r\n1\r\n+PONG\r\n" {
		t.Fatalf("pipeline: %q", got)
	}
	// A protocol error replies and closes after the commands before it.
	if got := c.raw("PING\r\n*1\r\n$-2\r\n"); got != "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n" || !c.closed {
		t.Fatalf("protocol error: %q closed=%v", got, c.closed)
	}
}

func TestSetOptions(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "SET", "k", "v", "EX", "10")
	c.expect("-ERR syntax error\r\n", "SET", "k", "v", "EX", "10", "PX", "5")
	c.expect("-ERR syntax error\r\n", "SET", "k", "v", "NX", "XX")
	c.expect("-ERR invalid expire time in 'set' command\r\n", "SET", "k", "v", "EX", "0")
	c.expect("-ERR value is not an integer or out of range\r\n", "SET", "k", "v", "EX", "x")
	c.expect("$-1\r\n", "SET", "k", "w", "NX")
	c.expect("$1\r\nv\r\n", "SET", "k", "w", "GET")
	c.expect("$-1\r\n", "SET", "n", "w", "XX", "GET")
	c.expect("$-1\r\n", "GET", "n")
	c.expect("+OK\r\n", "SET", "t", "v", "PX", "100")
	env.clock.Advance(100 * time.Millisecond)
	c.expect("$1\r\nv\r\n", "GET", "t") // Redis keeps a key through its expire millisecond
	env.clock.Advance(time.Millisecond)
	c.expect("$-1\r\n", "GET", "t")
}
