// Package memkey is tandem-benchmark memkey. It measures memory per key, in one run on one
// machine, for four cases:
//
//   - tandem-resp: Tandem loaded through the Redis protocol (SET),
//   - redis: redis-server loaded the same way,
//   - memcached: memcached loaded through its text protocol (set),
//   - tandem-memcached: Tandem loaded through its memcached port (set).
//
// Each case starts a fresh server on free loopback ports, with nothing
// that would evict (Tandem and redis-server maxmemory 0, memcached -m
// large enough) or save. It samples the server empty (once it answers
// PING or version), loads -n keys "key:N" (N = 0..n-1) of -d
// bytes, pipelined in batches of -P over one connection, waits
// -settle and samples twice, -settle apart, issuing nothing else in
// between; the later sample counts. A sample is:
//
//   - the server's own accounting: INFO memory used_memory for Tandem and
//     redis-server; memcached's stats "bytes" (the sizes of its items:
//     header, key, value and CAS; not slab waste nor the hash table),
//   - the process's RSS (VmRSS of /proc/<pid>/status),
//   - the keys held (DBSIZE; memcached's curr_items), which must be -keys,
//     with no key evicted.
//
// bytes/key = (after − empty) / keys, for both figures. Then -verify
// random keys are read back through the protocol that loaded them and
// compared byte for byte. Values are derived from N (a splitmix64
// stream), so every value differs and none compresses.
//
// Usage:
//
//	tandem-benchmark memkey -tandem ./tandem -n 1000000 -d 100 --out /tmp/memkey
//
// It prints a Markdown table and writes it (table.md), the results
// (results.json) and the servers' logs to -out. Exit status 0 when every
// case ran and checked out, 1 when one failed, 2 on usage errors.
// scripts/memkey.sh builds and runs it.
package memkey

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

type options struct {
	Keys     int           `json:"keys"`
	Size     int           `json:"value_size"`
	Rounds   int           `json:"rounds"`
	Pipeline int           `json:"pipeline"`
	Verify   int           `json:"verify"`
	Settle   time.Duration `json:"-"`           // report.SettleSeconds
	MCMemory int           `json:"memcached_m"` // memcached -m, MB
	Cases    []string      `json:"cases"`

	tandemBin, redisBin, memcachedBin string
	out                               string
}

// caseDef is one server loaded through one protocol.
type caseDef struct {
	Name   string // as -cases names it
	Server string // "tandem", "redis", "memcached"
	Proto  string // "resp", "memcached"
}

var allCases = []caseDef{
	{"tandem-resp", "tandem", "resp"},
	{"redis", "redis", "resp"},
	{"memcached", "memcached", "memcached"},
	{"tandem-memcached", "tandem", "memcached"},
}

func caseNamed(name string) (caseDef, bool) {
	for _, c := range allCases {
		if c.Name == name {
			return c, true
		}
	}
	return caseDef{}, false
}

// Run is tandem-benchmark memkey: its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tandem-benchmark memkey", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{}
	var cases string
	fs.IntVar(&o.Keys, "n", 1000000, "keys loaded: key:0 .. key:<n-1>")
	fs.IntVar(&o.Size, "d", 100, "bytes per value")
	fs.IntVar(&o.Rounds, "rounds", 1, "repetitions of every case, each on a fresh server (medians are reported)")
	fs.StringVar(&o.tandemBin, "tandem", "tandem", "the Tandem binary")
	fs.StringVar(&o.redisBin, "redis", "redis-server", "the redis-server binary")
	fs.StringVar(&o.memcachedBin, "memcached", "memcached", "the memcached binary")
	fs.StringVar(&o.out, "out", "", "directory for table.md, results.json and the servers' logs (default: a new temporary one)")
	fs.StringVar(&cases, "cases", "tandem-resp,redis,memcached,tandem-memcached", "cases to run, in this order")
	fs.IntVar(&o.Pipeline, "P", 1000, "pipeline: commands per batch when loading")
	fs.IntVar(&o.Verify, "verify", 1000, "random keys read back and compared after the load")
	fs.DurationVar(&o.Settle, "settle", 2*time.Second, "wait after the load before each of the two samples")
	fs.IntVar(&o.MCMemory, "memcached-mb", 4096, "memcached -m (MB): large enough that nothing is evicted")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tandem-benchmark memkey: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if o.Keys < 1 || o.Keys > 100_000_000 || o.Size < 1 || o.Size > 1<<20 || o.Rounds < 1 || o.Rounds > 20 ||
		o.Pipeline < 1 || o.Pipeline > 100_000 || o.Verify < 0 || o.Settle < 0 || o.Settle > time.Minute || o.MCMemory < 64 {
		fmt.Fprintln(stderr, "tandem-benchmark memkey: a flag is out of range (see -h)")
		return 2
	}
	var defs []caseDef
	for _, name := range strings.Split(cases, ",") {
		name = strings.TrimSpace(name)
		c, ok := caseNamed(name)
		if !ok {
			fmt.Fprintf(stderr, "tandem-benchmark memkey: -cases: unknown case %q (tandem-resp, redis, memcached, tandem-memcached)\n", name)
			return 2
		}
		defs = append(defs, c)
		o.Cases = append(o.Cases, name)
	}
	for _, b := range []*string{&o.tandemBin, &o.redisBin, &o.memcachedBin} {
		if p, err := exec.LookPath(*b); err == nil {
			*b, _ = filepath.Abs(p)
		}
	}
	if o.out == "" {
		d, err := os.MkdirTemp("", "tandem-benchmark-memkey-")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		o.out = d
	}
	if err := os.MkdirAll(filepath.Join(o.out, "logs"), 0o755); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	data, err := os.MkdirTemp("", "tandem-benchmark-memkey-data-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(data)

	rep := &report{Options: o, Started: time.Now().UTC().Format(time.RFC3339), NumCPU: runtime.NumCPU()}
	failed := false
	for round := 1; round <= o.Rounds; round++ {
		for _, c := range defs {
			fmt.Fprintf(stderr, "%s round %d/%d: %s, %d keys × %d B\n", time.Now().Format("15:04:05"), round, o.Rounds, c.Name, o.Keys, o.Size)
			dir := filepath.Join(data, fmt.Sprintf("%s-%d", c.Name, round))
			logPath := filepath.Join(o.out, "logs", fmt.Sprintf("%s-%d.log", c.Name, round))
			r, err := measure(o, c, round, dir, logPath, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "tandem-benchmark memkey: %s, round %d: %v (log: %s)\n", c.Name, round, err, logPath)
				r.Error = err.Error()
				failed = true
			}
			rep.Runs = append(rep.Runs, r)
		}
	}
	rep.summarize(defs)

	var table strings.Builder
	rep.writeTable(&table)
	fmt.Fprint(stdout, table.String())
	b, _ := json.MarshalIndent(rep, "", "  ")
	for name, content := range map[string][]byte{"table.md": []byte(table.String()), "results.json": append(b, '\n')} {
		if err := os.WriteFile(filepath.Join(o.out, name), content, 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			failed = true
		}
	}
	fmt.Fprintln(stderr, "results:", o.out)
	if failed {
		return 1
	}
	return 0
}
