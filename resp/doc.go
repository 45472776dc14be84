// Package resp is Tandem's Redis front-end: the RESP codec and the Redis
// command table.
//
// A request moves through it like this. server/ hands the bytes read from a
// connection to that connection's Parser, which cuts them into requests
// (multibulk "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n" or inline "GET k\r\n") exactly
// as redis-server 7.0 does, limits and error texts included. Each request's
// arguments alias the read buffer. The command table looks the name up,
// checks arity, calls the handler, which talks to engine/ and appends its
// reply to the connection's Writer in RESP2 or RESP3; the replies to a whole
// pipeline go out in one write. A ProtocolError from the parser is answered
// with "-ERR <text>" and the connection is closed.
//
// The front-end owns its protocol and nothing both protocols use: New is
// given the shared services (package services: the engine, the pub/sub
// hub, scripting, persistence, the client-side caching table, the
// configuration) by the composition root
// (package node), and its tests build the same services.
//
// Files:
//   - frontend.go: Frontend, Options: what the front-end is given.
//   - client.go: Client, one connection: Serve, the command loop, and exec,
//     where every generic check reads the command's table row.
//   - parser.go: Parser, Limits: incremental, allocation-free request parsing.
//   - writer.go: Writer: RESP2/RESP3 reply encoding.
//   - errors.go: every error text the front-end sends, as named constants,
//     and the helpers that format redis's arity and unknown-command errors.
//   - tracking_client.go: client-side caching on this side (CLIENT
//     TRACKING and friends, the keys reads register, where invalidation
//     messages go among the replies).
//   - cmd_monitor.go: MONITOR: every command published to the shared
//     feed (services.Monitor) after it ran; a monitor watches through its
//     pub/sub outbox, under the normal output limit.
//   - cmd_*.go: the command table, one file per command family
//     (cmd_string.go, cmd_keys.go, cmd_hash.go…), each with its tests.
package resp
