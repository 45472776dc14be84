package compat

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAOFRewriteWhileOff: BGREWRITEAOF with appendonly no, as redis-server
// 7.0 runs it — the same reply, the same files in appendonlydir (a base
// and a manifest, no incr file; a second rewrite replaces the first
// base), the same INFO figures — and the directory it leaves loads, into
// Tandem and into redis-server, when appendonly is turned on.
func TestAOFRewriteWhileOff(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	type result struct{ replies, files, info, loaded string }
	run := func(name string, nports int, args func(string, ...string) func([]int) []string) (result, string) {
		dir := t.TempDir()
		s := startFor(t, dir, name, nports, args(dir))
		c := client(s.addrs[0])
		defer c.Close()
		aofWorkload(t, c)
		var r result
		for range 2 {
			v, err := c.Do(ctx, "BGREWRITEAOF").Result()
			r.replies += strings.TrimSpace(strings.Join([]string{toString(v), errString(err)}, " ")) + "\n"
			waitRewrite(t, c)
			r.files += dirNames(t, filepath.Join(dir, "appendonlydir")) + "\n"
		}
		info, _ := c.Info(ctx, "persistence").Result()
		for _, l := range splitLines(info) {
			for _, f := range []string{"aof_enabled:", "aof_rewrite_in_progress:", "aof_last_bgrewrite_status:", "aof_rewrites:", "aof_rewrites_consecutive_failures:", "aof_last_write_status:", "aof_current_size:"} {
				if strings.HasPrefix(l, f) {
					r.info += l + "\n"
				}
			}
		}
		want := snapshotOf(t, c)
		c.Close()
		s.stop()
		s2 := startFor(t, dir, name+"-aof", nports, args(dir, "--appendonly", "yes"))
		c2 := client(s2.addrs[0])
		defer c2.Close()
		if got := snapshotOf(t, c2); got != want {
			t.Errorf("%s restarted with appendonly yes reads back\n%s\nwant\n%s", name, got, want)
		}
		r.loaded = want
		return r, dir
	}
	ref, _ := run("redis", 1, redisArgsIn)
	got, tdir := run("tandem", 2, tandemArgs)
	if got.replies != ref.replies || got.files != ref.files || got.info != ref.info {
		t.Errorf("Tandem:\n%s%s%s\nredis-server:\n%s%s%s", got.replies, got.files, got.info, ref.replies, ref.files, ref.info)
	}
	// Tandem's directory into redis-server.
	r := startFor(t, tdir, "redis-on-tandem", 1, redisArgsIn(tdir, "--appendonly", "yes"))
	c := client(r.addrs[0])
	defer c.Close()
	if loaded := snapshotOf(t, c); loaded != got.loaded {
		t.Errorf("redis-server on Tandem's rewrite reads back\n%s\nwant\n%s", loaded, got.loaded)
	}
}

func dirNames(t *testing.T, dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err.Error()
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
