package conf

import (
	"fmt"
	"math"
	"strings"
)

// kind says how a directive's value is parsed, stored and shown.
type kind uint8

const (
	kindInt     kind = iota // decimal integer (redis string2ll), stored in num
	kindMemory              // byte count with units (redis memtoull), stored in num, shown in bytes
	kindBool                // yes/no, stored in num as 0/1
	kindEnum                // one of enum, stored in num as its index
	kindString              // stored in str
	kindSpecial             // own parse/format functions (save, bind, ...)
)

// flag holds a directive's properties.
type flag uint8

const (
	mutable   flag = 1 << iota // CONFIG SET may change it
	protected                  // CONFIG SET only where enable-protected-configs allows
	multiArg                   // the value is several words (save 3600 1 300 100)
	volatile                   // a CONFIG SET of it runs its applier even when the value is unchanged (a file may have changed; OnApply)
)

// directive describes one configuration directive. The table below is the
// single place that knows about directives: loading, CONFIG GET/SET,
// environment names and defaults are all derived from it.
type directive struct {
	name  string
	alias string // a second accepted name (redis keeps old names as aliases)
	kind  kind
	flags flag
	def   string // default, written as in a config file; parsed by Default()

	min, max int64    // bounds of kindInt and kindMemory
	enum     []string // values of kindEnum, in the order redis lists them

	check    func(n int64) string  // extra check of a parsed number/bool/enum; returns a reason or ""
	checkStr func(s string) string // extra check of a kindString value
	adjust   func(n int64) int64   // silent normalisation after a set (hz is clamped, as redis)

	set func(s *snapshot, args []string, layer *layerState) string // kindSpecial: parse args into s; returns a reason or ""
	get func(s *snapshot) string                                   // kindSpecial: CONFIG GET form
}

func (d *directive) is(f flag) bool { return d.flags&f != 0 }

// Directive identifiers: indexes into the table, used by the typed getters.
const (
	dPort = iota
	dBind
	dMemcachedPort
	dProtectedMode
	dDatabases
	dMaxClients
	dTimeout
	dTCPKeepAlive
	dTCPBacklog
	dRequirePass
	dMaxMemory
	dMaxMemoryPolicy
	dMaxMemorySamples
	dMaxMemoryEvictionTenacity
	dLFULogFactor
	dLFUDecayTime
	dActiveExpireEffort
	dSave
	dDir
	dDBFilename
	dRDBCompression
	dRDBChecksum
	dRDBSaveIncrementalFsync
	dStopWritesOnBgsaveError
	dAppendOnly
	dLogLevel
	dLogFile
	dPidFile
	dDaemonize
	dProtoMaxBulkLen
	dClientQueryBufferLimit
	dHz
	dDynamicHz
	dIOThreads
	dItemSizeMax
	dMemcachedMaxLine
	dMemcachedMaxPendingOutput
	dMemcachedEnableShutdown
	dMemcachedDisableFlushAll
	dStartEmptyOnBadDump
	dCompression
	dCompressionMinSize
	dCompressionMinSaving
	dLazyfreeLazyEviction
	dLazyfreeLazyExpire
	dLazyfreeLazyServerDel
	dLazyfreeLazyUserDel
	dLazyfreeLazyUserFlush
	dHashMaxListpackEntries
	dHashMaxListpackValue
	dSetMaxIntsetEntries
	dSetMaxListpackEntries
	dSetMaxListpackValue
	dZsetMaxListpackEntries
	dZsetMaxListpackValue
	dListMaxListpackSize
	dListCompressDepth
	dNotifyKeyspaceEvents
	dBusyReplyThreshold
	dSlowlogLogSlowerThan
	dSlowlogMaxLen
	dACLLogMaxLen
	dACLPubsubDefault
	dLatencyTracking
	dLatencyMonitorThreshold
	dClientOutputBufferLimit
	dShutdownTimeout
	dEnableDebugCommand
	dEnableProtectedConfigs
	dTLSPort
	dMemcachedTLSPort
	dTLSCertFile
	dTLSKeyFile
	dTLSCACertFile
	dTLSCACertDir
	dTLSAuthClients
	dTLSProtocols
	dTLSCiphersuites
	dTLSCiphers
	dTLSPreferServerCiphers
	dTLSKeyFilePass
	dTLSClientCertFile
	dTLSClientKeyFile
	dTLSClientKeyFilePass
	dTLSDHParamsFile
	dTLSSessionCaching
	dTLSSessionCacheSize
	dTLSSessionCacheTimeout
	dTLSReplication
	dTLSCluster
	numDirectives
)

