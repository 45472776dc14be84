package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/internal/realserver"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

var ctx = context.Background()

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRedis runs a real redis-server 7.0 with args and returns a client
// (of password pass) and its port.
func startRedis(t *testing.T, pass string, args ...string) (*redis.Client, int) {
	t.Helper()
	bin := realserver.Path(t, realserver.Redis)
	port, dir := freePort(t), t.TempDir()
	full := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "log")}, args...)
	cmd := exec.Command(bin, full...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Logf("redis-server %d log:\n%s", port, b)
		}
	})
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Password: pass, Protocol: 2, PoolSize: 1,
		MaxRetries: -1, ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { c.Close() })
	for deadline := time.Now().Add(10 * time.Second); c.Ping(ctx).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c, port
}

// infoField reads one field of INFO <section>.
func infoField(t *testing.T, c *redis.Client, section, field string) string {
	t.Helper()
	s, err := c.Info(ctx, section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(s, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recorder is the replica's keyspace as the callbacks see it.
type recorder struct {
	mu      sync.Mutex
	loads   int
	loaded  []string // db:key=value of the last RDB
	applied []string // db:cmd args…
}

func (r *recorder) load(rd io.Reader) error {
	rr, err := rdb.NewReader(rd)
	if err != nil {
		return err
	}
	var keys []string
	for {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if rec.Kind == rdb.KindKey {
			keys = append(keys, fmt.Sprintf("%d:%s=%s", rec.DB, rec.Key, rec.Str))
		}
	}
	sort.Strings(keys)
	r.mu.Lock()
	r.loads++
	r.loaded = keys
	r.applied = nil
	r.mu.Unlock()
	return nil
}

func (r *recorder) apply(db int, args [][]byte) error {
	parts := []string{strconv.Itoa(db)}
	for _, a := range args {
		parts = append(parts, string(a))
	}
	r.mu.Lock()
	r.applied = append(r.applied, strings.Join(parts, " "))
	r.mu.Unlock()
	return nil
}

func (r *recorder) has(line string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.applied {
		if a == line {
			return true
		}
	}
	return false
}

// (a) Our replica of a real redis-server master: the RDB, the stream,
// offsets equal to the master's, ACKs the master counts for WAIT, and a
// dropped link resumed with +CONTINUE.
func TestReplicaOfRealRedis(t *testing.T) {
	master, port := startRedis(t, "s3cret", "--requirepass", "s3cret")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(master.Set(ctx, "a", "1", 0).Err())
	must(master.Set(ctx, "b", "2", 0).Err())
	must(master.Do(ctx, "SELECT", "3").Err())
	must(master.Set(ctx, "c", "3", 0).Err())
	must(master.Do(ctx, "SELECT", "0").Err())

	cfg := DefaultConfig()
	p := NewPrimary(cfg)
	defer p.Close()
	rec := &recorder{}
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: port, Pass: "s3cret", ListeningPort: 7777},
		Callbacks{Load: rec.load, Apply: rec.apply, Log: func(s string) { t.Log(s) }})
	eventually(t, "link up", func() bool { in := p.Info(); return in.Replica.LinkUp })
	rec.mu.Lock()
	if got := strings.Join(rec.loaded, " "); got != "0:a=1 0:b=2 3:c=3" {
		t.Fatalf("RDB loaded %q", got)
	}
	rec.mu.Unlock()
	if id := infoField(t, master, "replication", "master_replid"); p.ReplID() != id {
		t.Fatalf("replid %s, master's %s", p.ReplID(), id)
	}

	must(master.Set(ctx, "d", "4", 0).Err())
	must(master.Do(ctx, "SELECT", "5").Err())
	must(master.Set(ctx, "e", "5", 0).Err())
	must(master.Do(ctx, "SELECT", "0").Err())
	eventually(t, "stream applied", func() bool { return rec.has("0 set d 4") && rec.has("5 set e 5") })
	sameOffset := func() bool {
		mo, _ := strconv.ParseInt(infoField(t, master, "replication", "master_repl_offset"), 10, 64)
		in := p.Info()
		return in.Replica.Offset == mo && in.Offset == mo && in.Replica.ReadOffset == mo
	}
	eventually(t, "offsets equal the master's", sameOffset)
	// The master sees us online, at our port, acknowledging its offset.
	eventually(t, "master sees our ACK", func() bool {
		s := infoField(t, master, "replication", "slave0")
		return strings.Contains(s, "port=7777,state=online,offset="+strconv.FormatInt(p.Info().Replica.Offset, 10))
	})
	// WAIT on the master: our GETACK answer counts.
	must(master.Set(ctx, "w", "1", 0).Err())
	if n, err := master.Do(ctx, "WAIT", "1", "5000").Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d %v", n, err)
	}
	ro := p.Role()
	if ro.Master || ro.State != "connected" || ro.Port != port {
		t.Fatalf("ROLE %+v", ro)
	}

	// Drop the link from the master's side; we come back with PSYNC and
	// the master continues (no second full sync, no second Load).
	full0 := infoField(t, master, "stats", "sync_full")
	must(master.Do(ctx, "CLIENT", "KILL", "TYPE", "replica").Err())
	must(master.Set(ctx, "f", "6", 0).Err()) // while we are away: from the backlog
	eventually(t, "partial resync", func() bool { return infoField(t, master, "stats", "sync_partial_ok") == "1" })
	eventually(t, "missed write applied", func() bool { return rec.has("0 set f 6") })
	if infoField(t, master, "stats", "sync_full") != full0 {
		t.Fatal("reconnection made a full sync")
	}
	rec.mu.Lock()
	loads := rec.loads
	rec.mu.Unlock()
	if loads != 1 {
		t.Fatalf("%d loads", loads)
	}
	eventually(t, "offsets equal after continue", sameOffset)

	// REPLICAOF NO ONE: we keep the offset; the master's ID is our ID2
	// valid to offset+1.
	old, off := p.ReplID(), p.Offset()
	r.Stop()
	in := p.Info()
	if in.Replica != nil || in.ReplID2 != old || in.SecondOffset != off+1 || in.Offset != off || in.ReplID == old {
		t.Fatalf("after promotion: %+v", in)
	}
}

