package compat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestPublishReachesReplicas: a PUBLISH on a master reaches the
// subscribers of its replica, as Redis 7.0 propagates it to replicas
// (publishCommand's PROPAGATE_REPL) — whichever of Tandem and
// redis-server is the master and the replica — and neither the master's
// AOF nor a Tandem replica's keeps it.
func TestPublishReachesReplicas(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	mustNotSelfTest(t)
	type side struct {
		name  string
		start func(t *testing.T, dir, name string, extra ...string) *server
	}
	tandem := side{"tandem", func(t *testing.T, dir, name string, extra ...string) *server {
		return startFor(t, dir, name, 2, tandemArgs(dir, append([]string{"--appendonly", "yes"}, extra...)...))
	}}
	redisSide := side{"redis", func(t *testing.T, dir, name string, extra ...string) *server {
		return startFor(t, dir, name, 1, redisArgsIn(dir, extra...))
	}}
	for _, pair := range [][2]side{{tandem, redisSide}, {redisSide, tandem}, {tandem, tandem}} {
		master, replica := pair[0], pair[1]
		t.Run(replica.name+" replica of "+master.name, func(t *testing.T) {
			mdir, rdir := t.TempDir(), t.TempDir()
			m := master.start(t, mdir, master.name+"-pub-master")
			host, port, _ := strings.Cut(m.addrs[0], ":")
			r := replica.start(t, rdir, replica.name+"-pub-replica", "--replicaof", host, port)
			mc, rc := client(m.addrs[0]), client(r.addrs[0])
			defer mc.Close()
			defer rc.Close()
			waitInSync(t, rc, mc)
			ctx := context.Background()
			sub := rc.Subscribe(ctx, "news")
			defer sub.Close()
			if _, err := sub.Receive(ctx); err != nil { // the subscribe confirmation
				t.Fatal(err)
			}
			mc.Set(ctx, "k", "v", 0)
			// In another database and inside a transaction too: the
			// replica follows the SELECT and the MULTI … EXEC around it.
			mc3 := redis.NewClient(&redis.Options{Addr: m.addrs[0], DB: 3, Protocol: 2})
			defer mc3.Close()
			if err := mc3.Publish(ctx, "news", "hello").Err(); err != nil {
				t.Fatal(err)
			}
			if _, err := mc.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "k2", "v2", 0)
				p.Publish(ctx, "news", "in multi")
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"hello", "in multi"} {
				msg, err := sub.ReceiveTimeout(ctx, 5*time.Second)
				if err != nil {
					t.Fatalf("waiting for %q on the replica: %v", want, err)
				}
				if m, ok := msg.(*redis.Message); !ok || m.Channel != "news" || m.Payload != want {
					t.Fatalf("the replica's subscriber got %#v, want %q on news", msg, want)
				}
			}
			waitInSync(t, rc, mc)
			if v, _ := rc.Get(ctx, "k2").Result(); v != "v2" {
				t.Errorf("the write beside the PUBLISH in MULTI: %q on the replica", v)
			}
			for _, s := range []struct {
				side side
				dir  string
			}{{master, mdir}, {replica, rdir}} {
				if s.side.name != "tandem" {
					continue
				}
				aof := readAOF(t, s.dir)
				for deadline := time.Now().Add(5 * time.Second); !strings.Contains(aof, "k2") && time.Now().Before(deadline); {
					time.Sleep(50 * time.Millisecond) // appendfsync everysec: written within a second
					aof = readAOF(t, s.dir)
				}
				if strings.Contains(strings.ToLower(aof), "publish") || !strings.Contains(aof, "k2") {
					t.Errorf("Tandem's AOF (%s) should hold the writes and no PUBLISH:\n%q", s.dir, aof)
				}
			}
		})
	}
}

// readAOF is every file of dir's appendonlydir, concatenated.
func readAOF(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.aof"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no AOF in %s: %v", dir, err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}
