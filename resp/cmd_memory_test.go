package resp

import (
	"strconv"
	"strings"
	"testing"
)

func TestMemoryUsage(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("$-1\r\n", "MEMORY", "USAGE", "nokey")
	// Options are checked before the key is looked up, as in Redis.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SAMPLES"}, "-ERR syntax error\r\n"},
		{[]string{"SAMPLES", "x"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"SAMPLES", "-1"}, "-ERR syntax error\r\n"},
		{[]string{"FOO", "1"}, "-ERR syntax error\r\n"},
		{[]string{"SAMPLES", "1", "SAMPLES", "x"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"samples", "0"}, "$-1\r\n"},
	} {
		c.expect(tc.want, append([]string{"MEMORY", "USAGE", "nokey"}, tc.args...)...)
	}
	usage := func(key string, opts ...string) int64 {
		t.Helper()
		r := c.do(append([]string{"MEMORY", "USAGE", key}, opts...)...)
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(r, ":"), "\r\n"), 10, 64)
		if err != nil {
			t.Fatalf("MEMORY USAGE %s: %q", key, r)
		}
		return n
	}
	c.do("SET", "small", "v")
	c.do("SET", "big", strings.Repeat("v", 10000))
	small, big := usage("small"), usage("big")
	if small <= 1 || big < 10000 || big <= small {
		t.Errorf("MEMORY USAGE small %d, big %d", small, big)
	}
	if n := usage("big", "SAMPLES", "0"); n != big {
		t.Errorf("SAMPLES 0: %d, without %d (the engine's figure is exact)", n, big)
	}
	for i := 0; i < 1000; i++ {
		c.do("RPUSH", "list", "element-"+strconv.Itoa(i))
	}
	if n := usage("list"); n < int64(1000*len("element-000")) {
		t.Errorf("a list of 1000 elements: %d bytes", n)
	}
	c.expect("-ERR wrong number of arguments for 'memory|usage' command\r\n", "MEMORY", "USAGE")
	c.expect("-ERR wrong number of arguments for 'memory' command\r\n", "MEMORY")
	c.expect("-ERR unknown subcommand 'nosuch'. Try MEMORY HELP.\r\n", "MEMORY", "nosuch")
}

// statsNames are MEMORY STATS's field names in redis 7.0's order, with
// one database.
var statsNames = strings.Fields(`peak.allocated total.allocated startup.allocated replication.backlog
clients.slaves clients.normal cluster.links aof.buffer lua.caches functions.caches db.0
overhead.total keys.count keys.bytes-per-key dataset.bytes dataset.percentage peak.percentage
allocator.allocated allocator.active allocator.resident allocator-fragmentation.ratio
allocator-fragmentation.bytes allocator-rss.ratio allocator-rss.bytes rss-overhead.ratio
rss-overhead.bytes fragmentation fragmentation.bytes`)

