package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"time"
)

// wlFlags are the workload flags, named as redis-benchmark names them
// where it has them (-h -p -c -n -d -P -r -t -q --csv).
type wlFlags struct {
	fs                 *flag.FlagSet
	host               string
	port               int
	servers            string
	protocol           string
	conns, pipeline    int
	requests           int64
	duration           time.Duration
	keyspace           int64
	keySize, valueSize string
	tests, ratio, dist string
	zipf               float64
	rate               float64
	multiget           int
	seed               uint64
	timeout            time.Duration
	procs              int
	verify             bool
	rounds             int
	out                outFlags
}

// addWorkloadFlags defines the workload and output flags on fs.
func addWorkloadFlags(fs *flag.FlagSet) *wlFlags {
	f := &wlFlags{fs: fs}
	fs.StringVar(&f.host, "h", "127.0.0.1", "server host (loopback only)")
	fs.IntVar(&f.port, "p", 0, "server port (default 6379 for resp, 11211 for memcache, meta and binary)")
	fs.StringVar(&f.servers, "server", "", "targets side by side, comma-separated [name=]host:port[/protocol] (instead of -h/-p); a target named null is not verified")
	fs.StringVar(&f.protocol, "protocol", "resp", "resp, memcache (text set/get), meta (ms/mg) or binary (memcached binary Set/Get frames)")
	fs.IntVar(&f.conns, "c", 50, "connections, one goroutine each")
	fs.IntVar(&f.pipeline, "P", 1, "pipeline: requests written before their replies are read")
	fs.Int64Var(&f.requests, "n", 0, "requests per phase (default 100000 unless --duration)")
	fs.DurationVar(&f.duration, "duration", 0, "length of each phase, instead of -n")
	fs.Int64Var(&f.keyspace, "r", 100000, "keyspace: keys are key:<index> over [0, r), zero-padded to --key-size")
	fs.StringVar(&f.keySize, "key-size", "16", "key length in bytes, N or MIN-MAX (per key, fixed by its index)")
	fs.StringVar(&f.valueSize, "d", "100", "value size in bytes, N or MIN-MAX (k = 1024; per key, fixed by its index)")
	fs.StringVar(&f.tests, "t", "", "phases one after the other, as redis-benchmark: set,get (default set,get)")
	fs.StringVar(&f.ratio, "ratio", "", "one mixed phase of this set:get ratio instead, e.g. 1:10")
	fs.StringVar(&f.dist, "dist", "uniform", "key distribution: uniform, zipf, or seq (0, 1, 2, …: each key once)")
	fs.Float64Var(&f.zipf, "zipf", 0.99, "the exponent of --dist zipf")
	fs.Float64Var(&f.rate, "rate", 0, "paced: requests per second, all connections together, sent on schedule (open loop, latency from the schedule); 0 = closed loop")
	fs.IntVar(&f.multiget, "multiget", 1, "keys per get request: MGET on resp, get k1 k2 … on memcache, that many mg on meta, GetKQ … Noop on binary")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed; connection i uses seed+i")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "limit on every read and write; a stuck connection fails")
	fs.IntVar(&f.procs, "procs", 0, "GOMAXPROCS of the client (0 = Go's default); 1 leaves the other cores to the servers")
	fs.BoolVar(&f.verify, "verify", true, "check every value read against the one written for its key")
	fs.IntVar(&f.rounds, "rounds", 1, "rounds; targets take turns within each, results are medians")
	addOutFlags(fs, &f.out)
	return f
}

func addOutFlags(fs *flag.FlagSet, o *outFlags) {
	fs.BoolVar(&o.quiet, "q", false, "quiet: one line per phase, as redis-benchmark -q")
	fs.BoolVar(&o.csv, "csv", false, "print CSV (redis-benchmark's first columns), one line per phase and round")
	fs.BoolVar(&o.json, "json", false, "print the whole report as JSON")
	fs.StringVar(&o.dir, "out", "", "also write results.json, results.csv, table.md and SVG charts into this directory")
}

// set reports whether the flag name was given on the command line.
func (f *wlFlags) set(name string) bool {
	found := false
	f.fs.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// workload builds the workload the flags describe.
func (f *wlFlags) workload() (Workload, error) {
	w := Workload{Protocol: f.protocol, Conns: f.conns, Pipeline: f.pipeline, Requests: f.requests, Duration: f.duration,
		Keyspace: f.keyspace, Dist: f.dist, ZipfAlpha: f.zipf, Rate: f.rate, MultiGet: f.multiget, Seed: f.seed,
		Timeout: f.timeout, Verify: f.verify}
	if w.Requests == 0 && w.Duration == 0 {
		w.Requests = 100000
	}
	var err error
	if w.KeySize, err = parseRange(f.keySize); err != nil {
		return w, fmt.Errorf("--key-size: %v", err)
	}
	if w.ValueSize, err = parseRange(f.valueSize); err != nil {
		return w, fmt.Errorf("-d: %v", err)
	}
	if f.rounds < 1 || f.rounds > 100 {
		return w, fmt.Errorf("--rounds %d: want 1..100", f.rounds)
	}
	if f.procs < 0 {
		return w, fmt.Errorf("--procs %d: want >= 0", f.procs)
	}
	if n := btoi(f.out.json) + btoi(f.out.csv) + btoi(f.out.quiet); n > 1 {
		return w, errors.New("-q, --csv and --json exclude each other")
	}
	return w, w.check()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// phases returns the phases of -t or --ratio.
func (f *wlFlags) phases() ([]Phase, error) {
	switch {
	case f.ratio != "" && f.tests != "":
		return nil, errors.New("--ratio and -t exclude each other")
	case f.ratio != "":
		return parseRatio(f.ratio)
	case f.tests == "":
		return parseTests("set,get")
	}
	return parseTests(f.tests)
}

// targets returns --server's targets, or the one -h/-p names.
func (f *wlFlags) targets() ([]Target, error) {
	list := f.servers
	if list != "" && (f.set("h") || f.set("p")) {
		return nil, errors.New("--server and -h/-p exclude each other")
	}
	if list == "" {
		port := f.port
		if port == 0 {
			port = 6379
			if f.protocol != "resp" {
				port = 11211
			}
		}
		list = net.JoinHostPort(f.host, strconv.Itoa(port))
	}
	ts, err := parseTargets(list, f.protocol)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		if !f.verify {
			ts[i].NoVerify = true
		}
		findPid(&ts[i])
	}
	return ts, nil
}

// applyProcs sets the client's GOMAXPROCS.
func (f *wlFlags) applyProcs() {
	if f.procs > 0 {
		runtime.GOMAXPROCS(f.procs)
	}
}

// parseFlags parses args into fs, with usage to stderr; a stray argument
// is an error unless args is allowed.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer, positional bool) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !positional && fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
