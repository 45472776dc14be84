package hitratio

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
	"github.com/tandemkv/tandem/internal/realserver"
)

// fakeServer is a small in-test RESP server over key ids, with the cache
// behaviours replay must measure: an exact LRU of a capacity in keys, or a
// store that refuses new keys with -OOM when full, TTLs (PX), and a
// maxmemory that sets the capacity as (maxmemory - overhead) / perKey.
type fakeServer struct {
	t  *testing.T
	ln net.Listener

	mu        sync.Mutex
	keys      int
	lru       *lruSim // nil: unbounded or OOM store
	oomCap    int     // > 0: refuse new keys beyond this many with -OOM
	store     map[uint32]bool
	expireAt  map[uint32]time.Time
	corrupt   bool // answer hits with a wrong value
	valueSize int
	perKey    int64 // maxmemory model: capacity = (maxmemory - overhead) / perKey
	overhead  int64
	evicted   int64
	gets      int64
	wg        sync.WaitGroup
}

func startFakeServer(t *testing.T, keys int, configure func(*fakeServer)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{t: t, ln: ln, keys: keys, store: map[uint32]bool{}, expireAt: map[uint32]time.Time{}, valueSize: 100}
	if configure != nil {
		configure(f)
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer c.Close()
				f.serve(c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); f.wg.Wait() })
	return f
}

func (f *fakeServer) addr() string { return f.ln.Addr().String() }

func (f *fakeServer) serve(c net.Conn) {
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	for {
		args, err := readArgs(r)
		if err != nil {
			return
		}
		f.mu.Lock()
		reply := f.exec(args)
		f.mu.Unlock()
		w.WriteString(reply)
		if r.Buffered() == 0 && w.Flush() != nil {
			return
		}
	}
}

