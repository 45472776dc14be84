// Package repl is Redis 7.0's PSYNC2 replication, both roles, for a
// server whose writes arrive as a stream of Redis commands.
//
// # Master side
//
// A Primary is a Sink of the write stream (Feed). Each command goes to
// the backlog (a ring of repl-backlog-size bytes, made when the first
// replica attaches) and to every attached replica, after a SELECT when
// its database differs from the stream's last; master_repl_offset counts
// every byte. A connection becomes a replica in three steps the
// front-end routes here: REPLCONF (Link.Replconf) records its port and
// capabilities; PSYNC <replid> <offset> or SYNC (Link.Sync) either
// continues (+CONTINUE, then the backlog from the offset: the replid is
// ours, or our previous one up to where it was valid, and the offset is
// still held) or starts a full sync (+FULLRESYNC <replid> <offset>, then
// an RDB from Config.Snapshot, diskless as $EOF:<mark>…<mark> or spooled
// to a file and sent as $<len>); writes fed after the snapshot's cut are
// held and follow the RDB. Replicas waiting together share one snapshot:
// a diskless one starts after repl-diskless-sync-delay (or
// repl-diskless-sync-max-replicas waiting), and one arriving while a
// snapshot runs waits for the next, as Redis with a socket target. REPLCONF ACK moves the replica's acknowledged
// offset, which WAIT (WaitAsync), ROLE, INFO and min-replicas-to-write
// (GoodReplicas) read. Cron, once a second, feeds "ping" every
// repl-ping-replica-period, drops replicas silent past repl-timeout and
// replicas over client-output-buffer-limit replica, and frees the
// backlog after repl-backlog-ttl alone.
//
// # Replica side
//
// StartReplica runs the link on a goroutine: connect, PING, AUTH,
// REPLCONF listening-port / capa eof capa psync2, PSYNC with the cached
// history (or "? -1"), then either the RDB into Callbacks.Load or
// +CONTINUE, then the stream: each command is parsed (ParseCommand),
// handed to Callbacks.Apply, and its bytes advance the processed offset
// (a MULTI's at its EXEC) and are proxied unchanged to this server's own
// replicas, so a chain shares one history and one offset. Feed is
// ignored meanwhile, so commands Apply runs are not fed twice. ACKs go
// once a second and on REPLCONF GETACK. Replica.Stop (REPLICAOF NO ONE)
// promotes: the master's ID becomes the secondary one, valid up to the
// next byte, so fellow replicas continue with the new master.
//
// # Wiring
//
// One Primary per server (NewPrimary, Close at shutdown; SetConfig on
// CONFIG SET of repl-backlog-size, repl-timeout, min-replicas-*,
// client-output-buffer-limit replica…). It is one Sink of the write
// stream; the stream goes to every sink on a replica too (the AOF wants
// the master's writes), and the Primary drops what it is fed there.
// The front-end gives a connection a Link at its first REPLCONF or
// (P)SYNC and Link.Close when it closes; WAIT is WaitAsync with the
// Offset read after the client's last write (CountAcks inside MULTI);
// ROLE and INFO replication render Role and Info; a write on a master is
// refused while EnoughReplicas is false (-NOREPLICAS), and on a replica
// (IsReplica) unless replica-read-only is off. REPLICAOF host port is
// StartReplica (AtStartup for the replicaof directive), REPLICAOF NO
// ONE is Replica.Stop. A dump the server saves (SAVE, BGSAVE, a save
// rule, SHUTDOWN) records the AUX fields SaveCut's at returns at its
// instant; start-up gives RestoreHistory what the loaded RDB recorded.
// The Primary is a propagate.ReplicaSink: ops for replicas only (PUBLISH)
// reach it and not the AOF.
//
// # Locks
//
// Primary.mu guards all state, the replica link's included. The log's
// lock (the caller's, around Feed and the snapshot's cut) is taken before
// it; gate (a full sync's cut on a replica, against the apply loop) before
// both. ReplicaConn.Send is called under mu and must not call back.
package repl
