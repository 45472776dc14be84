package memlimit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const meminfo16G = "MemTotal:       16384000 kB\nMemFree:         1000 kB\n"

// tree writes files (path relative to the root → content) into a new
// temporary directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDetect(t *testing.T) {
	const phys = 16384000 * 1024
	tests := []struct {
		name   string
		files  map[string]string
		bytes  int64
		source string
		err    error
	}{
		{
			name: "v2 container namespace",
			files: map[string]string{
				"proc/meminfo":                   meminfo16G,
				"proc/self/cgroup":               "0::/\n",
				"sys/fs/cgroup/memory.max":       "536870912\n",
				"sys/fs/cgroup/cgroup.procs":     "1\n",
				"sys/fs/cgroup/memory.current":   "1000\n",
				"proc/self/mountinfo":            "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n",
				"sys/fs/cgroup/memory.swap.max":  "0\n",
				"sys/fs/cgroup/cgroup.max.depth": "max\n",
			},
			bytes:  512 << 20,
			source: "cgroup v2 /sys/fs/cgroup/memory.max",
		},
		{
			name: "v2 nested path, limit on the parent",
			files: map[string]string{
				"proc/meminfo":     meminfo16G,
				"proc/self/cgroup": "0::/system.slice/tandem.service/worker\n",
				"sys/fs/cgroup/system.slice/tandem.service/worker/memory.max": "max\n",
				"sys/fs/cgroup/system.slice/tandem.service/memory.max":        "1073741824\n",
				"sys/fs/cgroup/system.slice/memory.max":                       "max\n",
			},
			bytes:  1 << 30,
			source: "cgroup v2 /sys/fs/cgroup/system.slice/tandem.service/memory.max",
		},
		{
			name: "v2 nested, the tightest of leaf and ancestors",
			files: map[string]string{
				"proc/meminfo":                       meminfo16G,
				"proc/self/cgroup":                   "0::/a/b\n",
				"sys/fs/cgroup/a/b/memory.max":       "3221225472\n",
				"sys/fs/cgroup/a/memory.max":         "2147483648\n",
				"sys/fs/cgroup/unrelated/memory.max": "1024\n",
			},
			bytes:  2 << 30,
			source: "cgroup v2 /sys/fs/cgroup/a/memory.max",
		},
		{
			name: "v2 max everywhere: physical memory",
			files: map[string]string{
				"proc/meminfo":                        meminfo16G,
				"proc/self/cgroup":                    "0::/user.slice\n",
				"sys/fs/cgroup/user.slice/memory.max": "max\n",
			},
			bytes:  phys,
			source: "physical memory (/proc/meminfo MemTotal)",
		},
		{
			name: "v2 limit above physical memory: physical memory",
			files: map[string]string{
				"proc/meminfo":             meminfo16G,
				"proc/self/cgroup":         "0::/\n",
				"sys/fs/cgroup/memory.max": "68719476736\n",
			},
			bytes:  phys,
			source: "physical memory (/proc/meminfo MemTotal)",
		},
		{
			name: "v2 mount elsewhere, mount root is the cgroup (mountinfo)",
			files: map[string]string{
				"proc/meminfo":          meminfo16G,
				"proc/self/cgroup":      "0::/kubepods/pod1/ctr\n",
				"proc/self/mountinfo":   "1 0 0:1 / / rw - overlay overlay rw\n40 1 0:38 /kubepods/pod1/ctr /mnt/cg\\040two rw,relatime - cgroup2 cgroup2 rw\n",
				"mnt/cg two/memory.max": "268435456\n",
			},
			bytes:  256 << 20,
			source: "cgroup v2 /mnt/cg two/memory.max",
		},
		{
			name: "v1",
			files: map[string]string{
				"proc/meminfo":     meminfo16G,
				"proc/self/cgroup": "12:pids:/docker/abc\n4:memory:/docker/abc\n1:name=systemd:/docker/abc\n",
				"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "402653184\n",
				"sys/fs/cgroup/memory/memory.limit_in_bytes":            "9223372036854771712\n",
			},
			bytes:  384 << 20,
			source: "cgroup v1 /sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes",
		},
		{
			name: "v1 combined controllers, namespace root, no limit",
			files: map[string]string{
				"proc/meminfo":        meminfo16G,
				"proc/self/cgroup":    "5:memory,hugetlb:/\n",
				"proc/self/mountinfo": "35 31 0:32 / /sys/fs/cgroup/memory,hugetlb rw,relatime - cgroup cgroup rw,memory,hugetlb\n",
				"sys/fs/cgroup/memory,hugetlb/memory.limit_in_bytes": "9223372036854771712\n",
			},
			bytes:  phys,
			source: "physical memory (/proc/meminfo MemTotal)",
		},
		{
			name: "hybrid: v2 line without memory controller, v1 limit",
			files: map[string]string{
				"proc/meminfo":     meminfo16G,
				"proc/self/cgroup": "4:memory:/process_api/x\n0::/\n",
				"proc/self/mountinfo": "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n" +
					"41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
				"sys/fs/cgroup/unified/cgroup.procs":                       "1\n",
				"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "1073741824\n",
				"sys/fs/cgroup/memory/process_api/memory.limit_in_bytes":   "9223372036854771712\n",
			},
			bytes:  1 << 30,
			source: "cgroup v1 /sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes",
		},
		{
			name: "no cgroup files",
			files: map[string]string{
				"proc/meminfo": meminfo16G,
			},
			bytes:  phys,
			source: "physical memory (/proc/meminfo MemTotal)",
		},
		{
			name: "cgroup limit, no meminfo",
			files: map[string]string{
				"proc/self/cgroup":         "0::/\n",
				"sys/fs/cgroup/memory.max": "104857600",
			},
			bytes:  100 << 20,
			source: "cgroup v2 /sys/fs/cgroup/memory.max",
		},
		{
			name: "garbage limit ignored",
			files: map[string]string{
				"proc/meminfo":             meminfo16G,
				"proc/self/cgroup":         "0::/\n",
				"sys/fs/cgroup/memory.max": "lots\n",
			},
			bytes:  phys,
			source: "physical memory (/proc/meminfo MemTotal)",
		},
		{
			name:  "nothing",
			files: map[string]string{"etc/hostname": "x\n"},
			err:   ErrNotFound,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Detect(tree(t, tc.files))
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if l.Bytes != tc.bytes || l.Source != tc.source {
				t.Fatalf("got %d from %q, want %d from %q", l.Bytes, l.Source, tc.bytes, tc.source)
			}
		})
	}
}

