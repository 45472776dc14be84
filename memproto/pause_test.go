package memproto

import (
	"testing"

	"github.com/tandemkv/tandem/engine"
)

// TestPause: under CLIENT PAUSE WRITE reads are served and writes wait,
// unconsumed, with what follows them; under ALL everything waits; once
// the pause ends they are served, in order.
func TestPause(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("set k 0 0 1\r\na\r\n", "STORED\r\n")
	g := env.eng.Gate()
	g.Pause(engine.PauseWrite, startMs+60_000)
	c.expect("get k\r\n", "VALUE k 0 1\r\na\r\nEND\r\n")
	c.expect("set k 0 0 1\r\nb\r\nget k\r\n", "")
	if len(c.pending) == 0 {
		t.Fatal("the held-back write was consumed")
	}
	c.expect("", "") // served again while paused: still waiting
	g.Unpause()
	c.expect("", "STORED\r\nVALUE k 0 1\r\nb\r\nEND\r\n")

	g.Pause(engine.PauseAll, startMs+60_000)
	c.expect("get k\r\nversion\r\n", "")
	g.Unpause()
	if got := c.send(""); got != "VALUE k 0 1\r\nb\r\nEND\r\nVERSION 1.6.18-tandem-test\r\n" {
		t.Errorf("after PAUSE ALL: %q", got)
	}
	// A refused line is answered at once.
	g.Pause(engine.PauseAll, startMs+60_000)
	defer g.Unpause()
	c.expect("set k 0 0 notanumber\r\n", "CLIENT_ERROR bad command line format\r\n")
}

// TestPauseBinary: the binary protocol waits as the text one does.
func TestPauseBinary(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	set := binFrameSpec{opcode: opcSet, key: "k", extras: setExtras(0, 0), value: "v", opaque: 1}.bytes()
	get := binFrameSpec{opcode: opcGetK, key: "k", opaque: 2}.bytes()
	g := env.eng.Gate()
	g.Pause(engine.PauseWrite, startMs+60_000)
	if out := c.send(set + get); out != "" || len(c.pending) != len(set)+len(get) {
		t.Fatalf("a binary set during PAUSE WRITE: %q, %d bytes left", out, len(c.pending))
	}
	g.Unpause()
	rs := parseBinResps(t, c.send(""))
	if len(rs) != 2 || rs[0].status != binOK || rs[1].value != "v" {
		t.Fatalf("after the pause: %+v", rs)
	}
}
