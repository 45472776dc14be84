package engine

import (
	"hash/maphash"
	"math/rand/v2"

	"github.com/tandemkv/tandem/internal/glob"
)

// Delete removes keys and returns how many existed (DEL, UNLINK, memcached
// delete). A key given twice counts once.
func (d DB) Delete(keys ...[]byte) int {
	return d.eachExisting(keys, func(k keyAt) { d.removeKey(k.s, k.slot, k.h) })
}

// eachExisting looks keys up one at a time, all at one now, and runs fn
// (when not nil) on each that exists, with its shard locked. It returns
// how many existed.
func (d DB) eachExisting(keys [][]byte, fn func(k keyAt)) int {
	n := 0
	now := d.e.clock.NowMs()
	for _, key := range keys {
		k := d.lockKeyAt(key, now)
		if k.slot >= 0 {
			if fn != nil {
				fn(k)
			}
			n++
		}
		k.s.unlock()
	}
	return n
}

// DeleteIf removes key only if its CAS unique is cas (memcached delete with
// a CAS, meta md C). It reports whether the key existed and whether it was
// deleted.
func (d DB) DeleteIf(key []byte, cas uint64) (existed, deleted bool) {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, slot := k.s, k.slot
	if slot < 0 {
		return false, false
	}
	if cas != 0 && s.cas(&s.entries[slot]) != cas {
		return true, false
	}
	d.removeKey(s, slot, k.h)
	return true, true
}

// Exists counts how many of keys exist; a key given twice counts twice.
// Each key counts as a keyspace hit or miss, as Redis's EXISTS does.
func (d DB) Exists(keys ...[]byte) int {
	n := d.eachExisting(keys, nil)
	d.CountLookups(n, len(keys)-n)
	return n
}

// countLookup counts one read lookup: a keyspace hit when found, else a
// miss.
func (d DB) countLookup(found bool) {
	if found {
		d.CountLookups(1, 0)
	} else {
		d.CountLookups(0, 1)
	}
}

// CountLookups adds to the keyspace hit and miss counters, for reads that
// Redis counts but that go through calls which do not (Info for TTL, TYPE
// and OBJECT). The caller holds no shard lock, so these go to the
// engine's own counters: they are not the hot path that keeps its counts
// in the key's shard (tally.go).
func (d DB) CountLookups(hits, misses int) {
	if hits > 0 {
		d.e.stats.hits.Add(int64(hits))
	}
	if misses > 0 {
		d.e.stats.misses.Add(int64(misses))
	}
}

// Touch updates the access time of existing keys and counts them (TOUCH).
// Each key counts as a keyspace hit or miss.
func (d DB) Touch(keys ...[]byte) int {
	n := d.eachExisting(keys, func(k keyAt) { d.e.onRead(&k.s.entries[k.slot], k.now) })
	d.CountLookups(n, len(keys)-n)
	return n
}

// KeyInfo is a key's metadata (TYPE, TTL, OBJECT).
type KeyInfo struct {
	Type     Type
	Encoding Encoding
	ExpireAt int64  // unix ms; 0 = none
	IdleMs   int64  // since the last access
	CAS      uint64 // with TrackCAS; else the key's CAS unique if it has one, or 0
	Flags    uint32
	// Freq is the LFU access counter after decay (OBJECT FREQ); meaningful
	// under an LFU policy.
	Freq int64
	// Fetched is memcached's fetched bit: the value was read since it was
	// written (fetched.go).
	Fetched bool
	// Len is a string's length as a reader sees it (decompressed); 0 for
	// other types.
	Len int
	// Value is a string's value, for OBJECT REFCOUNT's shared-integer
	// check; nil for other types, and for a value stored compressed (never
	// an integer: compress.go), which Info does not decompress. Immutable
	// and shared: it stays valid and must not be modified.
	Value []byte
}

