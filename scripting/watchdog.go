package scripting

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// The memory watchdog. A script's allocations cannot all be intercepted:
// table growth and closures allocate inside gopher-lua's VM. So while
// a script runs, a goroutine samples the Go
// heap; once the heap has grown past the run's memory limit since the
// script started, it forces a collection, and if the live heap has grown
// past it since the last collection before the script, cancels the
// script's context: the script stops at its next
// instruction (builtins check the context as they loop) and the reply is
// Lua's out-of-memory error as Redis words it. Builtins that build
// strings check their result against the limit before allocating it
// (checkStringSize), so one builtin call cannot overshoot; nor can `..`,
// which is compiled into such a builtin (concat.go).

// DefaultMemoryLimit is how much a script may grow the heap when the run
// names no limit (maxmemory unset).
const DefaultMemoryLimit = 1 << 30

// watchInterval is the watchdog's sampling period.
const watchInterval = time.Millisecond

// rebaseTick is the sample at which a script still running gets its
// starting live heap measured by a collection (10 ms: most scripts are
// done before, and pay nothing).
const rebaseTick = 10

// errOutOfMemory is the reply of a script stopped by the watchdog, as
// Redis replies to a Lua LUA_ERRMEM (no error handler runs for it).
func errOutOfMemory(name string) string {
	return "ERR Error running script " + name + ", not enough memory"
}

var heapSamples = [2]string{"/memory/classes/heap/objects:bytes", "/gc/heap/live:bytes"}

// heapBytes reads the heap's objects (live and not yet swept) and the
// live heap as of the last collection.
func heapBytes() (objects, live int64) {
	s := []metrics.Sample{{Name: heapSamples[0]}, {Name: heapSamples[1]}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		objects = int64(s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		live = int64(s[1].Value.Uint64())
	}
	return objects, live
}

// memWatch watches one run.
type memWatch struct {
	start     int64 // heap objects when the script started
	startLive int64 // the live heap of the last collection before it
	limit     int64
	grown     atomic.Int64 // the growth last measured
	over      atomic.Bool  // the watchdog stopped the script
	stop      chan struct{}
}

// watchMemory starts the watchdog of a run; cancel stops the script.
func watchMemory(limit int64, cancel context.CancelFunc) *memWatch {
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	start, live := heapBytes()
	w := &memWatch{start: start, startLive: min(live, start), limit: limit, stop: make(chan struct{})}
	go w.loop(cancel)
	return w
}

func (w *memWatch) loop(cancel context.CancelFunc) {
	t := time.NewTimer(watchInterval)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		if tick == rebaseTick {
			// The last collection may predate garbage that was live
			// then (a previous script's): collect once, early, so the
			// script is measured against the heap it really started on.
			runtime.GC()
			_, live := heapBytes()
			w.startLive = min(w.startLive, live)
		}
		objects, _ := heapBytes()
		// A collection that sweeps garbage older than the script lowers
		// the floor: growth counts from the lowest heap seen.
		w.start = min(w.start, objects)
		grown := objects - w.start
		w.grown.Store(max(grown, 0))
		if grown > w.limit {
			// Garbage counts in objects until a collection sweeps it:
			// the live heap decides, measured against the live heap
			// before the script (objects at the start would count the
			// garbage of then as room for the script).
			runtime.GC()
			_, live := heapBytes()
			if live-w.startLive > w.limit {
				w.over.Store(true)
				cancel()
				return
			}
		}
		t.Reset(watchInterval)
	}
}

// remaining is how much more the script may allocate.
func (w *memWatch) remaining() int64 { return w.limit - w.grown.Load() }

func (w *memWatch) end() { close(w.stop) }

// luaStateBytes estimates an idle Lua state (Redis 7.0 reports 31744
// bytes of used_memory_lua for its own).
const luaStateBytes = 31744

// luaMemory is what collectgarbage("count") reports, in bytes: an idle
// state's estimate plus the heap growth of the running script.
func (vm *VM) luaMemory() int64 {
	n := int64(luaStateBytes)
	if r := vm.run; r != nil && r.watch != nil {
		n += r.watch.grown.Load()
	}
	return n
}

// LuaMemory is INFO's used_memory_lua: the EVAL state's estimate plus the
// heap growth of the script running now, if any.
func (e *Engine) LuaMemory() int64 {
	n := int64(luaStateBytes)
	if r := e.running.Load(); r != nil && r.Eval {
		if w := r.watch.Load(); w != nil {
			n += w.grown.Load()
		}
	}
	return n
}
