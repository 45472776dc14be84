package compat

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/latency"
)

// LATENCY, differential: each case turns latency-monitor-threshold to 20
// ms on both servers and makes a command that slow with DEBUG SLEEP, so
// both record one "command" sample; LATEST and HISTORY are compared by
// shape (event names exact, times and latencies free), the rest exactly.
// LATENCY HISTOGRAM replies are compared by shape (command names and
// keys exact, calls, buckets and counts free), after one call of a
// command a bucket only: the durations are each server's own.

func TestRedisLatency(t *testing.T) { runSlowlogCases(t, latencyCases) }

var (
	latencyOn  = mbs("CONFIG SET latency-monitor-threshold 20", "LATENCY RESET")
	latencyOff = mbs("CONFIG SET latency-monitor-threshold 0", "LATENCY RESET")
)

var latencyCases = []slowlogCase{
	{name: "latency latest history reset", on: latencyOn, off: latencyOff,
		cmds: mbs("LATENCY LATEST", "LATENCY HISTORY command", "DEBUG SLEEP 0.05", "LATENCY LATEST", "LATENCY HISTORY command",
			"LATENCY HISTORY COMMAND", "LATENCY HISTORY nosuch", "LATENCY RESET nosuch", "LATENCY RESET COMMAND nosuch",
			"LATENCY LATEST", "DEBUG SLEEP 0.05", "LATENCY RESET", "LATENCY RESET"),
		shapes: []int{3, 4}},
	{name: "latency off", on: latencyOn, off: latencyOff,
		cmds: mbs("CONFIG SET latency-monitor-threshold 0", "DEBUG SLEEP 0.05", "LATENCY LATEST", "CONFIG SET latency-monitor-threshold 1000",
			"DEBUG SLEEP 0.05", "LATENCY LATEST")},
	{name: "latency help and errors", on: latencyOn, off: latencyOff,
		cmds: mbs("LATENCY HELP", "latency help", "LATENCY", "LATENCY HELP x", "LATENCY LATEST x", "LATENCY HISTORY",
			"LATENCY HISTORY a b", "LATENCY nosuch", "LATENCY GRAPH", "LATENCY GRAPH a b", "LATENCY DOCTOR x",
			"LATENCY GRAPH command", "LATENCY GRAPH nosuch")},
	// An event's chart and the report on it carry its milliseconds (50
	// or 51 for DEBUG SLEEP 0.05): not compared (TestLatencyGraphDoctor
	// compares them with the milliseconds masked); the texts without
	// events exactly.
	{name: "latency graph doctor", on: latencyOn, off: latencyOff,
		cmds: mbs("LATENCY DOCTOR", "CONFIG SET latency-monitor-threshold 0", "LATENCY DOCTOR",
			"CONFIG SET latency-monitor-threshold 20", "DEBUG SLEEP 0.05", "LATENCY GRAPH command", "LATENCY GRAPH COMMAND",
			"LATENCY DOCTOR", "LATENCY RESET", "LATENCY GRAPH command", "LATENCY DOCTOR"),
		any: []int{5, 7}},
	{name: "latency histogram", on: latencyOn, off: latencyOff,
		cmds: mbs("CONFIG RESETSTAT", "LATENCY HISTOGRAM set", "LATENCY HISTOGRAM blabla", "LATENCY HISTOGRAM config",
			"SET a b", "LATENCY HISTOGRAM set blabla", "LATENCY HISTOGRAM SET", "LATENCY HISTOGRAM client|id client|nosuch",
			"CLIENT ID", "LATENCY HISTOGRAM client", "LATENCY HISTOGRAM client|id", "LATENCY HISTOGRAM get|x",
			"CONFIG RESETSTAT", "LATENCY HISTOGRAM", "CONFIG SET latency-tracking no", "GET a", "LATENCY HISTOGRAM get",
			"INFO latencystats", "CONFIG SET latency-tracking yes", "GET a", "LATENCY HISTOGRAM get"),
		shapes: []int{3, 5, 6, 9, 10, 13, 20}, any: []int{8}},
}

