package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/internal/syncbuf"
	"github.com/tandemkv/tandem/memproto"
	"github.com/tandemkv/tandem/resp"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/services"
)

// Slow readers on both ports, through the real front-ends and loopback
// sockets: a client pipelines many GETs of a big value and reads nothing.

type tandem struct {
	*server.Server
	redis, memcached string
	log              *syncbuf.Buffer
}

// startTandem runs both front-ends on loopback with the directives given
// (as command-line flags), wired as node.New does.
func startTandem(t *testing.T, args ...string) *tandem {
	t.Helper()
	addr := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}
	td := &tandem{redis: addr(), memcached: addr(), log: &syncbuf.Buffer{}}
	cfg, err := conf.Load(append([]string{"--save", "", "--dir", t.TempDir()}, args...), nil)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(td.log, nil))
	svc := services.New(services.Options{Config: cfg, Logger: log})
	td.Server = server.New(server.Options{Logger: log, Multicore: true, Limits: server.Limits{
		QueryBufferLimit:  int(cfg.ClientQueryBufferLimit()),
		OutputBufferLimit: int(cfg.ClientOutputBufferLimit(conf.ClientNormal).Hard),
	}})
	r := resp.New(resp.Options{Services: svc, ClientBuffers: td.ClientBuffers})
	m := memproto.New(memproto.Options{Services: svc, Version: "1.6.18-test"})
	td.Listeners([]server.Listener{{Addrs: []string{td.redis}, Frontend: r}, {Addrs: []string{td.memcached}, Frontend: m}})
	done := make(chan error, 1)
	go func() { done <- td.Run() }()
	if err := td.StartErr(); err != nil {
		t.Fatalf("server did not start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = td.Stop(ctx)
		<-done
	})
	return td
}

// dialSlow connects with a small receive buffer, so that what the client
// does not read stays queued in the server, and waits until the server
// counts it (the one other client of each test is connected already).
func dialSlow(t *testing.T, td *tandem, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	waitFor(t, "slow reader accepted", func() bool { return td.Clients() == 2 })
	tc := c.(*net.TCPConn)
	if err := tc.SetReadBuffer(16 << 10); err != nil {
		t.Fatal(err)
	}
	return tc
}

