package server_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// binGet is a binary-protocol Get request for key.
func binGet(key string, opaque uint32) []byte {
	b := []byte{0x80, 0x00}
	b = binary.BigEndian.AppendUint16(b, uint16(len(key)))
	b = append(b, 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(key)))
	b = binary.BigEndian.AppendUint32(b, opaque)
	b = binary.BigEndian.AppendUint64(b, 0)
	return append(b, key...)
}

// The output bound holds on the binary protocol as on the text one: a
// client that pipelines Gets of big values and never reads is paused, not
// buffered without end, and gets every reply in order once it reads.
func TestSlowMemcachedBinaryReaderPaused(t *testing.T) {
	const bound, size, gets = 1 << 20, 50 << 10, 4000
	td := startTandem(t, "--memcached-max-pending-output", fmt.Sprint(bound))
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
	var pipeline []byte
	for i := 0; i < gets; i++ {
		pipeline = append(pipeline, binGet("k", uint32(i))...)
	}
	if _, err := slow.Write(pipeline); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "replies queued", func() bool { return td.ClientBuffers().RecentMaxOutput >= bound/2 })
	for i := 0; i < 20; i++ {
		roundTrip(t, other, or, "version\r\n", "VERSION 1.6.18-test\r\n")
		time.Sleep(10 * time.Millisecond)
	}
	if b := td.ClientBuffers(); b.RecentMaxOutput > 4*bound || b.Total > 4*bound {
		t.Errorf("a paused binary reader holds %+v; the bound is %d", b, bound)
	}
	if n := td.Clients(); n != 2 {
		t.Fatalf("%d clients connected, want 2: the slow reader was closed", n)
	}

	slow.SetReadDeadline(time.Now().Add(60 * time.Second))
	r := bufio.NewReaderSize(slow, 256<<10)
	head := make([]byte, 24)
	body := make([]byte, 4+size)
	for i := 0; i < gets; i++ {
		if _, err := io.ReadFull(r, head); err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		n := binary.BigEndian.Uint32(head[8:])
		if head[0] != 0x81 || head[6] != 0 || head[7] != 0 || n != uint32(len(body)) || binary.BigEndian.Uint32(head[12:]) != uint32(i) {
			t.Fatalf("reply %d: header % x", i, head)
		}
		if _, err := io.ReadFull(r, body); err != nil || binary.BigEndian.Uint32(body) != 7 || string(body[4:]) != val {
			t.Fatalf("reply %d: bad body, %v", i, err)
		}
	}
}