// server is a tiny front-end in the test: it answers the handshake a
// replica sends and hands REPLCONF and PSYNC to the package.
type server struct {
	p     *Primary
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func serve(t *testing.T, p *Primary) *server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{p: p, ln: ln}
	t.Cleanup(func() { ln.Close(); s.dropAll() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			go s.handle(c)
		}
	}()
	return s
}

func (s *server) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

func (s *server) dropAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
	s.conns = nil
}

func (s *server) handle(c net.Conn) {
	nc := NewNetConn(c)
	link := s.p.NewLink(nc)
	defer link.Close()
	defer nc.Close()
	br := bufio.NewReader(c)
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
			var reply []byte
			if len(args) > 0 {
				switch strings.ToUpper(string(args[0])) {
				case "PING":
					reply = []byte("+PONG\r\n")
				case "AUTH":
					reply = []byte("+OK\r\n")
				case "REPLCONF":
					reply = link.Replconf(args)
				case "PSYNC", "SYNC":
					reply = link.Sync(args)
				default:
					reply = []byte("-ERR unknown command\r\n")
				}
			}
			buf = buf[used:]
			if reply != nil {
				nc.Send(reply)
			}
		}
	}
}

// store is the keyspace of the test's master: writes change it and are
// fed under one lock, and the snapshot cuts under the same lock, as the
// lead's log lock.
type store struct {
	mu   sync.Mutex
	p    *Primary
	data map[int]map[string]string
}

func (s *store) set(db int, k, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data[db] == nil {
		s.data[db] = map[string]string{}
	}
	s.data[db][k] = v
	s.p.Feed(db, cmd("SET", k, v))
}

