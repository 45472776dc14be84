package benchkit

import (
	"bufio"
	"errors"
	"io"
	"net"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// pipeConn returns a Conn whose peer writes server and collects what the
// client sends.
func pipeConn(t *testing.T, server string) (*Conn, <-chan []byte) {
	t.Helper()
	client, peer := net.Pipe()
	sent := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(peer); sent <- b }()
	go io.WriteString(peer, server)
	c := &Conn{c: client, r: bufio.NewReaderSize(client, 64<<10), w: bufio.NewWriterSize(client, 64<<10), timeout: 5 * time.Second}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c, sent
}

func TestReadReply(t *testing.T) {
	c, _ := pipeConn(t, "+OK\r\n-ERR bad\r\n:42\r\n$5\r\nhello\r\n$-1\r\n*3\r\n$1\r\na\r\n:7\r\n*-1\r\n*0\r\n$3\r\nxyz\r\n")
	want := []Reply{
		{Kind: '+', Str: []byte("OK")},
		{Kind: '-', Str: []byte("ERR bad")},
		{Kind: ':', Int: 42},
		{Kind: '$', Str: []byte("hello")},
		{Kind: '$', Null: true},
		{Kind: '*', Elems: []Reply{{Kind: '$', Str: []byte("a")}, {Kind: ':', Int: 7}, {Kind: '*', Null: true}}},
		{Kind: '*'},
	}
	for i, w := range want {
		r, err := c.ReadReply()
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if !reflect.DeepEqual(r, w) {
			t.Fatalf("reply %d: %+v, want %+v", i, r, w)
		}
	}
	if got := want[5].String(); got != "[a 7 []]" {
		t.Errorf("String %q", got)
	}
	var re ReplyErr
	if err := want[1].Err(); !errors.As(err, &re) || err.Error() != "ERR bad" {
		t.Errorf("Err %v", err)
	}
	r, err := c.ReadReplyDiscard()
	if err != nil || r.Kind != '$' || r.Str != nil || r.Null {
		t.Errorf("discarded bulk: %+v, %v", r, err)
	}
}

func TestReadReplyMalformed(t *testing.T) {
	for _, in := range []string{"+OK\n", "$x\r\n", "$-2\r\n", "*y\r\n", "?what\r\n", ":12a\r\n"} {
		c, _ := pipeConn(t, in)
		if r, err := c.ReadReply(); err == nil {
			t.Errorf("%q: no error, %+v", in, r)
		}
	}
}

func TestGetSetReply(t *testing.T) {
	c, _ := pipeConn(t, "$3\r\nabc\r\n$-1\r\n-OOM command not allowed\r\n+OK\r\n-ERR x\r\n")
	v, hit, err := c.GetReply()
	if string(v) != "abc" || !hit || err != nil {
		t.Fatalf("GET hit: %q %v %v", v, hit, err)
	}
	if _, hit, err = c.GetReply(); hit || err != nil {
		t.Fatalf("GET miss: %v %v", hit, err)
	}
	var re ReplyErr
	if _, _, err = c.GetReply(); !errors.As(err, &re) || !re.IsOOM() {
		t.Fatalf("GET OOM: %v", err)
	}
	if err := c.SetReply(); err != nil {
		t.Fatalf("SET OK: %v", err)
	}
	if err := c.SetReply(); !errors.As(err, &re) || re.IsOOM() {
		t.Fatalf("SET error: %v", err)
	}
}

func TestDoAndInfo(t *testing.T) {
	info := "# Memory\r\nused_memory:1234\r\nmem_fragmentation_ratio:1.5\r\n\r\n# Stats\r\nevicted_keys:3\r\n"
	c, sent := pipeConn(t, "$"+strconv.Itoa(len(info))+"\r\n"+info+"\r\n-ERR nope\r\n")
	m, err := c.Info("memory")
	if err != nil {
		t.Fatal(err)
	}
	if m["used_memory"] != "1234" || IntField(m, "evicted_keys") != 3 || IntField(m, "missing") != 0 || len(m) != 3 {
		t.Errorf("fields %v", m)
	}
	var re ReplyErr
	if _, err := c.Do("GET", "k"); !errors.As(err, &re) || err.Error() != "ERR nope" {
		t.Errorf("error reply: %v", err)
	}
	c.Close()
	want := "*2\r\n$4\r\nINFO\r\n$6\r\nmemory\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
	if got := string(<-sent); got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
	if got := string(AppendCommand(nil, []byte("GET"), []byte("k"))); got != "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n" {
		t.Errorf("AppendCommand %q", got)
	}
}
