package engine

// memcached's per-item "fetched" bit (ITEM_FETCHED): the value has been
// read since it was written. memcached reports it (mg h, me fetch=) and
// counts the items that expire or are evicted without it
// (expired_unfetched, evicted_unfetched: memory spent on values nobody
// read).
//
// The bit is entryFetched in the entry's bits. A read
// of the value sets it: Get, GetEx (GETEX, GETDEL, memcached gat and
// touch), MGet, unless the handle is NoTouch (CLIENT NO-TOUCH, mg u, me).
// A write that replaces the value clears it (storeValue): a new value, as
// memcached's new item. memcached rewrites some items in place (incr, md
// I), keeping the bit: memproto restores it then with MarkFetched.

func (en *entry) fetched() bool { return en.bits&entryFetched != 0 }

// fetch records a read of the entry's value: touch, plus the fetched bit
// unless the handle is NoTouch. It reports whether the bit was set before.
func (d DB) fetch(en *entry, now int64) (was bool) {
	was = en.fetched()
	if !d.NoTouch {
		d.e.onRead(en, now)
		en.bits |= entryFetched
	}
	return was
}

// MarkFetched sets the fetched bit of key if it holds the version with
// CAS unique cas, for memcached writes that keep an item's bits (incr, md
// I) and items an mg creates and reads at once (mg N). It reports whether
// it did.
func (d DB) MarkFetched(key []byte, cas uint64) bool {
	k := d.lockKey(key)
	defer k.s.unlock()
	s := k.s
	if k.slot < 0 || s.cas(&s.entries[k.slot]) != cas {
		return false
	}
	s.entries[k.slot].bits |= entryFetched
	return true
}
