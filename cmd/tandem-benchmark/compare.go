package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// Names of the servers compare starts, as tables and charts show them.
const (
	nameTandem    = "tandem"
	nameRedis     = "redis-server"
	nameMemcached = "memcached"
	nameNull      = "null"
)

// pinnedEnv marks a tandem-benchmark already pinned by --pin (it re-runs
// itself under taskset once).
const pinnedEnv = "TANDEM_BENCHMARK_PINNED"

// runCompare is tandem-benchmark compare: it starts redis-server,
// memcached, Tandem (and the null server) on this machine and runs the
// scenarios against them, targets taking turns, then reports Tandem's
// ratios to each.
func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tandem-benchmark compare", flag.ContinueOnError)
	f := addWorkloadFlags(fs)
	scale := fs.Float64("scale", 1, "multiplies every scenario's number of keys (0.1: a quick look)")
	servers := fs.String("servers", "tandem,redis,memcached,null", "servers to start: tandem, redis, memcached, null")
	protocols := fs.String("protocols", "resp,memcache", "protocols, each a group: resp (Tandem, redis-server, null), memcache, meta or binary (Tandem, memcached -B auto)")
	pin := fs.Bool("pin", false, "pin every server to CPU 0 (Tandem and null with GOMAXPROCS=1, memcached -t 1) and this client to CPU 1, with taskset")
	tandemBin := fs.String("tandem", "", "Tandem binary (default: go build ./cmd/tandem from the module root, else tandem on PATH)")
	redisBin := fs.String("redis-server", "redis-server", "redis-server binary")
	memcachedBin := fs.String("memcached", "memcached", "memcached binary")
	mcThreads := fs.Int("memcached-threads", 2, "memcached -t when not pinned (pinned: 1)")
	work := fs.String("work", "", "directory for the servers' data and logs (default: a temporary one, removed at the end)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tandem-benchmark compare [flags] [SCENARIO...] (default: "+strings.Join(defaultScenarios, " ")+"; all: every one)")
		listScenarios(stderr)
		fs.PrintDefaults()
	}
	if !f.set("rounds") {
		f.rounds = 3
	}
	if err := parseFlags(fs, args, stderr, true); err != nil {
		return usageErr(stderr, "compare", err)
	}
	if !f.set("rounds") {
		f.rounds = 3
	}
	if !f.set("procs") {
		f.procs = 1 // one core at most, as redis-benchmark
	}
	if f.servers != "" || f.set("h") || f.set("p") {
		return usageErr(stderr, "compare", fmt.Errorf("compare starts its own servers: no --server, -h or -p (use load or scenario for running servers)"))
	}
	base, err := f.workload()
	if err != nil {
		return usageErr(stderr, "compare", err)
	}
	defs, err := scenarioSteps(fs.Args(), *scale, base, f.set)
	if err != nil {
		return usageErr(stderr, "compare", err)
	}
	kinds := map[string]bool{}
	for _, k := range strings.Split(*servers, ",") {
		switch k = strings.TrimSpace(k); k {
		case "tandem", "redis", "memcached", "null":
			kinds[k] = true
		default:
			return usageErr(stderr, "compare", fmt.Errorf("--servers: unknown server %q (tandem, redis, memcached, null)", k))
		}
	}
	var protos []string
	for _, p := range strings.Split(*protocols, ",") {
		if _, err := benchkit.CodecFor(p); err != nil {
			return usageErr(stderr, "compare", err)
		}
		protos = append(protos, p)
	}
	if *pin && os.Getenv(pinnedEnv) == "" {
		return rerunPinned(stdout, stderr)
	}
	f.applyProcs()

	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "tandem-benchmark-")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitFailed
		}
		defer os.RemoveAll(d)
		dir = d
	}
	rep := newReport(args)
	fleet, err := startFleet(kinds, protos, *pin, *tandemBin, *redisBin, *memcachedBin, *mcThreads, dir, rep.Env)
	defer fleet.stop()
	if err != nil {
		fmt.Fprintln(stderr, "tandem-benchmark compare:", err)
		return exitFailed
	}
	prog := newProgress(stderr, f.out.quiet)
	for _, p := range protos {
		targets := fleet.targets(p)
		if len(targets) < 2 {
			fmt.Fprintf(stderr, "tandem-benchmark compare: %s: fewer than two servers, nothing to compare\n", p)
			continue
		}
		ref := referenceOf(p)
		for _, d := range defs {
			rs, err := runScenarioOn(d, targets, *scale, base, f, prog, ref)
			rep.Results = append(rep.Results, rs...)
			if err != nil {
				fmt.Fprintln(stderr, "tandem-benchmark compare:", err)
				return exitFailed
			}
		}
	}
	return finish(stdout, stderr, &f.out, rep, func(w io.Writer) {
		fmt.Fprintln(w)
		writeRatios(w, aggregate(rep.Results))
		fmt.Fprintln(w)
		writeEnv(w, rep.Env)
	})
}