// Bounds as redis declares them (C int, unsigned int, long).
const (
	intMax  = math.MaxInt32
	intMin  = math.MinInt32
	uintMax = math.MaxUint32
	longMax = math.MaxInt64
)

// table lists every directive with redis's name, bounds and default unless a
// comment says Tandem differs. Its order is the order CONFIG GET * replies in.
var table = [numDirectives]directive{
	// Network. Tandem cannot move a listening socket at run time, so port,
	// bind and memcached-port are immutable (redis can rebind port and bind).
	dPort:          {name: "port", kind: kindInt, def: "6379", min: 0, max: 65535},
	dBind:          {name: "bind", kind: kindSpecial, flags: multiArg, def: "127.0.0.1", set: setBind, get: getBind},
	dMemcachedPort: {name: "memcached-port", kind: kindInt, def: "11211", min: 0, max: 65535}, // Tandem; 0 disables
	dProtectedMode: {name: "protected-mode", kind: kindBool, flags: mutable, def: "yes"},
	dDatabases:     {name: "databases", kind: kindInt, def: "16", min: 1, max: intMax},
	dMaxClients:    {name: "maxclients", kind: kindInt, flags: mutable, def: "10000", min: 1, max: uintMax},
	dTimeout:       {name: "timeout", kind: kindInt, flags: mutable, def: "0", min: 0, max: intMax},
	dTCPKeepAlive:  {name: "tcp-keepalive", kind: kindInt, flags: mutable, def: "300", min: 0, max: intMax},
	dTCPBacklog:    {name: "tcp-backlog", kind: kindInt, def: "511", min: 0, max: intMax},
	dRequirePass:   {name: "requirepass", kind: kindString, flags: mutable, def: ""},

	// Memory and eviction. maxmemory 0 means "not configured": cmd/tandem
	// derives a safe share of the memory available (see Origin).
	dMaxMemory:                 {name: "maxmemory", kind: kindMemory, flags: mutable, def: "0", min: 0, max: longMax},
	dMaxMemoryPolicy:           {name: "maxmemory-policy", kind: kindEnum, flags: mutable, def: "allkeys-s3fifo", enum: policyNames},
	dMaxMemorySamples:          {name: "maxmemory-samples", kind: kindInt, flags: mutable, def: "5", min: 1, max: intMax},
	dMaxMemoryEvictionTenacity: {name: "maxmemory-eviction-tenacity", kind: kindInt, flags: mutable, def: "10", min: 0, max: 100},
	dLFULogFactor:              {name: "lfu-log-factor", kind: kindInt, flags: mutable, def: "10", min: 0, max: intMax},
	dLFUDecayTime:              {name: "lfu-decay-time", kind: kindInt, flags: mutable, def: "1", min: 0, max: intMax},
	dActiveExpireEffort:        {name: "active-expire-effort", kind: kindInt, flags: mutable, def: "1", min: 1, max: 10},

	// Snapshots. Tandem's defaults: save rules of redis.conf, data in ./data.
	// dir does not chdir (redis does); the snapshot package resolves it.
	dSave:                    {name: "save", kind: kindSpecial, flags: mutable | multiArg, def: "3600 1 300 100 60 10000", set: setSave, get: getSave},
	dDir:                     {name: "dir", kind: kindString, flags: mutable | protected, def: "./data", checkStr: checkDir},
	dDBFilename:              {name: "dbfilename", kind: kindString, flags: mutable | protected, def: "dump.rdb", checkStr: checkDBFilename},
	dRDBCompression:          {name: "rdbcompression", kind: kindBool, flags: mutable, def: "yes"},
	dRDBChecksum:             {name: "rdbchecksum", kind: kindBool, def: "yes"},
	dRDBSaveIncrementalFsync: {name: "rdb-save-incremental-fsync", kind: kindBool, def: "yes"},
	dStopWritesOnBgsaveError: {name: "stop-writes-on-bgsave-error", kind: kindBool, flags: mutable, def: "yes"},
	dAppendOnly:              {name: "appendonly", kind: kindBool, flags: mutable, def: "no", check: onlyNo(reasonAppendOnly)},

	// Process.
	dLogLevel:  {name: "loglevel", kind: kindEnum, flags: mutable, def: "notice", enum: logLevelNames},
	dLogFile:   {name: "logfile", kind: kindString, def: ""},
	dPidFile:   {name: "pidfile", kind: kindString, def: ""},
	dDaemonize: {name: "daemonize", kind: kindBool, def: "no", check: onlyNo(reasonDaemonize)},

	// Protocol limits.
	dProtoMaxBulkLen:        {name: "proto-max-bulk-len", kind: kindMemory, flags: mutable, def: "512mb", min: 1 << 20, max: longMax},
	dClientQueryBufferLimit: {name: "client-query-buffer-limit", kind: kindMemory, flags: mutable, def: "1gb", min: 1 << 20, max: longMax},
	dHz:                     {name: "hz", kind: kindInt, flags: mutable, def: "10", min: 0, max: intMax, adjust: clampHz},
	dDynamicHz:              {name: "dynamic-hz", kind: kindBool, flags: mutable, def: "yes"},
	dIOThreads:              {name: "io-threads", kind: kindInt, def: "1", min: 1, max: 128}, // accepted, ignored: gnet has its own loops

	// memcached front-end (Tandem). item-size-max is memcached -I: 1mb is
	// 1048576 bytes as in memcached, bounds as memcached's (1k..1g).
	dItemSizeMax:      {name: "item-size-max", kind: kindMemory, flags: mutable, def: "1mb", min: 1 << 10, max: 1 << 30},
	dMemcachedMaxLine: {name: "memcached-max-line", kind: kindMemory, flags: mutable, def: "2048", min: 512, max: 1 << 20},
	// A memcached connection whose replies wait unread past this stops
	// being served until they drain (memcached stops reading such a
	// client); 0: no bound (memproto/pacing.go).
	dMemcachedMaxPendingOutput: {name: "memcached-max-pending-output", kind: kindMemory, flags: mutable, def: "4mb", min: 0, max: longMax},
	dMemcachedEnableShutdown:   {name: "memcached-enable-shutdown", kind: kindBool, def: "no"},   // memcached -A
	dMemcachedDisableFlushAll:  {name: "memcached-disable-flush-all", kind: kindBool, def: "no"}, // memcached -F
	// A dump that cannot be loaded refuses start-up unless this says to
	// set it aside and start empty.
	dStartEmptyOnBadDump: {name: "start-empty-on-bad-dump", kind: kindBool, def: "no"},

	// Value compression (Tandem).
	// A change applies to new writes; stored values keep their form.
	dCompression:          {name: "compression", kind: kindEnum, flags: mutable, def: "none", enum: compressionNames},
	dCompressionMinSize:   {name: "compression-min-size", kind: kindMemory, flags: mutable, def: "1kb", min: 0, max: longMax},
	dCompressionMinSaving: {name: "compression-min-saving", kind: kindInt, flags: mutable, def: "20", min: 0, max: 100},

	dLazyfreeLazyEviction:  {name: "lazyfree-lazy-eviction", kind: kindBool, flags: mutable, def: "no"},
	dLazyfreeLazyExpire:    {name: "lazyfree-lazy-expire", kind: kindBool, flags: mutable, def: "no"},
	dLazyfreeLazyServerDel: {name: "lazyfree-lazy-server-del", kind: kindBool, flags: mutable, def: "no"},
	dLazyfreeLazyUserDel:   {name: "lazyfree-lazy-user-del", kind: kindBool, flags: mutable, def: "no"},
	dLazyfreeLazyUserFlush: {name: "lazyfree-lazy-user-flush", kind: kindBool, flags: mutable, def: "no"},

	// Compact encodings. Redis 7.0 names and defaults (hash entries: 512);
	// set-max-listpack-* are redis 7.2's.
	dHashMaxListpackEntries: {name: "hash-max-listpack-entries", alias: "hash-max-ziplist-entries", kind: kindInt, flags: mutable, def: "512", min: 0, max: longMax},
	dHashMaxListpackValue:   {name: "hash-max-listpack-value", alias: "hash-max-ziplist-value", kind: kindMemory, flags: mutable, def: "64", min: 0, max: longMax},
	dSetMaxIntsetEntries:    {name: "set-max-intset-entries", kind: kindInt, flags: mutable, def: "512", min: 0, max: longMax},
	dSetMaxListpackEntries:  {name: "set-max-listpack-entries", kind: kindInt, flags: mutable, def: "128", min: 0, max: longMax},
	dSetMaxListpackValue:    {name: "set-max-listpack-value", kind: kindMemory, flags: mutable, def: "64", min: 0, max: longMax},
	dZsetMaxListpackEntries: {name: "zset-max-listpack-entries", alias: "zset-max-ziplist-entries", kind: kindInt, flags: mutable, def: "128", min: 0, max: longMax},
	dZsetMaxListpackValue:   {name: "zset-max-listpack-value", alias: "zset-max-ziplist-value", kind: kindMemory, flags: mutable, def: "64", min: 0, max: longMax},
	dListMaxListpackSize:    {name: "list-max-listpack-size", alias: "list-max-ziplist-size", kind: kindInt, flags: mutable, def: "-2", min: intMin, max: intMax},
	dListCompressDepth:      {name: "list-compress-depth", kind: kindInt, flags: mutable, def: "0", min: 0, max: intMax},

	// Observability.
	dNotifyKeyspaceEvents:    {name: "notify-keyspace-events", kind: kindSpecial, flags: mutable, def: "", set: setNotify, get: getNotify},
	dBusyReplyThreshold:      {name: "busy-reply-threshold", alias: "lua-time-limit", kind: kindInt, flags: mutable, def: "5000", min: 0, max: longMax},
	dSlowlogLogSlowerThan:    {name: "slowlog-log-slower-than", kind: kindInt, flags: mutable, def: "10000", min: -1, max: longMax},
	dSlowlogMaxLen:           {name: "slowlog-max-len", kind: kindInt, flags: mutable, def: "128", min: 0, max: longMax},
	dACLLogMaxLen:            {name: "acllog-max-len", kind: kindInt, flags: mutable, def: "128", min: 0, max: longMax}, // acl.go
	dACLPubsubDefault:        {name: "acl-pubsub-default", kind: kindEnum, flags: mutable, def: "resetchannels", enum: aclPubsubNames},
	dLatencyTracking:         {name: "latency-tracking", kind: kindBool, flags: mutable, def: "yes"},
	dLatencyMonitorThreshold: {name: "latency-monitor-threshold", kind: kindInt, flags: mutable, def: "0", min: 0, max: longMax},

	dClientOutputBufferLimit: {name: "client-output-buffer-limit", kind: kindSpecial, flags: mutable | multiArg,
		def: "normal 0 0 0 slave 256mb 64mb 60 pubsub 32mb 8mb 60", set: setOutputBufferLimit, get: getOutputBufferLimit},
	dShutdownTimeout:        {name: "shutdown-timeout", kind: kindInt, flags: mutable, def: "10", min: 0, max: intMax},
	dEnableDebugCommand:     {name: "enable-debug-command", kind: kindEnum, def: "no", enum: protectedNames},
	dEnableProtectedConfigs: {name: "enable-protected-configs", kind: kindEnum, def: "no", enum: protectedNames},

	// TLS (tls.go). The ports are immutable as the plain ones; the files
	// and policies may change at run time and apply to new connections.
	// The file names are volatile as in Redis: setting one to the same
	// path reloads it.
	dTLSPort:                {name: "tls-port", kind: kindInt, def: "0", min: 0, max: 65535},
	dMemcachedTLSPort:       {name: "memcached-tls-port", kind: kindInt, def: "0", min: 0, max: 65535}, // Tandem; 0 disables
	dTLSCertFile:            {name: "tls-cert-file", kind: kindString, flags: mutable | volatile, def: ""},
	dTLSKeyFile:             {name: "tls-key-file", kind: kindString, flags: mutable | volatile, def: ""},
	dTLSCACertFile:          {name: "tls-ca-cert-file", kind: kindString, flags: mutable | volatile, def: ""},
	dTLSCACertDir:           {name: "tls-ca-cert-dir", kind: kindString, flags: mutable | volatile, def: ""},
	dTLSAuthClients:         {name: "tls-auth-clients", kind: kindEnum, flags: mutable, def: "yes", enum: tlsAuthNames},
	dTLSProtocols:           {name: "tls-protocols", kind: kindString, flags: mutable, def: "", checkStr: checkTLSProtocols},
	dTLSCiphersuites:        {name: "tls-ciphersuites", kind: kindString, flags: mutable, def: "", checkStr: checkTLSCiphersuites},
	dTLSCiphers:             {name: "tls-ciphers", kind: kindString, flags: mutable, def: "", checkStr: checkTLSCiphers},
	dTLSPreferServerCiphers: {name: "tls-prefer-server-ciphers", kind: kindBool, flags: mutable, def: "no"},
	dTLSKeyFilePass:         {name: "tls-key-file-pass", kind: kindString, flags: mutable, def: ""},
	dTLSClientCertFile:      {name: "tls-client-cert-file", kind: kindString, flags: mutable | volatile, def: ""},
	dTLSClientKeyFile:       {name: "tls-client-key-file", kind: kindString, flags: mutable | volatile, def: ""},
	dTLSClientKeyFilePass:   {name: "tls-client-key-file-pass", kind: kindString, flags: mutable, def: ""},
	dTLSDHParamsFile:        {name: "tls-dh-params-file", kind: kindString, flags: mutable | volatile, def: ""},
	dTLSSessionCaching:      {name: "tls-session-caching", kind: kindBool, flags: mutable, def: "yes"},
	dTLSSessionCacheSize:    {name: "tls-session-cache-size", kind: kindInt, flags: mutable, def: "20480", min: 0, max: intMax},
	dTLSSessionCacheTimeout: {name: "tls-session-cache-timeout", kind: kindInt, flags: mutable, def: "300", min: 0, max: intMax},
	dTLSReplication:         {name: "tls-replication", kind: kindBool, flags: mutable, def: "no"},
	dTLSCluster:             {name: "tls-cluster", kind: kindBool, flags: mutable, def: "no"},
}

