package resp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/server/servertest"
	"github.com/tandemkv/tandem/services"
)

// Pub/sub: replies and pushes in both protocols, subscribe mode, delivery
// between clients through the outbox, cleanup; then real servers: fan-out
// across event loops and a subscriber that stops reading.

// push2 and push3 build a subscription push or a message as RESP2 / RESP3
// write it: ints are written as :n, nil as a null, strings as bulks.
func pushFrame(proto int, elems ...any) string {
	var b strings.Builder
	if proto == 3 {
		b.WriteString(">")
	} else {
		b.WriteString("*")
	}
	b.WriteString(strconv.Itoa(len(elems)) + "\r\n")
	for _, e := range elems {
		switch v := e.(type) {
		case int:
			b.WriteString(":" + strconv.Itoa(v) + "\r\n")
		case nil:
			if proto == 3 {
				b.WriteString("_\r\n")
			} else {
				b.WriteString("$-1\r\n")
			}
		case string:
			b.WriteString("$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n")
		}
	}
	return b.String()
}

func p2(elems ...any) string { return pushFrame(2, elems...) }
func p3(elems ...any) string { return pushFrame(3, elems...) }

const subModeErr = "-ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n"

func TestSubscribeRepliesRESP2(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("UNSUBSCRIBE"), p2("unsubscribe", nil, 0)},
		{argv("PUNSUBSCRIBE"), p2("punsubscribe", nil, 0)},
		{argv("SUNSUBSCRIBE"), p2("sunsubscribe", nil, 0)},
		{argv("UNSUBSCRIBE", "a", "b"), p2("unsubscribe", "a", 0) + p2("unsubscribe", "b", 0)},
		{argv("SUBSCRIBE"), "-ERR wrong number of arguments for 'subscribe' command\r\n"},
		{argv("SUBSCRIBE", "a", "b", "a"), p2("subscribe", "a", 1) + p2("subscribe", "b", 2) + p2("subscribe", "a", 2)},
		{argv("PING"), "*2\r\n$4\r\npong\r\n$0\r\n\r\n"},
		{argv("PING", "x"), "*2\r\n$4\r\npong\r\n$1\r\nx\r\n"},
		{argv("PING", "x", "y"), "-ERR wrong number of arguments for 'ping' command\r\n"},
		{argv("GET", "k"), fmt.Sprintf(subModeErr, "get")},
		{argv("pubsub", "channels"), fmt.Sprintf(subModeErr, "pubsub|channels")},
		{argv("PUBLISH", "a", "x"), fmt.Sprintf(subModeErr, "publish")},
		{argv("HELLO", "3"), fmt.Sprintf(subModeErr, "hello")},
		{argv("nosuch"), "-ERR unknown command 'nosuch', with args beginning with: \r\n"},
		{argv("PSUBSCRIBE", "p*", "p*"), p2("psubscribe", "p*", 3) + p2("psubscribe", "p*", 3)},
		{argv("SSUBSCRIBE", "s1", "s2"), p2("ssubscribe", "s1", 1) + p2("ssubscribe", "s2", 2)},
		{argv("UNSUBSCRIBE"), p2("unsubscribe", "a", 2) + p2("unsubscribe", "b", 1)},
		{argv("UNSUBSCRIBE"), p2("unsubscribe", nil, 1)},
		{argv("PUNSUBSCRIBE", "zz"), p2("punsubscribe", "zz", 1)},
		{argv("PUNSUBSCRIBE"), p2("punsubscribe", "p*", 0)},
		{argv("GET", "k"), fmt.Sprintf(subModeErr, "get")}, // still two shard channels
		{argv("SUNSUBSCRIBE", "s2"), p2("sunsubscribe", "s2", 1)},
		{argv("SUNSUBSCRIBE"), p2("sunsubscribe", "s1", 0)},
		{argv("PING"), "+PONG\r\n"},
		{argv("GET", "k"), "$-1\r\n"},
	})
	if c.c.ps.active {
		t.Error("subscriber still active without subscriptions")
	}
}

