package benchkit

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// mcPipe returns an MCConn whose peer writes server and collects what the
// client sends.
func mcPipe(t *testing.T, server string) (*MCConn, <-chan []byte) {
	t.Helper()
	client, peer := net.Pipe()
	sent := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(peer); sent <- b }()
	go io.WriteString(peer, server)
	c := &MCConn{c: client, r: bufio.NewReaderSize(client, 64<<10), w: bufio.NewWriterSize(client, 64<<10), timeout: 5 * time.Second}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c, sent
}

func TestMemcachedSetGet(t *testing.T) {
	c, sent := mcPipe(t, "STORED\r\nSERVER_ERROR out of memory storing object\r\n"+
		"VALUE k1 0 5\r\nab\r\nc\r\nEND\r\nEND\r\nVALUE k9 0 1 77\r\nx\r\nEND\r\n")
	c.WriteSet([]byte("k1"), []byte("ab\r\nc"))
	c.WriteSet([]byte("k2"), []byte(""))
	c.WriteGet([]byte("k1"))
	c.WriteGet([]byte("k2"))
	c.WriteGet([]byte("k3"))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := c.SetReply(); err != nil {
		t.Fatalf("STORED: %v", err)
	}
	var re ReplyErr
	if err := c.SetReply(); !errors.As(err, &re) || !strings.HasPrefix(string(re), "SERVER_ERROR") {
		t.Fatalf("SERVER_ERROR: %v", err)
	}
	v, found, err := c.GetReply([]byte("k1"))
	if err != nil || !found || string(v) != "ab\r\nc" {
		t.Fatalf("hit: %q %v %v", v, found, err)
	}
	if _, found, err = c.GetReply([]byte("k2")); err != nil || found {
		t.Fatalf("miss: %v %v", found, err)
	}
	if _, _, err = c.GetReply([]byte("k3")); err == nil {
		t.Fatal("a VALUE of another key is accepted")
	}
	c.Close()
	want := "set k1 0 0 5\r\nab\r\nc\r\nset k2 0 0 0\r\n\r\nget k1\r\nget k2\r\nget k3\r\n"
	if got := string(<-sent); got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
}

func TestReadMemcachedGetMalformed(t *testing.T) {
	for _, in := range []string{
		"STORED\r\n",                     // not a get reply
		"VALUE k 0\r\n",                  // no length
		"VALUE k 0 x\r\n",                // bad length
		"VALUE k 0 3\r\nabcd\r\nEND\r\n", // data longer than said
		"VALUE k 0 3\r\nabc\r\n",         // no END (EOF)
		"VALUE k 0 3\r\nabc\r\nVALUE k 0 3\r\n",
	} {
		var scratch []byte
		_, _, err := MemcacheText{}.ReadGet(bufio.NewReader(strings.NewReader(in)), []byte("k"), &scratch)
		if err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestMemcachedVersionStats(t *testing.T) {
	c, sent := mcPipe(t, "VERSION 1.6.18\r\nSTAT pid 12\r\nSTAT bytes 345\r\nSTAT version 1.6.18\r\nEND\r\nERROR\r\n")
	v, err := c.Version()
	if err != nil || v != "1.6.18" {
		t.Fatalf("version %q %v", v, err)
	}
	m, err := c.Stats()
	if err != nil || len(m) != 3 || m["bytes"] != "345" || m["version"] != "1.6.18" {
		t.Fatalf("stats %v %v", m, err)
	}
	var re ReplyErr
	if _, err := c.Stats(); !errors.As(err, &re) {
		t.Fatalf("stats ERROR: %v", err)
	}
	c.Close()
	if got := string(<-sent); got != "version\r\nstats\r\nstats\r\n" {
		t.Errorf("sent %q", got)
	}
}

func TestStatusBytes(t *testing.T) {
	status := []byte("Name:\tredis-server\nVmPeak:\t  100 kB\nVmRSS:\t    8192 kB\nRssAnon:\t 1 kB\nThreads:\t5\n")
	if n, err := StatusBytes(status, "VmRSS"); err != nil || n != 8192*1024 {
		t.Errorf("VmRSS %d %v", n, err)
	}
	if n, err := StatusBytes(status, "VmPeak"); err != nil || n != 100*1024 {
		t.Errorf("VmPeak %d %v", n, err)
	}
	for _, name := range []string{"VmHWM", "Threads", "Name", "Vm"} {
		if n, err := StatusBytes(status, name); err == nil {
			t.Errorf("%s: %d, no error", name, n)
		}
	}
	if n, err := VmRSS(1 << 30); err == nil { // no such process
		t.Errorf("VmRSS of no process: %d", n)
	}
}
