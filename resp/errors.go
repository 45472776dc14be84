package resp

import "strings"

// Protocol errors. The parser returns these (as a ProtocolError); the server
// replies "-ERR " + text and closes the connection, as redis-server 7.0 does.
// Every text was checked byte for byte against redis-server 7.0.15.
const (
	// ErrProtoTooBigInline: an inline request has no '\n' within
	// Limits.MaxInlineSize pending bytes.
	ErrProtoTooBigInline = "Protocol error: too big inline request"
	// ErrProtoUnbalancedQuotes: an inline request has an unterminated quote, or
	// a closing quote followed by something other than a space.
	ErrProtoUnbalancedQuotes = "Protocol error: unbalanced quotes in request"
	// ErrProtoTooBigMbulkCount: a "*<count>" line has no '\r' within
	// Limits.MaxInlineSize pending bytes.
	ErrProtoTooBigMbulkCount = "Protocol error: too big mbulk count string"
	// ErrProtoInvalidMultibulkLen: the count after '*' is not a strict decimal
	// integer or exceeds Limits.MaxMultibulkLen.
	ErrProtoInvalidMultibulkLen = "Protocol error: invalid multibulk length"
	// ErrProtoUnauthMultibulkLen: more than 10 arguments before AUTH when a
	// password is required.
	ErrProtoUnauthMultibulkLen = "Protocol error: unauthenticated multibulk length"
	// ErrProtoTooBigBulkCount: a "$<len>" line has no '\r' within
	// Limits.MaxInlineSize pending bytes.
	ErrProtoTooBigBulkCount = "Protocol error: too big bulk count string"
	// ErrProtoExpectedDollar is a format: the byte found where '$' should start
	// a bulk header ('\r' and '\n' are shown as a space).
	ErrProtoExpectedDollar = "Protocol error: expected '$', got '%c'"
	// ErrProtoInvalidBulkLen: the length after '$' is not a strict decimal
	// integer, is negative, or exceeds Limits.MaxBulkLen.
	ErrProtoInvalidBulkLen = "Protocol error: invalid bulk length"
	// ErrProtoUnauthBulkLen: a bulk longer than 16384 bytes before AUTH when a
	// password is required.
	ErrProtoUnauthBulkLen = "Protocol error: unauthenticated bulk length"
)

// Command errors: complete reply texts, code included, for Writer.Error.
// The ones holding %s are formats.
const (
	ErrWrongType  = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrNotInteger = "ERR value is not an integer or out of range"
	ErrSyntax     = "ERR syntax error"
	// ErrMisconf: writes refused after a failed BGSAVE
	// (stop-writes-on-bgsave-error).
	ErrMisconf       = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
	ErrNotFloat      = "ERR value is not a valid float"
	ErrNoSuchKey     = "ERR no such key"
	ErrOOM           = "OOM command not allowed when used memory > 'maxmemory'."
	ErrOverflow      = "ERR increment or decrement would overflow"
	ErrInvalidExpire = "ERR invalid expire time in '%s' command" // %s: the command's lowercase name
	ErrDBIndex       = "ERR DB index is out of range"
)

// ProtocolError is a request framing error from Parser.Next. Its text is one
// of the ErrProto* constants (formatted where needed), without the "ERR " code.
type ProtocolError string

func (e ProtocolError) Error() string { return string(e) }

// unknownArgsBudget is how many bytes of the user's words redis 7.0 quotes back
// in an unknown command or subcommand error.
const unknownArgsBudget = 128

// WrongArgs returns the arity error for the command whose table name is cmd.
// redis 7.0 names the command by its canonical lowercase name whatever case the
// user typed ("GeT" -> 'get'), and a subcommand as "container|sub"
// ('config|get'); cmd is lowercased here in case the caller passes what the
// user typed.
func WrongArgs(cmd string) string {
	return "ERR wrong number of arguments for '" + strings.ToLower(cmd) + "' command"
}

