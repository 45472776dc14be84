package savebench

import (
	"bytes"

	"encoding/json"
	"github.com/tandemkv/tandem/internal/benchkit"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

func TestParseSets(t *testing.T) {
	got, err := parseSets("1000000x100, 100000x20480")
	if err != nil {
		t.Fatal(err)
	}
	want := []dataSet{{1000000, 100}, {100000, 20480}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"", "100", "x100", "0x100", "10x0", "10x100,", "axb"} {
		if _, err := parseSets(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestKeysAndValues(t *testing.T) {
	if got := string(appendKey(nil, 42)); got != "key:000000000042" {
		t.Errorf("key %q", got)
	}
	v := newValues(100, 1)
	if len(v.of(0)) != 100 || len(v.of(1<<30)) != 100 {
		t.Error("value size")
	}
	if bytes.Equal(v.of(1), v.of(2)) {
		t.Error("two keys share a value")
	}
}

func TestPercentiles(t *testing.T) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	if p := pct(xs, 99); p != 990 {
		t.Errorf("p99 = %v", p)
	}
	if p := pct(xs, 50); p != 500 {
		t.Errorf("p50 = %v", p)
	}
	if benchkit.Median([]float64{3, 1, 2}) != 2 || benchkit.Median([]float64{4, 1, 2, 3}) != 2.5 {
		t.Error("median")
	}
	base := time.Now()
	ops := []op{
		{sched: base, sent: base, lat: time.Millisecond},
		{sched: base, sent: base.Add(time.Second), lat: 3 * time.Millisecond}, // due a second before it was sent
		{sched: base, sent: base.Add(5 * time.Second), lat: time.Millisecond}, // outside the window
	}
	l := latencyOf(ops, base, base.Add(2*time.Second))
	if l.N != 2 || l.Max != 3 || l.P99Sched != 1003 {
		t.Errorf("latency %+v", l)
	}
}

func TestHuman(t *testing.T) {
	for n, want := range map[int64]string{100: "100 B", 20480: "20.0 KB", 3 << 30: "3.0 GB", -(5 << 20): "−5.0 MB"} {
		if got := benchkit.Bytes(n); got != want {
			t.Errorf("benchkit.Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSmallRun runs the whole benchmark on tiny data sets against both
// servers: every figure must be there and the load must see no error.
func TestSmallRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	redis := realserver.Path(t, realserver.Redis)
	dir := t.TempDir()
	bin := filepath.Join(dir, "tandem")
	build := exec.Command("go", "build", "-o", bin, "github.com/tandemkv/tandem/cmd/tandem")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tandem: %v\n%s", err, out)
	}
	jsonPath := filepath.Join(dir, "results.json")
	var stdout, stderr bytes.Buffer
	code := Run([]string{"-tandem", bin, "-redis", redis, "-sets", "3000x100,300x4096", "-rounds", "1",
		"-idle", "300ms", "-rate", "2000", "-work", filepath.Join(dir, "work"), "--out", dir}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var rs []result
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rs); err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d results, want 4", len(rs))
	}
	for _, r := range rs {
		name := r.Server + " " + r.Set.String()
		if r.FileBytes < int64(r.Set.Keys*r.Set.ValueSize) || len(r.SaveSecs) != 1 || len(r.BGSaves) != 1 {
			t.Errorf("%s: dump %d bytes, %d SAVEs, %d BGSAVEs", name, r.FileBytes, len(r.SaveSecs), len(r.BGSaves))
		}
		if r.LoadReadySecs <= 0 || r.LoadLogSecs < 0 || r.LoadedKeys != int64(r.Set.Keys) {
			t.Errorf("%s: load on start %v s, log %v s, %d keys", name, r.LoadReadySecs, r.LoadLogSecs, r.LoadedKeys)
		}
		bg := r.BGSaves[0]
		if bg.Idle.N == 0 || bg.RSSBefore == 0 || bg.PeakRSS == 0 || bg.Secs <= 0 {
			t.Errorf("%s: BGSAVE %+v", name, bg)
		}
		if r.LoadErrors != 0 {
			t.Errorf("%s: %d load errors, first %q", name, r.LoadErrors, r.FirstError)
		}
	}
	if out := stdout.String(); strings.Count(out, "| p99 latency during BGSAVE |") != 2 {
		t.Errorf("tables:\n%s", out)
	}
}
