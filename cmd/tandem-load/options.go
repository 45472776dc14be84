package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Bounds on a run: tandem-load is a measuring tool on a shared machine,
// never a soak test left running by accident.
const (
	maxRequests    = 1_000_000_000
	maxDuration    = time.Hour
	maxConnections = 10_000
	maxPipeline    = 10_000
	maxValueSize   = 1 << 20 // memcached's default item-size-max
	maxKeyspace    = 1_000_000_000_000
)

// options are the parsed command-line flags.
type options struct {
	proto    string // "redis", "memcached" or "memcached-meta"
	addr     string
	conns    int
	pipeline int
	requests int64         // per phase; 0 when duration is set
	duration time.Duration // per phase; 0 when requests is set
	keyspace int64
	valueLen int
	phases   []phase
	seed     uint64
	timeout  time.Duration
	flush    bool
	json     bool
	csv      bool
	procs    int
}

// phase is one measured stretch of traffic: all SETs, all GETs, or a mix.
type phase struct {
	name string
	set  int // weight of SET in the mix
	get  int // weight of GET in the mix
}

// parseOptions parses args; it writes usage to out on -h.
func parseOptions(args []string, out io.Writer) (*options, error) {
	fs := flag.NewFlagSet("tandem-load", flag.ContinueOnError)
	fs.SetOutput(out)
	o := &options{}
	var ratio, tests string
	fs.StringVar(&o.proto, "proto", "redis", "protocol: redis, memcached (text) or memcached-meta (ms/mg)")
	fs.StringVar(&o.addr, "addr", "", "server host:port, loopback only (default 127.0.0.1:6379 for redis, 127.0.0.1:11211 for memcached)")
	fs.IntVar(&o.conns, "c", 50, "connections, one goroutine each")
	fs.IntVar(&o.pipeline, "P", 1, "pipeline depth: requests written before their replies are read")
	fs.Int64Var(&o.requests, "n", 0, "requests per phase (default 100000 unless -duration is set)")
	fs.DurationVar(&o.duration, "duration", 0, "length of each phase, instead of -n")
	fs.Int64Var(&o.keyspace, "r", 100000, "keyspace size: keys are key:%012d over [0, r)")
	fs.IntVar(&o.valueLen, "d", 100, "value size in bytes")
	fs.StringVar(&ratio, "ratio", "", "one mixed phase with this set:get ratio, e.g. 1:10")
	fs.StringVar(&tests, "t", "", "phases run one after the other, like redis-benchmark: set,get (default set,get)")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed; connection i uses seed+i")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "limit on every read and write; a stuck connection fails")
	fs.BoolVar(&o.flush, "flush", false, "empty the server first (FLUSHALL / flush_all), so earlier values do not fail verification")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	fs.BoolVar(&o.csv, "csv", false, "print one CSV line per phase (a header first), as redis-benchmark --csv")
	fs.IntVar(&o.procs, "procs", 0, "GOMAXPROCS for the generator (0 = Go's default); 1 leaves the other cores to the server")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch o.proto {
	case "redis", "memcached", "memcached-meta":
	default:
		return nil, fmt.Errorf("-proto %q: want redis, memcached or memcached-meta", o.proto)
	}
	if o.addr == "" {
		o.addr = "127.0.0.1:6379"
		if o.proto != "redis" {
			o.addr = "127.0.0.1:11211"
		}
	}
	switch {
	case o.requests != 0 && o.duration != 0:
		return nil, errors.New("-n and -duration exclude each other")
	case o.requests == 0 && o.duration == 0:
		o.requests = 100000
	case o.requests < 0 || o.requests > maxRequests:
		return nil, fmt.Errorf("-n %d: want 1..%d", o.requests, maxRequests)
	case o.duration < 0 || o.duration > maxDuration:
		return nil, fmt.Errorf("-duration %v: want up to %v", o.duration, maxDuration)
	}
	if o.conns < 1 || o.conns > maxConnections {
		return nil, fmt.Errorf("-c %d: want 1..%d", o.conns, maxConnections)
	}
	if o.pipeline < 1 || o.pipeline > maxPipeline {
		return nil, fmt.Errorf("-P %d: want 1..%d", o.pipeline, maxPipeline)
	}
	if o.keyspace < 1 || o.keyspace > maxKeyspace {
		return nil, fmt.Errorf("-r %d: want 1..%d (keys have 12 digits)", o.keyspace, maxKeyspace)
	}
	if o.valueLen < 1 || o.valueLen > maxValueSize {
		return nil, fmt.Errorf("-d %d: want 1..%d", o.valueLen, maxValueSize)
	}
	if o.json && o.csv {
		return nil, errors.New("-json and -csv exclude each other")
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("-timeout %v: want > 0", o.timeout)
	}
	if o.procs < 0 {
		return nil, fmt.Errorf("-procs %d: want >= 0", o.procs)
	}
	var err error
	switch {
	case ratio != "" && tests != "":
		return nil, errors.New("-ratio and -t exclude each other")
	case ratio != "":
		o.phases, err = parseRatio(ratio)
	default:
		if tests == "" {
			tests = "set,get"
		}
		o.phases, err = parseTests(tests)
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// parseRatio parses "set:get", e.g. "1:10", into one mixed phase.
func parseRatio(s string) ([]phase, error) {
	a, b, ok := strings.Cut(s, ":")
	set, err1 := strconv.Atoi(a)
	get, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || set < 0 || get < 0 || set+get == 0 || set > 1e6 || get > 1e6 {
		return nil, fmt.Errorf("-ratio %q: want set:get, two non-negative integers, e.g. 1:10", s)
	}
	return []phase{{name: "SET:GET " + s, set: set, get: get}}, nil
}

// parseTests parses a comma-separated list of phases: set, get.
func parseTests(s string) ([]phase, error) {
	var out []phase
	for _, t := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "set":
			out = append(out, phase{name: "SET", set: 1})
		case "get":
			out = append(out, phase{name: "GET", get: 1})
		default:
			return nil, fmt.Errorf("-t %q: unknown test %q (want set, get)", s, t)
		}
	}
	return out, nil
}
