package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// serverSpec says how to start one kind of server.
type serverSpec struct {
	name string // "redis" or "tandem"
	bin  string
	// args returns the command line for a Redis-protocol port, a spare port
	// (Tandem's memcached port), a data directory, a policy and a bound.
	args func(port, port2 int, dir, policy string, maxmemory int64) []string
}

func redisSpec(bin string) serverSpec {
	return serverSpec{name: "redis", bin: bin, args: func(port, _ int, dir, policy string, maxmemory int64) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", dir, "--daemonize", "no",
			"--maxmemory-policy", policy, "--maxmemory", strconv.FormatInt(maxmemory, 10)}
	}}
}

func tandemSpec(bin string) serverSpec {
	return serverSpec{name: "tandem", bin: bin, args: func(port, port2 int, dir, policy string, maxmemory int64) []string {
		a := []string{"--port", strconv.Itoa(port), "--memcached-port", strconv.Itoa(port2), "--bind", "127.0.0.1",
			"--save", "", "--dir", dir}
		if policy != "" {
			a = append(a, "--maxmemory-policy", policy)
		}
		return append(a, "--maxmemory", strconv.FormatInt(maxmemory, 10))
	}}
}

// server is one running server process.
type server struct {
	spec serverSpec
	proc *benchkit.Process
	addr string
	log  string
	dir  string
}

// start runs a server with policy and maxmemory (0 = unbounded) in a new
// directory under work, and waits until it answers PING. A port taken
// between the choice and the bind is retried.
func start(spec serverSpec, work, policy string, maxmemory int64) (*server, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := startOnce(spec, work, policy, maxmemory)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "in use") {
			break
		}
	}
	return nil, lastErr
}

func startOnce(spec serverSpec, work, policy string, maxmemory int64) (*server, error) {
	port, err := benchkit.FreePort()
	if err != nil {
		return nil, err
	}
	port2, err := benchkit.FreePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(work, spec.name+"-")
	if err != nil {
		return nil, err
	}
	s := &server{spec: spec, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir,
		log: filepath.Join(dir, "server.log")}
	logf, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(spec.bin, spec.args(port, port2, dir, policy, maxmemory)...)
	cmd.Dir = dir
	if s.proc, err = benchkit.Start(cmd, logf); err != nil {
		return nil, fmt.Errorf("%s: %v", spec.name, err)
	}
	switch err := s.proc.WaitPONG(s.addr, time.Now().Add(15*time.Second), 20*time.Millisecond); err {
	case nil:
		return s, nil
	case benchkit.ErrExited:
		return nil, fmt.Errorf("%s %s exited at start: %s", spec.name, strings.Join(cmd.Args[1:], " "), s.logTail())
	default:
		s.stop()
		return nil, fmt.Errorf("%s did not answer PING on %s within 15s: %s", spec.name, s.addr, s.logTail())
	}
}

// logTail returns the end of the server's log, for error messages.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.log)
	t := strings.TrimSpace(string(b))
	if len(t) > 600 {
		t = "…" + t[len(t)-600:]
	}
	if t == "" {
		return "(empty log)"
	}
	return t
}

// stop ends the process (SIGTERM, then SIGKILL after 5 s) and removes its
// directory.
func (s *server) stop() {
	s.proc.Stop(5 * time.Second)
	os.RemoveAll(s.dir)
}

// calibration is the memory a server needs to hold a number of keys.
type calibration struct {
	Keys      int
	Baseline  int64 // used_memory of the empty server, this client connected
	Used      int64 // used_memory holding Keys keys
	BytesPer  float64
	MaxMemory int64 // the bound given to the measured server: Used
}

// calibrate loads keys keys (ids 0..keys-1, the workload's TTL keys with a
// TTL of an hour so none expires meanwhile) into an unbounded server of the
// same kind and policy, and reads used_memory before and after. The bound
// for the measured run is the used_memory with those keys loaded — the
// baseline (server structures, this client's buffers) plus keys × the
// per-key footprint — so that every server and policy holds about the same
// number of keys at the bound. Measuring at the cache's own key count, not
// at a large N scaled down, includes what grows in steps (Redis's hash
// table doubles) as it is at that size.
func calibrate(spec serverSpec, work, policy string, keys int, w *workload, ks *keyspace, cfg replayConfig) (calibration, error) {
	cal := calibration{Keys: keys}
	s, err := start(spec, work, policy, 0)
	if err != nil {
		return cal, err
	}
	defer s.stop()
	c, err := benchkit.Dial(s.addr, 30*time.Second)
	if err != nil {
		return cal, err
	}
	defer c.Close()
	if _, err := c.Do("FLUSHALL"); err != nil {
		return cal, err
	}
	// Keys are loaded in chunks shaped like the run's largest batch (depth
	// SETs, then depth GETs of those keys), and the baseline is read after
	// one such chunk and a FLUSHALL: the connection's query and reply
	// buffers are then the same size at the baseline, after the load and in
	// the run, and do not count as keys.
	var out, key, val []byte
	loadChunk := func(from, to int) error {
		out = out[:0]
		for k := from; k < to; k++ {
			key = appendKey(key[:0], uint32(k))
			val = appendValue(val[:0], uint32(k), cfg.valueSize)
			if ks.ttlKey(w, uint32(k)) {
				out = benchkit.AppendCommand(out, []byte("SET"), key, val, []byte("PX"), []byte("3600000"))
			} else {
				out = benchkit.AppendCommand(out, []byte("SET"), key, val)
			}
		}
		for k := from; k < to; k++ {
			key = appendKey(key[:0], uint32(k))
			out = benchkit.AppendCommand(out, []byte("GET"), key)
		}
		err := c.Pipeline(out, 2*(to-from))
		var re benchkit.ReplyErr
		if errors.As(err, &re) {
			return errors.New("calibration: " + err.Error())
		}
		return err
	}
	if err := loadChunk(0, min(cfg.depth, keys)); err != nil {
		return cal, err
	}
	if _, err := c.Do("FLUSHALL"); err != nil {
		return cal, err
	}
	if cal.Baseline, err = c.InfoInt("memory", "used_memory"); err != nil {
		return cal, err
	}
	for from := 0; from < keys; from += cfg.depth {
		if err := loadChunk(from, min(from+cfg.depth, keys)); err != nil {
			return cal, err
		}
	}
	r, err := c.Do("DBSIZE")
	if err != nil {
		return cal, err
	}
	if r.Int != int64(keys) {
		return cal, fmt.Errorf("calibration: DBSIZE %d after loading %d keys", r.Int, keys)
	}
	// Redis grows its hash table by allocating the doubled table and
	// rehashing incrementally: until that ends both tables are counted.
	// Wait (serverCron rehashes a millisecond every 100 ms) until
	// used_memory stops moving.
	if cal.Used, err = c.InfoInt("memory", "used_memory"); err != nil {
		return cal, err
	}
	for i, same := 0, 0; i < 40 && same < 3; i++ {
		time.Sleep(100 * time.Millisecond)
		u, err := c.InfoInt("memory", "used_memory")
		if err != nil {
			return cal, err
		}
		if u == cal.Used {
			same++
		} else {
			same = 0
		}
		cal.Used = u
	}
	cal.BytesPer = float64(cal.Used-cal.Baseline) / float64(keys)
	cal.MaxMemory = cal.Used
	return cal, nil
}
