package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"
	"testing"
)

// runJSON runs tandem-benchmark with args and --json and decodes its
// report.
func runJSON(t *testing.T, args ...string) (Report, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	// --json right after the subcommand: flags end at the first name.
	code := run(append([]string{args[0], "--json"}, args[1:]...), &out, &errOut)
	var rep Report
	if code == exitOK || code == exitReplyError {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("report: %v\n%s\nstderr: %s", err, out.String(), errOut.String())
		}
	} else {
		t.Logf("exit %d, stderr: %s", code, errOut.String())
	}
	return rep, code
}

func TestCountsAndVerificationCatchACorruptingServer(t *testing.T) {
	for _, proto := range []string{"resp", "memcache", "meta", "binary"} {
		for _, pipeline := range []string{"1", "7"} {
			t.Run(proto+"/P"+pipeline, func(t *testing.T) {
				f := startFake(t, proto, func(f *fakeServer) { f.corruptEvery = 50 })
				rep, code := runJSON(t, "load", "--protocol", proto, "--server", "fake="+f.addr(), "--flush",
					"-t", "set,get", "-n", "3001", "-r", "500", "-d", "40", "-c", "4", "-P", pipeline)
				if code != exitReplyError {
					t.Fatalf("exit %d, want %d (corrupted replies)", code, exitReplyError)
				}
				if f.flushes != 1 {
					t.Errorf("flushes = %d, want 1", f.flushes)
				}
				if len(rep.Results) != 2 {
					t.Fatalf("results = %d, want 2", len(rep.Results))
				}
				set, get := rep.Results[0], rep.Results[1]
				if set.Replies != 3001 || set.Sets != 3001 || set.Gets != 0 || set.Errors != 0 {
					t.Errorf("SET phase = %+v, want 3001 sets, no error", set)
				}
				if get.Replies != 3001 || get.Gets != 3001 || get.Sets != 0 {
					t.Errorf("GET phase = %+v, want 3001 gets", get)
				}
				if f.sets != 3001 || f.gets != 3001 {
					t.Errorf("server saw %d sets %d gets, want 3001 each", f.sets, f.gets)
				}
				if f.corrupted == 0 {
					t.Fatal("the fake corrupted nothing; the test proves nothing")
				}
				if get.Errors != uint64(f.corrupted) || get.WrongValues != get.Errors {
					t.Errorf("errors = %d (%d wrong values), want %d (one per corrupted reply)", get.Errors, get.WrongValues, f.corrupted)
				}
				if get.Hits != uint64(f.hits) || get.Misses != uint64(f.gets-f.hits) {
					t.Errorf("hits %d misses %d; server: %d hits (%d corrupted) of %d gets",
						get.Hits, get.Misses, f.hits, f.corrupted, f.gets)
				}
				if !strings.Contains(get.FirstError, "wrong value") {
					t.Errorf("first error = %q, want a wrong value", get.FirstError)
				}
				if get.Latency.Max <= 0 || get.Latency.P50 > get.Latency.P99 || get.Latency.P99 > get.Latency.Max {
					t.Errorf("latency = %+v, want 0 < p50 <= p99 <= max", get.Latency)
				}
			})
		}
	}
}

func TestMultiGetIsVerified(t *testing.T) {
	for _, proto := range []string{"resp", "memcache", "meta", "binary"} {
		t.Run(proto, func(t *testing.T) {
			f := startFake(t, proto, func(f *fakeServer) { f.corruptEvery = 7 })
			rep, code := runJSON(t, "load", "--protocol", proto, "--server", f.addr(), "--flush", "-n", "400", "-r", "50",
				"-c", "2", "-P", "3", "--multiget", "10", "--dist", "seq")
			if code != exitReplyError {
				t.Fatalf("exit %d, want %d", code, exitReplyError)
			}
			get := rep.Results[1]
			if get.Gets != 4000 || get.Hits != 4000 || get.WrongValues != uint64(f.corrupted) || f.corrupted == 0 {
				t.Errorf("GET phase %+v; the fake corrupted %d", get, f.corrupted)
			}
		})
	}
}