func TestSubscribeRESP3(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.do("HELLO", "3")
	runSteps(c, []srvStep{
		{argv("UNSUBSCRIBE"), p3("unsubscribe", nil, 0)},
		{argv("SUBSCRIBE", "a"), p3("subscribe", "a", 1)},
		{argv("PING"), "+PONG\r\n"},
		{argv("GET", "k"), "_\r\n"},
		// A message to itself comes before PUBLISH's reply.
		{argv("PUBLISH", "a", "hello"), p3("message", "a", "hello") + ":1\r\n"},
		{argv("PSUBSCRIBE", "a*"), p3("psubscribe", "a*", 2)},
		{argv("PUBLISH", "a", "x"), p3("message", "a", "x") + p3("pmessage", "a*", "a", "x") + ":2\r\n"},
		{argv("SSUBSCRIBE", "a"), p3("ssubscribe", "a", 1)},
		{argv("SPUBLISH", "a", "y"), p3("smessage", "a", "y") + ":1\r\n"},
		{argv("PUBSUB", "CHANNELS"), "*1\r\n$1\r\na\r\n"},
		{argv("PUBSUB", "SHARDCHANNELS"), "*1\r\n$1\r\na\r\n"},
		{argv("PUBSUB", "NUMSUB", "a", "b"), "*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:0\r\n"},
		{argv("PUBSUB", "NUMPAT"), ":1\r\n"},
	})
	// HELLO 2 while subscribed: allowed in RESP3, and then RESP2's
	// subscribe mode applies.
	c.do("HELLO", "2")
	runSteps(c, []srvStep{
		{argv("PING"), "*2\r\n$4\r\npong\r\n$0\r\n\r\n"},
		{argv("PUBLISH", "a", "z"), fmt.Sprintf(subModeErr, "publish")},
		{argv("RESET"), "+RESET\r\n"},
		{argv("PUBSUB", "NUMPAT"), ":0\r\n"},
		{argv("PUBSUB", "NUMSUB", "a"), "*2\r\n$1\r\na\r\n:0\r\n"},
	})
}

// TestHelloWhileSubscribed checks the reply of HELLO 2 in the test above
// separately, as it carries the client id.
func TestHelloWhileSubscribed(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.do("HELLO", "3")
	c.do("SUBSCRIBE", "a")
	got := c.do("HELLO", "2")
	if !strings.HasPrefix(got, "*14\r\n$6\r\nserver\r\n") {
		t.Fatalf("HELLO 2: %q", got)
	}
	other := env.client()
	other.expect(":1\r\n", "PUBLISH", "a", "now2")
	if got := c.raw(""); got != p2("message", "a", "now2") {
		t.Fatalf("after HELLO 2: %q", got)
	}
}

