package compat

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

// Addresses of the servers under comparison, set by TestMain.
var (
	refRedis string // real redis-server: the reference
	refMemc  string // real memcached: the reference
	sutRedis string // Tandem's RESP port (a second redis-server in self-test mode)
	sutMemc  string // Tandem's memcached port (a second memcached in self-test mode)

	selfTest = os.Getenv("COMPAT_SELFTEST") == "1"
	dumpRefs = os.Getenv("COMPAT_DUMP") == "1"

	// sutLog is the log file of Tandem, printed in part when a test fails.
	sutLog string
	// tandemBin is the Tandem binary TestMain built ("" in self-test mode);
	// tmpDir the suite's temporary directory.
	tandemBin, tmpDir string
)

const (
	replyTimeout = 5 * time.Second  // a missing reply fails the case instead of hanging
	startTimeout = 15 * time.Second // how long a server may take to accept connections
)

// Tandem may be unfinished: a reply it never sends must not cost the suite
// replyTimeout per run. After sutPatience timeouts it gets a second per
// reply; after sutGiveUp timeouts the remaining runs fail at once.
var sutTimeouts atomic.Int64

const (
	sutPatience = 3
	sutGiveUp   = 20
)

func isSUT(addr string) bool { return addr == sutRedis || addr == sutMemc }

// timeoutFor is how long to wait for a reply from addr.
func timeoutFor(addr string) time.Duration {
	if isSUT(addr) && sutTimeouts.Load() >= sutPatience {
		return time.Second
	}
	return replyTimeout
}

// noteErr counts the timeouts of the system under test.
func noteErr(addr string, err error) {
	if err != nil && isSUT(addr) && errors.Is(err, os.ErrDeadlineExceeded) {
		sutTimeouts.Add(1)
	}
}

// sutGaveUp returns an error once the system under test has timed out too often.
func sutGaveUp(addr string) error {
	if n := sutTimeouts.Load(); isSUT(addr) && n >= sutGiveUp {
		return fmt.Errorf("not run: %s stopped answering (%d timeouts)", sideName(), n)
	}
	return nil
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "tandem-compat-")
	tmpDir = tmp
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat:", err)
		return 1
	}
	var procs []*server
	defer func() {
		for _, p := range procs {
			p.stop()
		}
		if os.Getenv("COMPAT_KEEP") == "1" {
			fmt.Fprintln(os.Stderr, "compat: logs kept in", tmp)
		} else {
			os.RemoveAll(tmp)
		}
	}()
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "compat: "+format+"\n", args...)
		return 1
	}

	redisBin, err := realserver.Lookup(realserver.Redis)
	if err != nil {
		return fail("%v", err)
	}
	memcBin, err := realserver.Lookup(realserver.Memcached)
	if err != nil {
		return fail("%v", err)
	}

	start := func(name string, nports int, args func(ports []int) []string) (*server, error) {
		s, err := startServer(tmp, name, nports, args)
		if s != nil {
			procs = append(procs, s)
		}
		return s, err
	}
	redisArgs := func(bin string) func([]int) []string {
		return func(p []int) []string {
			return []string{bin, "--port", strconv.Itoa(p[0]), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--dir", tmp, "--enable-debug-command", "local"}
		}
	}
	memcArgs := memcachedArgs(memcBin)

	ref, err := start("redis-ref", 1, redisArgs(redisBin))
	if err != nil {
		return fail("%v", err)
	}
	refRedis = ref.addrs[0]
	refM, err := start("memcached-ref", 1, memcArgs)
	if err != nil {
		return fail("%v", err)
	}
	refMemc = refM.addrs[0]

	if selfTest {
		fmt.Fprintln(os.Stderr, "compat: COMPAT_SELFTEST=1: the Tandem side is a second redis-server and memcached")
		s1, err := start("redis-selftest", 1, redisArgs(redisBin))
		if err != nil {
			return fail("%v", err)
		}
		s2, err := start("memcached-selftest", 1, memcArgs)
		if err != nil {
			return fail("%v", err)
		}
		sutRedis, sutMemc = s1.addrs[0], s2.addrs[0]
	} else {
		root, err := moduleRoot()
		if err != nil {
			return fail("%v", err)
		}
		bin := filepath.Join(tmp, "tandem")
		tandemBin = bin
		build := exec.Command(goTool(), "build", "-o", bin, "./cmd/tandem")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			return fail("building ./cmd/tandem failed (set COMPAT_SELFTEST=1 to check the suite against real servers only): %v\n%s", err, out)
		}
		dataDir := filepath.Join(tmp, "tandem-data")
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return fail("%v", err)
		}
		s, err := start("tandem", 2, func(p []int) []string {
			return []string{bin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
				"--bind", "127.0.0.1", "--save", "", "--dir", dataDir,
				// Where Tandem's defaults deliberately differ from Redis's
				// (a memory bound from the machine, allkeys-s3fifo), run
				// it as redis-server runs by default.
				"--maxmemory", "0", "--maxmemory-policy", "noeviction",
				// DEBUG, for the cases of cases_server_misc_test.go.
				"--enable-debug-command", "local"}
		})
		if err != nil {
			return fail("%v", err)
		}
		sutRedis, sutMemc = s.addrs[0], s.addrs[1]
		sutLog = s.logPath
	}
	code := m.Run()
	if code != 0 && sutLog != "" {
		if b, err := os.ReadFile(sutLog); err == nil {
			lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
			if len(lines) > 40 {
				lines = lines[len(lines)-40:]
			}
			fmt.Fprintf(os.Stderr, "compat: last lines of Tandem's log (%s):\n%s\n", sutLog, strings.Join(lines, "\n"))
		}
	}
	return code
}

