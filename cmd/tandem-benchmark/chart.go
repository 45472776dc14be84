package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Charts are hand-written SVG (no dependency), sized to sit in a
// Markdown page: for every scenario its throughput and its p99 per
// server, grouped by step and phase as bars, or, for a sweep over
// connections (steps c=N), as lines over the connection count.

// seriesColors are the servers' colours, in order of first appearance;
// Tandem is always the first.
var seriesColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#7f7f7f", "#9467bd", "#ff7f0e", "#8c564b"}

// metric is what a chart plots.
type metric struct {
	file, title, unit string
	value             func(*Agg) float64
}

var chartMetrics = []metric{
	{"throughput", "throughput", "ops/s", func(a *Agg) float64 { return a.OpsPerSec }},
	{"p99", "p99 latency", "ms", func(a *Agg) float64 { return a.Latency.P99 }},
}

// charts returns the SVG charts of a run, by file name.
func charts(rs []Result) map[string]string {
	out := map[string]string{}
	aggs := aggregate(rs)
	var names []string
	byScenario := map[string][]*Agg{}
	for _, a := range aggs {
		name := a.Scenario
		if name == "" {
			name = "load"
		}
		if byScenario[name] == nil {
			names = append(names, name)
		}
		byScenario[name] = append(byScenario[name], a)
	}
	for _, name := range names {
		as := byScenario[name]
		for _, m := range chartMetrics {
			file := name + "-" + m.file + ".svg"
			if isSweep(as) {
				out[file] = lineChart(name+": "+m.title+" by connections", m, as)
			} else {
				out[file] = barChart(name+": "+m.title, m, as)
			}
		}
	}
	return out
}

// isSweep reports whether every step is a connection count (c=N).
func isSweep(as []*Agg) bool {
	for _, a := range as {
		if _, ok := sweepX(a); !ok {
			return false
		}
	}
	return len(as) > 0
}

