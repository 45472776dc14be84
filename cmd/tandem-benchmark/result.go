package main

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// Step is one set of connections to a target and the phases they run in
// turn: a load run is one step, a scenario one or more (a concurrency
// level, a pipeline depth each).
type Step struct {
	Scenario string
	Label    string // "c=10", "P16"; "" for a scenario's only step
	Flush    bool   // empty the target first
	Phases   []PhaseRun
}

// PhaseRun is a phase and the workload it runs with.
type PhaseRun struct {
	Phase
	W Workload
}

// Result is one phase of one step on one target in one round.
type Result struct {
	Scenario  string  `json:"scenario,omitempty"`
	Step      string  `json:"step,omitempty"`
	Server    string  `json:"server"`
	Protocol  string  `json:"protocol"`
	Round     int     `json:"round"`
	Phase     string  `json:"phase"`
	Conns     int     `json:"connections"`
	Pipeline  int     `json:"pipeline"`
	KeySize   string  `json:"key_size"`
	ValueSize string  `json:"value_size"`
	Rate      float64 `json:"rate,omitempty"` // the paced rate asked for; 0: closed loop

	Replies   uint64  `json:"replies"`
	Seconds   float64 `json:"seconds"`
	OpsPerSec float64 `json:"ops_per_sec"`
	Sets      uint64  `json:"sets"`
	Gets      uint64  `json:"gets"`
	Hits      uint64  `json:"hits"`
	Misses    uint64  `json:"misses"`
	// Errors is every failure: error replies, wrong values, keys missing
	// that were written, requests never answered.
	Errors       uint64 `json:"errors"`
	ErrorReplies uint64 `json:"error_replies"`
	WrongValues  uint64 `json:"wrong_values"`
	Missing      uint64 `json:"missing"`
	Lost         uint64 `json:"lost"`
	FirstError   string `json:"first_error,omitempty"`
	Verified     bool   `json:"verified"`

	Latency LatencyMS `json:"latency_ms"`

	// The server's CPU time during the phase and its peak RSS (with
	// children), when its process is known.
	ServerCPU     float64 `json:"server_cpu_seconds,omitempty"`
	ServerPeakRSS int64   `json:"server_peak_rss,omitempty"`
}

// LatencyMS are latency percentiles in milliseconds.
type LatencyMS struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// CPUPercent is the server's CPU time over the phase's wall time: 100 is
// one core busy all along.
func (r *Result) CPUPercent() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return 100 * r.ServerCPU / r.Seconds
}

func resultOf(t Target, step *Step, pr *PhaseRun, round int, o phaseOutcome, u benchkit.Usage) Result {
	st := &o.st
	r := Result{
		Scenario: step.Scenario, Step: step.Label, Server: t.Name, Protocol: t.Protocol, Round: round,
		Phase: pr.Name, Conns: pr.W.Conns, Pipeline: pr.W.Pipeline, KeySize: pr.W.KeySize.String(),
		ValueSize: pr.W.ValueSize.String(), Rate: pr.W.Rate,
		Replies: st.replies, Seconds: o.elapsed.Seconds(), Sets: st.sets, Gets: st.gets, Hits: st.hits, Misses: st.misses,
		Errors: st.errors(), ErrorReplies: st.errorReplies, WrongValues: st.wrongValues, Missing: st.missing, Lost: st.lost,
		FirstError: st.firstError, Verified: !t.NoVerify,
		Latency: LatencyMS{
			P50:  ms(st.hist.Percentile(50)),
			P90:  ms(st.hist.Percentile(90)),
			P99:  ms(st.hist.Percentile(99)),
			P999: ms(st.hist.Percentile(99.9)),
			Max:  ms(st.hist.Max()),
		},
		ServerCPU: u.CPUSeconds, ServerPeakRSS: u.PeakRSS,
	}
	if o.elapsed > 0 {
		r.OpsPerSec = float64(st.replies) / o.elapsed.Seconds()
	}
	return r
}

// runStep runs a step's phases on one target. prog, if not nil, shows
// progress.
func runStep(t Target, step *Step, round int, zipfs map[[2]float64]*benchkit.Zipf, prog *progress) ([]Result, error) {
	first := &step.Phases[0].W
	if step.Flush {
		if err := flush(t, first.Timeout); err != nil {
			return nil, fmt.Errorf("%s: flush: %w", t.Name, err)
		}
	}
	ws, err := dialAll(t, first)
	if err != nil {
		return nil, err
	}
	defer closeAll(ws)
	var out []Result
	for i := range step.Phases {
		pr := &step.Phases[i]
		var done atomic.Int64
		label := t.Name + " " + pr.Name
		if step.Scenario != "" {
			label = step.Scenario + " " + step.Label + " " + label
		}
		stop := prog.watch(label, &done, pr.W.Requests, pr.W.Duration)
		var sm *benchkit.Sampler
		if t.Pid > 0 {
			sm = benchkit.StartSampler(t.Pid, 100*time.Millisecond, nil)
		}
		o, err := runPhase(ws, pr.Phase, &pr.W, zipfs, &done)
		var u benchkit.Usage
		if sm != nil {
			u = benchkit.UsageOf(sm.Stop())
		}
		stop()
		if err != nil {
			return out, err
		}
		out = append(out, resultOf(t, step, pr, round, o, u))
	}
	return out, nil
}

// runAll runs every step on every target, rounds times; in each round
// and step the targets take turns, the first one moving by one each
// round, so noise from the machine falls on all of them.
func runAll(targets []Target, steps []Step, rounds int, prog *progress) ([]Result, error) {
	zipfs := map[[2]float64]*benchkit.Zipf{}
	var out []Result
	for round := 1; round <= rounds; round++ {
		for si := range steps {
			for j := range targets {
				t := targets[(j+round-1)%len(targets)]
				rs, err := runStep(t, &steps[si], round, zipfs, prog)
				out = append(out, rs...)
				if err != nil {
					return out, err
				}
			}
		}
	}
	return out, nil
}