func TestPubSubIntrospection(t *testing.T) {
	env := newTestEnv(t)
	a, b, ctl := env.client(), env.client(), env.client()
	a.do("SUBSCRIBE", "news.1", "news.2")
	a.do("PSUBSCRIBE", "news.*", "x*")
	b.do("PSUBSCRIBE", "news.*")
	b.do("SSUBSCRIBE", "sh")
	runSteps(ctl, []srvStep{
		{argv("PUBSUB", "NUMPAT"), ":2\r\n"},
		{argv("PUBSUB", "NUMSUB"), "*0\r\n"},
		{argv("PUBSUB", "NUMSUB", "news.1", "zz", "news.1"), "*6\r\n$6\r\nnews.1\r\n:1\r\n$2\r\nzz\r\n:0\r\n$6\r\nnews.1\r\n:1\r\n"},
		{argv("PUBSUB", "SHARDNUMSUB", "sh", "news.1"), "*4\r\n$2\r\nsh\r\n:1\r\n$6\r\nnews.1\r\n:0\r\n"},
		{argv("PUBSUB", "CHANNELS", "*.1"), "*1\r\n$6\r\nnews.1\r\n"},
		{argv("PUBSUB", "SHARDCHANNELS", "s?"), "*1\r\n$2\r\nsh\r\n"},
		{argv("pubsub", "channels", "a", "b"), "-ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB HELP.\r\n"},
		{argv("PUBSUB", "SHARDCHANNELS", "a", "b"), "-ERR unknown subcommand or wrong number of arguments for 'SHARDCHANNELS'. Try PUBSUB HELP.\r\n"},
		{argv("PUBSUB", "NUMPAT", "x"), "-ERR wrong number of arguments for 'pubsub|numpat' command\r\n"},
		{argv("pubsub", "Foo"), "-ERR unknown subcommand 'Foo'. Try PUBSUB HELP.\r\n"},
		{argv("PUBSUB"), "-ERR wrong number of arguments for 'pubsub' command\r\n"},
		{argv("PUBLISH", "news.1", "m"), ":3\r\n"},
		{argv("SPUBLISH", "sh", "m"), ":1\r\n"},
		{argv("SPUBLISH", "news.1", "m"), ":0\r\n"},
		{argv("PUBLISH", "a"), "-ERR wrong number of arguments for 'publish' command\r\n"},
	})
	if got := ctl.do("PUBSUB", "CHANNELS"); got != "*2\r\n$6\r\nnews.1\r\n$6\r\nnews.2\r\n" && got != "*2\r\n$6\r\nnews.2\r\n$6\r\nnews.1\r\n" {
		t.Errorf("PUBSUB CHANNELS: %q", got)
	}
	help := ctl.do("PUBSUB", "HELP")
	if !strings.HasPrefix(help, "*14\r\n+PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+CHANNELS [<pattern>]\r\n") {
		t.Errorf("PUBSUB HELP: %q", help)
	}
	info := bulkText(t, ctl.do("INFO", "stats"))
	for _, want := range []string{"pubsub_channels:2\r\n", "pubsub_patterns:2\r\n", "pubsubshard_channels:1\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO stats lacks %q", want)
		}
	}
	list := bulkText(t, ctl.do("CLIENT", "LIST"))
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("CLIENT LIST: %q", list)
	}
	for i, want := range []string{"flags=P db=0 sub=2 psub=2 ssub=0 ", "flags=P db=0 sub=0 psub=1 ssub=1 ", "flags=N db=0 sub=0 psub=0 ssub=0 "} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("CLIENT LIST line %d: %q lacks %q", i, lines[i], want)
		}
	}
	typ := bulkText(t, ctl.do("CLIENT", "LIST", "TYPE", "pubsub"))
	if strings.Count(typ, "\n") != 2 || !strings.Contains(typ, "id="+strconv.FormatUint(a.c.id, 10)+" ") {
		t.Errorf("CLIENT LIST TYPE pubsub: %q", typ)
	}
	if !a.c.IdleExempt() || ctl.c.IdleExempt() {
		t.Error("subscribed clients must be exempt from the idle timeout, others not")
	}
	// Messages reach the others through their outboxes.
	want := p2("message", "news.1", "m") + p2("pmessage", "news.*", "news.1", "m")
	if got := a.raw(""); got != want {
		t.Errorf("a got %q, want %q", got, want)
	}
	if got := b.raw(""); got != p2("pmessage", "news.*", "news.1", "m")+p2("smessage", "sh", "m") {
		t.Errorf("b got %q", got)
	}
}

func TestPubSubCommandInfo(t *testing.T) {
	c := newTestEnv(t).client()
	info := c.do("COMMAND", "INFO", "ssubscribe", "publish", "pubsub|help")
	for _, want := range []string{
		"$10\r\nssubscribe\r\n:-2\r\n*4\r\n+pubsub\r\n+noscript\r\n+loading\r\n+stale\r\n:1\r\n:-1\r\n:1\r\n*2\r\n+@pubsub\r\n+@slow\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*1\r\n+not_key\r\n",
		"$7\r\npublish\r\n:3\r\n*4\r\n+pubsub\r\n+loading\r\n+stale\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@pubsub\r\n+@fast\r\n*0\r\n*0\r\n*0\r\n",
		"$11\r\npubsub|help\r\n:2\r\n*2\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@slow\r\n",
	} {
		if !strings.Contains(info, want) {
			t.Errorf("COMMAND INFO lacks %q in %q", want, info)
		}
	}
	c.expect("-ERR The command has no key arguments\r\n", "COMMAND", "GETKEYS", "SSUBSCRIBE", "a")
}

