package engine

// memcached's per-item "fetched" bit (ITEM_FETCHED): the value has been
// read since it was written. memcached reports it (mg h, me fetch=) and
// counts the items that expire or are evicted without it
// (expired_unfetched, evicted_unfetched: memory spent on values nobody
// read).
//
// The entry has no spare byte, so the bit is the top bit of ttlGen, whose
// expiry-change counter runs in the 15 bits below it (setExpire). A read
// of the value sets it: Get, GetEx (GETEX, GETDEL, memcached gat and
// touch), MGet, unless the handle is NoTouch (CLIENT NO-TOUCH, mg u, me).
// A write that replaces the value clears it (storeKV): a new value, as
// memcached's new item. memcached rewrites some items in place (incr, md
// I), keeping the bit: memproto restores it then with MarkFetched.

// entryFetched is the fetched bit in entry.ttlGen.
const entryFetched uint16 = 1 << 15

func (en *entry) fetched() bool { return en.ttlGen&entryFetched != 0 }

// ttlGenOnly is ttlGen without the fetched bit, what WATCH compares.
func (en *entry) ttlGenOnly() uint16 { return en.ttlGen &^ entryFetched }

// fetch records a read of the entry's value: touch, plus the fetched bit
// unless the handle is NoTouch. It reports whether the bit was set before.
func (d DB) fetch(en *entry, now int64) (was bool) {
	was = en.fetched()
	if !d.NoTouch {
		d.e.onRead(en, now)
		en.ttlGen |= entryFetched
	}
	return was
}

// MarkFetched sets the fetched bit of key if it holds the version with
// CAS unique cas, for memcached writes that keep an item's bits (incr, md
// I) and items an mg creates and reads at once (mg N). It reports whether
// it did.
func (d DB) MarkFetched(key []byte, cas uint64) bool {
	s, h := d.shardOf(key)
	now := d.e.clock.NowMs()
	s.lock()
	defer s.mu.Unlock()
	slot := d.find(s, key, h, now)
	if slot < 0 || s.entries[slot].cas != cas {
		return false
	}
	s.entries[slot].ttlGen |= entryFetched
	return true
}