func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader, req, want string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatalf("write %q: %v", req, err)
	}
	got, err := r.ReadString('\n')
	if err != nil || got != want {
		t.Fatalf("%q: read %q, %v; want %q", req, got, err, want)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not after 20s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A Redis client over the normal hard limit is closed while its pipeline
// runs: the server never holds much more than the limit for it (before,
// a whole read's worth of replies was built first: 2 800 GETs of 50 KB
// from one 64 KB read, 140 MB), the log says it as Redis does, and the
// other clients are served.
func TestSlowRedisReaderClosedAtHardLimit(t *testing.T) {
	const limit, size, gets = 4 << 20, 50 << 10, 20000
	td := startTandem(t, "--client-output-buffer-limit", fmt.Sprintf("normal %d 0 0", limit))
	other, err := net.Dial("tcp", td.redis)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	or := bufio.NewReader(other)
	val := strings.Repeat("v", size)
	roundTrip(t, other, or, fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n", size, val), "+OK\r\n")

	slow := dialSlow(t, td, td.redis)
	slow.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := slow.Write(bytes.Repeat([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), gets)); err != nil {
		t.Logf("write: %v (the server may have closed first)", err)
	}
	waitFor(t, "slow reader closed", func() bool { return td.Clients() == 1 })
	if got := td.ClientBuffers().RecentMaxOutput; got > 3*limit {
		t.Errorf("a slow reader had %d bytes queued; the limit is %d", got, limit)
	}
	if log := td.log.String(); !strings.Contains(log, "scheduled to be closed ASAP for overcoming of output buffer limits.") {
		t.Errorf("not logged:\n%s", log)
	}
	roundTrip(t, other, or, "PING\r\n", "+PONG\r\n")
}

// A memcached client that pipelines gets and does not read is not served
// past memcached-max-pending-output: its pipeline waits, the connection
// stays open, other clients are served, and once it reads it gets every
// reply, in order. Before, the whole pipeline's replies (200 MB here)
// were built and queued at once.
func TestSlowMemcachedReaderPaused(t *testing.T) {
	const bound, size, gets = 1 << 20, 50 << 10, 4000
	// A normal hard limit below the bound must not cut memcached clients.
	td := startTandem(t, "--memcached-max-pending-output", fmt.Sprint(bound),
		"--client-output-buffer-limit", "normal 512kb 0 0")
	other, err := net.Dial("tcp", td.memcached)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	or := bufio.NewReader(other)
	val := strings.Repeat("v", size)
	roundTrip(t, other, or, fmt.Sprintf("set k 7 0 %d\r\n%s\r\n", size, val), "STORED\r\n")

	slow := dialSlow(t, td, td.memcached)
	slow.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := slow.Write(bytes.Repeat([]byte("get k\r\n"), gets)); err != nil {
		t.Fatal(err)
	}
	// The server fills the socket and its queue, then pauses.
	waitFor(t, "replies queued", func() bool { return td.ClientBuffers().RecentMaxOutput >= bound/2 })
	for i := 0; i < 20; i++ {
		roundTrip(t, other, or, "version\r\n", "VERSION 1.6.18-test\r\n")
		time.Sleep(10 * time.Millisecond)
	}
	b := td.ClientBuffers()
	if b.RecentMaxOutput > 4*bound || b.Total > 4*bound {
		t.Errorf("a paused reader holds %+v; the bound is %d", b, bound)
	}
	if n := td.Clients(); n != 2 {
		t.Fatalf("%d clients connected, want 2: the slow reader was closed", n)
	}

	// Now it reads: every reply, whole.
	slow.SetReadDeadline(time.Now().Add(60 * time.Second))
	r := bufio.NewReaderSize(slow, 256<<10)
	head := fmt.Sprintf("VALUE k 7 %d\r\n", size)
	body := make([]byte, size+2)
	for i := 0; i < gets; i++ {
		line, err := r.ReadString('\n')
		if err != nil || line != head {
			t.Fatalf("reply %d: %q, %v", i, line, err)
		}
		if _, err := io.ReadFull(r, body); err != nil || string(body[:size]) != val || string(body[size:]) != "\r\n" {
			t.Fatalf("reply %d: bad data, %v", i, err)
		}
		if line, err := r.ReadString('\n'); err != nil || line != "END\r\n" {
			t.Fatalf("reply %d: %q, %v after the data", i, line, err)
		}
	}
	// And it is served as any other client afterwards.
	roundTrip(t, slow, r, "version\r\n", "VERSION 1.6.18-test\r\n")
	if b := td.ClientBuffers(); b.RecentMaxOutput > 4*bound {
		t.Errorf("while it read, a connection had %d bytes queued; the bound is %d", b.RecentMaxOutput, bound)
	}
}

// A paused memcached connection keeps what its client sends meanwhile
// only up to the query buffer limit.
func TestPausedReaderInputBounded(t *testing.T) {
	const bound = 1 << 20
	td := startTandem(t, "--memcached-max-pending-output", fmt.Sprint(bound), "--client-query-buffer-limit", "1mb")
	other, err := net.Dial("tcp", td.memcached)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	or := bufio.NewReader(other)
	roundTrip(t, other, or, "set k 0 0 100\r\n"+strings.Repeat("v", 100)+"\r\n", "STORED\r\n")
	slow := dialSlow(t, td, td.memcached)
	// 4 MB of gets, 70 MB of replies: the server pauses after a few MB of
	// replies, then the unread requests pass the query buffer limit.
	chunk := bytes.Repeat([]byte("get k\r\n"), 10000)
	for sent := 0; sent < 4<<20; sent += len(chunk) {
		slow.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := slow.Write(chunk); err != nil {
			break
		}
		if td.Clients() == 1 {
			break
		}
	}
	waitFor(t, "flooding reader closed", func() bool { return td.Clients() == 1 })
	if !strings.Contains(td.log.String(), "query buffer limit") {
		t.Errorf("not logged:\n%s", td.log.String())
	}
	roundTrip(t, other, or, "version\r\n", "VERSION 1.6.18-test\r\n")
}

// One multiget of many big items to a client that does not read is
// bounded too: the get stops at memcached-max-pending-output and goes on
// from its next key when the client drains, so the replies come whole and
// in order, with one END. Before, the whole get's replies (50 MB here)
// were built at once, whatever the bound.
func TestSlowMemcachedMultigetPaused(t *testing.T) {
	const bound, size, keys = 1 << 20, 100 << 10, 500
	td := startTandem(t, "--memcached-max-pending-output", fmt.Sprint(bound))
	other, err := net.Dial("tcp", td.memcached)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	or := bufio.NewReader(other)
	val := strings.Repeat("v", size)
	get := []byte("get")
	for i := 0; i < keys; i++ {
		roundTrip(t, other, or, fmt.Sprintf("set k%d %d 0 %d\r\n%s\r\n", i, i, size, val), "STORED\r\n")
		get = fmt.Appendf(get, " k%d", i)
	}
	get = append(get, "\r\n"...)

	slow := dialSlow(t, td, td.memcached)
	slow.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := slow.Write(get); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "replies queued", func() bool { return td.ClientBuffers().RecentMaxOutput >= bound/2 })
	for i := 0; i < 20; i++ {
		roundTrip(t, other, or, "version\r\n", "VERSION 1.6.18-test\r\n")
		time.Sleep(10 * time.Millisecond)
	}
	if b := td.ClientBuffers(); b.RecentMaxOutput > 2*bound || b.Total > 2*bound {
		t.Errorf("a paused multiget holds %+v; the bound is %d", b, bound)
	}

	slow.SetReadDeadline(time.Now().Add(60 * time.Second))
	r := bufio.NewReaderSize(slow, 256<<10)
	body := make([]byte, size+2)
	for i := 0; i < keys; i++ {
		head := fmt.Sprintf("VALUE k%d %d %d\r\n", i, i, size)
		if line, err := r.ReadString('\n'); err != nil || line != head {
			t.Fatalf("reply %d: %q, %v; want %q", i, line, err, head)
		}
		if _, err := io.ReadFull(r, body); err != nil || string(body[:size]) != val || string(body[size:]) != "\r\n" {
			t.Fatalf("reply %d: bad data, %v", i, err)
		}
	}
	if line, err := r.ReadString('\n'); err != nil || line != "END\r\n" {
		t.Fatalf("after the values: %q, %v", line, err)
	}
	roundTrip(t, slow, r, "version\r\n", "VERSION 1.6.18-test\r\n")
}
