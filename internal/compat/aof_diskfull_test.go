package compat

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// smallDisk mounts a tmpfs of size bytes for the test: a disk that fills.
// Mounting needs root, which CI runs as; elsewhere the test is skipped.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		if os.Getuid() != 0 && os.Getenv("CI") == "" {
			t.Skipf("mounting a small tmpfs needs root: %v %s", err, out)
		}
		t.Fatalf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fillDisk leaves about spare bytes free on dir's file system, in one
// filler file it returns.
func fillDisk(t *testing.T, dir string, spare int64) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	path := filepath.Join(dir, "filler")
	if err := os.WriteFile(path, make([]byte, max(free-spare, 0)), 0o644); err != nil && !strings.Contains(err.Error(), "no space") {
		t.Fatal(err)
	}
	return path
}

// TestAOFDiskFull: under appendfsync everysec, when the disk the AOF is
// on fills, writes are refused with redis-server's MISCONF error while
// reads go on; once space returns the AOF is written again and writes
// are accepted; after a restart every acknowledged write is there — as
// redis-server 7.0 does on the same small disk.
func TestAOFDiskFull(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	type outcome struct {
		refusal        string
		readsOK, after bool
	}
	run := func(name string, nports int, args func(string, ...string) func([]int) []string) outcome {
		disk := smallDisk(t, 4<<20)
		data := filepath.Join(disk, "data")
		os.Mkdir(data, 0o755)
		argv := args(data, "--appendonly", "yes", "--appendfsync", "everysec", "--aof-use-rdb-preamble", "yes")
		s := startFor(t, t.TempDir(), name, nports, argv)
		c := client(s.addrs[0])
		defer c.Close()
		filler := fillDisk(t, disk, 64<<10)
		var o outcome
		value := strings.Repeat("v", 4096)
		acked := map[string]bool{}
		for i := 0; i < 2000 && o.refusal == ""; i++ {
			key := "k" + strconv.Itoa(i)
			if err := c.Set(ctx, key, value, 0).Err(); err != nil {
				o.refusal = err.Error()
				break
			}
			acked[key] = true
			if i%16 == 15 {
				time.Sleep(50 * time.Millisecond) // let the writes reach the disk
			}
		}
		if o.refusal == "" {
			t.Fatalf("%s: 2000 writes of 4 KB on a full 4 MB disk were all accepted", name)
		}
		o.readsOK = c.Get(ctx, "k0").Val() == value
		os.Remove(filler)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if err := c.Set(ctx, "after", "1", 0).Err(); err == nil {
				o.after = true
				acked["after"] = true
				break
			}
		}
		c.Close()
		s.stop()
		s2 := startFor(t, t.TempDir(), name+"-again", nports, argv)
		c2 := client(s2.addrs[0])
		defer c2.Close()
		waitLoaded(t, c2)
		lost := 0
		for key := range acked {
			if c2.Exists(ctx, key).Val() != 1 {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%s: %d of %d acknowledged writes missing after the restart", name, lost, len(acked))
		}
		return o
	}
	ref := run("redis", 1, redisArgsIn)
	got := run("tandem", 2, tandemArgs)
	const want = "MISCONF Errors writing to the AOF file: No space left on device"
	if ref.refusal != want {
		t.Errorf("redis-server refused with %q; the test expects %q", ref.refusal, want)
	}
	if got != ref {
		t.Errorf("Tandem %+v, redis-server %+v", got, ref)
	}
}
