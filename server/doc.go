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
package server