func TestMemoryStats(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	for i := 0; i < 100; i++ {
		c.do("SET", "k"+strconv.Itoa(i), "value")
	}
	m := env.fe.memoryOverhead()
	if len(m.dbs) != 1 || m.dbs[0].id != 0 || m.keys != 100 {
		t.Fatalf("databases %+v, keys %d", m.dbs, m.keys)
	}
	if m.overheadTotal <= 0 || m.overheadTotal+m.dataset != m.total || m.dataset <= 0 {
		t.Errorf("overhead %d + dataset %d != used %d", m.overheadTotal, m.dataset, m.total)
	}
	// As Redis: per key is what was used past the startup memory.
	if m.bytesPerKey != (m.total-m.startup)/100 {
		t.Errorf("bytes per key %d, used %d, startup %d", m.bytesPerKey, m.total, m.startup)
	}
	r := c.do("MEMORY", "STATS")
	if !strings.HasPrefix(r, "*56\r\n") { // 28 pairs, flat in RESP2
		t.Fatalf("MEMORY STATS: %q", r[:min(len(r), 20)])
	}
	if !strings.Contains(r, "$4\r\ndb.0\r\n*6\r\n$23\r\noverhead.hashtable.main\r\n:") {
		t.Errorf("db.0 is not a map of the three overheads: %q", r)
	}
	// In RESP3 no value is a bulk string: every bulk string is a name.
	c.do("HELLO", "3")
	r = c.do("MEMORY", "STATS")
	if !strings.HasPrefix(r, "%28\r\n") || !strings.Contains(r, "$18\r\ndataset.percentage\r\n,") {
		t.Errorf("RESP3 MEMORY STATS: %q", r)
	}
	var top []string
	lines := strings.Split(r, "\r\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "$") && !strings.HasPrefix(lines[i+1], "overhead.hashtable.") {
			top = append(top, lines[i+1])
		}
	}
	if got, want := strings.Join(top, " "), strings.Join(statsNames, " "); got != want {
		t.Errorf("MEMORY STATS fields:\n got %s\nwant %s", got, want)
	}
	// INFO memory splits used memory the same way.
	_, f := memoryInfo(t, env)
	if f["used_memory_overhead"] != strconv.FormatInt(m.overheadTotal, 10) || f["used_memory_startup"] != strconv.FormatInt(m.startup, 10) {
		t.Errorf("INFO overhead %s startup %s, MEMORY STATS %d", f["used_memory_overhead"], f["used_memory_startup"], m.overheadTotal)
	}
}

func TestMemoryDoctorReport(t *testing.T) {
	const mb = 1 << 20
	healthy := memOverhead{total: 100 * mb, peak: 100 * mb, rss: 110 * mb, al: allocator{allocated: 100 * mb, active: 105 * mb, resident: 108 * mb}}
	if got := doctorReport(memOverhead{total: 4 * mb}, 1, 0); got != doctorEmpty {
		t.Errorf("under 5MB: %q", got)
	}
	if got := doctorReport(healthy, 1, 0); got != doctorFine {
		t.Errorf("healthy: %q", got)
	}
	peaked := healthy
	peaked.peak = 200 * mb
	if got := doctorReport(peaked, 1, 0); got != doctorHead+doctorBigPeak+doctorTail {
		t.Errorf("peak: %q", got)
	}
	got := doctorReport(healthy, 1, 1001)
	if got != doctorHead+doctorScripts+doctorTail {
		t.Errorf("many scripts: %q", got)
	}
	buffers := healthy
	buffers.clients = 10 * mb
	if got := doctorReport(buffers, 2, 0); got != doctorHead+doctorClients+doctorTail {
		t.Errorf("client buffers: %q", got)
	}
	frag := healthy
	frag.rss = 300 * mb
	if got := doctorReport(frag, 1, 0); !strings.Contains(got, "High total RSS") || !strings.Contains(got, "High process RSS overhead") {
		t.Errorf("fragmented: %q", got)
	}
}

func TestMemoryDoctorPurgeMallocStatsHelp(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("$"+strconv.Itoa(len(doctorEmpty))+"\r\n"+doctorEmpty+"\r\n", "MEMORY", "DOCTOR")
	c.expect("+OK\r\n", "MEMORY", "PURGE")
	if r := c.do("MEMORY", "MALLOC-STATS"); !strings.Contains(r, "HeapAlloc: ") {
		t.Errorf("MALLOC-STATS: %q", r)
	}
	c.do("HELLO", "3")
	if r := c.do("MEMORY", "DOCTOR"); !strings.HasPrefix(r, "="+strconv.Itoa(len(doctorEmpty)+4)+"\r\ntxt:Hi Sam") {
		t.Errorf("RESP3 DOCTOR: %q", r)
	}
	r := c.do("MEMORY", "HELP")
	if !strings.HasPrefix(r, "*14\r\n+MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+DOCTOR\r\n") ||
		!strings.HasSuffix(r, "+HELP\r\n+    Prints this help.\r\n") {
		t.Errorf("MEMORY HELP: %q", r)
	}
}
