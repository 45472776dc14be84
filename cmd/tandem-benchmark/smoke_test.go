package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/internal/benchkit"
	"github.com/tandemkv/tandem/internal/nullserver"
	"github.com/tandemkv/tandem/node"
)

// startTandem runs a Tandem in this process on free ports (RESP and
// memcached) until the test ends. GOGC and GOMEMLIMIT are passed as set
// so that the node leaves the test process's runtime settings alone.
func startTandem(t *testing.T) (resp, mc string) {
	t.Helper()
	ports, err := benchkit.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := conf.Load([]string{"--port", strconv.Itoa(ports[0]), "--memcached-port", strconv.Itoa(ports[1]),
		"--bind", "127.0.0.1", "--save", "", "--dir", filepath.Join(t.TempDir(), "data"), "--maxmemory", "256mb"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := node.New(node.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "smoke",
		Environ: []string{"GOGC=100", "GOMEMLIMIT=" + strconv.FormatInt(8<<30, 10)}})
	sigs := make(chan os.Signal, 1)
	done := make(chan int, 1)
	go func() { done <- n.Run(sigs) }()
	resp = "127.0.0.1:" + strconv.Itoa(ports[0])
	mc = "127.0.0.1:" + strconv.Itoa(ports[1])
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := benchkit.Dial(resp, time.Second)
		if err == nil {
			_, err = c.Do("PING")
			c.Close()
			if err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("in-process Tandem does not answer on %s: %v", resp, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(func() {
		sigs <- os.Interrupt
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("in-process Tandem did not stop")
		}
	})
	return resp, mc
}

// The smoke run: a tiny seed-100b against a real Tandem (RESP, and its
// memcached port in text and in binary) and the null server, side by
// side, verified, with a report, a table and charts written.
func TestSmokeAgainstTandem(t *testing.T) {
	resp, mc := startTandem(t)
	port, err := benchkit.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	nullAddr := "127.0.0.1:" + strconv.Itoa(port)
	ns, err := nullserver.Start(nullserver.Options{Addr: nullAddr, ValueSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Stop(context.Background())

	out := t.TempDir()
	rep, code := runJSON(t, "scenario", "--server", "tandem="+resp+",null="+nullAddr+",tandem-mc="+mc+"/memcache,tandem-bin="+mc+"/binary",
		"--scale", "0.01", "-P", "4", "--out", out, "seed-100b")
	if code != exitOK {
		t.Fatalf("exit %d: %+v", code, rep.Results)
	}
	if len(rep.Results) != 8 {
		t.Fatalf("%d results, want 8 (4 targets × SET, GET)", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Replies != 1000 || r.Errors != 0 || r.OpsPerSec <= 0 {
			t.Errorf("%s %s: %d replies, %d errors, %.0f ops/s", r.Server, r.Phase, r.Replies, r.Errors, r.OpsPerSec)
		}
		if r.Phase == "GET" && r.Server != "null" && (!r.Verified || r.Hits != 1000) {
			t.Errorf("%s GET: %d hits of 1000, verified %v", r.Server, r.Hits, r.Verified)
		}
		if r.Server == "null" && r.Verified {
			t.Error("the null server's values are verified")
		}
		// The process (this test's, found through INFO process_id) is
		// sampled; its CPU time may round to 0 over a phase this short.
		if r.Server == "tandem" && r.ServerPeakRSS <= 0 {
			t.Errorf("Tandem's process was not sampled (pid from INFO): %+v", r)
		}
	}
	for _, f := range []string{"results.json", "results.csv", "table.md", "seed-100b-throughput.svg", "seed-100b-p99.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("--out wrote no %s: %v", f, err)
		}
	}
}
