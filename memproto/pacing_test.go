package memproto

import (
	"strings"
	"testing"

	"github.com/tandemkv/tandem/server/servertest"
)

// pausingPeer is a peer that can pause (server.Pauser), as the server's:
// the test plays the server, serving again what Serve left unconsumed.
type pausingPeer struct {
	*servertest.Peer
	pauses int
}

func (p *pausingPeer) PauseUntilDrained(int) { p.pauses++ }

// A multiget stopped at memcached-max-pending-output goes on from its
// next key when served again: the replies, concatenated, are those of the
// unpaced server, in order and with one END each; every Serve makes
// progress; the stats count each key once.
func TestMultigetSuspendsAtBound(t *testing.T) {
	const in = "gets a b c d\r\nget e\r\ngat 0 a x c\r\nget a " + "b" + "\r\n"
	fill := func(e *testEnv) {
		for _, k := range "abcde" {
			c := e.client()
			c.expect("set "+string(k)+" 3 0 4\r\nv-"+string(k)+"!\r\n", "STORED\r\n")
		}
	}
	unpaced := newTestEnv(t)
	fill(unpaced)
	want := unpaced.client().send(in)

	env := newTestEnv(t, "--memcached-max-pending-output", "1")
	fill(env)
	peer := &pausingPeer{Peer: servertest.NewPeer("127.0.0.1:11211")}
	s := env.fe.NewSession(peer).(*session)
	var got strings.Builder
	pending := in
	for serves := 0; pending != ""; serves++ {
		if serves > 20 {
			t.Fatalf("no end after %d serves; got so far %q", serves, got.String())
		}
		n, out, _ := s.Serve([]byte(pending), nil)
		if n == 0 && len(out) == 0 {
			t.Fatalf("a Serve made no progress at %q", pending)
		}
		got.Write(out)
		pending = pending[n:]
	}
	if got.String() != want {
		t.Errorf("paced replies:\n got  %q\n want %q", got.String(), want)
	}
	if peer.pauses < 8 {
		t.Errorf("%d pauses; want one per value but the last of each get", peer.pauses)
	}
	if g, u := env.fe.stats.cmdGet.Load(), unpaced.fe.stats.cmdGet.Load(); g != u {
		t.Errorf("cmd_get %d paced, %d unpaced", g, u)
	}
}
