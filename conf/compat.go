package conf

// Directives of redis 7.0 that Tandem does not implement. A redis.conf that
// uses them should still start Tandem when ignoring them is harmless
// (tuning of machinery Tandem does not have), and must not when ignoring
// them would silently weaken what the user asked for (security, durability,
// topology, transport). Neither kind appears in CONFIG GET or is accepted by
// CONFIG SET, which answers "Unknown option" as for any unknown name.

// ignoredDirectives are accepted in a file, flag or TANDEM_ variable and
// ignored, with a line in Config.Warnings. Redis itself silently accepts the
// three deprecated ones at the end.
var ignoredDirectives = map[string]bool{
	"activerehashing": true, "always-show-logo": true, "set-proc-title": true,
	"proc-title-template": true, "supervised": true, "syslog-enabled": true,
	"syslog-ident": true, "syslog-facility": true, "rdb-del-sync-files": true,
	"jemalloc-bg-thread": true,
	"oom-score-adj":      true, "oom-score-adj-values": true, "disable-thp": true,
	"crash-log-enabled": true, "crash-memcheck-enabled": true, "activedefrag": true,
	"active-defrag-cycle-min": true, "active-defrag-cycle-max": true,
	"active-defrag-threshold-lower": true, "active-defrag-threshold-upper": true,
	"active-defrag-ignore-bytes": true, "active-defrag-max-scan-fields": true,
	"hll-sparse-max-bytes": true, "stream-node-max-bytes": true,
	"stream-node-max-entries": true, "tracking-table-max-keys": true,
	"io-threads-do-reads": true, "maxmemory-clients": true,
	"ignore-warnings": true, "sanitize-dump-payload": true,
	"enable-module-command": true, "shutdown-on-sigint": true,
	"shutdown-on-sigterm": true, "latency-tracking-info-percentiles": true,
	"bind-source-addr": true, "socket-mark-id": true,
	"server_cpulist": true, "bio_cpulist": true, "aof_rewrite_cpulist": true,
	"bgsave_cpulist": true,
	// AOF tuning: harmless because appendonly itself must be "no".
	"appendfsync": true, "appendfilename": true, "appenddirname": true,
	"no-appendfsync-on-rewrite": true, "auto-aof-rewrite-percentage": true,
	"auto-aof-rewrite-min-size": true, "aof-load-truncated": true,
	"aof-use-rdb-preamble": true, "aof-timestamp-enabled": true,
	"aof-rewrite-incremental-fsync": true, "aof-disable-auto-gc": true,
	// Replication tuning: harmless because replicaof is refused.
	"replica-serve-stale-data": true, "slave-serve-stale-data": true,
	"replica-read-only": true, "slave-read-only": true,
	"repl-diskless-sync": true, "repl-diskless-sync-delay": true,
	"repl-diskless-sync-max-replicas": true, "repl-diskless-load": true,
	"repl-disable-tcp-nodelay": true, "repl-ping-replica-period": true,
	"repl-ping-slave-period": true, "repl-timeout": true,
	"repl-backlog-size": true, "repl-backlog-ttl": true,
	"replica-priority": true, "slave-priority": true,
	"replica-lazy-flush": true, "slave-lazy-flush": true,
	"replica-ignore-maxmemory": true, "slave-ignore-maxmemory": true,
	"replica-announced": true, "replica-announce-ip": true,
	"slave-announce-ip": true, "replica-announce-port": true,
	"slave-announce-port": true, "min-replicas-to-write": true,
	"min-slaves-to-write": true, "min-replicas-max-lag": true,
	"min-slaves-max-lag": true, "masterauth": true, "masteruser": true,
	"replica-ignore-disk-write-errors": true, "propagation-error-behavior": true,
	// Deprecated; redis 7.0 accepts and ignores them.
	"list-max-ziplist-entries": true, "list-max-ziplist-value": true,
	"lua-replicate-commands": true,
}

// unsupportedDirectives fail start-up, with the reason shown.
var unsupportedDirectives = map[string]string{
	"loadmodule":      "modules are not supported by Tandem",
	"replicaof":       "replication is not supported by Tandem",
	"slaveof":         "replication is not supported by Tandem",
	"sentinel":        "sentinel mode is not supported by Tandem",
	"cluster-enabled": "cluster mode is not supported by Tandem",
	"unixsocket":      "unix sockets are not supported by Tandem",
	"unixsocketperm":  "unix sockets are not supported by Tandem",
}

// harmlessValues are values of unsupported directives that ask for nothing
// Tandem lacks ("cluster-enabled no"); they are ignored like ignoredDirectives.
var harmlessValues = map[string]string{
	"cluster-enabled": "no",
}
