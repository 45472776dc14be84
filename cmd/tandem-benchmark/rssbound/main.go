// Package rssbound is tandem-benchmark rssbound. It checks that Tandem's resident memory stays within
// its maxmemory bound while a client offers far more data than fits.
//
// For each protocol it starts a fresh tandem with the given maxmemory and
// maxmemory-policy, writes -n keys (-r distinct) of -d bytes over -c
// connections (Redis SET, or memcached set), samples the server's
// RSS (VmRSS of /proc/<pid>/status) every -every and its used_memory, then
// reads a sample of the keys back: every read must be a miss or exactly the
// value written for that key (values are derived from the key). Under
// noeviction it also checks that writes are refused with the OOM errors
// Redis and memcached send, and that reads and deletes keep working.
//
//	tandem-benchmark rssbound -tandem ./tandem -maxmemory 256mb -policy allkeys-lru
//	tandem-benchmark rssbound -tandem ./tandem -maxmemory 64mb -n 40000 -policy noeviction
//
// The bound is -factor × maxmemory + -slack (1.15 × maxmemory + 64 MB).
// Exit status 0 when every check passes, 1 when one fails, 2 on usage
// errors.
package rssbound

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// Options are the run's parameters.
type Options struct {
	Tandem     string        // tandem binary
	MaxMemory  string        // as tandem takes it: 256mb
	Policy     string        // maxmemory-policy
	Keys       int           // keys written
	Distinct   int           // distinct keys among them: key i is i mod Distinct (0: all distinct)
	ValueSize  int           // bytes per value
	Conns      int           // writer connections
	Pipeline   int           // requests in flight per connection
	Protocols  []string      // "resp", "memcached"
	Every      time.Duration // RSS sampling period
	ReadSample int           // keys read back
	Factor     float64       // bound = Factor × maxmemory + Slack
	Slack      int64
	ServerArgs []string // extra tandem arguments
	Env        []string // extra environment of tandem (GOGC=50, ...)
	SamplesCSV string   // where to write the samples (time, RSS, used_memory); "" for nowhere
	Log        io.Writer
}

func defaultOptions() Options {
	return Options{
		MaxMemory: "256mb", Policy: "allkeys-lru", Keys: 500000, ValueSize: 20 << 10,
		Conns: 16, Pipeline: 4, Protocols: []string{"resp", "memcached"},
		Every: 100 * time.Millisecond, ReadSample: 20000, Factor: 1.15, Slack: 64 << 20,
	}
}

// Run is tandem-benchmark rssbound: its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	o := defaultOptions()
	fs := flag.NewFlagSet("tandem-benchmark rssbound", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Tandem, "tandem", "tandem", "tandem binary to start")
	fs.StringVar(&o.MaxMemory, "maxmemory", o.MaxMemory, "maxmemory of the server (tandem syntax: 256mb)")
	fs.StringVar(&o.Policy, "policy", o.Policy, "maxmemory-policy of the server")
	fs.IntVar(&o.Keys, "n", o.Keys, "keys written")
	fs.IntVar(&o.Distinct, "r", 0, "keyspace: write key i mod r, overwriting (0: every key distinct)")
	fs.IntVar(&o.ValueSize, "d", o.ValueSize, "bytes per value")
	fs.IntVar(&o.Conns, "c", o.Conns, "writer connections")
	fs.IntVar(&o.Pipeline, "P", o.Pipeline, "pipeline: requests in flight per connection")
	protos := fs.String("protocols", "resp,memcached", "protocols to test, comma-separated (resp, memcached)")
	fs.DurationVar(&o.Every, "every", o.Every, "RSS sampling period")
	fs.IntVar(&o.ReadSample, "read-sample", o.ReadSample, "keys read back and verified")
	fs.Float64Var(&o.Factor, "factor", o.Factor, "bound: factor × maxmemory + slack")
	slack := fs.Int64("slack-mb", o.Slack>>20, "bound: factor × maxmemory + slack (MB)")
	serverArgs := fs.String("server-args", "", "extra tandem arguments, space-separated (e.g. \"--hz 100\")")
	env := fs.String("server-env", "", "extra tandem environment, space-separated (e.g. \"GOGC=50\")")
	fs.StringVar(&o.SamplesCSV, "samples", "", "write every sample to this CSV file (protocol, seconds, rss, used_memory)")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	o.Slack = *slack << 20
	o.Protocols = strings.Split(*protos, ",")
	o.ServerArgs = strings.Fields(*serverArgs)
	o.Env = strings.Fields(*env)
	o.Log = stderr
	for _, p := range o.Protocols {
		if p != "resp" && p != "memcached" {
			fmt.Fprintf(stderr, "tandem-benchmark rssbound: unknown protocol %q\n", p)
			return 2
		}
	}
	if o.Keys <= 0 || o.ValueSize < 16 || o.Conns <= 0 || o.Pipeline <= 0 {
		fmt.Fprintln(stderr, "tandem-benchmark rssbound: -n, -c, -P must be > 0 and -d >= 16")
		return 2
	}
	failed := false
	var results []*Result
	for _, p := range o.Protocols {
		r, err := Measure(o, p)
		if err != nil {
			fmt.Fprintf(stderr, "tandem-benchmark rssbound: %s: %v\n", p, err)
			return 1
		}
		results = append(results, r)
		if !*asJSON {
			r.WriteText(stdout)
		}
		failed = failed || len(r.Failures) > 0
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(results)
	}
	if failed {
		return 1
	}
	return 0
}
