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
	"github.com/tandemkv/tandem/propagate"
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
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Password: pass, Protocol: 2, PoolSize: 4,
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

// store is a server's keyspace in the tests (strings only). Writes
// change it and are fed under one lock, and the snapshot cuts under the
// same lock, as the lead's log lock; as a replica it is what Load and
// Apply build.
type store struct {
	mu      sync.Mutex
	p       *Primary
	data    map[int]map[string]string
	loads   int
	loaded  []string // db:key=value of the last RDB
	applied []string // "db cmd args…" since the last load
	// slowApply makes Apply return this long after its change, widening
	// the window between a command's effect and its proxying.
	slowApply time.Duration
}

func newStore(p *Primary) *store { return &store{p: p, data: map[int]map[string]string{}} }

func (s *store) setLocked(db int, k, v string) {
	if s.data[db] == nil {
		s.data[db] = map[string]string{}
	}
	s.data[db][k] = v
}

// set is a client's SET on this server as a master.
func (s *store) set(db int, k, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLocked(db, k, v)
	s.p.Feed(db, cmd("SET", k, v))
}

func (s *store) load(rd io.Reader) (int, error) {
	rr, err := rdb.NewReader(rd)
	if err != nil {
		return 0, err
	}
	data := map[int]map[string]string{}
	var keys []string
	streamDB := 0
	for {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		switch rec.Kind {
		case rdb.KindKey:
			keys = append(keys, fmt.Sprintf("%d:%s=%s", rec.DB, rec.Key, rec.Str))
			if data[rec.DB] == nil {
				data[rec.DB] = map[string]string{}
			}
			data[rec.DB][string(rec.Key)] = string(rec.Str)
		case rdb.KindAux:
			if string(rec.AuxKey) == "repl-stream-db" {
				streamDB, _ = strconv.Atoi(string(rec.AuxValue))
			}
		}
	}
	sort.Strings(keys)
	s.mu.Lock()
	s.loads++
	s.loaded = keys
	s.data = data
	s.applied = nil
	s.mu.Unlock()
	return streamDB, nil
}

func (s *store) apply(db int, args [][]byte) error {
	parts := []string{strconv.Itoa(db)}
	for _, a := range args {
		parts = append(parts, string(a))
	}
	s.mu.Lock()
	defer func() {
		d := s.slowApply
		s.mu.Unlock()
		time.Sleep(d)
	}()
	s.applied = append(s.applied, strings.Join(parts, " "))
	switch {
	case strings.EqualFold(string(args[0]), "set") && len(args) >= 3:
		s.setLocked(db, string(args[1]), string(args[2]))
	case strings.EqualFold(string(args[0]), "incr") && len(args) == 2:
		n, _ := strconv.Atoi(s.data[db][string(args[1])])
		s.setLocked(db, string(args[1]), strconv.Itoa(n+1))
	}
	// The lead's propagation feeds every write; a replica's Primary
	// must ignore it (it proxies the master's bytes instead).
	s.p.Feed(db, propagate.AppendCommand(nil, args...))
	return nil
}

func (s *store) has(line string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.applied {
		if a == line {
			return true
		}
	}
	return false
}

func (s *store) hasFold(line string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.applied {
		if strings.EqualFold(a, line) {
			return true
		}
	}
	return false
}

func (s *store) get(db int, k string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data[db][k]
}

func (s *store) loadCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads
}

