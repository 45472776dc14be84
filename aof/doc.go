// Package aof is Redis 7.0's multi-part append-only file: a directory
// (appenddirname) holding a base (an RDB, or AOF commands), incr files of
// the write commands since, and a manifest naming them in load order.
// It knows files and bytes only; the caller turns commands into effects
// and back, so the package depends on no front-end.
//
// # How a write moves
//
// An event loop executes a write, then Log.Append copies its RESP form
// (with SELECT and #TS: annotations as Redis adds them) into one buffer
// under a mutex and gets a sequence number: the stream's byte count
// after it. Before the loop sends the batch's replies it calls
//
//   - appendfsync always: WaitDurable(seq). The first waiter becomes the
//     group's leader: it takes the whole buffer, writes it with one
//     write(2) and one fdatasync outside the mutex, and wakes every waiter
//     whose bytes that covered. Appends arriving meanwhile, from other
//     loops, form the next group. One sync serves many loops.
//   - everysec or no: Flush, one write(2) without sync; under everysec a
//     goroutine fdatasyncs once a second off the loops (Redis's bio
//     thread) and writes anything left.
//
// A failed write keeps the unwritten bytes (a partial write is cut off
// the file again), and until a write succeeds WritesRefused gives the
// -MISCONF reply write commands get; under always the error is fatal
// (Redis exits).
//
// # Start-up
//
// Load upgrades an old single appendonly.aof into the directory, reads
// the manifest (ParseManifest: Redis's checks and error words), hands the
// base's RDB to a callback and every command to another, and truncates a
// cut tail of the last file when aof-load-truncated. Open then reopens
// the last incr file, writing a first base when the directory is empty.
//
// # Rewrite
//
// BeginRewrite rotates to a new incr file (manifest persisted first);
// the caller writes the base of the dataset at that point through
// Rewrite.WriteBase into a temp file; Commit renames it in, turns the old
// base and incr files into history and persists the manifest (temp file,
// fsync, rename, fsync of the directory), then deletes history unless
// aof-disable-auto-gc. Every step before the manifest's rename leaves the
// old manifest and its files loadable. Enable (CONFIG SET appendonly yes)
// starts with a rewrite: appends go to a temp incr file that only its
// Commit names, as Redis's AOF_WAIT_REWRITE.
//
// Locks: Log.mu guards the buffer, counters, file and manifest; Log.wmu
// is held by the one goroutine writing. wmu is taken before mu.
package aof