func sweepX(a *Agg) (int, bool) {
	s, ok := strings.CutPrefix(a.Step, "c=")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// svg is a chart being drawn.
type svg struct {
	b             bytes.Buffer
	w, h          float64
	left, right   float64
	top, bottom   float64
	ymax          float64
	unit          string
	servers       []string
	serverColours map[string]string
}

func newSVG(title, unit string, ymax float64, servers []string) *svg {
	s := &svg{w: 820, h: 420, left: 78, right: 20, top: 64, bottom: 78, unit: unit, servers: servers, serverColours: map[string]string{}}
	for i, name := range servers {
		s.serverColours[name] = seriesColors[i%len(seriesColors)]
	}
	s.ymax = niceMax(ymax)
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", s.w, s.h, s.w, s.h)
	fmt.Fprintf(&s.b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	s.text(s.w/2, 22, "middle", 15, title)
	// Legend.
	x := s.left
	for _, name := range servers {
		fmt.Fprintf(&s.b, `<rect class="legend" x="%.1f" y="34" width="12" height="12" fill="%s"/>`+"\n", x, s.serverColours[name])
		s.text(x+16, 45, "start", 12, name)
		x += 30 + 7*float64(len(name))
	}
	// Axis and grid.
	for i := 0; i <= 5; i++ {
		v := s.ymax * float64(i) / 5
		y := s.y(v)
		fmt.Fprintf(&s.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", s.left, y, s.w-s.right, y)
		s.text(s.left-6, y+4, "end", 11, formatValue(v))
	}
	fmt.Fprintf(&s.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", s.left, s.y(0), s.w-s.right, s.y(0))
	fmt.Fprintf(&s.b, `<text x="16" y="%.1f" text-anchor="middle" font-size="12" transform="rotate(-90 16 %.1f)">%s</text>`+"\n", (s.top+s.h-s.bottom)/2, (s.top+s.h-s.bottom)/2, esc(unit))
	return s
}

func (s *svg) y(v float64) float64 {
	if s.ymax <= 0 {
		return s.h - s.bottom
	}
	return s.h - s.bottom - (s.h-s.top-s.bottom)*v/s.ymax
}

func (s *svg) text(x, y float64, anchor string, size int, t string) {
	fmt.Fprintf(&s.b, `<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d">%s</text>`+"\n", x, y, anchor, size, esc(t))
}

func (s *svg) done() string {
	s.b.WriteString("</svg>\n")
	return s.b.String()
}

func esc(t string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(t))
	return b.String()
}

// niceMax rounds v up to 1, 2 or 5 times a power of ten (at least 1).
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// formatValue prints an axis value: 250k, 1.5M, 0.25.
func formatValue(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// serversOf lists the servers in order of first appearance.
func serversOf(as []*Agg) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range as {
		if !seen[a.Server] {
			seen[a.Server] = true
			out = append(out, a.Server)
		}
	}
	return out
}

// barChart draws one group of bars per (step, protocol, phase), a bar per
// server; a server that failed its checks gets no bar but FAILED.
func barChart(title string, m metric, as []*Agg) string {
	var groups []string
	byGroup := map[string][]*Agg{}
	ymax := 0.0
	for _, a := range as {
		g := strings.TrimSpace(strings.Join([]string{a.Step, a.Protocol, a.Phase}, " "))
		if byGroup[g] == nil {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], a)
		if a.Errors == 0 {
			ymax = max(ymax, m.value(a))
		}
	}
	servers := serversOf(as)
	s := newSVG(title, m.unit, ymax, servers)
	plotW := s.w - s.left - s.right
	gw := plotW / float64(max(len(groups), 1))
	bw := min(48, 0.8*gw/float64(max(len(servers), 1)))
	for gi, g := range groups {
		x0 := s.left + float64(gi)*gw + (gw-bw*float64(len(servers)))/2
		for _, a := range byGroup[g] {
			si := indexOf(servers, a.Server)
			x := x0 + float64(si)*bw
			if a.Errors > 0 {
				fmt.Fprintf(&s.b, `<text class="failed" x="%.1f" y="%.1f" text-anchor="middle" font-size="10" fill="#d00" transform="rotate(-90 %.1f %.1f)">FAILED</text>`+"\n",
					x+bw/2, s.y(0)-4, x+bw/2, s.y(0)-4)
				continue
			}
			v := m.value(a)
			y := s.y(v)
			fmt.Fprintf(&s.b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s %s</title></rect>`+"\n",
				x+1, y, bw-2, s.y(0)-y, s.serverColours[a.Server], esc(a.Server), esc(g), formatValue(v), esc(m.unit))
		}
		s.text(s.left+float64(gi)*gw+gw/2, s.h-s.bottom+18, "middle", 11, g)
	}
	return s.done()
}

// lineChart draws a line per (server, protocol, phase) over the
// connection counts, placed evenly (1, 2, 5, … 100 are far from linear).
func lineChart(title string, m metric, as []*Agg) string {
	xsSet := map[int]bool{}
	type key struct{ server, proto, phase string }
	var keys []key
	lines := map[key]map[int]*Agg{}
	ymax := 0.0
	for _, a := range as {
		x, _ := sweepX(a)
		xsSet[x] = true
		k := key{a.Server, a.Protocol, a.Phase}
		if lines[k] == nil {
			lines[k] = map[int]*Agg{}
			keys = append(keys, k)
		}
		lines[k][x] = a
		if a.Errors == 0 {
			ymax = max(ymax, m.value(a))
		}
	}
	var xs []int
	for x := range xsSet {
		xs = append(xs, x)
	}
	sort.Ints(xs)
	servers := serversOf(as)
	s := newSVG(title, m.unit, ymax, servers)
	plotW := s.w - s.left - s.right
	px := func(i int) float64 { return s.left + plotW*(float64(i)+0.5)/float64(len(xs)) }
	for i, x := range xs {
		s.text(px(i), s.h-s.bottom+18, "middle", 11, strconv.Itoa(x))
	}
	s.text(s.left+plotW/2, s.h-s.bottom+40, "middle", 12, "connections")
	phases := map[string]int{}
	for _, k := range keys {
		if _, ok := phases[k.proto+" "+k.phase]; !ok {
			phases[k.proto+" "+k.phase] = len(phases)
		}
	}
	dashes := []string{"", "6 3", "2 3", "8 3 2 3"}
	for _, k := range keys {
		var pts []string
		for i, x := range xs {
			a := lines[k][x]
			if a == nil || a.Errors > 0 {
				continue // a failed point is left out: the line has a gap
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(i), s.y(m.value(a))))
		}
		d := dashes[phases[k.proto+" "+k.phase]%len(dashes)]
		fmt.Fprintf(&s.b, `<polyline class="line" fill="none" stroke="%s" stroke-width="2" stroke-dasharray="%s" points="%s"><title>%s %s %s</title></polyline>`+"\n",
			s.serverColours[k.server], d, strings.Join(pts, " "), esc(k.server), esc(k.proto), esc(k.phase))
	}
	// Which dash is which phase.
	y := s.h - 14.0
	x := s.left
	var names []string
	for p := range phases {
		names = append(names, p)
	}
	sort.Slice(names, func(i, j int) bool { return phases[names[i]] < phases[names[j]] })
	for _, p := range names {
		fmt.Fprintf(&s.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-width="2" stroke-dasharray="%s"/>`+"\n", x, y-4, x+28, y-4, dashes[phases[p]%len(dashes)])
		s.text(x+32, y, "start", 11, p)
		x += 50 + 7*float64(len(p))
	}
	return s.done()
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return 0
}

// runChart is tandem-benchmark chart: the charts of a results.json
// (written by --out) drawn again, e.g. after the drawing changed.
func runChart(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tandem-benchmark chart", flag.ContinueOnError)
	in := fs.String("in", "results.json", "a results.json written by --out")
	dir := fs.String("out", ".", "directory for the SVG files")
	if err := parseFlags(fs, args, stderr, false); err != nil {
		return usageErr(stderr, "chart", err)
	}
	b, err := os.ReadFile(*in)
	if err != nil {
		fmt.Fprintln(stderr, "tandem-benchmark chart:", err)
		return exitFailed
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		fmt.Fprintf(stderr, "tandem-benchmark chart: %s: %v\n", *in, err)
		return exitFailed
	}
	for name, doc := range charts(rep.Results) {
		p := filepath.Join(*dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			fmt.Fprintln(stderr, "tandem-benchmark chart:", err)
			return exitFailed
		}
		fmt.Fprintln(stdout, p)
	}
	return exitOK
}