func (s *store) snapshot(w io.Writer, _ Filter, cut func() Cut) error {
	s.mu.Lock()
	c := cut()
	copyOf := map[int]map[string]string{}
	for db, m := range s.data {
		copyOf[db] = map[string]string{}
		for k, v := range m {
			copyOf[db][k] = v
		}
	}
	s.mu.Unlock()
	rw, err := rdb.NewWriter(w, rdb.WriterOptions{Checksum: true, Aux: [][2]string{
		{"repl-stream-db", strconv.Itoa(c.StreamDB)}, {"repl-id", c.ReplID},
		{"repl-offset", strconv.FormatInt(c.Offset, 10)}}})
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

// (a) Our replica of a real redis-server master: the RDB, the stream,
// offsets equal to the master's, ACKs the master counts for WAIT, and a
// dropped link resumed with +CONTINUE.
func TestReplicaOfRealRedis(t *testing.T) {
	master, port := startRedis(t, "s3cret", "--requirepass", "s3cret")
	mc := master.Conn() // one connection: SELECT stays
	defer mc.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(mc.Set(ctx, "a", "1", 0).Err())
	must(mc.Set(ctx, "b", "2", 0).Err())
	must(mc.Do(ctx, "SELECT", "3").Err())
	must(mc.Set(ctx, "c", "3", 0).Err())
	must(mc.Do(ctx, "SELECT", "0").Err())

	cfg := DefaultConfig()
	p := NewPrimary(cfg)
	defer p.Close()
	rec := newStore(p)
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

	must(mc.Set(ctx, "d", "4", 0).Err())
	must(mc.Do(ctx, "SELECT", "5").Err())
	must(mc.Set(ctx, "e", "5", 0).Err())
	must(mc.Do(ctx, "SELECT", "0").Err())
	if _, err := mc.TxPipelined(ctx, func(tx redis.Pipeliner) error {
		tx.Set(ctx, "m1", "x", 0)
		tx.Set(ctx, "m2", "y", 0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "stream applied", func() bool {
		return rec.has("0 set d 4") && rec.has("5 set e 5") && rec.hasFold("0 multi") && rec.has("0 set m2 y") && rec.hasFold("0 exec")
	})
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
	must(mc.Set(ctx, "w", "1", 0).Err())
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
	must(mc.Set(ctx, "f", "6", 0).Err()) // while we are away: from the backlog
	eventually(t, "partial resync", func() bool { return infoField(t, master, "stats", "sync_partial_ok") == "1" })
	eventually(t, "missed write applied", func() bool { return rec.has("0 set f 6") })
	if infoField(t, master, "stats", "sync_full") != full0 {
		t.Fatal("reconnection made a full sync")
	}
	if loads := rec.loadCount(); loads != 1 {
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
	readCommands(c, func(args [][]byte) {
		var reply []byte
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
		if reply != nil {
			nc.Send(reply)
		}
	})
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
			cfg.DisklessSyncDelay = 0
			cfg.TempDir = t.TempDir()
			cfg.PingPeriod = time.Second
			cfg.Log = func(s string) { t.Log(s) }
			p := NewPrimary(cfg)
			defer p.Close()
			st := newStore(p)
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

// A chain: real master → our replica → real replica of ours. Our replica
// proxies the master's bytes, so the sub-replica has the master's ID and
// offset, and starts in the database the master's stream is in
// (repl-stream-db); promoting ours lets the sub-replica continue with
// PSYNC on the master's ID, now our ID2.
func TestChainRealMasterOursRealReplica(t *testing.T) {
	master, mport := startRedis(t, "")
	mc := master.Conn()
	defer mc.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(mc.Set(ctx, "a", "1", 0).Err())

	cfg := DefaultConfig()
	cfg.DisklessSyncDelay = 0
	cfg.Log = func(s string) { t.Log(s) }
	p := NewPrimary(cfg)
	defer p.Close()
	st := newStore(p)
	cfg.Snapshot = st.snapshot
	p.SetConfig(cfg)
	srv := serve(t, p)
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: mport, ListeningPort: srv.port()},
		Callbacks{Load: st.load, Apply: st.apply, Log: func(s string) { t.Log(s) }})
	eventually(t, "our link up", func() bool { return p.Info().Replica.LinkUp })
	// The master's stream now stands in db 3.
	must(mc.Do(ctx, "SELECT", "3").Err())
	must(mc.Set(ctx, "c", "3", 0).Err())
	eventually(t, "applied in db 3", func() bool { return st.get(3, "c") == "3" })

	sub, _ := startRedis(t, "", "--replicaof", "127.0.0.1", strconv.Itoa(srv.port()))
	eventually(t, "sub link up", func() bool { return infoField(t, sub, "replication", "master_link_status") == "up" })
	must(mc.Set(ctx, "d", "4", 0).Err()) // db 3, no SELECT in the stream
	must(mc.Do(ctx, "SELECT", "0").Err())
	must(mc.Set(ctx, "e", "5", 0).Err())
	subGet := func(db int, k string) string {
		c := sub.Conn()
		defer c.Close()
		c.Do(ctx, "SELECT", db)
		v, _ := c.Get(ctx, k).Result()
		return v
	}
	eventually(t, "sub has the master's writes", func() bool {
		return subGet(0, "a") == "1" && subGet(3, "c") == "3" && subGet(3, "d") == "4" && subGet(0, "e") == "5"
	})
	mid := infoField(t, master, "replication", "master_replid")
	eventually(t, "one history, one offset", func() bool {
		mo := infoField(t, master, "replication", "master_repl_offset")
		return infoField(t, sub, "replication", "slave_repl_offset") == mo &&
			strconv.FormatInt(p.Offset(), 10) == mo &&
			infoField(t, sub, "replication", "master_replid") == mid
	})

	r.Stop()
	eventually(t, "sub continues with the promoted replica", func() bool {
		return infoField(t, sub, "replication", "master_link_status") == "up" &&
			infoField(t, sub, "replication", "master_replid") == p.ReplID() &&
			infoField(t, sub, "replication", "master_replid2") == mid
	})
	p.mu.Lock()
	full, partial := p.syncFull, p.syncPartOK
	p.mu.Unlock()
	if full != 1 || partial != 1 {
		t.Fatalf("full syncs %d, partial %d", full, partial)
	}
	st.set(0, "after", "promotion")
	eventually(t, "our own writes reach the sub", func() bool { return subGet(0, "after") == "promotion" })
	eventually(t, "sub's offset is ours", func() bool {
		return infoField(t, sub, "replication", "slave_repl_offset") == strconv.FormatInt(p.Offset(), 10)
	})
}

// Our replica follows a real replica promoted after its master went:
// PSYNC with the old master's ID is accepted on the promoted one's ID2,
// +CONTINUE <new id> makes the new ID ours and the old one our ID2.
func TestContinueWithPromotedRealReplica(t *testing.T) {
	master, mport := startRedis(t, "")
	r1, r1port := startRedis(t, "", "--replicaof", "127.0.0.1", strconv.Itoa(mport))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(master.Set(ctx, "a", "1", 0).Err())
	p := NewPrimary(DefaultConfig())
	defer p.Close()
	st := newStore(p)
	p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: mport, ListeningPort: 1},
		Callbacks{Load: st.load, Apply: st.apply})
	must(master.Set(ctx, "b", "2", 0).Err())
	mid := infoField(t, master, "replication", "master_replid")
	eventually(t, "both replicas caught up", func() bool {
		mo := infoField(t, master, "replication", "master_repl_offset")
		return strconv.FormatInt(p.Offset(), 10) == mo && infoField(t, r1, "replication", "slave_repl_offset") == mo &&
			strings.Count(infoField(t, master, "replication", "connected_slaves"), "2") == 1
	})
	master.Do(ctx, "SHUTDOWN", "NOSAVE") // the old master is gone: no PING moves our offset past r1's
	must(r1.Do(ctx, "REPLICAOF", "NO", "ONE").Err())
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: r1port, ListeningPort: 1},
		Callbacks{Load: st.load, Apply: st.apply, Log: func(s string) { t.Log(s) }})
	defer r.Stop()
	eventually(t, "continued with the promoted replica", func() bool {
		return p.Info().Replica.LinkUp && infoField(t, r1, "stats", "sync_partial_ok") == "1"
	})
	in := p.Info()
	if in.ReplID != infoField(t, r1, "replication", "master_replid") || in.ReplID2 != mid {
		t.Fatalf("IDs %s / %s, want %s / %s", in.ReplID, in.ReplID2, infoField(t, r1, "replication", "master_replid"), mid)
	}
	if st.loadCount() != 1 {
		t.Fatalf("%d loads", st.loadCount())
	}
	must(r1.Set(ctx, "c", "3", 0).Err())
	eventually(t, "new master's write applied", func() bool { return st.get(0, "c") == "3" })
}

