package memproto

// Writes refused. Redis answers MISCONF to every write while the last
// background save failed, save rules exist and stop-writes-on-bgsave-error
// is on (snapshot.Manager.WritesRefused), or while the AOF cannot be
// written; the memcached port shares the keyspace and the persistence, so
// its writes are refused in the same states, with errWritesRefused (the
// AOF's own reason after SERVER_ERROR). On a read-only replica
// (replica-read-only) they are refused as Redis refuses its clients'
// writes there: a memcached write would otherwise make the replica
// differ from its master. Reads keep working.

// writeRefusal is the error r gets now, or "": r may change data
// (command.writes) and persistence or replication refuses writes.
func (fe *Frontend) writeRefusal(r *Request) string {
	if fe.svc == nil || !r.Cmd.writes(r) {
		return ""
	}
	if rdb, aofMsg := fe.svc.DiskError(); rdb {
		return errWritesRefused
	} else if aofMsg != "" {
		return "SERVER_ERROR " + aofMsg
	}
	if fe.svc.Replication.IsReplica() && fe.cfg.ReplicaReadOnly() {
		return errReadOnlyReplica
	}
	return ""
}

// refuseWrite answers a refused write. The error is sent whatever noreply
// or q say, as memcached sends every SERVER_ERROR.
func (s *session) refuseWrite(msg string) {
	s.out = append(s.out, msg...)
	s.out = append(s.out, '\r', '\n')
}
