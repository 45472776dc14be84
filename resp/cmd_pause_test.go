package resp

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// pending feeds a client as server/ does: what Serve leaves unconsumed
// is served again with what comes next.
type pendingClient struct {
	*testClient
	in []byte
}

func (p *pendingClient) send(s string) string {
	p.in = append(p.in, s...)
	n, out, _ := p.c.Serve(p.in, nil)
	p.in = append(p.in[:0], p.in[n:]...)
	return string(out)
}

func TestClientPauseArguments(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n", "CLIENT", "PAUSE", "x", "foo")
	c.expect("-ERR timeout is not an integer or out of range\r\n", "CLIENT", "PAUSE", "x")
	c.expect("-ERR timeout is not an integer or out of range\r\n", "CLIENT", "PAUSE", "1.5", "WRITE")
	c.expect("-ERR timeout is negative\r\n", "CLIENT", "PAUSE", "-1")
	c.expect("-ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.\r\n", "client", "pause", "1", "write", "x")
	c.expect("-ERR wrong number of arguments for 'client|pause' command\r\n", "CLIENT", "PAUSE")
	// 0 pauses nothing; an end past int64 wraps into the past, as in Redis.
	c.expect("+OK\r\n", "CLIENT", "PAUSE", "0")
	c.expect("+OK\r\n", "CLIENT", "PAUSE", "9223372036854775807", "ALL")
	c.expect("+OK\r\n", "SET", "k", "v")
	c.expect("+OK\r\n", "CLIENT", "UNPAUSE")
	c.expect("-ERR wrong number of arguments for 'client|unpause' command\r\n", "CLIENT", "UNPAUSE", "x")
}

// TestClientPauseWrite: reads run, writes and what follows them wait
// (unconsumed), MULTI's queueing of a write waits, a script waits unless
// it declared no-writes; CLIENT UNPAUSE lets them run in order.
func TestClientPauseWrite(t *testing.T) {
	env := newTestEnv(t)
	admin := env.client()
	p := &pendingClient{testClient: env.client()}
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
	if got := p.send(encodeCommand("GET", "k") + encodeCommand("PUBLISH", "ch", "m") + encodeCommand("GET", "k")); got != "$-1\r\n" {
		t.Fatalf("reads then PUBLISH under PAUSE WRITE: %q", got)
	}
	if got := p.send(""); got != "" || len(p.in) == 0 {
		t.Fatalf("served again while paused: %q, %d bytes left", got, len(p.in))
	}
	r := env.client()
	r.expect(":1\r\n", "EVAL", "#!lua flags=no-writes\nreturn 1", "0")
	if !strings.Contains(r.do("INFO", "clients"), "blocked_clients:1\r\n") {
		t.Error("a paused client is not counted in blocked_clients")
	}
	admin.expect("+OK\r\n", "CLIENT", "UNPAUSE")
	if got := p.send(""); got != ":0\r\n$-1\r\n" {
		t.Fatalf("after UNPAUSE: %q", got)
	}
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
	if got := p.send(encodeCommand("MULTI") + encodeCommand("GET", "k") + encodeCommand("SET", "k", "v") + encodeCommand("EXEC")); got != "+OK\r\n+QUEUED\r\n" {
		t.Fatalf("MULTI under PAUSE WRITE: %q", got)
	}
	if got := (&pendingClient{testClient: env.client()}).send(encodeCommand("EVAL", "return 1", "0")); got != "" {
		t.Fatalf("a script without flags under PAUSE WRITE: %q", got)
	}
	admin.expect("+OK\r\n", "CLIENT", "UNPAUSE")
	if got := p.send(""); got != "+QUEUED\r\n*2\r\n$-1\r\n+OK\r\n" {
		t.Fatalf("MULTI after UNPAUSE: %q", got)
	}
}

