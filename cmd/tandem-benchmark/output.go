package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// Report is everything a run measured; --json prints it, --out writes it
// as results.json (and tandem-benchmark chart reads it back).
type Report struct {
	Command string            `json:"command"`
	Date    string            `json:"date"`
	Env     map[string]string `json:"env,omitempty"` // machine, versions, settings
	Results []Result          `json:"results"`
}

// Agg is one row of a table: a phase of a step on one server, over the
// rounds.
type Agg struct {
	Scenario, Step, Protocol, Phase, Server string
	Conns, Pipeline                         int
	ValueSize                               string
	Rate                                    float64
	Runs                                    []float64 // ops/s of every round, in order
	OpsPerSec                               float64   // median
	Latency                                 LatencyMS // medians
	Errors                                  uint64    // summed over the rounds
	FirstError                              string
	Verified                                bool
	CPUPercent                              float64 // median; 0 unknown
	PeakRSS                                 int64   // highest
}

// group is what a row stands for, the server left out: the rows a ratio
// compares.
func (a *Agg) group() string {
	return strings.Join([]string{a.Scenario, a.Step, a.Protocol, a.Phase}, "\x00")
}

// aggregate folds the rounds of each (scenario, step, protocol, phase,
// server) into one row, in the order first seen.
func aggregate(rs []Result) []*Agg {
	var out []*Agg
	byKey := map[string]*Agg{}
	lat := map[*Agg][5][]float64{}
	cpu := map[*Agg][]float64{}
	for _, r := range rs {
		k := strings.Join([]string{r.Scenario, r.Step, r.Protocol, r.Phase, r.Server}, "\x00")
		a := byKey[k]
		if a == nil {
			a = &Agg{Scenario: r.Scenario, Step: r.Step, Protocol: r.Protocol, Phase: r.Phase, Server: r.Server,
				Conns: r.Conns, Pipeline: r.Pipeline, ValueSize: r.ValueSize, Rate: r.Rate, Verified: r.Verified}
			byKey[k] = a
			out = append(out, a)
		}
		a.Runs = append(a.Runs, r.OpsPerSec)
		l := lat[a]
		for i, v := range []float64{r.Latency.P50, r.Latency.P90, r.Latency.P99, r.Latency.P999, r.Latency.Max} {
			l[i] = append(l[i], v)
		}
		lat[a] = l
		if r.ServerCPU > 0 {
			cpu[a] = append(cpu[a], r.CPUPercent())
		}
		a.Errors += r.Errors
		if a.FirstError == "" {
			a.FirstError = r.FirstError
		}
		a.PeakRSS = max(a.PeakRSS, r.ServerPeakRSS)
	}
	for _, a := range out {
		a.OpsPerSec = benchkit.Median(a.Runs)
		l := lat[a]
		a.Latency = LatencyMS{benchkit.Median(l[0]), benchkit.Median(l[1]), benchkit.Median(l[2]), benchkit.Median(l[3]), benchkit.Median(l[4])}
		a.CPUPercent = benchkit.Median(cpu[a])
	}
	return out
}

func kops(x float64) string { return fmt.Sprintf("%.0fk", x/1000) }

func mb(n int64) string {
	if n <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
}

