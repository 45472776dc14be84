// Package hitratio is tandem-benchmark hitratio. It measures the miss ratio of cache eviction
// policies: it replays deterministic key streams, in the cache-aside
// pattern, against servers bounded to hold a fixed fraction of the keys,
// and prints workload × cache size × policy → miss ratio. It compares
// Tandem's policies with real redis-server's allkeys-lru and allkeys-lfu
// in the same run, on the same streams.
//
//	tandem-benchmark hitratio -mode quick            # 2M requests per cell
//	tandem-benchmark hitratio -mode full --out DIR   # DIR/table.md, DIR/cells.csv
//	tandem-benchmark hitratio -tandem none -workloads zipf-0.99 -sizes 0.01
//
// Streams (over -r ids, 1M by default; all derived from -seed, so every
// server and policy replays exactly the same requests):
//
//	zipf-A   key popularity Zipf with exponent A (0.8, 0.99, 1.2 by
//	         default), ranks mapped to key ids by a seeded permutation
//	scan     Zipf 0.99, and after every -scan-every requests a sequential
//	         scan of -scan-len key ids (one-hit wonders for the most part:
//	         a scan-resistant policy keeps its hot set through them)
//	ttl      Zipf 0.99; a share (-ttl-share) of the key ids is always
//	         written with PX -ttl
//
// Every stream is paced at -rate requests per second (unless the server
// cannot keep up; the lag is reported), so that what depends on the wall
// clock — TTLs, the one-second LRU clock of Redis and Tandem, LFU decay —
// sees the same requests per second on every server, whatever its speed.
//
// The pattern: GET key; on a miss, SET key value (-d bytes). The first
// -warmup requests are played and not counted; the next -n are.
// Requests are pipelined over one connection in batches of at most -P
// GETs, the fills of a batch's misses at the head of the next batch; a
// second GET of a key in one batch counts only if the first hit, else it
// is sent again after the fill: every key sees the exact sequential order
// (see replay). A SET answered -OOM counts as not stored.
//
// Cache size: for each server and policy, the tool starts the server
// unbounded, loads fraction × keys keys, and reads used_memory; that
// figure becomes the measured server's maxmemory. Each server thus holds
// about the same NUMBER of keys whatever its per-key overhead — what a hit
// ratio comparison needs (a byte-for-byte bound would instead compare
// memory efficiency, a separate question). While the stream plays, a
// monitor samples the keys held and nudges maxmemory to keep them within
// 0.25 % of the cache size (see monitor); both are reported.
//
// Servers are started by the tool on free loopback ports, one fresh
// process per cell: redis-server with --save "" --appendonly no
// --maxmemory-policy P --maxmemory N; Tandem (built from ./cmd/tandem
// unless -tandem names a binary) with --port, --memcached-port, --save ""
// and the same two flags. Tandem's default policy (what it runs without
// --maxmemory-policy) is asked from Tandem itself unless
// -tandem-default names it, and is measured too; the table's last
// column is its miss ratio over Redis allkeys-lru's.
package hitratio

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

type options struct {
	mode           string
	keys           int
	requests       int
	warmup         int
	sizes          []float64
	workloads      []string
	redisBin       string
	redisPolicies  []string
	tandemBin      string
	tandemPolicies []string
	tandemDefault  string
	depth          int
	valueSize      int
	seed           uint64
	scanEvery      int
	scanLen        int
	ttl            time.Duration
	ttlShare       float64
	rate           int
	sim            bool
	out            string
	work           string
	timeout        time.Duration
}

