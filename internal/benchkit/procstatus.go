package benchkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The /proc readers every benchmark needs: a process's resident set, its
// CPU time and its children (redis-server's BGSAVE child).

// VmRSS returns a process's resident set size in bytes, from the VmRSS
// line of /proc/<pid>/status.
func VmRSS(pid int) (int64, error) { return ProcStatus(pid, "VmRSS") }

// ProcStatus returns one kB field of /proc/<pid>/status (VmRSS, VmHWM,
// ...) in bytes.
func ProcStatus(pid int, name string) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	return StatusBytes(b, name)
}

// StatusBytes returns one "Name:   123 kB" field of a /proc/<pid>/status
// text in bytes. A missing field, or one not in kB, is an error.
func StatusBytes(status []byte, name string) (int64, error) {
	for _, l := range bytes.Split(status, []byte("\n")) {
		v, ok := bytes.CutPrefix(l, []byte(name+":"))
		if !ok {
			continue
		}
		f := bytes.Fields(v)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("%s: %q is not \"<n> kB\"", name, bytes.TrimSpace(v))
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("%s: %q is not \"<n> kB\"", name, bytes.TrimSpace(v))
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no %s line", name)
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go runs on.
const clockTicks = 100

// CPUSeconds returns the user+system CPU time a process has used, from
// /proc/<pid>/stat.
func CPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return StatCPUSeconds(b)
}

// StatCPUSeconds parses utime+stime of a /proc/<pid>/stat text. The
// command name (field 2) may hold spaces and parentheses: fields are
// counted after its last ')'.
func StatCPUSeconds(stat []byte) (float64, error) {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat %q: no command name", Clip(stat))
	}
	f := strings.Fields(s[i+1:]) // f[0] is the state, field 3
	if len(f) < 13 {
		return 0, fmt.Errorf("stat: %d fields after the name, want 13+", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("stat: utime %q stime %q", f[11], f[12])
	}
	return float64(u+k) / clockTicks, nil
}

// Children returns the pids of a process's children, from
// /proc/<pid>/task/*/children.
func Children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// LoadAvg is the first three fields of /proc/loadavg, "?" if unreadable.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
