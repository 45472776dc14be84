// Command tandem-benchmark is Tandem's one benchmark tool: the classic
// key-value benchmarks against Tandem, redis-server, memcached and the
// null server (the network floor), side by side, with tables, CSV/JSON
// and SVG charts.
//
//	tandem-benchmark load -p 6379 -t set,get -n 1000000 -r 100000 -d 100 -c 50 -P 16
//	tandem-benchmark load --server tandem=127.0.0.1:6379,redis=127.0.0.1:6380 --ratio 1:10 --dist zipf --duration 30s
//	tandem-benchmark load -p 6379 --rate 40000 -t get        # paced: latency from the schedule
//	tandem-benchmark scenario --server 127.0.0.1:11211 --protocol memcache seed-100b concurrency-1kb
//	tandem-benchmark compare --scale 0.2 --pin --out docs/bench seed-100b rb-100b tail-50pct
//	tandem-benchmark hitratio | rssbound | save | memkey | null | chart
//
// Flags are redis-benchmark's where it has them (-h -p -c -n -d -P -r -t
// -q --csv), with --protocol resp|memcache|meta|binary (binary: memcached's
// binary Set/Get frames, -P of them in a row; a --multiget is GetKQ per
// key and a Noop), --key-size and -d as N or MIN-MAX, --ratio set:get,
// --dist uniform|zipf|seq, -n or --duration, --rate, --multiget and
// several --server targets.
//
// How a request moves: each of the -c connections of a target is one
// goroutine (two in a paced run: a writer and a reader). It claims up to
// -P requests from the phase's shared budget (or runs until the phase's
// deadline), draws each key's index (uniform, Zipf, or the next of a
// shared sequence), makes the key ("key:" and the index zero-padded to
// the key size) and, for a SET, the value (the key repeated, of the size
// the index maps to), encodes them with the protocol's codec
// (internal/benchkit) into one buffer, writes it in one call, then reads
// and checks the -P replies in order. Every value read is compared with
// the one written for its key, so a wrong, shifted or cut value is an
// error; after a scenario's SET phase has written every key, a miss is a
// key the server lost. Errors are counted, the first kept, and a row with
// any shows FAILED instead of its figures: a server that loses or
// corrupts data is reported, not averaged. A reply that cannot be parsed,
// or an I/O error, ends that connection (its outstanding requests are
// lost); the others carry on.
//
// Latency is the time from the write to the parse of a request's reply,
// as redis-benchmark measures it; in a paced run (--rate, open loop) it
// is measured from when the request was due, so a stall is charged to
// every request queued behind it (no coordinated omission). Latencies go
// into a fixed-size log-linear histogram per connection (p50 … p99.9,
// max), merged at the end of the phase. While a phase runs, the target's
// process (found through INFO process_id or memcached's stats pid) is
// sampled from /proc for its CPU time and peak RSS.
//
// Targets must be loopback addresses. Runs are bounded: -n at most 1e9
// per phase, --duration at most 1h, every read and write within
// --timeout. compare starts its own servers on free loopback ports,
// pinned to CPU 0 with --pin (Tandem and the null server with
// GOMAXPROCS=1, memcached -t 1; the tool re-runs itself on CPU 1), and
// stops them however it ends.
//
// Exit status: 0 on a clean run, 1 when the run could not be made, 2 on
// bad flags, 3 when the run completed but a server failed a check.
package main
