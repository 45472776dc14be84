package memproto

// The front-end's counters for readers outside it (package metrics), read
// at the reader's time from the same atomics "stats" prints, so exposing
// them adds nothing to a request. memcached counts commands by class
// (cmd_get, cmd_set, …), not by name, and has no per-command error count;
// these are its figures.

// Stats are the memcached front-end's counters at one moment, by the
// names memcached's "stats" gives them.
type Stats struct {
	CurrConnections, TotalConnections, RejectedConnections int64

	CmdGet, CmdSet, CmdFlush, CmdTouch, CmdMeta int64

	GetHits, GetMisses       int64
	DeleteHits, DeleteMisses int64
	IncrHits, IncrMisses     int64
	DecrHits, DecrMisses     int64
	CasHits, CasMisses       int64
	CasBadval                int64
	TouchHits, TouchMisses   int64

	StoreTooLarge, StoreNoMemory int64
	AuthCmds, AuthErrors         int64
	BytesRead, BytesWritten      int64
}

// Stats reads the front-end's counters.
func (f *Frontend) Stats() Stats {
	c := &f.stats
	return Stats{
		CurrConnections: c.currConns.Load(), TotalConnections: c.totalConns.Load(), RejectedConnections: c.rejectedConns.Load(),
		CmdGet: c.cmdGet.Load(), CmdSet: c.cmdSet.Load(), CmdFlush: c.cmdFlush.Load(), CmdTouch: c.cmdTouch.Load(), CmdMeta: c.cmdMeta.Load(),
		GetHits: c.getHits.Load(), GetMisses: c.getMisses.Load(),
		DeleteHits: c.deleteHits.Load(), DeleteMisses: c.deleteMisses.Load(),
		IncrHits: c.incrHits.Load(), IncrMisses: c.incrMisses.Load(),
		DecrHits: c.decrHits.Load(), DecrMisses: c.decrMisses.Load(),
		CasHits: c.casHits.Load(), CasMisses: c.casMisses.Load(), CasBadval: c.casBadval.Load(),
		TouchHits: c.touchHits.Load(), TouchMisses: c.touchMisses.Load(),
		StoreTooLarge: c.storeTooLarge.Load(), StoreNoMemory: c.storeNoMemory.Load(),
		AuthCmds: c.authCmds.Load(), AuthErrors: c.authErrors.Load(),
		BytesRead: c.bytesRead.Load(), BytesWritten: c.bytesWritten.Load(),
	}
}
