package resp

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// MEMORY: USAGE, STATS, DOCTOR, PURGE, MALLOC-STATS, HELP, with redis
// 7.0's replies, field names and order, and the figures of Tandem's own
// accounting: used memory is the engine's (each key's entry, index share,
// record and elements, engine.DB.MemoryUsage), the allocator fields are the
// Go runtime's, the same figures INFO memory prints (info_memory.go).

func memoryCommands() []*Command {
	const g = "server"
	return []*Command{
		{Name: "memory", Arity: -2, Group: g, Since: "4.0.0", Summary: "A container for memory diagnostics commands", Subcommands: []*Command{
			{Name: "memory|doctor", Arity: 2, Group: g, Since: "4.0.0", Summary: "Outputs memory problems report", Run: cmdMemoryDoctor},
			{Name: "memory|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: g, Since: "4.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdMemoryHelp},
			{Name: "memory|malloc-stats", Arity: 2, Group: g, Since: "4.0.0", Summary: "Show allocator internal stats", Run: cmdMemoryMallocStats},
			{Name: "memory|purge", Arity: 2, Group: g, Since: "4.0.0", Summary: "Ask the allocator to release memory", Run: cmdMemoryPurge},
			{Name: "memory|stats", Arity: 2, Group: g, Since: "4.0.0", Summary: "Show memory usage details", Run: cmdMemoryStats},
			{Name: "memory|usage", Arity: -3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, KeyStep: 1, KeyFlags: []KeyFlag{ksRO}, Group: g, Since: "4.0.0", Summary: "Estimate the memory usage of a key", Run: cmdMemoryUsage},
		}},
	}
}

// memoryHelp is MEMORY HELP's text, redis 7.0's.
var memoryHelp = []string{
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
}

func cmdMemoryHelp(c *Client, args [][]byte) { c.help(args[0], memoryHelp) }

// cmdMemoryUsage is MEMORY USAGE key [SAMPLES count]. The options are
// checked before the key is looked up, as Redis does. The engine knows
// every aggregate's size exactly, so SAMPLES changes nothing but is
// checked as Redis checks it: an integer, not negative.
func cmdMemoryUsage(c *Client, args [][]byte) {
	for i := 3; i < len(args); i++ {
		if !argIs(args[i], "SAMPLES") || i+1 >= len(args) {
			c.w.Error(ErrSyntax)
			return
		}
		i++
		n, ok := c.intArg(args[i])
		if !ok {
			return
		}
		if n < 0 {
			c.w.Error(ErrSyntax)
			return
		}
	}
	n, ok := c.db.MemoryUsage(args[2])
	if !ok {
		c.w.Null()
		return
	}
	c.w.Int(n)
}

// memOverhead is Redis's redisMemOverhead over Tandem's figures: what
// MEMORY STATS and MEMORY DOCTOR report and INFO memory's overhead and
// dataset fields.
//
// The figures are INFO memory's (info_memory.go says what used memory
// holds): the overhead is the startup memory, the connections' buffers,
// the scripts' caches (the script cache and the FUNCTION libraries,
// charged to the engine) and each database's index (its entry slices and
// bucket arrays); the dataset is the rest, the keys without their index:
// overhead plus dataset is used memory, as in Redis.
type memOverhead struct {
	total, peak, startup  int64
	clients, lua, funcs   int64
	dbs                   []dbOverhead
	overheadTotal         int64
	notCounted            int64 // mem_not_counted_for_evict
	keys                  int64
	dataset, bytesPerKey  int64
	datasetPerc, peakPerc float32
	al                    allocator
	rss                   int64
}

// dbOverhead is one non-empty database's index overhead.
type dbOverhead struct {
	id           int
	main, expire int64
}

