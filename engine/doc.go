// Package engine is Tandem's protocol-neutral keyspace: both front-ends
// (resp for Redis, memproto for memcached) call it, and it never formats a
// reply of either protocol. It returns values and the typed errors in
// errors.go; each front-end maps them to its own wire text.
//
// # Layout
//
// The keyspace is databases × 2^ShardBits shards (16 × 1024 by default),
// one flat slice, database-major (Engine.shards), so that locking shards in
// ascending slice order is one global order even for commands that touch
// two databases (COPY, MOVE, SWAPDB). A key's shard comes from the top bits
// of a maphash of its hash tag ("user" in "{user}:1"; engine.go's locate),
// ready for cluster mode. A DB is a small handle (database number and
// options) on that slice.
//
// A shard (shard.go) is a mutex and a shardData: the entries, the bucket
// index, the arena holding the records, the aggregates, and the shard's
// counters (keys, keys with an expiry, accounted bytes, dead bytes).
//
// Records and arenas (arena.go). Each key has one record: its key bytes,
// its string value (nothing for an aggregate), and only the optional
// metadata it has (CAS unique, expiry, memcached flags), after two
// uvarint lengths. Records are appended to the shard's arena, chunks of
// 256 B to 4 KB that no record ever moves within; a record of 1 KB or more
// has an allocation of its own (bigs). Key bytes never change once
// written. A new value is a new record, and the old one becomes dead
// space, except when nobody can hold the old bytes: a value of the same
// size is written over the old one when no read has handed out a slice of
// it since it was written (entryShared) and no snapshot still reads the
// shard (frozen). The CAS and expiry fields are changed in place under
// the same frozen rule.
//
// Entries (entry.go). An entry is a key's fixed 20-byte part in the
// shard's entries slice, indexed by slot: where its record is (ref), the
// next entry of its index bucket, the LRU clock, the eviction word, and
// type, encoding, flag bits and 8 bits of the key's hash (tag). Entries
// hold no pointer, nor does the index, so the GC's work does not grow with
// the number of string keys: it traces one pointer per 4 KB chunk and per
// big record. A list, hash, set or sorted set lives in the shard's aggs
// map (slot → aggregate, aggregate.go), which does hold pointers. Freed
// slots are reused through a free list.
//
// The bucket index (shard.go). buckets is a []uint32 whose element is
// slot+1 of the first entry of the bucket (0 = empty); the bucket's other
// entries are chained through entry.next. A lookup hashes the key, walks
// its bucket and compares the tag before it reads a record. The table
// doubles when it holds two keys a bucket (rebuildIndex rehashes every
// key, since entries keep only the tag): about 2.7 bytes a key.
//
// Compaction and slot packing. Dead records are reclaimed by compacting
// the arena (arena.go's compact): live records are copied, in slot order,
// into fresh chunks and the old chunks are left to the GC, along with any
// slices readers still hold of them. It runs when a shard's dead bytes
// reach half its arena, an eighth after an eviction, and a sixteenth in
// FreeMemory's pass over the shards when dead bytes exceed their allowance
// (evict.go). Compaction moves records, never slots. Slots move in one
// place only: shard.unlock, when a shard's live keys fall under half its
// slots, packs them into the lowest slots in their order (packSlots) and
// shrinks the entries and the index; an emptied shard is reset. Keys only
// ever move down, and that is why SCAN walks a shard's slots downwards
// (keys.go's Scan; cursor = shard<<32 | position): a key present for the
// whole scan may move from a slot not yet visited to another one not yet
// visited, never into the part already walked, so it is always returned
// (perhaps twice). A slot number or *entry is therefore only good while the
// shard stays locked, and an *entry only until the next insert into the
// shard (which may grow the entries).
//
// Memory accounting. Every shard counts what it holds (records, entries,
// buckets, aggregates' elements) in mem and in the engine's used counter,
// which is used_memory and what maxmemory is checked against. The shard
// adds to its own part first and moves it into the engine's counter once
// it passes a step (at most maxmemory/64 over all shards), so that event
// loops do not take turns at one cache line; hits, misses and the change
// count are the shards' alone, summed when read (tally.go).
//
// # Ownership of returned bytes
//
//   - Arguments (keys, values, members, fields) are copied into the
//     engine's own memory before a call returns; callers may reuse their
//     buffers (the front-ends' arguments point into the read buffer).
//   - Item.Value of an uncompressed string and KeyInfo.Value are slices of
//     the key's record. They stay valid and unchanged after the call
//     returns and the shard is unlocked, even through a later write,
//     delete or compaction (handing one out marks the entry entryShared,
//     so its value is never overwritten in place; old chunks are never
//     written to), and they are shared: callers must never modify them
//     (their capacity is cut, so an append copies). A new read API that
//     hands out record bytes must mark the entry the same way
//     (TestHandedOutValuesOutliveOverwrites).
//   - Item.Value of a compressed string is decompressed into a buffer of
//     the Item's own, from a pool. The caller may keep it, or hand it back
//     with Item.Release once it has written the value out; after Release
//     Value must not be read. Release is a no-op for an uncompressed value,
//     so callers may call it always. SetResult.Old is such an Item too.
//   - The elements of an aggregate (lists, hashes, sets, sorted sets) are
//     changed in place, so what reaches a callback (ListVisit, MemberSink,
//     HashView, ZRANGE's visitors) aliases the aggregate and is valid only
//     during the call, under the shard lock: copy it or write it out
//     before returning. Results meant to outlive the lock are copies
//     (ListPopResult, ZPopResult, RandomKey's key). A SnapItem's slices
//     are valid during the visit only.
//   - The key a Keys or Scan callback gets is the record's bytes; the
//     callback runs under the shard lock, must not call into the engine,
//     and copies the key if it keeps it. Event.Key (notify.go) is valid
//     during the Sink call only.
//
// # Compression
//
// String values may be stored compressed (s2 or zstd, compress.go) when a
// SET-like write stores one of at least Compression.MinSize bytes and the
// saving is worth it; the commands that rewrite a value bit by bit store
// plain bytes (storePlain). The top bits of the entry's enc byte name the
// codec, so OBJECT ENCODING and the memcached flags do not see it, and the
// stored form begins with the plain length, so STRLEN need not decompress.
// Every read of a string value goes through one accessor, plainValue: the
// stored bytes themselves when plain, a decompressed copy otherwise
// (Item.Release, above). A configuration change applies to new writes
// only: each entry names its own codec.
//
// # Time
//
// The engine reads time only through the Clock it is given (clock.go;
// ManualClock in tests), so tests move time instead of sleeping. An
// operation reads it once, before it locks (lockKey's now). Expiry is in
// unix ms; a key is still there in its expiry millisecond, as in Redis.
// Expiry is lazy (every lookup through find reclaims an expired key and
// reports "expired") plus an active sweep (expire.go's ActiveExpireCycle,
// run hz times a second by RunActiveExpiry) that goes round the shards
// with keys that expire, 64 slots a shard a cycle, so expired keys do not
// pile up. The LRU clock is seconds since the engine started (lruNow).
//
// # Eviction
//
// When used memory passes maxmemory, the front-ends call FreeMemory before
// a command that may grow memory. It first compacts dead records if they
// exceed 1/16 of maxmemory, then evicts keys the policy picks, Redis-style:
// it samples maxmemory-samples random keys into a pool of the best 16
// candidates and evicts the best (the random policies keep one sample, no
// pool), reclaiming expired keys it meets on the way. The policies are
// Redis's eight (LRU and LFU from the entry's access clock and evict
// word) plus Tandem's allkeys-s3fifo, conf's default
// (S3-FIFO approximated by sampling, with a ghost table of fingerprints of
// keys recently evicted from the small queue). When nothing can be
// evicted, writes that grow memory fail with ErrOOM (overLimit). See
// evict.go.
//
// # Snapshots
//
// Engine.Snapshot (snapshot.go) visits the keyspace as it was at one
// instant, without fork and without stopping writers for long:
//
//  1. The barrier: inside an exclusive section of the gate (so no command,
//     EXEC or script is half done) it marks every shard
//     pending (shard.snap), one shard lock at a time, through
//     lockNoCapture. The pause is a few hundred microseconds.
//  2. The capture: from then on, the first goroutine to lock a pending
//     shard, whatever it came for, captures it first (shard.lock calls
//     capture). A capture copies 8 bytes a live key (record ref, type,
//     encoding, bits) and the list of big records, clones the aggregates
//     (they change in place) and shares the chunks. Then it marks the
//     shard frozen: from now on a change of CAS or expiry, and a value of
//     the same size, writes a new record instead of changing the old one
//     in place, so the captured records stay as they were.
//  3. The walk: the saver locks the shards in order, capturing those
//     nobody touched, and hands each captured key to the visitor (the RDB
//     writer) with no lock held.
//  4. The thaw: after the walk it unfreezes every shard (lockNoCapture
//     again; SWAPDB may have moved frozen data between shards, so it
//     waits for the end).
//
// Since every multi-shard write holds all its shard locks and an EXEC or a
// script holds the gate, a multi-key write is either wholly before the
// barrier or wholly after it.
//
// One key at a time (dump.go, DUMP and MIGRATE): Dump hands a key's value
// out as a snapshot's visitor sees it, under its shard lock, and
// RestoreKey builds a whole value off the lock and then replaces and
// stores it under one lock, so no reader sees RESTORE half done.
//
// # Locks
//
// Every mutex of the engine, what it guards, who takes it, and the order.
// A lock is only ever taken after the ones above it in this list, never
// before (and memproto's mark locks fit in as shown):
//
//	gate (shared or exclusive)
//	  └ memproto mark shard (one)
//	      └ evictor.mu
//	          └ shard locks (one, or several in ascending index)
//	              └ Waiter.mu
//	                  └ the notification Sink's own locks (pubsub's Hub)
//	Gate.mu: a leaf, taken with no engine lock held; nothing under it.
//	Gate.deferMu: a leaf, taken under a shard lock; nothing under it.
//	pauseState.mu (CLIENT PAUSE's parked wake-ups and timer, pause.go):
//	a leaf, taken with no engine lock held; nothing under it. The pause
//	itself is atomics, read under shard locks (reclaim, insert).
//
// The gate (gate.go, Gate.rw, a sync.RWMutex). Shared holders: each batch
// of commands a connection's event loop serves (resp's Client.serve and
// memproto's session.Serve enter it per batch, not per command) and each
// ActiveExpireCycle. Exclusive holders: EXEC, Lua scripts and functions,
// DEBUG RELOAD (resp/exclusive.go), and Snapshot's barrier. The exclusive
// section guards no data of its own: it makes a run of commands atomic by
// keeping every other batch out, while the commands inside still take
// their shard locks as usual. Rules: Exclusive's caller must not be inside
// the gate (resp leaves it first and comes back with EnterWait), and a
// section does not nest (resp runs EVAL inside EXEC directly). While a
// section is busy (a script past busy-reply-threshold), Enter returns
// false and the caller must not touch the keyspace: resp answers BUSY,
// memproto parks the connection until the section ends (WhenOpen), the
// expiry cycle skips its turn. Some work runs outside the gate and still
// takes shard locks: the snapshot saver's walk, and a connection's close
// (server's OnClose calls resp's Client.Closed, which cancels a blocked
// client's Waiter and drops its WATCHes). Serving blocked clients is
// postponed to the end of an exclusive section (Gate.deferring and
// deferred, under Gate.deferMu, a leaf lock taken under a shard lock):
// such a cancel releases its keys' queues while a section may run on
// another goroutine, so the check and the list are guarded, and a serve
// the cancel does itself holds the key's shard lock, which keeps it out of
// the middle of a section that starts meanwhile.
//
// Gate.mu (a sync.Mutex, with its sync.Cond) guards gen (bumped when a
// section ends or turns busy) and parked (the wake-ups WhenOpen queued).
// Enter takes it briefly to wait for a generation change, SetBusy (called
// by resp's busy-script timer for the section's owner) and WhenOpen to
// change them, endExclusive after it released rw. No other engine lock is
// held when it is taken or taken while it is held, and the parked wake-ups
// run after it is released.
//
// Shard locks (shard.go, shard.mu). A shard's lock guards all of it: its
// shardData (entries, index, arena, aggregates, counters, watched keys),
// its queues of blocked clients (waiters) and its pending snapshot (snap).
// Only engine code takes them, always through shard.lock, which does a
// pending snapshot's capture, and shard.unlock, which may reset or repack
// the shard (above); lockNoCapture is for the snapshot's bookkeeping
// only. Tests may lock mu directly. The order: a goroutine holds one shard
// lock, or several taken in ascending global index order (lockSet in
// engine.go: WithKeys, MGet, MSet, RENAME/COPY/MOVE, SWAPDB, SORT, which
// with BY or GET patterns locks every shard of its database), released in
// reverse; it never locks a shard while it holds a higher-numbered one.
// Everything that walks many shards (KEYS, SCAN, FLUSHDB and FLUSHALL,
// RANDOMKEY, Reserve, INFO's counts through tallies and
// CompressionStats, the expiry cycle, eviction sampling and compaction,
// Snapshot, Waiting, Waiter.release, the end of an exclusive section)
// holds one at a time. A front-end holds none between calls: each DB
// method locks and unlocks before it returns, and callbacks that run under
// a shard lock must not call back into the engine.
//
// Waiter locks (blocking.go, Waiter.mu) guard a blocked client's state
// (waiting, served, cancelled) and result, so that a waiter queued on
// several keys is served once. serveWaitersLocked takes it under the
// key's shard lock, and runs the hand-off and may report its pop event
// under it; Result, Cancel and Done take it alone. No shard lock is ever
// taken while one is held. Waiter.nudged is an atomic.
//
// The evictor's lock (evict.go, evictor.mu) guards the candidate pool and
// S3-FIFO's bookkeeping (small-queue share, ghost table sizing); only
// FreeMemory takes it, holding no shard lock, and keeps it while it takes
// shard locks one at a time (compaction, sampling, evicting a candidate).
// The ghost table itself is an atomic pointer to atomic slots, since
// inserts read it under their shard lock without evictor.mu.
//
// Notifications (notify.go) take no lock of the engine's: the enabled
// classes and the sink are atomics, and an EventQueue belongs to one
// connection's goroutine. But the Sink runs under a shard lock ("expired"
// from lazy expiry and the expiry cycle, "evicted", and the events of a
// handle without an EventQueue, which may come under a Waiter's lock too),
// so the Sink's own locks (services.NotifySink publishes through pubsub's
// Hub, which takes a channel stripe lock, then Hub.mu) come after every
// engine lock, and the Sink must never call into the engine. The same goes
// for Waiter wake functions run under a shard lock: they must return at
// once (server.Peer.Wake). The change hook of client-side caching
// (track.go) follows the same rules: KeyChanged runs under the changed
// key's shard lock, so the tracking table's locks, and the connections'
// output queues it delivers to, come after every engine lock.
//
// Other sync: compress.go's pools (sync.Pool) and zstd coders (sync.Once)
// are safe on their own and hold nothing across calls; counters, the
// configuration (eviction, compression, maxmemory) and ManualClock are
// atomics.
//
// memproto's mark locks (memproto/marks.go) are not the engine's, but sit
// in its order. memproto keeps the meta protocol's stale and won marks in
// 64 mark shards, each a sync.Mutex over a map of key → mark (and an
// atomic count, so mg skips the table when it is empty). mg (when it
// vivifies, recaches or any mark exists), ms with I (storeStale), md with I
// (invalidate) and ma with N lock the key's mark shard, only one, and hold
// it across their engine calls, so two mg cannot both win the W flag. So:
// gate (the session's batch), then a mark shard, then engine locks; the
// engine never calls back. A full mark shard is swept by asking the engine
// about each key (DB.Info) under that mark lock, which keeps the order;
// flush_all clears the mark shards one at a time without engine calls.
//
// Which locks does a MULTI/EXEC take, and in what order? MULTI and the
// queuing of commands take none beyond the batch's shared gate (a queued
// command does not run); WATCH, before MULTI, locks each key's shard once
// to read its mark. EXEC (resp/cmd_multi.go, resp/exclusive.go), inside its
// batch's shared gate:
//
//  1. Its OOM check may run FreeMemory first (evictor.mu, then shard locks
//     one at a time), still in the shared gate.
//  2. It leaves the shared gate and takes it exclusively (Gate.Exclusive),
//     waiting for the batches in flight on other loops to end. Until it
//     leaves, nothing that enters the gate runs: no command of either
//     protocol, no expiry cycle. (What runs outside the gate, above, may
//     still lock shards in between.)
//  3. It checks the WATCHed keys (DB.Unchanged) and drops the watches
//     (DB.Unwatch): one shard lock at a time, for each key.
//  4. It runs the queued commands one by one, each taking and releasing
//     its own shard locks as it would outside a transaction: one shard, or
//     its keys' shards in ascending order (WithKeys, MSET…); a denyoom
//     command may run FreeMemory again (evictor.mu, then shards). No shard
//     lock is held from one command to the next: the exclusive gate, not
//     the shard locks, makes the queue atomic. Blocking commands run
//     without blocking, and pushes only note the keys whose blocked clients
//     to serve.
//  5. At the end of the section (endExclusive), still exclusive, it serves
//     those blocked clients: each key's shard lock in turn, with Waiter
//     locks under it. Then it releases the gate's rw, takes Gate.mu to
//     bump the generation and collect the parked wake-ups, releases it and
//     runs them.
//  6. It re-enters the gate shared (EnterWait) to finish its batch.
//
// A Lua script or function takes the same locks the same way: the
// exclusive gate (usually on a goroutine of its own: resp's
// exclusiveDetached), then, for each redis.call, that command's shard locks; it does not lock
// all shards, since the exclusive gate already keeps out every command of
// either protocol that might touch an undeclared key.
package engine
