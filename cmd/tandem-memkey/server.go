package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// server is one started Tandem, redis-server or memcached.
type server struct {
	kind    string // "tandem", "redis", "memcached"
	bin     string
	dir     string // Tandem's and redis-server's --dir (nothing is saved)
	logPath string
	mcMB    int // memcached -m
	port    int // the RESP port; memcached's own port for memcached
	mcPort  int // Tandem's memcached port
	proc    *benchkit.Process
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// respAddr is where INFO and DBSIZE go (Tandem, redis-server).
func (s *server) respAddr() string { return loopback(s.port) }

// mcAddr is the memcached port (memcached, Tandem).
func (s *server) mcAddr() string {
	if s.kind == "memcached" {
		return loopback(s.port)
	}
	return loopback(s.mcPort)
}

func (s *server) pid() int { return s.proc.Pid() }

// args is the command line: loopback only, no saving, nothing evicted.
func (s *server) args() []string {
	port := strconv.Itoa(s.port)
	switch s.kind {
	case "tandem":
		return []string{"--port", port, "--memcached-port", strconv.Itoa(s.mcPort), "--bind", "127.0.0.1",
			"--save", "", "--dir", s.dir, "--maxmemory", "0"}
	case "redis":
		return []string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", s.dir, "--daemonize", "no"}
	}
	a := []string{"-p", port, "-l", "127.0.0.1", "-U", "0", "-m", strconv.Itoa(s.mcMB), "-t", "2"}
	if os.Geteuid() == 0 {
		a = append(a, "-u", "root") // memcached refuses to run as root without -u
	}
	return a
}

// freePorts returns n distinct free loopback ports.
func freePorts(n int) ([]int, error) {
	var ports []int
	for len(ports) < n {
		p, err := benchkit.FreePort()
		if err != nil {
			return nil, err
		}
		dup := false
		for _, q := range ports {
			dup = dup || q == p
		}
		if !dup {
			ports = append(ports, p)
		}
	}
	return ports, nil
}

// start starts the process, its output to the log, and waits until it
// answers: PING with PONG on the RESP port, version on the memcached
// port (Tandem's too).
func (s *server) start(timeout time.Duration) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	s.port, s.mcPort = ports[0], ports[1]
	if s.kind != "memcached" {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return err
		}
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	args := s.args()
	fmt.Fprintf(logf, "# %s %q\n", s.bin, args)
	cmd := exec.Command(s.bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if s.proc, err = benchkit.Start(cmd, logf); err != nil {
		return fmt.Errorf("starting %s: %w", s.kind, err)
	}
	deadline := time.Now().Add(timeout)
	if s.kind != "memcached" {
		switch err := s.proc.WaitPONG(s.respAddr(), deadline, 5*time.Millisecond); err {
		case nil:
		case benchkit.ErrExited:
			s.stop()
			return fmt.Errorf("%s exited while starting", s.kind)
		default:
			s.stop()
			return fmt.Errorf("%s did not answer PING within %v", s.kind, timeout)
		}
		if s.kind == "redis" {
			return nil
		}
	}
	if err := s.waitVersion(deadline); err != nil {
		s.stop()
		return err
	}
	return nil
}

// waitVersion polls the memcached port until it answers version.
func (s *server) waitVersion(deadline time.Time) error {
	for {
		select {
		case <-s.proc.Done():
			return fmt.Errorf("%s exited while starting", s.kind)
		default:
		}
		if c, err := benchkit.DialMemcached(s.mcAddr(), time.Second); err == nil {
			_, err := c.Version()
			c.Close()
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New(s.kind + ": no answer to version on the memcached port in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop ends the process (SIGTERM, SIGKILL after a while) and waits for
// it.
func (s *server) stop() {
	if s.proc == nil {
		return
	}
	s.proc.Stop(20 * time.Second)
}