// TestPubSubReplyOff: CLIENT REPLY OFF drops replies but not pushes, as
// redis 7.0.15.
func TestPubSubReplyOff(t *testing.T) {
	env := newTestEnv(t)
	c, pub := env.client(), env.client()
	c.expect("", "CLIENT", "REPLY", "OFF")
	c.expect(p2("subscribe", "a", 1), "SUBSCRIBE", "a")
	c.expect("", "PING")
	pub.do("PUBLISH", "a", "m")
	if got := c.raw(""); got != p2("message", "a", "m") {
		t.Errorf("message with replies off: %q", got)
	}
	c3 := env.client()
	c3.do("HELLO", "3")
	c3.do("SUBSCRIBE", "a")
	c3.expect("", "CLIENT", "REPLY", "SKIP")
	c3.expect(p3("message", "a", "x"), "PUBLISH", "a", "x")
	c3.expect(p3("message", "a", "y")+":2\r\n", "PUBLISH", "a", "y")
	_ = c.raw("")
}

// TestPubSubOrderAroundUnsubscribe: a message queued before UNSUBSCRIBE
// comes before its confirmation.
func TestPubSubOrderAroundUnsubscribe(t *testing.T) {
	env := newTestEnv(t)
	c, pub := env.client(), env.client()
	c.do("SUBSCRIBE", "a")
	pub.expect(":1\r\n", "PUBLISH", "a", "1")
	got := c.do("UNSUBSCRIBE", "a")
	if want := p2("message", "a", "1") + p2("unsubscribe", "a", 0); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	pub.expect(":0\r\n", "PUBLISH", "a", "2")
	if got := c.raw(""); got != "" {
		t.Errorf("after unsubscribing: %q", got)
	}
}

// wakeCounter is a peer that counts wake-ups.
type wakeCounter struct {
	*fakePeer
	wakes atomic.Int32
}

func (p *wakeCounter) Wake() error { p.wakes.Add(1); return nil }

// TestPubSubWake: the first message into an empty outbox wakes the loop,
// the next ones do not until the outbox is drained; none while the
// subscriber's own command runs.
func TestPubSubWake(t *testing.T) {
	env := newTestEnv(t)
	p := &wakeCounter{fakePeer: servertest.NewPeer("127.0.0.1:6379")}
	c := &testClient{env: env, c: env.fe.NewSession(p).(*Client), peer: p.fakePeer}
	pub := env.client()
	c.do("SUBSCRIBE", "a")
	pub.do("PUBLISH", "a", "1")
	pub.do("PUBLISH", "a", "2")
	if n := p.wakes.Load(); n != 1 {
		t.Fatalf("%d wakes for two messages, want 1", n)
	}
	if got := c.raw(""); got != p2("message", "a", "1")+p2("message", "a", "2") {
		t.Fatalf("got %q", got)
	}
	pub.do("PUBLISH", "a", "3")
	if n := p.wakes.Load(); n != 2 {
		t.Fatalf("%d wakes, want 2", n)
	}
	c.do("UNSUBSCRIBE")
	c.do("HELLO", "3")
	c.do("SUBSCRIBE", "a")
	c.expect(p3("message", "a", "self")+":1\r\n", "PUBLISH", "a", "self")
	if n := p.wakes.Load(); n != 2 {
		t.Fatalf("a message to itself woke the loop")
	}
}

// TestPubSubCleanup: RESET, closing and CLIENT KILL drop every
// subscription.
func TestPubSubCleanup(t *testing.T) {
	env := newTestEnv(t)
	ctl := env.client()
	numsub := func() string { return ctl.do("PUBSUB", "NUMSUB", "a") }
	want := func(n int) string { return "*2\r\n$1\r\na\r\n:" + strconv.Itoa(n) + "\r\n" }

	a := env.client()
	a.do("SUBSCRIBE", "a")
	a.do("PSUBSCRIBE", "p")
	a.do("SSUBSCRIBE", "s")
	if got := numsub(); got != want(1) {
		t.Fatalf("NUMSUB %q", got)
	}
	a.expect("+RESET\r\n", "RESET")
	if got := numsub(); got != want(0) || env.fe.hub.Totals().Total() != 0 {
		t.Fatalf("after RESET: NUMSUB %q, totals %+v", got, env.fe.hub.Totals())
	}
	a.expect("$-1\r\n", "GET", "k") // out of subscribe mode

	b := env.client()
	b.do("SUBSCRIBE", "a")
	b.c.Closed()
	if got := numsub(); got != want(0) {
		t.Fatalf("after close: NUMSUB %q", got)
	}

	k := env.client()
	k.do("SUBSCRIBE", "a")
	k.do("PSUBSCRIBE", "*")
	ctl.expect(":1\r\n", "CLIENT", "KILL", "TYPE", "pubsub")
	if got := numsub(); got != want(0) || env.fe.hub.NumPat() != 0 {
		t.Fatalf("after CLIENT KILL: NUMSUB %q, NUMPAT %d", got, env.fe.hub.NumPat())
	}
	if !k.peer.Closed.Load() {
		t.Fatal("killed client not closed")
	}
	ctl.expect(":0\r\n", "PUBLISH", "a", "m")
}

