package rssbound

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// The error replies a write must get under noeviction (RESP's without
// its '-', as benchkit.ReplyErr holds it).
const (
	respOOM = "OOM command not allowed when used memory > 'maxmemory'."
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

// Measure starts a tandem and runs the test over one protocol.
func Measure(o Options, proto string) (*Result, error) {
	if o.Distinct <= 0 || o.Distinct > o.Keys {
		o.Distinct = o.Keys
	}
	srv, err := startServer(o)
	if err != nil {
		return nil, err
	}
	defer stopServer(srv)
	ctl, err := benchkit.Dial(srv.Addr(), 30*time.Second)
	if err != nil {
		return nil, err
	}
	defer ctl.Close()
	maxMem, err := configInt(ctl, "maxmemory")
	if err != nil {
		return nil, err
	}
	r := &Result{
		Protocol: proto, Policy: o.Policy, MaxMemory: maxMem, Keys: o.Keys, Distinct: o.Distinct, ValueSize: o.ValueSize,
		Conns: o.Conns, Pipeline: o.Pipeline, Offered: int64(o.Keys) * int64(o.ValueSize),
		Bound: int64(o.Factor*float64(maxMem)) + o.Slack,
	}
	addr := srv.Addr()
	if proto == "memcached" {
		addr = srv.MemcachedAddr()
	}

	// Sample RSS and used_memory while writing.
	pid := srv.Pid()
	mon := benchkit.StartSampler(pid, o.Every, func() int64 {
		info, err := info(ctl)
		if err != nil {
			return 0
		}
		return info["used_memory"]
	})
	stored := make([]atomic.Bool, o.Distinct)
	start := time.Now()
	cpu0, _ := benchkit.CPUSeconds(pid)
	ws := writeAll(o, proto, addr, stored)
	r.Seconds = time.Since(start).Seconds()
	cpu1, _ := benchkit.CPUSeconds(pid)
	r.ServerCPU = cpu1 - cpu0
	time.Sleep(3 * o.Every) // a few samples after the last write
	series := mon.Stop()

	r.Stored, r.OOM, r.Errors, r.FirstError = ws.stored.Load(), ws.oom.Load(), ws.other.Load(), ws.firstError()
	r.OpsPerSec = float64(o.Keys) / r.Seconds
	r.MBPerSec = float64(r.Offered) / r.Seconds / (1 << 20)
	for _, x := range series {
		r.PeakRSS, r.PeakUsed = max(r.PeakRSS, x.RSS), max(r.PeakUsed, x.Extra)
	}
	r.Samples = len(series)
	if o.SamplesCSV != "" {
		if err := writeSamples(o.SamplesCSV, proto, start, series); err != nil {
			return nil, err
		}
	}
	r.HWM, _ = benchkit.ProcStatus(pid, "VmHWM")
	r.EndRSS, _ = benchkit.VmRSS(pid)
	info, err := info(ctl)
	if err != nil {
		return nil, err
	}
	r.EndUsed, r.InfoPeakUsed, r.Evicted = info["used_memory"], info["used_memory_peak"], info["evicted_keys"]
	if r.EndUsed > 0 {
		r.Frag = float64(r.EndRSS) / float64(r.EndUsed)
	}
	r.GoLimit = goLimit(srv)

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

func startServer(o Options) (*benchkit.Server, error) {
	dir, err := os.MkdirTemp("", "tandem-benchmark-rssbound-")
	if err != nil {
		return nil, err
	}
	args := append([]string{"--maxmemory", o.MaxMemory, "--maxmemory-policy", o.Policy}, o.ServerArgs...)
	s, err := benchkit.Launch(benchkit.Spec{Kind: benchkit.Tandem, Bin: o.Tandem, Dir: dir, MemcachedPort: true, Args: args, Env: o.Env,
		Ready: 10 * time.Second, Poll: 20 * time.Millisecond})
	if err != nil {
		os.RemoveAll(dir)
	}
	return s, err
}

func stopServer(s *benchkit.Server) {
	s.Stop()
	os.RemoveAll(s.Dir)
}

// goLimit is the GOMEMLIMIT the server logged.
func goLimit(s *benchkit.Server) string {
	b, _ := os.ReadFile(s.LogPath)
	for _, line := range strings.Split(string(b), "\n") {
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

// writeSamples appends the series to a CSV file.
func writeSamples(name, proto string, start time.Time, series []benchkit.Sample) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, s := range series {
		fmt.Fprintf(w, "%s,%.1f,%d,%d\n", proto, s.At.Sub(start).Seconds(), s.RSS, s.Extra)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ---- keys and values ----

func keyOf(i int) []byte { return benchkit.AppendKey(nil, "rss:", int64(i), 9) }

// fillValue writes key i's value into b, derived from i, so a read can be
// checked without keeping the data.
func fillValue(b []byte, i int) { benchkit.FillIncompressible(b, uint64(i)) }

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

// codecOf is the codec of a -protocols name.
func codecOf(proto string) benchkit.Codec {
	if proto == "memcached" {
		return benchkit.MemcacheText{}
	}
	return benchkit.RESP{}
}

// isOOM reports whether a refused write is the protocol's OOM error.
func isOOM(proto string, err error) bool {
	var re benchkit.ReplyErr
	if !errors.As(err, &re) {
		return false
	}
	return proto == "resp" && string(re) == respOOM || proto == "memcached" && string(re) == mcOOM
}

// writeAll writes every key, connection c taking keys c, c+conns, ...
func writeAll(o Options, proto, addr string, stored []atomic.Bool) *writeStats {
	ws := &writeStats{}
	codec := codecOf(proto)
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
			br := bufio.NewReaderSize(conn, 64<<10)
			val := make([]byte, o.ValueSize)
			var out []byte
			batch := make([]int, 0, o.Pipeline)
			for i := c; i < o.Keys || len(batch) > 0; i += o.Conns {
				if i < o.Keys {
					k := i % o.Distinct
					fillValue(val, k)
					out = codec.AppendSet(out, keyOf(k), val)
					batch = append(batch, k)
					if len(batch) < o.Pipeline && i+o.Conns < o.Keys {
						continue
					}
				}
				if _, err := conn.Write(out); err != nil {
					ws.fail(err.Error())
					return
				}
				out = out[:0]
				for _, k := range batch {
					err := codec.ReadSet(br)
					switch {
					case err == nil:
						ws.stored.Add(1)
						stored[k].Store(true)
					case isOOM(proto, err):
						ws.oom.Add(1)
					case benchkit.InStep(err):
						ws.fail(err.Error())
					default:
						ws.fail(err.Error())
						return
					}
				}
				batch = batch[:0]
			}
		}(c)
	}
	wg.Wait()
	return ws
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
	codec := codecOf(proto)
	br := bufio.NewReaderSize(conn, 64<<10)
	want := make([]byte, o.ValueSize)
	var out, scratch []byte
	var hits []int
	for _, i := range idx {
		key := keyOf(i)
		if _, err := conn.Write(codec.AppendGet(out[:0], key)); err != nil {
			return nil, err
		}
		val, found, err := codec.ReadGet(br, key, &scratch)
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

// deleteAndWrite (noeviction) deletes keys that were read back until
// used_memory is under maxmemory, then checks a write succeeds again.
func deleteAndWrite(o Options, proto, addr string, ctl *benchkit.Conn, r *Result, hits []int, maxMem int64) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for _, i := range hits {
		in, err := info(ctl)
		if err != nil {
			return err
		}
		if in["used_memory"] < maxMem-int64(o.ValueSize)-1024 {
			break
		}
		key := keyOf(i)
		req := append([]byte("delete "), key...)
		req = append(req, "\r\n"...)
		if proto == "resp" {
			req = benchkit.AppendCommand(nil, []byte("DEL"), key)
		}
		if _, err := conn.Write(req); err != nil {
			return err
		}
		line, err := benchkit.ReadLine(br)
		if err != nil {
			return err
		}
		if string(line) != ":1" && string(line) != "DELETED" {
			r.Failures = append(r.Failures, fmt.Sprintf("noeviction: delete of %s answered %q", key, line))
			return nil
		}
		r.Deleted++
	}
	val := make([]byte, o.ValueSize)
	fillValue(val, o.Distinct)
	codec := codecOf(proto)
	if _, err := conn.Write(codec.AppendSet(nil, keyOf(o.Distinct), val)); err != nil {
		return err
	}
	err = codec.ReadSet(br)
	r.WriteAfterOK = err == nil
	if !r.WriteAfterOK {
		r.Failures = append(r.Failures, fmt.Sprintf("noeviction: write after %d deletes answered %v", r.Deleted, err))
	}
	return nil
}

// ---- the control connection (RESP) ----

func configInt(c *benchkit.Conn, name string) (int64, error) {
	v, err := c.Do("CONFIG", "GET", name)
	if err != nil {
		return 0, err
	}
	if len(v.Elems) != 2 {
		return 0, fmt.Errorf("CONFIG GET %s: %s", name, v)
	}
	return strconv.ParseInt(string(v.Elems[1].Str), 10, 64)
}

// info returns INFO memory and stats' integer fields.
func info(c *benchkit.Conn) (map[string]int64, error) {
	v, err := c.Do("INFO", "memory", "stats")
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for k, val := range benchkit.ParseInfo(v.Str) {
		if n, err := strconv.ParseInt(val, 10, 64); err == nil {
			out[k] = n
		}
	}
	return out, nil
}
