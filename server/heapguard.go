package server

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// heapGuard is back-pressure for the Go runtime's soft memory limit
// (GOMEMLIMIT, which cmd/tandem derives from maxmemory).
//
// The limit is soft: when a collection runs late, the heap grows past it
// for as long as the cycle lasts. With Tandem's heap that happens under
// CPU contention: the values are pointer-free, so the pacer expects little
// mark work and asks allocating goroutines for almost no assist, and with
// GOMAXPROCS 2 the background mark worker is a fractional one, which the
// OS may leave off-CPU for 100 ms while the event loops keep storing
// values at 200-400 MB/s. Measured (docs/benchmarks-history.md, "RSS bound"): one
// cycle took 106 ms of wall clock for 8 ms of CPU and the heap grew 49 MB
// past its goal; RSS went 30-60 MB over its steady level.
//
// So the event loops look at the heap every heapCheckEvery bytes read
// (one atomic add per read in between). When the memory the runtime has
// in use, free pages aside, passes the limit by 1/64 of it, the loop
// that sees it runs a collection itself (runtime.GC, which also waits
// for one in progress) before serving its bytes: its connections wait and
// the collector gets the CPU they would have used. If the heap is still
// over the limit after that, the live data itself is (a limit set below
// what the data needs) and collecting again would not help: the guard
// stays off until the heap is back under the limit.
type heapGuard struct {
	read    atomic.Int64 // bytes read since the last check
	mu      sync.Mutex   // one check at a time; held while collecting
	samples []metrics.Sample
	off     atomic.Bool // the live heap is over the limit: collecting does not help
	forced  atomic.Int64
}

const (
	heapCheckEvery = 1 << 20
	// heapGuardSlackShift: the heap may run 1/64 of the limit past it
	// (4.9 MB at maxmemory 256mb) before a loop collects. The runtime keeps
	// it under the limit by itself except when a cycle runs late.
	heapGuardSlackShift = 6
)

var heapGuardMetrics = []string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/free:bytes",
}

// note counts n bytes read and, every heapCheckEvery bytes, checks the
// heap. On an event loop.
func (g *heapGuard) note(n int) {
	if g.read.Add(int64(n)) < heapCheckEvery {
		return
	}
	g.read.Store(0)
	g.check()
}

// inUse returns the bytes the runtime has mapped, minus what it returned
// to the OS and its free pages: what the limit must hold.
func (g *heapGuard) inUse() int64 {
	if g.samples == nil {
		g.samples = make([]metrics.Sample, len(heapGuardMetrics))
		for i, name := range heapGuardMetrics {
			g.samples[i].Name = name
		}
	}
	metrics.Read(g.samples)
	v := func(i int) int64 {
		if g.samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(g.samples[i].Value.Uint64())
	}
	return v(0) - v(1) - v(2)
}

func (g *heapGuard) check() {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return
	}
	g.mu.Lock() // a loop that comes while another collects waits for it
	defer g.mu.Unlock()
	used := g.inUse()
	if g.off.Load() {
		if used <= limit {
			g.off.Store(false)
		}
		return
	}
	if used <= limit+limit>>heapGuardSlackShift {
		return
	}
	runtime.GC()
	g.forced.Add(1)
	if g.inUse() > limit {
		g.off.Store(true)
	}
}