// The stream is redis-server's byte for byte: a fake replica of a real
// master records its stream around writes in several databases and its
// PINGs; the same writes and PINGs, in the same order, fed to a Primary
// make the same bytes (SELECTs where Redis puts them, its "ping").
func TestStreamBytesEqualRedis(t *testing.T) {
	master, port := startRedis(t, "", "--repl-ping-replica-period", "1", "--repl-diskless-sync", "no")
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	c.Write([]byte("PSYNC ? -1\r\n"))
	line := func() string {
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if l = strings.TrimRight(l, "\r\n"); l != "" {
				return l
			}
		}
	}
	if l := line(); !strings.HasPrefix(l, "+FULLRESYNC") {
		t.Fatalf("%q", l)
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(line(), "$"))
	if _, err := io.ReadFull(br, make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	mc := master.Conn()
	defer mc.Close()
	for _, args := range [][]any{{"SET", "a", "1"}, {"SELECT", "3"}, {"SET", "b", "2"}, {"INCR", "c"},
		{"SELECT", "0"}, {"DEL", "a"}, {"SELECT", "12"}, {"SET", "x", "y"}} {
		if err := mc.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // PINGs fall between writes
	}
	c.SetReadDeadline(time.Now().Add(1500 * time.Millisecond))
	real, _ := io.ReadAll(br)

	p, _ := testPrimary(t, func(c *Config) { c.BacklogSize = 1 << 20 })
	_, fc := attach(t, p, nil, "?", "-1")
	fc.reset()
	db, end, pings := 0, 0, 0
	for {
		args, used, err := ParseCommand(real[end:])
		if err != nil {
			t.Fatal(err)
		}
		if used == 0 {
			break
		}
		frame := real[end : end+used]
		end += used
		switch strings.ToLower(string(args[0])) {
		case "select":
			db, _ = strconv.Atoi(string(args[1]))
		case "ping":
			pings++
			p.mu.Lock()
			p.feedLocked(p.seldb, pingCommand)
			p.mu.Unlock()
		default:
			p.Feed(db, frame)
		}
	}
	if pings == 0 || !strings.Contains(string(real), "SELECT\r\n$2\r\n12") {
		t.Fatalf("the recording needs PINGs and every write: %q", real)
	}
	if got := fc.text(); got != string(real[:end]) {
		t.Fatalf("stream\n%q\nredis-server's\n%q", got, real[:end])
	}
}

