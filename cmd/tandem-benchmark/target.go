package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// Target is one server a run drives.
type Target struct {
	Name     string // as tables and charts name it
	Addr     string // loopback host:port
	Protocol string // resp, memcache, meta, binary
	// Pid is the server's process, for its CPU time and RSS (0: unknown,
	// no such figures).
	Pid int
	// NoVerify: the target's values are not the ones written (the null
	// server answers every GET with fixed bytes); hits are counted, not
	// checked.
	NoVerify bool
}

// parseTargets parses --server: comma-separated [name=]host:port, each
// optionally followed by /protocol. A target without a name is named by
// its address; one named null is not verified.
func parseTargets(list, protocol string) ([]Target, error) {
	var out []Target
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		t := Target{Protocol: protocol}
		name, addr, named := strings.Cut(f, "=")
		if !named {
			addr = name
		}
		if a, p, ok := strings.Cut(addr, "/"); ok {
			addr, t.Protocol = a, p
		}
		if _, err := benchkit.CodecFor(t.Protocol); err != nil {
			return nil, fmt.Errorf("--server %q: %v", f, err)
		}
		resolved, err := benchkit.LoopbackAddr(addr)
		if err != nil {
			return nil, fmt.Errorf("--server %q: %v", f, err)
		}
		t.Addr = resolved
		t.Name = addr
		if named {
			t.Name = name
		}
		t.NoVerify = t.Name == "null"
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--server %q: no target", list)
	}
	return out, nil
}

// findPid asks a target for its process id (INFO process_id, memcached
// stats pid) and keeps it if this machine has such a process: its CPU
// time and RSS are then sampled during the run.
func findPid(t *Target) {
	var pid string
	if t.Protocol == "resp" {
		c, err := benchkit.Dial(t.Addr, 5*time.Second)
		if err != nil {
			return
		}
		defer c.Close()
		if m, err := c.Info("server"); err == nil {
			pid = m["process_id"]
		}
	} else {
		c, err := benchkit.DialMemcached(t.Addr, 5*time.Second)
		if err != nil {
			return
		}
		defer c.Close()
		if m, err := c.Stats(); err == nil {
			pid = m["pid"]
		}
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return
	}
	if _, err := os.Stat("/proc/" + pid); err == nil {
		t.Pid = n
	}
}
