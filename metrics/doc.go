// Package metrics is Tandem's built-in Prometheus endpoint: it builds the
// registry and its collectors and serves /metrics and /healthz over HTTP.
//
// Nothing here runs on a command's path. The collector (collector.go)
// reads, at scrape time, the counters the front-ends and the shared
// services already keep for INFO and memcached's "stats" — resp.Frontend's
// Stats, EachCommandStat and Memory, memproto.Frontend's Stats, the
// engine's Stats, CompressionStats and ArenaStats, snapshot.Manager's
// Info, the pub/sub hub's Totals and Messages — and formats them under
// Prometheus's conventions: the tandem_ prefix, base units (bytes,
// seconds), _total on counters, a protocol label (resp, memcached) where
// a figure belongs to one port. The standard Go and process collectors add
// the runtime (GC pauses, heap, goroutines) and the process (RSS, CPU,
// file descriptors).
//
// Access (server.go): with metrics-password set, /metrics wants it as a
// bearer token or as a basic-auth password (any user name), compared in
// constant time. CheckExposure is the start-up rule that refuses to
// serve the figures beyond loopback without it while the data ports are
// protected. /healthz answers without credentials: probes often cannot
// send any, and it tells only whether the node serves.
//
// package node builds one Server per process when metrics-port is set,
// starts it before the dump loads (so /healthz says "loading" meanwhile)
// and stops it with the node.
package metrics
