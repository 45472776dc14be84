package resp

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/services"
)

// crossProtoEnv is a test env whose log the test reads.
func crossProtoEnv(t *testing.T) (*testEnv, *bytes.Buffer) {
	var logBuf bytes.Buffer
	clock := engine.NewManualClock(1_700_000_000_000)
	eng := engine.New(engine.Options{Clock: clock, ShardBits: 4})
	cfg := conf.Default()
	svc := services.New(services.Options{Engine: eng, Config: cfg, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	fe := New(Options{Services: svc, Facts: ServerFacts{TCPPort: 6379, StartTime: time.Now(), ClientsCounter: func() int { return 1 }}})
	return &testEnv{t: t, fe: fe, eng: eng, cfg: cfg, clock: clock}, &logBuf
}

// Issue 12, defect 8: an HTTP request sent to the Redis port (a browser
// made to POST there) ran the commands in its body. Redis 7.0.15 closes
// the connection on a POST or Host: command and sends nothing.
func TestHTTPPostDoesNotRunCommands(t *testing.T) {
	env, logBuf := crossProtoEnv(t)
	c := env.client()
	got := c.raw("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nSET pwned 1\r\n")
	if got != "" || !c.closed {
		t.Errorf("POST: reply %q, closed %v; want nothing and closed", got, c.closed)
	}
	c2 := env.client()
	c2.expect(":0\r\n", "EXISTS", "pwned")
	if n := strings.Count(logBuf.String(), "Possible SECURITY ATTACK detected"); n != 1 {
		t.Errorf("%d warnings logged, want 1:\n%s", n, logBuf.String())
	}

	for _, in := range []string{
		"Host: x\r\nSET pwned 1\r\n",
		"host: x\r\n",
		"post\r\n",
		encodeCommand("POST", "/"),
		encodeCommand("HOST:", "x"),
		"SET a 1\r\nPOST /\r\n",        // SET runs, but its reply is dropped with the connection
		"MULTI\r\nSET a 1\r\nPOST\r\n", // inside MULTI
		"*1\r\n$4\r\nPING\r\npOsT / HTTP/1.1\r\nSET pwned 1\r\n",
	} {
		c := env.client()
		if got := c.raw(in); got != "" || !c.closed {
			t.Errorf("%q: reply %q, closed %v; want nothing and closed", in, got, c.closed)
		}
	}
	// Counted nowhere (the 4 are EXISTS, SET, MULTI and PING); logged at
	// most once a minute.
	stats := infoFieldMap(c2.do("INFO", "stats"))
	if v := stats["total_commands_processed"]; v != "4" {
		t.Errorf("total_commands_processed = %s, want 4", v)
	}
	if v := stats["total_error_replies"]; v != "0" {
		t.Errorf("total_error_replies = %s, want 0", v)
	}
	if n := strings.Count(logBuf.String(), "Possible SECURITY ATTACK detected"); n != 1 {
		t.Errorf("%d warnings logged within a minute, want 1", n)
	}
	c2.expect(":0\r\n", "EXISTS", "pwned")
	c2.expect(":1\r\n", "EXISTS", "a")
	// Neither is a command; names that only look alike are unknown ones.
	c2.expect("*2\r\n$-1\r\n$-1\r\n", "COMMAND", "INFO", "post", "host:")
	c2.expect("-ERR unknown command 'host', with args beginning with: \r\n", "host")
	c2.expect("-ERR unknown command 'posts', with args beginning with: \r\n", "posts")
}
