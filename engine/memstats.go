package engine

// IndexMemory returns the bytes database d's shards spend on finding keys
// rather than holding them: the entry slices and bucket arrays, at their
// capacity, as used memory accounts them (MEMORY STATS reports it as the
// database's overhead.hashtable.main). Each shard is locked in turn; a
// report, not a hot path.
func (d DB) IndexMemory() int64 {
	var n int64
	for i := d.base; i < d.base+d.e.perDB; i++ {
		s := &d.e.shards[i]
		s.mu.Lock()
		n += int64(cap(s.entries))*entrySize + int64(len(s.buckets))*bucketSize
		s.mu.Unlock()
	}
	return n
}