// Run is tandem-benchmark hitratio: its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "tandem-benchmark hitratio:", err)
		return 2
	}
	if err := run(context.Background(), o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "tandem-benchmark hitratio:", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("tandem-benchmark hitratio", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	var sizes, workloads, redisPolicies, tandemPolicies string
	var seed int64
	fs.StringVar(&o.mode, "mode", "quick", "quick (0.5M warm-up + 1.5M counted requests per cell) or full (1M + 2M); -warmup and -n override")
	fs.IntVar(&o.keys, "r", 1_000_000, "keyspace: key ids in the key space")
	fs.IntVar(&o.requests, "n", 0, "counted requests per cell (0: the mode's)")
	fs.IntVar(&o.warmup, "warmup", -1, "requests played before counting (-1: the mode's)")
	fs.StringVar(&sizes, "sizes", "0.01,0.1", "cache sizes as fractions of the keys")
	fs.StringVar(&workloads, "workloads", "zipf-0.8,zipf-0.99,zipf-1.2,scan,ttl", "streams: zipf-A (any A >= 0), scan, ttl")
	fs.StringVar(&o.redisBin, "redis-server", "redis-server", `redis-server binary ("none": no Redis cells)`)
	fs.StringVar(&redisPolicies, "redis-policies", "allkeys-lru,allkeys-lfu", "redis-server policies")
	fs.StringVar(&o.tandemBin, "tandem", "", `Tandem binary ("": go build ./cmd/tandem; "none": no Tandem cells)`)
	fs.StringVar(&tandemPolicies, "tandem-policies", "allkeys-lru,allkeys-lfu", "Tandem policies (its default is added)")
	fs.StringVar(&o.tandemDefault, "tandem-default", "auto", `Tandem's default policy ("auto": ask a Tandem started without --maxmemory-policy)`)
	fs.IntVar(&o.depth, "P", 128, "pipeline depth: most GETs per batch (1 = strictly sequential)")
	fs.IntVar(&o.valueSize, "d", 100, "value size in bytes")
	fs.Int64Var(&seed, "seed", 1, "seed of every stream")
	fs.IntVar(&o.scanEvery, "scan-every", 600_000, "scan: Zipf requests between scans")
	fs.IntVar(&o.scanLen, "scan-len", 150_000, "scan: key ids per scan")
	fs.DurationVar(&o.ttl, "ttl", time.Second, "ttl: the TTL of the TTL keys")
	fs.Float64Var(&o.ttlShare, "ttl-share", 0.5, "ttl: share of the key ids written with a TTL")
	fs.IntVar(&o.rate, "rate", 120_000, "requests per second every stream is paced at (0: as fast as the server answers)")
	fs.BoolVar(&o.sim, "sim", true, "add an exact-LRU simulation of each stream (no TTLs) as a reference column")
	fs.StringVar(&o.out, "out", "", "also write the tables (table.md) and every cell's figures (cells.csv) into this directory")
	fs.StringVar(&o.work, "work", "", "directory for servers' data and logs (default: a new temporary directory, removed at the end)")
	fs.DurationVar(&o.timeout, "timeout", time.Minute, "bound on every network exchange")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o.seed = uint64(seed)
	switch o.mode {
	case "quick":
		if o.requests == 0 {
			o.requests = 1_500_000
		}
		if o.warmup < 0 {
			o.warmup = 500_000
		}
	case "full":
		if o.requests == 0 {
			o.requests = 2_000_000
		}
		if o.warmup < 0 {
			o.warmup = 1_000_000
		}
	default:
		return nil, fmt.Errorf("-mode %q: quick or full", o.mode)
	}
	if o.keys < 1 || o.keys > 1<<31 {
		return nil, fmt.Errorf("-r %d out of range", o.keys)
	}
	if o.requests < 1 || o.warmup < 0 {
		return nil, errors.New("-n must be positive, -warmup not negative")
	}
	if o.depth < 1 || o.depth > 100_000 {
		return nil, fmt.Errorf("-P %d out of range", o.depth)
	}
	if o.valueSize < 1 || o.valueSize > 1<<20 {
		return nil, fmt.Errorf("-d %d out of range", o.valueSize)
	}
	if o.ttlShare < 0 || o.ttlShare > 1 || o.rate < 0 || o.ttl < time.Millisecond {
		return nil, errors.New("-ttl-share in [0,1], -rate >= 0, -ttl >= 1ms")
	}
	for _, s := range splitList(sizes) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 || f > 1 {
			return nil, fmt.Errorf("-sizes: %q is not a fraction in (0,1]", s)
		}
		o.sizes = append(o.sizes, f)
	}
	o.workloads = splitList(workloads)
	for _, name := range o.workloads {
		if _, err := o.workload(name); err != nil {
			return nil, err
		}
	}
	o.redisPolicies = splitList(redisPolicies)
	o.tandemPolicies = splitList(tandemPolicies)
	if len(o.sizes) == 0 || len(o.workloads) == 0 {
		return nil, errors.New("no sizes or no workloads")
	}
	return o, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// workload returns the definition of a workload name.
func (o *options) workload(name string) (*workload, error) {
	switch {
	case name == "scan":
		return &workload{name: name, alpha: 0.99, scanEvery: o.scanEvery, scanLen: o.scanLen, rate: o.rate}, nil
	case name == "ttl":
		return &workload{name: name, alpha: 0.99, ttlShare: o.ttlShare, ttl: o.ttl, rate: o.rate}, nil
	case strings.HasPrefix(name, "zipf-"):
		a, err := strconv.ParseFloat(strings.TrimPrefix(name, "zipf-"), 64)
		if err != nil || a < 0 || a > 10 {
			return nil, fmt.Errorf("workload %q: the exponent must be a number in [0,10]", name)
		}
		return &workload{name: name, alpha: a, rate: o.rate}, nil
	}
	return nil, fmt.Errorf("unknown workload %q (zipf-A, scan, ttl)", name)
}

// target is one column: a server kind and a policy (or the simulation).
type target struct {
	server string // "redis", "tandem", "sim"
	policy string
	spec   serverSpec
}

func (t target) String() string {
	if t.server == "sim" {
		return "exact LRU (sim)"
	}
	return t.server + " " + t.policy
}

// cell is the outcome of one workload × size × target.
type cell struct {
	workload  string
	size      float64
	cacheKeys int
	target    target
	cal       calibration
	res       replayResult
	keysHeld  int64     // DBSIZE at the end
	evicted   int64     // INFO evicted_keys at the end
	expired   int64     // INFO expired_keys at the end
	usedEnd   int64     // used_memory at the end
	maxmemory int64     // the bound at the end (see monitor)
	held      heldStats // keys held during the counted requests
	err       error
}

func run(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	work := o.work
	if work == "" {
		d, err := os.MkdirTemp("", "tandem-benchmark-hitratio-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}

	var targets []target
	var tandemDefault string
	if o.redisBin != "none" {
		bin, err := exec.LookPath(o.redisBin)
		if err != nil {
			return fmt.Errorf("redis-server: %v (-redis-server none to skip it)", err)
		}
		for _, p := range o.redisPolicies {
			targets = append(targets, target{server: "redis", policy: p, spec: redisSpec(bin)})
		}
	}
	if o.tandemBin != "none" {
		if o.tandemBin == "" {
			logf("building ./cmd/tandem")
		}
		bin, err := benchkit.TandemBinary(o.tandemBin, work)
		if err != nil {
			return err
		}
		spec := tandemSpec(bin)
		tandemDefault = o.tandemDefault
		if tandemDefault == "auto" {
			p, err := askDefaultPolicy(spec, work)
			if err != nil {
				return fmt.Errorf("asking Tandem its default policy: %v", err)
			}
			tandemDefault = p
			logf("Tandem's default maxmemory-policy: %s", p)
		}
		policies := o.tandemPolicies
		if !contains(policies, tandemDefault) {
			policies = append([]string{tandemDefault}, policies...)
		}
		for _, p := range policies {
			targets = append(targets, target{server: "tandem", policy: p, spec: spec})
		}
	}
	if o.sim {
		targets = append(targets, target{server: "sim", policy: "lru"})
	}
	if len(targets) == 0 {
		return errors.New("nothing to measure")
	}

	env := describeEnv(o, targets, tandemDefault)
	fmt.Fprint(stderr, env)
	if o.rate > 0 {
		servers := 0
		for _, t := range targets {
			if t.server != "sim" {
				servers++
			}
		}
		n := servers * len(o.workloads) * len(o.sizes)
		eta := time.Duration(n*(o.warmup+o.requests)/o.rate)*time.Second + time.Duration(n)*2*time.Second
		logf("%d server cells paced at %d req/s: about %s", n, o.rate, eta.Round(10*time.Second))
	}
	ks := newKeyspace(o.keys, o.seed)
	zc := zipfCache{}
	cals := map[string]calibration{}
	offsets := map[string]int64{} // steering's correction per server, policy and size
	var cells []cell
	began := time.Now()
	for _, name := range o.workloads {
		w, _ := o.workload(name)
		z, err := zc.get(o.keys, w.alpha)
		if err != nil {
			return err
		}
		for _, size := range o.sizes {
			cacheKeys := int(size*float64(o.keys) + 0.5)
			cfg := replayConfig{warmup: o.warmup, measure: o.requests, depth: o.depth, valueSize: o.valueSize}
			for _, t := range targets {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				c := cell{workload: name, size: size, cacheKeys: cacheKeys, target: t}
				if t.server == "sim" {
					if w.hasTTL() {
						continue
					}
					c.res.counts = simulateLRU(newStream(w, ks, z), cacheKeys, cfg)
				} else {
					calKey := fmt.Sprintf("%s|%s|%d|%v", t.server, t.policy, cacheKeys, w.hasTTL())
					cal, ok := cals[calKey]
					if !ok {
						cal, err = calibrate(t.spec, work, t.policy, cacheKeys, w, ks, cfg)
						if err == nil {
							cals[calKey] = cal
						}
					}
					c.cal = cal
					offKey := fmt.Sprintf("%s|%s|%d", t.server, t.policy, cacheKeys)
					off, known := offsets[offKey]
					if err != nil {
						c.err = err
					} else {
						if w.hasTTL() && !known {
							logf("%s %s %s: no steered workload measured before; the bound is the calibrated one", name, pct(size), t)
						}
						c.err = measure(ctx, &c, w, ks, z, cfg, work, o.timeout, off)
						if c.err == nil && !w.hasTTL() && c.res.OOM == 0 {
							offsets[offKey] = c.maxmemory - c.cal.MaxMemory
						}
					}
				}
				logCell(logf, c)
				cells = append(cells, c)
			}
		}
	}
	logf("all cells measured in %s", time.Since(began).Round(time.Second))

	tables := renderTables(o, cells, targets, tandemDefault)
	fmt.Fprint(stdout, tables)
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.out, "table.md"), []byte(env+"\n"+tables), 0o644); err != nil {
			return err
		}
		if err := writeCSV(filepath.Join(o.out, "cells.csv"), cells); err != nil {
			return err
		}
	}
	for _, c := range cells {
		if c.err != nil {
			return fmt.Errorf("%d cell(s) failed; first: %s %s %s: %v", countErrs(cells), c.workload, pct(c.size), c.target, c.err)
		}
	}
	return nil
}