// TestClientPauseAll: every command waits, CLIENT UNPAUSE from another
// client too, until the end passes; then EXEC of reads runs.
func TestClientPauseAll(t *testing.T) {
	env := newTestEnv(t)
	admin := env.client()
	p := &pendingClient{testClient: env.client()}
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "1000", "ALL")
	if got := p.send(encodeCommand("PING")); got != "" {
		t.Fatalf("PING under PAUSE ALL: %q", got)
	}
	other := &pendingClient{testClient: env.client()}
	if got := other.send(encodeCommand("CLIENT", "UNPAUSE")); got != "" {
		t.Fatalf("CLIENT UNPAUSE under PAUSE ALL: %q", got)
	}
	// Refusals come before the pause, as in Redis.
	if got := other.send(encodeCommand("NOSUCH")); got != "" {
		t.Fatalf("behind the held-back command: %q", got)
	}
	env.clock.Advance(1001 * time.Millisecond)
	if got := p.send(""); got != "+PONG\r\n" {
		t.Fatalf("after the end: %q", got)
	}
	if got := other.send(""); got != "+OK\r\n-ERR unknown command 'NOSUCH', with args beginning with: \r\n" {
		t.Fatalf("the other client after the end: %q", got)
	}
	// A second pause keeps the stricter mode and the later end (under
	// ALL, CLIENT PAUSE itself would wait: WRITE comes first).
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "500", "WRITE")
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "100", "ALL")
	env.clock.Advance(200 * time.Millisecond)
	if got := p.send(encodeCommand("GET", "k")); got != "" {
		t.Fatalf("ALL ended with its own end, not the later one: %q", got)
	}
	env.clock.Advance(400 * time.Millisecond)
	if got := p.send(""); got != "$-1\r\n" {
		t.Fatalf("after the later end: %q", got)
	}
}

// TestClientPauseKeepsExpiredKeys: during a pause an expired key reads as
// missing but stays, as Redis keeps the dataset still.
func TestClientPauseKeepsExpiredKeys(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.do("SET", "k", "v", "PX", "10")
	env.clock.Advance(time.Second)
	c.expect("+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
	c.expect("$-1\r\n", "GET", "k")
	c.expect(":1\r\n", "DBSIZE")
	c.expect("+OK\r\n", "CLIENT", "UNPAUSE")
	c.expect("$-1\r\n", "GET", "k")
	c.expect(":0\r\n", "DBSIZE")
}

func TestClientUnblock(t *testing.T) {
	env := newTestEnv(t)
	admin := env.client()
	admin.expect("-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n", "CLIENT", "UNBLOCK", "x", "foo")
	admin.expect("-ERR value is not an integer or out of range\r\n", "CLIENT", "UNBLOCK", "x")
	admin.expect(":0\r\n", "CLIENT", "UNBLOCK", "99999")
	admin.expect(":0\r\n", "CLIENT", "UNBLOCK", "-1", "ERROR")
	admin.expect("-ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. Try CLIENT HELP.\r\n", "CLIENT", "UNBLOCK", "1", "TIMEOUT", "x")

	b := &pendingClient{testClient: env.client()}
	id := strconv.FormatUint(b.c.id, 10)
	admin.expect(":0\r\n", "CLIENT", "UNBLOCK", id) // not blocked
	if got := b.send(encodeCommand("BLPOP", "q", "0") + encodeCommand("PING")); got != "" {
		t.Fatalf("BLPOP: %q", got)
	}
	admin.expect(":1\r\n", "CLIENT", "UNBLOCK", id)
	if got := b.send(""); got != "*-1\r\n+PONG\r\n" {
		t.Fatalf("unblocked with TIMEOUT: %q", got)
	}
	b.send(encodeCommand("BZPOPMIN", "z", "100"))
	admin.expect(":1\r\n", "CLIENT", "UNBLOCK", id, "error")
	if got := b.send(""); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("unblocked with ERROR: %q", got)
	}
	// A request left for a command that ended meanwhile does not touch
	// the next one.
	b.send(encodeCommand("BLPOP", "q", "0"))
	admin.expect(":1\r\n", "CLIENT", "UNBLOCK", id)
	admin.do("RPUSH", "q", "x")
	if got := b.send(""); got != "*2\r\n$1\r\nq\r\n$1\r\nx\r\n" {
		t.Fatalf("a push before the unblock is served: %q", got)
	}
	b.send(encodeCommand("BLPOP", "q", "0"))
	if got := b.send(""); got != "" {
		t.Fatalf("a stale unblock ended the next BLPOP: %q", got)
	}
	admin.do("RPUSH", "q", "y")
	if got := b.send(""); got != "*2\r\n$1\r\nq\r\n$1\r\ny\r\n" {
		t.Fatalf("the next BLPOP: %q", got)
	}
	// A client a pause holds back is not blocked by a blocking command.
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE")
	b.send(encodeCommand("SET", "k", "v"))
	admin.expect(":0\r\n", "CLIENT", "UNBLOCK", id, "ERROR")
	admin.expect("+OK\r\n", "CLIENT", "UNPAUSE")
	if got := b.send(""); got != "+OK\r\n" {
		t.Fatalf("the held-back SET: %q", got)
	}
}
