package memproto

import (
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/mclog"
)

// The meta protocol: mg ms md ma mn me. Replies echo the return flags in
// request order; q hides only the nominal reply of each command (EN for
// mg, HD for ms, md and ma); errors are always sent.

func metaCommands() []*command {
	return []*command{
		{name: "mg", shape: shapeMetaGet, minTokens: 3, run: (*session).metaGet},
		{name: "ms", shape: shapeMetaSet, minTokens: 3, run: (*session).metaSet},
		{name: "md", shape: shapeMetaDelete, minTokens: 3, run: (*session).metaDelete},
		{name: "ma", shape: shapeMetaArith, minTokens: 3, run: (*session).metaArith},
		{name: "mn", flushes: true, run: func(s *session, _ *Request) { s.out = append(s.out, "MN\r\n"...) }},
		{name: "me", shape: shapeMetaDebug, run: (*session).metaDebug},
	}
}

// appendMetaKey appends " k<key>", base64 and followed by " b" when the
// request used b.
func appendMetaKey(b []byte, r *Request) []byte {
	return appendKeyFlag(b, r.Key, r.Meta.Base64)
}

// appendKeyFlag appends " k<key>", in base64 and followed by " b" when
// binary.
func appendKeyFlag(b, key []byte, binary bool) []byte {
	b = append(b, " k"...)
	if binary {
		b = appendKeyBase64(b, key)
		return append(b, " b"...)
	}
	return append(b, key...)
}

// appendOpaqueAndKey appends the O and k flags in request order: all that
// a miss or a failure returns.
func appendOpaqueAndKey(b []byte, r *Request) []byte {
	for _, tok := range r.Meta.Tokens {
		switch tok[0] {
		case 'O':
			b = append(b, ' ')
			b = append(b, tok...)
		case 'k':
			b = appendMetaKey(b, r)
		}
	}
	return b
}

// expiryTrack follows what an item's expiry is at each point of a meta
// reply: T and N change it in flag order, and t shows it where it stands.
type expiryTrack struct {
	at  int64 // unix ms; 0 = none
	raw int32 // the exptime that set it, for ttlSeconds
}

