package conf

import (
	"strconv"
	"strings"
	"time"
)

// Typed getters, one per directive. Each is one atomic load and an array
// index: cheap enough for every request on an event loop.

// Port is the RESP listener's TCP port; 0 disables it.
func (c *Config) Port() int { return int(c.load().num[dPort]) }

// Bind is the list of addresses to listen on, as configured (an optional
// address keeps its "-" prefix; see BindAddrs). Both listeners use it.
func (c *Config) Bind() []string { return append([]string(nil), c.load().bind...) }

// BindAddrs is Bind with redis's "-" (optional address) prefix decoded.
func (c *Config) BindAddrs() []BindAddr {
	bind := c.load().bind
	out := make([]BindAddr, len(bind))
	for i, b := range bind {
		if len(b) > 1 && b[0] == '-' {
			out[i] = BindAddr{Host: b[1:], Optional: true}
		} else {
			out[i] = BindAddr{Host: b}
		}
	}
	return out
}

// MemcachedPort is the memcached listener's TCP port; 0 disables it.
func (c *Config) MemcachedPort() int { return int(c.load().num[dMemcachedPort]) }

// ProtectedMode refuses non-loopback clients while no password is set.
func (c *Config) ProtectedMode() bool { return c.load().num[dProtectedMode] != 0 }

// Databases is the number of logical databases (SELECT 0..n-1).
func (c *Config) Databases() int { return int(c.load().num[dDatabases]) }

// MaxClients is the most simultaneous client connections.
func (c *Config) MaxClients() int { return int(c.load().num[dMaxClients]) }

// Timeout closes a client idle this long; 0 never does.
func (c *Config) Timeout() time.Duration { return seconds(c.load().num[dTimeout]) }

// TCPKeepAlive is the TCP keep-alive period of client sockets; 0 disables.
func (c *Config) TCPKeepAlive() time.Duration { return seconds(c.load().num[dTCPKeepAlive]) }

// TCPBacklog is the listen backlog.
func (c *Config) TCPBacklog() int { return int(c.load().num[dTCPBacklog]) }

// RequirePass is the default user's password; "" means no AUTH required.
func (c *Config) RequirePass() string { return c.load().str[dRequirePass] }

// MetricsPort is the Prometheus endpoint's port; 0: no endpoint.
func (c *Config) MetricsPort() int { return int(c.load().num[dMetricsPort]) }

// MetricsBind is the one address the Prometheus endpoint listens on.
func (c *Config) MetricsBind() string { return c.load().str[dMetricsBind] }

// MetricsPassword is the token a scraper must present; "" for none.
func (c *Config) MetricsPassword() string { return c.load().str[dMetricsPassword] }

// MaxMemory is the memory limit in bytes; 0 means none configured.
func (c *Config) MaxMemory() int64 { return c.load().num[dMaxMemory] }

// MaxMemoryPolicy is what to evict when MaxMemory is reached.
func (c *Config) MaxMemoryPolicy() MaxMemoryPolicy {
	return MaxMemoryPolicy(c.load().num[dMaxMemoryPolicy])
}

// MaxMemorySamples is how many keys an eviction samples.
func (c *Config) MaxMemorySamples() int { return int(c.load().num[dMaxMemorySamples]) }

// MaxMemoryEvictionTenacity (0..100) is how long one eviction cycle may run.
func (c *Config) MaxMemoryEvictionTenacity() int {
	return int(c.load().num[dMaxMemoryEvictionTenacity])
}

// LFULogFactor is the LFU counter's logarithm factor.
func (c *Config) LFULogFactor() int { return int(c.load().num[dLFULogFactor]) }

// LFUDecayTime is the LFU counter's decay period, in minutes.
func (c *Config) LFUDecayTime() int { return int(c.load().num[dLFUDecayTime]) }

// ActiveExpireEffort (1..10) scales the active expiry cycle's work.
func (c *Config) ActiveExpireEffort() int { return int(c.load().num[dActiveExpireEffort]) }

// Save is the snapshot rules; empty means no automatic snapshots. The slice
// is the caller's.
func (c *Config) Save() []SaveRule { return append([]SaveRule(nil), c.load().save...) }

// Dir is the directory of snapshots, as configured (possibly relative).
func (c *Config) Dir() string { return c.load().str[dDir] }

