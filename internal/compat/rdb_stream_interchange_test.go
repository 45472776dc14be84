package compat

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Streams through RDB files and DUMP payloads, both ways: redis-server
// writes streams of many nodes (stream-node-max-entries 4), with deleted
// entries (a node's first, whole nodes, the last), XSETID's entries-added
// and max-deleted-entry-id, groups with PELs, consumers with and without
// pending entries, NOACK reads and claims; the other server loads the
// file (at start) or RESTOREs the payloads, and every XINFO STREAM FULL,
// XRANGE and XINFO GROUPS/CONSUMERS must be the writer's byte for byte.
// Delivery and seen times are in the file, so they compare too. Then
// both servers trim (~, by whole nodes) and add to the loaded streams:
// the nodes themselves must have come through.

var idleField = regexp.MustCompile(`idle\r\n:\d+`)

// streamFixtureKeys are the keys fillStreams writes.
var streamFixtureKeys = []string{"sa", "sb", "sempty", "sbig", "sttl"}

// fillStreams writes the streams of the fixture through c.
func fillStreams(t *testing.T, c *respClient) {
	t.Helper()
	var steps [][]string
	add := func(line string) { steps = append(steps, strings.Fields(line)) }
	add("CONFIG SET stream-node-max-entries 4")
	for i := 1; i <= 30; i++ {
		switch {
		case i%7 == 0: // other fields: an entry without the master's
			add(fmt.Sprintf("XADD sa %d-%d other %d third x", i*10, i%3, i))
		case i%5 == 0: // integers and negative ones, stored as such in listpacks
			add(fmt.Sprintf("XADD sa %d-%d a -%d b %d", i*10, i%3, i*1000, i*100000))
		default:
			add(fmt.Sprintf("XADD sa %d-%d a %d b v%d", i*10, i%3, i, i))
		}
	}
	add("XDEL sa 10-1 20-2 30-0 40-1") // the first node, whole
	add("XDEL sa 70-1 110-2 300-0")    // inside nodes, and the last entry
	add("XGROUP CREATE sa g1 0")
	add("XGROUP CREATE sa g2 $ ENTRIESREAD 5")
	add("XGROUP CREATE sa g3 120-0")
	add("XREADGROUP GROUP g1 alice COUNT 5 STREAMS sa >")
	add("XREADGROUP GROUP g1 bob COUNT 3 STREAMS sa >")
	add("XREADGROUP GROUP g1 carol NOACK COUNT 2 STREAMS sa >")
	add("XACK sa g1 50-2 60-0")
	add("XCLAIM sa g1 dave 0 80-2")
	add("XGROUP CREATECONSUMER sa g1 eve")
	add("XGROUP CREATECONSUMER sa g3 idle")
	add("XREADGROUP GROUP g3 frank STREAMS sa >")
	add("XDEL sa 130-1") // pending in g3, deleted
	add("XSETID sa 400-0 ENTRIESADDED 50 MAXDELETEDID 350-0")

	for i := 1; i <= 9; i++ {
		add(fmt.Sprintf("XADD sb %d-0 f %d", i, i))
	}
	add("XTRIM sb MAXLEN 5")
	add("XGROUP CREATE sb g 0 ENTRIESREAD 2")
	add("XREADGROUP GROUP g c STREAMS sb >")

	add("XADD sempty 5-5 f v")
	add("XADD sempty 6-0 f v")
	add("XGROUP CREATE sempty g 0")
	add("XREADGROUP GROUP g c STREAMS sempty >")
	add("XDEL sempty 5-5 6-0")
	add("XSETID sempty 9-9 ENTRIESADDED 7 MAXDELETEDID 8-0")

	add("XADD sbig 1-0 long " + strings.Repeat("long-value-", 30) + " n 12345678901234")
	add("XADD sbig 2-0 long " + strings.Repeat("z", 300))
	add("XADD sttl 1-0 f v")
	add("PEXPIRE sttl 3600000")
	add("CONFIG SET stream-node-max-entries 100")
	for _, a := range steps {
		if r := c.do(a...); r.isError() {
			t.Fatalf("%s: fixture step %q: %q", c.addr, a, r.raw)
		}
	}
}

// describeStreams is what a server answers about the fixture's streams.
func describeStreams(t *testing.T, c *respClient, prefix string) []string {
	t.Helper()
	var out []string
	for _, k := range streamFixtureKeys {
		k = prefix + k
		queries := [][]string{{"TYPE", k}, {"XINFO", "STREAM", k, "FULL"}, {"XRANGE", k, "-", "+"}, {"XINFO", "GROUPS", k}}
		for _, q := range queries {
			out = append(out, fmt.Sprintf("%q -> %q", q, c.do(q...).raw))
		}
		if r := c.do("PTTL", k); r.kind != ':' || (k == prefix+"sttl") != (r.text != "-1") {
			out = append(out, fmt.Sprintf("PTTL %s: %q", k, r.raw))
		}
	}
	// idle is now minus seen-time: the seen times themselves are in XINFO
	// STREAM FULL.
	consumers := idleField.ReplaceAllString(string(c.do("XINFO", "CONSUMERS", prefix+"sa", "g1").raw), "idle\r\n:<ms>")
	out = append(out, fmt.Sprintf("XINFO CONSUMERS -> %q", consumers))
	return out
}

