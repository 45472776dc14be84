package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// The error replies a write must get under noeviction.
const (
	respOOM = "-OOM command not allowed when used memory > 'maxmemory'."
	mcOOM   = "SERVER_ERROR out of memory storing object"
)

// Result is one protocol's run.
type Result struct {
	Protocol  string `json:"protocol"`
	Policy    string `json:"policy"`
	MaxMemory int64  `json:"maxmemory"`
	GoLimit   string `json:"go_memory_limit"` // from the server's log line
	Keys      int    `json:"keys"`
	Distinct  int    `json:"distinct"`
	ValueSize int    `json:"value_size"`
	Conns     int    `json:"conns"`
	Pipeline  int    `json:"pipeline"`

	Offered    int64   `json:"offered_bytes"`
	Seconds    float64 `json:"write_seconds"`
	OpsPerSec  float64 `json:"write_ops_per_sec"`
	MBPerSec   float64 `json:"write_mb_per_sec"`
	Stored     int64   `json:"stored"`
	OOM        int64   `json:"oom_replies"`
	Errors     int64   `json:"other_errors"`
	ServerCPU  float64 `json:"server_cpu_seconds"` // user+system of tandem during the writes
	FirstError string  `json:"first_error,omitempty"`

	Bound        int64   `json:"bound"`
	PeakRSS      int64   `json:"peak_rss_sampled"`
	HWM          int64   `json:"vmhwm"` // the kernel's own peak RSS
	EndRSS       int64   `json:"end_rss"`
	Samples      int     `json:"samples"`
	PeakUsed     int64   `json:"peak_used_memory_sampled"`
	InfoPeakUsed int64   `json:"used_memory_peak"` // INFO's
	EndUsed      int64   `json:"end_used_memory"`
	Evicted      int64   `json:"evicted_keys"`
	Frag         float64 `json:"end_rss_over_used"`

	Reads     int `json:"reads"`
	Hits      int `json:"hits"`
	Misses    int `json:"misses"`
	BadValues int `json:"bad_values"`

	Deleted      int  `json:"deleted"`        // noeviction: keys deleted to get under the bound
	WriteAfterOK bool `json:"write_after_ok"` // noeviction: a write succeeds after them

	Failures []string `json:"failures"`
}

// Run starts a tandem and runs the test over one protocol.
func Run(o Options, proto string) (*Result, error) {
	if o.Distinct <= 0 || o.Distinct > o.Keys {
		o.Distinct = o.Keys
	}
	srv, err := startServer(o)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	ctl, err := dialResp(srv.respAddr)
	if err != nil {
		return nil, err
	}
	defer ctl.close()
	maxMem, err := ctl.configInt("maxmemory")
	if err != nil {
		return nil, err
	}
	r := &Result{
		Protocol: proto, Policy: o.Policy, MaxMemory: maxMem, Keys: o.Keys, Distinct: o.Distinct, ValueSize: o.ValueSize,
		Conns: o.Conns, Pipeline: o.Pipeline, Offered: int64(o.Keys) * int64(o.ValueSize),
		Bound: int64(o.Factor*float64(maxMem)) + o.Slack,
	}
	addr := srv.respAddr
	if proto == "memcached" {
		addr = srv.mcAddr
	}

	// Sample RSS and used_memory while writing.
	mon := startMonitor(srv.cmd.Process.Pid, ctl, o.Every)
	stored := make([]atomic.Bool, o.Distinct)
	start, cpu0 := time.Now(), procCPU(srv.cmd.Process.Pid)
	ws := writeAll(o, proto, addr, stored)
	r.Seconds = time.Since(start).Seconds()
	r.ServerCPU = procCPU(srv.cmd.Process.Pid) - cpu0
	time.Sleep(3 * o.Every) // a few samples after the last write
	mon.stop()

	r.Stored, r.OOM, r.Errors, r.FirstError = ws.stored.Load(), ws.oom.Load(), ws.other.Load(), ws.firstError()
	r.OpsPerSec = float64(o.Keys) / r.Seconds
	r.MBPerSec = float64(r.Offered) / r.Seconds / (1 << 20)
	r.PeakRSS, r.PeakUsed, r.Samples = mon.peakRSS, mon.peakUsed, mon.samples
	if o.SamplesCSV != "" {
		if err := writeSamples(o.SamplesCSV, proto, mon.series); err != nil {
			return nil, err
		}
	}
	r.HWM = procStatus(srv.cmd.Process.Pid, "VmHWM:")
	r.EndRSS = procStatus(srv.cmd.Process.Pid, "VmRSS:")
	info, err := ctl.info()
	if err != nil {
		return nil, err
	}
	r.EndUsed, r.InfoPeakUsed, r.Evicted = info["used_memory"], info["used_memory_peak"], info["evicted_keys"]
	if r.EndUsed > 0 {
		r.Frag = float64(r.EndRSS) / float64(r.EndUsed)
	}
	r.GoLimit = srv.goLimit()

	// Read a sample back.
	hits, err := readBack(o, proto, addr, r, stored)
	if err != nil {
		return nil, err
	}
	if o.Policy == "noeviction" {
		if err := deleteAndWrite(o, proto, addr, ctl, r, hits, maxMem); err != nil {
			return nil, err
		}
	}
	r.check(o)
	return r, nil
}