// DBFilename is the snapshot's file name within Dir.
func (c *Config) DBFilename() string { return c.load().str[dDBFilename] }

// RDBCompression compresses strings in snapshots (LZF).
func (c *Config) RDBCompression() bool { return c.load().num[dRDBCompression] != 0 }

// RDBKeySaveDelay is rdb-key-save-delay: microseconds slept after each
// key a dump writes (a test knob; see snapshot.DebugDelay).
func (c *Config) RDBKeySaveDelay() int { return int(c.load().num[dRDBKeySaveDelay]) }

// KeyLoadDelay is key-load-delay: microseconds slept after each key or
// AOF command loaded (a test knob; see snapshot.DebugDelay).
func (c *Config) KeyLoadDelay() int { return int(c.load().num[dKeyLoadDelay]) }

// RDBSaveIncrementalFsync fsyncs a dump every 4 MB as it is written.
func (c *Config) RDBSaveIncrementalFsync() bool {
	return c.load().num[dRDBSaveIncrementalFsync] != 0
}

// RDBChecksum writes and checks the CRC64 of snapshots.
func (c *Config) RDBChecksum() bool { return c.load().num[dRDBChecksum] != 0 }

// StopWritesOnBgsaveError refuses writes while the last snapshot failed.
func (c *Config) StopWritesOnBgsaveError() bool {
	return c.load().num[dStopWritesOnBgsaveError] != 0
}

// AppendOnly keeps the append-only file.
func (c *Config) AppendOnly() bool { return c.load().num[dAppendOnly] != 0 }

// AppendFsync is appendfsync: "everysec", "always" or "no".
func (c *Config) AppendFsync() string { return table[dAppendFsync].enum[c.load().num[dAppendFsync]] }

// AppendFilename is the AOF files' base name.
func (c *Config) AppendFilename() string { return c.load().str[dAppendFilename] }

// AppendDirname is the AOF directory, inside dir.
func (c *Config) AppendDirname() string { return c.load().str[dAppendDirname] }

// NoAppendFsyncOnRewrite holds fsyncs back while a save or rewrite runs.
func (c *Config) NoAppendFsyncOnRewrite() bool { return c.load().num[dNoAppendFsyncOnRewrite] != 0 }

// AutoAOFRewritePercentage is the growth over the base that starts a
// rewrite (0: never).
func (c *Config) AutoAOFRewritePercentage() int64 { return c.load().num[dAutoAOFRewritePercentage] }

// AutoAOFRewriteMinSize is the AOF size under which no automatic rewrite
// starts.
func (c *Config) AutoAOFRewriteMinSize() int64 { return c.load().num[dAutoAOFRewriteMinSize] }

// AOFLoadTruncated loads an AOF whose tail was cut, dropping the tail.
func (c *Config) AOFLoadTruncated() bool { return c.load().num[dAOFLoadTruncated] != 0 }

// AOFUseRDBPreamble writes rewrite bases as RDB.
func (c *Config) AOFUseRDBPreamble() bool { return c.load().num[dAOFUseRDBPreamble] != 0 }

// AOFTimestampEnabled writes #TS: annotations.
func (c *Config) AOFTimestampEnabled() bool { return c.load().num[dAOFTimestampEnabled] != 0 }

// AOFDisableAutoGC keeps the history files a rewrite leaves.
func (c *Config) AOFDisableAutoGC() bool { return c.load().num[dAOFDisableAutoGC] != 0 }

// LogLevel is the minimum level logged.
func (c *Config) LogLevel() LogLevel { return LogLevel(c.load().num[dLogLevel]) }

// LogFile is the log file; "" means standard output.
func (c *Config) LogFile() string { return c.load().str[dLogFile] }

// LogFormat is how log records are written (log-format).
func (c *Config) LogFormat() LogFormat { return LogFormat(c.load().num[dLogFormat]) }

// PidFile is where to write the process id; "" means nowhere.
func (c *Config) PidFile() string { return c.load().str[dPidFile] }

// Daemonize is always false: Tandem runs in the foreground.
func (c *Config) Daemonize() bool { return c.load().num[dDaemonize] != 0 }

// ProtoMaxBulkLen is the largest bulk string a RESP request may carry.
func (c *Config) ProtoMaxBulkLen() int64 { return c.load().num[dProtoMaxBulkLen] }