// TestSSubscribeInsideExec: SSUBSCRIBE is refused inside EXEC, SUBSCRIBE
// runs with its pushes in EXEC's reply, as redis 7.0.
func TestSSubscribeInsideExec(t *testing.T) {
	c := newTestEnv(t).client()
	c.expect("+OK\r\n", "MULTI")
	c.expect("+QUEUED\r\n", "SUBSCRIBE", "a")
	c.expect("+QUEUED\r\n", "SSUBSCRIBE", "z")
	c.expect("*2\r\n"+p2("subscribe", "a", 1)+"-ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client\r\n", "EXEC")
	c.expect(p2("unsubscribe", "a", 0), "UNSUBSCRIBE")
}

// TestPubSubOutputLimitUnit: a subscriber that is never served is closed
// once its outbox passes the hard limit, and its outbox is freed.
func TestPubSubOutputLimitUnit(t *testing.T) {
	env := newTestEnv(t)
	if err := env.cfg.Set([2]string{"client-output-buffer-limit", "pubsub 64kb 0 0"}); err != nil {
		t.Fatal(err)
	}
	sub, pub := env.client(), env.client()
	sub.do("SUBSCRIBE", "a")
	msg := strings.Repeat("x", 1000)
	for i := 0; i < 100; i++ {
		pub.do("PUBLISH", "a", msg)
	}
	if !sub.peer.Closed.Load() {
		t.Fatal("subscriber over the hard limit not closed")
	}
	s := sub.c.ps
	s.mu.Lock()
	n := len(s.outbox)
	s.mu.Unlock()
	if n != 0 {
		t.Fatalf("outbox keeps %d bytes after the close", n)
	}
	if _, out, closeAfter := sub.c.Serve(nil, nil); !closeAfter || len(out) != 0 {
		t.Fatalf("Serve after the close: %q, close %v", out, closeAfter)
	}
	sub.c.Closed()
	pub.expect(":0\r\n", "PUBLISH", "a", "m")

	// Soft limit: over it for longer than the soft seconds.
	if err := env.cfg.Set([2]string{"client-output-buffer-limit", "pubsub 0 2kb 1"}); err != nil {
		t.Fatal(err)
	}
	soft := env.client()
	soft.do("SUBSCRIBE", "a")
	pub.do("PUBLISH", "a", msg)
	pub.do("PUBLISH", "a", msg)
	pub.do("PUBLISH", "a", msg) // over 2kb from here
	if soft.peer.Closed.Load() {
		t.Fatal("closed as soon as over the soft limit")
	}
	soft.c.ps.mu.Lock()
	soft.c.ps.softSince = soft.c.ps.softSince.Add(-1100 * time.Millisecond)
	soft.c.ps.mu.Unlock()
	pub.do("PUBLISH", "a", msg)
	if !soft.peer.Closed.Load() {
		t.Fatal("not closed after the soft seconds over the soft limit")
	}
}

// --- real servers ---