// check fills Failures.
func (r *Result) check(o Options) {
	fail := func(f string, a ...any) { r.Failures = append(r.Failures, fmt.Sprintf(f, a...)) }
	if peak := max(r.PeakRSS, r.HWM); peak > r.Bound {
		fail("peak RSS %s exceeds the bound %s by %s", mb(peak), mb(r.Bound), mb(peak-r.Bound))
	}
	if r.Errors > 0 {
		fail("%d unexpected error replies (first: %q)", r.Errors, r.FirstError)
	}
	if o.Policy == "noeviction" {
		if distinct := int64(r.Distinct) * int64(r.ValueSize); distinct > 2*r.MaxMemory && r.OOM == 0 {
			fail("noeviction: no write was refused although %s of distinct keys were offered", mb(distinct))
		}
		if r.Hits > 0 && !r.WriteAfterOK {
			fail("noeviction: no write succeeded after deleting %d keys", r.Deleted)
		}
	} else if r.OOM > 0 {
		fail("%s: %d writes refused for memory (eviction expected)", o.Policy, r.OOM)
	}
	if r.BadValues > 0 {
		fail("%d reads returned a wrong value", r.BadValues)
	}
	if r.Hits == 0 {
		fail("no key could be read back")
	}
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// WriteText prints the result for people.
func (r *Result) WriteText(w io.Writer) {
	status := "PASS"
	if len(r.Failures) > 0 {
		status = "FAIL"
	}
	fmt.Fprintf(w, "== %s  %s  maxmemory %s  policy %s  %d keys (%d distinct) × %d B over %d conns (pipeline %d), GOMEMLIMIT %s\n",
		status, r.Protocol, mb(r.MaxMemory), r.Policy, r.Keys, r.Distinct, r.ValueSize, r.Conns, r.Pipeline, r.GoLimit)
	fmt.Fprintf(w, "   peak RSS %s sampled (%d samples), VmHWM %s, bound %s (%.0f%% of it); RSS at end %s\n",
		mb(r.PeakRSS), r.Samples, mb(r.HWM), mb(r.Bound), 100*float64(max(r.PeakRSS, r.HWM))/float64(r.Bound), mb(r.EndRSS))
	fmt.Fprintf(w, "   used_memory peak %s sampled, %s INFO used_memory_peak, %s at end; RSS/used at end %.2f; evicted_keys %d\n",
		mb(r.PeakUsed), mb(r.InfoPeakUsed), mb(r.EndUsed), r.Frag, r.Evicted)
	fmt.Fprintf(w, "   writes: %s offered in %.1f s = %.0f ops/s, %.0f MB/s, server CPU %.1f s; stored %d, OOM %d, other errors %d\n",
		mb(r.Offered), r.Seconds, r.OpsPerSec, r.MBPerSec, r.ServerCPU, r.Stored, r.OOM, r.Errors)
	fmt.Fprintf(w, "   reads: %d, hits %d, misses %d, wrong values %d", r.Reads, r.Hits, r.Misses, r.BadValues)
	if r.Policy == "noeviction" {
		fmt.Fprintf(w, "; deleted %d keys, write after delete ok: %v", r.Deleted, r.WriteAfterOK)
	}
	fmt.Fprintln(w)
	for _, f := range r.Failures {
		fmt.Fprintf(w, "   FAIL: %s\n", f)
	}
}

// ---- the server ----

type server struct {
	cmd      *exec.Cmd
	dir      string
	log      *bytes.Buffer
	logMu    *sync.Mutex
	respAddr string
	mcAddr   string
	done     chan struct{}
}

// lockedBuffer is the server's output, written by exec's copier.
type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// freePorts returns n distinct loopback ports nobody listens on (all held
// open until every one is chosen, so they differ).
func freePorts(n int) ([]int, error) {
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

func startServer(o Options) (*server, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	rp, mp := ports[0], ports[1]
	dir, err := os.MkdirTemp("", "tandem-rssbound-")
	if err != nil {
		return nil, err
	}
	args := []string{
		"--port", strconv.Itoa(rp), "--memcached-port", strconv.Itoa(mp), "--bind", "127.0.0.1",
		"--save", "", "--dir", dir, "--maxmemory", o.MaxMemory, "--maxmemory-policy", o.Policy,
	}
	args = append(args, o.ServerArgs...)
	s := &server{
		cmd: exec.Command(o.Tandem, args...), dir: dir, log: &bytes.Buffer{}, logMu: &sync.Mutex{},
		respAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(rp)),
		mcAddr:   net.JoinHostPort("127.0.0.1", strconv.Itoa(mp)),
		done:     make(chan struct{}),
	}
	s.cmd.Env = append(os.Environ(), o.Env...)
	s.cmd.Stdout = lockedBuffer{s.logMu, s.log}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.respAddr, time.Second)
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-s.done:
			s.stop()
			return nil, fmt.Errorf("tandem exited at start: %s", s.output())
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("tandem did not listen on %s: %s", s.respAddr, s.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) output() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

// goLimit is the GOMEMLIMIT the server logged.
func (s *server) goLimit() string {
	for _, line := range strings.Split(s.output(), "\n") {
		if strings.Contains(line, "GOMEMLIMIT") {
			if i := strings.Index(line, "human="); i >= 0 {
				return strings.Fields(line[i+len("human="):])[0]
			}
			if strings.Contains(line, "environment") {
				return "from the environment"
			}
		}
	}
	return "?"
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	os.RemoveAll(s.dir)
}

// ---- sampling ----

// procStatus reads a kB field of /proc/<pid>/status, in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// procCPU is the user+system CPU time of a process, in seconds (clock
// ticks of /proc/<pid>/stat, USER_HZ 100 on Linux).
func procCPU(pid int) float64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s) // f[0] is the state, field 3 of stat
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return float64(u+k) / 100
}

