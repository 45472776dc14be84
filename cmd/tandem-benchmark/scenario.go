package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
)

// A scenario is one of the classic key-value benchmarks, named after it,
// at a size --scale multiplies. Each step writes its keys (a SET phase)
// then reads them (a GET phase), and verifies every value read; where the
// SET phase wrote every key once, a GET miss is a key the server lost.
type scenarioDef struct {
	name, about string
	// steps returns the steps at scale, from base: the workload the
	// command line describes (protocol, timeouts, and any size, -c or -P
	// given on it, which override the scenario's own).
	steps func(scale float64, base Workload, given func(string) bool) []Step
}

// scenarios, in the order they run by default.
var scenarios = []scenarioDef{
	{"seed-100b", "SET then GET of 100-byte values, 100,000 keys, 16 connections", func(s float64, b Workload, g func(string) bool) []Step {
		return []Step{seedStep("seed-100b", "", scaled(100_000, s), sized(b, g, 16, 100, 16))}
	}},
	{"seed-20kb", "SET then GET of 20 KB values, 10,000 keys, 16 connections", func(s float64, b Workload, g func(string) bool) []Step {
		return []Step{seedStep("seed-20kb", "", scaled(10_000, s), sized(b, g, 16, 20<<10, 16))}
	}},
	{"kt-10kb-64bkey", "SET then GET of 10 KB values under 64-byte keys, 10,000 keys, 16 connections", func(s float64, b Workload, g func(string) bool) []Step {
		return []Step{seedStep("kt-10kb-64bkey", "", scaled(10_000, s), sized(b, g, 16, 10<<10, 64))}
	}},
	{"concurrency-1kb", "SET then GET of 1 KB values, 20,000 keys, at 1, 2, 5, 10, 20, 50 and 100 connections", func(s float64, b Workload, g func(string) bool) []Step {
		var out []Step
		for _, c := range concurrencyLevels {
			w := sized(b, g, c, 1<<10, 16)
			w.Conns = c // the sweep is the scenario: -c does not override it
			out = append(out, seedStep("concurrency-1kb", fmt.Sprintf("c=%d", c), scaled(20_000, s), w))
		}
		return out
	}},
	{"rb-100b", "redis-benchmark -t set,get -d 100 -r 100000 -c 50 -n 300000, at -P 1 and -P 16 (random keys: GETs may miss)", func(s float64, b Workload, g func(string) bool) []Step {
		var out []Step
		for _, p := range []int{1, 16} {
			w := sized(b, g, 50, 100, 16)
			w.Pipeline = p
			w.Keyspace, w.Requests, w.Dist = 100_000, scaled(300_000, s), distUniform
			out = append(out, Step{Scenario: "rb-100b", Label: fmt.Sprintf("P%d", p), Flush: true,
				Phases: []PhaseRun{{Phase{Name: "SET", Set: 1}, w}, {Phase{Name: "GET", Get: 1}, w}}})
		}
		return out
	}},
	{"tail-50pct", "the tail at half load: seed-100b at 50 connections unpaced (the peak), then paced at 50 % of the reference's peak (compare: redis-server's, memcached's; else --rate or the first target's)", func(s float64, b Workload, g func(string) bool) []Step {
		w := sized(b, g, 50, 100, 16)
		peak := seedStep("tail-50pct", "peak", scaled(100_000, s), w)
		paced := seedStep("tail-50pct", "50%", scaled(100_000, s), w)
		return []Step{peak, paced}
	}},
}

var concurrencyLevels = []int{1, 2, 5, 10, 20, 50, 100}

// defaultScenarios run when none is named: the classic four.
var defaultScenarios = []string{"seed-100b", "seed-20kb", "kt-10kb-64bkey", "concurrency-1kb"}

// scaled is n × scale, at least 1.
func scaled(n int64, scale float64) int64 {
	return max(1, int64(math.Round(float64(n)*scale)))
}

// sized returns base with the scenario's connections, value size and key
// size, unless the command line gave them.
func sized(base Workload, given func(string) bool, conns, value, key int) Workload {
	w := base
	if !given("c") {
		w.Conns = conns
	}
	if !given("d") {
		w.ValueSize = Range{value, value}
	}
	if !given("key-size") {
		w.KeySize = Range{key, key}
	}
	return w
}

// seedStep writes keys 0..keys-1 once each (sequential), then reads as
// many uniformly random keys back, every one of which must be there.
func seedStep(name, label string, keys int64, w Workload) Step {
	w.Keyspace = keys
	w.KeySize.Min = max(w.KeySize.Min, minKeySize(keys))
	w.KeySize.Max = max(w.KeySize.Max, w.KeySize.Min)
	w.Duration = 0
	set, get := w, w
	set.Dist, set.Requests = distSeq, keys
	get.Dist, get.Requests, get.ExpectHits = distUniform, keys, true
	return Step{Scenario: name, Label: label, Flush: true, Phases: []PhaseRun{
		{Phase{Name: "SET", Set: 1}, set},
		{Phase{Name: "GET", Get: 1}, get},
	}}
}

