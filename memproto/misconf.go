package memproto

// Writes refused after a failed BGSAVE. Redis answers MISCONF to every
// write while the last background save failed, save rules exist and
// stop-writes-on-bgsave-error is on (snapshot.Manager.WritesRefused); the
// memcached port shares the keyspace and the dump, so its writes are
// refused in the same state, with errWritesRefused. Reads keep working.

// writeRefused reports whether r must be refused now: it may change data
// (command.writes) and the snapshot manager refuses writes.
func (fe *Frontend) writeRefused(r *Request) bool {
	if fe.svc == nil || !r.Cmd.writes(r) {
		return false
	}
	rdb, aofMsg := fe.svc.DiskError()
	return rdb || aofMsg != ""
}

// refuseWrite answers a refused write. The error is sent whatever noreply
// or q say, as memcached sends every SERVER_ERROR.
func (s *session) refuseWrite() {
	s.out = append(s.out, errWritesRefused+"\r\n"...)
}
