// Package savebench is tandem-benchmark save. It measures snapshots, Tandem and redis-server side
// by side in one run on one machine. For each data set (keys × value size)
// it starts each server in a directory of its own, fills it with pipelined
// SETs, and measures:
//
//   - SAVE: its time and the dump's size, so MB/s (-rounds times, median).
//   - BGSAVE under a steady GET/SET load (-conns connections, no
//     pipelining, --rate requests a second, values of the data set's size):
//     the latency of that load idle (the -idle seconds before) and while
//     the BGSAVE runs, and the extra memory, peak RSS while it runs minus
//     the median RSS before, RSS read from /proc/<pid>/status every
//     -sample. redis-server forks: its child's RSS is added to the
//     parent's (which counts the pages they share twice), and its own
//     copy-on-write figure (INFO rdb_last_cow_size) is reported beside.
//   - Load on start: the server restarted with the dump present, the time
//     from starting the process to the first PING answered PONG (Redis
//     accepts connections while loading but answers LOADING), and the
//     seconds its "DB loaded from disk" log line gives.
//
// Usage:
//
//	tandem-benchmark save -tandem ./tandem -sets 1000000x100,100000x20480
//
// Only loopback servers it starts itself are ever contacted; every phase
// is bounded in time. scripts/savebench.sh builds and runs it.
package savebench

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

type options struct {
	tandemBin, redisBin string
	sets                []dataSet
	servers             []string
	rounds              int
	conns, rate, setPct int
	idle                time.Duration
	sample              time.Duration
	fillConns, fillPipe int
	work                string
	out                 string
	keep                bool
	rdbCompression      string
}

// dataSet is keys × value size.
type dataSet struct {
	Keys      int `json:"keys"`
	ValueSize int `json:"value_size"`
}

func (d dataSet) String() string {
	return fmt.Sprintf("%d keys × %s values", d.Keys, benchkit.Bytes(int64(d.ValueSize)))
}

func parseSets(s string) ([]dataSet, error) {
	var out []dataSet
	for _, f := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(f), "x")
		k, err1 := strconv.Atoi(a)
		v, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || k < 1 || v < 1 || k > 100_000_000 || v > 16<<20 {
			return nil, fmt.Errorf("-sets: %q is not KEYSxVALUESIZE (e.g. 1000000x100)", f)
		}
		out = append(out, dataSet{Keys: k, ValueSize: v})
	}
	return out, nil
}

