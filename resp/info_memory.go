package resp

import (
	"context"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/server"
)

// INFO memory: redis 7.0's fields in its order, and the peak sampler.
//
// used_memory is what Tandem accounts for: the engine's accounting of the
// keyspace (each value at the size the Go allocator hands out for it,
// index share included) and of the script cache and FUNCTION libraries
// (engine.ChargeMemory), which is what maxmemory bounds, plus the
// connections' buffers (the server's count, mem_clients_normal), which it
// does not (mem_not_counted_for_evict). The Go
// heap's fixed structures (command tables, ACL, Lua states) are not in it,
// so used_memory_startup, used_memory as measured before any data is
// loaded, is near 0 where Redis's is its own structures' (about 1 MB);
// tools that derive a maxmemory from used_memory keep working. The
// overhead is the startup memory, the buffers, the caches and each
// database's index; the dataset is the keyspace without its index:
// overhead plus dataset is used memory, as in Redis. The allocator_*
// fields come from the Go runtime (runtime/metrics): allocated is the
// heap's objects, active adds the free space of in-use spans, resident is
// what the runtime has mapped and not returned to the OS. Replication
// fields keep the zeros of a server that has none.

// MeasureStartupMemory records used_memory_startup: used_memory once the
// composition root has built the server and before it loads any data, as
// Redis measures its own at the same point.
func (f *Frontend) MeasureStartupMemory() {
	f.startupMem.Store(f.eng.UsedMemoryExact() + f.buffers().Total)
}

// SampleMemoryEvery records used_memory in used_memory_peak every d until
// ctx is done, as Redis's serverCron does at each tick, so the peak is the
// real one and not only what INFO happened to see.
func (f *Frontend) SampleMemoryEvery(ctx context.Context, d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// The quick sums (this runs ten times a second): the
			// scripts' caches are left to INFO's own look.
			f.notePeak(f.eng.UsedMemory() + f.buffers().Total)
		}
	}
}

// usedMemory returns used_memory (the engine's accounting and what is not
// counted for eviction, the connections' buffers) and updates the peak.
func (f *Frontend) usedMemory(notCounted int64) (used, peak int64) {
	used = f.eng.UsedMemoryExact() + notCounted
	return used, f.notePeak(used)
}

// notePeak raises the memory peak to used and returns the peak.
func (f *Frontend) notePeak(used int64) int64 {
	for {
		p := f.memPeak.Load()
		if used <= p {
			return p
		}
		if f.memPeak.CompareAndSwap(p, used) {
			return used
		}
	}
}

// buffers returns the server's client buffer figures (zeros without a
// server, as in tests of the front-end alone).
func (f *Frontend) buffers() server.ClientBuffers {
	if f.clientBuffers == nil {
		return server.ClientBuffers{}
	}
	return f.clientBuffers()
}