func TestMemTotal(t *testing.T) {
	root := tree(t, map[string]string{"proc/meminfo": "MemFree: 1 kB\nMemTotal: 2048 kB\n"})
	if n, err := MemTotal(root); err != nil || n != 2<<20 {
		t.Fatalf("MemTotal = %d, %v", n, err)
	}
	root = tree(t, map[string]string{"proc/meminfo": "MemFree: 1 kB\n"})
	if _, err := MemTotal(root); err == nil {
		t.Fatal("MemTotal without the line: no error")
	}
}

func TestDefaultMaxMemory(t *testing.T) {
	if got := DefaultMaxMemory(Limit{Bytes: 1 << 30}); got != 768<<20 {
		t.Fatalf("DefaultMaxMemory(1gb) = %d", got)
	}
	if got := DefaultMaxMemory(Limit{}); got != 0 {
		t.Fatalf("DefaultMaxMemory(unknown) = %d", got)
	}
}

func TestGoLimit(t *testing.T) {
	tests := []struct {
		maxMemory, process, want int64
	}{
		{0, 0, math.MaxInt64},
		{256 << 20, 0, mul(256<<20, GoLimitFactor) + GoLimitHeadroom},
		{0, 1 << 30, mul(1<<30, ProcessShare)},
		// maxmemory set above what the process may use: the process wins.
		{4 << 30, 1 << 30, mul(1<<30, ProcessShare)},
		// the default maxmemory (75%) stays under the process cap from a
		// few GB; in a 1 GB container the cap wins.
		{3 << 30, 4 << 30, mul(3<<30, GoLimitFactor) + GoLimitHeadroom},
		{768 << 20, 1 << 30, mul(1<<30, ProcessShare)},
		{math.MaxInt64, 0, math.MaxInt64},
	}
	for _, tc := range tests {
		if got := GoLimit(tc.maxMemory, tc.process); got != tc.want {
			t.Errorf("GoLimit(%d, %d) = %d, want %d", tc.maxMemory, tc.process, got, tc.want)
		}
	}
}

