// Package memlimit finds how much memory the process may use, so that
// cmd/tandem can choose a maxmemory that keeps it out of swap and out of the
// OOM killer when none is configured, and derives the Go runtime's soft
// memory limit (GOMEMLIMIT) from maxmemory.
//
// The bound is the tightest of the memory cgroup's limit (cgroup v2
// memory.max, or v1 memory.limit_in_bytes, of the process's cgroup and of
// every ancestor up to the hierarchy's mount) and the machine's physical
// memory (MemTotal of /proc/meminfo). Every path is read below a root
// directory ("/" in production), so tests feed fake trees.
package memlimit

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Limit is the memory the process may use and where that figure comes from.
type Limit struct {
	Bytes  int64  // 0 when nothing could be found
	Source string // e.g. "cgroup v2 /sys/fs/cgroup/app/memory.max" or "physical memory (/proc/meminfo MemTotal)"
}

// DefaultShare is the share of Limit that maxmemory gets by default: the
// rest is for the Go runtime (garbage between two collections, stacks,
// metadata), client buffers and whatever else lives in the container.
const DefaultShare = 0.75

// Unlimited is the threshold above which a cgroup limit means "no limit":
// cgroup v1 writes "no limit" as PAGE_COUNTER_MAX pages, 9223372036854771712
// with 4 KiB pages; anything from 2^60 (an exabyte) on is as good as none.
const Unlimited = int64(1) << 60

// ErrNotFound is returned by Detect when neither a cgroup limit nor the
// physical memory could be read (no /proc, as on macOS).
var ErrNotFound = errors.New("memlimit: no cgroup limit and no /proc/meminfo")

// Detect returns the memory available to the current process, reading
// files below root ("/" for the real system): the tightest of the cgroup
// limit, if any, and physical memory.
func Detect(root string) (Limit, error) {
	phys, physErr := MemTotal(root)
	cg, ok := CgroupLimit(root)
	switch {
	case ok && (physErr != nil || cg.Bytes < phys):
		return cg, nil
	case physErr == nil:
		return Limit{Bytes: phys, Source: "physical memory (/proc/meminfo MemTotal)"}, nil
	}
	return Limit{}, ErrNotFound
}

// DefaultMaxMemory is the maxmemory chosen when none is configured:
// DefaultShare of l, or 0 (unlimited) when l is unknown.
func DefaultMaxMemory(l Limit) int64 {
	return int64(float64(l.Bytes) * DefaultShare)
}

// MemTotal reads MemTotal from root/proc/meminfo, in bytes.
func MemTotal(root string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(root, "proc", "meminfo"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n <= 0 {
			break
		}
		if len(f) > 1 && strings.EqualFold(f[1], "kB") {
			n *= 1024
		}
		return n, nil
	}
	return 0, errors.New("memlimit: no MemTotal in /proc/meminfo")
}

// cgroupLine is one line of /proc/self/cgroup: "id:controllers:path".
type cgroupLine struct {
	controllers []string
	path        string
}

// mount is a cgroup hierarchy's mount: where it is mounted and which
// cgroup is its root (a container often sees its own cgroup as "/").
type mount struct {
	root, point string
}

// CgroupLimit returns the tightest memory limit of the process's cgroup
// and its ancestors: cgroup v2 first, then v1's memory controller. ok is
// false when no finite limit is set (or nothing could be read).
func CgroupLimit(root string) (l Limit, ok bool) {
	lines, err := readCgroups(filepath.Join(root, "proc", "self", "cgroup"))
	if err != nil {
		return Limit{}, false
	}
	v2, v1 := readMounts(filepath.Join(root, "proc", "self", "mountinfo"))
	for _, c := range lines {
		// The unified hierarchy: id 0, no controller list. In a hybrid
		// setup it has no memory controller and no memory.max files, and
		// the v1 line below decides.
		if len(c.controllers) == 1 && c.controllers[0] == "" {
			m := mount{root: "/", point: "/sys/fs/cgroup"}
			if v2 != nil {
				m = *v2
			}
			if l, found := walk(root, m, c.path, "memory.max", "cgroup v2"); found {
				return l, l.Bytes > 0
			}
		}
	}
	for _, c := range lines {
		for _, ctl := range c.controllers {
			if ctl != "memory" {
				continue
			}
			m := mount{root: "/", point: "/sys/fs/cgroup/memory"}
			if v1 != nil {
				m = *v1
			}
			if l, found := walk(root, m, c.path, "memory.limit_in_bytes", "cgroup v1"); found {
				return l, l.Bytes > 0
			}
		}
	}
	return Limit{}, false
}

// walk reads file in the cgroup at cgPath and in each ancestor up to the
// mount's root, and returns the smallest finite limit (Bytes 0 if every
// file says "max"). found is false when no file could be read at all,
// which means this hierarchy does not control memory here.
func walk(root string, m mount, cgPath, file, kind string) (l Limit, found bool) {
	rel := path.Clean("/" + cgPath)
	mroot := path.Clean("/" + m.root)
	if mroot != "/" {
		// The mount shows the cgroup mroot as its top directory; a
		// process outside it (possible with a foreign cgroup namespace)
		// is looked for from the top.
		if r, ok := strings.CutPrefix(rel, mroot); ok && (r == "" || r[0] == '/') {
			rel = path.Clean("/" + r)
		}
	}
	for {
		shown := path.Join(m.point, rel, file)
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(shown)))
		if err == nil {
			found = true
			if n, ok := parseLimit(b); ok && (l.Bytes == 0 || n < l.Bytes) {
				l = Limit{Bytes: n, Source: kind + " " + shown}
			}
		}
		if rel == "/" {
			return l, found
		}
		rel = path.Dir(rel)
	}
}

// parseLimit reads a memory.max or memory.limit_in_bytes value: a byte
// count, or "max"; ok is false for "max", absurd values and garbage.
func parseLimit(b []byte) (int64, bool) {
	s := string(bytes.TrimSpace(b))
	if s == "max" || s == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= Unlimited {
		return 0, false
	}
	return n, true
}

func readCgroups(name string) ([]cgroupLine, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out []cgroupLine
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		out = append(out, cgroupLine{controllers: strings.Split(parts[1], ","), path: parts[2]})
	}
	return out, nil
}

// readMounts finds the cgroup2 mount and the v1 memory controller's mount
// in a mountinfo file; nil where absent (the usual mount points are used
// then).
func readMounts(name string) (v2, v1 *mount) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 > len(fields) {
			continue
		}
		m := &mount{root: unescape(fields[3]), point: unescape(fields[4])}
		switch fields[sep+1] {
		case "cgroup2":
			if v2 == nil {
				v2 = m
			}
		case "cgroup":
			if v1 == nil && hasOption(fields[len(fields)-1], "memory") {
				v1 = m
			}
		}
	}
	return v2, v1
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// unescape decodes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
