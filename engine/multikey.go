package engine

// Multi-key commands (SMOVE, LMOVE, SINTERSTORE, ZUNIONSTORE, …) lock the
// shards of all their keys, in the one global ascending order, and then
// work on each key as single-key commands do. KeyTx is that locked view.

// KeyTx gives a command access to the keys it locked. It is valid only
// inside the function passed to WithKeys.
type KeyTx struct {
	d      DB
	now    int64
	keys   [][]byte
	idx    []int
	hashes []uint64
}

// WithKeys locks the shards of keys and runs fn. Keys are addressed by
// their position in keys.
func (d DB) WithKeys(keys [][]byte, fn func(tx *KeyTx) error) error {
	return d.withKeys(keys, true, fn)
}

// withKeys is WithKeys; serve says whether the keys' blocked clients are
// served at the end, which a command that only reads (XREAD, which may
// queue a waiter on the keys) must not do: Redis signals no key then, and
// a waiter just queued would be offered the very stream it found nothing
// new in.
func (d DB) withKeys(keys [][]byte, serve bool, fn func(tx *KeyTx) error) error {
	ls := d.newLockSet()
	tx := d.newKeyTx(keys, ls)
	tx.now = d.e.clock.NowMs()
	ls.lock()
	defer ls.unlock()
	err := fn(tx)
	if serve {
		tx.serveKeysLocked() // blocked clients (blocking.go)
	}
	return err
}

// newKeyTx locates keys and adds their shards to ls, which the caller
// then locks.
func (d DB) newKeyTx(keys [][]byte, ls *lockSet) *KeyTx {
	tx := &KeyTx{d: d, keys: keys, idx: make([]int, len(keys)), hashes: make([]uint64, len(keys))}
	for i, k := range keys {
		tx.idx[i], tx.hashes[i] = d.locate(k)
		ls.add(tx.idx[i])
	}
	return tx
}

func (tx *KeyTx) shard(i int) *shard { return &tx.d.e.shards[tx.idx[i]] }

// at finds key i in its (locked) shard, as lockKey does for one key.
func (tx *KeyTx) at(i int) keyAt {
	s := tx.shard(i)
	return keyAt{s: s, h: tx.hashes[i], now: tx.now, slot: tx.d.find(s, tx.keys[i], tx.hashes[i], tx.now)}
}

// Type returns the type of key i (TypeNone when missing).
func (tx *KeyTx) Type(i int) Type {
	k := tx.at(i)
	if k.slot < 0 {
		return TypeNone
	}
	return k.s.entries[k.slot].typ
}

// Aggregate is withAggregate for key i.
func (tx *KeyTx) Aggregate(i int, typ Type, create func() aggregate, op AggregateOp) (bool, error) {
	return tx.d.aggregateLocked(tx.at(i), tx.keys[i], typ, create, op)
}

// readAggregate is DB.readAggregate for key i.
func (tx *KeyTx) readAggregate(i int, typ Type, fn func(a aggregate)) (bool, error) {
	found, err := tx.Aggregate(i, typ, nil, func(a aggregate) (bool, error) {
		fn(a)
		return false, nil
	})
	tx.d.countLookup(found)
	return found, err
}

// firstOfType returns the first of the transaction's keys that exists,
// -1 when none does, and ErrWrongType when that key holds another type
// than typ: the choice of a pop from the first non-empty of several keys
// (LMPOP, BLPOP, ZMPOP, BZPOPMIN…). The keys after it are not looked at.
func (tx *KeyTx) firstOfType(typ Type) (int, error) {
	for i := range tx.keys {
		switch tx.Type(i) {
		case TypeNone:
			continue
		case typ:
			return i, nil
		default:
			return -1, ErrWrongType
		}
	}
	return -1, nil
}

// Store makes key i hold a (of type typ) whatever it held before, with no
// expiry — the destination of a *STORE command. An empty a deletes the
// key. It reports whether the key existed before.
func (tx *KeyTx) Store(i int, typ Type, a aggregate) bool {
	k, key, e := tx.at(i), tx.keys[i], tx.d.e
	s, h, slot := k.s, k.h, k.slot
	existed := slot >= 0
	if existed {
		tx.d.removeKey(s, slot, h)
	}
	if a.length() == 0 {
		if existed { // Redis's *STORE reports the destination it deleted
			tx.d.notifyLater(ClassGeneric, "del", key)
		}
		return existed
	}
	slot = s.insert(h, key, nil, typ, tx.d.newMeta())
	s.setAgg(slot, typ, a)
	e.onWrite(&s.shardData, &s.entries[slot], tx.now)
	s.changed(1)
	tx.d.wrote()
	return existed
}

// Delete removes key i; it reports whether it existed.
func (tx *KeyTx) Delete(i int) bool {
	k := tx.at(i)
	if k.slot < 0 {
		return false
	}
	tx.d.removeKey(k.s, k.slot, k.h)
	return true
}
