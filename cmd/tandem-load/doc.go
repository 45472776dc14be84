// Command tandem-load is Tandem's load generator: it drives a Redis-protocol
// or memcached-protocol server over loopback with SET/GET traffic and
// reports throughput, latency percentiles, hits, misses and errors.
//
//	tandem-load -proto redis -addr 127.0.0.1:6379 -t set,get -n 1000000 -r 100000 -d 100 -c 50 -P 16
//	tandem-load -proto memcached -addr 127.0.0.1:11211 -ratio 1:10 -duration 30s -json
//
// How a request moves: each of the -c connections is one goroutine with a
// buffered reader and writer. It claims up to -P requests from the phase's
// shared budget (or runs until the phase's deadline), encodes them itself
// (no client library: the point is to measure the server), writes them in
// one call, then reads and checks the -P replies in order. The latency of a
// request is the time from that write to the parse of its reply, as
// redis-benchmark measures it, recorded in a fixed log-linear histogram per
// connection (bounded memory whatever the run length).
//
// Keys are "key:%012d" over -r random indices, as redis-benchmark's
// "key:__rand_int__". The value written for a key is the key repeated up to
// -d bytes, so every GET reply is verified: it must be a miss or exactly the
// value tandem-load writes for that key. Anything else — a wrong value, an
// error reply, an unexpected reply — counts as an error. A reply that cannot
// be parsed, or an I/O error, ends that connection (its outstanding requests
// count as errors); the others carry on.
//
// The target must be a loopback address: tandem-load refuses any other, by
// rule. Runs are bounded: -n at most 1e9 per phase, -duration at most 1h,
// and every read or write must complete within -timeout.
//
// Exit status: 0 on a clean run, 1 when the run could not be made (cannot
// connect, bad flush), 2 on bad flags, 3 when the run completed but some
// replies were errors.
package main