// metaGet serves mg. A key holding a Redis hash, list, set or sorted set
// is a miss.
func (s *session) metaGet(r *Request) {
	fe := s.fe
	m := &r.Meta
	db := fe.db
	db.NoTouch = m.NoUpdate

	var sh *markShard
	if m.HasVivify || m.HasRecache || !fe.marks.empty() {
		sh = fe.marks.lock(r.Key)
		defer sh.unlock()
	}
	var idleSecs int64
	if m.Has('l') {
		if info, ok := db.Info(r.Key); ok {
			idleSecs = info.IdleMs / 1000
		}
	}
	var (
		it     engine.Item
		ok     bool
		newTTL expiryTrack
	)
	if m.HasTTL {
		ch := fe.expireChange(m.TTL)
		newTTL = expiryTrack{at: ch.At, raw: m.TTL}
		it, ok, _ = fe.getEx(db, r.Key, ch)
	} else {
		it, ok, _ = db.Get(r.Key)
	}
	created := false
	var vivTTL expiryTrack
	if !ok && m.HasVivify {
		vivTTL = expiryTrack{at: fe.expireAt(m.VivifyTTL), raw: m.VivifyTTL}
		created, it, ok = fe.vivify(r, nil, vivTTL, newTTL)
	}
	if !ok {
		fe.stats.cmdGet.Add(1)
		fe.stats.getMisses.Add(1)
		if m.NoReply {
			return
		}
		s.out = appendOpaqueAndKey(append(s.out, "EN"...), r)
		s.crlf()
		return
	}
	if m.HasTTL {
		fe.stats.cmdTouch.Add(1)
		fe.stats.touchHits.Add(1)
	} else {
		fe.stats.cmdGet.Add(1)
		fe.stats.getHits.Add(1)
	}

	var mk mark
	if sh != nil && !created {
		mk = fe.marks.get(sh, r.Key, it.CAS)
	}
	won := false
	exp := expiryTrack{at: it.ExpireAt}
	if created {
		exp = expiryTrack{}
	}
	b := s.out
	if m.Value {
		b = appendUint(append(b, "VA "...), uint64(len(it.Value)))
	} else {
		b = append(b, "HD"...)
	}
	for _, tok := range m.Tokens {
		switch tok[0] {
		case 'T':
			exp = newTTL
		case 'N':
			if created {
				exp = vivTTL
				won = true
			}
		case 'R':
			recache := fe.expireAt(m.RecacheTTL)
			if !mk.won && !created && exp.at != 0 && exp.at < recache {
				won = true
			}
		case 's':
			b = appendUint(append(b, " s"...), uint64(len(it.Value)))
		case 't':
			b = appendInt(append(b, " t"...), fe.ttlSeconds(exp.at, exp.raw))
		case 'c':
			b = appendUint(append(b, " c"...), it.CAS)
		case 'f':
			b = appendUint(append(b, " f"...), uint64(it.Flags))
		case 'l':
			b = appendInt(append(b, " l"...), idleSecs)
		case 'h':
			if it.Fetched { // as it was before this mg
				b = append(b, " h1"...)
			} else {
				b = append(b, " h0"...)
			}
		case 'O':
			b = append(append(b, ' '), tok...)
		case 'k':
			// As memcached, a hit shows the key as it was stored.
			b = appendKeyFlag(b, r.Key, fe.binary.has(it.CAS))
		}
	}
	if mk.won {
		b = append(b, " Z"...)
	}
	if mk.stale {
		b = append(b, " X"...)
		if !mk.won {
			won = true
		}
	}
	if created && !m.NoUpdate {
		// memcached counts the creating mg as a fetch; a hit was
		// marked by the read itself (engine.Item.Fetched).
		fe.db.MarkFetched(r.Key, it.CAS)
	}
	s.pin(r.Key)
	if won {
		b = append(b, " W"...)
		mk.won = true
		mk.cas = it.CAS
		fe.marks.set(sh, r.Key, mk, fe.markLive)
	}
	b = append(b, '\r', '\n')
	if m.Value {
		b = append(b, it.Value...)
		b = append(b, '\r', '\n')
	}
	it.Release() // copied out: a decompression buffer goes back
	s.out = b
}

// vivify creates key with value on a miss (mg N, ma N), with the expiry
// the N and T flags give in their order. It reports whether this request
// created it, and the item now there. The caller holds the mark shard.
func (fe *Frontend) vivify(r *Request, value []byte, viv, ttl expiryTrack) (bool, engine.Item, bool) {
	at := int64(0)
	for _, tok := range r.Meta.Tokens {
		switch tok[0] {
		case 'N':
			at = viv.at
		case 'T':
			at = ttl.at
		}
	}
	mode := engine.TTLClear
	if at != 0 {
		mode = engine.TTLSet
	}
	res, err := fe.db.Set(r.Key, value, engine.SetOptions{Cond: engine.CondAbsent, TTL: mode, ExpireAt: at})
	if err != nil {
		return false, engine.Item{}, false
	}
	if !res.Stored {
		// Another client created it meanwhile.
		db := fe.db
		db.NoTouch = r.Meta.NoUpdate
		it, ok, _ := db.Get(r.Key)
		return false, it, ok
	}
	fe.stats.totalItems.Add(1)
	fe.notifyStored(r.Key, mode, res.Expired)
	return true, engine.Item{Value: value, CAS: res.CAS, ExpireAt: at, Type: engine.TypeString}, true
}