// ClientQueryBufferLimit is the most unparsed input kept per client.
func (c *Config) ClientQueryBufferLimit() int64 { return c.load().num[dClientQueryBufferLimit] }

// Hz is the frequency of background tasks, already clamped to 1..500.
func (c *Config) Hz() int { return int(c.load().num[dHz]) }

// DynamicHz raises Hz with the number of clients.
func (c *Config) DynamicHz() bool { return c.load().num[dDynamicHz] != 0 }

// IOThreads is accepted for compatibility and ignored.
func (c *Config) IOThreads() int { return int(c.load().num[dIOThreads]) }

// ItemSizeMax is the largest memcached item value (memcached -I).
func (c *Config) ItemSizeMax() int64 { return c.load().num[dItemSizeMax] }

// MemcachedMaxLine is the longest memcached command line; a client sending a
// longer one without a newline is disconnected.
func (c *Config) MemcachedMaxLine() int { return int(c.load().num[dMemcachedMaxLine]) }

// MemcachedMaxPendingOutput is how many bytes of replies a memcached
// connection may have waiting for its socket before its pipeline pauses
// until they drain; 0 is no bound.
func (c *Config) MemcachedMaxPendingOutput() int64 {
	return c.load().num[dMemcachedMaxPendingOutput]
}

// StartEmptyOnBadDump makes a dump that cannot be loaded be set aside
// (renamed) and the server start empty, instead of refusing to start.
func (c *Config) StartEmptyOnBadDump() bool { return c.load().num[dStartEmptyOnBadDump] != 0 }

// MemcachedEnableShutdown allows memcached's "shutdown" command (memcached -A).
func (c *Config) MemcachedEnableShutdown() bool {
	return c.load().num[dMemcachedEnableShutdown] != 0
}

// MemcachedBindingProtocol is what the memcached port speaks (memcached -B).
func (c *Config) MemcachedBindingProtocol() BindingProtocol {
	return BindingProtocol(c.load().num[dMemcachedBindingProtocol])
}

// MemcachedDisableFlushAll refuses memcached's flush_all (memcached -F).
func (c *Config) MemcachedDisableFlushAll() bool {
	return c.load().num[dMemcachedDisableFlushAll] != 0
}

// MemcachedDisableWatch refuses memcached's watch (memcached -W).
func (c *Config) MemcachedDisableWatch() bool {
	return c.load().num[dMemcachedDisableWatch] != 0
}

// MemcachedWatcherLogbufSize is a watch connection's buffer, in bytes
// (memcached's watcher_logbuf_size).
func (c *Config) MemcachedWatcherLogbufSize() int64 {
	return c.load().num[dMemcachedWatcherLogbufSize]
}

// Compression is the algorithm for values of at least CompressionMinSize.
func (c *Config) Compression() Compression { return Compression(c.load().num[dCompression]) }

// CompressionMinSize is the smallest value worth compressing.
func (c *Config) CompressionMinSize() int64 { return c.load().num[dCompressionMinSize] }

// CompressionMinSaving is the share of a value's length, in percent
// (0..100), its compressed form must save to be stored compressed.
func (c *Config) CompressionMinSaving() int { return int(c.load().num[dCompressionMinSaving]) }

// LazyfreeLazyEviction frees evicted values in the background.
func (c *Config) LazyfreeLazyEviction() bool { return c.load().num[dLazyfreeLazyEviction] != 0 }

// LazyfreeLazyExpire frees expired values in the background.
func (c *Config) LazyfreeLazyExpire() bool { return c.load().num[dLazyfreeLazyExpire] != 0 }

// LazyfreeLazyServerDel frees values deleted by the server (RENAME...) in the background.
func (c *Config) LazyfreeLazyServerDel() bool { return c.load().num[dLazyfreeLazyServerDel] != 0 }

// LazyfreeLazyUserDel makes DEL behave as UNLINK.
func (c *Config) LazyfreeLazyUserDel() bool { return c.load().num[dLazyfreeLazyUserDel] != 0 }

// LazyfreeLazyUserFlush makes FLUSHALL/FLUSHDB without a mode ASYNC.
func (c *Config) LazyfreeLazyUserFlush() bool { return c.load().num[dLazyfreeLazyUserFlush] != 0 }

// HashMaxListpackEntries is the most fields of a hash kept compact.
func (c *Config) HashMaxListpackEntries() int { return int(c.load().num[dHashMaxListpackEntries]) }