func TestRangedSizesAndZipf(t *testing.T) {
	f := startFake(t, "resp", nil)
	rep, code := runJSON(t, "load", "--server", f.addr(), "-n", "3000", "-r", "300", "-c", "3", "-P", "2",
		"--key-size", "16-40", "-d", "10-3000", "--dist", "zipf", "--zipf", "1.1")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	get := rep.Results[1]
	if get.Errors != 0 || get.Hits == 0 || rep.Results[0].KeySize != "16-40" || rep.Results[0].ValueSize != "10-3000" {
		t.Errorf("results %+v", rep.Results)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	sizes, keyLens := map[int]bool{}, map[int]bool{}
	for k, v := range f.data {
		sizes[len(v)] = true
		keyLens[len(k)] = true
	}
	// Zipf 1.1 over 300 keys: the hottest keys are written again and
	// again, so far fewer than 300 are held... but more than a handful.
	if n := len(f.data); n < 20 || n > 290 {
		t.Errorf("%d keys held after 3000 Zipf SETs over 300", n)
	}
	if len(sizes) < 10 || len(keyLens) < 5 {
		t.Errorf("%d value sizes and %d key lengths: not ranged", len(sizes), len(keyLens))
	}
}

func TestErrorRepliesAreCountedAndTheRunGoesOn(t *testing.T) {
	for _, proto := range []string{"resp", "memcache", "meta", "binary"} {
		t.Run(proto, func(t *testing.T) {
			f := startFake(t, proto, func(f *fakeServer) { f.failSets = true })
			rep, code := runJSON(t, "load", "--protocol", proto, "--server", f.addr(), "-t", "set", "-n", "500", "-c", "2", "-P", "5")
			if code != exitReplyError {
				t.Fatalf("exit %d, want %d", code, exitReplyError)
			}
			p := rep.Results[0]
			if p.Replies != 500 || p.Errors != 500 || p.ErrorReplies != 500 || p.Lost != 0 {
				t.Errorf("phase = %+v, want 500 replies, 500 errors, none lost", p)
			}
		})
	}
}

func TestHangUpEndsTheRun(t *testing.T) {
	f := startFake(t, "memcache", func(f *fakeServer) { f.hangUpAfter = 10 })
	rep, code := runJSON(t, "load", "--protocol", "memcache", "--server", f.addr(), "-t", "set", "-n", "1000", "-c", "2", "-P", "4")
	if code != exitReplyError {
		t.Fatalf("exit %d, want %d", code, exitReplyError)
	}
	p := rep.Results[0]
	if p.Replies+p.Lost != 1000 || p.Lost == 0 || p.Errors != p.Lost {
		t.Errorf("phase = %+v, want replies+lost = 1000, errors = lost > 0", p)
	}
}

func TestDurationBoundsTheRun(t *testing.T) {
	f := startFake(t, "resp", nil)
	rep, code := runJSON(t, "load", "--server", f.addr(), "-t", "get", "--duration", "200ms", "-c", "2")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	p := rep.Results[0]
	if p.Seconds < 0.2 || p.Seconds > 2 || p.Gets == 0 || p.Misses != p.Gets {
		t.Errorf("phase = %+v, want ~0.2s of misses", p)
	}
}

func TestPacedRunKeepsItsRateAndMeasuresFromTheSchedule(t *testing.T) {
	f := startFake(t, "resp", nil)
	rep, code := runJSON(t, "load", "--server", f.addr(), "-t", "set", "-n", "600", "-c", "3", "--rate", "1000")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	p := rep.Results[0]
	// 600 requests at 1000/s: 0.6 s, not the few ms a closed loop takes.
	if p.Replies != 600 || p.Seconds < 0.55 || p.Seconds > 3 || p.Rate != 1000 {
		t.Errorf("paced phase %+v, want 600 replies in about 0.6 s", p)
	}
}

func TestSeveralServersSideBySide(t *testing.T) {
	a, b := startFake(t, "resp", nil), startFake(t, "memcache", nil)
	rep, code := runJSON(t, "load", "--server", "a="+a.addr()+",b="+b.addr()+"/memcache", "-n", "300", "-c", "2", "--rounds", "2")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var order []string
	for _, r := range rep.Results {
		order = append(order, r.Server+"/"+r.Protocol+"/"+r.Phase)
	}
	// Round 1: a then b; round 2: b then a.
	want := "a/resp/SET a/resp/GET b/memcache/SET b/memcache/GET b/memcache/SET b/memcache/GET a/resp/SET a/resp/GET"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order %s\nwant  %s", got, want)
	}
	if a.sets != 600 || b.sets != 600 {
		t.Errorf("sets: a %d, b %d; want 600 each", a.sets, b.sets)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	var out, errOut bytes.Buffer
	for _, addr := range []string{"10.0.0.1:6379", "[2001:db8::1]:6379", "0.0.0.0:6379"} {
		if code := run([]string{"load", "--server", addr}, &out, &errOut); code != exitUsage {
			t.Errorf("%s: exit %d, want %d", addr, code, exitUsage)
		}
	}
	if code := run([]string{"load", "-h", "192.168.1.1"}, &out, &errOut); code != exitUsage {
		t.Errorf("-h 192.168.1.1: exit %d", code)
	}
	if !strings.Contains(errOut.String(), "not a loopback address") {
		t.Errorf("stderr = %q", errOut.String())
	}
}

func TestFlags(t *testing.T) {
	bad := [][]string{
		{"--protocol", "http"},
		{"-n", "10", "--duration", "1s"},
		{"-n", "-1"},
		{"--duration", "2h"},
		{"-c", "0"},
		{"-P", "0"},
		{"-r", "0"},
		{"-d", "0"},
		{"-d", "100-10"},
		{"--key-size", "8"},   // too short for key:<5 digits>
		{"--key-size", "300"}, // longer than memcached allows
		{"--ratio", "1"},      // not set:get
		{"--ratio", "0:0"},    // nothing to do
		{"--ratio", "1:2", "-t", "set"},
		{"-t", "set,incr"},
		{"--dist", "pareto"},
		{"--multiget", "0"},
		{"--rate", "-1"},
		{"-q", "--csv"},
		{"--server", "a=127.0.0.1:1", "-p", "6379"},
		{"extra"},
	}
	for _, args := range bad {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"load"}, args...), &out, &errOut); code != exitUsage {
			t.Errorf("load %q: exit %d, want %d", args, code, exitUsage)
		}
	}
	fs := newTestFlagSet()
	f := addWorkloadFlags(fs)
	if err := parseFlags(fs, []string{"-c", "16", "-d", "1k-2k", "--protocol", "meta"}, &bytes.Buffer{}, false); err != nil {
		t.Fatal(err)
	}
	w, err := f.workload()
	if err != nil {
		t.Fatal(err)
	}
	if w.Conns != 16 || w.ValueSize != (Range{1024, 2048}) || w.Requests != 100000 || w.Pipeline != 1 || w.KeySize != (Range{16, 16}) {
		t.Errorf("workload %+v", w)
	}
	if !f.set("c") || f.set("P") {
		t.Error("set() does not tell given flags from defaults")
	}
	ts, err := f.targets()
	if err != nil || len(ts) != 1 || ts[0].Addr != "127.0.0.1:11211" || ts[0].Protocol != "meta" {
		t.Errorf("default target for meta: %+v %v", ts, err)
	}
}

