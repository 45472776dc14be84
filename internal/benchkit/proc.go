package benchkit

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// FreePort asks the kernel for a loopback port nobody listens on.
func FreePort() (int, error) {
	ps, err := FreePorts(1)
	if err != nil {
		return 0, err
	}
	return ps[0], nil
}

// FreePorts returns n distinct loopback ports nobody listens on: all are
// held open until every one is chosen, so they differ.
func FreePorts(n int) ([]int, error) {
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Process is a started server process.
type Process struct {
	Cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// Start starts cmd with its output to logf, which is closed when the
// process exits (or at once if it does not start).
func Start(cmd *exec.Cmd, logf *os.File) (*Process, error) {
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	p := &Process{Cmd: cmd, done: make(chan struct{})}
	live.Store(p, struct{}{})
	go func() {
		cmd.Wait()
		logf.Close()
		live.Delete(p)
		close(p.done)
	}()
	return p, nil
}

// live are the processes started and not yet exited.
var live sync.Map

// StopOnSignal stops every live process (SIGTERM, SIGKILL after grace)
// when the benchmark named name is interrupted, then exits. SIGTERM lets
// a server end its own children (redis-server's BGSAVE child), which the
// parent-death signal alone would leave running.
func StopOnSignal(name string, grace time.Duration) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		live.Range(func(k, _ any) bool {
			k.(*Process).Stop(grace)
			return true
		})
		fmt.Fprintln(os.Stderr, name+": stopped by", sig)
		os.Exit(130)
	}()
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

var (
	// ErrExited is WaitPONG's error when the process exits first.
	ErrExited = errors.New("process exited")
	// ErrNotReady is WaitPONG's error when the deadline passes first.
	ErrNotReady = errors.New("no PONG in time")
)

// WaitPONG polls addr every poll until it answers PING with PONG (not
// LOADING: redis-server accepts connections while it loads a dump), the
// process exits (ErrExited) or deadline passes (ErrNotReady; the process
// is left running).
func (p *Process) WaitPONG(addr string, deadline time.Time, poll time.Duration) error {
	for {
		select {
		case <-p.done:
			return ErrExited
		default:
		}
		if c, err := Dial(addr, time.Second); err == nil {
			r, err := c.Do("PING")
			c.Close()
			if err == nil && r.String() == "PONG" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return ErrNotReady
		}
		time.Sleep(poll)
	}
}

// Stop ends the process with SIGTERM, SIGKILL after grace, and waits
// for it. It is a no-op once the process has exited.
func (p *Process) Stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.Cmd.Process.Kill()
		<-p.done
	}
}