type monitor struct {
	quit, done chan struct{}
	peakRSS    int64
	peakUsed   int64
	samples    int
	series     []sample
}

type sample struct {
	at        time.Duration
	rss, used int64
}

func startMonitor(pid int, ctl *respConn, every time.Duration) *monitor {
	m := &monitor{quit: make(chan struct{}), done: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(m.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			sm := sample{at: time.Since(start), rss: procStatus(pid, "VmRSS:")}
			m.peakRSS = max(m.peakRSS, sm.rss)
			m.samples++
			if info, err := ctl.info(); err == nil {
				sm.used = info["used_memory"]
				m.peakUsed = max(m.peakUsed, sm.used)
			}
			m.series = append(m.series, sm)
			select {
			case <-m.quit:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *monitor) stop() { close(m.quit); <-m.done }

// writeSamples appends the series to a CSV file.
func writeSamples(name, proto string, series []sample) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, s := range series {
		fmt.Fprintf(w, "%s,%.1f,%d,%d\n", proto, s.at.Seconds(), s.rss, s.used)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ---- keys and values ----

func keyOf(i int) []byte { return []byte(fmt.Sprintf("rss:%09d", i)) }

// fillValue writes key i's value into b: its index, then a xorshift
// stream seeded by it, so a read can be checked without keeping the data.
func fillValue(b []byte, i int) {
	x := uint64(i)*0x9E3779B97F4A7C15 + 1
	for j := 0; j+8 <= len(b); j += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[j], b[j+1], b[j+2], b[j+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
		b[j+4], b[j+5], b[j+6], b[j+7] = byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56)
	}
	for j := len(b) &^ 7; j < len(b); j++ {
		b[j] = byte(i + j)
	}
	copy(b, strconv.Itoa(i)+":")
}

// ---- writing ----

type writeStats struct {
	stored, oom, other atomic.Int64
	mu                 sync.Mutex
	first              string
}

func (w *writeStats) fail(msg string) {
	w.other.Add(1)
	w.mu.Lock()
	if w.first == "" {
		w.first = msg
	}
	w.mu.Unlock()
}

func (w *writeStats) firstError() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

// writeAll writes every key, connection c taking keys c, c+conns, ...
func writeAll(o Options, proto, addr string, stored []atomic.Bool) *writeStats {
	ws := &writeStats{}
	var wg sync.WaitGroup
	for c := 0; c < o.Conns; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				ws.fail(err.Error())
				return
			}
			defer conn.Close()
			bw := bufio.NewWriterSize(conn, 64<<10)
			br := bufio.NewReaderSize(conn, 64<<10)
			val := make([]byte, o.ValueSize)
			batch := make([]int, 0, o.Pipeline)
			for i := c; i < o.Keys || len(batch) > 0; i += o.Conns {
				if i < o.Keys {
					k := i % o.Distinct
					fillValue(val, k)
					writeSet(bw, proto, keyOf(k), val)
					batch = append(batch, k)
					if len(batch) < o.Pipeline && i+o.Conns < o.Keys {
						continue
					}
				}
				if err := bw.Flush(); err != nil {
					ws.fail(err.Error())
					return
				}
				for _, k := range batch {
					line, err := readLine(br)
					switch {
					case err != nil:
						ws.fail(err.Error())
						return
					case line == "+OK" || line == "STORED":
						ws.stored.Add(1)
						stored[k].Store(true)
					case line == respOOM && proto == "resp", line == mcOOM && proto == "memcached":
						ws.oom.Add(1)
					default:
						ws.fail(line)
					}
				}
				batch = batch[:0]
			}
		}(c)
	}
	wg.Wait()
	return ws
}