func countErrs(cells []cell) int {
	n := 0
	for _, c := range cells {
		if c.err != nil {
			n++
		}
	}
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// measure runs one cell: a fresh server bounded at the calibrated
// maxmemory, flushed, the stream replayed while a monitor samples the keys
// held and steers maxmemory (see monitor), then its key count and
// eviction and expiry counters read. A workload with TTLs is not steered:
// its bound is the calibrated one plus offset, the correction steering
// found for the same server, policy and size on a workload without.
func measure(ctx context.Context, c *cell, w *workload, ks *keyspace, z *benchkit.Zipf, cfg replayConfig, work string, timeout time.Duration, offset int64) error {
	steer := !w.hasTTL()
	c.maxmemory = c.cal.MaxMemory
	if !steer {
		c.maxmemory += offset
	}
	s, err := start(c.target.spec, work, c.target.policy, c.maxmemory)
	if err != nil {
		return err
	}
	defer s.stop()
	cn, err := benchkit.Dial(s.addr, timeout)
	if err != nil {
		return err
	}
	defer cn.Close()
	if _, err := cn.Do("FLUSHALL"); err != nil {
		return err
	}
	mon, err := startMonitor(s.addr, timeout, c.cacheKeys, c.cal, c.maxmemory, steer)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { cn.Close() })
	defer stop()
	c.res, err = replay(cn, newStream(w, ks, z), cfg, func() error {
		mon.counting.Store(true)
		return nil
	})
	var merr error
	c.held, c.maxmemory, merr = mon.finish()
	if err != nil {
		return err
	}
	if merr != nil {
		return fmt.Errorf("monitor: %v", merr)
	}
	r, err := cn.Do("DBSIZE")
	if err != nil {
		return err
	}
	c.keysHeld = r.Int
	f, err := cn.Info("")
	if err != nil {
		return err
	}
	c.evicted, _ = strconv.ParseInt(f["evicted_keys"], 10, 64)
	c.expired, _ = strconv.ParseInt(f["expired_keys"], 10, 64)
	c.usedEnd, _ = strconv.ParseInt(f["used_memory"], 10, 64)
	return nil
}

