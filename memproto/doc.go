// Package memproto is Tandem's memcached front-end: the text, meta and
// binary protocols of memcached 1.6, byte for byte, over database 0 of the
// engine (the same keyspace the Redis front-end serves). A connection's
// first byte decides: 0x80 is the binary protocol (binary.go), anything
// else text and meta, which the rest of this overview is about.
//
// # How a request moves
//
// server/ hands the bytes read from a connection to the connection's
// session (session.go). Serve asks the Parser (parser.go) for one request
// at a time: the parser finds the line, tokenizes it as memcached does
// (spaces only, at most 23 tokens, a NUL ends the line), looks the command
// up in the command table (table.go), parses its arguments by the
// command's shape — numbers with C's strtol rules (numbers.go), meta flags
// once into MetaFlags with duplicate detection (metaflags.go), base64 keys
// (base64.go) — and, for storage commands, waits for the data block. A
// malformed request comes back with its error reply in Request.Err, and
// with the number of data bytes to swallow when memcached would swallow
// them. Serve then runs the command's handler (cmd_text.go, cmd_meta.go,
// cmd_admin.go, stats.go), which calls the engine and appends its reply to
// the output buffer; the replies to a whole pipeline go out in one write.
// Argument slices alias the read buffer; the engine copies what it keeps.
//
// Limits: keys are at most 250 bytes; a line with no '\n' within
// memcached-max-line (2048) bytes closes the connection, unless it is a
// "get "/"gets " line (memcached lets multigets grow); an item over
// item-size-max is refused with "SERVER_ERROR object too large for cache"
// and its data swallowed.
//
// # One keyspace
//
// memcached sees Redis database 0. Strings are shared: a value written by
// Redis reads with client flags 0; every write through either protocol
// changes the key's CAS unique, so a stale "cas" gets EXISTS. A key that
// holds a Redis hash, list, set or sorted set gets an answer memcached
// clients can handle:
//
//	get gets gat gats bget     miss (END); gat does not touch it
//	mg (T too), me             miss (EN), expiry unchanged
//	set, replace, ms (S, R)    overwrite it with the string, as Redis SET
//	add, ms ME                 NOT_STORED / NS (the key exists)
//	append prepend, ms MA MP   NOT_STORED / NS
//	cas, ms with C             EXISTS / EX
//	incr decr ma               CLIENT_ERROR cannot increment or decrement non-numeric value
//	delete, md                 deleted (md I deletes it too: it cannot be marked stale)
//	touch                      expiry changed, TOUCHED
//	flush_all                  deleted with the rest of database 0
//
// # What flush_all touches
//
// flush_all (cmd_admin.go) empties database 0, all of it: every key of
// every type, Redis hashes, lists, sets, sorted sets and strings as much
// as memcached items, as FLUSHDB on database 0 would. Databases 1 and up
// are untouched. It publishes no keyspace notification (as FLUSHALL).
// "flush_all <delay>" instead sets every key of database 0 existing then
// to expire after the delay (an earlier expiry is kept); each then expires
// as any key does, with its "expired" notification, and keys written
// during the delay are kept. memcached-disable-flush-all refuses it as
// memcached -F ("CLIENT_ERROR flush_all not allowed", counted in
// cmd_flush), and memcached-rename-command can rename or remove it.
//
// # Renamed commands
//
// memcached-rename-command <name> <new-name> (rename.go), the memcached
// port's counterpart of redis's rename-command, builds the front-end's own
// copy of the command table at start: the command answers only under the
// new name (case-sensitive, as every memcached name), the old one gets
// ERROR, "" removes it. The table is immutable afterwards.
//
// # Keyspace notifications
//
// Writes publish, in database 0, the keyspace events (notify-keyspace-events)
// of the Redis command that does the same (notify.go), so a Redis client
// subscribed to __keyspace@0__:* sees memcached's writes:
//
//	set add replace cas, ms    "set", then "expire" when stored with an exptime
//	mg N, ma N (creating)      (then "expired" for an exptime already past)
//	append prepend, ms MA MP   "append"
//	incr decr ma               "incrby"
//	touch gat gats, mg T       "expire" (a new time), "del" (a time already
//	md I with T                past: the key went), "persist" (exptime 0 on
//	                           a key that had an expiry), as GETEX does
//	delete md                  "del"; also a set refused as too large or out
//	                           of memory, which drops the old value
//	flush_all                  none, as FLUSHALL
//
// Keys that expire report "expired" whichever protocol reads them.
//
// # Logging in
//
// With requirepass set (the user store, package users, requires a login),
// a session is bound to no user and must first log in as memcached -Y's
// text protocol does (auth.go): "set <any key> <flags> <exptime> <len>"
// whose data is "<user> <password>", answered STORED. Before that every
// other request, quit and meta commands included, gets CLIENT_ERROR
// unauthenticated and changes nothing. The default user's name is
// "default": a client logs in with the data "default <requirepass>". A
// session is bound to its *users.User from then on. Without requirepass a
// session is the default user's from the start.
//
// Every request of a logged-in session is then checked against its user's
// Redis ACL rules before it runs (acl.go): retrievals (get, gets, gat,
// gats, mg, me) are @read and read their keys, storage, arithmetic,
// delete, touch, ms, md and ma are @write and write their key, flush_all,
// cache_memlimit, shutdown and verbosity are @admin @dangerous. Only the
// user's category and key rules apply (memcached commands are not Redis
// commands), in its root selector or any "(…)" selector. A refused request
// is answered "CLIENT_ERROR permission denied", changes nothing, and is
// logged in ACL LOG. A session whose user the store removes (ACL DELUSER,
// ACL LOAD on the Redis port) is closed, as Redis closes such clients: the
// front-end follows the store's changes (acl.go, users.Store.Subscribe).
//
// # Where Tandem differs from memcached
//
//   - Items carry no slab class: me shows cls=1. memcached's per-item
//     "fetched" bit (mg h, me fetch=, stats expired_unfetched and
//     evicted_unfetched) is the engine's, set by reads through either
//     protocol (a Redis GET fetches too). The "binary key" bit (mg k and
//     me show a key stored by ms b in base64) is kept per item version in
//     a fixed table (versions.go): a version marked long ago may lose its
//     mark (key shown as plain text with no b flag).
//   - flush_all with a delay expires the keys that exist when it is
//     received; memcached also drops those written during the delay.
//   - The binary protocol and SASL share the port with the text protocol
//     and its auth-file login (memcached -S excludes the text protocol,
//     -Y the binary one); SASL offers PLAIN only, against Tandem's users,
//     and is served with no password set too (an ACL user may log in). A
//     binary request an ACL rule refuses gets 0x20 "Permission denied".
//     A value written after 2038 with a binary expiration past 2^31 keeps
//     2038 as its expiry.
//   - Flags that memcached 1.6.18 refuses are refused (mg/ms/ma E, md x…).
//   - The engine keeps a key through the last millisecond of its TTL;
//     memcached drops an item when its whole-second clock reaches it.
//   - After a failed BGSAVE, while save rules exist and
//     stop-writes-on-bgsave-error is on (the state in which Redis answers
//     MISCONF), every write is refused with "SERVER_ERROR MISCONF unable
//     to persist to disk: writes are refused because the last background
//     save failed (stop-writes-on-bgsave-error)", sent even with noreply
//     or q: storage, cas, incr decr, delete, touch, gat gats, flush_all,
//     ms md ma, and mg with T or N (misconf.go). Reads keep working.
//     memcached has no persistence, hence no such error.
//   - stats items/slabs report one pseudo slab class; the commands that
//     tune slabs, the LRU and its crawler check their arguments as
//     memcached does and change nothing.
//
// Where memcached's answer depends on how the bytes arrived, Tandem
// follows memcached for the same arrival: replies it would still have
// queued (it writes them after get-family commands, mn, every 21 requests
// and when input runs out) are lost when it closes the connection (a line
// over the limit, an HTTP request line) and culled by a get with an
// over-long key; and an item an mg reply still holds is not rewritten in
// place by incr/decr/ma (the number is stored unpadded, as a new item).
//
// Files: parser.go, metaflags.go, numbers.go, base64.go (parsing);
// session.go (the Serve loop); auth.go (the login); binary.go (the binary
// framing), binary_commands.go (its opcode table), sasl.go (its login);
// table.go and cmd_*.go
// (commands); expiry.go (exptime rules); marks.go (stale/win bits for mg
// N/R, md I, ms I);
// versions.go (the binary-key bit); misconf.go (writes refused after a
// failed BGSAVE); pause.go (requests a Redis client's CLIENT PAUSE holds
// back); monitor.go (requests shown to Redis MONITOR clients); watch.go
// (watch: memcached's log stream, package mclog);
// stats.go (counters and the stats groups); errors.go (every wire string).
package memproto