// TestRedisLatencyStats runs the same commands on both servers and
// compares INFO latencystats: the same lines, "latency_percentiles_usec_"
// and the command's full name, the same percentile names in order, each
// value "%.3f" microseconds that is the top of one of HdrHistogram's
// counters (so Redis's values check this package's model of them, as
// well as Tandem's); and LATENCY HISTOGRAM's bucket bounds, each one of
// the power-of-two steps latency.Snapshot.PowersOfTwo can give.
func TestRedisLatencyStats(t *testing.T) {
	c := redisCase{name: "latencystats", cmds: cmds(mbs("CONFIG RESETSTAT", "SET a b", "GET a", "GET a", "CLIENT ID",
		"HSET h f v", "INFO latencystats"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "0 12.5 100 99.99"),
		mbs("INFO latencystats", "LATENCY HISTOGRAM get set client|id"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", ""),
		mbs("INFO latencystats"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"))}
	want := map[int][]string{6: {"50", "99", "99.9"}, 8: {"0", "12.5", "100", "99.99"}, 11: nil}
	steps := map[int64]bool{}
	for level := int64(1024); level < 1<<30; level *= 2 {
		steps[latency.HighestEquivalent(level)/1000] = true
	}
	steps[latency.HighestEquivalent(1<<30-1)/1000] = true // past the top
	for _, proto := range []int{2, 3} {
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
		ref, sut := both(func(addr string) sideResult {
			return playRedis(addr, c, proto, oneByOne, seedOf(c.name, proto, oneByOne))
		}, refRedis, sutRedis)
		for i := range c.cmds {
			if ref.errs[i] != nil || sut.errs[i] != nil {
				t.Fatalf("cmd %d %s: redis %v, %s %v", i, describe(c.cmds[i]), ref.errs[i], sideName(), sut.errs[i])
			}
		}
		for i, names := range want {
			r, s := latencyStatsLines(t, "redis", ref.replies[i].text, names), latencyStatsLines(t, sideName(), sut.replies[i].text, names)
			if strings.Join(r, " ") != strings.Join(s, " ") {
				t.Errorf("resp%d cmd %d: INFO latencystats commands differ\n  redis: %v\n  %s: %v", proto, i, r, sideName(), s)
			}
		}
		for side, rep := range map[string]reply{"redis": ref.replies[9], sideName(): sut.replies[9]} {
			if len(rep.elems) != 6 {
				t.Fatalf("%s: LATENCY HISTOGRAM get set client|id: %q", side, rep.raw)
			}
			for j := 0; j < len(rep.elems); j += 2 {
				h := rep.elems[j+1]
				if len(h.elems) != 4 || len(h.elems[3].elems) == 0 {
					t.Fatalf("%s: %s: %q", side, rep.elems[j].text, h.raw)
				}
				b := h.elems[3].elems
				for k := 0; k < len(b); k += 2 {
					if v, _ := strconv.ParseInt(b[k].text, 10, 64); !steps[v] {
						t.Errorf("%s: %s: bucket %s is no power-of-two step", side, rep.elems[j].text, b[k].text)
					}
				}
				if last := b[len(b)-1].text; last != h.elems[1].text {
					t.Errorf("%s: %s: last bucket holds %s of %s calls", side, rep.elems[j].text, last, h.elems[1].text)
				}
			}
		}
	}
}

// latencyStatsLines checks an INFO latencystats reply's lines and returns
// their commands: every line has the percentiles names, in order, each
// value a counter's top.
func latencyStatsLines(t *testing.T, side, text string, names []string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimPrefix(text, "txt:"), "\r\n")
	if lines[0] != "# Latencystats" || lines[len(lines)-1] != "" {
		t.Fatalf("%s: INFO latencystats %q", side, text)
	}
	var cmds []string
	for _, l := range lines[1 : len(lines)-1] {
		k, v, ok := strings.Cut(l, ":")
		name, isStat := strings.CutPrefix(k, "latency_percentiles_usec_")
		if !ok || !isStat {
			t.Fatalf("%s: line %q", side, l)
		}
		cmds = append(cmds, name)
		fields := strings.Split(v, ",")
		if v == "" {
			fields = nil
		}
		if len(fields) != len(names) {
			t.Fatalf("%s: line %q, want percentiles %v", side, l, names)
		}
		for i, f := range fields {
			p, val, _ := strings.Cut(f, "=")
			us, err := strconv.ParseFloat(val, 64)
			dot := strings.IndexByte(val, '.')
			if p != "p"+names[i] || err != nil || dot < 0 || len(val)-dot != 4 {
				t.Fatalf("%s: line %q: field %q", side, l, f)
			}
			if ns := int64(math.Round(us * 1000)); latency.HighestEquivalent(ns) != ns && !(names[i] == "0" && latency.LowestEquivalent(ns) == ns) {
				t.Errorf("%s: line %q: %s is no counter's bound", side, l, f)
			}
		}
	}
	sort.Strings(cmds)
	return cmds
}

// TestLatencyGraphDoctor compares LATENCY GRAPH and DOCTOR about one
// DEBUG SLEEP's sample (and a second one 1.1 s later) with their
// milliseconds masked, the one figure the servers do not share. DOCTOR's
// period counts whole seconds between the samples, so each run starts
// just past a second's boundary: both samples then fall one second apart
// on both servers (a start late in a second put the second sample two
// seconds on, on one side only).
func TestLatencyGraphDoctor(t *testing.T) {
	c := redisCase{name: "graph doctor", cmds: cmds(latencyOn, mbs("DEBUG SLEEP 0.03"), pause(1100*time.Millisecond),
		mbs("DEBUG SLEEP 0.06", "LATENCY GRAPH command", "LATENCY DOCTOR", "CONFIG SET slowlog-log-slower-than -1",
			"LATENCY DOCTOR", "CONFIG SET slowlog-log-slower-than 10000"), latencyOff)}
	ms := regexp.MustCompile(`[0-9]+ ?ms`)
	for _, proto := range []int{2, 3} {
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
		ref, sut := both(func(addr string) sideResult {
			return playRedis(addr, c, proto, oneByOne, seedOf(c.name, proto, oneByOne))
		}, refRedis, sutRedis)
		for _, i := range []int{5, 6, 8} {
			if ref.errs[i] != nil || sut.errs[i] != nil {
				t.Fatalf("cmd %d %s: redis %v, %s %v", i, describe(c.cmds[i]), ref.errs[i], sideName(), sut.errs[i])
			}
			r, s := ms.ReplaceAllString(ref.replies[i].text, "N ms"), ms.ReplaceAllString(sut.replies[i].text, "N ms")
			if ref.replies[i].kind != sut.replies[i].kind || r != s {
				t.Errorf("resp%d cmd %d %s differs\n  redis: %q\n  %s: %q", proto, i, describe(c.cmds[i]), r, sideName(), s)
			}
		}
	}
}
