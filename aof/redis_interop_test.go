package aof

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/tandemkv/tandem/internal/benchkit"
	"github.com/tandemkv/tandem/internal/realserver"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

type redisProc struct {
	cmd    *exec.Cmd
	addr   string
	log    string
	exited chan struct{} // closed when the process has exited
}

// startRedis runs redis-server 7.0 in dir with args after the basics and
// waits until it answers PING; it fails the test if it exits first (a
// refused AOF) and shows its log.
func startRedis(t *testing.T, dir string, args ...string) *redisProc {
	t.Helper()
	bin := realserver.Path(t, realserver.Redis)
	port, err := benchkit.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logf := filepath.Join(dir, "redis.log")
	all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir, "--logfile", logf, "--daemonize", "no"}, args...)
	c := exec.Command(bin, all...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	p := &redisProc{cmd: c, addr: fmt.Sprintf("127.0.0.1:%d", port), log: logf, exited: make(chan struct{})}
	var waitErr error
	go func() { waitErr = c.Wait(); close(p.exited) }()
	t.Cleanup(func() { c.Process.Kill(); <-p.exited })
	for i := 0; ; i++ {
		select {
		case <-p.exited:
			data, _ := os.ReadFile(logf)
			t.Fatalf("redis-server exited (%v):\n%s", waitErr, data)
		default:
		}
		if pingOK(p.addr) {
			break
		}
		if i > 500 {
			t.Fatal("redis-server does not answer")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p
}

func pingOK(addr string) bool {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	conn.Write([]byte("PING\r\n"))
	buf := make([]byte, 64)
	conn.SetReadDeadline(time.Now().Add(time.Second))
	n, _ := conn.Read(buf)
	return strings.HasPrefix(string(buf[:n]), "+PONG")
}

// stop is a SIGTERM: redis-server flushes and fsyncs its AOF and exits.
func (p *redisProc) stop(t *testing.T) {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("redis-server did not stop")
	}
}

func (p *redisProc) logText() string {
	data, _ := os.ReadFile(p.log)
	return string(data)
}

// model replays string commands: the state a load must rebuild.
type model struct {
	db   int
	keys map[string]string // "db:key" -> value
	seen []string
}

func newModel() *model { return &model{keys: map[string]string{}} }

func (m *model) apply(args []string) {
	m.seen = append(m.seen, strings.ToUpper(args[0]))
	k := func(i int) string { return fmt.Sprintf("%d:%s", m.db, args[i]) }
	switch strings.ToUpper(args[0]) {
	case "SELECT":
		m.db, _ = strconv.Atoi(args[1])
	case "SET":
		m.keys[k(1)] = args[2]
	case "MSET":
		for i := 1; i+1 < len(args); i += 2 {
			m.keys[k(i)] = args[i+1]
		}
	case "INCR":
		n, _ := strconv.Atoi(m.keys[k(1)])
		m.keys[k(1)] = strconv.Itoa(n + 1)
	case "APPEND":
		m.keys[k(1)] += args[2]
	case "DEL":
		for i := 1; i < len(args); i++ {
			delete(m.keys, k(i))
		}
	}
}

func (m *model) callbacks(notes *[]string) LoadCallbacks {
	return LoadCallbacks{
		Base: func(r *bufio.Reader) error {
			return eachRDBString(r, func(db int, k, v []byte) { m.keys[fmt.Sprintf("%d:%s", db, k)] = string(v) })
		},
		Command: func(args [][]byte) error {
			s := make([]string, len(args))
			for i, a := range args {
				s[i] = string(a)
			}
			m.apply(s)
			return nil
		},
		Annotation: func(l []byte) { *notes = append(*notes, string(l)) },
	}
}

// The string keys of dbs 0 and 1 as redis-server holds them.
func redisStrings(t *testing.T, addr string) map[string]string {
	out := map[string]string{}
	for db := 0; db < 2; db++ {
		c := redis.NewClient(&redis.Options{Addr: addr, DB: db, Protocol: 2})
		ctx := context.Background()
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if c.Type(ctx, k).Val() == "string" {
				out[fmt.Sprintf("%d:%s", db, k)] = c.Get(ctx, k).Val()
			}
		}
		c.Close()
	}
	return out
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func waitRewrite(t *testing.T, c *redis.Client) {
	for i := 0; i < 500; i++ {
		info := c.Info(context.Background(), "persistence").Val()
		if strings.Contains(info, "aof_rewrite_in_progress:0") && strings.Contains(info, "aof_rewrite_scheduled:0") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("BGREWRITEAOF does not end")
}

// (a) redis-server writes an appendonlydir (a base from BGREWRITEAOF,
// RDB or AOF, incr files with SELECT, MULTI/EXEC, #TS:); Load reads it
// back to redis-server's own data.
func TestLoadRedisServerAOF(t *testing.T) {
	for _, preamble := range []string{"yes", "no"} {
		t.Run("aof-use-rdb-preamble "+preamble, func(t *testing.T) {
			dir := t.TempDir()
			p := startRedis(t, dir, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble, "--aof-timestamp-enabled", "yes")
			c := redis.NewClient(&redis.Options{Addr: p.addr, Protocol: 2})
			defer c.Close()
			ctx := context.Background()
			c.Set(ctx, "a", "1", 0)
			c.Incr(ctx, "n")
			c.Incr(ctx, "n")
			c.Set(ctx, "with space", "v\r\nx", 0)
			c.RPush(ctx, "list", "x", "y")
			c.Do(ctx, "SELECT", "1")
			if err := c.BgRewriteAOF(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			waitRewrite(t, c)
			// A new second, so the incr file gets a #TS: line too.
			time.Sleep(1100 * time.Millisecond)
			c.Set(ctx, "after", "2", 0)
			c.Append(ctx, "a", "more")
			tx := c.TxPipeline()
			tx.Incr(ctx, "n")
			tx.Set(ctx, "intx", "1", 0)
			tx.Exec(ctx)
			c1 := redis.NewClient(&redis.Options{Addr: p.addr, DB: 1, Protocol: 2})
			c1.Set(ctx, "db1key", "one", 0)
			c1.Close()
			c.Del(ctx, "with space")
			want := redisStrings(t, p.addr)
			p.stop(t)

			o := Options{Dir: dir, DirName: "appendonlydir", FileName: "appendonly.aof", Logger: quiet}
			m := newModel()
			var notes []string
			st, err := Load(o, m.callbacks(&notes))
			if err != nil {
				t.Fatal(err)
			}
			if !sameMap(m.keys, want) {
				t.Errorf("loaded %v\nredis-server had %v", m.keys, want)
			}
			seen := strings.Join(m.seen, " ")
			if !strings.Contains(seen, "MULTI INCR SET EXEC") || !strings.Contains(seen, "SELECT") {
				t.Errorf("commands seen: %s", seen)
			}
			if len(notes) == 0 || !strings.HasPrefix(notes[len(notes)-1], "#TS:") {
				t.Errorf("annotations %q", notes)
			}
			man, _ := ReadManifest(o)
			t.Logf("manifest %q, stats %+v, %d commands", formatted(t, man), st, len(m.seen))
			wantBase := ".base.aof"
			if preamble == "yes" {
				wantBase = ".base.rdb"
			}
			if man.Base == nil || !strings.HasSuffix(man.Base.Name, wantBase) || st.Files != 1+len(man.Incr) {
				t.Errorf("manifest %q, stats %+v", formatted(t, man), st)
			}
		})
	}
}

// (b) an appendonlydir this package writes — a first base at Open, incr
// files, a rewrite with an RDB or AOF base — and redis-server 7.0 starts
// on it and has the data.
func TestRedisServerLoadsOurAOF(t *testing.T) {
	for _, preamble := range []bool{true, false} {
		t.Run(fmt.Sprintf("rdb base %v", preamble), func(t *testing.T) {
			dir := t.TempDir()
			o := Options{Dir: dir, DirName: "appendonlydir", FileName: "appendonly.aof", Logger: quiet, UseRDBPreamble: preamble, TimestampEnabled: true, Fsync: FsyncAlways}
			m := newModel()
			state := map[string]string{}
			appendCmd := func(l *Log, db int, args ...string) {
				if err := l.WaitDurable(l.Append(db, propagate.AppendCommand(nil, args...))); err != nil {
					t.Fatal(err)
				}
				m.db = db
				m.apply(args)
			}
			writeBase := func(w io.Writer, kind BaseKind) error {
				for k, v := range m.keys {
					state[k] = v
				}
				if kind == BaseAOF {
					for db := 0; db < 2; db++ {
						io.WriteString(w, cmd("SELECT", strconv.Itoa(db)))
						for k, v := range m.keys {
							if strings.HasPrefix(k, strconv.Itoa(db)+":") {
								io.WriteString(w, cmd("SET", k[2:], v))
							}
						}
					}
					return nil
				}
				rw, err := rdb.NewWriter(w, rdb.WriterOptions{Checksum: true})
				if err != nil {
					return err
				}
				for db := 0; db < 2; db++ {
					rw.SelectDB(db, 0, 0)
					for k, v := range m.keys {
						if strings.HasPrefix(k, strconv.Itoa(db)+":") {
							rw.String([]byte(k[2:]), []byte(v), rdb.NewMeta())
						}
					}
				}
				return rw.Close()
			}
			l, err := Open(o, writeBase)
			if err != nil {
				t.Fatal(err)
			}
			appendCmd(l, 0, "SET", "a", "1")
			appendCmd(l, 1, "SET", "b", "in db1")
			appendCmd(l, 0, "INCR", "n")
			tx := propagate.AppendCommand(nil, "MULTI")
			tx = propagate.AppendCommand(tx, "INCR", "n")
			tx = propagate.AppendCommand(tx, "SET", "t", "x")
			tx = propagate.AppendCommand(tx, "EXEC")
			l.WaitDurable(l.Append(0, tx))
			m.apply([]string{"INCR", "n"})
			m.apply([]string{"SET", "t", "x"})
			rw, err := l.BeginRewrite()
			if err != nil {
				t.Fatal(err)
			}
			if err := rw.WriteBase(writeBase); err != nil {
				t.Fatal(err)
			}
			appendCmd(l, 1, "SET", "c", "after rewrite")
			if err := rw.Commit(); err != nil {
				t.Fatal(err)
			}
			appendCmd(l, 0, "DEL", "a")
			appendCmd(l, 0, "SET", "d", "last")
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			man, _ := ReadManifest(o)
			t.Logf("manifest %q", formatted(t, man))

			p := startRedis(t, dir, "--appendonly", "yes", "--aof-use-rdb-preamble", map[bool]string{true: "yes", false: "no"}[preamble])
			got := redisStrings(t, p.addr)
			if !sameMap(got, m.keys) {
				t.Errorf("redis-server loaded %v\nwant %v\nlog:\n%s", got, m.keys, p.logText())
			}
			if !strings.Contains(p.logText(), "DB loaded from append only file") && !strings.Contains(p.logText(), "DB loaded from incr file") {
				t.Errorf("log:\n%s", p.logText())
			}
			// redis-server goes on appending to our last incr file, and its
			// own rewrite continues our sequence numbers.
			c := redis.NewClient(&redis.Options{Addr: p.addr, Protocol: 2})
			c.Set(context.Background(), "from", "redis", 0)
			c.BgRewriteAOF(context.Background())
			waitRewrite(t, c)
			c.Close()
			p.stop(t)
			man2, _ := ReadManifest(o)
			if man2.BaseSeq != man.BaseSeq+1 || strings.Contains(formatted(t, man2), " type h") {
				t.Errorf("after redis-server's rewrite: %q", formatted(t, man2))
			}
		})
	}
}

// A directory made by Enable (appendonly turned on at run time) and its
// first rewrite loads in redis-server 7.0; a stray incr file a crash left
// before its manifest is overwritten, not appended to.
func TestRedisServerLoadsEnabledAOF(t *testing.T) {
	dir := t.TempDir()
	o := Options{Dir: dir, DirName: "appendonlydir", FileName: "appendonly.aof", Logger: quiet, UseRDBPreamble: true}
	os.MkdirAll(o.dirPath(), 0o755)
	os.WriteFile(o.path("appendonly.aof.1.incr.aof"), []byte("garbage"), 0o644)
	l, rw, err := Enable(o)
	if err != nil {
		t.Fatal(err)
	}
	l.Append(0, propagate.AppendCommand(nil, "SET", "later", "x"))
	if err := rw.WriteBase(func(w io.Writer, _ BaseKind) error {
		rw, err := rdb.NewWriter(w, rdb.WriterOptions{Checksum: true})
		if err != nil {
			return err
		}
		rw.SelectDB(0, 1, 0)
		rw.String([]byte("snap"), []byte("y"), rdb.NewMeta())
		return rw.Close()
	}); err != nil {
		t.Fatal(err)
	}
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	l.Append(1, propagate.AppendCommand(nil, "SET", "db1", "z"))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	p := startRedis(t, dir, "--appendonly", "yes")
	got := redisStrings(t, p.addr)
	want := map[string]string{"0:snap": "y", "0:later": "x", "1:db1": "z"}
	if !sameMap(got, want) {
		t.Errorf("redis-server loaded %v, want %v\n%s", got, want, p.logText())
	}
	p.stop(t)
}
