package conf

import (
	"fmt"
	"math"
	"strconv"
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
	kindOctal               // octal integer (redis OCTAL_CONFIG: strtoll base 8), stored in num, shown in octal
	kindFlags               // one or more words of enum (redis MULTI_ARG enum), stored in num as the OR of their vals
)

// flag holds a directive's properties.
type flag uint8

const (
	mutable     flag = 1 << iota // CONFIG SET may change it
	protected                    // CONFIG SET only where enable-protected-configs allows
	multiArg                     // the value is several words (save 3600 1 300 100)
	volatile                     // a CONFIG SET of it runs its applier even when the value is unchanged (a file may have changed; OnApply)
	percent                      // kindMemory that also takes "N%" (redis PERCENT_CONFIG), stored as -N
	hidden                       // a test knob CONFIG GET matches by its exact name only, never by pattern (redis HIDDEN_CONFIG)
	denyLoading                  // CONFIG SET refuses it while the data loads at start (redis DENY_LOADING_CONFIG)
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

	min, max int64    // bounds of kindInt, kindMemory and kindOctal
	enum     []string // values of kindEnum and kindFlags, in the order redis lists them
	vals     []int64  // the value of each enum name when it is not its index (names may share one)

	// inert says why the directive has no effect in Tandem. The value is
	// still parsed, checked, shown and set as redis does; a start-up value
	// other than the default is reported once by Config.Warnings.
	inert string

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
	dRDBKeySaveDelay
	dKeyLoadDelay
	dLoadingProcessEventsIntervalBytes
	dStopWritesOnBgsaveError
	dAppendOnly
	dLogLevel
	dLogFile
	dLogFormat
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
	dMemcachedDisableWatch
	dMemcachedWatcherLogbufSize
	dMemcachedBindingProtocol
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

	// Redis 7.0 directives Tandem accepts with no effect (inert), refuses
	// some values of, or implements outside the groups above.
	dACLFile
	dUnixSocket
	dUnixSocketPerm
	dSocketMarkID
	dBindSourceAddr
	dSupervised
	dAlwaysShowLogo
	dSetProcTitle
	dProcTitleTemplate
	dSyslogEnabled
	dSyslogIdent
	dSyslogFacility
	dCrashLogEnabled
	dCrashMemcheckEnabled
	dDisableTHP
	dOOMScoreAdj
	dOOMScoreAdjValues
	dJemallocBgThread
	dServerCPUList
	dBioCPUList
	dAOFRewriteCPUList
	dBgsaveCPUList
	dIOThreadsDoReads
	dIgnoreWarnings
	dEnableModuleCommand
	dShutdownOnSigint
	dShutdownOnSigterm
	dActiveRehashing
	dActiveDefrag
	dActiveDefragCycleMin
	dActiveDefragCycleMax
	dActiveDefragThresholdLower
	dActiveDefragThresholdUpper
	dActiveDefragIgnoreBytes
	dActiveDefragMaxScanFields
	dMaxMemoryClients
	dHLLSparseMaxBytes
	dStreamNodeMaxBytes
	dStreamNodeMaxEntries
	dTrackingTableMaxKeys
	dSanitizeDumpPayload
	dLatencyTrackingInfoPercentiles
	dAppendFsync
	dAppendFilename
	dAppendDirname
	dNoAppendFsyncOnRewrite
	dAutoAOFRewritePercentage
	dAutoAOFRewriteMinSize
	dAOFLoadTruncated
	dAOFUseRDBPreamble
	dAOFTimestampEnabled
	dAOFRewriteIncrementalFsync
	dAOFDisableAutoGC
	dReplicaOf
	dMasterAuth
	dMasterUser
	dReplicaServeStaleData
	dReplicaReadOnly
	dReplicaLazyFlush
	dReplicaIgnoreMaxmemory
	dReplicaIgnoreDiskWriteErrors
	dReplicaPriority
	dReplicaAnnounced
	dReplicaAnnounceIP
	dReplicaAnnouncePort
	dReplDisklessSync
	dReplDisklessSyncDelay
	dReplDisklessSyncMaxReplicas
	dReplDisklessLoad
	dReplDisableTCPNodelay
	dReplPingReplicaPeriod
	dReplTimeout
	dReplBacklogSize
	dReplBacklogTTL
	dRDBDelSyncFiles
	dMinReplicasToWrite
	dMinReplicasMaxLag
	dPropagationErrorBehavior
	dClusterEnabled
	dClusterConfigFile
	dClusterPort
	dClusterNodeTimeout
	dClusterAnnounceIP
	dClusterAnnounceHostname
	dClusterAnnouncePort
	dClusterAnnounceBusPort
	dClusterAnnounceTLSPort
	dClusterPreferredEndpointType
	dClusterRequireFullCoverage
	dClusterReplicaNoFailover
	dClusterReplicaValidityFactor
	dClusterMigrationBarrier
	dClusterAllowReplicaMigration
	dClusterAllowReadsWhenDown
	dClusterAllowPubsubshardWhenDown
	dClusterLinkSendbufLimit
	dMetricsPort
	dMetricsBind
	dMetricsPassword
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
	dTCPKeepAlive:  {name: "tcp-keepalive", kind: kindInt, flags: mutable, def: "300", min: 0, max: intMax, inert: inertKeepAlive},
	dTCPBacklog:    {name: "tcp-backlog", kind: kindInt, def: "511", min: 0, max: intMax, inert: inertBacklog},
	dRequirePass:   {name: "requirepass", kind: kindString, flags: mutable, def: ""},

	// Memory and eviction. maxmemory 0 means "not configured": cmd/tandem
	// derives a safe share of the memory available (see Origin).
	dMaxMemory:                 {name: "maxmemory", kind: kindMemory, flags: mutable, def: "0", min: 0, max: longMax},
	dMaxMemoryPolicy:           {name: "maxmemory-policy", kind: kindEnum, flags: mutable, def: "allkeys-s3fifo", enum: policyNames},
	dMaxMemorySamples:          {name: "maxmemory-samples", kind: kindInt, flags: mutable, def: "5", min: 1, max: intMax},
	dMaxMemoryEvictionTenacity: {name: "maxmemory-eviction-tenacity", kind: kindInt, flags: mutable, def: "10", min: 0, max: 100, inert: inertTenacity},
	dLFULogFactor:              {name: "lfu-log-factor", kind: kindInt, flags: mutable, def: "10", min: 0, max: intMax},
	dLFUDecayTime:              {name: "lfu-decay-time", kind: kindInt, flags: mutable, def: "1", min: 0, max: intMax},
	dActiveExpireEffort:        {name: "active-expire-effort", kind: kindInt, flags: mutable, def: "1", min: 1, max: 10, inert: inertExpireEffort},

	// Snapshots. Tandem's defaults: save rules of redis.conf, data in ./data.
	// dir does not chdir (redis does); the snapshot package resolves it.
	dSave:                    {name: "save", kind: kindSpecial, flags: mutable | multiArg, def: "3600 1 300 100 60 10000", set: setSave, get: getSave},
	dDir:                     {name: "dir", kind: kindString, flags: mutable | protected | denyLoading, def: "./data", checkStr: checkDir},
	dDBFilename:              {name: "dbfilename", kind: kindString, flags: mutable | protected, def: "dump.rdb", checkStr: checkDBFilename},
	dRDBCompression:          {name: "rdbcompression", kind: kindBool, flags: mutable, def: "yes"},
	dRDBChecksum:             {name: "rdbchecksum", kind: kindBool, def: "yes"},
	dRDBSaveIncrementalFsync: {name: "rdb-save-incremental-fsync", kind: kindBool, def: "yes"},
	// Test knobs of Redis's own test suite: microseconds slept per key
	// saved (dumps, AOF rewrites, full syncs) and per key or command
	// loaded; negative -N sleeps 1 µs once in N keys on average.
	dRDBKeySaveDelay: {name: "rdb-key-save-delay", kind: kindInt, flags: mutable | hidden, def: "0", min: intMin, max: intMax},
	dKeyLoadDelay:    {name: "key-load-delay", kind: kindInt, flags: mutable | hidden, def: "0", min: intMin, max: intMax},
	dLoadingProcessEventsIntervalBytes: {name: "loading-process-events-interval-bytes", kind: kindInt, flags: mutable | hidden, def: "2097152", min: 1024, max: intMax,
		inert: inertLoadingEvents},
	dStopWritesOnBgsaveError: {name: "stop-writes-on-bgsave-error", kind: kindBool, flags: mutable, def: "yes"},
	dAppendOnly:              {name: "appendonly", kind: kindBool, flags: mutable | denyLoading, def: "no"},

	// Process. pidfile is written by cmd/tandem at start and removed at exit.
	dLogLevel: {name: "loglevel", kind: kindEnum, flags: mutable, def: "notice", enum: logLevelNames},
	dLogFile:  {name: "logfile", kind: kindString, def: ""},
	// log-format (Tandem): records as slog's text (key=value) or JSON
	// lines; start-up only, as the handler is built once.
	dLogFormat: {name: "log-format", kind: kindEnum, def: "text", enum: logFormatNames},
	dPidFile:   {name: "pidfile", kind: kindString, def: ""},
	dDaemonize: {name: "daemonize", kind: kindBool, def: "no", inert: inertDaemonize},

	// Protocol limits.
	dProtoMaxBulkLen:        {name: "proto-max-bulk-len", kind: kindMemory, flags: mutable, def: "512mb", min: 1 << 20, max: longMax},
	dClientQueryBufferLimit: {name: "client-query-buffer-limit", kind: kindMemory, flags: mutable, def: "1gb", min: 1 << 20, max: longMax},
	dHz:                     {name: "hz", kind: kindInt, flags: mutable, def: "10", min: 0, max: intMax, adjust: clampHz},
	dDynamicHz:              {name: "dynamic-hz", kind: kindBool, flags: mutable, def: "yes", inert: inertDynamicHz},
	dIOThreads:              {name: "io-threads", kind: kindInt, def: "1", min: 1, max: 128, inert: inertThreads},

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
	dMemcachedDisableWatch:     {name: "memcached-disable-watch", kind: kindBool, def: "no"},     // memcached -W
	// memcached -o watcher_logbuf_size (its default, 256 KiB): each watch
	// connection's buffer of lines it has not read (package mclog).
	dMemcachedWatcherLogbufSize: {name: "memcached-watcher-logbuf-size", kind: kindMemory, def: "262144", min: 1 << 10, max: 1 << 30},
	// memcached -B: which protocols the memcached port speaks, decided per
	// connection by its first byte under auto; applies to new connections.
	dMemcachedBindingProtocol: {name: "memcached-binding-protocol", kind: kindEnum, flags: mutable, def: "auto", enum: bindingProtocolNames},
	// A dump that cannot be loaded refuses start-up unless this says to
	// set it aside and start empty.
	dStartEmptyOnBadDump: {name: "start-empty-on-bad-dump", kind: kindBool, def: "no"},

	// The Prometheus endpoint (Tandem; package metrics): /metrics and
	// /healthz on metrics-bind:metrics-port, 0 = off. Start-up only, as the
	// other listeners. metrics-password is the bearer token (or basic-auth
	// password) a scraper must give; node refuses to start a metrics port
	// on a non-loopback address without one while a password protects the
	// data ports (metrics.CheckExposure).
	dMetricsPort:     {name: "metrics-port", kind: kindInt, def: "0", min: 0, max: 65535},
	dMetricsBind:     {name: "metrics-bind", kind: kindString, def: "127.0.0.1"},
	dMetricsPassword: {name: "metrics-password", kind: kindString, def: ""},

	// Value compression (Tandem).
	// A change applies to new writes; stored values keep their form.
	dCompression:          {name: "compression", kind: kindEnum, flags: mutable, def: "none", enum: compressionNames},
	dCompressionMinSize:   {name: "compression-min-size", kind: kindMemory, flags: mutable, def: "1kb", min: 0, max: longMax},
	dCompressionMinSaving: {name: "compression-min-saving", kind: kindInt, flags: mutable, def: "20", min: 0, max: 100},

	dLazyfreeLazyEviction:  {name: "lazyfree-lazy-eviction", kind: kindBool, flags: mutable, def: "no", inert: inertLazyfree},
	dLazyfreeLazyExpire:    {name: "lazyfree-lazy-expire", kind: kindBool, flags: mutable, def: "no", inert: inertLazyfree},
	dLazyfreeLazyServerDel: {name: "lazyfree-lazy-server-del", kind: kindBool, flags: mutable, def: "no", inert: inertLazyfree},
	dLazyfreeLazyUserDel:   {name: "lazyfree-lazy-user-del", kind: kindBool, flags: mutable, def: "no", inert: inertLazyfree},
	dLazyfreeLazyUserFlush: {name: "lazyfree-lazy-user-flush", kind: kindBool, flags: mutable, def: "no", inert: inertLazyfree},

	// Compact encodings. Redis 7.0 names and defaults (hash entries: 512);
	// set-max-listpack-* are redis 7.2's.
	dHashMaxListpackEntries: {name: "hash-max-listpack-entries", alias: "hash-max-ziplist-entries", kind: kindInt, flags: mutable, def: "512", min: 0, max: longMax},
	dHashMaxListpackValue:   {name: "hash-max-listpack-value", alias: "hash-max-ziplist-value", kind: kindMemory, flags: mutable, def: "64", min: 0, max: longMax},
	dSetMaxIntsetEntries:    {name: "set-max-intset-entries", kind: kindInt, flags: mutable, def: "512", min: 0, max: longMax},
	dSetMaxListpackEntries:  {name: "set-max-listpack-entries", kind: kindInt, flags: mutable, def: "128", min: 0, max: longMax, inert: inertSetListpack},
	dSetMaxListpackValue:    {name: "set-max-listpack-value", kind: kindMemory, flags: mutable, def: "64", min: 0, max: longMax, inert: inertSetListpack},
	dZsetMaxListpackEntries: {name: "zset-max-listpack-entries", alias: "zset-max-ziplist-entries", kind: kindInt, flags: mutable, def: "128", min: 0, max: longMax},
	dZsetMaxListpackValue:   {name: "zset-max-listpack-value", alias: "zset-max-ziplist-value", kind: kindMemory, flags: mutable, def: "64", min: 0, max: longMax},
	dListMaxListpackSize:    {name: "list-max-listpack-size", alias: "list-max-ziplist-size", kind: kindInt, flags: mutable, def: "-2", min: intMin, max: intMax, inert: inertListSize},
	dListCompressDepth:      {name: "list-compress-depth", kind: kindInt, flags: mutable, def: "0", min: 0, max: intMax, inert: inertListCompress},

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
	dTLSPreferServerCiphers: {name: "tls-prefer-server-ciphers", kind: kindBool, flags: mutable, def: "no", inert: inertTLSPreferServer},
	dTLSKeyFilePass:         {name: "tls-key-file-pass", kind: kindString, flags: mutable, def: ""},
	dTLSClientCertFile:      {name: "tls-client-cert-file", kind: kindString, flags: mutable | volatile, def: "", inert: inertTLSClient},
	dTLSClientKeyFile:       {name: "tls-client-key-file", kind: kindString, flags: mutable | volatile, def: "", inert: inertTLSClient},
	dTLSClientKeyFilePass:   {name: "tls-client-key-file-pass", kind: kindString, flags: mutable, def: "", inert: inertTLSClient},
	dTLSDHParamsFile:        {name: "tls-dh-params-file", kind: kindString, flags: mutable | volatile, def: "", inert: inertTLSDHParams},
	dTLSSessionCaching:      {name: "tls-session-caching", kind: kindBool, flags: mutable, def: "yes"},
	dTLSSessionCacheSize:    {name: "tls-session-cache-size", kind: kindInt, flags: mutable, def: "20480", min: 0, max: intMax, inert: inertTLSCacheSize},
	dTLSSessionCacheTimeout: {name: "tls-session-cache-timeout", kind: kindInt, flags: mutable, def: "300", min: 0, max: intMax},
	dTLSReplication:         {name: "tls-replication", kind: kindBool, flags: mutable, def: "no"},
	dTLSCluster:             {name: "tls-cluster", kind: kindBool, flags: mutable, def: "no", inert: inertTLSLinks},

	// Start-up only, as in Redis; the users store reads it (acl.go).
	dACLFile: {name: "aclfile", kind: kindString, def: ""},

	// Redis 7.0's other directives. Each is parsed, checked, shown by
	// CONFIG GET and changed by CONFIG SET exactly as in Redis, so a
	// redis.conf and the tools that read it back work unchanged. inert
	// says why one has no effect (the reasons are in compat.go); a check
	// refuses the values Tandem cannot honour where going on would be
	// unsafe or misleading.
	dUnixSocket:           {name: "unixsocket", kind: kindString, def: "", checkStr: refuseNonEmpty(reasonUnixSocket)},
	dUnixSocketPerm:       {name: "unixsocketperm", kind: kindOctal, def: "0", min: 0, max: 0o777, inert: inertUnixSocketPerm},
	dSocketMarkID:         {name: "socket-mark-id", kind: kindInt, def: "0", min: 0, max: uintMax, inert: inertSocketMark},
	dBindSourceAddr:       {name: "bind-source-addr", kind: kindString, flags: mutable, def: "", inert: inertOutgoing},
	dSupervised:           {name: "supervised", kind: kindEnum, def: "no", enum: []string{"upstart", "systemd", "auto", "no"}, inert: inertSupervised},
	dAlwaysShowLogo:       {name: "always-show-logo", kind: kindBool, def: "no", inert: inertLogo},
	dSetProcTitle:         {name: "set-proc-title", kind: kindBool, def: "yes", inert: inertProcTitle},
	dProcTitleTemplate:    {name: "proc-title-template", kind: kindString, flags: mutable, def: "{title} {listen-addr} {server-mode}", checkStr: checkProcTitleTemplate, inert: inertProcTitle},
	dSyslogEnabled:        {name: "syslog-enabled", kind: kindBool, def: "no", inert: inertSyslog},
	dSyslogIdent:          {name: "syslog-ident", kind: kindString, def: "redis", inert: inertSyslog},
	dSyslogFacility:       {name: "syslog-facility", kind: kindEnum, def: "local0", enum: syslogFacilityNames, inert: inertSyslog},
	dCrashLogEnabled:      {name: "crash-log-enabled", kind: kindBool, flags: mutable, def: "yes", inert: inertCrashLog},
	dCrashMemcheckEnabled: {name: "crash-memcheck-enabled", kind: kindBool, flags: mutable, def: "yes", inert: inertCrashLog},
	dDisableTHP:           {name: "disable-thp", kind: kindBool, def: "yes", inert: inertTHP},
	dOOMScoreAdj:          {name: "oom-score-adj", kind: kindEnum, flags: mutable, def: "no", enum: []string{"no", "yes", "relative", "absolute"}, vals: []int64{0, 1, 1, 2}, inert: inertOOMScore},
	dOOMScoreAdjValues:    {name: "oom-score-adj-values", kind: kindSpecial, flags: mutable | multiArg, def: "0 200 800", set: setOOMScoreAdjValues, get: getOOMScoreAdjValues, inert: inertOOMScore},
	dJemallocBgThread:     {name: "jemalloc-bg-thread", kind: kindBool, flags: mutable, def: "yes", inert: inertJemalloc},
	dServerCPUList:        {name: "server_cpulist", kind: kindString, def: "", inert: inertCPUList},
	dBioCPUList:           {name: "bio_cpulist", kind: kindString, def: "", inert: inertCPUList},
	dAOFRewriteCPUList:    {name: "aof_rewrite_cpulist", kind: kindString, def: "", inert: inertCPUList},
	dBgsaveCPUList:        {name: "bgsave_cpulist", kind: kindString, def: "", inert: inertCPUList},
	dIOThreadsDoReads:     {name: "io-threads-do-reads", kind: kindBool, def: "no", inert: inertThreads},
	dIgnoreWarnings:       {name: "ignore-warnings", kind: kindString, flags: mutable, def: "", inert: inertIgnoreWarnings},
	dEnableModuleCommand:  {name: "enable-module-command", kind: kindEnum, def: "no", enum: protectedNames, inert: inertModules},
	dShutdownOnSigint:     {name: "shutdown-on-sigint", kind: kindFlags, flags: mutable | multiArg, def: "default", enum: shutdownNames, vals: shutdownVals, check: checkShutdownFlags, inert: inertShutdownSignal},
	dShutdownOnSigterm:    {name: "shutdown-on-sigterm", kind: kindFlags, flags: mutable | multiArg, def: "default", enum: shutdownNames, vals: shutdownVals, check: checkShutdownFlags, inert: inertShutdownSignal},

	// Memory tuning of Redis's allocator and data structures.
	dActiveRehashing:            {name: "activerehashing", kind: kindBool, flags: mutable, def: "yes", inert: inertRehashing},
	dActiveDefrag:               {name: "activedefrag", kind: kindBool, flags: mutable, def: "no", check: onlyNo(reasonActiveDefrag)},
	dActiveDefragCycleMin:       {name: "active-defrag-cycle-min", kind: kindInt, flags: mutable, def: "1", min: 1, max: 99, inert: inertDefrag},
	dActiveDefragCycleMax:       {name: "active-defrag-cycle-max", kind: kindInt, flags: mutable, def: "25", min: 1, max: 99, inert: inertDefrag},
	dActiveDefragThresholdLower: {name: "active-defrag-threshold-lower", kind: kindInt, flags: mutable, def: "10", min: 0, max: 1000, inert: inertDefrag},
	dActiveDefragThresholdUpper: {name: "active-defrag-threshold-upper", kind: kindInt, flags: mutable, def: "100", min: 0, max: 1000, inert: inertDefrag},
	dActiveDefragIgnoreBytes:    {name: "active-defrag-ignore-bytes", kind: kindMemory, flags: mutable, def: "100mb", min: 1, max: longMax, inert: inertDefrag},
	dActiveDefragMaxScanFields:  {name: "active-defrag-max-scan-fields", kind: kindInt, flags: mutable, def: "1000", min: 1, max: longMax, inert: inertDefrag},
	dMaxMemoryClients:           {name: "maxmemory-clients", kind: kindMemory, flags: mutable | percent, def: "0", min: -100, max: longMax, inert: inertMaxMemoryClients},
	dHLLSparseMaxBytes:          {name: "hll-sparse-max-bytes", kind: kindMemory, flags: mutable, def: "3000", min: 0, max: longMax},
	dStreamNodeMaxBytes:         {name: "stream-node-max-bytes", kind: kindMemory, flags: mutable, def: "4096", min: 0, max: longMax},
	dStreamNodeMaxEntries:       {name: "stream-node-max-entries", kind: kindInt, flags: mutable, def: "100", min: 0, max: longMax},
	dTrackingTableMaxKeys:       {name: "tracking-table-max-keys", kind: kindInt, flags: mutable, def: "1000000", min: 0, max: longMax}, // tracking.go
	dSanitizeDumpPayload:        {name: "sanitize-dump-payload", kind: kindEnum, flags: mutable, def: "no", enum: []string{"no", "yes", "clients"}, inert: inertSanitize},
	dLatencyTrackingInfoPercentiles: {name: "latency-tracking-info-percentiles", kind: kindSpecial, flags: mutable | multiArg, def: "50 99 99.9",
		set: setLatencyPercentiles, get: getLatencyPercentiles},

	// The append-only file (package aof, followed by services).
	dAppendFsync:                {name: "appendfsync", kind: kindEnum, flags: mutable, def: "everysec", enum: []string{"everysec", "always", "no"}},
	dAppendFilename:             {name: "appendfilename", kind: kindString, def: "appendonly.aof", checkStr: checkAOFName("appendfilename", "filename")},
	dAppendDirname:              {name: "appenddirname", kind: kindString, def: "appendonlydir", checkStr: checkAOFName("appenddirname", "dirname")},
	dNoAppendFsyncOnRewrite:     {name: "no-appendfsync-on-rewrite", kind: kindBool, flags: mutable, def: "no"},
	dAutoAOFRewritePercentage:   {name: "auto-aof-rewrite-percentage", kind: kindInt, flags: mutable, def: "100", min: 0, max: intMax},
	dAutoAOFRewriteMinSize:      {name: "auto-aof-rewrite-min-size", kind: kindMemory, flags: mutable, def: "64mb", min: 0, max: longMax},
	dAOFLoadTruncated:           {name: "aof-load-truncated", kind: kindBool, flags: mutable, def: "yes"},
	dAOFUseRDBPreamble:          {name: "aof-use-rdb-preamble", kind: kindBool, flags: mutable, def: "yes"},
	dAOFTimestampEnabled:        {name: "aof-timestamp-enabled", kind: kindBool, flags: mutable, def: "no"},
	dAOFRewriteIncrementalFsync: {name: "aof-rewrite-incremental-fsync", kind: kindBool, flags: mutable, def: "yes"},
	dAOFDisableAutoGC:           {name: "aof-disable-auto-gc", kind: kindBool, flags: mutable, def: "no"},

	// Replication: replicaof and min-replicas-to-write are refused (a
	// server that is not the replica asked for, or accepts writes it was
	// told to refuse, misleads); the rest tunes links Tandem never has.
	dReplicaOf:                    {name: "replicaof", alias: "slaveof", kind: kindSpecial, flags: multiArg, def: "no one", set: setReplicaOf, get: getReplicaOf},
	dMasterAuth:                   {name: "masterauth", kind: kindString, flags: mutable, def: ""},
	dMasterUser:                   {name: "masteruser", kind: kindString, flags: mutable, def: ""},
	dReplicaServeStaleData:        {name: "replica-serve-stale-data", alias: "slave-serve-stale-data", kind: kindBool, flags: mutable, def: "yes"},
	dReplicaReadOnly:              {name: "replica-read-only", alias: "slave-read-only", kind: kindBool, flags: mutable, def: "yes"},
	dReplicaLazyFlush:             {name: "replica-lazy-flush", alias: "slave-lazy-flush", kind: kindBool, flags: mutable, def: "no", inert: inertReplication},
	dReplicaIgnoreMaxmemory:       {name: "replica-ignore-maxmemory", alias: "slave-ignore-maxmemory", kind: kindBool, flags: mutable, def: "yes", inert: inertReplication},
	dReplicaIgnoreDiskWriteErrors: {name: "replica-ignore-disk-write-errors", kind: kindBool, flags: mutable, def: "no", inert: inertReplication},
	dReplicaPriority:              {name: "replica-priority", alias: "slave-priority", kind: kindInt, flags: mutable, def: "100", min: 0, max: intMax},
	dReplicaAnnounced:             {name: "replica-announced", kind: kindBool, flags: mutable, def: "yes"},
	dReplicaAnnounceIP:            {name: "replica-announce-ip", alias: "slave-announce-ip", kind: kindString, flags: mutable, def: ""},
	dReplicaAnnouncePort:          {name: "replica-announce-port", alias: "slave-announce-port", kind: kindInt, flags: mutable, def: "0", min: 0, max: 65535},
	dReplDisklessSync:             {name: "repl-diskless-sync", kind: kindBool, flags: mutable, def: "yes"},
	dReplDisklessSyncDelay:        {name: "repl-diskless-sync-delay", kind: kindInt, flags: mutable, def: "5", min: 0, max: intMax},
	dReplDisklessSyncMaxReplicas:  {name: "repl-diskless-sync-max-replicas", kind: kindInt, flags: mutable, def: "0", min: 0, max: intMax},
	dReplDisklessLoad:             {name: "repl-diskless-load", kind: kindEnum, flags: mutable | denyLoading, def: "disabled", enum: []string{"disabled", "on-empty-db", "swapdb"}, inert: inertReplication},
	dReplDisableTCPNodelay:        {name: "repl-disable-tcp-nodelay", kind: kindBool, flags: mutable, def: "no", inert: inertReplication},
	dReplPingReplicaPeriod:        {name: "repl-ping-replica-period", alias: "repl-ping-slave-period", kind: kindInt, flags: mutable, def: "10", min: 1, max: intMax},
	dReplTimeout:                  {name: "repl-timeout", kind: kindInt, flags: mutable, def: "60", min: 1, max: intMax},
	dReplBacklogSize:              {name: "repl-backlog-size", kind: kindMemory, flags: mutable, def: "1mb", min: 1, max: longMax},
	dReplBacklogTTL:               {name: "repl-backlog-ttl", kind: kindInt, flags: mutable, def: "3600", min: 0, max: longMax},
	dRDBDelSyncFiles:              {name: "rdb-del-sync-files", kind: kindBool, flags: mutable, def: "no", inert: inertReplication},
	dMinReplicasToWrite:           {name: "min-replicas-to-write", alias: "min-slaves-to-write", kind: kindInt, flags: mutable, def: "0", min: 0, max: intMax},
	dMinReplicasMaxLag:            {name: "min-replicas-max-lag", alias: "min-slaves-max-lag", kind: kindInt, flags: mutable, def: "10", min: 0, max: intMax},
	dPropagationErrorBehavior:     {name: "propagation-error-behavior", kind: kindEnum, flags: mutable, def: "ignore", enum: []string{"ignore", "panic", "panic-on-replicas"}, inert: inertReplication},

	// Cluster: cluster-enabled yes is refused (clients would expect
	// slots and redirections); the rest tunes a cluster Tandem never joins.
	dClusterEnabled:                  {name: "cluster-enabled", kind: kindBool, def: "no", check: onlyNo(reasonCluster)},
	dClusterConfigFile:               {name: "cluster-config-file", kind: kindString, def: "nodes.conf", inert: inertCluster},
	dClusterPort:                     {name: "cluster-port", kind: kindInt, def: "0", min: 0, max: 65535, inert: inertCluster},
	dClusterNodeTimeout:              {name: "cluster-node-timeout", kind: kindInt, flags: mutable, def: "15000", min: 0, max: longMax, inert: inertCluster},
	dClusterAnnounceIP:               {name: "cluster-announce-ip", kind: kindString, flags: mutable, def: "", inert: inertCluster},
	dClusterAnnounceHostname:         {name: "cluster-announce-hostname", kind: kindString, flags: mutable, def: "", checkStr: checkAnnouncedHostname, inert: inertCluster},
	dClusterAnnouncePort:             {name: "cluster-announce-port", kind: kindInt, flags: mutable, def: "0", min: 0, max: 65535, inert: inertCluster},
	dClusterAnnounceBusPort:          {name: "cluster-announce-bus-port", kind: kindInt, flags: mutable, def: "0", min: 0, max: 65535, inert: inertCluster},
	dClusterAnnounceTLSPort:          {name: "cluster-announce-tls-port", kind: kindInt, flags: mutable, def: "0", min: 0, max: 65535, inert: inertCluster},
	dClusterPreferredEndpointType:    {name: "cluster-preferred-endpoint-type", kind: kindEnum, flags: mutable, def: "ip", enum: []string{"ip", "hostname", "unknown-endpoint"}, inert: inertCluster},
	dClusterRequireFullCoverage:      {name: "cluster-require-full-coverage", kind: kindBool, flags: mutable, def: "yes", inert: inertCluster},
	dClusterReplicaNoFailover:        {name: "cluster-replica-no-failover", alias: "cluster-slave-no-failover", kind: kindBool, flags: mutable, def: "no", inert: inertCluster},
	dClusterReplicaValidityFactor:    {name: "cluster-replica-validity-factor", alias: "cluster-slave-validity-factor", kind: kindInt, flags: mutable, def: "10", min: 0, max: intMax, inert: inertCluster},
	dClusterMigrationBarrier:         {name: "cluster-migration-barrier", kind: kindInt, flags: mutable, def: "1", min: 0, max: intMax, inert: inertCluster},
	dClusterAllowReplicaMigration:    {name: "cluster-allow-replica-migration", kind: kindBool, flags: mutable, def: "yes", inert: inertCluster},
	dClusterAllowReadsWhenDown:       {name: "cluster-allow-reads-when-down", kind: kindBool, flags: mutable, def: "no", inert: inertCluster},
	dClusterAllowPubsubshardWhenDown: {name: "cluster-allow-pubsubshard-when-down", kind: kindBool, flags: mutable, def: "yes", inert: inertCluster},
	dClusterLinkSendbufLimit:         {name: "cluster-link-sendbuf-limit", kind: kindMemory, flags: mutable, def: "0", min: 0, max: longMax, inert: inertCluster},
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

// onlyNo refuses a bool set to yes; onlyZero a number other than 0.
func onlyNo(reason string) func(int64) string {
	return func(n int64) string {
		if n != 0 {
			return reason
		}
		return ""
	}
}

func onlyZero(reason string) func(int64) string { return onlyNo(reason) }

// refuseNonEmpty refuses any value but "".
func refuseNonEmpty(reason string) func(string) string {
	return func(s string) string {
		if s != "" {
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
	if d.kind == kindFlags {
		return d.applyFlags(s, id, args)
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
		} else if n, ok = parseMemory(v); !ok && d.is(percent) {
			n, ok = parsePercent(v)
		}
		switch {
		case !ok && d.kind == kindInt:
			return reasonInteger
		case !ok && d.is(percent):
			return reasonMemoryPercent
		case !ok:
			return reasonMemory
		case n < 0 && d.is(percent):
			if n < d.min {
				return fmt.Sprintf(reasonPercentRange, -d.min)
			}
		case n < d.min || n > d.max:
			return fmt.Sprintf(reasonRange, d.min, d.max)
		}
	case kindOctal:
		var ok bool
		if n, ok = parseOctal(v); !ok {
			return reasonOctal
		}
		if n < d.min || n > d.max {
			return fmt.Sprintf(reasonOctalRange, d.min, d.max)
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
		n = d.enumVal(i)
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

// applyFlags parses a kindFlags value: one or more of its names, as
// redis's bit-flag enums (shutdown-on-sigterm save now).
func (d *directive) applyFlags(s *snapshot, id int, args []string) string {
	if len(args) == 0 {
		return fmt.Sprintf(reasonEnum, strings.Join(d.enum, ", "))
	}
	var n int64
	for _, a := range args {
		i, ok := enumIndex(d.enum, a)
		if !ok {
			return fmt.Sprintf(reasonEnum, strings.Join(d.enum, ", "))
		}
		n |= d.enumVal(i)
	}
	if d.check != nil {
		if r := d.check(n); r != "" {
			return r
		}
	}
	s.num[id] = n
	return ""
}

// enumVal is the value of the i-th enum name.
func (d *directive) enumVal(i int) int64 {
	if d.vals != nil {
		return d.vals[i]
	}
	return int64(i)
}

// enumName is the name CONFIG GET shows for an enum value: the first one
// with that value, as redis configEnumGetName.
func (d *directive) enumName(n int64) string {
	for i := range d.enum {
		if d.enumVal(i) == n {
			return d.enum[i]
		}
	}
	return "unknown"
}

// flagNames shows a kindFlags value as redis does: the names of its bits
// in table order, or the name of 0 alone.
func (d *directive) flagNames(n int64) string {
	var names []string
	left := n
	for i, name := range d.enum {
		if v := d.enumVal(i); v == n {
			return name
		} else if v != 0 && left&v == v {
			names = append(names, name)
			left &^= v
		}
	}
	if len(names) == 0 || left != 0 {
		return "unknown"
	}
	return strings.Join(names, " ")
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
		return d.enumName(s.num[id])
	case kindFlags:
		return d.flagNames(s.num[id])
	case kindOctal:
		return strconv.FormatInt(s.num[id], 8)
	case kindSpecial:
		return d.get(s)
	default:
		if d.is(percent) && s.num[id] < 0 {
			return strconv.FormatInt(-s.num[id], 10) + "%"
		}
		return strconv.FormatInt(s.num[id], 10)
	}
}