func scenarioNamed(name string) (*scenarioDef, error) {
	for i := range scenarios {
		if scenarios[i].name == name {
			return &scenarios[i], nil
		}
	}
	names := make([]string, len(scenarios))
	for i, s := range scenarios {
		names[i] = s.name
	}
	return nil, fmt.Errorf("unknown scenario %q (%s)", name, strings.Join(names, ", "))
}

// scenarioSteps returns the steps of the named scenarios (all defaults
// when none) at scale.
func scenarioSteps(names []string, scale float64, base Workload, given func(string) bool) ([]*scenarioDef, error) {
	if scale <= 0 || scale > 100 {
		return nil, fmt.Errorf("--scale %v: want (0, 100]", scale)
	}
	if len(names) == 0 {
		names = defaultScenarios
	}
	var out []*scenarioDef
	for _, n := range names {
		for _, one := range strings.Split(n, ",") {
			if one == "all" {
				for i := range scenarios {
					out = append(out, &scenarios[i])
				}
				continue
			}
			d, err := scenarioNamed(one)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
	}
	return out, nil
}

func listScenarios(w io.Writer) {
	for _, s := range scenarios {
		fmt.Fprintf(w, "  %-16s %s\n", s.name, s.about)
	}
}

// runScenario is tandem-benchmark scenario: named scenarios against
// running servers.
func runScenario(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tandem-benchmark scenario", flag.ContinueOnError)
	f := addWorkloadFlags(fs)
	scale := fs.Float64("scale", 1, "multiplies every scenario's number of keys (0.1: a quick look)")
	list := fs.Bool("list", false, "list the scenarios and exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tandem-benchmark scenario [flags] [NAME...] (default: "+strings.Join(defaultScenarios, " ")+"; all: every one)")
		listScenarios(stderr)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr, true); err != nil {
		return usageErr(stderr, "scenario", err)
	}
	if *list {
		listScenarios(stdout)
		return exitOK
	}
	base, err := f.workload()
	if err != nil {
		return usageErr(stderr, "scenario", err)
	}
	defs, err := scenarioSteps(fs.Args(), *scale, base, f.set)
	if err != nil {
		return usageErr(stderr, "scenario", err)
	}
	targets, err := f.targets()
	if err != nil {
		return usageErr(stderr, "scenario", err)
	}
	f.applyProcs()
	rep := newReport(args)
	prog := newProgress(stderr, f.out.quiet)
	for _, d := range defs {
		rs, err := runScenarioOn(d, targets, *scale, base, f, prog, targets[0].Name)
		rep.Results = append(rep.Results, rs...)
		if err != nil {
			fmt.Fprintln(stderr, "tandem-benchmark scenario:", err)
			return exitFailed
		}
	}
	return finish(stdout, stderr, &f.out, rep, nil)
}

// runScenarioOn runs one scenario's steps on targets. A step labelled
// "50%" is paced: at --rate if given, else at half the median ops/s the
// reference target reached in the step before, phase by phase.
func runScenarioOn(d *scenarioDef, targets []Target, scale float64, base Workload, f *wlFlags, prog *progress, reference string) ([]Result, error) {
	steps := d.steps(scale, withProtocol(base, targets[0].Protocol), f.set)
	var out []Result
	for i := range steps {
		st := &steps[i]
		if st.Label == "50%" {
			if err := paceAtHalf(st, out, reference, f.rate); err != nil {
				return out, err
			}
		}
		rs, err := runAll(targets, steps[i:i+1], f.rounds, prog)
		out = append(out, rs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func withProtocol(w Workload, p string) Workload {
	w.Protocol = p
	return w
}

// paceAtHalf sets the rate of each phase of st: rate if given, else half
// the reference's median ops/s in the same phase of the results so far.
func paceAtHalf(st *Step, done []Result, reference string, rate float64) error {
	for i := range st.Phases {
		pr := &st.Phases[i]
		if rate > 0 {
			pr.W.Rate = rate
			continue
		}
		var peaks []Result
		for _, r := range done {
			if r.Scenario == st.Scenario && r.Server == reference && r.Phase == pr.Name {
				peaks = append(peaks, r)
			}
		}
		a := aggregate(peaks)
		if len(a) == 0 || a[0].OpsPerSec <= 0 {
			return errors.New(st.Scenario + ": no peak of " + reference + " to pace at half of")
		}
		pr.W.Rate = math.Round(a[0].OpsPerSec / 2)
	}
	return nil
}