// Info returns a key's metadata without counting as an access.
func (d DB) Info(key []byte) (KeyInfo, bool) {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, now := k.s, k.now
	if k.slot < 0 {
		return KeyInfo{}, false
	}
	en := &s.entries[k.slot]
	idle := int64(d.e.lruNow(now)-en.access) * 1000
	r := s.view(en)
	info := KeyInfo{Type: en.typ, Encoding: en.encoding(), ExpireAt: r.expireAt, IdleMs: idle, Freq: d.e.freq(en, now), CAS: r.cas, Flags: r.flags}
	if d.TrackCAS && info.CAS == 0 {
		info.CAS = d.e.casOf(&s.shardData, en)
	}
	info.Fetched = en.fetched()
	if en.typ == TypeString {
		info.Len = s.plainSize(en)
	}
	if en.typ == TypeString && en.codec() == CodecNone {
		info.Value = r.value
		en.bits |= entryShared // the record's bytes (arena.go)
	}
	return info, true
}

// ExpireCond is the EXPIRE option set: NX, XX, GT, LT.
type ExpireCond uint8

// Expire conditions (Redis 7).
const (
	ExpireNX ExpireCond = 1 << iota // only when the key has no expiry
	ExpireXX                        // only when it has one
	ExpireGT                        // only when the new one is later (no expiry counts as infinite)
	ExpireLT                        // only when the new one is sooner
)

// Expire sets the key's expiry to at (unix ms) under cond. An at not after
// now deletes the key. It reports whether the key existed and the
// condition held (ok, the EXPIRE reply), and whether the key was deleted
// because at was not after now (Redis's "del" event instead of "expire").
// An existing key counts as accessed even when the condition fails, as in
// Redis.
func (d DB) Expire(key []byte, at int64, cond ExpireCond) (ok, deleted bool) {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, h, now, slot := k.s, k.h, k.now, k.slot
	if slot < 0 {
		return false, false
	}
	en := &s.entries[slot]
	d.touch(en, now)
	cur := s.expireAt(en)
	switch {
	case cond&ExpireNX != 0 && cur != 0,
		cond&ExpireXX != 0 && cur == 0,
		cond&ExpireGT != 0 && (cur == 0 || at <= cur),
		cond&ExpireLT != 0 && cur != 0 && at >= cur:
		return false, false
	}
	if at <= d.expiryNow(now) { // already expired (Set says when not)
		d.removeKey(s, slot, h)
		return true, true
	}
	s.setExpire(en, at)
	s.changed(1)
	d.wrote()
	return true, false
}

// Persist removes the key's expiry; it reports whether there was one.
// An existing key counts as accessed either way, as in Redis.
func (d DB) Persist(key []byte) bool {
	k := d.lockKey(key)
	defer k.s.unlock()
	s := k.s
	if k.slot < 0 {
		return false
	}
	en := &s.entries[k.slot]
	d.touch(en, k.now)
	if s.expireAt(en) == 0 {
		return false
	}
	s.setExpire(en, 0)
	s.changed(1)
	d.wrote()
	return true
}

// Size returns the number of keys (DBSIZE), counting expired keys not yet
// reclaimed, as Redis does.
func (d DB) Size() int { return int(d.e.dbKeys[d.num].Load()) }

// Reserve prepares the database for about n keys (a dump's RESIZEDB hint
// when loading): each shard's entries and index are sized for its share
// at once instead of growing key by key.
func (d DB) Reserve(n int) {
	per := n / d.e.perDB // busier shards grow past it as usual
	for i := d.base; i < d.base+d.e.perDB; i++ {
		s := &d.e.shards[i]
		s.lock()
		s.sizeHint = per // applied by the first insert: an empty shard holds nothing
		s.unlock()
	}
}

// Volatile returns the number of keys with an expiry (INFO keyspace).
func (d DB) Volatile() int { return d.sumShards(func(s *shardData) int { return s.volatile }) }

// sumShards adds up a count over the database's shards, each read under
// its lock.
func (d DB) sumShards(count func(s *shardData) int) int {
	n := 0
	for i := d.base; i < d.base+d.e.perDB; i++ {
		s := &d.e.shards[i]
		s.lock()
		n += count(&s.shardData)
		s.unlock()
	}
	return n
}