func readArgs(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	args := make([]string, n)
	for i := range args {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, _ := strconv.Atoi(strings.TrimSpace(hdr[1:]))
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}

func keyID(key string) uint32 {
	n, _ := strconv.Atoi(strings.TrimPrefix(key, "key:"))
	return uint32(n)
}

// live reports whether k is stored and not expired, dropping it if expired.
func (f *fakeServer) live(k uint32) bool {
	if at, ok := f.expireAt[k]; ok && !time.Now().Before(at) {
		delete(f.expireAt, k)
		delete(f.store, k)
		if f.lru != nil && f.lru.in[k] {
			f.lru.unlink(int32(k))
			f.lru.in[k] = false
			f.lru.size--
		}
		return false
	}
	if f.lru != nil {
		return f.lru.in[k]
	}
	return f.store[k]
}

func (f *fakeServer) size() int {
	if f.lru != nil {
		return f.lru.size
	}
	return len(f.store)
}

func (f *fakeServer) exec(args []string) string {
	switch strings.ToUpper(args[0]) {
	case "PING":
		return "+PONG\r\n"
	case "GET":
		f.gets++
		k := keyID(args[1])
		if !f.live(k) {
			return "$-1\r\n"
		}
		if f.lru != nil {
			f.lru.touch(k)
		}
		v := string(appendValue(nil, k, f.valueSize))
		if f.corrupt {
			v = strings.Replace(v, "key", "kez", 1)
		}
		return "$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n"
	case "SET":
		k := keyID(args[1])
		if !f.live(k) && f.oomCap > 0 && len(f.store) >= f.oomCap {
			return "-OOM command not allowed when used memory > 'maxmemory'.\r\n"
		}
		if f.lru != nil {
			if !f.lru.in[k] && f.lru.size == f.lru.capacity {
				f.evicted++
				s := int32(len(f.lru.in))
				delete(f.expireAt, uint32(f.lru.prev[s]))
			}
			f.lru.insert(k)
		} else {
			f.store[k] = true
		}
		delete(f.expireAt, k)
		if len(args) == 5 && strings.EqualFold(args[3], "PX") {
			ms, _ := strconv.Atoi(args[4])
			f.expireAt[k] = time.Now().Add(time.Duration(ms) * time.Millisecond)
		}
		return "+OK\r\n"
	case "FLUSHALL":
		f.store = map[uint32]bool{}
		f.expireAt = map[uint32]time.Time{}
		if f.lru != nil {
			f.lru = newLRUSim(f.keys, f.lru.capacity)
		}
		return "+OK\r\n"
	case "DBSIZE":
		return ":" + strconv.Itoa(f.size()) + "\r\n"
	case "INFO":
		s := "# Stats\r\nevicted_keys:" + strconv.FormatInt(f.evicted, 10) + "\r\nexpired_keys:0\r\n# Memory\r\nused_memory:" +
			strconv.FormatInt(f.overhead+int64(f.size())*f.perKey, 10) + "\r\n"
		return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n"
	case "CONFIG":
		if len(args) == 4 && strings.EqualFold(args[1], "SET") && args[2] == "maxmemory" && f.lru != nil && f.perKey > 0 {
			n, _ := strconv.ParseInt(args[3], 10, 64)
			capacity := int((n - f.overhead) / f.perKey)
			for f.lru.size > capacity {
				f.lru.evict()
				f.evicted++
			}
			f.lru.capacity = capacity
		}
		return "+OK\r\n"
	}
	return "-ERR unknown command '" + args[0] + "'\r\n"
}

func replayAgainst(t *testing.T, f *fakeServer, s *stream, cfg replayConfig) replayResult {
	t.Helper()
	c, err := benchkit.Dial(f.addr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := replay(c, s, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// With an unbounded cache every key misses once, on its first request: a
// hot key asked several times in one pipelined batch does not miss again
// while its fill is in flight (per-key order is sequential).
func TestReplayPerKeyOrder(t *testing.T) {
	const keys = 20_000
	o := testOptions()
	for _, depth := range []int{1, 7, 128, 256} {
		f := startFakeServer(t, keys, nil)
		s := newTestStream(t, "zipf-1.2", keys, 1, o)
		res := replayAgainst(t, f, s, replayConfig{warmup: 1000, measure: 30_000, depth: depth, valueSize: 100})
		if res.Requests != 30_000 {
			t.Errorf("depth %d: %d requests counted, want 30000", depth, res.Requests)
		}
		if res.Misses != res.ColdMisses || res.Misses == 0 {
			t.Errorf("depth %d: %d misses, %d of them first requests: an unbounded cache misses only those", depth, res.Misses, res.ColdMisses)
		}
		if depth >= 128 && res.Resent == 0 {
			t.Errorf("depth %d: no repeated key in a batch missed first; the test does not exercise the resend", depth)
		}
		if res.BadValues+res.GetErrors+res.SetErrors+res.OOM != 0 {
			t.Errorf("depth %d: errors %+v", depth, res.counts)
		}
	}
}

// Against an exact LRU, depth 1 is exactly the sequential simulation, and
// pipelining changes the miss ratio only by the fills it delays.
func TestReplayMatchesLRUSimulation(t *testing.T) {
	const keys, capacity = 20_000, 500
	o := testOptions()
	cfg := replayConfig{warmup: 3_000, measure: 15_000, valueSize: 100}
	for _, name := range []string{"zipf-0.99", "scan"} {
		o.scanEvery, o.scanLen = 3_000, 1_500
		want := simulateLRU(newTestStream(t, name, keys, 1, o), capacity, cfg)
		for _, depth := range []int{1, 128} {
			f := startFakeServer(t, keys, func(f *fakeServer) { f.lru = newLRUSim(keys, capacity) })
			cfg.depth = depth
			got := replayAgainst(t, f, newTestStream(t, name, keys, 1, o), cfg)
			if depth == 1 && got.counts != want {
				t.Errorf("%s depth 1: %+v, simulation %+v", name, got.counts, want)
			}
			if d := got.missRatio() - want.missRatio(); d > 0.01 || d < -0.01 {
				t.Errorf("%s depth %d: miss ratio %.4f, simulation %.4f", name, depth, got.missRatio(), want.missRatio())
			}
			if name == "scan" && got.ScanRequests != want.ScanRequests {
				t.Errorf("%s depth %d: %d scan requests, simulation %d", name, depth, got.ScanRequests, want.ScanRequests)
			}
		}
	}
}

// A fill refused with -OOM is not stored and is counted.
func TestReplayCountsOOM(t *testing.T) {
	const keys = 10_000
	f := startFakeServer(t, keys, func(f *fakeServer) { f.oomCap = 300 })
	res := replayAgainst(t, f, newTestStream(t, "zipf-0.8", keys, 1, testOptions()), replayConfig{warmup: 2_000, measure: 20_000, depth: 64, valueSize: 100})
	if res.OOM == 0 || res.OOM != res.Misses {
		t.Errorf("store full before the count: %d misses, %d OOM replies; want every fill refused", res.Misses, res.OOM)
	}
	if res.SetErrors != 0 {
		t.Errorf("%d OOM replies counted as other errors", res.SetErrors)
	}
}

func TestReplayChecksValues(t *testing.T) {
	f := startFakeServer(t, 1000, func(f *fakeServer) { f.corrupt = true })
	res := replayAgainst(t, f, newTestStream(t, "zipf-0.99", 1000, 1, testOptions()), replayConfig{measure: 5_000, depth: 16, valueSize: 100})
	if res.BadValues == 0 || res.BadValues != res.Requests-res.Misses {
		t.Errorf("%d hits, %d bad values: every hit is wrong", res.Requests-res.Misses, res.BadValues)
	}
}

// Misses on keys whose TTL passed are told apart; in an unbounded cache
// nearly every miss is a first request or an expired key. The pace holds.
func TestReplayTTL(t *testing.T) {
	const keys = 500
	o := testOptions()
	o.ttl, o.ttlShare, o.rate = 30*time.Millisecond, 0.5, 20_000
	f := startFakeServer(t, keys, nil)
	start := time.Now()
	res := replayAgainst(t, f, newTestStream(t, "ttl", keys, 1, o), replayConfig{warmup: 1_000, measure: 9_000, depth: 32, valueSize: 100})
	if el := time.Since(start); el < 450*time.Millisecond {
		t.Errorf("10000 requests at 20000/s took %s", el)
	}
	if res.ExpiredMisses == 0 {
		t.Fatalf("no expired-key miss: %+v", res.counts)
	}
	if live := res.Misses - res.ColdMisses - res.ExpiredMisses; live*20 > res.Misses {
		t.Errorf("%d of %d misses neither cold nor expired, in an unbounded cache", live, res.Misses)
	}
}

// The monitor steers maxmemory until the server holds the cache's keys,
// although part of the bound goes to something else than keys.
func TestMonitorSteersKeysHeld(t *testing.T) {
	const keys, target = 20_000, 1_000
	const perKey, overhead, hidden = 200, 100_000, 60 * 200 // 60 keys' worth the calibration cannot see
	f := startFakeServer(t, keys, func(f *fakeServer) {
		f.perKey, f.overhead = perKey, overhead+hidden
		f.lru = newLRUSim(keys, target-60)
	})
	cal := calibration{Keys: target, Baseline: overhead, Used: overhead + target*perKey, BytesPer: perKey, MaxMemory: overhead + target*perKey}
	mon, err := startMonitor(f.addr(), 10*time.Second, target, cal, cal.MaxMemory, true)
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.rate = 10_000
	c, err := benchkit.Dial(f.addr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = replay(c, newTestStream(t, "zipf-0.8", keys, 1, o), replayConfig{warmup: 10_000, measure: 10_000, depth: 32, valueSize: 100},
		func() error { mon.counting.Store(true); return nil })
	if err != nil {
		t.Fatal(err)
	}
	held, maxmemory, err := mon.finish()
	if err != nil {
		t.Fatal(err)
	}
	if held.Samples == 0 || held.Mean < target*0.99 || held.Mean > target*1.01 {
		t.Errorf("keys held %+v, want about %d", held, target)
	}
	if want := cal.MaxMemory + hidden; maxmemory < want-perKey*10 || maxmemory > want+perKey*10 {
		t.Errorf("maxmemory steered to %d, want about %d", maxmemory, want)
	}
}

// End to end against a real redis-server: small, unpaced.
func TestRunAgainstRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server and replays 80000 requests")
	}
	bin := realserver.Path(t, realserver.Redis)
	o, err := parseFlags([]string{"-tandem", "none", "-redis-server", bin, "-r", "50000", "-sizes", "0.02",
		"-workloads", "zipf-0.99,ttl", "-warmup", "20000", "-n", "60000", "-rate", "0", "-ttl", "200ms"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out, log strings.Builder
	if err := run(context.Background(), o, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, want := range []string{"| zipf-0.99 | 2% | all requests |", "| ttl | 2% | misses on expired keys left out |", "redis allkeys-lfu", "exact LRU (sim)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "n/a") || strings.Contains(out.String(), "failed") {
		t.Errorf("a cell failed:\n%s\n%s", out.String(), log.String())
	}
}