// Run is tandem-benchmark save: its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tandem-benchmark save", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{}
	var sets, servers string
	fs.StringVar(&o.tandemBin, "tandem", "tandem", "the Tandem binary")
	fs.StringVar(&o.redisBin, "redis", "redis-server", "the redis-server binary")
	fs.StringVar(&sets, "sets", "1000000x100,100000x20480", "data sets, KEYSxVALUESIZE, comma-separated")
	fs.StringVar(&servers, "servers", "tandem,redis", "servers to measure, in this order for each data set")
	fs.IntVar(&o.rounds, "rounds", 2, "BGSAVE and SAVE repetitions (medians are reported; BGSAVEs run first)")
	fs.IntVar(&o.conns, "c", 4, "connections of the steady load (no pipelining)")
	fs.IntVar(&o.rate, "rate", 4000, "requests a second of the steady load, all connections together (0: back to back)")
	fs.IntVar(&o.setPct, "set-pct", 50, "percentage of SETs in the steady load (the rest GETs)")
	fs.DurationVar(&o.idle, "idle", 3*time.Second, "steady load measured idle before each BGSAVE")
	fs.DurationVar(&o.sample, "sample", 50*time.Millisecond, "RSS sampling period")
	fs.IntVar(&o.fillConns, "fill-conns", 4, "connections filling the data set")
	fs.IntVar(&o.fillPipe, "P", 0, "pipeline: SETs per batch when filling (0: about 1 MB a batch, 16..1000)")
	fs.StringVar(&o.work, "work", "", "directory for dumps and logs (default: a new temporary one, removed unless -keep)")
	fs.StringVar(&o.out, "out", "", "also write the tables (table.md) and the results (results.json) into this directory")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory")
	fs.StringVar(&o.rdbCompression, "rdbcompression", "", "rdbcompression for both servers, yes or no (default: theirs, yes)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	if o.sets, err = parseSets(sets); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	for _, s := range strings.Split(servers, ",") {
		if s != "tandem" && s != "redis" {
			fmt.Fprintf(stderr, "-servers: %q is neither tandem nor redis\n", s)
			return 2
		}
		o.servers = append(o.servers, s)
	}
	if o.rounds < 1 || o.rounds > 20 || o.conns < 1 || o.conns > 256 || o.rate < 0 || o.setPct < 0 || o.setPct > 100 ||
		o.idle < 100*time.Millisecond || o.idle > time.Minute || o.sample < time.Millisecond || o.fillConns < 1 || o.fillConns > 64 {
		fmt.Fprintln(stderr, "a flag is out of range (see -h)")
		return 2
	}
	if o.rdbCompression != "" && o.rdbCompression != "yes" && o.rdbCompression != "no" {
		fmt.Fprintln(stderr, "-rdbcompression: yes or no")
		return 2
	}
	for _, b := range []*string{&o.tandemBin, &o.redisBin} {
		if p, err := exec.LookPath(*b); err == nil {
			*b, _ = filepath.Abs(p)
		}
	}
	if o.work == "" {
		if o.work, err = os.MkdirTemp("", "tandem-benchmark-save-"); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if !o.keep {
			defer os.RemoveAll(o.work)
		}
	}
	var results []*result
	for _, ds := range o.sets {
		for _, kind := range o.servers {
			fmt.Fprintf(stderr, "%s %s, %s\n", time.Now().Format("15:04:05"), kind, ds)
			r, err := bench(o, kind, ds, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "%s, %s: %v\n", kind, ds, err)
				return 1
			}
			results = append(results, r)
		}
	}
	var tables strings.Builder
	writeTables(&tables, o, results)
	fmt.Fprint(stdout, tables.String())
	if o.out != "" {
		b, _ := json.MarshalIndent(results, "", "  ")
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		for name, content := range map[string][]byte{"results.json": append(b, '\n'), "table.md": []byte(tables.String())} {
			if err := os.WriteFile(filepath.Join(o.out, name), content, 0o644); err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
		}
	}
	if o.keep {
		fmt.Fprintln(stderr, "work directory kept:", o.work)
	}
	for _, r := range results {
		if r.LoadErrors > 0 {
			return 3
		}
	}
	return 0
}

// result is one server on one data set.
type result struct {
	Server     string  `json:"server"`
	Version    string  `json:"version"`
	Set        dataSet `json:"set"`
	FillSecs   float64 `json:"fill_seconds"`
	UsedMemory int64   `json:"used_memory"` // INFO after the fill
	RSS        int64   `json:"rss"`         // after the fill

	SaveSecs  []float64 `json:"save_seconds"`
	FileBytes int64     `json:"file_bytes"`

	BGSaves []bgsave `json:"bgsaves"`

	LoadReadySecs float64 `json:"load_ready_seconds"` // process start to PONG
	LoadLogSecs   float64 `json:"load_log_seconds"`   // "DB loaded from disk"
	LoadedKeys    int64   `json:"loaded_keys"`
	RSSAfterLoad  int64   `json:"rss_after_load"`

	LoadErrors int64  `json:"load_errors"` // errors of the steady load
	FirstError string `json:"first_error,omitempty"`
}

// bgsave is one BGSAVE under the steady load.
type bgsave struct {
	Secs       float64 `json:"seconds"` // BGSAVE sent to INFO saying done
	RSSBefore  int64   `json:"rss_before"`
	PeakRSS    int64   `json:"peak_rss"`        // parent + children
	PeakParent int64   `json:"peak_parent_rss"` // the server process alone
	PeakChild  int64   `json:"peak_child_rss"`
	Samples    int     `json:"samples"`
	CowBytes   int64   `json:"rdb_last_cow_size"`
	ForkUsec   int64   `json:"latest_fork_usec"`
	Idle       latency `json:"idle"`
	During     latency `json:"during"`
}

