package node

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/tandemkv/tandem/conf"
)

// The start-up banner is one record with the build, both protocols'
// ports, the memory bound and its source, eviction, save rules and the
// dump's path.
func TestBanner(t *testing.T) {
	dir := t.TempDir()
	cfg, err := conf.Load([]string{"--port", "7001", "--memcached-port", "7002", "--maxmemory", "64mb",
		"--maxmemory-policy", "allkeys-lru", "--save", "900 1 60 500", "--dir", dir, "--dbfilename", "x.rdb",
		"--loglevel", "warning"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n := New(Options{Config: cfg, Logger: slog.New(slog.NewJSONHandler(&out, nil)), Version: "9.9.9",
		Commit: "abc123", MemoryRoot: fakeRoot(t)})
	out.Reset() // setupMemory's own records
	n.logBanner()
	var rec map[string]any
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	want := map[string]any{"msg": "Tandem starting", "version": "9.9.9", "commit": "abc123",
		"port": float64(7001), "memcached-port": float64(7002), "tls-port": float64(0), "memcached-tls-port": float64(0),
		"maxmemory": float64(64 << 20), "maxmemory-human": "64.00M", "maxmemory-source": "flag",
		"maxmemory-policy": "allkeys-lru", "save": "900 1 60 500", "dbfile": filepath.Join(dir, "x.rdb"),
		"loglevel": "warning", "log-format": "text"}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("%s: %v, want %v", k, rec[k], v)
		}
	}
	if rec["go"] == "" || rec["pid"] == nil {
		t.Errorf("record %v", rec)
	}
}

// Without -ldflags the commit is the build's vcs.revision, or "unknown".
func TestCommitOf(t *testing.T) {
	if got := commitOf("deadbeef"); got != "deadbeef" {
		t.Errorf("given: %q", got)
	}
	if got := commitOf(""); got == "" {
		t.Error("empty commit")
	}
}
