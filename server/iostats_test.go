package server

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// waitCount polls a counter until it reaches want (the loops count after
// the bytes arrive) and fails if it passes it.
func waitCount(t *testing.T, what string, load func() int64, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := load()
		if got == want {
			return
		}
		if got > want || time.Now().After(deadline) {
			t.Fatalf("%s = %d, want %d", what, got, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// The server counts a front-end's reads, writes and reply buffer resizes
// as Redis's INFO stats does.
func TestIOStats(t *testing.T) {
	ts := startServer(t, Limits{}, true)
	io := &ts.fe.io
	c := dial(t, ts.addr)
	for i := 0; i < 3; i++ {
		c.roundTrip("hello")
	}
	waitCount(t, "reads after 3 requests", io.Reads.Load, 3)
	waitCount(t, "writes after 3 requests", io.Writes.Load, 3)

	// A pipeline in one write is one read and one write.
	c.send("a\nb\nc\n")
	for _, want := range []string{"A", "B", "C"} {
		c.expect(want)
	}
	waitCount(t, "reads after a pipeline", io.Reads.Load, 4)
	waitCount(t, "writes after a pipeline", io.Writes.Load, 4)

	// A reply larger than the buffer grows it; one over maxKeptReply
	// grows it and is let go; the next event starts a new buffer, which
	// is no expansion.
	c.send("big 100000\n")
	c.expect(strings.Repeat("x", 100000))
	waitCount(t, "expands after a 100 KB reply", io.ReplyExpands.Load, 1)
	c.send(fmt.Sprintf("big %d\n", 2*maxKeptReply))
	c.expect(strings.Repeat("x", 2*maxKeptReply))
	waitCount(t, "expands after a 2 MB reply", io.ReplyExpands.Load, 2)
	waitCount(t, "shrinks after a 2 MB reply", io.ReplyShrinks.Load, 1)
	c.roundTrip("small")
	waitCount(t, "expands after a small reply into a new buffer", io.ReplyExpands.Load, 2)

	// The read that sees the peer close is one more.
	reads := io.Reads.Load()
	c.Close()
	waitCount(t, "reads after the client closed", io.Reads.Load, reads+1)

	io.Reset()
	if io.Reads.Load()+io.Writes.Load()+io.ReplyExpands.Load()+io.ReplyShrinks.Load() != 0 {
		t.Fatal("Reset left counts")
	}
}

// A connection reports its pending input and its reply buffer to any
// goroutine (CLIENT LIST).
func TestConnBuffers(t *testing.T) {
	ts := startServer(t, Limits{}, true)
	c := dial(t, ts.addr)
	c.roundTrip("hello")
	s := nextSession(t, ts.fe)
	br, ok := s.peer.(BufferReporter)
	if !ok {
		t.Fatal("the loops' Peer is no BufferReporter")
	}
	poll := func(what string, ok func(ConnBuffers) bool) ConnBuffers {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			b := br.Buffers()
			if ok(b) {
				return b
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %+v", what, b)
			}
		}
	}
	idle := poll("after a reply", func(b ConnBuffers) bool { return b.Query == 0 && b.Reply > 0 && b.ReplyPeak == len("HELLO\n") })
	c.send("big 12345")
	b := poll("an incomplete request", func(b ConnBuffers) bool { return b.Query == len("big 12345") })
	if b.QueryFree < 0 || b.Reply != idle.Reply {
		t.Fatalf("an incomplete request: %+v (idle %+v)", b, idle)
	}
	c.send("\n")
	c.expect(strings.Repeat("x", 12345))
	poll("the request answered", func(b ConnBuffers) bool { return b.Query == 0 && b.ReplyPeak == 12346 && b.Reply >= 12346 })
}