// memoryOverhead gathers the figures; like Redis's getMemoryOverheadData
// it lists only the databases that hold keys.
func (f *Frontend) memoryOverhead() memOverhead {
	var m memOverhead
	m.clients = f.buffers().Total
	evalMem, _, _, _, funcMem := f.scriptingInfo()
	m.lua, m.funcs = evalMem, funcMem
	m.startup = f.startupMem.Load()
	m.notCounted = m.clients // the caches are in the engine's accounting
	m.total, m.peak = f.usedMemory(m.notCounted)
	index := int64(0)
	for i := 0; i < f.eng.Databases(); i++ {
		db := f.eng.DB(i)
		keys := db.Size()
		if keys == 0 {
			continue
		}
		m.keys += int64(keys)
		// Expiry times live in the keys' records: there is no second
		// table for them, so its overhead is 0.
		d := dbOverhead{id: i, main: db.IndexMemory()}
		index += d.main + d.expire
		m.dbs = append(m.dbs, d)
	}
	// The index and the caches are part of the engine's accounting; the
	// startup memory was in it or in the buffers then: counted once.
	m.overheadTotal = min(m.notCounted+index+m.lua+m.funcs+m.startup, m.total)
	m.dataset = m.total - m.overheadTotal
	if m.peak > 0 {
		m.peakPerc = float32(m.total) * 100 / float32(m.peak)
	}
	net := int64(1)
	if m.total > m.startup {
		net = m.total - m.startup
	}
	m.datasetPerc = float32(m.dataset) * 100 / float32(net)
	if m.keys > 0 {
		m.bytesPerKey = net / m.keys
	}
	m.al = readAllocator()
	if m.rss = processRSS(); m.rss == 0 {
		m.rss = m.al.resident // no /proc: the runtime's own figure
	}
	return m
}

// ratio32 is a/b in Redis's float; 0 when b is 0 (Redis would print nan
// or inf, which no Tandem figure gives reason for).
func ratio32(a, b int64) float32 {
	if b <= 0 {
		return 0
	}
	return float32(a) / float32(b)
}

// cmdMemoryStats is MEMORY STATS: a map of redis 7.0's fields in its order.
func cmdMemoryStats(c *Client, _ [][]byte) {
	m := c.fe.memoryOverhead()
	w := &c.w
	field := func(name string, v int64) {
		w.BulkString(name)
		w.Int(v)
	}
	double := func(name string, v float32) {
		w.BulkString(name)
		w.Double(float64(v))
	}
	w.Map(27 + len(m.dbs))
	field("peak.allocated", m.peak)
	field("total.allocated", m.total)
	field("startup.allocated", m.startup)
	field("replication.backlog", 0)
	field("clients.slaves", 0)
	field("clients.normal", m.clients)
	field("cluster.links", 0)
	field("aof.buffer", 0)
	field("lua.caches", m.lua)
	field("functions.caches", m.funcs)
	for _, d := range m.dbs {
		w.BulkString("db." + strconv.Itoa(d.id))
		w.Map(3)
		field("overhead.hashtable.main", d.main)
		field("overhead.hashtable.expires", d.expire)
		field("overhead.hashtable.slot-to-keys", 0)
	}
	field("overhead.total", m.overheadTotal)
	field("keys.count", m.keys)
	field("keys.bytes-per-key", m.bytesPerKey)
	field("dataset.bytes", m.dataset)
	double("dataset.percentage", m.datasetPerc)
	double("peak.percentage", m.peakPerc)
	field("allocator.allocated", m.al.allocated)
	field("allocator.active", m.al.active)
	field("allocator.resident", m.al.resident)
	double("allocator-fragmentation.ratio", ratio32(m.al.active, m.al.allocated))
	field("allocator-fragmentation.bytes", m.al.active-m.al.allocated)
	double("allocator-rss.ratio", ratio32(m.al.resident, m.al.active))
	field("allocator-rss.bytes", m.al.resident-m.al.active)
	double("rss-overhead.ratio", ratio32(m.rss, m.al.resident))
	field("rss-overhead.bytes", m.rss-m.al.resident)
	double("fragmentation", ratio32(m.rss, m.total))
	field("fragmentation.bytes", m.rss-m.total)
}

// The MEMORY DOCTOR texts, redis 7.0's.
const (
	doctorFine  = "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n"
	doctorEmpty = "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. " +
		"Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n"
	doctorHead     = "Sam, I detected a few issues in this Redis instance memory implants:\n\n"
	doctorBigPeak  = " * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n"
	doctorHighRSS  = " * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this means that the Resident Set Size of the Redis process is much larger than the sum of the logical allocations Redis performed). This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. Otherwise, make sure you are using the Jemalloc allocator and not the default libc malloc. Note: The currently used allocator is \"%s\".\n\n"
	doctorAllocFr  = " * High allocator fragmentation: This instance has an allocator external fragmentation greater than 1.1. This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. You can try enabling 'activedefrag' config option.\n\n"
	doctorAllocRSS = " * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the allocator is much larger than the sum what the allocator actually holds). This problem is usually due to a large peak memory (check if there is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim it.\n\n"
	doctorProcRSS  = " * High process RSS overhead: This instance has non-allocator RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the Redis process is much larger than the RSS the allocator holds). This problem may be due to Lua scripts or Modules.\n\n"
	doctorClients  = " * Big client buffers: The clients output buffers in this instance are greater than 200K per client (on average). This may result from different causes, like Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that data piles on the Redis instance output buffer, or clients sending commands with large replies or very large sequences of commands in the same pipeline. Please use the CLIENT LIST command in order to investigate the issue if it causes problems in your instance, or to understand better why certain clients are using a big amount of memory.\n\n"
	doctorScripts  = " * Many scripts: There seem to be many cached scripts in this instance (more than 1000). This may be because scripts are generated and `EVAL`ed, instead of being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming most of your memory.\n\n"
	doctorTail     = "I'm here to keep you safe, Sam. I want to help you.\n"
)

