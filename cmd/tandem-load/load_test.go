package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// runJSON runs tandem-load with args and -json and decodes its report.
func runJSON(t *testing.T, args ...string) (report, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append(args, "-json"), &out, &errOut)
	var rep report
	if code == exitOK || code == exitReplyError {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("report: %v\n%s\nstderr: %s", err, out.String(), errOut.String())
		}
	}
	return rep, code
}

func TestCountsAndVerification(t *testing.T) {
	for _, proto := range []string{"redis", "memcached", "memcached-meta"} {
		for _, pipeline := range []string{"1", "7"} {
			t.Run(proto+"/P"+pipeline, func(t *testing.T) {
				f := startFake(t, proto, func(f *fakeServer) { f.corruptEvery = 50 })
				rep, code := runJSON(t, "-proto", proto, "-addr", f.addr(), "-flush",
					"-t", "set,get", "-n", "3001", "-r", "500", "-d", "40", "-c", "4", "-P", pipeline)
				if code != exitReplyError {
					t.Fatalf("exit %d, want %d (corrupted replies)", code, exitReplyError)
				}
				if f.flushes != 1 {
					t.Errorf("flushes = %d, want 1", f.flushes)
				}
				if len(rep.Phases) != 2 {
					t.Fatalf("phases = %d, want 2", len(rep.Phases))
				}
				set, get := rep.Phases[0], rep.Phases[1]
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
				if get.Errors != uint64(f.corrupted) {
					t.Errorf("errors = %d, want %d (one per corrupted reply)", get.Errors, f.corrupted)
				}
				if get.Hits+uint64(f.corrupted) != uint64(f.hits) || get.Misses != uint64(f.gets-f.hits) {
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

func TestCleanRunExitsZero(t *testing.T) {
	f := startFake(t, "redis", nil)
	rep, code := runJSON(t, "-addr", f.addr(), "-ratio", "1:3", "-n", "2000", "-r", "50", "-c", "3", "-P", "4")
	if code != exitOK {
		t.Fatalf("exit %d, want 0", code)
	}
	p := rep.Phases[0]
	if p.Sets+p.Gets != 2000 || p.Sets == 0 || p.Gets == 0 || p.Errors != 0 || p.Hits+p.Misses != p.Gets {
		t.Errorf("mixed phase = %+v", p)
	}
	// 1:3 → about a quarter SETs.
	if p.Sets < 350 || p.Sets > 650 {
		t.Errorf("sets = %d of 2000, want about 500", p.Sets)
	}
}

func TestErrorRepliesAreCountedAndTheRunGoesOn(t *testing.T) {
	for _, proto := range []string{"redis", "memcached", "memcached-meta"} {
		t.Run(proto, func(t *testing.T) {
			f := startFake(t, proto, func(f *fakeServer) { f.failSets = true })
			rep, code := runJSON(t, "-proto", proto, "-addr", f.addr(), "-t", "set", "-n", "500", "-c", "2", "-P", "5")
			if code != exitReplyError {
				t.Fatalf("exit %d, want %d", code, exitReplyError)
			}
			p := rep.Phases[0]
			if p.Replies != 500 || p.Errors != 500 || p.Lost != 0 {
				t.Errorf("phase = %+v, want 500 replies, 500 errors, none lost", p)
			}
		})
	}
}

func TestHangUpEndsTheRun(t *testing.T) {
	f := startFake(t, "memcached", func(f *fakeServer) { f.hangUpAfter = 10 })
	rep, code := runJSON(t, "-proto", "memcached", "-addr", f.addr(), "-t", "set", "-n", "1000", "-c", "2", "-P", "4")
	if code != exitReplyError {
		t.Fatalf("exit %d, want %d", code, exitReplyError)
	}
	p := rep.Phases[0]
	if p.Replies+p.Lost != 1000 || p.Lost == 0 || p.Errors != p.Lost {
		t.Errorf("phase = %+v, want replies+lost = 1000, errors = lost > 0", p)
	}
}

func TestDurationBoundsTheRun(t *testing.T) {
	f := startFake(t, "redis", nil)
	rep, code := runJSON(t, "-addr", f.addr(), "-t", "get", "-duration", "200ms", "-c", "2")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	p := rep.Phases[0]
	if p.Seconds < 0.2 || p.Seconds > 2 || p.Gets == 0 || p.Misses != p.Gets {
		t.Errorf("phase = %+v, want ~0.2s of misses", p)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	var out, errOut bytes.Buffer
	for _, addr := range []string{"10.0.0.1:6379", "[2001:db8::1]:6379", "0.0.0.0:6379"} {
		if code := run([]string{"-addr", addr}, &out, &errOut); code != exitUsage {
			t.Errorf("%s: exit %d, want %d", addr, code, exitUsage)
		}
	}
	if !strings.Contains(errOut.String(), "not a loopback address") {
		t.Errorf("stderr = %q", errOut.String())
	}
}

func TestLoopbackAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:6379": "127.0.0.1:6379",
		"127.1.2.3:1":    "127.1.2.3:1",
		"[::1]:11211":    "[::1]:11211",
	} {
		got, err := loopbackAddr(in)
		if err != nil || got != want {
			t.Errorf("loopbackAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := loopbackAddr("localhost:6379"); err != nil {
		t.Errorf("localhost: %v", err)
	}
}

func TestOptions(t *testing.T) {
	bad := [][]string{
		{"-proto", "http"},
		{"-n", "10", "-duration", "1s"},
		{"-n", "-1"},
		{"-duration", "2h"},
		{"-c", "0"},
		{"-P", "0"},
		{"-r", "0"},
		{"-d", "0"},
		{"-ratio", "1"},
		{"-ratio", "0:0"},
		{"-ratio", "1:2", "-t", "set"},
		{"-t", "set,incr"},
		{"extra"},
	}
	for _, args := range bad {
		if _, err := parseOptions(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseOptions(%q) accepted", args)
		}
	}
	o, err := parseOptions([]string{"-proto", "memcached"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.addr != "127.0.0.1:11211" || o.requests != 100000 || len(o.phases) != 2 || o.conns != 50 || o.pipeline != 1 {
		t.Errorf("defaults = %+v", o)
	}
}

func TestKeysAndValues(t *testing.T) {
	key := make([]byte, keyLen)
	putKey(key, 42)
	if string(key) != "key:000000000042" {
		t.Errorf("key = %q", key)
	}
	for _, n := range []int{1, 16, 17, 40, 100} {
		v := make([]byte, n)
		fillValue(v, key)
		want := strings.Repeat("key:000000000042|", 10)[:n]
		if string(v) != want {
			t.Errorf("fillValue(%d) = %q, want %q", n, v, want)
		}
	}
}

func TestCSV(t *testing.T) {
	f := startFake(t, "memcached", nil)
	var out, errOut bytes.Buffer
	if code := run([]string{"-proto", "memcached", "-addr", f.addr(), "-n", "100", "-r", "1", "-c", "2", "-csv"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `"test","rps",`) ||
		!strings.HasPrefix(lines[1], `"SET",`) || !strings.HasPrefix(lines[2], `"GET",`) {
		t.Fatalf("csv = %q", lines)
	}
	for _, l := range lines {
		if n := strings.Count(l, ","); n != 10 {
			t.Errorf("%q has %d commas, want 10", l, n)
		}
	}
	if !strings.HasSuffix(lines[2], `"100","0","0","0"`) {
		t.Errorf("GET line %q, want 100 hits 0 misses 0 errors 0 lost", lines[2])
	}
}
