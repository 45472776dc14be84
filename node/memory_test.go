package node

import (
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/internal/memlimit"
)

// fakeRoot is a /proc and /sys tree with a 1 GiB cgroup v2 limit on a
// 16 GB machine.
func fakeRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range map[string]string{
		"proc/meminfo":                 "MemTotal: 16000000 kB\n",
		"proc/self/cgroup":             "0::/app\n",
		"sys/fs/cgroup/app/memory.max": "1073741824\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// keepRuntime restores the Go memory limit and GOGC after a test.
func keepRuntime(t *testing.T) {
	limit := debug.SetMemoryLimit(-1)
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	t.Cleanup(func() { debug.SetMemoryLimit(limit); debug.SetGCPercent(gc) })
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestSetupMemoryDefault(t *testing.T) {
	keepRuntime(t)
	cfg, err := conf.Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem := setupMemory(cfg, quiet(), nil, fakeRoot(t))
	if got := cfg.MaxMemory(); got != 768<<20 {
		t.Fatalf("default maxmemory %d, want 75%% of 1 GiB", got)
	}
	if got, want := debug.SetMemoryLimit(-1), memlimit.GoLimit(768<<20, 1<<30); got != want {
		t.Fatalf("GOMEMLIMIT %d, want %d", got, want)
	}
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Fatalf("GOGC %d, want %d", got, gcPercent)
	}
	// CONFIG SET maxmemory re-derives it (New hands apply to the services).
	mem.apply(100 << 20)
	if got, want := debug.SetMemoryLimit(-1), memlimit.GoLimit(100<<20, 1<<30); got != want {
		t.Fatalf("GOMEMLIMIT after a change %d, want %d", got, want)
	}
}

func TestSetupMemoryExplicit(t *testing.T) {
	keepRuntime(t)
	for _, tc := range []struct {
		args []string
		max  int64
	}{
		{[]string{"--maxmemory", "0"}, 0}, // explicit 0: unlimited, as Redis
		{[]string{"--maxmemory", "200mb"}, 200 << 20},
	} {
		cfg, err := conf.Load(tc.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		setupMemory(cfg, quiet(), nil, fakeRoot(t))
		if got := cfg.MaxMemory(); got != tc.max {
			t.Errorf("%v: maxmemory %d, want %d", tc.args, got, tc.max)
		}
		if got, want := debug.SetMemoryLimit(-1), memlimit.GoLimit(tc.max, 1<<30); got != want {
			t.Errorf("%v: GOMEMLIMIT %d, want %d", tc.args, got, want)
		}
	}
}

func TestSetupMemoryUserGOMEMLIMIT(t *testing.T) {
	keepRuntime(t)
	debug.SetMemoryLimit(12345 << 20)
	debug.SetGCPercent(77)
	cfg, err := conf.Load([]string{"--maxmemory", "100mb"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem := setupMemory(cfg, quiet(), []string{"GOMEMLIMIT=12345MiB", "GOGC=77"}, fakeRoot(t))
	mem.apply(50 << 20)
	if got := debug.SetMemoryLimit(-1); got != 12345<<20 {
		t.Errorf("GOMEMLIMIT %d: the user's was not kept", got)
	}
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("GOGC %d: the user's was not kept", got)
	}
}

func TestGCPercentKeepsAFloorOfHeadroom(t *testing.T) {
	const noLimit = math.MaxInt64
	for _, c := range []struct {
		live, limit uint64
		want        int
	}{
		{0, noLimit, gcPercent},
		{1 << 10, noLimit, 10_000},      // a nearly empty heap: capped
		{16 << 20, noLimit, 100},        // 16 MB more for a 16 MB heap
		{27 << 20, noLimit, 59},         // SET on 100K keys: 16 MB, not 2.7
		{160 << 20, noLimit, gcPercent}, // from here on gcPercent gives the headroom
		{2 << 30, noLimit, gcPercent},   // a large heap: GOGC 10, RSS per key unchanged
		{20 << 20, 50 << 20, 37},        // maxmemory of a few MB: a quarter of the 30 MB left
		{20 << 20, 21 << 20, gcPercent}, // at the limit: no floor
		{40 << 20, 30 << 20, gcPercent}, // past it
		{16 << 20, 1 << 40, 100},        // a limit far away changes nothing
	} {
		if got := gcPercentFor(c.live, c.limit); got != c.want {
			t.Errorf("gcPercentFor(%d, %d) = %d, want %d", c.live, c.limit, got, c.want)
		}
	}
}
