package engine

import "sync"

// A replica's own keys with a TTL. While keys expire by the master's DELs
// (SetExpiryByMaster), nothing on the replica reclaims an expired key: the
// master's DEL will. But a writable replica's clients may write keys of
// their own with a TTL, which no DEL of the master will ever come for.
// Redis remembers those keys (rememberSlaveKeyWithExpire) and expires
// them itself each cron (expireSlaveKeys); ownExpires is that memory:
// every key a handle other than the master's gave an expiry while the
// engine is a replica, by database, until the key is gone or has no TTL.
type ownExpires struct {
	mu   sync.Mutex
	keys map[string]uint64 // key → bit i: set in database i
}

// maxOwnExpireDB: databases past the bitmap are not remembered (their
// own keys wait for a DEL), as Redis's 64-bit map of databases.
const maxOwnExpireDB = 64

func (o *ownExpires) note(db int, key []byte) {
	if db >= maxOwnExpireDB {
		return
	}
	o.mu.Lock()
	if o.keys == nil {
		o.keys = map[string]uint64{}
	}
	o.keys[string(key)] |= 1 << db
	o.mu.Unlock()
}

// Len is the number of keys remembered (Redis's
// getSlaveKeyWithExpireCount).
func (o *ownExpires) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.keys)
}

func (o *ownExpires) reset() {
	o.mu.Lock()
	o.keys = nil
	o.mu.Unlock()
}

// noteOwnExpire remembers key when the write that gives it the expiry at
// is a replica's own: made through a handle other than its master's (the
// shard's lock holder says which, own), while keys expire by the master.
func (s *shardData) noteOwnExpire(key []byte, at int64) {
	if at != 0 && s.own && s.eng != nil && s.eng.expiryByMaster.Load() {
		s.eng.ownExpires.note(s.db, key)
	}
}

// OwnExpiringKeys is how many keys of its own with a TTL a replica
// remembers (expireOwnKeys).
func (e *Engine) OwnExpiringKeys() int { return e.ownExpires.Len() }

// expireOwnKeys reclaims the remembered keys that have expired and forgets
// those gone or without a TTL any more: the replica's part of the expiry
// cycle. The caller is inside the gate.
func (e *Engine) expireOwnKeys(now int64) int {
	o := &e.ownExpires
	o.mu.Lock()
	keys := make(map[string]uint64, len(o.keys))
	for k, dbs := range o.keys {
		keys[k] = dbs
	}
	o.mu.Unlock()
	fx := e.effectHook()
	reclaimed := 0
	for k, dbs := range keys {
		for db := 0; db < e.databases && dbs>>db != 0; db++ {
			if dbs&(1<<db) != 0 && e.expireOwnKey(e.DB(db), []byte(k), now, fx) {
				reclaimed++
			}
		}
	}
	return reclaimed
}

// expireOwnKey looks at one remembered key of d: reclaims it if it has
// expired, with its DEL in the effects stream (a sub-replica and the AOF
// see it, as Redis propagates its replica's own expiries), and forgets it
// unless it still waits for an expiry. It reports whether it reclaimed.
// The decision and the bit change are made under the key's shard lock,
// which every note of the key holds too, so none is lost.
func (e *Engine) expireOwnKey(d DB, key []byte, now int64, fx EffectHook) bool {
	if fx != nil {
		fx.Lock() // the stream orders the DEL with the commands' writes, as the cycle's
		defer fx.Unlock()
	}
	s, h := d.shardOf(key)
	s.lock()
	defer s.unlock()
	slot := s.lookup(key, h)
	reclaim := slot >= 0 && s.isExpired(&s.entries[slot], now)
	if reclaim {
		e.reclaimNow(&s.shardData, slot, h, d.num)
	}
	if reclaim || slot < 0 || s.expireAt(&s.entries[slot]) == 0 {
		e.ownExpires.forget(d.num, key)
	}
	return reclaim
}

func (o *ownExpires) forget(db int, key []byte) {
	o.mu.Lock()
	if dbs := o.keys[string(key)] &^ (1 << db); dbs == 0 {
		delete(o.keys, string(key))
	} else {
		o.keys[string(key)] = dbs
	}
	o.mu.Unlock()
}
