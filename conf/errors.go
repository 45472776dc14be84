package conf

// Reply and start-up error texts, copied from redis-server 7.0.15 (config.c,
// util.c, notify.c) and checked against a running server by
// TestRedisDifferential. A CONFIG SET error is the whole RESP error text: the
// front-end writes "-" + err.Error() + "\r\n".
const (
	errSyntax        = "ERR syntax error"
	errUnknownOption = "ERR Unknown option or number of arguments for CONFIG SET - '%s'"
	errSetFailed     = "ERR CONFIG SET failed (possibly related to argument '%s') - %s"
	ErrLoading       = "LOADING Redis is loading the dataset in memory" // the whole reply to a command, or a CONFIG SET of a denyLoading directive, while the data loads

	reasonImmutable        = "can't set immutable config"
	reasonProtected        = "can't set protected config"
	reasonDuplicate        = "duplicate parameter"
	reasonMemory           = "argument must be a memory value"
	reasonMemoryPercent    = "argument must be a memory or percent value"
	reasonPercentRange     = "percentage argument must be less or equal to %d"
	reasonOctal            = "argument couldn't be parsed as an octal number"
	reasonOctalRange       = "argument must be between %o and %o inclusive"
	reasonInteger          = "argument couldn't be parsed into an integer"
	reasonBool             = "argument must be 'yes' or 'no'"
	reasonRange            = "argument must be between %d and %d inclusive"
	reasonEnum             = "argument(s) must be one of the following: %s"
	reasonSave             = "Invalid save parameters"
	reasonObufArgs         = "Wrong number of arguments in buffer limit configuration."
	reasonObufClass        = "Invalid client class specified in buffer limit configuration."
	reasonObufValue        = "Error in hard, soft or soft_seconds setting in buffer limit configuration."
	reasonNotify           = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
	reasonWrongArgs        = "wrong number of arguments"
	reasonBadDirective     = "Bad directive or wrong number of arguments"
	reasonUnbalanced       = "Unbalanced quotes in configuration line"
	reasonTooManyBind      = "Too many bind addresses specified."
	reasonDBFilename       = "dbfilename can't be a path, just a filename"
	reasonDirEmpty         = "No such file or directory"
	reasonSentinelLine     = "sentinel directive while not in sentinel mode"
	reasonOOMValues        = "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
	reasonPercentiles      = "Invalid latency-tracking-info-percentiles parameters"
	reasonPercentilesRange = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
	reasonMasterPort       = "Invalid master port"
	reasonShutdownFlags    = "shutdown options SAVE and NOSAVE can't be used simultaneously"
	reasonProcTitle        = "template format is invalid or contains unknown variables"
	reasonHostnameLength   = "Hostnames must be less than 256 characters"
	reasonHostnameChars    = "Hostnames may only contain alphanumeric characters, hyphens or dots"
	// As a redis-server built without its own jemalloc (Debian's) refuses
	// activedefrag yes; Tandem has no defragmenter either.
	reasonActiveDefrag = "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"
	reasonLogFile      = "Can't open the log file: %s"

	// Tandem's own reasons, in the same style.
	reasonUnixSocket   = "unix sockets are not supported by Tandem"
	reasonCluster      = "cluster mode is not supported by Tandem"
	reasonNoListener   = "bind lists no address: Tandem would not listen anywhere"
	reasonSamePorts    = "port and memcached-port must differ"
	reasonMetricsPort  = "metrics-port must differ from port, memcached-port, tls-port and memcached-tls-port"
	reasonIncludeDepth = "include nested too deeply (an include loop?)"
	reasonConfigTwice  = "the configuration file is given twice (positional argument and --config)"
	reasonConfigArgs   = "--config takes exactly one file name"
	reasonFlagNoName   = "expected a --directive, got a bare argument"
)

// fatalHeader starts every start-up error, as redis-server's loadServerConfig
// does (without the version, which belongs to the binary, not to conf).
const fatalHeader = "*** FATAL CONFIG FILE ERROR ***"
