package repl

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandemkv/tandem/snapshot/rdb"
)

// fakeMaster accepts replicas, records the commands of each connection's
// handshake, answers them, and for PSYNC sends a full sync of an empty
// diskless RDB; then it says nothing more (the replica's repl-timeout
// must end the link).
type fakeMaster struct {
	ln    net.Listener
	id    string
	mu    sync.Mutex
	conns [][]string // per connection, each command as "ARG ARG …"
}

func newFakeMaster(t *testing.T) *fakeMaster {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeMaster{ln: ln, id: strings.Repeat("ab", 20)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go m.handle(t, c)
		}
	}()
	return m
}

func (m *fakeMaster) port() int { return m.ln.Addr().(*net.TCPAddr).Port }

func (m *fakeMaster) handle(t *testing.T, c net.Conn) {
	defer c.Close()
	m.mu.Lock()
	idx := len(m.conns)
	m.conns = append(m.conns, nil)
	m.mu.Unlock()
	readCommands(c, func(args [][]byte) {
		line := string(bytes.Join(args, []byte(" ")))
		m.mu.Lock()
		m.conns[idx] = append(m.conns[idx], line)
		m.mu.Unlock()
		switch strings.ToUpper(string(args[0])) {
		case "PING":
			c.Write([]byte("+PONG\r\n"))
		case "PSYNC":
			var rdbBuf bytes.Buffer
			w, _ := rdb.NewWriter(&rdbBuf, rdb.WriterOptions{Checksum: true})
			w.Close()
			mark := strings.Repeat("m", 40)
			c.Write([]byte("\n+FULLRESYNC " + m.id + " 100\r\n\n$EOF:" + mark + "\r\n"))
			c.Write(rdbBuf.Bytes())
			c.Write([]byte(mark))
		case "REPLCONF":
			if !strings.EqualFold(string(args[1]), "ack") {
				c.Write([]byte("+OK\r\n"))
			}
		default:
			c.Write([]byte("+OK\r\n"))
		}
	})
}

// readCommands calls fn with each RESP command read from r, until the
// connection ends or what it sends does not parse: a fake peer's loop.
func readCommands(r io.Reader, fn func(args [][]byte)) {
	br := bufio.NewReader(r)
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		n, err := br.Read(chunk)
		if err != nil {
			return
		}
		buf = append(buf, chunk[:n]...)
		for {
			args, used, err := ParseCommand(buf)
			if err != nil {
				return
			}
			if used == 0 {
				break
			}
			buf = buf[used:]
			if len(args) > 0 {
				fn(args)
			}
		}
	}
}

func (m *fakeMaster) conn(i int) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i >= len(m.conns) {
		return nil
	}
	return append([]string(nil), m.conns[i]...)
}

// handshake is a connection's commands up to its PSYNC.
func handshake(cmds []string) []string {
	for i, c := range cmds {
		if strings.HasPrefix(c, "PSYNC") {
			return cmds[:i+1]
		}
	}
	return nil
}

// Our handshake is redis-server 7.0's, command for command (a real
// replica and ours against the same fake master); after repl-timeout of
// silence ours reconnects and asks to continue from the offset it has.
func TestHandshakeAsRedisAndReplTimeout(t *testing.T) {
	m := newFakeMaster(t)
	real, rport := startRedis(t, "", "--masterauth", "pw", "--replicaof", "127.0.0.1", strconv.Itoa(m.port()))
	eventually(t, "real replica synced", func() bool { return len(handshake(m.conn(0))) > 0 })
	real.Do(ctx, "REPLICAOF", "NO", "ONE")
	want := handshake(m.conn(0))
	// REPLICAOF at run time: a master offers its own history.
	realID := infoField(t, real, "replication", "master_replid")
	realOff, _ := strconv.ParseInt(infoField(t, real, "replication", "master_repl_offset"), 10, 64)
	real.Do(ctx, "REPLICAOF", "127.0.0.1", strconv.Itoa(m.port()))
	eventually(t, "real replica's second handshake", func() bool { return len(handshake(m.conn(1))) > 0 })
	real.Do(ctx, "REPLICAOF", "NO", "ONE")
	if h := handshake(m.conn(1)); h[len(h)-1] != "PSYNC "+realID+" "+strconv.FormatInt(realOff+1, 10) {
		t.Fatalf("redis-server's REPLICAOF at run time: %q (replid %s offset %d)", h, realID, realOff)
	}

	cfg := DefaultConfig()
	cfg.Timeout = time.Second
	p := NewPrimary(cfg)
	defer p.Close()
	var loads atomic.Int32
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: m.port(), Pass: "pw", ListeningPort: rport, AtStartup: true},
		Callbacks{Load: func(rd io.Reader) (int, error) {
			_, err := io.Copy(io.Discard, rd)
			loads.Add(1)
			return 0, err
		}, Apply: func(int, [][]byte) error { return nil }})
	defer r.Stop()
	eventually(t, "our handshake", func() bool { return len(handshake(m.conn(2))) > 0 })
	if got := handshake(m.conn(2)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("handshake\n%q\nredis-server's\n%q", got, want)
	}
	eventually(t, "first ACK after the diskless load", func() bool {
		c := m.conn(2)
		return len(c) > len(want) && c[len(want)] == "REPLCONF ACK 100"
	})
	// The fake master is silent: after repl-timeout (1s) we reconnect and
	// PSYNC <its id> <101>.
	eventually(t, "reconnect after repl-timeout", func() bool {
		h := handshake(m.conn(3))
		return len(h) > 0 && h[len(h)-1] == "PSYNC "+m.id+" 101"
	})
	if loads.Load() < 1 {
		t.Fatal("no load")
	}
}

// At run time a master turning replica offers its own history, as
// redis-server (checked above): PSYNC <our replid> <our offset+1>.
func TestReplicaOfAtRunTimeOffersOwnHistory(t *testing.T) {
	m := newFakeMaster(t)
	p := NewPrimary(DefaultConfig())
	defer p.Close()
	id := p.ReplID()
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: m.port(), ListeningPort: 1},
		Callbacks{Load: func(rd io.Reader) (int, error) { _, err := io.Copy(io.Discard, rd); return 0, err }})
	defer r.Stop()
	eventually(t, "handshake", func() bool { return len(handshake(m.conn(0))) > 0 })
	if h := handshake(m.conn(0)); h[len(h)-1] != "PSYNC "+id+" 1" {
		t.Fatalf("%q", h)
	}
}
