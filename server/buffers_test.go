package server

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// waitBuffers polls ClientBuffers until ok accepts it (the accounting is
// done on the event loops, after the bytes arrive).
func waitBuffers(t *testing.T, ts *testServer, what string, ok func(ClientBuffers) bool) ClientBuffers {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b := ts.ClientBuffers()
		if ok(b) {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: client buffers %+v", what, b)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The buffer total follows an incomplete request's bytes, a slow reader's
// queued replies, their draining and the connections' closing, and comes
// back to zero.
func TestClientBuffers(t *testing.T) {
	ts := startServer(t, Limits{}, true)
	if b := ts.ClientBuffers(); b != (ClientBuffers{}) {
		t.Fatalf("no client yet: %+v", b)
	}
	c := dial(t, ts.addr)
	c.roundTrip("hello")
	idle := waitBuffers(t, ts, "one idle client", func(b ClientBuffers) bool { return b.Total > 0 })
	if idle.Total > 4<<10 {
		t.Fatalf("an idle client after a short reply holds %d bytes", idle.Total)
	}

	// 200 KB of a request with no end yet ("big 000…01": a one-byte
	// reply) is held in the query buffer.
	const partial = 200 << 10
	c.send("big " + strings.Repeat("0", partial))
	b := waitBuffers(t, ts, "pending request", func(b ClientBuffers) bool { return b.Total >= partial })
	if b.RecentMaxInput < partial {
		t.Fatalf("recent max input %d < %d", b.RecentMaxInput, partial)
	}
	// Completing it answers it and gives the big query buffer up.
	c.send("1\n")
	c.expect("x")
	waitBuffers(t, ts, "request served", func(b ClientBuffers) bool { return b.Total <= idle.Total })

	// A client that does not read: its replies queue up in the server
	// (32 MB, more than the kernel buffers of both ends hold).
	slow := dial(t, ts.addr)
	const reply, n = 2 << 20, 16
	for i := 0; i < n; i++ {
		slow.send(fmt.Sprintf("big %d\n", reply))
	}
	b = waitBuffers(t, ts, "slow reader", func(b ClientBuffers) bool { return b.Total >= 8*reply && b.RecentMaxOutput >= 8*reply })
	t.Logf("slow reader: %+v", b)
	// Once it reads everything, the queue drains; OnTick's refresh sees it
	// even though the connection sends nothing more.
	for i := 0; i < n; i++ {
		if got, err := slow.readLine(); err != nil || len(got) != reply {
			t.Fatalf("big reply %d: %d bytes, %v", i, len(got), err)
		}
	}
	waitBuffers(t, ts, "slow reader drained", func(b ClientBuffers) bool { return b.Total < 64<<10 })

	c.Close()
	slow.Close()
	waitBuffers(t, ts, "all closed", func(b ClientBuffers) bool { return b.Total == 0 })
}

func TestRecentMax(t *testing.T) {
	var r recentMax
	t0 := time.Unix(1000, 0)
	r.note(10, t0)
	r.note(5, t0)
	r.note(7, t0.Add(time.Second))
	if got := r.max(); got != 10 {
		t.Fatalf("max = %d, want 10", got)
	}
	r.slots[recentSlot(t0)].Store(0) // the tick clearing the oldest second
	if got := r.max(); got != 7 {
		t.Fatalf("max after the oldest slot is cleared = %d, want 7", got)
	}
}