// HashMaxListpackValue is the longest field or value of a compact hash.
func (c *Config) HashMaxListpackValue() int { return int(c.load().num[dHashMaxListpackValue]) }

// SetMaxIntsetEntries is the most members of a set kept as an intset.
func (c *Config) SetMaxIntsetEntries() int { return int(c.load().num[dSetMaxIntsetEntries]) }

// SetMaxListpackEntries is the most members of a set kept as a listpack.
func (c *Config) SetMaxListpackEntries() int { return int(c.load().num[dSetMaxListpackEntries]) }

// SetMaxListpackValue is the longest member of a listpack set.
func (c *Config) SetMaxListpackValue() int { return int(c.load().num[dSetMaxListpackValue]) }

// ZsetMaxListpackEntries is the most members of a sorted set kept compact.
func (c *Config) ZsetMaxListpackEntries() int { return int(c.load().num[dZsetMaxListpackEntries]) }

// ZsetMaxListpackValue is the longest member of a compact sorted set.
func (c *Config) ZsetMaxListpackValue() int { return int(c.load().num[dZsetMaxListpackValue]) }

// ListMaxListpackSize is a quicklist node's limit: > 0 entries, -1..-5 for
// 4kb..64kb.
func (c *Config) ListMaxListpackSize() int { return int(c.load().num[dListMaxListpackSize]) }

// HLLSparseMaxBytes is the largest sparse HyperLogLog: one that would
// grow past it turns dense, as in Redis (the HLL's bytes are Redis's).
func (c *Config) HLLSparseMaxBytes() int { return int(c.load().num[dHLLSparseMaxBytes]) }

// StreamNodeMaxBytes and StreamNodeMaxEntries bound a stream's blocks
// (engine/stream.go), as Redis's listpack nodes.
func (c *Config) StreamNodeMaxBytes() int64   { return c.load().num[dStreamNodeMaxBytes] }
func (c *Config) StreamNodeMaxEntries() int64 { return c.load().num[dStreamNodeMaxEntries] }

// ListCompressDepth is how many quicklist nodes at each end stay uncompressed; 0 disables.
func (c *Config) ListCompressDepth() int { return int(c.load().num[dListCompressDepth]) }

// NotifyKeyspaceEvents is the enabled keyspace notification classes.
func (c *Config) NotifyKeyspaceEvents() NotifyFlags {
	return NotifyFlags(c.load().num[dNotifyKeyspaceEvents])
}

// BusyReplyThreshold is how long a script runs before other clients get BUSY.
func (c *Config) BusyReplyThreshold() time.Duration {
	return time.Duration(c.load().num[dBusyReplyThreshold]) * time.Millisecond
}

// SlowlogLogSlowerThan is the slow log threshold in microseconds; -1
// disables the slow log, 0 logs every command.
func (c *Config) SlowlogLogSlowerThan() int64 { return c.load().num[dSlowlogLogSlowerThan] }

// SlowlogMaxLen is the slow log's length.
func (c *Config) SlowlogMaxLen() int { return int(c.load().num[dSlowlogMaxLen]) }

// LatencyTracking records per-command latency histograms (INFO
// latencystats, LATENCY HISTOGRAM).
func (c *Config) LatencyTracking() bool { return c.load().num[dLatencyTracking] != 0 }

// LatencyTrackingInfoPercentiles are the percentiles INFO latencystats
// prints, in order: each as Redis names it ("%f" without trailing zeros,
// the directive's CONFIG GET form) and its value.
func (c *Config) LatencyTrackingInfoPercentiles() (names []string, values []float64) {
	names = strings.Fields(c.load().str[dLatencyTrackingInfoPercentiles])
	values = make([]float64, len(names))
	for i, f := range names {
		values[i], _ = strconv.ParseFloat(f, 64) // checked when set
	}
	return names, values
}

// LatencyMonitorThreshold is the latency monitor's threshold in
// milliseconds; 0 disables it.
func (c *Config) LatencyMonitorThreshold() int64 { return c.load().num[dLatencyMonitorThreshold] }

// ClientOutputBufferLimit is the output limit of a class of clients.
func (c *Config) ClientOutputBufferLimit(class ClientClass) BufferLimit {
	return c.load().obuf[class]
}

