package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestScenarioScaling(t *testing.T) {
	base := Workload{Protocol: "resp", Conns: 50, Pipeline: 4, KeySize: Range{16, 16}, ValueSize: Range{100, 100}, MultiGet: 1}
	none := func(string) bool { return false }
	defs, err := scenarioSteps([]string{"seed-100b,concurrency-1kb", "kt-10kb-64bkey"}, 0.1, base, none)
	if err != nil || len(defs) != 3 {
		t.Fatalf("%d scenarios, %v", len(defs), err)
	}
	seed := defs[0].steps(0.1, base, none)
	if len(seed) != 1 || len(seed[0].Phases) != 2 {
		t.Fatalf("seed-100b steps %+v", seed)
	}
	set, get := seed[0].Phases[0].W, seed[0].Phases[1].W
	if set.Keyspace != 10_000 || set.Requests != 10_000 || set.Dist != distSeq || set.Conns != 16 || set.ValueSize != (Range{100, 100}) {
		t.Errorf("seed-100b SET at scale 0.1: %+v", set)
	}
	if !get.ExpectHits || get.Dist != distUniform || get.Requests != 10_000 || set.ExpectHits || !seed[0].Flush {
		t.Errorf("seed-100b GET: %+v", get)
	}
	if set.Pipeline != 4 {
		t.Errorf("-P from the command line is not kept: %d", set.Pipeline)
	}
	conc := defs[1].steps(0.1, base, func(n string) bool { return n == "c" || n == "d" })
	if len(conc) != 7 || conc[0].Label != "c=1" || conc[6].Phases[0].W.Conns != 100 || conc[3].Phases[1].W.Keyspace != 2000 {
		t.Errorf("concurrency-1kb steps: %d, %+v", len(conc), conc[0])
	}
	if conc[0].Phases[0].W.ValueSize != (Range{100, 100}) {
		t.Error("-d given does not override the scenario's value size")
	}
	kt := defs[2].steps(1, base, none)[0].Phases[0].W
	if kt.KeySize != (Range{64, 64}) || kt.ValueSize != (Range{10240, 10240}) || kt.Keyspace != 10_000 {
		t.Errorf("kt-10kb-64bkey %+v", kt)
	}
	if tiny := defs[0].steps(0.00001, base, none)[0].Phases[0].W; tiny.Keyspace != 1 || tiny.KeySize.Min < minKeySize(1) {
		t.Errorf("a tiny scale: %+v", tiny)
	}
	if _, err := scenarioSteps([]string{"seed-1gb"}, 1, base, none); err == nil {
		t.Error("an unknown scenario is accepted")
	}
	if _, err := scenarioSteps(nil, 0, base, none); err == nil {
		t.Error("scale 0 is accepted")
	}
	if all, _ := scenarioSteps([]string{"all"}, 1, base, none); len(all) != len(scenarios) {
		t.Errorf("all: %d", len(all))
	}
}

func TestTailStepIsPacedAtHalfTheReference(t *testing.T) {
	f, g := startFake(t, "resp", nil), startFake(t, "resp", nil)
	rep, code := runJSON(t, "scenario", "--server", "ref="+f.addr()+",other="+g.addr(), "--scale", "0.002", "tail-50pct")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	peak := map[string]float64{}
	for _, r := range rep.Results {
		if r.Step == "peak" && r.Server == "ref" {
			peak[r.Phase] = r.OpsPerSec
		}
	}
	paced := 0
	for _, r := range rep.Results {
		if r.Step != "50%" {
			continue
		}
		paced++
		if want := peak[r.Phase] / 2; r.Rate < want*0.99 || r.Rate > want*1.01 {
			t.Errorf("%s %s paced at %v, want half of %v", r.Server, r.Phase, r.Rate, peak[r.Phase])
		}
	}
	if paced != 4 {
		t.Errorf("%d paced results, want 4", paced)
	}
}

func TestRatios(t *testing.T) {
	mk := func(server string, ops, p99 float64, errs uint64) Result {
		return Result{Scenario: "seed-100b", Protocol: "resp", Phase: "SET", Server: server, OpsPerSec: ops,
			Latency: LatencyMS{P99: p99, P999: 2 * p99}, Errors: errs, Verified: true}
	}
	var out bytes.Buffer
	writeRatios(&out, aggregate([]Result{mk(nameTandem, 90, 1, 0), mk(nameRedis, 100, 2, 0), mk(nameNull, 120, 0.5, 0)}))
	if s := out.String(); !strings.Contains(s, "| seed-100b | — | resp | SET | 90 | **0.90** | — | **0.75** | 0.50 | 0.50 |") {
		t.Errorf("ratios:\n%s", s)
	}
	out.Reset()
	writeRatios(&out, aggregate([]Result{mk(nameTandem, 90, 1, 0), mk(nameRedis, 100, 2, 3)}))
	if s := out.String(); !strings.Contains(s, "| FAILED | — | — |") {
		t.Errorf("a failed reference still gives a ratio:\n%s", s)
	}
}