// percent formats part/whole as Redis's "%.2f%%"; 0 when whole is 0.
func percent(part, whole int64) string {
	v := 0.0
	if whole > 0 {
		v = float64(part) * 100 / float64(whole)
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "%"
}

// ratio is a/b, 0 when b is 0 (Redis prints these with "%.2f").
func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (f *Frontend) infoMemory(b *infoBuilder) {
	mh := f.memoryOverhead() // the figures MEMORY STATS reports (cmd_memory.go)
	used, peak := mh.total, mh.peak
	al, rss := mh.al, mh.rss
	sysMem := systemMemory()
	maxMem := f.cfg.MaxMemory()
	zero := func(names ...string) {
		for _, n := range names {
			b.field(n, "0")
		}
	}
	b.int("used_memory", used)
	b.field("used_memory_human", conf.HumanBytes(used))
	b.int("used_memory_rss", rss)
	b.field("used_memory_rss_human", conf.HumanBytes(rss))
	b.int("used_memory_peak", peak)
	b.field("used_memory_peak_human", conf.HumanBytes(peak))
	b.field("used_memory_peak_perc", percent(used, peak))
	// Overhead and dataset split used memory as MEMORY STATS does.
	b.int("used_memory_overhead", mh.overheadTotal)
	b.int("used_memory_startup", mh.startup)
	b.int("used_memory_dataset", mh.dataset)
	b.field("used_memory_dataset_perc", strconv.FormatFloat(float64(mh.datasetPerc), 'f', 2, 64)+"%")
	b.int("allocator_allocated", al.allocated)
	b.int("allocator_active", al.active)
	b.int("allocator_resident", al.resident)
	b.int("total_system_memory", sysMem)
	b.field("total_system_memory_human", conf.HumanBytes(sysMem))
	// The EVAL state's memory: an idle state's estimate plus what the
	// running script has grown the heap by (scripting's memory watchdog).
	lua := f.scripts().LuaMemory()
	b.int("used_memory_lua", lua)
	b.int("used_memory_vm_eval", lua)
	b.field("used_memory_lua_human", conf.HumanBytes(lua))
	// Scripts and functions (cmd_scripting.go); the Lua states' own
	// memory is not measured.
	evalMem, cached, funcs, libs, funcMem := f.scriptingInfo()
	b.int("used_memory_scripts_eval", evalMem)
	b.int("number_of_cached_scripts", int64(cached))
	b.int("number_of_functions", int64(funcs))
	b.int("number_of_libraries", int64(libs))
	zero("used_memory_vm_functions", "used_memory_vm_total")
	b.field("used_memory_vm_total_human", "0B")
	b.int("used_memory_functions", funcMem)
	b.int("used_memory_scripts", evalMem+funcMem)
	b.field("used_memory_scripts_human", conf.HumanBytes(evalMem+funcMem))
	b.int("maxmemory", maxMem)
	b.field("maxmemory_human", conf.HumanBytes(maxMem))
	b.field("maxmemory_policy", f.cfg.MaxMemoryPolicy().String())
	b.float("allocator_frag_ratio", ratio(al.active, al.allocated))
	b.int("allocator_frag_bytes", al.active-al.allocated)
	b.float("allocator_rss_ratio", ratio(al.resident, al.active))
	b.int("allocator_rss_bytes", al.resident-al.active)
	b.float("rss_overhead_ratio", ratio(rss, al.resident))
	b.int("rss_overhead_bytes", rss-al.resident)
	b.float("mem_fragmentation_ratio", ratio(rss, used))
	b.int("mem_fragmentation_bytes", rss-used)
	b.int("mem_not_counted_for_evict", mh.notCounted)
	// Redis 7.0's replicas share the backlog's blocks; Tandem's backlog
	// is a ring of its own and each replica's pending stream sits on its
	// connection, so the total is the sum of the two.
	repl := f.svc.Replication.Primary.Info()
	b.int("mem_replication_backlog", repl.BacklogMemory)
	b.int("mem_total_replication_buffers", repl.BacklogMemory+repl.ReplicaOutput)
	b.int("mem_clients_slaves", repl.ReplicaOutput)
	// The server layer's count of what the connections' buffers hold, for
	// both protocols: query buffers, reply buffers, and output queued for
	// the sockets (server.ClientBuffers).
	b.int("mem_clients_normal", mh.clients)
	zero("mem_cluster_links", "mem_aof_buffer")
	b.field("mem_allocator", runtime.Version())
	zero("active_defrag_running", "lazyfree_pending_objects", "lazyfreed_objects")
}

// allocator is the Go runtime's view of its memory.
type allocator struct {
	allocated, active, resident int64
}

var allocatorMetrics = []string{
	"/memory/classes/heap/objects:bytes",  // live and not yet swept objects
	"/memory/classes/heap/unused:bytes",   // free space in in-use spans
	"/memory/classes/heap/released:bytes", // returned to the OS
	"/memory/classes/total:bytes",         // everything the runtime mapped
}

func readAllocator() allocator {
	s := make([]metrics.Sample, len(allocatorMetrics))
	for i, name := range allocatorMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := func(i int) int64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(s[i].Value.Uint64())
	}
	objects, unused, released, total := v(0), v(1), v(2), v(3)
	return allocator{allocated: objects, active: objects + unused, resident: total - released}
}

// processRSS is the resident set size from /proc/self/statm (0 where
// there is no /proc).
func processRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b))
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// systemMemory is MemTotal from /proc/meminfo (0 where there is no /proc).
func systemMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
