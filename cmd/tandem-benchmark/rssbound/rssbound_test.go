package rssbound

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRSSBound is the reduced variant of scripts/rss-bound.sh: it builds
// cmd/tandem, bounds it to 64 MB and offers 40,000 values of 20 KB (about
// 12 times the bound) over each protocol, under noeviction and under
// allkeys-lru. RSS must stay within 1.15 × maxmemory + 64 MB, every read
// must be a miss or the right value, noeviction must refuse writes with
// Redis's and memcached's OOM errors while reads and deletes keep working,
// and an evicting policy must not return any error.
func TestRSSBound(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tandem and writes ~1.5 GB through it")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/<pid>/status")
	}
	// go test puts GOROOT/bin first on PATH: no go here is a broken setup.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH to build tandem: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "tandem")
	build := exec.Command(goBin, "build", "-o", bin, "../../tandem")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tandem: %v\n%s", err, out)
	}
	for _, policy := range []string{"noeviction", "allkeys-lru"} {
		for _, proto := range []string{"resp", "memcached"} {
			t.Run(policy+"/"+proto, func(t *testing.T) {
				o := defaultOptions()
				o.Tandem = bin
				o.MaxMemory = "64mb"
				o.Keys = 40000
				o.ReadSample = 4000
				o.Policy = policy
				r, err := Measure(o, proto)
				if err != nil {
					t.Fatal(err)
				}
				var sb strings.Builder
				r.WriteText(&sb)
				t.Log("\n" + sb.String())
				for _, f := range r.Failures {
					t.Error(f)
				}
				if policy == "noeviction" && r.OOM == 0 {
					t.Error("noeviction: no write was refused")
				}
				if policy != "noeviction" && r.Evicted == 0 {
					t.Error("no key was evicted")
				}
			})
		}
	}
}

func TestFillValue(t *testing.T) {
	a, b := make([]byte, 1003), make([]byte, 1003)
	fillValue(a, 7)
	fillValue(b, 7)
	if string(a) != string(b) {
		t.Fatal("fillValue is not deterministic")
	}
	fillValue(b, 8)
	if string(a) == string(b) {
		t.Fatal("two keys have the same value")
	}
	if got := string(keyOf(42)); got != "rss:000000042" {
		t.Errorf("keyOf(42) = %q", got)
	}
}