// Flush removes every key of the database (FLUSHDB).
func (d DB) Flush() {
	d.e.flushed()
	d.flush()
}

// flush empties the database's shards.
func (d DB) flush() {
	for i := d.base; i < d.base+d.e.perDB; i++ {
		s := &d.e.shards[i]
		s.lock()
		if s.keys > 0 {
			s.changed(int64(s.keys))
			d.wrote()
		}
		s.reset()
		// The streams went without dropAgg: let unlock look at the
		// XREADGROUP waiters.
		s.streamDropped = len(s.waiters) > 0
		s.unlock()
	}
}

// FlushAll removes every key of every database.
func (e *Engine) FlushAll() {
	e.flushed()
	for n := 0; n < e.databases; n++ {
		e.DB(n).flush()
	}
}

// FlushExpiring makes every key of the database expire at `at` (unix ms)
// unless it already expires sooner: memcached's delayed flush_all.
// Keys written after the call are not affected.
func (d DB) FlushExpiring(at int64) {
	for i := d.base; i < d.base+d.e.perDB; i++ {
		s := &d.e.shards[i]
		s.lock()
		for j := range s.entries {
			en := &s.entries[j]
			if en.typ != TypeNone && (s.expireAt(en) == 0 || s.expireAt(en) > at) {
				s.setExpire(en, at)
			}
		}
		s.unlock()
	}
}

// Keys calls fn for every live key matching pattern (KEYS). fn runs with
// the key's shard locked: it must not call back into the engine and must
// copy the key if it keeps it.
func (d DB) Keys(pattern []byte, fn func(key []byte)) {
	now := d.expiryNow(d.e.clock.NowMs())
	all := len(pattern) == 1 && pattern[0] == '*'
	for i := d.base; i < d.base+d.e.perDB; i++ {
		s := &d.e.shards[i]
		s.lock()
		for j := range s.entries {
			en := &s.entries[j]
			if en.typ == TypeNone || s.isExpired(en, now) {
				continue
			}
			if k := s.key(en); all || glob.Match(pattern, k, false) {
				fn(k)
			}
		}
		s.unlock()
	}
}

// Scan walks the database from cursor, visiting about count slots, and
// calls fn for each live key that matches pattern (nil = all) and typ
// (TypeNone = all). It returns the next cursor; 0 means done. A cursor is
// (shard << 32 | pos): a shard's slots are walked downwards, pos 0 starting
// at the top and pos k going on at slot k-1. A key keeps its slot or moves
// to a lower one (packSlots), so a key present for the whole scan is
// always returned; one added or removed meanwhile may or may not be. With
// a typ, every key matching the pattern counts as a keyspace hit, as in
// Redis.
func (d DB) Scan(cursor uint64, count int, pattern []byte, typ Type, fn func(key []byte)) uint64 {
	if count < 1 {
		count = 10
	}
	shardIdx := int(cursor >> 32)
	pos := int(cursor & 0xffffffff)
	now := d.expiryNow(d.e.clock.NowMs())
	visited := 0
	// Redis checks a TYPE filter by looking each key that passed the
	// pattern up, which counts as a keyspace hit.
	typeChecks := 0
	defer func() { d.CountLookups(typeChecks, 0) }()
	for shardIdx < d.e.perDB {
		s := &d.e.shards[d.base+shardIdx]
		s.lock()
		slot := len(s.entries) - 1
		if pos > 0 {
			slot = min(pos-1, slot)
		}
		for slot >= 0 && visited < count {
			en := &s.entries[slot]
			slot--
			if en.typ == TypeNone {
				continue
			}
			if s.isExpired(en, now) {
				// As Redis: an expired key the scan meets is reclaimed
				// once it passed the pattern (the TYPE check looks it up,
				// a miss), so DBSIZE stops counting it.
				if pattern == nil || glob.Match(pattern, s.key(en), false) {
					if typ != TypeNone {
						d.CountLookups(0, 1)
					}
					d.e.reclaim(s, slot+1, maphash.Bytes(d.e.seed, s.key(en)), d.num)
				}
				continue
			}
			visited++
			if pattern != nil && !glob.Match(pattern, s.key(en), false) {
				continue
			}
			if typ != TypeNone {
				typeChecks++
				if en.typ != typ {
					continue
				}
			}
			fn(s.key(en))
		}
		s.unlock()
		if slot >= 0 {
			return uint64(shardIdx)<<32 | uint64(slot+1)
		}
		shardIdx++
		pos = 0
		if visited >= count {
			break
		}
	}
	if shardIdx >= d.e.perDB {
		return 0
	}
	return uint64(shardIdx) << 32
}