func (s *store) snapshot(w io.Writer, cut func() int64) error {
	s.mu.Lock()
	cut()
	copyOf := map[int]map[string]string{}
	for db, m := range s.data {
		copyOf[db] = map[string]string{}
		for k, v := range m {
			copyOf[db][k] = v
		}
	}
	s.mu.Unlock()
	rw, err := rdb.NewWriter(w, rdb.WriterOptions{Checksum: true})
	if err != nil {
		return err
	}
	dbs := []int{}
	for db := range copyOf {
		dbs = append(dbs, db)
	}
	sort.Ints(dbs)
	for _, db := range dbs {
		if err := rw.SelectDB(db, uint64(len(copyOf[db])), 0); err != nil {
			return err
		}
		for k, v := range copyOf[db] {
			if err := rw.String([]byte(k), []byte(v), rdb.NewMeta()); err != nil {
				return err
			}
		}
	}
	return rw.Close()
}

// (b) A real redis-server replica of our Primary, with a diskless and
// with a spooled RDB: it loads our RDB, applies our stream (SELECTs
// included), reports our offset, its ACKs satisfy WAIT, and after a drop
// it continues with PSYNC.
func TestRealRedisReplicaOfPrimary(t *testing.T) {
	for _, diskless := range []bool{true, false} {
		t.Run(map[bool]string{true: "diskless", false: "spooled"}[diskless], func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.DisklessSync = diskless
			cfg.TempDir = t.TempDir()
			cfg.PingPeriod = time.Second
			cfg.Log = func(s string) { t.Log(s) }
			p := NewPrimary(cfg)
			defer p.Close()
			st := &store{p: p, data: map[int]map[string]string{}}
			cfg.Snapshot = st.snapshot
			p.SetConfig(cfg)
			st.set(0, "k1", "v1")
			st.set(0, "k2", "v2")
			st.set(2, "k3", "v3")
			srv := serve(t, p)

			replica, _ := startRedis(t, "", "--replicaof", "127.0.0.1", strconv.Itoa(srv.port()))
			eventually(t, "replica link up", func() bool {
				return infoField(t, replica, "replication", "master_link_status") == "up"
			})
			get := func(db int, k string) string {
				c := replica.Conn()
				defer c.Close()
				c.Do(ctx, "SELECT", db)
				v, _ := c.Get(ctx, k).Result()
				return v
			}
			if get(0, "k1") != "v1" || get(2, "k3") != "v3" {
				t.Fatal("replica did not load our RDB")
			}
			st.set(0, "x", "1")
			st.set(4, "y", "2")
			eventually(t, "stream applied", func() bool { return get(0, "x") == "1" && get(4, "y") == "2" })
			sameOffset := func() bool {
				return infoField(t, replica, "replication", "slave_repl_offset") == strconv.FormatInt(p.Offset(), 10) &&
					infoField(t, replica, "replication", "master_replid") == p.ReplID()
			}
			eventually(t, "replica's offset is ours", sameOffset)

			// WAIT: the GETACK we send is answered with the offset.
			st.set(0, "z", "3")
			got := make(chan int, 1)
			p.WaitAsync(1, p.Offset(), 10*time.Second, func(n int) { got <- n })
			if n := <-got; n != 1 {
				t.Fatalf("WAIT acked by %d", n)
			}
			in := p.Info()
			if len(in.Slaves) != 1 || in.Slaves[0].State != "online" || in.Slaves[0].Offset < p.Offset()-200 {
				t.Fatalf("INFO slaves %+v", in.Slaves)
			}
			ro := p.Role()
			if !ro.Master || len(ro.Replicas) != 1 || ro.Replicas[0].IP != "127.0.0.1" {
				t.Fatalf("ROLE %+v", ro)
			}

			// Drop the connection; the replica comes back and continues.
			srv.dropAll()
			st.set(0, "while-away", "yes")
			eventually(t, "partial resync", func() bool {
				p.mu.Lock()
				defer p.mu.Unlock()
				return p.syncPartOK == 1 && len(p.links) == 1 && p.links[0].state == stateOnline
			})
			eventually(t, "missed write applied", func() bool { return get(0, "while-away") == "yes" })
			p.mu.Lock()
			full := p.syncFull
			p.mu.Unlock()
			if full != 1 {
				t.Fatalf("%d full syncs", full)
			}
			eventually(t, "offset after continue", sameOffset)
		})
	}
}
