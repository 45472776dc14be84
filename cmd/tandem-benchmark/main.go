package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/tandemkv/tandem/cmd/tandem-benchmark/hitratio"
	"github.com/tandemkv/tandem/cmd/tandem-benchmark/memkey"
	"github.com/tandemkv/tandem/cmd/tandem-benchmark/rssbound"
	"github.com/tandemkv/tandem/cmd/tandem-benchmark/savebench"
	"github.com/tandemkv/tandem/internal/benchkit"
)

// Exit statuses.
const (
	exitOK         = 0
	exitFailed     = 1 // the run could not be made
	exitUsage      = 2
	exitReplyError = 3 // the run was made, but some server failed a check
)

// subcommand is one of tandem-benchmark's commands.
type subcommand struct {
	name, about string
	run         func(args []string, stdout, stderr io.Writer) int
}

var subcommands []subcommand

func init() {
	subcommands = []subcommand{
		{"load", "one workload against one or more running servers, side by side", runLoad},
		{"scenario", "named classic tests (seed-100b, seed-20kb, kt-10kb-64bkey, concurrency-1kb, …) against running servers", runScenario},
		{"compare", "start redis-server, memcached, Tandem and the null server here and run scenarios against all of them: Tandem's ratios", runCompare},
		{"hitratio", "miss ratio of eviction policies: Tandem's and redis-server's, on replayed key streams", hitratio.Run},
		{"rssbound", "Tandem's RSS stays within its maxmemory bound while far more is offered", rssbound.Run},
		{"save", "snapshots, Tandem and redis-server: SAVE, BGSAVE under load, load on start", savebench.Run},
		{"memkey", "memory per key: Tandem (both protocols), redis-server, memcached", memkey.Run},
		{"chart", "draw the SVG charts of a results.json again", runChart},
		{"null", "the null server: Tandem's event loop and RESP parser, no engine (the network floor)", runNull},
	}
}

func main() {
	benchkit.StopOnSignal("tandem-benchmark", 20*time.Second)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range subcommands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "tandem-benchmark: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tandem-benchmark <command> [flags]   (tandem-benchmark <command> -help for its flags)")
	fmt.Fprintln(w)
	for _, c := range subcommands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.about)
	}
}

// usageErr reports a flag error: the exit status for it.
func usageErr(stderr io.Writer, cmd string, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	fmt.Fprintf(stderr, "tandem-benchmark %s: %v\n", cmd, err)
	return exitUsage
}

// runLoad is tandem-benchmark load: the phases of -t (or --ratio) against
// every target, rounds times.
func runLoad(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tandem-benchmark load", flag.ContinueOnError)
	f := addWorkloadFlags(fs)
	flushFirst := fs.Bool("flush", false, "empty every target first (FLUSHALL, flush_all), so earlier values do not fail verification")
	if err := parseFlags(fs, args, stderr, false); err != nil {
		return usageErr(stderr, "load", err)
	}
	w, err := f.workload()
	if err != nil {
		return usageErr(stderr, "load", err)
	}
	phases, err := f.phases()
	if err != nil {
		return usageErr(stderr, "load", err)
	}
	targets, err := f.targets()
	if err != nil {
		return usageErr(stderr, "load", err)
	}
	f.applyProcs()
	step := Step{Flush: *flushFirst}
	for _, ph := range phases {
		step.Phases = append(step.Phases, PhaseRun{Phase: ph, W: w})
	}
	rep := newReport(args)
	rs, err := runAll(targets, []Step{step}, f.rounds, newProgress(stderr, f.out.quiet))
	rep.Results = rs
	if err != nil {
		fmt.Fprintln(stderr, "tandem-benchmark load:", err)
		return exitFailed
	}
	return finish(stdout, stderr, &f.out, rep, nil)
}

// finish writes the report and returns the exit status: exitReplyError
// when any result has errors.
func finish(stdout, stderr io.Writer, o *outFlags, rep *Report, extra func(io.Writer)) int {
	if err := o.emit(stdout, rep, extra); err != nil {
		fmt.Fprintln(stderr, "tandem-benchmark:", err)
		return exitFailed
	}
	for _, r := range rep.Results {
		if r.Errors > 0 {
			return exitReplyError
		}
	}
	return exitOK
}

// newReport starts a report of this command line and machine.
func newReport(args []string) *Report {
	return &Report{
		Command: "tandem-benchmark " + strings.Join(args, " "),
		Date:    time.Now().UTC().Format(time.RFC3339),
		Env:     environment(),
	}
}

// environment describes the machine and the build, for the record.
func environment() map[string]string {
	env := map[string]string{
		"cpus":     fmt.Sprint(runtime.NumCPU()),
		"go":       runtime.Version(),
		"load_avg": benchkit.LoadAvg(),
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		rev := strings.TrimSpace(string(out))
		if exec.Command("git", "diff", "--quiet").Run() != nil {
			rev += " plus uncommitted changes"
		}
		env["git"] = rev
	}
	return env
}

// writeEnv prints a report's environment as "# key: value" lines.
func writeEnv(w io.Writer, env map[string]string) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "# %s: %s\n", k, env[k])
	}
}