// RandomKey returns a random live key (RANDOMKEY); ok is false when the
// database is empty. Expired keys it draws are reclaimed, as Redis's
// dbRandomKey does.
func (d DB) RandomKey() (key []byte, ok bool) {
	now := d.expiryNow(d.e.clock.NowMs())
	// Random shards first; a sparse database falls back to a full walk so
	// a lone key is always found.
	for try := 0; try < 64; try++ {
		s := &d.e.shards[d.base+rand.IntN(d.e.perDB)]
		s.lock()
		if n := len(s.entries); s.keys > 0 && n > 0 {
			for probe := 0; probe < 8; probe++ {
				slot := rand.IntN(n)
				en := &s.entries[slot]
				if en.typ != TypeNone && s.isExpired(en, now) {
					d.e.reclaim(s, slot, maphash.Bytes(d.e.seed, s.key(en)), d.num)
				} else if en.typ != TypeNone {
					k := append([]byte(nil), s.key(en)...)
					s.unlock()
					return k, true
				}
			}
		}
		s.unlock()
	}
	start := rand.IntN(d.e.perDB)
	for i := 0; i < d.e.perDB; i++ {
		s := &d.e.shards[d.base+(start+i)%d.e.perDB]
		s.lock()
		for j := range s.entries {
			en := &s.entries[j]
			if en.typ != TypeNone && s.isExpired(en, now) {
				d.e.reclaim(s, j, maphash.Bytes(d.e.seed, s.key(en)), d.num)
			} else if en.typ != TypeNone {
				k := append([]byte(nil), s.key(en)...)
				s.unlock()
				return k, true
			}
		}
		s.unlock()
	}
	return nil, false
}

// Rename moves src to dst in the same database, replacing dst unless nx.
// It reports whether it renamed; ErrNoSuchKey when src is missing.
func (d DB) Rename(src, dst []byte, nx bool) (bool, error) {
	return d.e.transfer(d, src, d, dst, transferOpts{move: true, replace: !nx, keepTTL: true})
}

// Copy copies src to dst in database dstDB (COPY). It reports whether it
// copied: false when dst exists and replace is not set, or src is missing.
func (d DB) Copy(src []byte, dstDB DB, dst []byte, replace bool) (bool, error) {
	ok, err := d.e.transfer(d, src, dstDB, dst, transferOpts{replace: replace, keepTTL: true})
	if err == ErrNoSuchKey {
		return false, nil
	}
	return ok, err
}

// Move moves key to database dstDB if it does not exist there (MOVE).
func (d DB) Move(key []byte, dstDB DB) (bool, error) {
	if d.num == dstDB.num {
		return false, ErrSameObject
	}
	ok, err := d.e.transfer(d, key, dstDB, key, transferOpts{move: true, keepTTL: true})
	if err == ErrNoSuchKey {
		return false, nil
	}
	return ok, err
}

type transferOpts struct {
	move    bool // delete the source afterwards
	replace bool // overwrite an existing destination
	keepTTL bool
}