func (b bgsave) extra() int64 { return b.PeakRSS - b.RSSBefore }

func bench(o options, kind string, ds dataSet, log io.Writer) (*result, error) {
	dir := filepath.Join(o.work, fmt.Sprintf("%s-%dx%d", kind, ds.Keys, ds.ValueSize))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	bin := o.tandemBin
	if kind == "redis" {
		bin = o.redisBin
	}
	var extra []string
	if o.rdbCompression != "" {
		extra = []string{"--rdbcompression", o.rdbCompression}
	}
	s, err := startServer(kind, bin, dir, extra, time.Minute)
	if err != nil {
		return nil, err
	}
	defer s.Stop()
	ctl, err := dial(s.addr(), 10*time.Minute)
	if err != nil {
		return nil, err
	}
	defer func() { ctl.Close() }()
	res := &result{Server: kind, Set: ds}
	if in, err := ctl.Info("server"); err == nil {
		res.Version = in["redis_version"]
		if v := in["tandem_version"]; v != "" {
			res.Version = v
		}
	}

	// Fill.
	vals := newValues(ds.ValueSize, 1)
	pipe := o.fillPipe
	if pipe == 0 {
		pipe = max(16, min(1000, (1<<20)/(ds.ValueSize+40)))
	}
	d, err := fill(s.addr(), ds.Keys, vals, o.fillConns, pipe)
	if err != nil {
		return nil, fmt.Errorf("filling: %w", err)
	}
	res.FillSecs = d.Seconds()
	if err := expectKeys(ctl, ds.Keys); err != nil {
		return nil, err
	}
	time.Sleep(time.Second) // let allocators and GC settle
	mem, err := ctl.Info("memory")
	if err != nil {
		return nil, err
	}
	res.UsedMemory, res.RSS = benchkit.IntField(mem, "used_memory"), rss(s.Pid())
	fmt.Fprintf(log, "  filled in %.1f s: used_memory %s, RSS %s\n", res.FillSecs, benchkit.Bytes(res.UsedMemory), benchkit.Bytes(res.RSS))

	// BGSAVE under the steady load, first: the first one starts from the
	// memory of a server that never saved.
	for i := 0; i < o.rounds; i++ {
		b, err := bgsaveUnderLoad(o, s, ctl, ds, vals, uint64(i)*1000, res)
		if err != nil {
			return nil, err
		}
		res.BGSaves = append(res.BGSaves, b)
		fmt.Fprintf(log, "  BGSAVE %.2f s: extra RSS %s (peak %s, before %s; cow %s); p99 idle %.2f ms, during %.2f ms (%d/%d requests)\n",
			b.Secs, benchkit.Bytes(b.extra()), benchkit.Bytes(b.PeakRSS), benchkit.Bytes(b.RSSBefore), benchkit.Bytes(b.CowBytes), b.Idle.P99, b.During.P99, b.Idle.N, b.During.N)
		time.Sleep(500 * time.Millisecond)
	}

	// SAVE, without load.
	for i := 0; i < o.rounds; i++ {
		t0 := time.Now()
		if _, err := ctl.Do("SAVE"); err != nil {
			return nil, fmt.Errorf("SAVE: %w", err)
		}
		res.SaveSecs = append(res.SaveSecs, time.Since(t0).Seconds())
	}
	st, err := os.Stat(s.dumpPath())
	if err != nil {
		return nil, err
	}
	res.FileBytes = st.Size()
	fmt.Fprintf(log, "  SAVE %v s, %s\n", res.SaveSecs, benchkit.Bytes(res.FileBytes))

	// Load on start.
	ctl.Close()
	s.Ready = 10 * time.Minute
	if err := s.Restart(); err != nil {
		return nil, err
	}
	res.LoadReadySecs = time.Since(s.Started).Seconds()
	if ctl, err = dial(s.addr(), time.Minute); err != nil {
		return nil, err
	}
	if err := expectKeys(ctl, ds.Keys); err != nil {
		return nil, fmt.Errorf("after loading the dump: %w", err)
	}
	res.LoadedKeys = int64(ds.Keys)
	res.LoadLogSecs = s.loadSecondsFromLog()
	res.RSSAfterLoad = rss(s.Pid())
	fmt.Fprintf(log, "  load on start: PONG after %.2f s (log: %.2f s), RSS %s\n", res.LoadReadySecs, res.LoadLogSecs, benchkit.Bytes(res.RSSAfterLoad))
	return res, nil
}