// UnknownCommand returns redis 7.0's reply text for a command name that is not
// in the table. args are the arguments after the name (argv[1:]).
//
// It reproduces redis's C formatting exactly: the name is cut to 128 bytes;
// each argument is quoted as "'arg' " while the quoted list is under 128 bytes,
// the last one cut so that the list does not pass 128; every word stops at its
// first NUL byte (C strings); '\r' and '\n' become spaces; other bytes are kept
// as they are.
func UnknownCommand(name string, args [][]byte) string {
	var b strings.Builder
	b.WriteString("ERR unknown command '")
	b.WriteString(cutC(name, unknownArgsBudget))
	b.WriteString("', with args beginning with: ")
	quoted := 0
	for _, a := range args {
		if quoted >= unknownArgsBudget {
			break
		}
		s := cutC(string(a), unknownArgsBudget-quoted)
		b.WriteByte('\'')
		b.WriteString(s)
		b.WriteString("' ")
		quoted += len(s) + 3
	}
	return mapNewlines(b.String())
}

// UnknownSubcommand returns redis 7.0's reply to an unknown subcommand of a
// container command (CONFIG, CLIENT, OBJECT…): cmd is argv[0] as the user
// typed it (shown uppercased), sub is argv[1] (cut at 128 bytes and at its first
// NUL byte; '\r' and '\n' become spaces).
func UnknownSubcommand(cmd string, sub []byte) string {
	return mapNewlines("ERR unknown subcommand '" + cutC(string(sub), unknownArgsBudget) +
		"'. Try " + strings.ToUpper(cutC(cmd, len(cmd))) + " HELP.")
}

// cutC returns s as C's "%.*s" prints it: at most max bytes, ending before the
// first NUL byte.
func cutC(s string, max int) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if len(s) > max {
		s = s[:max]
	}
	return s
}

