package engine

// WATCH: a transaction remembers the state of each watched key and EXEC
// compares it again, inside the gate, before running anything. WATCH asks
// for the key's CAS unique (casOf gives it one if nobody had), and every
// write through either protocol gives a key that has one a new one;
// creating or removing a watched key, and changing its expiry, bumps a
// generation in the shard's small registry of watched keys, so a key
// created and deleted again between WATCH and EXEC still counts as
// modified. A mark
// that still matches means nobody modified the key — exactly the
// modifications Redis's signalModifiedKey reports; writes that change
// nothing (SADD of a present member) leave it alone, as in Redis. Shards
// with no watched key pay one nil check on insert and remove.

// WatchMark is a key's state as WATCH sees it.
type WatchMark struct {
	exists   bool
	cas      uint64
	expireAt int64
	gen      uint32
}

// watchedGen is a watched key's registry entry.
type watchedGen struct {
	refs int32 // watches on the key
	gen  uint32
}

// bumpWatched records the creation or removal of key, or a change of its
// expiry, if it is watched.
func (s *shardData) bumpWatched(key []byte) {
	if w := s.watched[string(key)]; w != nil {
		w.gen++
	}
}

// Watch registers a watch on key and returns its mark; every Watch needs
// an Unwatch. A key that has expired but is not reclaimed yet counts as
// missing, and looking does not reclaim it: Redis's WATCH on an already
// expired key does not abort the EXEC when the key is later reclaimed, but
// does when a live key expires in between.
func (d DB) Watch(key []byte) WatchMark {
	s, h := d.shardOf(key)
	s.lock()
	defer s.unlock()
	if s.watched == nil {
		s.watched = map[string]*watchedGen{}
	}
	w := s.watched[string(key)]
	if w == nil {
		w = &watchedGen{}
		s.watched[string(key)] = w
	}
	w.refs++
	return d.markLocked(s, key, h, w)
}

// Unwatch drops one watch on key.
func (d DB) Unwatch(key []byte) {
	s, _ := d.shardOf(key)
	s.lock()
	defer s.unlock()
	w := s.watched[string(key)]
	if w == nil {
		return
	}
	if w.refs--; w.refs <= 0 {
		delete(s.watched, string(key))
		if len(s.watched) == 0 {
			s.watched = nil
		}
	}
}

// Unchanged reports whether key still has mark: nobody modified it since
// Watch. The key must still be watched.
func (d DB) Unchanged(key []byte, mark WatchMark) bool {
	s, h := d.shardOf(key)
	s.lock()
	defer s.unlock()
	return d.markLocked(s, key, h, s.watched[string(key)]) == mark
}

func (d DB) markLocked(s *shard, key []byte, h uint64, w *watchedGen) WatchMark {
	var m WatchMark
	if w != nil {
		m.gen = w.gen
	}
	slot := s.lookup(key, h)
	if slot < 0 || s.isExpired(&s.entries[slot], d.expiryNow(d.e.clock.NowMs())) {
		return m
	}
	en := &s.entries[slot]
	m.exists, m.cas, m.expireAt = true, d.e.casOf(&s.shardData, en), s.expireAt(en) // a read is no change
	return m
}
