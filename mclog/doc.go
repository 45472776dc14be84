// Package mclog is memcached's log stream, the one "watch" connections
// read (memcached 1.6.18's logger.c): item fetches, stores, evictions and
// connection events, each one line in memcached's words, fanned out to
// every watcher whose flags ask for it.
//
// # How an event moves
//
// One Log serves the process: package services builds it, the memcached
// front-end publishes fetches, stores and connection events into it, and
// the engine's eviction hook publishes evictions (of database 0, the
// keyspace memcached sees, whoever's write caused them). A publisher first
// asks Wants(flag), one atomic load of the union of the watchers' flags,
// so with nobody watching an event costs nothing else: no lock, no
// allocation. Otherwise the event takes the next gid, is formatted once
// ("ts=<sec>.<usec> gid=<n> type=..." ending in '\n', as logger.c prints
// it) and offered to each matching watcher that joined before the event.
//
// # Bounded watchers
//
// A Watcher holds at most its buffer size (watcher_logbuf_size, memcached's
// 256 KiB default) of lines its connection has not taken yet. A line is
// taken only when len+128 bytes are free (memcached keeps 128 for the
// notice): otherwise it is skipped and counted, and the next line that fits
// is preceded by memcached's "skipped=<n>\n". Offering never blocks and
// never grows past the bound, so a watcher that does not read loses lines
// and slows nobody. The front-end takes the buffered bytes (Take) on the
// watcher's own event loop, when its socket has taken the previous ones;
// the Watcher's wake function tells it there is something to take.
//
// memcached stages events in a buffer per worker thread before its logger
// thread formats them (log_worker_written, log_worker_dropped); here the
// publisher formats and offers at once, so nothing is dropped before the
// watchers' buffers: log_worker_dropped stays 0.
package mclog
