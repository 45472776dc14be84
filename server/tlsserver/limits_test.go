package tlsserver_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMemcachedPacedOverTLS: a memcached pipeline whose replies (20 MB)
// pass memcached-max-pending-output pauses (server.Pauser) instead of
// queueing them all, and resumes as the client reads: every reply
// arrives, in order.
func TestMemcachedPacedOverTLS(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no", "--memcached-max-pending-output", "256kb")
	c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.mtlsPort), td.pki.clientConfig(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	val := strings.Repeat("v", 100<<10)
	const n = 200
	req := "set big 0 0 " + strconv.Itoa(len(val)) + "\r\n" + val + "\r\n" + strings.Repeat("get big\r\n", n)
	go func() { _, _ = c.Write([]byte(req)) }()
	time.Sleep(200 * time.Millisecond) // the replies pile up unread
	r := bufio.NewReaderSize(c, 1<<20)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if line, err := r.ReadString('\n'); err != nil || line != "STORED\r\n" {
		t.Fatalf("%q %v", line, err)
	}
	want := []byte("VALUE big 0 " + strconv.Itoa(len(val)) + "\r\n" + val + "\r\nEND\r\n")
	got := make([]byte, len(want))
	for i := 0; i < n; i++ {
		if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("reply %d: %v (%q…)", i, err, got[:min(40, len(got))])
		}
	}
}

// TestRedisOutputLimitOverTLS: a Redis client over TLS that pipelines big
// GETs and never reads is closed at client-output-buffer-limit, as on the
// plain port.
func TestRedisOutputLimitOverTLS(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no", "--client-output-buffer-limit", "normal 1mb 0 0")
	ctx := context.Background()
	if err := td.redis(t, nil).Set(ctx, "big", strings.Repeat("x", 512<<10), 0).Err(); err != nil {
		t.Fatal(err)
	}
	c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.tlsPort), td.pki.clientConfig(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := []byte(strings.Repeat("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n", 100)) // 50 MB of replies
	_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = c.Write(req)
	time.Sleep(500 * time.Millisecond)
	// Reading now: the connection ends well before 50 MB.
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, c)
	if n >= 100*(512<<10) {
		t.Fatalf("read all %d bytes: the limit did not apply (err %v)", n, err)
	}
	if v, _ := td.redis(t, nil).Get(ctx, "big").Result(); len(v) != 512<<10 {
		t.Fatal("the server is not serving after closing the client")
	}
}

// TestClientBuffersCountTLS: a TLS connection's query buffer is in INFO's
// mem_clients_normal, and leaves it when the connection closes.
func TestClientBuffersCountTLS(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no")
	ctx := context.Background()
	plain := td.redis(t, nil)
	memClients := func() int {
		info, err := plain.Info(ctx, "memory").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "mem_clients_normal:"); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		t.Fatal("no mem_clients_normal in INFO memory")
		return 0
	}
	base := memClients()
	c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.tlsPort), td.pki.clientConfig(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	// An incomplete SET of 4 MB, 2 MB of it sent.
	_, _ = c.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4194304\r\n" + strings.Repeat("x", 2<<20)))
	eventually(t, "the query buffer in mem_clients_normal", func() bool { return memClients() >= base+2<<20 })
	c.Close()
	eventually(t, "the buffer to leave mem_clients_normal", func() bool { return memClients() < base+1<<20 })
}

// TestMemcachedMultigetPacedOverTLS: one multiget whose replies (20 MB)
// pass memcached-max-pending-output stops between keys while the client
// does not read, so the connection's queue stays near the bound (as on
// the plain port), then goes on as it reads: every value, in order, one
// END.
func TestMemcachedMultigetPacedOverTLS(t *testing.T) {
	const bound, n = 256 << 10, 200
	td := startTandem(t, "--tls-auth-clients", "no", "--memcached-max-pending-output", strconv.Itoa(bound))
	c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.mtlsPort), td.pki.clientConfig(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	val := strings.Repeat("v", 100<<10)
	req := "set big 0 0 " + strconv.Itoa(len(val)) + "\r\n" + val + "\r\nget" + strings.Repeat(" big", n) + "\r\n"
	go func() { _, _ = c.Write([]byte(req)) }()
	eventually(t, "replies queued", func() bool { return td.n.Server.ClientBuffers().RecentMaxOutput >= bound/2 })
	time.Sleep(200 * time.Millisecond) // the replies pile up unread, if they do
	if got := td.n.Server.ClientBuffers().RecentMaxOutput; got > 2*bound {
		t.Errorf("a multiget to a client that does not read queued %d bytes; the bound is %d", got, bound)
	}
	r := bufio.NewReaderSize(c, 1<<20)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if line, err := r.ReadString('\n'); err != nil || line != "STORED\r\n" {
		t.Fatalf("%q %v", line, err)
	}
	want := []byte("VALUE big 0 " + strconv.Itoa(len(val)) + "\r\n" + val + "\r\n")
	got := make([]byte, len(want))
	for i := 0; i < n; i++ {
		if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("value %d: %v (%q…)", i, err, got[:min(40, len(got))])
		}
	}
	if line, err := r.ReadString('\n'); err != nil || line != "END\r\n" {
		t.Fatalf("after the values: %q %v", line, err)
	}
}
