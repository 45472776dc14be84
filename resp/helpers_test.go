package resp

import (
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/server/servertest"
	"github.com/tandemkv/tandem/services"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// Test helpers shared by every family's tests: an in-process client over a
// fresh engine with a manual clock, no sockets.

// fakePeer is the in-process peer of every test client.
type fakePeer = servertest.Peer

// testEnv is a front-end over a fresh engine whose clock tests move.
type testEnv struct {
	t     *testing.T
	fe    *Frontend
	eng   *engine.Engine
	cfg   *conf.Config
	clock *engine.ManualClock
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	clock := engine.NewManualClock(1_700_000_000_000)
	eng := engine.New(engine.Options{Clock: clock, ShardBits: 4})
	cfg := conf.Default()
	svc := services.New(services.Options{Engine: eng, Config: cfg})
	t.Cleanup(svc.Replication.Primary.Close) // its cron goroutine holds the whole keyspace
	fe := New(Options{Services: svc, Facts: ServerFacts{TCPPort: 6379, StartTime: time.Now(), ClientsCounter: func() int { return 1 }}})
	return &testEnv{t: t, fe: fe, eng: eng, cfg: cfg, clock: clock}
}

// testClient is one connected client of a testEnv.
type testClient struct {
	env  *testEnv
	c    *Client
	peer *fakePeer
	// closed is set once a reply asked to close the connection.
	closed bool
}

func (e *testEnv) client() *testClient {
	p := servertest.NewPeer("127.0.0.1:6379")
	c := e.fe.NewSession(p).(*Client)
	return &testClient{env: e, c: c, peer: p}
}

// raw sends bytes and returns every reply byte they produced.
func (tc *testClient) raw(in string) string {
	n, out, closeAfter := tc.c.Serve([]byte(in), nil)
	if n != len(in) && !closeAfter {
		tc.env.t.Fatalf("consumed %d of %d bytes of %q", n, len(in), in)
	}
	tc.closed = tc.closed || closeAfter
	return string(out)
}

// do sends one command as a multibulk and returns its reply.
func (tc *testClient) do(args ...string) string {
	return tc.raw(encodeCommand(args...))
}

// expect sends a command and fails the test unless the reply is want.
func (tc *testClient) expect(want string, args ...string) {
	tc.env.t.Helper()
	if got := tc.do(args...); got != want {
		tc.env.t.Errorf("%q: got %q, want %q", args, got, want)
	}
}

func encodeCommand(args ...string) string {
	var b strings.Builder
	b.WriteString("*")
	b.WriteString(itoa(len(args)))
	b.WriteString("\r\n")
	for _, a := range args {
		b.WriteString("$")
		b.WriteString(itoa(len(a)))
		b.WriteString("\r\n")
		b.WriteString(a)
		b.WriteString("\r\n")
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for n > 0 {
		d = append([]byte{byte('0' + n%10)}, d...)
		n /= 10
	}
	return string(d)
}
