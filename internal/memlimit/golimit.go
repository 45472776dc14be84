package memlimit

import "math"

// Go runtime soft limit (GOMEMLIMIT) derived from maxmemory.
//
// used_memory counts the keyspace's live records, entries and index; the
// live heap holds more: dead records until their shard is compacted (up to
// maxmemory/16 before FreeMemory compacts them), the unfilled ends of arena
// chunks, and the allocator's rounding of the entry arrays — about 1.13 ×
// used_memory at the bound with small values. On top the Go runtime needs
// garbage between two collections (overwritten and evicted values),
// goroutine stacks, GC metadata, and the connections' buffers. GOMEMLIMIT covers all
// of the runtime's memory except the binary's own mapping, so RSS at the
// bound is about GoLimit plus the text and data of the binary (~10 MB).
const (
	// GoLimitFactor scales maxmemory. Measured (docs/benchmarks-history.md, "RSS
	// bound"): allkeys-lru, maxmemory 256mb, 150,000 writes of 20 KB. The
	// live heap at the bound is used_memory + ~25 MB; a limit of 285 MB
	// (1.0x + 29 MB) leaves the collector no room (server CPU 7.6-8.5 s,
	// and RSS overshoots to 327 MB), 300 MB (1.05x) costs 6.9 s, 1.10x +
	// 32 MB = 313.6 MB costs 3.9-4.2 s against 3.3-3.4 s with no limit,
	// and keeps peak RSS at ~310 MB, under the 1.15x + 64 MB = 358 MB
	// bound of the RSS test. Without a limit the peak was 445-549 MB.
	// That was before records moved into arenas (engine/arena.go): with
	// 100-byte values the live heap at the bound became ~289 MB, and 313.6
	// MB left the collector running back to back (3M writes, every one
	// evicting: 67.6k writes/s, server CPU 63 s, half of it in the GC).
	// 1.15x + 48 MB = 342.4 MB: 137k writes/s, 23 s, peak RSS 332 MB; with
	// 20 KB values peak RSS 322 MB; both under the 358 MB bound.
	GoLimitFactor = 1.15
	// GoLimitHeadroom is added whatever maxmemory is: runtime, buffers of
	// a few hundred clients, the event loops' read buffers.
	GoLimitHeadroom = 48 << 20
	// ProcessShare caps the Go limit to this share of what the process may
	// use, so that the collector works harder before the OOM killer or
	// swap would act (also when maxmemory is unlimited or set too high).
	ProcessShare = 0.90
)

// GoLimit returns the GOMEMLIMIT for a maxmemory bound (0: none) and the
// memory the process may use (0: unknown); math.MaxInt64 means no limit.
func GoLimit(maxMemory, process int64) int64 {
	n := int64(math.MaxInt64)
	if maxMemory > 0 {
		f := float64(maxMemory)*GoLimitFactor + GoLimitHeadroom
		if f < float64(math.MaxInt64) {
			n = int64(f)
		}
	}
	if process > 0 {
		n = min(n, int64(float64(process)*ProcessShare))
	}
	return n
}