func mul(n int64, f float64) int64 { return int64(float64(n) * f) }

// TestSystem runs Detect on the real machine and checks its answer against
// the machine's own files, read here without the package's parser: a
// positive figure no larger than MemTotal, every finite limit of the
// process's memory cgroup (leaf and ancestors, v2 and v1) respected, and a
// Source that names where the figure was read.
func TestSystem(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc and /sys/fs/cgroup: Linux only")
	}
	l, err := Detect("/")
	if err != nil {
		t.Fatalf("Detect(/): %v", err)
	}
	t.Logf("Detect(/) = %d (%s)", l.Bytes, l.Source)
	phys := systemMemTotal(t)
	if l.Bytes <= 0 || l.Bytes > phys {
		t.Fatalf("Detect(/) = %d bytes, want 1..%d (MemTotal)", l.Bytes, phys)
	}
	limits := systemCgroupLimits(t)
	for file, n := range limits {
		if l.Bytes > n {
			t.Errorf("Detect(/) = %d bytes, above the %d of %s", l.Bytes, n, file)
		}
	}
	switch {
	case l.Source == "physical memory (/proc/meminfo MemTotal)":
		if l.Bytes != phys {
			t.Errorf("Detect(/) = %d from %q, but MemTotal is %d", l.Bytes, l.Source, phys)
		}
	case strings.HasPrefix(l.Source, "cgroup v1 ") || strings.HasPrefix(l.Source, "cgroup v2 "):
		file := l.Source[len("cgroup vN "):]
		n, ok := readLimitFile(file)
		if !ok || n != l.Bytes {
			t.Errorf("Detect(/) = %d from %q, but that file holds %d (read: %v)", l.Bytes, l.Source, n, ok)
		}
	default:
		t.Errorf("Detect(/) source %q names neither MemTotal nor a cgroup file", l.Source)
	}
}

// systemMemTotal reads MemTotal from /proc/meminfo, in bytes.
func systemMemTotal(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatalf("reading /proc/meminfo: %v", err)
	}
	var kb int64
	for _, line := range strings.Split(string(b), "\n") {
		if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
			return kb * 1024
		}
	}
	t.Fatalf("no MemTotal line in /proc/meminfo:\n%s", b)
	return 0
}

// systemCgroupLimits returns every finite memory limit that applies to the
// process, by file: memory.max (v2) and memory.limit_in_bytes (v1) of its
// cgroup and each ancestor, under the usual mount points. A file that is
// missing, "max" or unlimited is left out.
func systemCgroupLimits(t *testing.T) map[string]int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatalf("reading /proc/self/cgroup: %v", err)
	}
	limits := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			t.Fatalf("/proc/self/cgroup line %q: want id:controllers:path", line)
		}
		var dir, file string
		switch {
		case f[0] == "0" && f[1] == "":
			dir, file = "/sys/fs/cgroup", "memory.max"
			if _, err := os.Stat("/sys/fs/cgroup/unified/cgroup.procs"); err == nil {
				dir = "/sys/fs/cgroup/unified" // hybrid layout
			}
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			dir, file = "/sys/fs/cgroup/"+f[1], "memory.limit_in_bytes"
		default:
			continue
		}
		for p := path.Clean("/" + f[2]); ; p = path.Dir(p) {
			full := filepath.Join(dir, filepath.FromSlash(p), file)
			if n, ok := readLimitFile(full); ok && n < Unlimited {
				limits[full] = n
			}
			if p == "/" {
				break
			}
		}
	}
	return limits
}

// readLimitFile reads a cgroup limit file holding a byte count; ok is
// false for a missing file or "max".
func readLimitFile(file string) (n int64, ok bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	n, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}
