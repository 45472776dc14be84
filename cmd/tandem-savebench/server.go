package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// server is one Tandem or redis-server process with its dump directory.
type server struct {
	kind    string // "tandem" or "redis"
	bin     string
	dir     string
	port    int
	logPath string
	proc    *benchkit.Process
	started time.Time
	extra   []string // more arguments
}

func (s *server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

func (s *server) pid() int { return s.proc.Pid() }

// args is the command line: no save rules (the benchmark says when to
// save), no AOF, no eviction, the dump in dir.
func (s *server) args() []string {
	return append(s.baseArgs(), s.extra...)
}

func (s *server) baseArgs() []string {
	port := strconv.Itoa(s.port)
	if s.kind == "tandem" {
		return []string{"--port", port, "--memcached-port", "0", "--bind", "127.0.0.1", "--save", "",
			"--dir", s.dir, "--dbfilename", "dump.rdb", "--maxmemory", "0", "--maxmemory-policy", "noeviction"}
	}
	return []string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--dbfilename", "dump.rdb", "--daemonize", "no", "--maxmemory", "0"}
}

// start starts the process (its output appended to the log) and waits
// until it answers PING with PONG — not LOADING: redis-server accepts
// connections while it loads a dump, Tandem only after.
func (s *server) start(timeout time.Duration) error {
	if s.port == 0 {
		p, err := benchkit.FreePort()
		if err != nil {
			return err
		}
		s.port = p
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, s.args()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	s.started = time.Now()
	if s.proc, err = benchkit.Start(cmd, logf); err != nil {
		return fmt.Errorf("starting %s: %w", s.kind, err)
	}
	switch err := s.proc.WaitPONG(s.addr(), s.started.Add(timeout), 2*time.Millisecond); err {
	case nil:
		return nil
	case benchkit.ErrExited:
		return fmt.Errorf("%s exited while starting; see %s", s.kind, s.logPath)
	default:
		s.stop()
		return fmt.Errorf("%s did not answer PING within %v; see %s", s.kind, timeout, s.logPath)
	}
}

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

// stop ends the process with SIGTERM (neither server saves then: there
// are no save rules), SIGKILL after a while.
func (s *server) stop() {
	if s.proc == nil {
		return
	}
	s.proc.Stop(30 * time.Second)
}

var (
	redisLoadedRe  = regexp.MustCompile(`DB loaded from disk: ([0-9.]+) seconds`)
	tandemLoadedRe = regexp.MustCompile(`msg="DB loaded from disk".* seconds=([0-9.e+-]+)`)
)

// loadSecondsFromLog returns the seconds the last "DB loaded from disk" log
// line reports, or -1.
func (s *server) loadSecondsFromLog() float64 {
	b, err := os.ReadFile(s.logPath)
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

func (s *server) dumpPath() string { return filepath.Join(s.dir, "dump.rdb") }

// ---- memory ----

// vmRSS returns a process's VmRSS in bytes (0 if it is gone).
func vmRSS(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fs := strings.Fields(v)
			if len(fs) == 0 {
				return 0
			}
			kb, _ := strconv.ParseInt(fs[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// children returns the pids of a process's children (redis-server's
// BGSAVE child), from /proc/<pid>/task/*/children.
func children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// sample is one RSS reading: the server's own, and its children's summed.
type sample struct {
	at       time.Time
	parent   int64
	children int64
}

func (s sample) total() int64 { return s.parent + s.children }

// sampler reads RSS every period until stopped.
type sampler struct {
	mu      sync.Mutex
	samples []sample
	quit    chan struct{}
	done    chan struct{}
}

func startSampler(pid int, period time.Duration) *sampler {
	sm := &sampler{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(sm.done)
		t := time.NewTicker(period)
		defer t.Stop()
		take := func() {
			s := sample{at: time.Now(), parent: vmRSS(pid)}
			for _, c := range children(pid) {
				s.children += vmRSS(c)
			}
			sm.mu.Lock()
			sm.samples = append(sm.samples, s)
			sm.mu.Unlock()
		}
		for {
			take()
			select {
			case <-sm.quit:
				take() // one at the moment it stops
				return
			case <-t.C:
			}
		}
	}()
	return sm
}

func (sm *sampler) stop() []sample {
	close(sm.quit)
	<-sm.done
	return sm.samples
}

// between returns the samples taken in [from, to].
func between(ss []sample, from, to time.Time) []sample {
	var out []sample
	for _, s := range ss {
		if !s.at.Before(from) && !s.at.After(to) {
			out = append(out, s)
		}
	}
	return out
}

var errNoSamples = errors.New("no RSS samples")