// askDefaultPolicy starts Tandem without --maxmemory-policy and asks it.
func askDefaultPolicy(spec serverSpec, work string) (string, error) {
	s, err := start(spec, work, "", 0)
	if err != nil {
		return "", err
	}
	defer s.stop()
	c, err := benchkit.Dial(s.addr, 10*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	r, err := c.Do("CONFIG", "GET", "maxmemory-policy")
	if err != nil {
		return "", err
	}
	if len(r.Elems) != 2 {
		return "", fmt.Errorf("CONFIG GET maxmemory-policy answered %s", r)
	}
	return string(r.Elems[1].Str), nil
}

func logCell(logf func(string, ...any), c cell) {
	head := fmt.Sprintf("%-10s %4s %-26s", c.workload, pct(c.size), c.target)
	if c.err != nil {
		logf("%s FAILED: %v", head, c.err)
		return
	}
	r := c.res
	if c.target.server == "sim" {
		logf("%s miss %.4f", head, r.missRatio())
		return
	}
	extra := ""
	if r.OOM > 0 {
		extra += fmt.Sprintf(" OOM %d", r.OOM)
	}
	if n := r.SetErrors + r.GetErrors + r.BadValues; n > 0 {
		extra += fmt.Sprintf(" errors %d", n)
	}
	if r.MaxLag > 0 {
		extra += fmt.Sprintf(" lag %s", r.MaxLag.Round(time.Millisecond))
	}
	logf("%s miss %.4f  keys held %.0f [%d,%d] of %d  maxmemory %d (calibrated %d)  %.0f B/key  %.0fk req/s%s", head, r.missRatio(), c.held.Mean, c.held.Min, c.held.Max, c.cacheKeys, c.maxmemory, c.cal.MaxMemory,
		c.cal.BytesPer, float64(r.Played)/r.Elapsed.Seconds()/1000, extra)
}

func pct(f float64) string {
	return strconv.FormatFloat(f*100, 'f', -1, 64) + "%"
}

func describeEnv(o *options, targets []target, tandemDefault string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# tandem-benchmark %s\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&b, "# date %s, %d CPUs, %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), runtime.Version(), benchkit.LoadAvg())
	fmt.Fprintf(&b, "# mode %s: %d keys, %d warm-up + %d counted requests per cell, -P %d, %d-byte values, seed %d\n",
		o.mode, o.keys, o.warmup, o.requests, o.depth, o.valueSize, o.seed)
	fmt.Fprintf(&b, "# paced at %d req/s; scan: %d key ids every %d Zipf-0.99 requests; ttl: %.0f%% of ids with PX %s\n",
		o.rate, o.scanLen, o.scanEvery, o.ttlShare*100, o.ttl)
	seen := map[string]bool{}
	for _, t := range targets {
		if t.server == "sim" || seen[t.server] {
			continue
		}
		seen[t.server] = true
		extra := ""
		if t.server == "tandem" {
			extra = ", default policy " + tandemDefault
		}
		fmt.Fprintf(&b, "# %s: %s%s\n", t.server, benchkit.Version(t.spec.kind, t.spec.bin), extra)
	}
	return b.String()
}

func writeCSV(path string, cells []cell) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"workload", "size", "cache_keys", "server", "policy", "requests", "misses", "miss_ratio",
		"zipf_miss_ratio", "live_miss_ratio", "cold_misses", "expired_misses", "scan_requests", "scan_misses",
		"oom", "set_errors", "get_errors", "bad_values", "calibrated_maxmemory", "maxmemory", "baseline", "bytes_per_key",
		"keys_held_mean", "keys_held_min", "keys_held_max", "maxmemory_adjustments", "keys_held_end", "evicted_keys", "expired_keys", "used_memory_end", "seconds", "req_per_s", "max_lag_ms", "error"})
	for _, c := range cells {
		r := c.res
		e := ""
		if c.err != nil {
			e = c.err.Error()
		}
		i := func(v int64) string { return strconv.FormatInt(v, 10) }
		fl := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
		rps := 0.0
		if r.Elapsed > 0 {
			rps = float64(r.Played) / r.Elapsed.Seconds()
		}
		w.Write([]string{c.workload, fl(c.size), strconv.Itoa(c.cacheKeys), c.target.server, c.target.policy,
			i(r.Requests), i(r.Misses), fl(r.missRatio()), fl(r.zipfMissRatio()), fl(r.liveMissRatio()),
			i(r.ColdMisses), i(r.ExpiredMisses), i(r.ScanRequests), i(r.ScanMisses),
			i(r.OOM), i(r.SetErrors), i(r.GetErrors), i(r.BadValues), i(c.cal.MaxMemory), i(c.maxmemory), i(c.cal.Baseline), fl(c.cal.BytesPer),
			fl(c.held.Mean), i(c.held.Min), i(c.held.Max), strconv.Itoa(c.held.Adjustments), i(c.keysHeld), i(c.evicted), i(c.expired), i(c.usedEnd), fl(r.Elapsed.Seconds()), fl(rps),
			i(r.MaxLag.Milliseconds()), e})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
