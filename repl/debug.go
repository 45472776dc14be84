package repl

// ChangeReplID gives the server a new replication ID and forgets the
// previous one (DEBUG CHANGE-REPL-ID, Redis's changeReplicationId and
// clearReplicationId2): replicas must then sync in full.
func (p *Primary) ChangeReplID() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.replid = newReplID()
	p.clearID2Locked()
}
