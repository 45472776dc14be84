// Package tracking is the server side of Redis's client-side caching
// (CLIENT TRACKING, Redis 7.0's tracking.c): which connection may hold a
// copy of which key, and who must be told when a key changes.
//
// One Table serves the process (services.Services.Tracking). It is the
// engine's change hook (engine.ChangeHook), so it hears of every change to
// a key wherever it comes from — a Redis command, a script, a transaction,
// a memcached set, touch, delete or flush_all, an expiry, an eviction —
// without either front-end reporting anything per command. Only Redis
// connections track; a memcached write invalidates their copies like any
// other write, which is what makes one keyspace behind two protocols safe
// to cache.
//
// # How an invalidation moves
//
//  1. A tracking connection (Enable, without BCAST) runs a read-only
//     command. Its front-end calls Begin with the command's keys before
//     running it and End after: Begin registers the keys provisionally,
//     so a write that lands between the read and End is not lost (Redis,
//     single-threaded, remembers them after the command; here another
//     connection or memcached may write in between), End keeps them as
//     Redis does. A change the reader's own command makes in between (a
//     key it finds expired) is not reported for a provisional key: Redis
//     had not remembered it yet.
//  2. Something changes the key: the engine calls KeyChanged under the
//     key's shard lock, with the origin (the connection whose command
//     changed it; 0 for expiry, eviction, memcached). The key leaves the
//     table and every connection that had it is sent one message with
//     that key, except those in BCAST mode and, in NOLOOP mode, the
//     origin itself.
//  3. Sending is Redis's sendTrackingMessage: to the connection, or to
//     its REDIRECT target, looked up by id each time; a target that is
//     gone marks the tracking connection's redirect broken and sends it
//     "tracking-redir-broken" instead. The Conn formats: a RESP3 push
//     ">2 invalidate [keys]", or for a RESP2 target of a redirect in
//     pub/sub mode a "message" on __redis__:invalidate, or nothing.
//
// BCAST connections register prefixes instead of keys. A change to a key
// under a prefix is recorded against the prefix with its origin, and at
// the end of the batch of work that made it (BatchEnd, the engine gate's
// Leave: where Redis's beforeSleep broadcasts) every connection of the
// prefix gets the prefix's keys in one message, sorted, NOLOOP ones
// without their own changes.
//
// A flush (FLUSHDB, FLUSHALL, memcached flush_all) empties the table and
// sends every tracking connection a null ("all keys"). SWAPDB sends
// nothing, as in Redis 7.0.
//
// tracking-table-max-keys bounds the keys (SetMaxKeys): past it, random
// keys are invalidated as if modified until the table fits, after each End
// and when the bound is lowered.
//
// # Locks
//
// The keys are in 64 stripes, each under its own mutex; the connections
// and prefixes are under one more (Table's doc has the order). A write to
// a key nobody tracks costs its stripe's lock and a map lookup, or two
// atomic loads when nothing is tracked at all. KeyChanged runs under an
// engine shard lock, and Conn.Deliver under the table's locks: a Conn
// only queues (its own mutex) and wakes its loop, and never calls back
// into the table or the engine. Nothing here calls the engine. The lookup
// of connections by id (SetLookup) runs under the mutex too and must only
// read.
package tracking
