package nullserver

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

func start(t *testing.T, size int) string {
	t.Helper()
	port, err := benchkit.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	s, err := Start(Options{Addr: addr, ValueSize: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	return addr
}

func TestReplies(t *testing.T) {
	c, err := benchkit.Dial(start(t, 3), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, err := c.Do("PING"); err != nil || r.String() != "PONG" {
		t.Fatalf("PING: %v %v", r, err)
	}
	if r, err := c.Do("get", "k"); err != nil || r.String() != "xxx" {
		t.Fatalf("GET before any SET: %q %v", r.String(), err)
	}
	if r, err := c.Do("SET", "k", "12345"); err != nil || r.String() != "OK" {
		t.Fatalf("SET: %v %v", r, err)
	}
	// A pipeline, with the size the SET set; a request split over reads.
	out := benchkit.AppendCommand(nil, []byte("GET"), []byte("a"))
	out = benchkit.AppendCommand(out, []byte("MGET"), []byte("a"), []byte("b"))
	out = benchkit.AppendCommand(out, []byte("FLUSHALL"))
	if err := c.Send(out[:7]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if err := c.Send(out[7:]); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"xxxxx", "[xxxxx xxxxx]", "OK"} {
		r, err := c.ReadReply()
		if err != nil || r.String() != want {
			t.Fatalf("reply %d: %q %v, want %q", i, r.String(), err, want)
		}
	}
	if r, err := c.Do("INFO"); err != nil || benchkit.ParseInfo(r.Str)["process_id"] == "" {
		t.Fatalf("INFO: %q %v", r.String(), err)
	}
}

func TestProtocolErrorCloses(t *testing.T) {
	c, err := benchkit.Dial(start(t, 1), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Send([]byte("*1\r\n$x\r\n")); err != nil {
		t.Fatal(err)
	}
	if r, err := c.ReadReply(); err != nil || r.Kind != '-' {
		t.Fatalf("reply %+v %v, want a protocol error", r, err)
	}
	if _, err := c.ReadReply(); err == nil {
		t.Fatal("the connection stays open after a protocol error")
	}
}
