package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// report is the outcome of a run; -json prints it as is.
type report struct {
	Proto       string        `json:"proto"`
	Addr        string        `json:"addr"`
	Connections int           `json:"connections"`
	Pipeline    int           `json:"pipeline"`
	Keyspace    int64         `json:"keyspace"`
	ValueSize   int           `json:"value_size"`
	Seed        uint64        `json:"seed"`
	Phases      []phaseResult `json:"phases"`
}

// phaseResult is one phase's figures.
type phaseResult struct {
	Name       string    `json:"name"`
	Replies    uint64    `json:"replies"`
	Seconds    float64   `json:"seconds"`
	OpsPerSec  float64   `json:"ops_per_sec"` // replies per second
	Sets       uint64    `json:"sets"`
	Gets       uint64    `json:"gets"`
	Hits       uint64    `json:"hits"`
	Misses     uint64    `json:"misses"`
	Errors     uint64    `json:"errors"` // error replies, failed verifications, lost requests
	Lost       uint64    `json:"lost"`   // requests never answered, counted in errors too
	FirstError string    `json:"first_error,omitempty"`
	Latency    latencyMS `json:"latency_ms"`
}

// latencyMS are latency percentiles in milliseconds.
type latencyMS struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

func newReport(o *options, addr string) *report {
	return &report{
		Proto:       o.proto,
		Addr:        addr,
		Connections: o.conns,
		Pipeline:    o.pipeline,
		Keyspace:    o.keyspace,
		ValueSize:   o.valueLen,
		Seed:        o.seed,
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func phaseResultOf(ph phase, st *stats, elapsed time.Duration) phaseResult {
	r := phaseResult{
		Name:       ph.name,
		Replies:    st.replies,
		Seconds:    elapsed.Seconds(),
		Sets:       st.sets,
		Gets:       st.gets,
		Hits:       st.hits,
		Misses:     st.misses,
		Errors:     st.errors,
		Lost:       st.lost,
		FirstError: st.firstError,
		Latency: latencyMS{
			P50:  ms(st.hist.percentile(50)),
			P90:  ms(st.hist.percentile(90)),
			P99:  ms(st.hist.percentile(99)),
			P999: ms(st.hist.percentile(99.9)),
			Max:  ms(time.Duration(st.hist.max)),
		},
	}
	if elapsed > 0 {
		r.OpsPerSec = float64(st.replies) / elapsed.Seconds()
	}
	return r
}

func (p *phaseResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s: %.2f ops/s, %d replies in %.2fs; latency ms p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f",
		p.Name, p.OpsPerSec, p.Replies, p.Seconds, p.Latency.P50, p.Latency.P90, p.Latency.P99, p.Latency.P999, p.Latency.Max)
	if p.Gets > 0 {
		fmt.Fprintf(w, "; hits %d misses %d", p.Hits, p.Misses)
	}
	fmt.Fprintf(w, "; errors %d", p.Errors)
	if p.Lost > 0 {
		fmt.Fprintf(w, " (%d lost)", p.Lost)
	}
	fmt.Fprintln(w)
	if p.FirstError != "" {
		fmt.Fprintf(w, "  first error: %s\n", p.FirstError)
	}
}

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeCSVHeader writes the header of -csv output; the first columns are
// redis-benchmark's names, so one parser reads both.
func writeCSVHeader(w io.Writer) {
	fmt.Fprintln(w, `"test","rps","p50_latency_ms","p90_latency_ms","p99_latency_ms","p99.9_latency_ms","max_latency_ms","hits","misses","errors","lost"`)
}

// writeCSV writes the phase as one line under writeCSVHeader's columns.
func (p *phaseResult) writeCSV(w io.Writer) {
	fmt.Fprintf(w, "%q,\"%.2f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%d\",\"%d\",\"%d\",\"%d\"\n",
		p.Name, p.OpsPerSec, p.Latency.P50, p.Latency.P90, p.Latency.P99, p.Latency.P999, p.Latency.Max,
		p.Hits, p.Misses, p.Errors, p.Lost)
}
