package savebench

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// server is one Tandem or redis-server process with its dump directory.
type server struct {
	*benchkit.Server
	kind string // "tandem" or "redis"
}

// startServer starts a server in dir with no save rules (the benchmark
// says when to save), no AOF, no eviction, the dump in dir, and waits
// until it answers PING with PONG (not LOADING: redis-server accepts
// connections while it loads a dump, Tandem only after). The poll is
// fine-grained: the time to the first PONG is a figure.
func startServer(kind, bin, dir string, extra []string, timeout time.Duration) (*server, error) {
	args := []string{"--dbfilename", "dump.rdb", "--maxmemory", "0"}
	if kind == "tandem" {
		args = append(args, "--maxmemory-policy", "noeviction")
	}
	s, err := benchkit.Launch(benchkit.Spec{Kind: benchkit.Kind(kind), Bin: bin, Dir: dir, LogPath: filepath.Join(dir, kind+".log"),
		Args: append(args, extra...), Ready: timeout, Poll: 2 * time.Millisecond, Grace: 30 * time.Second})
	if err != nil {
		return nil, err
	}
	return &server{Server: s, kind: kind}, nil
}

func (s *server) addr() string { return s.Addr() }

// dial connects to a server; every reply read extends the deadline, so
// that a pipeline is bounded reply by reply.
func dial(addr string, timeout time.Duration) (*benchkit.Conn, error) {
	c, err := benchkit.Dial(addr, timeout)
	if err != nil {
		return nil, err
	}
	c.DeadlinePerRead()
	return c, nil
}

var (
	redisLoadedRe  = regexp.MustCompile(`DB loaded from disk: ([0-9.]+) seconds`)
	tandemLoadedRe = regexp.MustCompile(`msg="DB loaded from disk".* seconds=([0-9.e+-]+)`)
)

// loadSecondsFromLog returns the seconds the last "DB loaded from disk" log
// line reports, or -1.
func (s *server) loadSecondsFromLog() float64 {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return -1
	}
	re := redisLoadedRe
	if s.kind == "tandem" {
		re = tandemLoadedRe
	}
	all := re.FindAllSubmatch(b, -1)
	if len(all) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(string(all[len(all)-1][1]), 64)
	if err != nil {
		return -1
	}
	return v
}

func (s *server) dumpPath() string { return filepath.Join(s.Dir, "dump.rdb") }

// rss is a process's VmRSS in bytes (0 if it is gone).
func rss(pid int) int64 {
	n, _ := benchkit.VmRSS(pid)
	return n
}

var errNoSamples = errors.New("no RSS samples")
