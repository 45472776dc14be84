package memkey

import (
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// server is one started Tandem, redis-server or memcached.
type server struct {
	*benchkit.Server
	kind string // "tandem", "redis", "memcached"
}

// respAddr is where INFO and DBSIZE go (Tandem, redis-server).
func (s *server) respAddr() string { return s.Addr() }

// mcAddr is the memcached port (memcached, Tandem).
func (s *server) mcAddr() string { return s.MemcachedAddr() }

func (s *server) pid() int { return s.Pid() }

// startServer starts a fresh server: loopback only, no saving, nothing
// evicted (Tandem maxmemory 0, memcached -m mcMB), and waits until it
// answers on each of its ports.
func startServer(kind, bin, dir, logPath string, mcMB int, timeout time.Duration) (*server, error) {
	spec := benchkit.Spec{Kind: benchkit.Kind(kind), Bin: bin, Dir: dir, LogPath: logPath, Ready: timeout, Grace: 20 * time.Second}
	switch spec.Kind {
	case benchkit.Tandem:
		spec.MemcachedPort = true
		spec.Args = []string{"--maxmemory", "0"}
	case benchkit.Memcached:
		spec.MemcachedMB, spec.Threads = mcMB, 2
	}
	s, err := benchkit.Launch(spec)
	if err != nil {
		return nil, err
	}
	return &server{Server: s, kind: kind}, nil
}
