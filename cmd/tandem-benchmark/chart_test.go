package main

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// wellFormed parses an SVG to the end and counts its elements by class.
func wellFormed(t *testing.T, name, doc string) map[string]int {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	classes := map[string]int{}
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v\n%s", name, err, doc)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
				if se.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("%s: root namespace %q", name, se.Name.Space)
				}
			}
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					classes[a.Value]++
				}
			}
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q", name, root)
	}
	return classes
}

func TestChartsAreWellFormedSVG(t *testing.T) {
	var rs []Result
	add := func(scenario, step, server, phase string, ops, p99 float64, errs uint64) {
		rs = append(rs, Result{Scenario: scenario, Step: step, Server: server, Protocol: "resp", Phase: phase, OpsPerSec: ops,
			Latency: LatencyMS{P99: p99}, Errors: errs, Verified: true})
	}
	for _, srv := range []string{"tandem", "redis-server", "a<b&c"} {
		add("seed-100b", "", srv, "SET", 80000, 1.2, 0)
		add("seed-100b", "", srv, "GET", 90000, 0.8, 0)
		for _, c := range []string{"c=1", "c=10", "c=100"} {
			add("concurrency-1kb", c, srv, "SET", 50000, 2, 0)
			add("concurrency-1kb", c, srv, "GET", 60000, 1, 0)
		}
	}
	add("seed-100b", "", "broken", "GET", 1e9, 100, 7) // a failed server: no bar, no axis stretched to it
	cs := charts(rs)
	for _, want := range []string{"seed-100b-throughput.svg", "seed-100b-p99.svg", "concurrency-1kb-throughput.svg", "concurrency-1kb-p99.svg"} {
		if cs[want] == "" {
			t.Fatalf("no %s among %d charts", want, len(cs))
		}
	}
	bars := wellFormed(t, "seed-100b-throughput.svg", cs["seed-100b-throughput.svg"])
	if bars["bar"] != 6 || bars["failed"] != 1 || bars["legend"] != 4 {
		t.Errorf("bars %v, want 6 bars, 1 FAILED, 4 legend entries", bars)
	}
	if strings.Contains(cs["seed-100b-throughput.svg"], "1000M") {
		t.Error("the failed server's figure sets the axis")
	}
	lines := wellFormed(t, "concurrency-1kb-p99.svg", cs["concurrency-1kb-p99.svg"])
	if lines["line"] != 6 {
		t.Errorf("lines %v, want 6 (3 servers × SET, GET)", lines)
	}
	if !strings.Contains(cs["concurrency-1kb-throughput.svg"], ">100</text>") {
		t.Error("the sweep's x axis lacks 100 connections")
	}
}

func TestNiceMax(t *testing.T) {
	for in, want := range map[float64]float64{0: 1, 0.7: 1, 1: 1, 1.2: 2, 3: 5, 87000: 100000, 120000: 200000, 240000: 250000} {
		if got := niceMax(in); got != want {
			t.Errorf("niceMax(%v) = %v, want %v", in, got, want)
		}
	}
}