// transfer is RENAME, COPY and MOVE: both keys' shards locked in order.
// As in Redis, the source counts as accessed, a copy is a new object (idle
// time 0), and COPY's read of the source is a keyspace hit or miss.
func (e *Engine) transfer(sd DB, src []byte, dd DB, dst []byte, o transferOpts) (bool, error) {
	dd.expiryAt = sd.expiryAt // one moment for both keys, stopped or not (At)
	si, sh := sd.locate(src)
	di, dh := dd.locate(dst)
	ls := sd.newLockSet()
	ls.add(si)
	ls.add(di)
	now := e.clock.NowMs()
	ls.lock()
	defer ls.unlock()
	ss, ds := &e.shards[si], &e.shards[di]
	sslot := sd.find(ss, src, sh, now)
	if !o.move {
		sd.countLookup(sslot >= 0)
	}
	if sslot < 0 {
		return false, ErrNoSuchKey
	}
	sd.touch(&ss.entries[sslot], now)
	if sd.num == dd.num && string(src) == string(dst) {
		if o.move {
			return o.replace, nil // RENAME k k succeeds; RENAMENX k k returns 0
		}
		return false, ErrSameObject
	}
	dslot := dd.find(ds, dst, dh, now)
	if dslot >= 0 && !o.replace {
		return false, nil
	}
	if o.move {
		ss.keyChanged(src) // Redis signals the source before the destination
	}
	if dslot >= 0 {
		dd.removeKey(ds, dslot, dh)
	}
	sen := ss.entries[sslot] // copy: the slot may move when ds grows
	agg := ss.aggOf(sslot)
	if agg != nil && !o.move {
		agg = agg.clone()
	}
	// A compressed value is copied as stored (enc keeps its codec bits).
	// The copy is a new version: a new CAS unique if the source had one.
	m := ss.meta(&sen)
	if m.cas != 0 || dd.TrackCAS {
		m.cas = e.nextCAS()
	}
	if !o.keepTTL {
		m.expireAt = 0
	}
	slot := ds.insert(dh, dst, ss.value(&sen), sen.typ, m)
	if agg != nil {
		// A moved aggregate is shared until the source's removal below
		// detaches it there.
		ds.setAgg(slot, sen.typ, agg)
	}
	en := &ds.entries[slot]
	en.enc, en.access, en.evict = sen.enc, sen.access, sen.evict
	ds.countCompressed(en, 1)
	if !o.move {
		e.onWrite(&ds.shardData, en, now)
	}
	ds.changed(1)
	dd.wrote()
	if o.move {
		// Re-find: inserting into the same shard may have grown entries.
		sd.removeKey(ss, ss.lookup(src, sh), sh)
	}
	dd.serveWaitersLocked(ds, dst, dh, now) // blocked clients (blocking.go)
	return true, nil
}

// SwapDB exchanges the contents of two databases atomically (SWAPDB),
// then serves the clients blocked on keys of either. swapped, when set,
// runs between the two, the databases still locked: there the caller
// propagates the swap, which Redis's stream shows before what serving
// does (an expired key a waiter finds is deleted after SWAPDB).
func (e *Engine) SwapDB(a, b int, swapped func()) {
	if a == b {
		return
	}
	ls := e.newLockSet()
	for i := 0; i < e.perDB; i++ {
		ls.add(a*e.perDB + i)
		ls.add(b*e.perDB + i)
	}
	ls.lock()
	defer ls.unlock()
	for i := 0; i < e.perDB; i++ {
		x, y := &e.shards[a*e.perDB+i], &e.shards[b*e.perDB+i]
		x.shardData, y.shardData = y.shardData, x.shardData
		x.watched, y.watched = y.watched, x.watched // watches stay with their database
		x.db, y.db = y.db, x.db                     // so do the key counters, whose counts swap below
	}
	ka, kb := e.dbKeys[a].Load(), e.dbKeys[b].Load()
	e.dbKeys[a].Store(kb)
	e.dbKeys[b].Store(ka)
	e.shards[a*e.perDB].changed(1)
	if swapped != nil {
		swapped()
	}
	e.serveAllLocked(ls.idx) // blocked clients (blocking.go)
}