func writeSet(w *bufio.Writer, proto string, key, val []byte) {
	if proto != "resp" {
		benchkit.WriteMemcachedSet(w, key, val)
		return
	}
	fmt.Fprintf(w, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n", len(key), key, len(val))
	w.Write(val)
	w.WriteString("\r\n")
}

func readLine(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// ---- reading back ----

// readBack reads ReadSample keys spread over the key space (the last ones
// included) and checks each; it returns the keys found.
func readBack(o Options, proto, addr string, r *Result, stored []atomic.Bool) ([]int, error) {
	n := min(o.ReadSample, o.Distinct)
	idx := make([]int, 0, n)
	for j := 0; j < n/2; j++ { // spread
		idx = append(idx, int(int64(j)*int64(o.Distinct)/int64(n/2)))
	}
	for i := o.Distinct - (n - n/2); i < o.Distinct; i++ { // the newest
		idx = append(idx, i)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	bw := bufio.NewWriter(conn)
	br := bufio.NewReaderSize(conn, 64<<10)
	want := make([]byte, o.ValueSize)
	var hits []int
	for _, i := range idx {
		key := keyOf(i)
		if proto == "resp" {
			fmt.Fprintf(bw, "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", len(key), key)
		} else {
			benchkit.WriteMemcachedGet(bw, key)
		}
		if err := bw.Flush(); err != nil {
			return nil, err
		}
		val, found, err := readValue(br, proto)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", key, err)
		}
		r.Reads++
		if !found {
			r.Misses++
			continue
		}
		fillValue(want, i)
		if !bytes.Equal(val, want) || !stored[i].Load() {
			r.BadValues++
			continue
		}
		r.Hits++
		hits = append(hits, i)
	}
	return hits, nil
}

// readValue reads a GET reply: the value, or found false for a miss.
func readValue(br *bufio.Reader, proto string) ([]byte, bool, error) {
	if proto != "resp" {
		_, val, found, err := benchkit.ReadMemcachedGet(br)
		return val, found, err
	}
	line, err := readLine(br)
	if err != nil {
		return nil, false, err
	}
	if line == "$-1" {
		return nil, false, nil
	}
	if !strings.HasPrefix(line, "$") {
		return nil, false, fmt.Errorf("unexpected reply %q", line)
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil {
		return nil, false, err
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(br, b); err != nil {
		return nil, false, err
	}
	return b[:n], true, nil
}

// deleteAndWrite (noeviction) deletes keys that were read back until
// used_memory is under maxmemory, then checks a write succeeds again.
func deleteAndWrite(o Options, proto, addr string, ctl *respConn, r *Result, hits []int, maxMem int64) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	bw := bufio.NewWriter(conn)
	br := bufio.NewReader(conn)
	for _, i := range hits {
		info, err := ctl.info()
		if err != nil {
			return err
		}
		if info["used_memory"] < maxMem-int64(o.ValueSize)-1024 {
			break
		}
		key := keyOf(i)
		if proto == "resp" {
			fmt.Fprintf(bw, "*2\r\n$3\r\nDEL\r\n$%d\r\n%s\r\n", len(key), key)
		} else {
			fmt.Fprintf(bw, "delete %s\r\n", key)
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		line, err := readLine(br)
		if err != nil {
			return err
		}
		if line != ":1" && line != "DELETED" {
			r.Failures = append(r.Failures, fmt.Sprintf("noeviction: delete of %s answered %q", key, line))
			return nil
		}
		r.Deleted++
	}
	val := make([]byte, o.ValueSize)
	fillValue(val, o.Distinct)
	writeSet(bw, proto, keyOf(o.Distinct), val)
	if err := bw.Flush(); err != nil {
		return err
	}
	line, err := readLine(br)
	if err != nil {
		return err
	}
	r.WriteAfterOK = line == "+OK" || line == "STORED"
	if !r.WriteAfterOK {
		r.Failures = append(r.Failures, fmt.Sprintf("noeviction: write after %d deletes answered %q", r.Deleted, line))
	}
	return nil
}

// ---- the control connection (RESP) ----

type respConn struct {
	mu sync.Mutex
	c  net.Conn
	br *bufio.Reader
}

func dialResp(addr string) (*respConn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &respConn{c: c, br: bufio.NewReaderSize(c, 64<<10)}, nil
}

func (r *respConn) close() { r.c.Close() }

// do sends a command and returns its reply's bulk strings (arrays
// flattened) or its simple/error/integer line.
func (r *respConn) do(args ...string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(r.c, b.String()); err != nil {
		return nil, err
	}
	return r.reply()
}

func (r *respConn) reply() ([]string, error) {
	line, err := readLine(r.br)
	if err != nil {
		return nil, err
	}
	if line == "" {
		return nil, errors.New("empty reply line")
	}
	switch line[0] {
	case '+', ':':
		return []string{line[1:]}, nil
	case '-':
		return nil, errors.New(line[1:])
	case '$', '=':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return nil, err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r.br, b); err != nil {
			return nil, err
		}
		return []string{string(b[:n])}, nil
	case '*', '%':
		n, _ := strconv.Atoi(line[1:])
		if line[0] == '%' {
			n *= 2
		}
		var out []string
		for i := 0; i < n; i++ {
			e, err := r.reply()
			if err != nil {
				return nil, err
			}
			out = append(out, e...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected reply %q", line)
}

func (r *respConn) configInt(name string) (int64, error) {
	v, err := r.do("CONFIG", "GET", name)
	if err != nil {
		return 0, err
	}
	if len(v) != 2 {
		return 0, fmt.Errorf("CONFIG GET %s: %q", name, v)
	}
	return strconv.ParseInt(v[1], 10, 64)
}

// info returns INFO's integer fields.
func (r *respConn) info() (map[string]int64, error) {
	v, err := r.do("INFO", "memory", "stats")
	if err != nil {
		return nil, err
	}
	if len(v) != 1 {
		return nil, fmt.Errorf("INFO: %q", v)
	}
	text := strings.TrimPrefix(v[0], "txt:") // a verbatim string under RESP3
	out := map[string]int64{}
	for _, line := range strings.Split(text, "\n") {
		k, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(val, 10, 64); err == nil {
			out[k] = n
		}
	}
	return out, nil
}
