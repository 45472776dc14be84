package resp

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/server"
)

// redis70MemoryFields are INFO memory's fields as redis-server 7.0.15
// prints them, in its order.
var redis70MemoryFields = strings.Fields(`used_memory used_memory_human used_memory_rss
used_memory_rss_human used_memory_peak used_memory_peak_human used_memory_peak_perc
used_memory_overhead used_memory_startup used_memory_dataset used_memory_dataset_perc
allocator_allocated allocator_active allocator_resident total_system_memory
total_system_memory_human used_memory_lua used_memory_vm_eval used_memory_lua_human
used_memory_scripts_eval number_of_cached_scripts number_of_functions number_of_libraries
used_memory_vm_functions used_memory_vm_total used_memory_vm_total_human used_memory_functions
used_memory_scripts used_memory_scripts_human maxmemory maxmemory_human maxmemory_policy
allocator_frag_ratio allocator_frag_bytes allocator_rss_ratio allocator_rss_bytes
rss_overhead_ratio rss_overhead_bytes mem_fragmentation_ratio mem_fragmentation_bytes
mem_not_counted_for_evict mem_replication_backlog mem_total_replication_buffers
mem_clients_slaves mem_clients_normal mem_cluster_links mem_aof_buffer mem_allocator
active_defrag_running lazyfree_pending_objects lazyfreed_objects`)

func memoryInfo(t *testing.T, env *testEnv) (names []string, fields map[string]string) {
	t.Helper()
	text := env.fe.infoText([][]byte{[]byte("memory")}, time.Now())
	fields = map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			names = append(names, k)
			fields[k] = v
		}
	}
	return names, fields
}

func TestInfoMemoryFields(t *testing.T) {
	env := newTestEnv(t)
	env.cfg.Set([2]string{"maxmemory", "64mb"})
	c := env.client()
	c.do("SET", "k", strings.Repeat("v", 1000))
	names, f := memoryInfo(t, env)
	if got, want := strings.Join(names, " "), strings.Join(redis70MemoryFields, " "); got != want {
		t.Errorf("INFO memory fields:\n got %s\nwant %s", got, want)
	}
	num := func(k string) int64 {
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			t.Errorf("%s = %q", k, f[k])
		}
		return n
	}
	if num("used_memory") < 1000 || num("used_memory_rss") <= 0 || num("allocator_allocated") <= 0 ||
		num("allocator_active") < num("allocator_allocated") || num("allocator_resident") <= 0 {
		t.Errorf("implausible memory figures: %v", f)
	}
	if f["maxmemory"] != strconv.Itoa(64<<20) || f["maxmemory_human"] != "64.00M" {
		t.Errorf("maxmemory %q %q", f["maxmemory"], f["maxmemory_human"])
	}
	rss, used := float64(num("used_memory_rss")), float64(num("used_memory"))
	if r, _ := strconv.ParseFloat(f["mem_fragmentation_ratio"], 64); r < rss/used*0.9 || r > rss/used*1.1 {
		t.Errorf("mem_fragmentation_ratio %s, rss/used %.2f", f["mem_fragmentation_ratio"], rss/used)
	}
}

// TestMemoryPeakSampled: the peak is sampled without INFO running, so a
// value written and deleted between two INFOs still shows.
func TestMemoryPeakSampled(t *testing.T) {
	env := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { env.fe.SampleMemoryEvery(ctx, time.Millisecond); close(done) }()
	c := env.client()
	c.do("SET", "big", strings.Repeat("x", 1<<20))
	high := env.eng.UsedMemory()
	deadline := time.Now().Add(5 * time.Second)
	for env.fe.memPeak.Load() < high && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	c.do("DEL", "big")
	cancel()
	<-done
	_, f := memoryInfo(t, env)
	if peak, _ := strconv.ParseInt(f["used_memory_peak"], 10, 64); peak < high {
		t.Errorf("used_memory_peak %d, want >= %d (used_memory now %s)", peak, high, f["used_memory"])
	}
}

// used_memory holds the engine's accounting (keys and scripts' caches)
// and the connections' buffers; the overhead all but the keys' data;
// mem_not_counted_for_evict the buffers. Each moves with what it holds.
func TestInfoMemorySplit(t *testing.T) {
	env := newTestEnv(t)
	var clients int64
	clients = 700 // the startup memory: buffers of a connection before any data
	env.fe.clientBuffers = func() server.ClientBuffers { return server.ClientBuffers{Total: clients} }
	env.fe.MeasureStartupMemory()
	clients = 0
	c := env.client()
	num := func(f map[string]string, k string) int64 {
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			t.Fatalf("%s = %q", k, f[k])
		}
		return n
	}
	check := func(what string) map[string]string {
		t.Helper()
		_, f := memoryInfo(t, env)
		used, startup, overhead, dataset := num(f, "used_memory"), num(f, "used_memory_startup"), num(f, "used_memory_overhead"), num(f, "used_memory_dataset")
		notCounted, cl := num(f, "mem_not_counted_for_evict"), num(f, "mem_clients_normal")
		keyspace := env.eng.UsedMemoryExact()
		if startup != 700 {
			t.Errorf("%s: used_memory_startup %d, measured at start %d", what, startup, env.fe.startupMem.Load())
		}
		if cl != clients || notCounted != cl || used != keyspace+notCounted {
			t.Errorf("%s: used %d, engine %d, not counted %d (clients %d)", what, used, keyspace, notCounted, cl)
		}
		if overhead+dataset != used || overhead < notCounted || overhead > used || dataset < 0 {
			t.Errorf("%s: overhead %d + dataset %d != used %d (not counted %d)", what, overhead, dataset, used, notCounted)
		}
		return f
	}
	empty := check("empty")
	for i := 0; i < 200; i++ {
		c.do("SET", "key"+strconv.Itoa(i), strings.Repeat("v", 100))
	}
	full := check("200 keys")
	if num(full, "used_memory_dataset") < num(empty, "used_memory_dataset")+200*100 {
		t.Errorf("dataset %s after 200 values of 100 bytes, %s empty", full["used_memory_dataset"], empty["used_memory_dataset"])
	}
	clients = 50000
	buffered := check("50000 bytes of client buffers")
	if d := num(buffered, "used_memory_overhead") - num(full, "used_memory_overhead"); d != 50000 {
		t.Errorf("overhead moved by %d with 50000 bytes of client buffers", d)
	}
	c.do("SCRIPT", "LOAD", "return 1")
	check("a cached script")
}