// infoKeys is the field names of an INFO replication body, in order.
func infoKeys(body string) []string {
	var keys []string
	for _, line := range strings.Split(body, "\r\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			keys = append(keys, k)
		}
	}
	return keys
}

// INFO replication has redis-server's fields in its order: on a master
// with a replica, and on a replica with its link up and down.
func TestInfoFieldsAsRedis(t *testing.T) {
	master, mport := startRedis(t, "", "--min-replicas-to-write", "1")
	realReplica, _ := startRedis(t, "", "--min-replicas-to-write", "1", "--replicaof", "127.0.0.1", strconv.Itoa(mport))
	eventually(t, "real link up", func() bool {
		return infoField(t, realReplica, "replication", "master_link_status") == "up"
	})
	cfg := DefaultConfig()
	cfg.MinReplicas = 1
	cfg.DisklessSyncDelay = 0
	p := NewPrimary(cfg)
	defer p.Close()
	st := newStore(p)
	r := p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: mport, ListeningPort: 1},
		Callbacks{Load: st.load, Apply: st.apply})
	eventually(t, "our link up", func() bool { return p.Info().Replica.LinkUp })
	compare := func(what string, real *redis.Client) {
		t.Helper()
		body, err := real.Info(ctx, "replication").Result()
		if err != nil {
			t.Fatal(err)
		}
		in := p.Info()
		ours := string(in.Append(nil))
		if got, want := strings.Join(infoKeys(ours), " "), strings.Join(infoKeys(body), " "); got != want {
			t.Fatalf("%s:\n%s\nredis-server's:\n%s", what, got, want)
		}
	}
	compare("replica, link up", realReplica)
	master.Close()
	r.Stop()
	// Ours as a master with the real replica following it.
	srv := serve(t, p)
	cfg.Snapshot = st.snapshot
	p.SetConfig(cfg)
	if err := realReplica.Do(ctx, "REPLICAOF", "127.0.0.1", strconv.Itoa(srv.port())).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "real replica of ours", func() bool {
		return infoField(t, realReplica, "replication", "master_link_status") == "up" && len(p.Role().Replicas) == 1
	})
	mc, _ := startRedis(t, "", "--min-replicas-to-write", "1")
	other, _ := startRedis(t, "", "--replicaof", "127.0.0.1", strconv.Itoa(freePortOf(mc)))
	eventually(t, "a real master with a replica", func() bool {
		return infoField(t, other, "replication", "master_link_status") == "up" &&
			strings.Contains(infoField(t, mc, "replication", "slave0"), "state=online")
	})
	compare("master with one replica", mc)
}