// doctorReport is Redis's getMemoryDoctorReport over m: the same tests
// and thresholds (Tandem has no replicas, so never the replica buffers
// one). clients is the number of connected clients, scripts the EVAL
// cache's size.
func doctorReport(m memOverhead, clients, scripts int) string {
	const mb = 1 << 20
	if m.total < 5*mb {
		return doctorEmpty
	}
	var issues []string
	over := func(r float32, bytes int64, limit float32) bool { return r > limit && bytes > 10*mb }
	if ratio32(m.peak, m.total) > 1.5 {
		issues = append(issues, doctorBigPeak)
	}
	if over(ratio32(m.rss, m.total), m.rss-m.total, 1.4) {
		issues = append(issues, fmt.Sprintf(doctorHighRSS, runtime.Version()))
	}
	if over(ratio32(m.al.active, m.al.allocated), m.al.active-m.al.allocated, 1.1) {
		issues = append(issues, doctorAllocFr)
	}
	if over(ratio32(m.al.resident, m.al.active), m.al.resident-m.al.active, 1.1) {
		issues = append(issues, doctorAllocRSS)
	}
	if over(ratio32(m.rss, m.al.resident), m.rss-m.al.resident, 1.1) {
		issues = append(issues, doctorProcRSS)
	}
	if clients > 0 && m.clients/int64(clients) > 200*1024 {
		issues = append(issues, doctorClients)
	}
	if scripts > 1000 {
		issues = append(issues, doctorScripts)
	}
	if len(issues) == 0 {
		return doctorFine
	}
	return doctorHead + strings.Join(issues, "") + doctorTail
}

func cmdMemoryDoctor(c *Client, _ [][]byte) {
	clients := 0
	c.fe.clients.Range(func(_, _ any) bool { clients++; return true })
	_, scripts, _, _, _ := c.fe.scriptingInfo()
	c.w.Verbatim(doctorReport(c.fe.memoryOverhead(), clients, scripts))
}

// cmdMemoryPurge is MEMORY PURGE: the Go runtime returns what it can to
// the operating system, as jemalloc's purge does.
func cmdMemoryPurge(c *Client, _ [][]byte) {
	debug.FreeOSMemory()
	c.w.Status("OK")
}

// cmdMemoryMallocStats is MEMORY MALLOC-STATS: Redis built with jemalloc
// prints its allocator's report as verbatim text; Tandem prints the Go
// runtime's memory statistics the same way.
func cmdMemoryMallocStats(c *Client, _ [][]byte) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var b strings.Builder
	fmt.Fprintf(&b, "___ Begin Go runtime statistics (%s) ___\n", runtime.Version())
	line := func(name string, v uint64) { fmt.Fprintf(&b, "%s: %d\n", name, v) }
	line("Alloc", ms.Alloc)
	line("TotalAlloc", ms.TotalAlloc)
	line("Sys", ms.Sys)
	line("Mallocs", ms.Mallocs)
	line("Frees", ms.Frees)
	line("HeapAlloc", ms.HeapAlloc)
	line("HeapSys", ms.HeapSys)
	line("HeapIdle", ms.HeapIdle)
	line("HeapInuse", ms.HeapInuse)
	line("HeapReleased", ms.HeapReleased)
	line("HeapObjects", ms.HeapObjects)
	line("StackInuse", ms.StackInuse)
	line("StackSys", ms.StackSys)
	line("MSpanInuse", ms.MSpanInuse)
	line("MCacheInuse", ms.MCacheInuse)
	line("GCSys", ms.GCSys)
	line("OtherSys", ms.OtherSys)
	line("NextGC", ms.NextGC)
	line("NumGC", uint64(ms.NumGC))
	fmt.Fprintf(&b, "GCCPUFraction: %.6f\n", ms.GCCPUFraction)
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		line("MemoryLimit", uint64(limit))
	}
	b.WriteString("--- End Go runtime statistics ---\n")
	c.w.Verbatim(b.String())
}
