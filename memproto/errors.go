package memproto

// Every line the front-end sends that is not data: errors and the fixed
// status words. Each text was checked byte for byte against memcached
// 1.6.18; the comment says when memcached sends it.

// Generic errors (text protocol).
const (
	// errUnknown: unknown command, wrong number of tokens, empty line.
	errUnknown = "ERROR"
	// errBadFormat: a key over 250 bytes, a number that does not parse, a
	// negative or absurd data length.
	errBadFormat = "CLIENT_ERROR bad command line format"
	// errBadDataChunk: the data block of a storage command does not end
	// with "\r\n" after <bytes> bytes.
	errBadDataChunk = "CLIENT_ERROR bad data chunk"
	// errBadExptime: gat/gats/touch/flush_all with an exptime that does not
	// parse.
	errBadExptime = "CLIENT_ERROR invalid exptime argument"
	// errBadDelta: incr/decr with a delta that is not an unsigned 64-bit
	// decimal.
	errBadDelta = "CLIENT_ERROR invalid numeric delta argument"
	// errNonNumeric: incr/decr/ma on a value that is not a number, and (our
	// choice) on a key holding a Redis hash, list, set or sorted set.
	errNonNumeric = "CLIENT_ERROR cannot increment or decrement non-numeric value"
	// errDeleteUsage: delete with a third or fourth token other than "0"
	// and "noreply" (the double space is memcached's).
	errDeleteUsage = "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]"
	// errTooLarge: a storage command whose item would exceed item-size-max;
	// the data block is swallowed.
	errTooLarge = "SERVER_ERROR object too large for cache"
	// errOOMStore: a write refused because maxmemory is reached.
	errOOMStore = "SERVER_ERROR out of memory storing object"
	// errOOM: incr/decr/ma refused because maxmemory is reached.
	errOOM = "SERVER_ERROR out of memory"
	// errOOMVivify: ma with N could not create the item.
	errOOMVivify = "SERVER_ERROR Out of memory allocating new item"
	// errWritesRefused: any write (misconf.go) while the last BGSAVE
	// failed, save rules exist and stop-writes-on-bgsave-error is on, where
	// Redis answers MISCONF. memcached has no such state; the text is ours,
	// after Redis's. Sent with noreply and q too, as every SERVER_ERROR.
	errWritesRefused = "SERVER_ERROR MISCONF unable to persist to disk: writes are refused because the last background save failed (stop-writes-on-bgsave-error)"
	// errReadOnlyReplica: any write on a read-only replica (misconf.go),
	// Redis's READONLY error after SERVER_ERROR.
	errReadOnlyReplica = "SERVER_ERROR READONLY You can't write against a read only replica."
	// errTooManyConns is written to a connection refused at maxclients.
	errTooManyConns = "ERROR Too many open connections"
)

// Admin command errors.
const (
	errShutdownDisabled = "ERROR: shutdown not enabled"
	// errFlushDisabled: flush_all when memcached-disable-flush-all is set
	// (memcached -F), noreply or not as any reply.
	errFlushDisabled    = "CLIENT_ERROR flush_all not allowed"
	errShutdownMode     = "CLIENT_ERROR invalid shutdown mode"
	errStatsBadLine     = "CLIENT_ERROR bad command line"
	errStatsDetailUsage = "CLIENT_ERROR usage: stats detail on|off|dump"
	errIllegalSlabID    = "CLIENT_ERROR Illegal slab id"
	errMemlimitTooSmall = "MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m"
	errMemlimitUnits    = "MEMLIMIT_ADJUST_FAILED input value is megabytes not bytes"
	errMemlimitFailed   = "MEMLIMIT_ADJUST_FAILED out of bounds or unable to adjust"
	errBadSlabClass     = "BADCLASS invalid src or dst class id"
	errSleepTooLong     = "CLIENT_ERROR sleep must be one second or less"
	errMetadumpDenied   = "ERROR metadump not allowed"
	errLRUPercents      = "ERROR hot and warm pcts must not exceed 80"
	errLRUFactors       = "ERROR hot/warm age factors must be greater than 0"
	errWatchDenied      = "CLIENT_ERROR watch commands not allowed"
	errNoTLS            = "Error TLS not enabled"
)

// Meta command errors. Meta errors are always sent, q or not.
const (
	errDuplicateFlag   = "CLIENT_ERROR duplicate flag"
	errInvalidFlag     = "CLIENT_ERROR invalid flag"
	errBadToken        = "CLIENT_ERROR bad token in command line format"
	errKeyDecode       = "CLIENT_ERROR error decoding key"
	errModeLength      = "CLIENT_ERROR incorrect length for M token"
	errBadInitial      = "CLIENT_ERROR invalid numeric initial value"
	errBadMetaDelta    = "CLIENT_ERROR invalid numeric delta value"
	errMgFlagsTooLong  = "CLIENT_ERROR options flags are too long" // mg's wording
	errFlagsTooLong    = "CLIENT_ERROR options flags too long"     // ms, md, ma
	errOpaqueTooLong   = "CLIENT_ERROR opaque token too long"
	errMsMode          = "CLIENT_ERROR invalid mode for ms M token"
	errMaMode          = "CLIENT_ERROR invalid mode for ma M token"
	errInvalidOrDupMDA = "CLIENT_ERROR invalid or duplicate flag" // md and ma: any flag error
)

// Status lines.
const (
	replyStored    = "STORED"
	replyNotStored = "NOT_STORED"
	replyExists    = "EXISTS"
	replyNotFound  = "NOT_FOUND"
	replyDeleted   = "DELETED"
	replyTouched   = "TOUCHED"
	replyOK        = "OK"
	replyEnd       = "END"
	replyReset     = "RESET"
)

// Connection refusals (Tandem's own: memcached has no protected mode).
const (
	// errDeniedProtected is written to a client protected mode refuses
	// (internal/protect) before the connection is closed: one SERVER_ERROR
	// line, which a text or meta client reads as the answer to its first
	// request and shows, rather than a bare close it would retry.
	errDeniedProtected = "SERVER_ERROR DENIED Tandem is running in protected mode because protected mode is enabled " +
		"and no password is set for the default user; connections are only accepted from the loopback interface " +
		"(set requirepass, or protected-mode no)"
)

// The auth-file login's replies (auth.go), memcached -Y's.
const (
	errUnauthenticated = "CLIENT_ERROR unauthenticated"
	errAuthFailure     = "CLIENT_ERROR authentication failure"
	errAuthFormat      = "CLIENT_ERROR bad authentication token format"
	errAuthTermination = "CLIENT_ERROR bad command line termination"
)
