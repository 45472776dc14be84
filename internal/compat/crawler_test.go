package compat

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// lru_crawler, differential. Only replies that do not depend on whether
// memcached's own crawler thread happens to be running are compared as
// cases (a crawl it is busy with answers BUSY); the crawler's settings
// are process-wide, so no case changes them.
var memcCrawlerCases = []memcCase{
	{name: "lru_crawler bad class", wholeOnly: true, send: ln("lru_crawler metadump 99", "lru_crawler crawl 0", "lru_crawler crawl 1,70", "lru_crawler metadump x")},
	// Split, memcached still holds the replies of the lines before when a
	// line of the same read is partial, and answers the metadump "cannot
	// pipeline"; Tandem counts them written once a read is served.
	{name: "lru_crawler bad numbers", send: ln("lru_crawler tocrawl x", "lru_crawler sleep 5000000", "lru_crawler sleep -1")},
	{name: "lru_crawler unknown", send: ln("lru_crawler foo", "lru_crawler", "lru_crawler metadump all noreply", "lru_crawler crawl")},
	{name: "lru_crawler metadump after a queued reply", send: ln("set k 0 0 1", "v", "lru_crawler metadump all"),
		wholeOnly: true}, // split, memcached runs the dump, and then hangs up on mn,
}

func TestMemcachedCrawler(t *testing.T) { runMemcCases(t, memcCrawlerCases) }

// metadumpVolatile are the fields whose values are the server's own: last
// access time and CAS unique.
var metadumpVolatile = regexp.MustCompile(` (la|cas)=\d+`)

// metadumpOf sends "lru_crawler metadump all" on a fresh connection and
// returns its lines, volatile fields masked, sorted (memcached lists in
// LRU order, Tandem in its hash order). BUSY (memcached's crawler is
// running) is retried.
func metadumpOf(t *testing.T, addr string) []string {
	t.Helper()
	for try := 0; ; try++ {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		conn.Write([]byte("lru_crawler metadump all\r\n"))
		r := bufio.NewReader(conn)
		var lines []string
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				conn.Close()
				t.Fatalf("%s: metadump: %v after %q", addr, err, lines)
			}
			if strings.HasPrefix(l, "BUSY") && try < 50 {
				lines = nil
				break
			}
			if l == "END\r\n" {
				conn.Close()
				sort.Strings(lines)
				return lines
			}
			if !strings.HasSuffix(l, "\n") || strings.HasSuffix(l, "\r\n") {
				t.Fatalf("%s: metadump line %q does not end in a bare newline", addr, l)
			}
			lines = append(lines, metadumpVolatile.ReplaceAllString(l, " $1=N"))
		}
		conn.Close()
		time.Sleep(20 * time.Millisecond)
	}
}

// The same items give the same metadump lines on both servers: the key
// uri-encoded, no expiry as -1, fetch, class and size as memcached
// computes them. Expiries are far enough to be whole seconds apart only
// if the servers' clocks are.
func TestMemcachedMetadump(t *testing.T) {
	const fill = "set plain 0 0 1\r\nv\r\nset a%20b/c 5 0 3\r\nxyz\r\nset fetched 0 0 4\r\nabcd\r\n" +
		"get fetched\r\nset gone 0 1 1\r\nx\r\n"
	for _, addr := range []string{refMemc, sutMemc} {
		if err := flushMemc(addr); err != nil {
			t.Fatal(err)
		}
		dialMemc(t, addr).do(fill)
	}
	time.Sleep(2100 * time.Millisecond) // gone expires: neither lists it
	want, got := metadumpOf(t, refMemc), metadumpOf(t, sutMemc)
	if strings.Join(want, "") != strings.Join(got, "") {
		t.Fatalf("metadump\n got  %q\n want %q", got, want)
	}
	if len(want) != 3 {
		t.Fatalf("memcached listed %q", want)
	}
}

// memcached-tool's dump and keys modes (Debian's memcached ships the
// script) read a Tandem metadump as memcached's.
func TestMemcachedToolDump(t *testing.T) {
	const tool = "/usr/share/memcached/scripts/memcached-tool"
	if _, err := os.Stat(tool); err != nil {
		t.Fatalf("%s is Debian's memcached package's (apt-get install memcached): %v", tool, err)
	}
	const fill = "set one 3 0 5\r\nhello\r\nset two%x 0 0 3\r\nabc\r\n"
	run := func(addr, mode string) []string {
		out, err := exec.Command("perl", tool, addr, mode).Output()
		if err != nil {
			t.Fatalf("memcached-tool %s %s: %v", addr, mode, err)
		}
		lines := strings.SplitAfter(string(out), "\n")
		for i, l := range lines {
			lines[i] = metadumpVolatile.ReplaceAllString(l, " $1=N")
		}
		if mode == "dump" { // pairs of lines: add <key> …, value
			var pairs []string
			for i := 0; i+1 < len(lines); i += 2 {
				pairs = append(pairs, lines[i]+lines[i+1])
			}
			lines = pairs
		}
		sort.Strings(lines)
		return lines
	}
	for _, addr := range []string{refMemc, sutMemc} {
		if err := flushMemc(addr); err != nil {
			t.Fatal(err)
		}
		dialMemc(t, addr).do(fill)
	}
	for _, mode := range []string{"dump", "keys"} {
		want, got := run(refMemc, mode), run(sutMemc, mode)
		if strings.Join(want, "") != strings.Join(got, "") {
			t.Errorf("memcached-tool %s\n got  %q\n want %q", mode, got, want)
		}
		if len(want) < 2 {
			t.Errorf("memcached-tool %s against memcached: %q", mode, want)
		}
	}
}

// "stats settings", "stats items" and "stats slabs" name the same
// statistics in the same order as memcached 1.6.18 (values are each
// server's own; README's Monitoring section says where Tandem's come from).
func TestMemcachedStatsGroupNames(t *testing.T) {
	names := func(addr, group string) []string {
		out := dialMemc(t, addr).do("set statsnames 0 0 1\r\nv\r\nstats " + group + "\r\n")
		var n []string
		for _, l := range strings.Split(out, "\r\n") {
			f := strings.Fields(l)
			if len(f) < 2 || f[0] != "STAT" {
				continue
			}
			// Class 1's and the group's own: the shared memcached keeps
			// the slab classes other tests' larger items opened.
			if cls, _, ok := strings.Cut(strings.TrimPrefix(f[1], "items:"), ":"); ok && cls != "1" && group != "settings" {
				continue
			}
			n = append(n, f[1])
		}
		return n
	}
	for _, group := range []string{"settings", "items", "slabs"} {
		want, got := names(refMemc, group), names(sutMemc, group)
		if strings.Join(want, " ") != strings.Join(got, " ") {
			t.Errorf("stats %s names\n got  %v\n want %v", group, got, want)
		}
		if len(want) == 0 {
			t.Errorf("stats %s: memcached printed nothing", group)
		}
	}
}
