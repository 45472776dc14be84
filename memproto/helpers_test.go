package memproto

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/server/servertest"
	"github.com/tandemkv/tandem/services"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// Test helpers: a front-end over a fresh engine whose clock the test moves,
// and in-process clients that feed Serve the way server/ does — whole, or
// cut at any byte positions — with no sockets.

// fakePeer is the in-process peer of every test client.
type fakePeer = servertest.Peer

// startMs is the manual clock's start: 2023-11-14T22:13:20Z.
const startMs = 1_700_000_000_000

type testEnv struct {
	t         testing.TB
	fe        *Frontend
	eng       *engine.Engine
	db        engine.DB
	cfg       *conf.Config
	clock     *engine.ManualClock
	shutdowns []bool
}

// newTestEnv makes a front-end over a fresh engine; args are directives
// as on the command line ("--memcached-enable-shutdown", "yes").
func newTestEnv(t testing.TB, args ...string) *testEnv {
	t.Helper()
	env := newBareEnv(t, args...)
	// Start CAS uniques past the small numbers the cases use as
	// certainly-wrong uniques (C1, cas 12345), as a memcached that has
	// served a while would.
	// One loaded key with that unique moves the sequence there at once
	// (a loop of writes did the same at 20000 times the cost, under -race
	// a tenth of this package's test time).
	warm := env.eng.DB(1)
	if _, err := warm.Restore(&engine.SnapItem{Type: engine.TypeString, Key: []byte("cas-warmup"), CAS: casWarmup}, engine.RestoreLimits{}); err != nil {
		t.Fatal(err)
	}
	warm.Flush()
	return env
}

const casWarmup = 20000

// newBareEnv is newTestEnv without the CAS warm-up.
func newBareEnv(t testing.TB, args ...string) *testEnv {
	t.Helper()
	clock := engine.NewManualClock(startMs)
	eng := engine.New(engine.Options{Clock: clock, ShardBits: 4})
	cfg, err := conf.Load(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := eng.DB(0)
	db.TrackCAS = true // the memcached view of the keyspace
	env := &testEnv{t: t, eng: eng, db: db, cfg: cfg, clock: clock}
	env.fe = New(Options{Services: services.New(services.Options{Engine: eng, Config: cfg}), Version: "1.6.18-tandem-test",
		Shutdown: func(graceful bool) { env.shutdowns = append(env.shutdowns, graceful) }})
	return env
}

// set changes a configuration directive.
func (e *testEnv) set(name, value string) {
	e.t.Helper()
	if err := e.cfg.Set([2]string{name, value}); err != nil {
		e.t.Fatal(err)
	}
}

type testClient struct {
	env     *testEnv
	s       *session
	peer    *fakePeer
	pending []byte
	closed  bool
}

func (e *testEnv) client() *testClient {
	p := servertest.NewPeer("127.0.0.1:11211")
	return &testClient{env: e, s: e.fe.NewSession(p).(*session), peer: p}
}

// feed hands chunk to Serve as server/ would (appended to the unconsumed
// bytes) and returns the reply bytes.
func (c *testClient) feed(chunk []byte) []byte {
	if c.closed {
		return nil
	}
	c.pending = append(c.pending, chunk...)
	n, out, closeAfter := c.s.Serve(c.pending, nil)
	if n < 0 || n > len(c.pending) {
		c.env.t.Fatalf("Serve consumed %d of %d bytes", n, len(c.pending))
	}
	if n > 0 {
		c.pending = append(c.pending[:0], c.pending[n:]...)
	}
	c.closed = closeAfter
	return out
}

// send feeds in whole and returns the replies.
func (c *testClient) send(in string) string { return string(c.feed([]byte(in))) }

// sendCut feeds in cut at the given positions.
func (c *testClient) sendCut(in string, cuts ...int) string {
	var out []byte
	prev := 0
	for _, p := range append(cuts, len(in)) {
		out = append(out, c.feed([]byte(in[prev:p]))...)
		prev = p
	}
	return string(out)
}

// sendBytewise feeds in one byte at a time.
func (c *testClient) sendBytewise(in string) string {
	var out []byte
	for i := 0; i < len(in); i++ {
		out = append(out, c.feed([]byte{in[i]})...)
	}
	return string(out)
}

// expect sends in and fails unless the reply is want.
func (c *testClient) expect(in, want string) {
	c.env.t.Helper()
	if got := c.send(in); got != want {
		c.env.t.Errorf("send %q:\n got  %q\n want %q", in, got, want)
	}
}

// step is one exchange of a scripted case: bytes to send and the reply
// expected, or a clock move.
type step struct {
	in      string
	want    string
	advance time.Duration
}

// run plays steps on a fresh client of a fresh env, in every feeding mode:
// whole, every two-piece cut, and byte by byte (the latter two only when
// no step closes the connection). Replies must be identical.
func runSteps(t *testing.T, steps []step, setup func(e *testEnv), args ...string) {
	t.Helper()
	modes := []struct {
		name string
		play func(c *testClient, in string) string
	}{
		{"whole", (*testClient).send},
		{"bytewise", (*testClient).sendBytewise},
	}
	for _, m := range modes {
		env := newTestEnv(t, args...)
		if setup != nil {
			setup(env)
		}
		c := env.client()
		for i, st := range steps {
			if st.advance != 0 {
				env.clock.Advance(st.advance)
				continue
			}
			if got := m.play(c, st.in); got != st.want {
				t.Errorf("%s: step %d %q:\n got  %q\n want %q", m.name, i, st.in, got, st.want)
			}
		}
	}
	// Every cut position of each step, on a fresh env each time.
	for i, st := range steps {
		if st.advance != 0 || len(st.in) > 300 {
			continue
		}
		for cut := 1; cut < len(st.in); cut++ {
			env := newTestEnv(t, args...)
			if setup != nil {
				setup(env)
			}
			c := env.client()
			for j := 0; j < i; j++ {
				if steps[j].advance != 0 {
					env.clock.Advance(steps[j].advance)
				} else {
					c.send(steps[j].in)
				}
			}
			if got := c.sendCut(st.in, cut); got != st.want {
				t.Errorf("cut at %d: step %d %q:\n got  %q\n want %q", cut, i, st.in, got, st.want)
				break
			}
		}
	}
}

var (
	casValueRe = regexp.MustCompile(`(?m)^(VALUE \S+ \d+ \d+) \d+\r$`)
	casTokenRe = regexp.MustCompile(` c\d+`)
	casDebugRe = regexp.MustCompile(`cas=\d+`)
)

// maskCAS hides CAS uniques, which are server-specific counters.
func maskCAS(s string) string {
	s = casValueRe.ReplaceAllString(s, "$1 <cas>\r")
	s = casTokenRe.ReplaceAllString(s, " c<cas>")
	return casDebugRe.ReplaceAllString(s, "cas=<cas>")
}

func lines(ls ...string) string { return strings.Join(ls, "\r\n") + "\r\n" }