// metaSet serves ms.
func (s *session) metaSet(r *Request) {
	fe := s.fe
	m := &r.Meta
	fe.stats.cmdSet.Add(1)
	op := opSet
	switch m.Mode {
	case 'E':
		op = opAdd
	case 'A':
		op = opAppend
	case 'P':
		op = opPrepend
	case 'R':
		op = opReplace
	}
	if m.HasCAS && (op == opSet || op == opReplace) {
		op = opCAS
	}
	var casArg uint64
	if m.HasCAS {
		casArg = m.CompareCAS
	}
	var exptime int32
	if m.HasTTL {
		exptime = m.TTL
	}
	var (
		st     storeStatus
		newCAS uint64
		err    error
	)
	if op == opCAS && m.Invalidate {
		st, newCAS, err = fe.storeStale(r, exptime)
	} else {
		st, newCAS, err = fe.storeItem(r.Key, r.Data, op, m.ClientFlags, exptime, casArg)
	}
	s.logStore(r.Key, r.Data, op, exptime, st, err)
	if err != nil {
		s.out = append(s.out, fe.storeError(r.Key, true, err)...)
		s.crlf()
		return
	}
	if st == statusStored && m.Base64 {
		fe.binary.mark(newCAS)
	}
	if st == statusStored && m.NoReply {
		return
	}
	b := append(s.out, st.metaCode()...)
	for _, tok := range m.Tokens {
		switch tok[0] {
		case 'O':
			b = append(append(b, ' '), tok...)
		case 'k':
			b = appendMetaKey(b, r)
		case 'c':
			b = appendUint(append(b, " c"...), newCAS)
		}
	}
	s.out = append(b, '\r', '\n')
}

// storeStale is ms with C and I: a CAS that matches stores as usual; one
// older than the item's stores the value anyway, keeping the item's expiry,
// and marks it stale (mg then returns X).
func (fe *Frontend) storeStale(r *Request, exptime int32) (storeStatus, uint64, error) {
	m := &r.Meta
	sh := fe.marks.lock(r.Key)
	defer sh.unlock()
	st, cas, err := fe.storeItem(r.Key, r.Data, opCAS, m.ClientFlags, exptime, m.CompareCAS)
	if err != nil || st != statusExists {
		return st, cas, err
	}
	info, ok := fe.db.Info(r.Key)
	// memcached never takes C0 as older: it answers EX.
	if !ok || info.Type != engine.TypeString || m.CompareCAS == 0 || m.CompareCAS >= info.CAS {
		return st, cas, nil
	}
	old := fe.marks.get(sh, r.Key, info.CAS)
	res, err := fe.db.Set(r.Key, r.Data, engine.SetOptions{Cond: engine.CondCAS, CAS: info.CAS, TTL: engine.TTLKeep, Flags: m.ClientFlags})
	if err != nil {
		return 0, 0, err
	}
	if !res.Stored {
		return statusExists, 0, nil
	}
	fe.stats.totalItems.Add(1)
	fe.notify(engine.ClassString, "set", r.Key)
	fe.marks.set(sh, r.Key, mark{cas: res.CAS, stale: true, won: old.won}, fe.markLive)
	return statusStored, res.CAS, nil
}

// metaDelete serves md. It deletes a key of any type; I marks a string
// stale instead (a key of another type is deleted).
func (s *session) metaDelete(r *Request) {
	fe := s.fe
	m := &r.Meta
	var code string
	switch {
	case m.Invalidate:
		code = fe.invalidate(r)
	case m.HasCAS && m.CompareCAS == 0:
		// No item has CAS 0: memcached compares and finds a mismatch.
		code = "NF"
		if fe.db.Exists(r.Key) > 0 {
			code = "EX"
		}
	case m.HasCAS:
		existed, deleted := fe.db.DeleteIf(r.Key, m.CompareCAS)
		switch {
		case deleted:
			fe.deleted(r.Key)
			code = "HD"
		case existed:
			code = "EX"
		default:
			code = "NF"
		}
	default:
		code = "NF"
		if fe.db.Delete(r.Key) > 0 {
			fe.deleted(r.Key)
			code = "HD"
		}
	}
	switch code {
	case "HD":
		if !m.Invalidate {
			fe.stats.deleteHits.Add(1)
		}
		if m.NoReply {
			return
		}
	default:
		fe.stats.deleteMisses.Add(1)
	}
	s.out = appendOpaqueAndKey(append(s.out, code...), r)
	s.crlf()
}

