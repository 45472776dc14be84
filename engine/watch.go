package engine

// WATCH: a transaction remembers the state of each watched key and EXEC
// compares it again, inside the gate, before running anything. Every write
// through either protocol gives an entry a new CAS, every expiry change
// bumps its ttlGen, and deletion or logical expiry makes it missing, so a
// mark that still matches means nobody modified the key, exactly the
// modifications Redis's signalModifiedKey reports. Writes that change
// nothing (SADD of a present member) leave the mark alone, as in Redis.
// The mark costs nothing on the write path: no registry of watchers.

// WatchMark is a key's state as WATCH sees it.
type WatchMark struct {
	exists   bool
	cas      uint64
	expireAt int64
	ttlGen   uint16
}

// Watch returns key's mark. A key that has expired but is not reclaimed
// yet counts as missing, and looking does not reclaim it: Redis's WATCH
// on an already expired key does not abort the EXEC when the key is later
// reclaimed, but does when a live key expires in between.
func (d DB) Watch(key []byte) WatchMark {
	s, h := d.shardOf(key)
	now := d.e.clock.NowMs()
	s.mu.Lock()
	defer s.mu.Unlock()
	slot := s.lookup(key, h)
	if slot < 0 || s.entries[slot].isExpired(now) {
		return WatchMark{}
	}
	en := &s.entries[slot]
	return WatchMark{exists: true, cas: en.cas, expireAt: en.expireAt, ttlGen: en.ttlGen}
}
