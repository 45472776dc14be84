package engine

import "errors"

// DUMP, RESTORE and MIGRATE (the front-end's cmd_dump.go): a key's whole
// value handed out with how it is held, so that the front-end can encode
// it as Redis does (snapshot/rdb's DUMP payloads), and a whole value
// written at once, as RESTORE writes it: under one shard lock, so that no
// other client sees the key half replaced.

// ErrBusyKey: RestoreKey found the key present and was not told to
// replace it.
var ErrBusyKey = errors.New("engine: target key exists")

// DumpInfo is how a dumped value is held, beyond its elements.
type DumpInfo struct {
	Encoding Encoding // what OBJECT ENCODING reports
	// IntsetWidth is an intset's bytes per member (2, 4 or 8), which
	// Redis never narrows after a wide member goes; 0 for other values.
	IntsetWidth int
}

// Dump calls fn with key's value, expiry and encoding, under the key's
// shard lock: fn must not call the engine, and the slices are valid
// during the call only. The lookup is a read, as Redis's lookupKeyRead: an
// access (LRU, LFU) and a keyspace hit or miss. It reports whether the key
// exists.
func (d DB) Dump(key []byte, fn func(it *SnapItem, info DumpInfo)) bool {
	k := d.lockKey(key)
	found := k.slot >= 0
	if found {
		d.touch(&k.s.entries[k.slot], k.now)
		it, info := d.dumped(k.s, k.slot)
		fn(&it, info)
	}
	k.s.unlock()
	d.countLookup(found)
	return found
}

// RestoreOptions are RESTORE's.
type RestoreOptions struct {
	Replace bool // REPLACE: an existing key is replaced; else ErrBusyKey
	Limits  RestoreLimits
	// IdleSeconds (IDLETIME) sets the key's idle time under a non-LFU
	// policy and Freq (FREQ) its LFU counter under an LFU policy; -1 for
	// neither. The other is ignored, as in Redis.
	IdleSeconds int64
	Freq        int
	// IntsetWidth, for a set that is an intset once restored, is its
	// bytes per member (2, 4 or 8) when wider than its members need:
	// Redis restores an intset payload as it is, and never narrows one.
	IntsetWidth int
}

// RestoreResult says what RestoreKey did.
type RestoreResult struct {
	Stored   bool // the key holds the value now
	Replaced bool // an existing key was removed (REPLACE)
}

// RestoreKey writes it (its key, value and expiry; it.DB is not used) as
// RESTORE does, in one step under the key's shard lock: ErrBusyKey when the
// key exists and o.Replace is not set; otherwise an existing key is
// removed and the value stored as a new key (encoded as the writes of its
// type would encode it, o.Limits deciding), unless its expiry has passed
// already, which leaves no key. Clients blocked on the key are served.
func (d DB) RestoreKey(it *SnapItem, o RestoreOptions) (RestoreResult, error) {
	var res RestoreResult
	// The aggregate is built before the lock is taken: it is the
	// expensive part, and it is nobody's until it is stored.
	var a aggregate
	switch it.Type {
	case TypeString:
	case TypeList:
		l := newList().(*list)
		for _, v := range it.Elems {
			l.push(ListRight, v)
		}
		a = l
	case TypeSet:
		sv := newSetValue().(*setValue)
		if w := o.IntsetWidth; w == 2 || w == 4 || w == 8 {
			sv.ints.width = uint8(w)
		}
		for _, m := range it.Elems {
			sv.add(m, o.Limits.Set)
		}
		a = sv
	case TypeHash:
		h := newHash().(*hash)
		for i := range it.Fields {
			h.set(it.Fields[i], it.Values[i], o.Limits.Hash)
		}
		a = h
	case TypeZSet:
		if len(it.Members) == 0 {
			return res, errors.New("engine: restoring an empty sorted set")
		}
		z := newZset(o.Limits.ZSet, len(it.Members[0].Member))
		var zr ZAddResult
		for _, m := range it.Members {
			if err := z.add(m.Member, m.Score, 0, o.Limits.ZSet, &zr); err != nil {
				return res, err
			}
		}
		a = z
	case TypeStream:
		if it.Stream == nil {
			return res, errBadStream
		}
		s, err := streamFromSnapshot(it.Stream)
		if err != nil {
			return res, err
		}
		a = s
	default:
		return res, errors.New("engine: restoring a value of no type")
	}
	if a != nil && a.length() == 0 {
		return res, errors.New("engine: restoring an empty " + it.Type.String())
	}

	k := d.lockKey(it.Key)
	defer k.s.unlock()
	s, h, now, slot := k.s, k.h, k.now, k.slot
	if slot >= 0 && !o.Replace {
		return res, ErrBusyKey
	}
	if d.overLimit() {
		return res, ErrOOM
	}
	if slot >= 0 {
		d.removeKey(s, slot, h)
		res.Replaced = true
	}
	if it.ExpireAt != 0 && it.ExpireAt <= d.expiryNow(now) { // already expired (Set says when not)
		return res, nil
	}
	m := recordMeta{expireAt: it.ExpireAt}
	if a == nil {
		slot = d.store(s, -1, it.Key, h, it.Value, encodingFor(it.Value), &m, now)
	} else {
		m.cas = d.newMeta().cas
		slot = s.insert(h, it.Key, nil, it.Type, m)
		s.setAgg(slot, it.Type, a)
		d.e.onWrite(&s.shardData, &s.entries[slot], now)
		s.changed(1)
		d.wrote()
	}
	en := &s.entries[slot]
	switch {
	case d.e.Policy().LFU():
		if o.Freq >= 0 {
			en.evict = d.e.lfuNow(now)<<8 | uint32(min(o.Freq, 255))
		}
	case o.IdleSeconds >= 0:
		// Back from now on the LRU clock, wrapping as OBJECT IDLETIME's
		// subtraction does.
		en.access = d.e.lruNow(now) - uint32(o.IdleSeconds)
	}
	res.Stored = true
	d.serveWaitersLocked(s, it.Key, h, now) // blocked clients (blocking.go)
	return res, nil
}

// DeleteIfDumped deletes key if same says its value is still the one a
// Dump handed out, calling it as Dump calls fn (under the shard lock, not
// an access). It reports whether it deleted. MIGRATE deletes what it
// moved this way, so a write that came between the dump and the target's
// answer is not lost.
func (d DB) DeleteIfDumped(key []byte, same func(it *SnapItem, info DumpInfo) bool) bool {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, slot := k.s, k.slot
	if slot < 0 {
		return false
	}
	it, info := d.dumped(s, slot)
	if !same(&it, info) {
		return false
	}
	d.removeKey(s, slot, k.h)
	return true
}

// dumped reads the value in slot as a snapshot would. The shard is locked.
func (d DB) dumped(s *shard, slot int) (SnapItem, DumpInfo) {
	en := &s.entries[slot]
	a := s.aggOf(slot)
	var it SnapItem
	snapItem(&it, d.num, &s.arena, en, a)
	info := DumpInfo{Encoding: en.encoding()}
	if sv, ok := a.(*setValue); ok && sv.ht == nil {
		info.IntsetWidth = int(sv.ints.width)
	}
	return it, info
}