// invalidate is md I: the item stays, with a new CAS unique, the expiry of
// T if given, and a stale mark; the next mg wins the right to recache it.
func (fe *Frontend) invalidate(r *Request) string {
	m := &r.Meta
	sh := fe.marks.lock(r.Key)
	defer sh.unlock()
	db := fe.db
	db.NoTouch = true
	info, ok := db.Info(r.Key)
	if !ok {
		return "NF"
	}
	if m.HasCAS && info.CAS != m.CompareCAS {
		return "EX"
	}
	it, ok, err := db.Get(r.Key)
	if err == engine.ErrWrongType {
		if db.Delete(r.Key) > 0 {
			fe.deleted(r.Key)
		}
		return "HD"
	}
	if !ok {
		return "NF"
	}
	o := engine.SetOptions{Cond: engine.CondCAS, CAS: it.CAS, TTL: engine.TTLKeep, Flags: it.Flags}
	if m.HasTTL {
		o.TTL, o.ExpireAt = fe.ttlMode(m.TTL)
	}
	now := fe.clock.NowMs()
	res, err := db.Set(r.Key, it.Value, o)
	if err != nil || !res.Stored {
		return "EX"
	}
	if m.HasTTL { // the item stays: only its expiry changed
		fe.notifyExpiry(r.Key, engine.ExpireChange{Mode: o.TTL, At: o.ExpireAt}, it.ExpireAt != 0, now)
	}
	if res.CAS != 0 {
		if it.Fetched { // memcached marks the item stale in place
			db.MarkFetched(r.Key, res.CAS)
		}
		fe.carryBits(it.CAS, res.CAS)
		fe.marks.set(sh, r.Key, mark{cas: res.CAS, stale: true}, fe.markLive)
	}
	return "HD"
}