// server is a child process listening on one or more loopback ports.
type server struct {
	name    string
	cmd     *exec.Cmd
	addrs   []string
	logPath string
	exited  chan struct{}
}

// startServer starts a server on nports free loopback ports and waits until
// every port accepts connections. A port can be taken between choosing and
// binding it, so a server that exits early is retried on new ports.
func startServer(dir, name string, nports int, args func(ports []int) []string) (*server, error) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		ports, err := freePorts(nports)
		if err != nil {
			return nil, err
		}
		argv := args(ports)
		logPath := filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, attempt))
		logf, err := os.Create(logPath)
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			logf.Close()
			return nil, fmt.Errorf("starting %s: %v", name, err)
		}
		s := &server{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
		go func() { cmd.Wait(); logf.Close(); close(s.exited) }()
		for _, p := range ports {
			s.addrs = append(s.addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		}
		if err := s.waitReady(); err != nil {
			s.stop()
			out, _ := os.ReadFile(logPath)
			lastErr = fmt.Errorf("%s (%s) did not start: %v\n%s", name, strings.Join(argv, " "), err, out)
			continue
		}
		return s, nil
	}
	return nil, lastErr
}

func (s *server) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for _, addr := range s.addrs {
		for {
			select {
			case <-s.exited:
				return errors.New("process exited")
			default:
			}
			c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("no connection on %s after %v: %v", addr, startTimeout, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// A Redis server (Tandem's first port is its Redis port) accepts
	// connections while it loads its data and answers LOADING meanwhile:
	// it is ready once PING gets another reply.
	if strings.HasPrefix(s.name, "memcached") {
		return nil
	}
	for {
		if reply, err := pingLine(s.addrs[0]); err == nil && !strings.HasPrefix(reply, "-LOADING") {
			return nil
		}
		select {
		case <-s.exited:
			return errors.New("process exited")
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still loading after %v", s.addrs[0], startTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// pingLine sends an inline PING to addr and returns the reply's first line.
func pingLine(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func (s *server) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// moduleRoot walks up from the working directory to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// control is a long-lived connection used to reset a server between cases.
type control struct {
	mu   sync.Mutex
	addr string
	conn net.Conn
	r    *bufio.Reader
}

var controls sync.Map // addr -> *control

func controlFor(addr string) *control {
	c, _ := controls.LoadOrStore(addr, &control{addr: addr})
	return c.(*control)
}

// roundTrip writes req and reads one line of reply, redialing once if the
// connection broke.
func (c *control) roundTrip(req string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := sutGaveUp(c.addr); err != nil {
		return "", err
	}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		if c.conn == nil {
			conn, err := net.DialTimeout("tcp", c.addr, timeoutFor(c.addr))
			if err != nil {
				return "", err
			}
			c.conn, c.r = conn, bufio.NewReader(conn)
		}
		c.conn.SetDeadline(time.Now().Add(timeoutFor(c.addr)))
		if _, err := c.conn.Write([]byte(req)); err == nil {
			line, err := c.r.ReadString('\n')
			if err == nil {
				return line, nil
			}
			noteErr(c.addr, err)
			lastErr = err
			if errors.Is(err, os.ErrDeadlineExceeded) {
				c.conn.Close()
				c.conn = nil
				return "", err // a silent server will not answer a retry either
			}
		} else {
			lastErr = err
		}
		c.conn.Close()
		c.conn = nil
	}
	return "", lastErr
}

// flushRedis empties every database of the server at addr.
func flushRedis(addr string) error {
	line, err := controlFor(addr).roundTrip("*1\r\n$8\r\nFLUSHALL\r\n")
	if err != nil {
		return fmt.Errorf("FLUSHALL on %s: %v", addr, err)
	}
	if line != "+OK\r\n" {
		return fmt.Errorf("FLUSHALL on %s: %q", addr, line)
	}
	return nil
}

// flushMemc empties the memcached at addr.
func flushMemc(addr string) error {
	line, err := controlFor(addr).roundTrip("flush_all\r\n")
	if err != nil {
		return fmt.Errorf("flush_all on %s: %v", addr, err)
	}
	if line != "OK\r\n" {
		return fmt.Errorf("flush_all on %s: %q", addr, line)
	}
	return nil
}

// both runs f for the reference and for the system under test concurrently,
// so that both servers see the same timing.
func both[T any](f func(addr string) T, ref, sut string) (T, T) {
	var r, s T
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s = f(sut) }()
	r = f(ref)
	wg.Wait()
	return r, s
}

// sideName names the system under test in failure messages.
func sideName() string {
	if selfTest {
		return "selftest"
	}
	return "tandem"
}

func mustNotSelfTest(t *testing.T) {
	t.Helper()
	if selfTest {
		t.Skip("needs Tandem: in self-test mode the two protocols are separate servers")
	}
}

// memcachedArgs is the command line of a real memcached on port p[0],
// loopback only, with extra flags.
func memcachedArgs(bin string, extra ...string) func(p []int) []string {
	return func(p []int) []string {
		args := append([]string{bin, "-p", strconv.Itoa(p[0]), "-l", "127.0.0.1", "-U", "0"}, extra...)
		if os.Geteuid() == 0 {
			args = append(args, "-u", "root") // memcached refuses to run as root otherwise
		}
		return args
	}
}

// startFor starts a server of one test's own, stopped when the test ends.
func startFor(t *testing.T, dir, name string, nports int, args func([]int) []string) *server {
	t.Helper()
	s, err := startServer(dir, name, nports, args)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}
