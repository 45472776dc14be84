package benchkit

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// VmRSS returns a process's resident set size in bytes, from the VmRSS
// line of /proc/<pid>/status.
func VmRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	return StatusBytes(b, "VmRSS")
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
