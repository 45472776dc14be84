package memproto

import "github.com/tandemkv/tandem/engine"

// Keyspace notifications for memcached writes (see the table in doc.go):
// each write reports, in database 0, the events the equivalent Redis
// command would, so a Redis client subscribed to __keyspace@0__:* sees
// memcached's writes too. The engine delivers them only when their class
// is enabled by notify-keyspace-events; with notifications off each call
// is an atomic load.

// notify reports event name of class on key.
func (f *Frontend) notify(class engine.Class, name string, key []byte) {
	f.db.Notify(class, name, key)
}

// notifyStored reports a stored item as Redis's SET does: "set", then
// "expire" when it was stored with an expiry (and "expired" when that
// expiry had already passed, which left no key).
func (f *Frontend) notifyStored(key []byte, mode engine.TTLMode, expired bool) {
	f.notify(engine.ClassString, "set", key)
	if mode == engine.TTLSet {
		f.notify(engine.ClassGeneric, "expire", key)
		if expired {
			f.notify(engine.ClassExpired, "expired", key)
		}
	}
}

// notifyExpiry reports an expiry change applied to an existing key (touch,
// gat, mg T) as Redis's GETEX does: "del" for a time already past (the
// key went), "expire" for a new time, "persist" when exptime 0 removed an
// expiry the key had (hadExpiry).
func (f *Frontend) notifyExpiry(key []byte, ch engine.ExpireChange, hadExpiry bool, now int64) {
	switch {
	case ch.Mode == engine.TTLSet && ch.At <= now:
		f.notify(engine.ClassGeneric, "del", key)
	case ch.Mode == engine.TTLSet:
		f.notify(engine.ClassGeneric, "expire", key)
	case ch.Mode == engine.TTLClear && hadExpiry:
		f.notify(engine.ClassGeneric, "persist", key)
	}
}

// getEx is DB.GetEx for an expiry change, reporting the change.
func (f *Frontend) getEx(db engine.DB, key []byte, ch engine.ExpireChange) (engine.Item, bool, error) {
	now := f.clock.NowMs()
	it, ok, err := db.GetEx(key, ch, false)
	if ok && err == nil {
		f.notifyExpiry(key, ch, it.ExpireAt != 0, now)
	}
	return it, ok, err
}

// deleted reports a key a command removed.
func (f *Frontend) deleted(key []byte) {
	f.notify(engine.ClassGeneric, "del", key)
}