// referenceOf is the server Tandem is measured against on a protocol.
func referenceOf(protocol string) string {
	if protocol == "resp" {
		return nameRedis
	}
	return nameMemcached
}

// rerunPinned runs this command again under taskset -c 1 (the servers
// get CPU 0), so that every thread of the client, whenever the Go runtime
// starts it, is on CPU 1.
func rerunPinned(stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "tandem-benchmark compare --pin:", err)
		return exitFailed
	}
	cmd := exec.Command("taskset", append([]string{"-c", "1", exe}, os.Args[1:]...)...)
	cmd.Env = append(os.Environ(), pinnedEnv+"=1", "GOMAXPROCS=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(stderr, "tandem-benchmark compare --pin: taskset:", err)
		return exitFailed
	}
	return exitOK
}

// fleet is the servers compare started.
type fleet struct {
	tandem, redis, memcached, null *benchkit.Server
}

func (fl *fleet) stop() {
	for _, s := range []*benchkit.Server{fl.tandem, fl.redis, fl.memcached, fl.null} {
		if s != nil {
			s.Stop()
		}
	}
}

// targets are the servers of a protocol group, Tandem first.
func (fl *fleet) targets(protocol string) []Target {
	var out []Target
	add := func(name string, s *benchkit.Server, addr string, noVerify bool) {
		if s != nil && addr != "" {
			out = append(out, Target{Name: name, Addr: addr, Protocol: protocol, Pid: s.Pid(), NoVerify: noVerify})
		}
	}
	if protocol == "resp" {
		if fl.tandem != nil {
			add(nameTandem, fl.tandem, fl.tandem.Addr(), false)
		}
		add(nameRedis, fl.redis, addrOf(fl.redis, false), false)
		add(nameNull, fl.null, addrOf(fl.null, false), true)
		return out
	}
	add(nameTandem, fl.tandem, addrOf(fl.tandem, true), false)
	add(nameMemcached, fl.memcached, addrOf(fl.memcached, true), false)
	return out
}

func addrOf(s *benchkit.Server, memcached bool) string {
	switch {
	case s == nil:
		return ""
	case memcached:
		return s.MemcachedAddr()
	}
	return s.Addr()
}