// startRESPServer runs a server with a Redis front-end on a loopback port
// and returns its address.
func startRESPServer(t *testing.T, cfg *conf.Config) (string, *Frontend) {
	t.Helper()
	eng := engine.New(engine.Options{})
	fe := New(Options{Services: services.New(services.Options{Engine: eng, Config: cfg}), Facts: ServerFacts{TCPPort: 6379, StartTime: time.Now(), ClientsCounter: func() int { return 1 }}})
	for attempt := 0; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		srv := server.New(server.Options{Multicore: true})
		srv.Listeners([]server.Listener{{Addrs: []string{addr}, Frontend: fe}})
		done := make(chan error, 1)
		go func() { done <- srv.Run() }()
		select {
		case <-srv.Ready():
		case <-time.After(10 * time.Second):
			t.Fatal("server not ready")
		}
		select {
		case err := <-done:
			if attempt < 3 {
				continue
			}
			t.Fatalf("server: %v", err)
		default:
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.Stop(ctx)
			<-done
		})
		return addr, fe
	}
}

// respConn is a test connection that reads whole RESP frames.
type respConn struct {
	t *testing.T
	net.Conn
	r *bufio.Reader
}

func dialRESP(t *testing.T, addr string) *respConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &respConn{t: t, Conn: c, r: bufio.NewReaderSize(c, 64<<10)}
}

// readFrame reads one RESP2/RESP3 frame and returns it raw.
func readFrame(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, fmt.Errorf("short line %q", line)
	}
	switch line[0] {
	case '+', '-', ':', '_', ',', '#', '(':
		return line, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(string(line[1 : len(line)-2]))
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return line, nil
		}
		body := make([]byte, n+2)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, err
		}
		return append(line, body...), nil
	case '*', '>', '~', '%':
		n, err := strconv.Atoi(string(line[1 : len(line)-2]))
		if err != nil {
			return nil, err
		}
		if line[0] == '%' {
			n *= 2
		}
		out := line
		for i := 0; i < n; i++ {
			e, err := readFrame(r)
			if err != nil {
				return nil, err
			}
			out = append(out, e...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad frame %q", line)
}

func (c *respConn) send(args ...string) {
	c.t.Helper()
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(encodeCommand(args...))); err != nil {
		c.t.Fatal(err)
	}
}

func (c *respConn) read() string {
	c.t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	f, err := readFrame(c.r)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return string(f)
}

func (c *respConn) do(args ...string) string {
	c.t.Helper()
	c.send(args...)
	return c.read()
}

