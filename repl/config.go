package repl

import (
	"io"
	"time"
)

// SnapshotFunc writes a point-in-time RDB of the whole keyspace to w for
// a replica's full sync. It must call cut exactly once, at the point in
// time, before it writes any byte, while no Sink.Feed runs (under the
// log's lock): every write fed before cut is in the RDB, none fed after.
// cut returns what the RDB should record in its AUX fields, as Redis's
// rdbPopulateSaveInfo: repl-stream-db, repl-id and repl-offset. The
// offset is also what +FULLRESYNC announces. The function runs on a
// goroutine of its own, so it may take its time; w may block (it is a
// slow replica's socket). filter says what the replicas asked to leave
// out (REPLCONF rdb-filter-only).
type SnapshotFunc func(w io.Writer, filter Filter, cut func() Cut) error

// Filter is what a full sync's RDB leaves out, as a replica asked with
// REPLCONF rdb-filter-only (redis-cli --functions-rdb): Redis's
// SLAVE_REQ_RDB_EXCLUDE_DATA and _FUNCTIONS. The zero Filter leaves out
// nothing.
type Filter struct {
	NoKeys, NoFunctions bool
}

// filtered reports whether the RDB leaves anything out: such an RDB goes
// over the socket only (never spooled), as Redis's.
func (f Filter) filtered() bool { return f.NoKeys || f.NoFunctions }

// Cut is the replication position a full sync's RDB corresponds to.
type Cut struct {
	Offset int64  // repl-offset: the stream's last byte in the RDB
	ReplID string // repl-id
	// StreamDB is repl-stream-db: the database the stream goes on in.
	// A master restarts its stream with a SELECT, but a replica proxies
	// its master's bytes, which select nothing; the sub-replica starts in
	// this database (the Load callback returns it).
	StreamDB int
}

// Config is the replication configuration, in redis.conf's terms.
type Config struct {
	BacklogSize  int64         // repl-backlog-size
	BacklogTTL   time.Duration // repl-backlog-ttl: free the backlog after this long with no replica (0 = never)
	PingPeriod   time.Duration // repl-ping-replica-period
	Timeout      time.Duration // repl-timeout
	DisklessSync bool          // repl-diskless-sync: stream the RDB ($EOF:) to replicas with capa eof
	// repl-diskless-sync-delay: a diskless sync waits this long for more
	// replicas to share it; repl-diskless-sync-max-replicas starts it as
	// soon as that many wait (0 = no such count).
	DisklessSyncDelay       time.Duration
	DisklessSyncMaxReplicas int
	MinReplicas             int           // min-replicas-to-write
	MinReplicasMaxLag       time.Duration // min-replicas-max-lag
	// client-output-buffer-limit replica <hard> <soft> <soft seconds>;
	// 0 disables a limit.
	OutputHard, OutputSoft int64
	OutputSoftTime         time.Duration
	// TempDir holds the RDB spooled for a replica without capa eof (or
	// with repl-diskless-sync no); "" is os.TempDir.
	TempDir  string
	Snapshot SnapshotFunc
	// Log receives the events Redis logs at NOTICE or WARNING level.
	Log func(msg string)
}

// DefaultConfig is Redis 7.0's defaults.
func DefaultConfig() Config {
	return Config{
		BacklogSize:       1 << 20,
		BacklogTTL:        3600 * time.Second,
		PingPeriod:        10 * time.Second,
		Timeout:           60 * time.Second,
		DisklessSync:      true,
		DisklessSyncDelay: 5 * time.Second,
		MinReplicasMaxLag: 10 * time.Second,
		OutputHard:        256 << 20,
		OutputSoft:        64 << 20,
		OutputSoftTime:    60 * time.Second,
	}
}

func (c *Config) logf(msg string) {
	if c.Log != nil {
		c.Log(msg)
	}
}
