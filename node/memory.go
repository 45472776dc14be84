package node

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/internal/memlimit"
)

// memoryTuner chooses maxmemory when none is configured and keeps the Go
// runtime's soft memory limit (GOMEMLIMIT) in step with it.
type memoryTuner struct {
	log      *slog.Logger
	proc     memlimit.Limit // what the process may use; Bytes 0 if unknown
	userGoML bool           // GOMEMLIMIT came from the environment: leave it
	userGOGC bool           // so did GOGC
	// source says where maxmemory came from, for the start-up banner: a
	// directive's origin ("file", "flag"…), or the share of the memory
	// available it was derived from.
	source string
}

// gcPercent is Tandem's GOGC unless the environment sets one. With the
// default 100 the heap grows to twice the live data before a collection,
// and under the bound GOMEMLIMIT is what stops it; below the bound RSS
// follows used_memory the more closely the lower it is. The keyspace
// holds almost no pointers (records in arenas, entries without one), so a
// collection has little to mark and a low value costs little: 1M × 100 B
// loaded through RESP takes 156 RSS bytes a key with 10, 167 with 25, 179
// with 50, while SET and GET throughput (tandem-load, 20 connections,
// pipeline 16) stays within the run-to-run noise (docs/benchmarks-history.md,
// "Bytes per key").
const gcPercent = 10

// gcMinHeadroom is the least the heap grows past its live data between
// collections: followHeap raises GOGC above gcPercent while the live heap
// is under gcMinHeadroom*100/gcPercent (160 MB). A collection has a cost
// that the heap's size does not change (the engine's 16K shard structures,
// the roots): with GOGC 10 alone, SET on 100K keys (27 MB live) ran 25
// collections a second, 8–10 % of the server's time. A large heap is not
// affected, so RSS per key at 1M keys stays what gcPercent gives.
const gcMinHeadroom = 16 << 20

// heapFollowEvery is how often followHeap looks at the live heap.
const heapFollowEvery = 500 * time.Millisecond

// gcPercentFor is GOGC for a live heap of live bytes under a Go memory
// limit of limit bytes. The floor takes at most a quarter of the room the
// limit leaves: near the limit the runtime collects by itself, and a heap
// goal close to it makes the server's heap guard stop the event loops to
// collect (server/heapguard.go) — with maxmemory at a few MB the floor
// alone had cut a write-heavy load at the bound from 120k to 67k writes a
// second.
func gcPercentFor(live, limit uint64) int {
	if live == 0 {
		return gcPercent
	}
	headroom := uint64(gcMinHeadroom)
	if limit > live {
		headroom = min(headroom, (limit-live)/4)
	} else {
		headroom = 0
	}
	return max(gcPercent, int(min(headroom*100/live, 10_000)))
}

// followHeap keeps GOGC at gcPercentFor the live heap until ctx ends,
// unless the environment set GOGC.
func (t *memoryTuner) followHeap(ctx context.Context) {
	if t.userGOGC {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tick := time.NewTicker(heapFollowEvery)
	defer tick.Stop()
	current := gcPercent
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return // not this runtime's metric: keep gcPercent
		}
		// Within a tenth of the last setting is close enough.
		limit := uint64(max(debug.SetMemoryLimit(-1), 0)) // -1 reads it
		if p := gcPercentFor(sample[0].Value.Uint64(), limit); p*10 > current*11 || p*10 < current*9 {
			debug.SetGCPercent(p)
			current = p
		}
	}
}

// setupMemory runs once at start, before the engine is built: when
// maxmemory is not configured it sets it to memlimit.DefaultShare of what
// the process may use (an explicit "maxmemory 0" stays unlimited, as in
// Redis), then derives GOMEMLIMIT. root is "/" except in tests.
func setupMemory(cfg *conf.Config, log *slog.Logger, environ []string, root string) *memoryTuner {
	t := &memoryTuner{log: log}
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GOMEMLIMIT="); ok && v != "" {
			t.userGoML = true
		}
		if v, ok := strings.CutPrefix(kv, "GOGC="); ok && v != "" {
			t.userGOGC = true
		}
	}
	if t.userGOGC {
		log.Info("GOGC set in the environment: kept")
	} else {
		debug.SetGCPercent(gcPercent)
	}
	t.source = "default: unlimited" // until a case below says otherwise
	lim, err := memlimit.Detect(root)
	if err == nil {
		t.proc = lim
	}
	switch origin := cfg.Origin("maxmemory"); {
	case origin != conf.FromDefault:
		t.source = origin.String()
		log.Info("maxmemory", "bytes", cfg.MaxMemory(), "human", conf.HumanBytes(cfg.MaxMemory()),
			"source", origin.String(), "unlimited", cfg.MaxMemory() == 0,
			"process_limit", lim.Bytes, "process_limit_source", lim.Source)
	case err != nil:
		t.source = "default: memory available unknown, unlimited"
		log.Warn("maxmemory not configured and the memory available is unknown: no limit", "err", err)
	default:
		n := memlimit.DefaultMaxMemory(lim)
		if serr := cfg.Set([2]string{"maxmemory", strconv.FormatInt(n, 10)}); serr != nil {
			log.Warn("cannot set the default maxmemory", "err", serr)
			break
		}
		t.source = fmt.Sprintf("default: %g of %s", memlimit.DefaultShare, lim.Source)
		log.Info("maxmemory not configured: using a safe share of the memory available",
			"bytes", n, "human", conf.HumanBytes(n), "share", memlimit.DefaultShare,
			"of", lim.Bytes, "source", lim.Source)
	}
	t.apply(cfg.MaxMemory())
	return t
}

// apply sets GOMEMLIMIT for maxmemory (called again on CONFIG SET
// maxmemory), unless the user set GOMEMLIMIT. The limit is soft: a
// collection that runs late lets the heap past it, so the server holds its
// event loops back then (server/heapguard.go), whichever set the limit.
func (t *memoryTuner) apply(maxMemory int64) {
	if t.userGoML {
		t.log.Info("GOMEMLIMIT set in the environment: kept", "bytes", debug.SetMemoryLimit(-1))
		return
	}
	n := memlimit.GoLimit(maxMemory, t.proc.Bytes)
	debug.SetMemoryLimit(n)
	if n == math.MaxInt64 {
		t.log.Info("Go memory limit: none (maxmemory unlimited, memory available unknown)")
		return
	}
	if maxMemory == 0 {
		t.log.Info("Go memory limit (GOMEMLIMIT): a share of the memory available, maxmemory being unlimited",
			"bytes", n, "human", conf.HumanBytes(n), "share", memlimit.ProcessShare, "of", t.proc.Bytes)
		return
	}
	t.log.Info("Go memory limit (GOMEMLIMIT) derived from maxmemory", "bytes", n, "human", conf.HumanBytes(n), "maxmemory", maxMemory)
}
