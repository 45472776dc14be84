package resp

// MISCONF and scripts. After a failed BGSAVE (snapshot.Manager.
// WritesRefused) Redis 7.0 refuses writes in two places, and so does
// Tandem:
//
//   - up front, in processCommand: EVAL, EVALSHA, FCALL and their _RO
//     forms count as writes when the script they would run declared its
//     flags (a shebang, or a function) without no-writes
//     (getCommandFlags, scriptFlagsToCmdFlags); exec refuses them with
//     MISCONF like any write, before numkeys is even read. A script
//     without a shebang (EVAL compatibility mode) is not refused;
//   - in scriptCall: redis.call and redis.pcall of a write command get
//     the MISCONF error, unless the script already wrote
//     (scriptHost.Call).

// scriptDiskError is diskError in the words scriptPrepareForRun refuses a
// script declaring writes with, or "".
func (f *Frontend) scriptDiskError() string {
	rdb, aofMsg := f.svc.DiskError()
	switch {
	case rdb:
		return ErrScriptMisconfRDB
	case aofMsg != "":
		return ErrScriptMisconfAOF + f.svc.AppendOnly.WriteError()
	}
	return ""
}

// diskError is the MISCONF reply writes get while persistence cannot
// write — a failed BGSAVE's, or the AOF's (services.DiskError) — or "".
func (f *Frontend) diskError() string {
	rdb, aofMsg := f.svc.DiskError()
	if rdb {
		return ErrMisconf
	}
	return aofMsg
}