// metaArith serves ma. A key of another type is "non-numeric".
func (s *session) metaArith(r *Request) {
	fe := s.fe
	m := &r.Meta
	db := fe.db
	decr := m.Mode == 'D' || m.Mode == '-'
	delta := uint64(1)
	if m.HasDelta {
		delta = m.Delta
	}
	var casArg uint64
	if m.HasCAS {
		casArg = m.CompareCAS
	}
	var sh *markShard
	if m.HasVivify {
		sh = fe.marks.lock(r.Key) // one creator at a time
		defer sh.unlock()
	}
	val, cas, found, mismatch, err := fe.incr(r.Key, delta, decr, casArg, s.pinned(r.Key))
	switch {
	case err == engine.ErrNotInteger:
		s.out = append(s.out, errNonNumeric+"\r\n"...)
		return
	case err == engine.ErrOOM:
		s.out = append(s.out, errOOM+"\r\n"...)
		return
	case err != nil:
		s.out = append(s.out, "SERVER_ERROR "+err.Error()+"\r\n"...)
		return
	case mismatch && fe.emptyString(r.Key):
		// memcached refuses an empty value before it compares the CAS.
		s.out = append(s.out, errNonNumeric+"\r\n"...)
		return
	case mismatch:
		s.out = appendOpaqueAndKey(append(s.out, "EX"...), r)
		s.crlf()
		return
	}
	var digits [20]byte
	var number []byte
	created := false
	var ttlT, vivT expiryTrack
	if m.HasTTL {
		ttlT = expiryTrack{at: fe.expireAt(m.TTL), raw: m.TTL}
	}
	var it engine.Item
	switch {
	case found:
		if decr {
			fe.stats.decrHits.Add(1)
		} else {
			fe.stats.incrHits.Add(1)
		}
		if m.NoReply {
			if m.HasTTL {
				fe.touchKey(r.Key, fe.expireChange(m.TTL))
			}
			return
		}
		number = appendUint(digits[:0], val)
		it.CAS = cas
		if m.Has('t') || m.HasTTL {
			if info, ok := db.Info(r.Key); ok {
				it.ExpireAt = info.ExpireAt
			}
		}
	case m.HasVivify:
		vivT = expiryTrack{at: fe.expireAt(m.VivifyTTL), raw: m.VivifyTTL}
		number = appendUint(digits[:0], m.Initial)
		var ok bool
		created, it, ok = fe.vivify(r, number, vivT, ttlT)
		if created && fe.log.Wants(mclog.Fetchers|mclog.Mutations) {
			// memcached stores the new number as an add, which looks the
			// key up again (watch.go)
			if fe.log.Wants(mclog.Fetchers) {
				s.logGet(r.Key, false, 0)
			}
			s.logStore(r.Key, number, opAdd, m.VivifyTTL, statusStored, nil)
		}
		if !created {
			if !ok {
				s.out = append(s.out, errOOMVivify+"\r\n"...)
				return
			}
			s.out = appendOpaqueAndKey(append(s.out, "NS"...), r)
			s.crlf()
			return
		}
	default:
		if decr {
			fe.stats.decrMisses.Add(1)
		} else {
			fe.stats.incrMisses.Add(1)
		}
		s.out = appendOpaqueAndKey(append(s.out, "NF"...), r)
		s.crlf()
		return
	}
	if found && m.HasTTL {
		fe.touchKey(r.Key, fe.expireChange(m.TTL))
	}
	exp := expiryTrack{at: it.ExpireAt}
	if created {
		exp = expiryTrack{}
	}
	b := s.out
	if m.Value {
		b = appendUint(append(b, "VA "...), uint64(len(number)))
	} else {
		b = append(b, "HD"...)
	}
	for _, tok := range m.Tokens {
		switch tok[0] {
		case 'c':
			b = appendUint(append(b, " c"...), it.CAS)
		case 't':
			b = appendInt(append(b, " t"...), fe.ttlSeconds(exp.at, exp.raw))
		case 'T':
			exp = ttlT
		case 'N':
			if created {
				exp = vivT
			}
		case 'O':
			b = append(append(b, ' '), tok...)
		case 'k':
			b = appendMetaKey(b, r)
		}
	}
	b = append(b, '\r', '\n')
	if m.Value {
		b = append(b, number...)
		b = append(b, '\r', '\n')
	}
	s.out = b
}

// metaDebug serves me: the item's metadata in memcached's format. exp is
// memcached's "now minus expiry" (negative while the item lives), size is
// what the item would take in memcached, cls is always 1 (there are no
// slab classes).
func (s *session) metaDebug(r *Request) {
	fe := s.fe
	fe.stats.cmdMeta.Add(1)
	db := fe.db
	db.NoTouch = true
	info, ok := db.Info(r.Key)
	var it engine.Item
	if ok {
		it, ok, _ = db.Get(r.Key)
	}
	if !ok {
		s.out = append(s.out, "EN\r\n"...)
		return
	}
	b := append(s.out, "ME "...)
	if fe.binary.has(it.CAS) {
		b = appendKeyBase64(b, r.Key)
	} else {
		b = append(b, r.Key...)
	}
	b = append(b, " exp="...)
	if it.ExpireAt == 0 {
		b = append(b, "-1"...)
	} else {
		b = appendInt(b, -fe.ttlSeconds(it.ExpireAt, 0))
	}
	b = appendInt(append(b, " la="...), info.IdleMs/1000)
	b = appendUint(append(b, " cas="...), it.CAS)
	if it.Fetched {
		b = append(b, " fetch=yes"...)
	} else {
		b = append(b, " fetch=no"...)
	}
	b = append(b, " cls=1 size="...)
	b = appendUint(b, uint64(itemTotal(r.Key, &it)))
	s.out = append(b, '\r', '\n')
}

// emptyString reports whether key holds an empty string.
func (fe *Frontend) emptyString(key []byte) bool {
	db := fe.db
	db.NoTouch = true
	it, ok, _ := db.Get(key)
	return ok && len(it.Value) == 0
}
