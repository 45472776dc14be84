package engine

// Reads for debugging (DEBUG OBJECT, DEBUG DIGEST): a key's value as it is
// held, logically expired or not, without counting as an access or as a
// keyspace hit or miss and without reclaiming anything, as Redis's debug
// commands read its dictionary directly.

// PeekInfo is what Peek tells of a key beyond its value.
type PeekInfo struct {
	DumpInfo
	IdleMs int64 // since the last access
	Freq   int64 // the LFU counter after decay
}

// Peek calls fn with key's value, expiry and encoding, under the key's
// shard lock, like Dump but without reclaiming an expired key, touching
// it or counting a lookup: fn must not call the engine, and the slices
// are valid during the call only. It reports whether the key is held.
func (d DB) Peek(key []byte, fn func(it *SnapItem, info PeekInfo)) bool {
	s, h := d.shardOf(key)
	now := d.e.clock.NowMs()
	s.lock()
	defer s.unlock()
	slot := s.lookup(key, h)
	if slot < 0 {
		return false
	}
	it, di := d.dumped(s, slot)
	en := &s.entries[slot]
	fn(&it, PeekInfo{DumpInfo: di, IdleMs: int64(d.e.lruNow(now)-en.access) * 1000, Freq: d.e.freq(en, now)})
	return true
}

// PeekAll calls fn with every key database d holds, logically expired or
// not, as Peek does, one shard at a time under its lock. Keys written
// meanwhile in shards not visited yet are seen, as a SCAN sees them; run
// it in an exclusive section of the gate for one instant's keyspace.
func (d DB) PeekAll(fn func(it *SnapItem)) {
	for i := d.base; i < d.base+d.e.perDB; i++ {
		s := &d.e.shards[i]
		s.lock()
		for slot := range s.entries {
			if s.entries[slot].typ == TypeNone {
				continue
			}
			it, _ := d.dumped(s, slot)
			fn(&it)
		}
		s.unlock()
	}
}
