package engine

// Loading a snapshot: each key is written through the type's ordinary
// write path, so encodings and memory accounting are what the commands
// would give, then its expiry and memcached state are restored.

// RestoreLimits are the encoding thresholds loaded aggregates follow.
type RestoreLimits struct {
	Hash HashLimits
	Set  SetLimits
	ZSet ZsetLimits
}

// Restore writes a snapshot's key, replacing what the key held. A key
// whose expiry has passed is not loaded, unless the handle sees none
// expired (At) or the keys expire by the master's DELs
// (SetExpiryByMaster: a replica keeps what its master sent, as Redis's
// rdbLoad skips expired keys only on a master); it reports whether the
// key was loaded.
func (d DB) Restore(it *SnapItem, lim RestoreLimits) (bool, error) {
	if it.ExpireAt != 0 && !d.e.expiryByMaster.Load() && it.ExpireAt <= d.expiryNow(d.e.clock.NowMs()) {
		return false, nil
	}
	var err error
	switch it.Type {
	case TypeString:
		o := SetOptions{Flags: it.Flags}
		if it.ExpireAt != 0 {
			o.TTL, o.ExpireAt = TTLSet, it.ExpireAt
		}
		_, err = d.Set(it.Key, it.Value, o)
	case TypeList:
		if len(it.Elems) > 0 {
			_, err = d.LPushEnd(it.Key, ListRight, it.Elems, false)
		}
	case TypeSet:
		if len(it.Elems) > 0 {
			_, err = d.SAdd(it.Key, it.Elems, lim.Set)
		}
	case TypeHash:
		pairs := make([][]byte, 0, 2*len(it.Fields))
		for i := range it.Fields {
			pairs = append(pairs, it.Fields[i], it.Values[i])
		}
		if len(pairs) > 0 {
			_, err = d.HSet(it.Key, pairs, lim.Hash)
		}
	case TypeZSet:
		if len(it.Members) > 0 {
			_, err = d.ZAdd(it.Key, 0, it.Members, lim.ZSet)
		}
	case TypeStream:
		_, err = d.RestoreKey(it, RestoreOptions{Replace: true, IdleSeconds: -1, Freq: -1})
	}
	if err != nil {
		return false, err
	}
	if it.Type != TypeString && it.ExpireAt != 0 {
		d.Expire(it.Key, it.ExpireAt, 0)
	}
	if it.CAS != 0 {
		d.restoreCAS(it.Key, it.CAS)
	}
	return true, nil
}

// restoreCAS gives a loaded key its saved CAS unique and moves the CAS
// sequence past it, so new uniques never repeat a loaded one.
func (d DB) restoreCAS(key []byte, cas uint64) {
	for {
		cur := d.e.casSeq.Load()
		if cur >= cas || d.e.casSeq.CompareAndSwap(cur, cas) {
			break
		}
	}
	s, h := d.shardOf(key)
	s.lock()
	defer s.unlock()
	if slot := s.lookup(key, h); slot >= 0 {
		s.setCAS(&s.entries[slot], cas)
	}
}
