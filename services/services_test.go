package services_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/memproto"
	"github.com/tandemkv/tandem/pubsub"
	"github.com/tandemkv/tandem/server/servertest"
	"github.com/tandemkv/tandem/services"
)

// collector is a pub/sub subscriber that keeps what it receives.
type collector struct {
	mu   sync.Mutex
	msgs []string // channel " " payload
}

func (c *collector) Deliver(m *pubsub.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, string(m.Channel)+" "+string(m.Payload))
}

// memcachedOnly is a memcached front-end over fresh services with no Redis
// front-end at all, and one of its sessions.
func memcachedOnly(t *testing.T, args ...string) (*services.Services, session) {
	t.Helper()
	cfg, err := conf.Load(append([]string{"--dir", t.TempDir()}, args...), nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := services.New(services.Options{Config: cfg})
	fe := memproto.New(memproto.Options{Services: svc, Version: "test"})
	return svc, fe.NewSession(servertest.NewPeer("127.0.0.1:11211"))
}

type session = interface {
	Serve(in, out []byte) (consumed int, reply []byte, closeAfter bool)
}

func send(t *testing.T, s session, in string) string {
	t.Helper()
	n, out, _ := s.Serve([]byte(in), nil)
	if n != len(in) {
		t.Fatalf("consumed %d of %d bytes of %q", n, len(in), in)
	}
	return string(out)
}

// A memcached write publishes Redis's keyspace notifications although no
// Redis front-end exists: the sink and notify-keyspace-events belong to
// the shared services.
func TestMemcachedNotifiesWithoutRedisFrontend(t *testing.T) {
	svc, s := memcachedOnly(t, "--notify-keyspace-events", "KEA")
	var c collector
	svc.Hub.Subscribe(&c, pubsub.Pattern, []byte("*"))
	if got := send(t, s, "set k 0 0 1\r\nv\r\n"); got != "STORED\r\n" {
		t.Fatalf("set: %q", got)
	}
	want := []string{"__keyspace@0__:k set", "__keyevent@0__:set k"}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.msgs) != len(want) || c.msgs[0] != want[0] || c.msgs[1] != want[1] {
		t.Fatalf("messages %q, want %q", c.msgs, want)
	}
	// CONFIG SET reaches the engine through the services' one follower.
	if err := svc.Config.Set([2]string{"notify-keyspace-events", ""}); err != nil {
		t.Fatal(err)
	}
	c.msgs = nil
	c.mu.Unlock()
	send(t, s, "set k 0 0 1\r\nw\r\n")
	c.mu.Lock()
	if len(c.msgs) != 0 {
		t.Fatalf("notifications after disabling them: %q", c.msgs)
	}
}

// A memcached item is saved to the dump and loaded back by the services'
// snapshot manager, with no Redis front-end built.
func TestMemcachedPersistsWithoutRedisFrontend(t *testing.T) {
	svc, s := memcachedOnly(t)
	if got := send(t, s, "set k 7 0 5\r\nhello\r\n"); got != "STORED\r\n" {
		t.Fatalf("set: %q", got)
	}
	if err := svc.Persist.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(svc.Config.Dir(), svc.Config.DBFilename())); err != nil {
		t.Fatal(err)
	}
	again := services.New(services.Options{Config: svc.Config, Engine: engine.New(engine.Options{})})
	res, err := again.Persist.Load()
	if err != nil || res.Loaded != 1 {
		t.Fatalf("load: %+v %v", res, err)
	}
	fe := memproto.New(memproto.Options{Services: again, Version: "test"})
	s2 := fe.NewSession(servertest.NewPeer("127.0.0.1:11211"))
	if got := send(t, s2, "get k\r\n"); got != "VALUE k 7 5\r\nhello\r\nEND\r\n" {
		t.Fatalf("get after load: %q", got)
	}
}

// maxmemory and the compression directives have one follower each, in
// services: CONFIG SET reaches the engine without any front-end.
func TestConfigFollowers(t *testing.T) {
	cfg := conf.Default()
	var process []int64
	svc := services.New(services.Options{Config: cfg, ProcessMemory: func(n int64) { process = append(process, n) }})
	for _, kv := range [][2]string{{"maxmemory", "10mb"}, {"maxmemory-policy", "allkeys-lru"}, {"compression", "zstd"}} {
		if err := cfg.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	if want, _ := engine.ParsePolicy("allkeys-lru"); svc.Engine.Policy() != want {
		t.Errorf("policy %v, want allkeys-lru", svc.Engine.Policy())
	}
	if got := svc.Engine.Compression().Codec; got != engine.CodecZstd {
		t.Errorf("codec %v", got)
	}
	if len(process) != 1 || process[0] != 10<<20 {
		t.Errorf("process memory told %v, want [10 MiB] once", process)
	}
}
