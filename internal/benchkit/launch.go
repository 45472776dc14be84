package benchkit

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The one way the benchmarks start a server: Tandem, redis-server,
// memcached or the null server, on free loopback ports, with no
// persistence, optionally pinned to CPUs, its output in a log; Launch
// returns once it answers.

// Kind is a kind of server Launch can start.
type Kind string

const (
	Tandem    Kind = "tandem"
	Redis     Kind = "redis"
	Memcached Kind = "memcached"
	// Null is tandem-benchmark's null server (tandem-benchmark null): the
	// network floor on Tandem's event loop.
	Null Kind = "null"
)

// Spec says how to start one server.
type Spec struct {
	Kind Kind
	Bin  string // the binary; for Null the tandem-benchmark executable
	// Dir is the server's working and data directory (created). The log
	// is Dir/<kind>.log unless LogPath is set.
	Dir     string
	LogPath string
	// MemcachedPort opens Tandem's memcached port as well.
	MemcachedPort bool
	// Args are appended to the base command line (see args).
	Args []string
	Env  []string
	// CPUs pins the server with taskset -c CPUs ("" leaves it free).
	CPUs string
	// Threads is memcached's -t, and GOMAXPROCS of Tandem and the null
	// server (0: their default).
	Threads int
	// MemcachedMB is memcached's -m (0: 1024).
	MemcachedMB int
	// Ready bounds the wait for the first answer (0: 15 s); Poll is the
	// interval between tries (0: 5 ms).
	Ready, Poll time.Duration
	// Grace is how long Stop waits after SIGTERM before SIGKILL (0: 10 s).
	Grace time.Duration
}

// Server is a started server.
type Server struct {
	Spec
	Port    int // the RESP port (memcached's own for Memcached)
	MCPort  int // Tandem's memcached port, 0 if not opened
	Proc    *Process
	Started time.Time // when the process was started (Restart updates it)
}

func loopbackAddr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// Addr is where the server speaks its main protocol: RESP, or the
// memcached protocol for Memcached.
func (s *Server) Addr() string { return loopbackAddr(s.Port) }

// MemcachedAddr is the memcached-protocol port: memcached's own, Tandem's
// memcached port; "" for a server without one.
func (s *Server) MemcachedAddr() string {
	switch {
	case s.Kind == Memcached:
		return loopbackAddr(s.Port)
	case s.MCPort > 0:
		return loopbackAddr(s.MCPort)
	}
	return ""
}

// Pid is the server process's id.
func (s *Server) Pid() int { return s.Proc.Pid() }

// args is the command line after the binary: loopback only, nothing
// saved, then s.Args.
func (s *Server) args() []string {
	port := strconv.Itoa(s.Port)
	var a []string
	switch s.Kind {
	case Tandem:
		a = []string{"--port", port, "--memcached-port", strconv.Itoa(s.MCPort), "--bind", "127.0.0.1", "--save", "", "--dir", s.Dir}
	case Redis:
		a = []string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", s.Dir, "--daemonize", "no"}
	case Memcached:
		mb := s.MemcachedMB
		if mb == 0 {
			mb = 1024
		}
		// -B auto (memcached's default, said here): each connection's
		// first byte picks text or binary, as on Tandem's memcached port.
		a = []string{"-p", port, "-l", "127.0.0.1", "-U", "0", "-m", strconv.Itoa(mb), "-c", "4096", "-B", "auto"}
		if s.Threads > 0 {
			a = append(a, "-t", strconv.Itoa(s.Threads))
		}
		if os.Geteuid() == 0 {
			a = append(a, "-u", "root") // memcached refuses to run as root without -u
		}
	case Null:
		a = []string{"null", "-p", port}
	}
	return append(a, s.Args...)
}

// Launch starts a server and waits until it answers: PING with PONG on a
// RESP port (not LOADING: redis-server accepts connections while it loads
// a dump), version on a memcached port (Tandem's too). A port taken
// between its choice and the bind is retried with new ports.
func Launch(spec Spec) (*Server, error) {
	if spec.Dir == "" {
		return nil, errors.New("launch: no directory")
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return nil, err
	}
	if spec.LogPath == "" {
		spec.LogPath = filepath.Join(spec.Dir, string(spec.Kind)+".log")
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		s := &Server{Spec: spec}
		ports, perr := FreePorts(2)
		if perr != nil {
			return nil, perr
		}
		s.Port = ports[0]
		if spec.Kind == Tandem && spec.MemcachedPort {
			s.MCPort = ports[1]
		}
		if err = s.start(); err == nil {
			return s, nil
		}
		if !strings.Contains(s.LogTail(2000), "in use") {
			break
		}
	}
	return nil, err
}

