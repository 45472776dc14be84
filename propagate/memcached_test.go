package propagate_test

import (
	"bufio"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/tandemkv/tandem/node/nodetest"
)

// TestMemcachedWritesInTheStream checks the form memcached writes take in
// the stream: the item's new state as SET (PXAT when it expires) after a
// note, PING "MC <flags> <cas>", DEL when it went, FLUSHDB for flush_all, and
// nothing for a write that changed nothing.
func TestMemcachedWritesInTheStream(t *testing.T) {
	rport, mport := nodetest.FreePort(t), nodetest.FreePort(t)
	n := nodetest.Start(t, []string{"--port", strconv.Itoa(rport), "--memcached-port", strconv.Itoa(mport), "--save", ""}, nil)
	sink := &capture{db: -1}
	n.Services.Stream.Add(sink)
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", mport))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	send := func(req string, replyLines int) {
		t.Helper()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		for range replyLines {
			if _, err := br.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
	}
	note := regexp.MustCompile(`\*2 \$4 PING \$\d+ MC (\d+) \d+ `)
	norm := func(b []byte) string {
		return note.ReplaceAllString(normal(b), "#MC $1 <cas> ")
	}
	cases := []struct {
		name, req string
		lines     int
		want      string
	}{
		{"set", "set k 5 0 1\r\nv\r\n", 1, "*2 $6 SELECT $1 0 #MC 5 <cas> *3 $3 SET $1 k $1 v "},
		{"add refused", "add k 0 0 1\r\nw\r\n", 1, ""},
		{"append", "append k 0 0 2\r\nxy\r\n", 1, "#MC 5 <cas> *3 $3 SET $1 k $3 vxy "},
		{"touch", "touch k 100\r\n", 1, "#MC 5 <cas> *5 $3 SET $1 k $3 vxy $4 PXAT $13 <ms> "},
		{"incr", "set n 0 0 1\r\n9\r\nincr n 1\r\n", 2, "#MC 0 <cas> *3 $3 SET $1 n $1 9 #MC 0 <cas> *3 $3 SET $1 n $2 10 "},
		{"delete", "delete k\r\ndelete k\r\n", 2, "*2 $3 DEL $1 k "},
		{"meta set", "ms m 2 F7 T100\r\nhi\r\n", 1, "#MC 7 <cas> *5 $3 SET $1 m $2 hi $4 PXAT $13 <ms> "},
		{"flush_all", "flush_all\r\n", 1, "*1 $7 FLUSHDB "},
	}
	for _, c := range cases {
		send(c.req, c.lines)
		if got := norm(sink.take()); got != c.want {
			t.Errorf("%s: stream %q, want %q", c.name, got, c.want)
		}
	}
}