// startFleet starts the servers asked for, pinned to CPU 0 or not, and
// notes their versions and settings in env.
func startFleet(kinds map[string]bool, protos []string, pin bool, tandemBin, redisBin, memcachedBin string, mcThreads int, dir string, env map[string]string) (*fleet, error) {
	fl := &fleet{}
	cpus, threads := "", 0
	if pin {
		cpus, threads, mcThreads = "0", 1, 1
	}
	env["pinned"] = fmt.Sprint(pin)
	env["client_gomaxprocs"] = fmt.Sprint(runtime.GOMAXPROCS(0))
	needMC := false
	for _, p := range protos {
		needMC = needMC || p != "resp"
	}
	var err error
	if kinds["tandem"] {
		bin, err := benchkit.TandemBinary(tandemBin, dir)
		if err != nil {
			return fl, err
		}
		if fl.tandem, err = benchkit.Launch(benchkit.Spec{Kind: benchkit.Tandem, Bin: bin, Dir: filepath.Join(dir, "tandem"),
			MemcachedPort: needMC, CPUs: cpus, Threads: threads}); err != nil {
			return fl, err
		}
		env["tandem"] = benchkit.Version(benchkit.Tandem, bin) + settings(pin, "GOMAXPROCS=1")
	}
	if kinds["redis"] {
		bin, err := benchkit.LookBinary(redisBin)
		if err != nil {
			return fl, err
		}
		if fl.redis, err = benchkit.Launch(benchkit.Spec{Kind: benchkit.Redis, Bin: bin, Dir: filepath.Join(dir, "redis"), CPUs: cpus}); err != nil {
			return fl, err
		}
		env["redis-server"] = benchkit.Version(benchkit.Redis, bin) + settings(pin, "")
	}
	if kinds["memcached"] && needMC {
		bin, err := benchkit.LookBinary(memcachedBin)
		if err != nil {
			return fl, err
		}
		if fl.memcached, err = benchkit.Launch(benchkit.Spec{Kind: benchkit.Memcached, Bin: bin, Dir: filepath.Join(dir, "memcached"),
			CPUs: cpus, Threads: mcThreads, MemcachedMB: 4096}); err != nil {
			return fl, err
		}
		env["memcached"] = benchkit.Version(benchkit.Memcached, bin) + fmt.Sprintf(" (-t %d -m 4096)", mcThreads) + settings(pin, "")
	}
	if kinds["null"] {
		exe, err := os.Executable()
		if err != nil {
			return fl, err
		}
		if fl.null, err = benchkit.Launch(benchkit.Spec{Kind: benchkit.Null, Bin: exe, Dir: filepath.Join(dir, "null"), CPUs: cpus, Threads: threads}); err != nil {
			return fl, err
		}
		env["null"] = "tandem-benchmark null (Tandem's event loop and RESP parser, no engine)" + settings(pin, "GOMAXPROCS=1")
	}
	return fl, err
}

func settings(pin bool, extra string) string {
	if !pin {
		return ""
	}
	s := " (taskset -c 0"
	if extra != "" {
		s += ", " + extra
	}
	return s + ")"
}

// writeRatios prints, for every scenario step and phase, Tandem's ops/s
// over each other server's, and its p99 and p99.9 over the reference's:
// absolute figures on a shared machine are noise, ratios in one run are
// the result. A row where either side had errors has no ratio.
func writeRatios(w io.Writer, aggs []*Agg) {
	type row struct {
		key    string
		tandem *Agg
		others map[string]*Agg
	}
	var rows []*row
	byKey := map[string]*row{}
	for _, a := range aggs {
		k := a.group()
		r := byKey[k]
		if r == nil {
			r = &row{key: k, others: map[string]*Agg{}}
			byKey[k] = r
			rows = append(rows, r)
		}
		if a.Server == nameTandem {
			r.tandem = a
		} else {
			r.others[a.Server] = a
		}
	}
	fmt.Fprintln(w, "Tandem's ratios (ops/s: higher is better; p99, p99.9: lower is better)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scenario | step | protocol | phase | Tandem ops/s | ÷ redis-server | ÷ memcached | share of null | p99 ÷ ref | p99.9 ÷ ref |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		t := r.tandem
		if t == nil {
			continue
		}
		ratio := func(name string) string {
			o := r.others[name]
			switch {
			case o == nil:
				return "—"
			case t.Errors > 0 || o.Errors > 0:
				return "FAILED"
			case o.OpsPerSec <= 0:
				return "—"
			}
			return fmt.Sprintf("**%.2f**", t.OpsPerSec/o.OpsPerSec)
		}
		ref := r.others[referenceOf(t.Protocol)]
		lat := func(tv, rv float64) string {
			if ref == nil || rv <= 0 || t.Errors > 0 || ref.Errors > 0 {
				return "—"
			}
			return fmt.Sprintf("%.2f", tv/rv)
		}
		var p99, p999 string
		if ref != nil {
			p99, p999 = lat(t.Latency.P99, ref.Latency.P99), lat(t.Latency.P999, ref.Latency.P999)
		} else {
			p99, p999 = "—", "—"
		}
		phase := t.Phase
		if t.Rate > 0 {
			phase += fmt.Sprintf(" @%.0f/s", t.Rate)
		}
		ops := fmt.Sprintf("%.0f", t.OpsPerSec)
		if t.Errors > 0 {
			ops = "FAILED"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", dash(t.Scenario), dash(t.Step), t.Protocol, phase, ops,
			ratio(nameRedis), ratio(nameMemcached), ratio(nameNull), p99, p999)
	}
}