func TestRangePick(t *testing.T) {
	r := Range{100, 200}
	seen := map[int]bool{}
	for i := int64(0); i < 2000; i++ {
		n := r.pick(i, valueSalt)
		if n < 100 || n > 200 || n != r.pick(i, valueSalt) {
			t.Fatalf("pick(%d) = %d", i, n)
		}
		seen[n] = true
	}
	if len(seen) < 90 {
		t.Errorf("only %d sizes of 101 drawn", len(seen))
	}
	if (Range{7, 7}).pick(5, 0) != 7 {
		t.Error("a fixed size varies")
	}
}

func TestCSV(t *testing.T) {
	f := startFake(t, "memcache", nil)
	var out, errOut bytes.Buffer
	if code := run([]string{"load", "--protocol", "memcache", "--server", f.addr(), "-n", "100", "-r", "1", "-c", "2", "--csv"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "test,rps,") ||
		!strings.HasPrefix(lines[1], "SET,") || !strings.HasPrefix(lines[2], "GET,") {
		t.Fatalf("csv = %q", lines)
	}
	for _, l := range lines {
		if n := strings.Count(l, ","); n != len(csvHeader)-1 {
			t.Errorf("%q has %d commas, want %d", l, n, len(csvHeader)-1)
		}
	}
	if !strings.Contains(lines[2], ",100,0,0,0,") {
		t.Errorf("GET line %q, want 100 hits 0 misses 0 errors 0 lost", lines[2])
	}
}

func newTestFlagSet() *flag.FlagSet { return flag.NewFlagSet("test", flag.ContinueOnError) }
func TestScenarioCatchesALosingServer(t *testing.T) {
	f := startFake(t, "memcache", func(f *fakeServer) { f.dropEvery = 10 })
	rep, code := runJSON(t, "scenario", "--protocol", "memcache", "--server", f.addr(), "--scale", "0.01", "seed-100b")
	if code != exitReplyError {
		t.Fatalf("exit %d, want %d", code, exitReplyError)
	}
	get := rep.Results[1]
	if get.Missing == 0 || get.Missing != get.Errors || !strings.Contains(get.FirstError, "missing") {
		t.Errorf("GET phase %+v, want every miss reported as missing", get)
	}
	var out bytes.Buffer
	writeTable(&out, aggregate(rep.Results))
	if !strings.Contains(out.String(), "FAILED") {
		t.Errorf("the table hides the loss:\n%s", out.String())
	}
}
