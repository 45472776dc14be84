// Package benchkit is what tandem-benchmark's subcommands share, written
// once: the client library and the server launcher.
//
// The client library encodes requests itself (no client library in the
// timed path: what is measured is the server). A Codec speaks one
// protocol — resp, memcache (text), meta or binary (memcached's binary
// frames, binary.go) — into the caller's buffer, so a pipeline is one
// write, and reads one reply at a time, telling a well-formed refusal
// (ReplyErr: the connection is still in step) from a broken stream. Conn (RESP) and MCConn (memcached text) wrap a codec in
// a connection for the control paths: INFO, CONFIG, DBSIZE, stats.
//
// Launch starts Tandem, redis-server, memcached or the null server on
// free loopback ports with nothing persisted, optionally pinned with
// taskset, and returns once it answers; Stop ends it (SIGTERM, then
// SIGKILL), and a server always dies with the benchmark (Pdeathsig).
// Sampler reads a server's RSS and CPU time from /proc while a run goes
// on; Histogram records latencies in fixed memory (log-linear, HDR
// style); Zipf and RNG draw deterministic key streams; AppendKey,
// FillPattern and FillIncompressible make keys and values a reader can
// check without keeping the data set. LoopbackAddr refuses any target
// that is not this machine.
package benchkit