func freePortOf(c *redis.Client) int {
	_, port, _ := net.SplitHostPort(c.Options().Addr)
	n, _ := strconv.Atoi(port)
	return n
}

// A sub-replica's full sync from our replica while the master writes
// without pause: the RDB is cut between two applied commands (the apply
// loop is paused for the cut), so the sub-replica neither misses nor
// repeats an INCR.
func TestChainFullSyncUnderWrites(t *testing.T) {
	master, mport := startRedis(t, "")
	cfg := DefaultConfig()
	cfg.DisklessSyncDelay = 0
	p := NewPrimary(cfg)
	defer p.Close()
	st := newStore(p)
	st.slowApply = time.Millisecond
	cfg.Snapshot = st.snapshot
	p.SetConfig(cfg)
	srv := serve(t, p)
	p.StartReplica(ReplicaOptions{Host: "127.0.0.1", Port: mport, ListeningPort: srv.port()},
		Callbacks{Load: st.load, Apply: st.apply})
	eventually(t, "our link up", func() bool { return p.Info().Replica.LinkUp })
	var pause sync.Mutex // held: the writer waits
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				done <- n
				return
			default:
			}
			pause.Lock()
			if master.Incr(ctx, "counter").Err() == nil {
				n++
			}
			pause.Unlock()
			time.Sleep(2 * time.Millisecond) // the replica (1 ms a command) keeps up
		}
	}()
	time.Sleep(200 * time.Millisecond)
	sub, _ := startRedis(t, "", "--replicaof", "127.0.0.1", strconv.Itoa(srv.port()))
	same := func() bool {
		m, _ := master.Get(ctx, "counter").Int()
		v, _ := sub.Get(ctx, "counter").Int()
		return m == v && m > 0
	}
	// Three full syncs, each cut among the writes, each checked with the
	// writer paused; promoted, the sub has a history of its own we cannot
	// continue, so REPLICAOF again is a new full sync.
	for i := range 3 {
		if i > 0 {
			sub.Do(ctx, "REPLICAOF", "NO", "ONE")
			sub.Do(ctx, "REPLICAOF", "127.0.0.1", strconv.Itoa(srv.port()))
		}
		eventually(t, "sub link up", func() bool { return infoField(t, sub, "replication", "master_link_status") == "up" })
		time.Sleep(100 * time.Millisecond)
		pause.Lock()
		eventually(t, "sub's counter is the master's", same)
		pause.Unlock()
	}
	close(stop)
	n := <-done
	if v, _ := master.Get(ctx, "counter").Int(); v != n {
		t.Fatalf("master %d, writes %d", v, n)
	}
}