// TestPubSubFanOutServer: 100 subscribers spread over the event loops,
// one publisher, 1,000 messages on four channels; every subscriber gets
// every message once, each channel in publishing order, and every PUBLISH
// counts 100 receivers. Half the subscribers speak RESP3.
func TestPubSubFanOutServer(t *testing.T) {
	addr, _ := startRESPServer(t, conf.Default())
	const subs, msgs = 100, 1000
	channels := []string{"ch:0", "ch:1", "ch:2", "ch:3"}
	conns := make([]*respConn, subs)
	for i := range conns {
		c := dialRESP(t, addr)
		if i%2 == 1 {
			c.do("HELLO", "3")
		}
		c.send(append([]string{"SUBSCRIBE"}, channels...)...)
		for range channels {
			c.read()
		}
		conns[i] = c
	}
	start := time.Now()
	errs := make(chan error, subs)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func(i int, c *respConn) {
			defer wg.Done()
			next := map[string]int{}
			for n := 0; n < msgs; n++ {
				c.SetReadDeadline(time.Now().Add(20 * time.Second))
				f, err := readFrame(c.r)
				if err != nil {
					errs <- fmt.Errorf("subscriber %d after %d messages: %v", i, n, err)
					return
				}
				// *3 / >3, "message", channel, "seq"
				parts := strings.Split(string(f), "\r\n")
				if len(parts) < 7 || parts[2] != "message" {
					errs <- fmt.Errorf("subscriber %d: frame %q", i, f)
					return
				}
				ch, seq := parts[4], parts[6]
				if want := strconv.Itoa(next[ch]); seq != want {
					errs <- fmt.Errorf("subscriber %d channel %s: message %s, want %s", i, ch, seq, want)
					return
				}
				next[ch]++
			}
		}(i, c)
	}
	pub := dialRESP(t, addr)
	var batch bytes.Buffer
	perChannel := map[string]int{}
	go func() {
		for i := 0; i < msgs; i++ {
			ch := channels[i%len(channels)]
			batch.WriteString(encodeCommand("PUBLISH", ch, strconv.Itoa(perChannel[ch])))
			perChannel[ch]++
			if batch.Len() > 4096 || i == msgs-1 {
				pub.Write(batch.Bytes())
				batch.Reset()
			}
		}
	}()
	for i := 0; i < msgs; i++ {
		if got := pub.read(); got != ":100\r\n" {
			t.Fatalf("PUBLISH %d: %q", i, got)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("fan-out: %d messages to %d subscribers (%d deliveries) in %v", msgs, subs, msgs*subs, time.Since(start))
	quiet := time.Now().Add(50 * time.Millisecond)
	for _, c := range conns {
		c.SetReadDeadline(quiet)
		if f, err := readFrame(c.r); err == nil {
			t.Fatalf("unexpected extra frame %q", f)
		}
	}
}

// TestPubSubSlowSubscriberServer: a subscriber that never reads while a
// publisher sends 100 MB, with a 1 MB hard pubsub limit. The subscriber is
// disconnected, the publisher's replies keep coming (it never waits on the
// subscriber) and the heap stays bounded.
func TestPubSubSlowSubscriberServer(t *testing.T) {
	cfg := conf.Default()
	if err := cfg.Set([2]string{"client-output-buffer-limit", "pubsub 1mb 512kb 60"}); err != nil {
		t.Fatal(err)
	}
	addr, fe := startRESPServer(t, cfg)
	sub := dialRESP(t, addr)
	if tc, ok := sub.Conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(16 << 10)
	}
	if got := sub.do("SUBSCRIBE", "firehose"); got != p2("subscribe", "firehose", 1) {
		t.Fatalf("SUBSCRIBE: %q", got)
	}

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
		}
	}()

	const size, count = 64 << 10, 1600 // 100 MB
	payload := strings.Repeat("p", size)
	cmd := []byte(encodeCommand("PUBLISH", "firehose", payload))
	pub := dialRESP(t, addr)
	start := time.Now()
	go func() {
		for i := 0; i < count; i++ {
			pub.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if _, err := pub.Write(cmd); err != nil {
				return
			}
		}
	}()
	var maxGap time.Duration
	last := time.Now()
	receivers := map[string]int{}
	for i := 0; i < count; i++ {
		got := pub.read()
		receivers[got]++
		if d := time.Since(last); d > maxGap {
			maxGap = d
		}
		last = time.Now()
	}
	elapsed := time.Since(start)
	close(stopSampling)
	<-sampled
	grown := int64(peak.Load()) - int64(base)
	t.Logf("slow subscriber: %d MB published in %v (longest wait for a reply %v), replies %v, heap peak %.1f MB over a base of %.1f MB",
		size*count>>20, elapsed, maxGap, receivers, float64(grown)/(1<<20), float64(base)/(1<<20))
	if receivers[":1\r\n"] == 0 || receivers[":0\r\n"] == 0 || receivers[":1\r\n"]+receivers[":0\r\n"] != count {
		t.Errorf("the slow subscriber should count until it is cut off, then not: %v", receivers)
	}
	// A publisher held back by the stalled subscriber would wait for
	// good (it never reads); the bound is a hang guard, loose enough for
	// a machine loaded by parallel test runs, not a latency bar.
	if maxGap > 20*time.Second {
		t.Errorf("the publisher waited %v for a reply", maxGap)
	}
	if grown > 40<<20 {
		t.Errorf("heap grew by %d MB publishing 100 MB to a stalled subscriber with a 1 MB limit", grown>>20)
	}
	// The slow subscriber is gone: unsubscribed and disconnected.
	if n := fe.hub.NumSub(0, []byte("firehose")); n != 0 {
		t.Errorf("slow subscriber still subscribed: %d", n)
	}
	sub.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, sub.Conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("slow subscriber's connection still open")
	}
	// The server still delivers to subscribers that read.
	fresh := dialRESP(t, addr)
	fresh.do("SUBSCRIBE", "firehose")
	if got := pub.do("PUBLISH", "firehose", "after"); got != ":1\r\n" {
		t.Fatalf("PUBLISH after: %q", got)
	}
	if got := fresh.read(); got != p2("message", "firehose", "after") {
		t.Fatalf("fresh subscriber got %q", got)
	}
}