// mutateStreams trims and adds to the loaded streams; the replies depend
// on the nodes the streams were loaded with.
func mutateStreams(t *testing.T, c *respClient, prefix string) []string {
	t.Helper()
	var out []string
	for _, q := range [][]string{
		{"XTRIM", prefix + "sa", "MAXLEN", "~", "12"}, {"XLEN", prefix + "sa"}, {"XRANGE", prefix + "sa", "-", "+", "COUNT", "2"},
		{"XTRIM", prefix + "sa", "MINID", "~", "200"}, {"XLEN", prefix + "sa"},
		{"XADD", prefix + "sa", "401-0", "a", "1", "b", "2"}, {"XADD", prefix + "sa", "400-0", "a", "1"},
		{"XREADGROUP", "GROUP", "g2", "x", "COUNT", "3", "STREAMS", prefix + "sa", ">"}, {"XINFO", "GROUPS", prefix + "sa"},
		{"XADD", prefix + "sempty", "9-9", "f", "v"}, {"XADD", prefix + "sempty", "10-0", "f", "v"}, {"XINFO", "GROUPS", prefix + "sempty"},
		{"XTRIM", prefix + "sb", "MAXLEN", "~", "0"}, {"XLEN", prefix + "sb"},
	} {
		out = append(out, fmt.Sprintf("%q -> %q", q, c.do(q...).raw))
	}
	return out
}

func compareLines(t *testing.T, what string, want, got []string) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d lines, want %d", what, len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("%s differs:\n  writer: %s\n  loader: %s", what, want[i], got[i])
		}
	}
}

// streamsThroughRDB fills the writer's streams, saves, starts the loader
// on the file and compares.
func streamsThroughRDB(t *testing.T, startWriter, startLoader func(*testing.T, string) *server) {
	wdir, ldir := t.TempDir(), t.TempDir()
	w := startWriter(t, wdir)
	wc := dialRESP(t, w.addrs[0])
	fillStreams(t, wc)
	saveVia(t, w.addrs[0])
	want := describeStreams(t, wc, "")
	copyFile(t, filepath.Join(wdir, "dump.rdb"), filepath.Join(ldir, "dump.rdb"))
	l := startLoader(t, ldir)
	lc := dialRESP(t, l.addrs[0])
	compareLines(t, "after loading the writer's dump", want, describeStreams(t, lc, ""))
	compareLines(t, "changing the loaded streams", mutateStreams(t, wc, ""), mutateStreams(t, lc, ""))
	t.Logf("%d facts compared", len(want))
}

func TestRDBStreamsFromRedisLoadIntoTandem(t *testing.T) {
	mustNotSelfTest(t)
	streamsThroughRDB(t, startRedisIn, startTandemIn)
}

func TestRDBStreamsFromTandemLoadIntoRedis(t *testing.T) {
	mustNotSelfTest(t)
	streamsThroughRDB(t, startTandemIn, startRedisIn)
}

// TestStreamDumpRestoreAcross: DUMP of each fixture stream on one server,
// RESTORE (with its idle time) on the other, both ways; the restored
// streams answer as the originals.
func TestStreamDumpRestoreAcross(t *testing.T) {
	for _, dir := range [][2]string{{refRedis, sutRedis}, {sutRedis, refRedis}} {
		t.Run(sideOf(dir[0])+"-to-"+sideOf(dir[1]), func(t *testing.T) {
			for _, a := range dir {
				if err := flushRedis(a); err != nil {
					t.Fatal(err)
				}
			}
			from, to := dialRESP(t, dir[0]), dialRESP(t, dir[1])
			fillStreams(t, from)
			for _, k := range streamFixtureKeys {
				p := from.do("DUMP", k)
				if p.kind != '$' || p.null {
					t.Fatalf("DUMP %s: %q", k, p.raw)
				}
				ttl := "0"
				if k == "sttl" {
					ttl = strconv.Itoa(3600000)
				}
				if r := to.do("RESTORE", "r"+k, ttl, p.text); string(r.raw) != "+OK\r\n" {
					t.Fatalf("RESTORE %s from %s: %q", k, dir[0], r.raw)
				}
				// And back under the first name, for mutateStreams.
				if r := from.do("RENAME", k, "r"+k); string(r.raw) != "+OK\r\n" {
					t.Fatalf("RENAME %s: %q", k, r.raw)
				}
			}
			compareLines(t, "restored streams", describeStreams(t, from, "r"), describeStreams(t, to, "r"))
			compareLines(t, "changing the restored streams", mutateStreams(t, from, "r"), mutateStreams(t, to, "r"))
			for _, a := range dir {
				if err := flushRedis(a); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