// mapNewlines replaces '\r' and '\n' with spaces, as redis does to every error
// text built from user input so that the reply stays one line.
func mapNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 && strings.IndexByte(s, '\n') < 0 {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// More command errors used by the dispatcher and engine error mapping.
const (
	ErrNoAuth        = "NOAUTH Authentication required."
	ErrNaNOrInf      = "ERR increment would produce NaN or Infinity"
	ErrStringTooLong = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrSameObject    = "ERR source and destination objects are the same"
)

// Key family: errors of the generic key commands (cmd_keys.go), checked
// against redis-server 7.0.15.
const (
	// ErrExpireNXConflict: EXPIRE NX with XX, GT or LT.
	ErrExpireNXConflict = "ERR NX and XX, GT or LT options at the same time are not compatible"
	// ErrExpireGTLT: EXPIRE GT with LT.
	ErrExpireGTLT = "ERR GT and LT options at the same time are not compatible"
	// ErrUnsupportedOption is followed by the option as given (cut at its
	// first NUL byte).
	ErrUnsupportedOption = "ERR Unsupported option "
	// ErrInvalidCursor: a SCAN cursor that strtoul rejects.
	ErrInvalidCursor = "ERR invalid cursor"
	// ErrIntRange: an integer argument outside int32 where Redis wants an
	// int (COPY ... DB n, MOVE key n).
	ErrIntRange = "ERR value is out of range, value must between -2147483648 and 2147483647"
	// ErrLFUNotSelected: OBJECT FREQ without an LFU maxmemory-policy.
	ErrLFUNotSelected = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	// ErrLFUSelected: OBJECT IDLETIME under an LFU maxmemory-policy.
	ErrLFUSelected = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// String family: error texts of the string commands, checked against
// redis-server 7.0.15.
const (
	ErrDecrOverflow     = "ERR decrement would overflow" // DECRBY -9223372036854775808
	ErrOffsetOutOfRange = "ERR offset is out of range"   // SETRANGE with a negative offset
	ErrLCSNotString     = "ERR The specified keys must contain string values"
	ErrLCSIdxAndLen     = "ERR If you want both the length and indexes, please just use IDX."
	ErrLCSTooLong       = "ERR String too long for LCS"
	ErrLCSMemory        = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
)

// Connection and server family: error texts of cmd_connection.go,
// cmd_client.go, cmd_server.go, cmd_command.go and info.go, checked against
// redis-server 7.0.15 (CLIENT SETINFO and NO-TOUCH, which 7.0 lacks, against
// redis 7.2's source). The ones holding %s are formats.
const (
	ErrNoProto        = "NOPROTO unsupported protocol version"
	ErrProtoVersion   = "ERR Protocol version is not an integer or out of range"
	ErrHelloOption    = "ERR Syntax error in HELLO option '%s'" // %s: the option as sent
	ErrHelloNoAuth    = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	ErrAuthNoPassword = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	ErrWrongPass      = "WRONGPASS invalid username-password pair or user is disabled."
	ErrClientName     = "ERR Client names cannot contain spaces, newlines or special characters."
	// ErrClientAttr: CLIENT SETINFO with a bad value; %s is the attribute as sent.
	ErrClientAttr        = "ERR %s cannot contain spaces, newlines or special characters."
	ErrClientAttrUnknown = "ERR Unrecognized option '%s'"
	ErrNoSuchClient      = "ERR No such client"
	ErrClientIDPositive  = "ERR client-id should be greater than 0"
	ErrInvalidClientID   = "ERR Invalid client ID"
	ErrUnknownClientType = "ERR Unknown client type '%s'"
	ErrNoSuchUser        = "ERR No such user '%s'"
	ErrInvalidFirstDB    = "ERR invalid first DB index"
	ErrInvalidSecondDB   = "ERR invalid second DB index"
	ErrNoConfigFile      = "ERR The server is running without a config file"
	ErrConfigRewrite     = "ERR Rewriting config file: %s"
	ErrInvalidCommand    = "ERR Invalid command specified"
	ErrNoKeyArgs         = "ERR The command has no key arguments"
	ErrGetKeysArity      = "ERR Invalid number of arguments specified for command"
	ErrGetKeysNone       = "ERR Invalid arguments specified for command"
)

// Bitmap and HyperLogLog families: error texts of cmd_bitmap.go and
// cmd_hll.go, checked against redis-server 7.0.15.
const (
	ErrBitOffset        = "ERR bit offset is not an integer or out of range"
	ErrBitValue         = "ERR bit is not an integer or out of range"
	ErrBitArgument      = "ERR The bit argument must be 1 or 0."
	ErrBitOpNot         = "ERR BITOP NOT must be called with a single source key."
	ErrBitFieldType     = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	ErrBitFieldOverflow = "ERR Invalid OVERFLOW type specified"
	ErrBitFieldRO       = "ERR BITFIELD_RO only supports the GET subcommand"
	ErrNotHLL           = "WRONGTYPE Key is not a valid HyperLogLog string value."
	ErrCorruptHLL       = "INVALIDOBJ Corrupted HLL object detected"
)

// Hash family: error texts of cmd_hash.go, checked against redis-server
// 7.0.15.
const (
	ErrHashNotInteger   = "ERR hash value is not an integer" // HINCRBY on a non-integer value
	ErrHashNotFloat     = "ERR hash value is not a float"    // HINCRBYFLOAT on a non-number value
	ErrHashIncrNaNOrInf = "ERR value is NaN or Infinity"     // HINCRBYFLOAT with an infinite increment
	// ErrHashCountRange: HRANDFIELD with count -9223372036854775808.
	ErrHashCountRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	// ErrHashWithValuesRange: HRANDFIELD WITHVALUES with |count| > 2^62-1.
	ErrHashWithValuesRange = "ERR value is out of range"
)

// Set family: error texts of cmd_set.go, checked against redis-server
// 7.0.15.
const (
	// ErrSetPopCount: SPOP with a count that is not an integer in
	// [0, LONG_MAX].
	ErrSetPopCount = "ERR value is out of range, must be positive"
	// ErrSetRandCountRange: SRANDMEMBER with count -9223372036854775808.
	ErrSetRandCountRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	// ErrSetNumkeys: SINTERCARD numkeys not an integer >= 1.
	ErrSetNumkeys = "ERR numkeys should be greater than 0"
	// ErrSetNumkeysArgs: SINTERCARD numkeys beyond the arguments given.
	ErrSetNumkeysArgs = "ERR Number of keys can't be greater than number of args"
	// ErrSetLimitNegative: SINTERCARD LIMIT not an integer >= 0.
	ErrSetLimitNegative = "ERR LIMIT can't be negative"
)

// Sorted set family: error texts of cmd_zset.go, checked against
// redis-server 7.0.15. ErrZsetNeedKey is a format (%s: the command's
// name).
const (
	ErrZsetNaN             = "ERR resulting score is not a number (NaN)"
	ErrZsetMinMaxNotFloat  = "ERR min or max is not a float"
	ErrZsetLexRange        = "ERR min or max not valid string range item"
	ErrZaddNXXX            = "ERR XX and NX options at the same time are not compatible"
	ErrZaddGTLTNX          = "ERR GT, LT, and/or NX options at the same time are not compatible"
	ErrZaddIncrPair        = "ERR INCR option supports a single increment-element pair"
	ErrZrangeLimitByRank   = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	ErrZrangeLexScores     = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	ErrZsetWeightNotFloat  = "ERR weight value is not a float"
	ErrZsetNeedKey         = "ERR at least 1 input key is needed for '%s' command"
	ErrZsetLimitNegative   = "ERR LIMIT can't be negative"                 // ZINTERCARD LIMIT
	ErrZsetNotPositive     = "ERR value is out of range, must be positive" // ZPOPMIN/ZPOPMAX count
	ErrZsetNumkeys         = "ERR numkeys should be greater than 0"        // ZMPOP
	ErrZsetCountPositive   = "ERR count should be greater than 0"          // ZMPOP COUNT
	ErrZsetRandCountRange  = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	ErrZsetRandScoresRange = "ERR value is out of range" // ZRANDMEMBER WITHSCORES with |count| > 2^62-1
)

// List family: error texts of cmd_list.go and blocking.go, checked against
// redis-server 7.0.15.
const (
	ErrListIndexRange = "ERR index out of range" // LSET
	// ErrListPositive: LPOP/RPOP count not an integer >= 0.
	ErrListPositive       = "ERR value is out of range, must be positive"
	ErrListRankZero       = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	ErrListCountNegative  = "ERR COUNT can't be negative"  // LPOS COUNT
	ErrListMaxLenNegative = "ERR MAXLEN can't be negative" // LPOS MAXLEN
	ErrListNumkeys        = "ERR numkeys should be greater than 0"
	ErrListCount          = "ERR count should be greater than 0" // LMPOP COUNT
	// Blocking commands' timeouts (lists and sorted sets).
	ErrTimeoutNotFloat = "ERR timeout is not a float or out of range"
	ErrTimeoutNegative = "ERR timeout is negative"
)

// Sort family
const (
	// ErrSortNotDouble: SORT without ALPHA met a weight strtod refuses.
	ErrSortNotDouble = "ERR One or more scores can't be converted into double"
)

// Connection refusals.
const (
	// ErrDeniedProtected is written, with "-" and CRLF, to a client protected
	// mode refuses (internal/protect), before the connection is closed:
	// redis-server 7.0.15's text, clientAcceptHandler in src/networking.c,
	// byte for byte ("Setup a an" included).
	ErrDeniedProtected = "DENIED Redis is running in protected mode because protected " +
		"mode is enabled and no password is set for the default user. " +
		"In this mode connections are only accepted from the loopback interface. " +
		"If you want to connect from external computers to Redis you " +
		"may adopt one of the following solutions: " +
		"1) Just disable protected mode sending the command " +
		"'CONFIG SET protected-mode no' from the loopback interface " +
		"by connecting to Redis from the same host the server is " +
		"running, however MAKE SURE Redis is not publicly accessible " +
		"from internet if you do so. Use CONFIG REWRITE to make this " +
		"change permanent. " +
		"2) Alternatively you can just disable the protected mode by " +
		"editing the Redis configuration file, and setting the protected " +
		"mode option to 'no', and then restarting the server. " +
		"3) If you started the server manually just for testing, restart " +
		"it with the '--protected-mode no' option. " +
		"4) Setup a an authentication password for the default user. " +
		"NOTE: You only need to do one of the above things in order for " +
		"the server to start accepting connections from the outside."
)