// byName maps every lower-case name and alias to its directive id.
var byName = func() map[string]int {
	m := make(map[string]int, 2*numDirectives)
	for id := range table {
		m[table[id].name] = id
		if a := table[id].alias; a != "" {
			m[a] = id
		}
	}
	return m
}()

// lookup finds a directive by name or alias, case-insensitively, and returns
// the canonical spelling of the name used (the alias when an alias was used,
// as redis reports it).
func lookup(name string) (id int, spelled string, ok bool) {
	l := strings.ToLower(name)
	id, ok = byName[l]
	return id, l, ok
}

func onlyNo(reason string) func(int64) string {
	return func(n int64) string {
		if n != 0 {
			return reason
		}
		return ""
	}
}

// clampHz caps hz to redis's CONFIG_MIN_HZ..CONFIG_MAX_HZ: the value is a
// hint, so out-of-range values are accepted and clamped, not refused.
func clampHz(n int64) int64 {
	return min(max(n, 1), 500)
}

func checkDir(s string) string {
	if s == "" {
		return reasonDirEmpty
	}
	return ""
}

func checkDBFilename(s string) string {
	if strings.ContainsAny(s, "/\\") {
		return reasonDBFilename
	}
	return ""
}

// apply parses args (already split: one word unless multiArg) into s.
// It returns the reason text when the value is refused; s may then hold a
// partial change and must be discarded by the caller.
func (d *directive) apply(s *snapshot, id int, args []string, layer *layerState) string {
	if d.kind == kindSpecial {
		return d.set(s, args, layer)
	}
	v := args[0]
	var n int64
	switch d.kind {
	case kindString:
		if d.checkStr != nil {
			if r := d.checkStr(v); r != "" {
				return r
			}
		}
		s.str[id] = v
		return ""
	case kindInt, kindMemory:
		var ok bool
		if d.kind == kindInt {
			n, ok = parseInteger(v)
		} else {
			n, ok = parseMemory(v)
		}
		if !ok {
			if d.kind == kindInt {
				return reasonInteger
			}
			return reasonMemory
		}
		if n < d.min || n > d.max {
			return fmt.Sprintf(reasonRange, d.min, d.max)
		}
	case kindBool:
		switch {
		case strings.EqualFold(v, "yes"):
			n = 1
		case strings.EqualFold(v, "no"):
			n = 0
		default:
			return reasonBool
		}
	case kindEnum:
		i, ok := enumIndex(d.enum, v)
		if !ok {
			return fmt.Sprintf(reasonEnum, strings.Join(d.enum, ", "))
		}
		n = int64(i)
	}
	if d.check != nil {
		if r := d.check(n); r != "" {
			return r
		}
	}
	if d.adjust != nil {
		n = d.adjust(n)
	}
	s.num[id] = n
	return ""
}

// format renders a directive's value as CONFIG GET shows it.
func (d *directive) format(s *snapshot, id int) string {
	switch d.kind {
	case kindString:
		return s.str[id]
	case kindBool:
		if s.num[id] != 0 {
			return "yes"
		}
		return "no"
	case kindEnum:
		return enumName(d.enum, int(s.num[id]))
	case kindSpecial:
		return d.get(s)
	default:
		return fmt.Sprint(s.num[id])
	}
}