// writeTable prints the rows as a Markdown table. A server with errors
// shows them instead of its figures: a server that lost or corrupted data
// is reported, not averaged.
func writeTable(w io.Writer, aggs []*Agg) {
	fmt.Fprintln(w, "| scenario | step | protocol | phase | server | ops/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | errors | server CPU | peak RSS | ops/s per round |")
	fmt.Fprintln(w, "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, a := range aggs {
		runs := make([]string, len(a.Runs))
		for i, x := range a.Runs {
			runs[i] = kops(x)
		}
		cpu := "—"
		if a.CPUPercent > 0 {
			cpu = fmt.Sprintf("%.0f %%", a.CPUPercent)
		}
		errs := strconv.FormatUint(a.Errors, 10)
		if !a.Verified {
			errs += " (not verified)"
		}
		ops := fmt.Sprintf("%.0f", a.OpsPerSec)
		if a.Errors > 0 {
			ops = "FAILED"
			errs += ": " + cell(a.FirstError)
		}
		phase := a.Phase
		if a.Rate > 0 {
			phase += fmt.Sprintf(" @%.0f/s", a.Rate)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s | %s | %s |\n",
			dash(a.Scenario), dash(a.Step), a.Protocol, phase, a.Server, ops, a.Latency.P50, a.Latency.P90, a.Latency.P99, a.Latency.P999, a.Latency.Max,
			errs, cpu, mb(a.PeakRSS), strings.Join(runs, " "))
	}
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// cell makes s safe in a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "/")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// writeQuiet prints one line per row, as redis-benchmark -q does.
func writeQuiet(w io.Writer, aggs []*Agg) {
	for _, a := range aggs {
		name := a.Server + " " + a.Phase
		if a.Scenario != "" {
			name = strings.TrimSpace(a.Scenario+" "+a.Step) + " " + name
		}
		status := ""
		if a.Errors > 0 {
			status = fmt.Sprintf(" — %d ERRORS: %s", a.Errors, a.FirstError)
		}
		fmt.Fprintf(w, "%s: %.2f requests per second, p50=%.3f msec%s\n", name, a.OpsPerSec, a.Latency.P50, status)
	}
}

// csvHeader's first columns are redis-benchmark --csv's names, so one
// parser reads both.
var csvHeader = []string{"test", "rps", "p50_latency_ms", "p90_latency_ms", "p99_latency_ms", "p99.9_latency_ms", "max_latency_ms",
	"hits", "misses", "errors", "lost", "server", "protocol", "scenario", "step", "round", "connections", "pipeline", "key_size", "value_size",
	"rate", "seconds", "server_cpu_seconds", "server_peak_rss", "verified", "first_error"}

// writeCSV writes one line per result (every round), a header first.
func writeCSV(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	for _, r := range rs {
		cw.Write([]string{r.Phase, f(r.OpsPerSec, 2), f(r.Latency.P50, 3), f(r.Latency.P90, 3), f(r.Latency.P99, 3), f(r.Latency.P999, 3), f(r.Latency.Max, 3),
			u(r.Hits), u(r.Misses), u(r.Errors), u(r.Lost), r.Server, r.Protocol, r.Scenario, r.Step, strconv.Itoa(r.Round),
			strconv.Itoa(r.Conns), strconv.Itoa(r.Pipeline), r.KeySize, r.ValueSize, f(r.Rate, 0), f(r.Seconds, 3),
			f(r.ServerCPU, 2), strconv.FormatInt(r.ServerPeakRSS, 10), strconv.FormatBool(r.Verified), r.FirstError})
	}
	cw.Flush()
	return cw.Error()
}

func writeJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// outFlags are the output flags every measuring subcommand takes.
type outFlags struct {
	quiet, csv, json bool
	dir              string
}

// emit prints the report as asked (table, -q, --csv or --json) and, with
// --out, writes results.json, results.csv, table.md and the charts there.
// extra is printed after the table (compare's ratios).
func (o *outFlags) emit(stdout io.Writer, rep *Report, extra func(io.Writer)) error {
	aggs := aggregate(rep.Results)
	var err error
	switch {
	case o.json:
		err = writeJSON(stdout, rep)
	case o.csv:
		err = writeCSV(stdout, rep.Results)
	case o.quiet:
		writeQuiet(stdout, aggs)
		if extra != nil {
			extra(stdout)
		}
	default:
		writeTable(stdout, aggs)
		if extra != nil {
			extra(stdout)
		}
	}
	if err != nil || o.dir == "" {
		return err
	}
	return writeOut(o.dir, rep, extra)
}

// writeOut writes the results, the table and the charts into dir.
func writeOut(dir string, rep *Report, extra func(io.Writer)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var js, cs, md strings.Builder
	if err := writeJSON(&js, rep); err != nil {
		return err
	}
	if err := writeCSV(&cs, rep.Results); err != nil {
		return err
	}
	fmt.Fprintf(&md, "`%s` — %s\n\n", rep.Command, rep.Date)
	writeTable(&md, aggregate(rep.Results))
	if extra != nil {
		extra(&md)
	}
	files := map[string]string{"results.json": js.String(), "results.csv": cs.String(), "table.md": md.String()}
	for name, svg := range charts(rep.Results) {
		files[name] = svg
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
