// Package engine is Tandem's protocol-neutral keyspace: both front-ends
// (resp for Redis, memproto for memcached) call it, and it never formats a
// reply of either protocol. It returns values and the typed errors in
// errors.go; each front-end maps them to its own wire text.
//
// # Layout
//
// The keyspace is databases × 2^k shards, one flat slice, so that locking
// shards in ascending slice order is one global order even for commands that
// touch two databases (COPY, MOVE, SWAPDB). A key's shard comes from a hash
// of its hash tag ("{user}" in "{user}:1"), ready for cluster mode.
//
// A shard is a mutex, a slice of fixed-size entries and an index
// map[uint64]uint32 from the key's 64-bit hash to an entry slot. Neither the
// index nor the entry metadata holds pointers: each entry has exactly one,
// to a single allocation holding the key followed by the value. The GC
// therefore scans one pointer per key. Slots of deleted keys are reused
// through a free list; a key keeps its slot for its whole life, which is
// what makes SCAN cursors (shard, slot) stable under concurrent writes.
//
// # Ownership
//
// Values are immutable once stored: a write replaces the allocation, never
// changes it. Item.Value therefore stays valid and unchanged after the
// shard lock is released, and callers must never modify it. Keys and values
// passed in are copied; callers may reuse their buffers when a call returns.
//
// # Compression
//
// String values may be stored compressed (s2 or zstd, compress.go); the
// entry's enc byte names the codec. Every read goes through one accessor
// that hands out plain bytes, so callers never see the stored form; a
// decompressed Item.Value is the Item's own, and Item.Release may give its
// buffer back to the engine's pool.
//
// # Time
//
// The engine reads time only through the Clock it is given, so tests move
// time instead of sleeping. Expiry is lazy (every access checks) plus an
// active sweep (ActiveExpireCycle) so expired keys do not pile up.
package engine