// Restart stops the server and starts it again on the same ports and
// directory (a snapshot benchmark's load on start).
func (s *Server) Restart() error {
	s.Stop()
	return s.start()
}

func (s *Server) start() error {
	logf, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	argv := append([]string{s.Bin}, s.args()...)
	if s.CPUs != "" {
		argv = append([]string{"taskset", "-c", s.CPUs}, argv...)
	}
	fmt.Fprintf(logf, "# %q\n", argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	if s.Threads > 0 && s.Kind != Memcached && s.Kind != Redis {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(s.Threads))
	}
	// The server dies with the benchmark, however the benchmark ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	s.Started = time.Now()
	if s.Proc, err = Start(cmd, logf); err != nil {
		return fmt.Errorf("starting %s: %w", s.Kind, err)
	}
	ready, poll := s.Ready, s.Poll
	if ready == 0 {
		ready = 15 * time.Second
	}
	if poll == 0 {
		poll = 5 * time.Millisecond
	}
	deadline := s.Started.Add(ready)
	if s.Kind != Memcached {
		switch err := s.Proc.WaitPONG(s.Addr(), deadline, poll); err {
		case nil:
		case ErrExited:
			return fmt.Errorf("%s exited while starting: %s", s.Kind, s.LogTail(600))
		default:
			s.Stop()
			return fmt.Errorf("%s did not answer PING on %s within %v: %s", s.Kind, s.Addr(), ready, s.LogTail(600))
		}
	}
	if mc := s.MemcachedAddr(); mc != "" {
		if err := s.waitVersion(mc, deadline, poll); err != nil {
			s.Stop()
			return err
		}
	}
	return nil
}

// waitVersion polls a memcached port until it answers version.
func (s *Server) waitVersion(addr string, deadline time.Time, poll time.Duration) error {
	for {
		select {
		case <-s.Proc.Done():
			return fmt.Errorf("%s exited while starting: %s", s.Kind, s.LogTail(600))
		default:
		}
		if c, err := DialMemcached(addr, time.Second); err == nil {
			_, err := c.Version()
			c.Close()
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: no answer to version on %s in time: %s", s.Kind, addr, s.LogTail(600))
		}
		time.Sleep(poll)
	}
}

// Stop ends the process (SIGTERM, SIGKILL after Grace) and waits for it.
func (s *Server) Stop() {
	if s.Proc == nil {
		return
	}
	g := s.Grace
	if g == 0 {
		g = 10 * time.Second
	}
	s.Proc.Stop(g)
}

// LogTail returns the last n bytes of the server's log, for messages.
func (s *Server) LogTail(n int) string {
	b, _ := os.ReadFile(s.LogPath)
	t := strings.TrimSpace(string(b))
	if len(t) > n {
		t = "…" + t[len(t)-n:]
	}
	if t == "" {
		return "(empty log)"
	}
	return t
}

// Version runs bin --version (memcached: -V) and returns its first line.
func Version(kind Kind, bin string) string {
	flag := "--version"
	if kind == Memcached {
		flag = "-V"
	}
	out, err := exec.Command(bin, flag).Output()
	if err != nil {
		return bin + " (version unknown)"
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// TandemBinary returns the Tandem binary to start: bin if given, else
// ./cmd/tandem built into dir/bin when run from the module root, else tandem
// on PATH.
func TandemBinary(bin, dir string) (string, error) {
	if bin != "" {
		if p, err := exec.LookPath(bin); err == nil {
			return filepath.Abs(p)
		}
		return "", fmt.Errorf("tandem binary %q not found", bin)
	}
	if _, err := os.Stat("cmd/tandem/main.go"); err == nil {
		out := filepath.Join(dir, "bin", "tandem")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/tandem")
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build ./cmd/tandem: %v\n%s", err, b)
		}
		return out, nil
	}
	p, err := exec.LookPath("tandem")
	if err != nil {
		return "", errors.New("no tandem binary: give --tandem, or run from the module root to build ./cmd/tandem")
	}
	return filepath.Abs(p)
}

// LookBinary returns the absolute path of a binary named or on PATH.
func LookBinary(bin string) (string, error) {
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%s not found (apt-get install redis-server memcached)", bin)
	}
	return filepath.Abs(p)
}
