// Package server moves bytes between sockets and protocol front-ends.
//
// It runs one gnet v2 engine (multicore event loops) over every listener:
// the RESP port and the memcached port share the loops and the keyspace.
// On each read it hands every unconsumed byte of the connection to the
// listener's Session, which parses and runs all complete requests and
// appends all their replies to one buffer; the server writes that buffer
// once, so a pipeline of N requests costs one write. Bytes of an
// incomplete request are kept for the next read.
//
// The server knows no protocol. It enforces what is the same for both:
// maxclients, the idle timeout, the query-buffer and output-buffer limits,
// and it recovers a panic in a session so that only that connection is
// closed. Handlers run on event-loop goroutines and must never block.
//
// A session may also pace its connection (pacing.go): when it stops a
// pipeline because its replies are not read, it pauses the connection
// (Pauser); the server keeps the unconsumed bytes and serves them again
// once the socket has taken the queued output, which it learns by waking
// the connection (at once, then from a watcher at growing intervals),
// since gnet reports no drained outbound buffer. The memcached front-end
// paces; the Redis one yields that way every 512 KB of replies while an
// output limit is set, and is closed past the limit.
//
// It also accounts for what the connections' buffers hold
// (Server.ClientBuffers, INFO's mem_clients_normal), and holds an event
// loop back while the Go heap runs past the runtime's memory limit
// (heapguard.go): the one place where a loop blocks on purpose.
package server