func expectKeys(c *benchkit.Conn, n int) error {
	r, err := c.Do("DBSIZE")
	if err != nil {
		return err
	}
	if r.Kind != ':' || r.Int != int64(n) {
		return fmt.Errorf("DBSIZE %q, want %d", r.String(), n)
	}
	return nil
}

// bgsaveUnderLoad runs the steady load for o.idle, then a BGSAVE, and
// measures both stretches.
func bgsaveUnderLoad(o options, s *server, ctl *benchkit.Conn, ds dataSet, vals *values, seed uint64, res *result) (bgsave, error) {
	var b bgsave
	sm := benchkit.StartSampler(s.Pid(), o.sample, nil)
	ld, err := startLoad(s.addr(), o.conns, o.rate, ds.Keys, o.setPct, vals, seed)
	if err != nil {
		sm.Stop()
		return b, err
	}
	t0 := time.Now()
	warm := min(500*time.Millisecond, o.idle/4)
	time.Sleep(o.idle)
	var ops []op
	var samples []benchkit.Sample
	stopAll := func() {
		if ld != nil {
			ops = ld.stop()
			samples = sm.Stop()
			res.LoadErrors += ld.errors.Load()
			if p := ld.first.Load(); p != nil && res.FirstError == "" {
				res.FirstError = *p
			}
			ld = nil
		}
	}
	defer stopAll()
	per, err := ctl.Info("persistence")
	if err != nil {
		return b, err
	}
	saves0 := benchkit.IntField(per, "rdb_saves")
	tb := time.Now()
	if _, err := ctl.Do("BGSAVE"); err != nil {
		return b, fmt.Errorf("BGSAVE: %w", err)
	}
	deadline := tb.Add(10 * time.Minute)
	for {
		per, err = ctl.Info("persistence")
		if err != nil {
			return b, err
		}
		if per["rdb_bgsave_in_progress"] == "0" && benchkit.IntField(per, "rdb_saves") > saves0 {
			break
		}
		if time.Now().After(deadline) {
			return b, errors.New("BGSAVE did not finish in 10 minutes")
		}
		time.Sleep(10 * time.Millisecond)
	}
	te := time.Now()
	stopAll()
	if st := per["rdb_last_bgsave_status"]; st != "ok" {
		return b, fmt.Errorf("rdb_last_bgsave_status:%s", st)
	}
	b.Secs = te.Sub(tb).Seconds()
	b.CowBytes = benchkit.IntField(per, "rdb_last_cow_size")
	if stats, err := ctl.Info("stats"); err == nil {
		b.ForkUsec = benchkit.IntField(stats, "latest_fork_usec")
	}
	b.Idle = latencyOf(ops, t0.Add(warm), tb)
	b.During = latencyOf(ops, tb, te)
	before := benchkit.Between(samples, t0.Add(warm), tb)
	during := benchkit.Between(samples, tb, te)
	if len(during) == 0 { // a save shorter than the period: the next sample
		for _, x := range samples {
			if x.At.After(tb) {
				during = []benchkit.Sample{x}
				break
			}
		}
	}
	if len(before) == 0 || len(during) == 0 {
		return b, errNoSamples
	}
	tot := make([]int64, len(before))
	for i, x := range before {
		tot[i] = x.Total()
	}
	sort.Slice(tot, func(i, j int) bool { return tot[i] < tot[j] })
	b.RSSBefore = tot[len(tot)/2]
	for _, x := range during {
		b.PeakRSS = max(b.PeakRSS, x.Total())
		b.PeakParent = max(b.PeakParent, x.RSS)
		b.PeakChild = max(b.PeakChild, x.ChildRSS)
	}
	b.Samples = len(during)
	return b, nil
}