// ShutdownTimeout is how long SHUTDOWN waits for replicas.
func (c *Config) ShutdownTimeout() time.Duration { return seconds(c.load().num[dShutdownTimeout]) }

// EnableDebugCommand says who may run DEBUG.
func (c *Config) EnableDebugCommand() ProtectedAction {
	return ProtectedAction(c.load().num[dEnableDebugCommand])
}

// EnableProtectedConfigs says who may CONFIG SET dir and dbfilename.
func (c *Config) EnableProtectedConfigs() ProtectedAction {
	return ProtectedAction(c.load().num[dEnableProtectedConfigs])
}

func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }

// ReplicaOf is the master the replicaof directive names; ok is false for
// "no one".
func (c *Config) ReplicaOf() (host string, port int, ok bool) {
	v := c.load().str[dReplicaOf]
	h, p, found := strings.Cut(v, " ")
	if !found {
		return "", 0, false
	}
	n, err := strconv.Atoi(p)
	return h, n, err == nil
}

// MasterAuth is the password this replica gives its master.
func (c *Config) MasterAuth() string { return c.load().str[dMasterAuth] }

// MasterUser is the user this replica logs in to its master as.
func (c *Config) MasterUser() string { return c.load().str[dMasterUser] }

// ReplicaReadOnly refuses writes from clients on a replica.
func (c *Config) ReplicaReadOnly() bool { return c.load().num[dReplicaReadOnly] != 0 }

// ReplicaServeStaleData lets a replica whose link to its master is down
// serve every command; with no, only those flagged stale run.
func (c *Config) ReplicaServeStaleData() bool { return c.load().num[dReplicaServeStaleData] != 0 }

// TLSReplication makes a replica reach its master over TLS.
func (c *Config) TLSReplication() bool { return c.load().num[dTLSReplication] != 0 }

// ReplicaPriority is INFO's slave_priority, which Sentinel promotes by
// (lowest first; 0: never).
func (c *Config) ReplicaPriority() int { return int(c.load().num[dReplicaPriority]) }

// ReplicaAnnounced is INFO's replica_announced: whether Sentinel lists
// this replica.
func (c *Config) ReplicaAnnounced() bool { return c.load().num[dReplicaAnnounced] != 0 }

// ReplicaAnnounceIP is the address a replica announces to its master.
func (c *Config) ReplicaAnnounceIP() string { return c.load().str[dReplicaAnnounceIP] }

// ReplicaAnnouncePort is the port a replica announces (0: its own).
func (c *Config) ReplicaAnnouncePort() int { return int(c.load().num[dReplicaAnnouncePort]) }

// ReplDisklessSync streams full syncs' RDB to replicas without a file.
func (c *Config) ReplDisklessSync() bool { return c.load().num[dReplDisklessSync] != 0 }

// ReplPingReplicaPeriod is the seconds between PINGs to replicas.
func (c *Config) ReplPingReplicaPeriod() int64 { return c.load().num[dReplPingReplicaPeriod] }

// ReplTimeout is repl-timeout in seconds.
func (c *Config) ReplTimeout() int64 { return c.load().num[dReplTimeout] }

// ReplBacklogSize is the replication backlog's bytes.
func (c *Config) ReplBacklogSize() int64 { return c.load().num[dReplBacklogSize] }

// ReplBacklogTTL is the seconds the backlog outlives the last replica (0: forever).
func (c *Config) ReplBacklogTTL() int64 { return c.load().num[dReplBacklogTTL] }

// MinReplicasToWrite refuses writes with fewer good replicas (0: never).
func (c *Config) MinReplicasToWrite() int { return int(c.load().num[dMinReplicasToWrite]) }

// MinReplicasMaxLag is the lag in seconds under which a replica is good.
func (c *Config) MinReplicasMaxLag() int64 { return c.load().num[dMinReplicasMaxLag] }

// ReplDisklessSyncDelay is the seconds a diskless full sync waits for more replicas.
func (c *Config) ReplDisklessSyncDelay() int64 { return c.load().num[dReplDisklessSyncDelay] }

// ReplDisklessSyncMaxReplicas starts a diskless sync at once when this many replicas wait (0: no such bound).
func (c *Config) ReplDisklessSyncMaxReplicas() int {
	return int(c.load().num[dReplDisklessSyncMaxReplicas])
}
