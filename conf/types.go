package conf

import "strings"

// SaveRule is one "save <seconds> <changes>" rule: snapshot when at least
// Changes writes happened in the last Seconds seconds.
type SaveRule struct {
	Seconds int64
	Changes int64
}

// BindAddr is one bind address. Optional is redis's "-" prefix ("-::1"):
// failing to listen on it is not fatal (e.g. no IPv6 on the host).
type BindAddr struct {
	Host     string
	Optional bool
}

// ClientClass selects a client-output-buffer-limit class.
type ClientClass int

// The classes of client-output-buffer-limit, in redis's order.
const (
	ClientNormal  ClientClass = iota // ordinary clients
	ClientReplica                    // "slave" (alias "replica"); kept for compatibility
	ClientPubSub                     // clients subscribed to a channel or pattern
	numClientClasses
)

var clientClassNames = [numClientClasses]string{"normal", "slave", "pubsub"}

// BufferLimit is one client-output-buffer-limit class: a client whose pending
// output exceeds Hard bytes, or stays above Soft bytes for SoftSeconds
// seconds, is disconnected. Zero disables a limit.
type BufferLimit struct {
	Hard        int64
	Soft        int64
	SoftSeconds int64
}

// MaxMemoryPolicy is maxmemory-policy. The order is redis's enum order, which
// is also the order its error message lists them, then Tandem's own
// allkeys-s3fifo, the default (engine/evict.go).
type MaxMemoryPolicy int

// Eviction policies.
const (
	VolatileLRU MaxMemoryPolicy = iota
	VolatileLFU
	VolatileRandom
	VolatileTTL
	AllKeysLRU
	AllKeysLFU
	AllKeysRandom
	NoEviction
	AllKeysS3FIFO
)

var policyNames = []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
	"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction", "allkeys-s3fifo"}

func (p MaxMemoryPolicy) String() string { return enumName(policyNames, int(p)) }

// LogLevel is loglevel.
type LogLevel int

// Log levels, most verbose first (a message is logged when its level >= the
// configured one).
const (
	LogDebug LogLevel = iota
	LogVerbose
	LogNotice
	LogWarning
)

var logLevelNames = []string{"debug", "verbose", "notice", "warning"}

func (l LogLevel) String() string { return enumName(logLevelNames, int(l)) }

// LogFormat is log-format: how log records are written.
type LogFormat int

// Log formats.
const (
	LogText LogFormat = iota // slog's text handler: key=value
	LogJSON                  // one JSON object a line
)

var logFormatNames = []string{"text", "json"}

func (f LogFormat) String() string { return enumName(logFormatNames, int(f)) }

// Compression is Tandem's value compression algorithm.
type Compression int

// Compression algorithms.
const (
	CompressionNone Compression = iota
	CompressionS2
	CompressionZstd
)

var compressionNames = []string{"none", "s2", "zstd"}

func (c Compression) String() string { return enumName(compressionNames, int(c)) }

// BindingProtocol is what the memcached port speaks (memcached -B).
type BindingProtocol int

// Binding protocols.
const (
	BindAuto   BindingProtocol = iota // text or binary, by a connection's first byte
	BindASCII                         // text and meta only
	BindBinary                        // binary only
)

var bindingProtocolNames = []string{"auto", "ascii", "binary"}

func (b BindingProtocol) String() string { return enumName(bindingProtocolNames, int(b)) }

// ProtectedAction is the value of enable-debug-command and
// enable-protected-configs: never, always, or only for local clients
// (loopback or unix socket).
type ProtectedAction int

// Protected action settings.
const (
	ProtectedNo ProtectedAction = iota
	ProtectedYes
	ProtectedLocal
)

var protectedNames = []string{"no", "yes", "local"}

func (p ProtectedAction) String() string { return enumName(protectedNames, int(p)) }

// Allows reports whether a client (local: connected over loopback or a unix
// socket) may perform the protected action.
func (p ProtectedAction) Allows(local bool) bool {
	return p == ProtectedYes || p == ProtectedLocal && local
}

// NotifyFlags is notify-keyspace-events as a bit set; the values are redis's
// NOTIFY_* bits.
type NotifyFlags uint32

// Keyspace notification classes.
const (
	NotifyKeyspace NotifyFlags = 1 << 0  // K
	NotifyKeyevent NotifyFlags = 1 << 1  // E
	NotifyGeneric  NotifyFlags = 1 << 2  // g
	NotifyString   NotifyFlags = 1 << 3  // $
	NotifyList     NotifyFlags = 1 << 4  // l
	NotifySet      NotifyFlags = 1 << 5  // s
	NotifyHash     NotifyFlags = 1 << 6  // h
	NotifyZset     NotifyFlags = 1 << 7  // z
	NotifyExpired  NotifyFlags = 1 << 8  // x
	NotifyEvicted  NotifyFlags = 1 << 9  // e
	NotifyStream   NotifyFlags = 1 << 10 // t
	NotifyKeyMiss  NotifyFlags = 1 << 11 // m
	NotifyModule   NotifyFlags = 1 << 13 // d
	NotifyNew      NotifyFlags = 1 << 14 // n
	// NotifyAll is "A": every class except key-miss and new.
	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash |
		NotifyZset | NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule
)

// Origin tells where a directive's current value came from.
type Origin int

// Origins, in precedence order at start-up.
const (
	FromDefault Origin = iota
	FromFile
	FromEnv
	FromFlag
	FromConfigSet
)

func (o Origin) String() string {
	return enumName([]string{"default", "file", "environment", "flag", "config-set"}, int(o))
}

func enumName(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return "unknown"
	}
	return names[i]
}

// enumIndex finds name case-insensitively, as redis configEnumGetValue.
func enumIndex(names []string, name string) (int, bool) {
	for i, n := range names {
		if strings.EqualFold(n, name) {
			return i, true
		}
	}
	return 0, false
}
