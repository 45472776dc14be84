package engine

import (
	"math"
	"strconv"

	"github.com/tandemkv/tandem/internal/num"
)

// Get returns the string at key. ok is false when the key does not exist;
// ErrWrongType when it holds another type.
func (d DB) Get(key []byte) (it Item, ok bool, err error) {
	// No defer: GET is the hottest path (and the counts are plain fields
	// under the shard's lock, tally.go).
	k := d.lockKey(key)
	s := k.s
	if k.slot < 0 {
		s.lookedUp(0, 1)
		s.unlock()
		return Item{}, false, nil
	}
	en := &s.entries[k.slot]
	// A key of another type is still found: a hit and an access, as Redis
	// counts it.
	s.lookedUp(1, 0)
	fetched := d.fetch(en, k.now)
	if en.typ != TypeString {
		s.unlock()
		return Item{}, false, ErrWrongType
	}
	it = d.itemOf(&s.shardData, en)
	it.Fetched = fetched
	s.unlock()
	return it, true, nil
}

// Cond is the precondition of a write.
type Cond uint8

// Write preconditions: Redis NX/XX and memcached add/replace/cas are the
// same engine call with a different Cond.
const (
	CondAlways  Cond = iota
	CondAbsent       // only if the key does not exist (NX, add)
	CondPresent      // only if it exists (XX, replace)
	CondCAS          // only if it exists with CAS unique SetOptions.CAS (cas)
)

// TTLMode says what a write does to the key's expiry.
type TTLMode uint8

// Expiry changes.
const (
	TTLClear TTLMode = iota // no expiry afterwards (plain SET)
	TTLKeep                 // keep the current expiry (KEEPTTL)
	TTLSet                  // expire at ExpireAt (unix ms); at or before now the key is deleted
)

// SetOptions describe one string write.
type SetOptions struct {
	Cond     Cond
	CAS      uint64 // with CondCAS
	TTL      TTLMode
	ExpireAt int64  // unix ms, with TTLSet
	Flags    uint32 // memcached client flags stored with the value
	GetOld   bool   // also return the previous value (SET ... GET); a non-string refuses with ErrWrongType
	// NonString says what happens to a key of another type: false replaces
	// it (Redis SET); true leaves it and reports NotStored (memcached
	// append/prepend must not destroy a hash).
	KeepNonString bool
}

// SetResult reports what a write did.
type SetResult struct {
	Stored  bool   // the value was written (or the key deleted by a past expiry)
	Existed bool   // the key existed before the call
	Old     Item   // previous value, with GetOld and Existed
	CAS     uint64 // the new CAS unique when Stored
	// Expired: stored with an expiry already past, so the key was removed
	// at once (Redis stores it and expires it on the next access: its
	// "set", "expire" and "expired" events are the front-end's to send).
	Expired bool
}

// Set writes a string value under key.
func (d DB) Set(key, value []byte, o SetOptions) (SetResult, error) {
	k := d.lockKey(key)
	defer k.s.unlock()
	return d.setLocked(k, key, value, o)
}

func (d DB) setLocked(k keyAt, key, value []byte, o SetOptions) (SetResult, error) {
	s, h, now, slot := k.s, k.h, k.now, k.slot
	var res SetResult
	var en *entry
	if slot >= 0 {
		en = &s.entries[slot]
		res.Existed = true
		if o.GetOld {
			if en.typ != TypeString {
				return res, ErrWrongType
			}
			res.Old = d.itemOf(&s.shardData, en)
		}
		if o.KeepNonString && en.typ != TypeString {
			return res, nil
		}
	}
	switch o.Cond {
	case CondAbsent:
		if slot >= 0 {
			return res, nil
		}
	case CondPresent:
		if slot < 0 {
			return res, nil
		}
	case CondCAS:
		if slot < 0 || s.cas(en) != o.CAS {
			return res, nil
		}
	}
	if o.TTL == TTLSet && o.ExpireAt <= d.expiryNow(now) {
		// Stored and expired at once: what remains is no key (unless the
		// handle sees no key expired: a replica keeps it for its master's
		// DEL, an AOF being loaded for the DEL it holds — Redis's
		// checkAlreadyExpired).
		if slot >= 0 {
			d.removeKey(s, slot, h)
		}
		res.Stored, res.Expired = true, true
		if d.TrackCAS {
			// memcached gives the item its unique before it is found
			// expired: a store reply shows it.
			res.CAS = d.e.nextCAS()
		}
		return res, nil
	}
	if d.overLimit() {
		return res, ErrOOM
	}
	expireAt := int64(0)
	switch o.TTL {
	case TTLKeep:
		if en != nil {
			expireAt = s.expireAt(en)
		}
	case TTLSet:
		expireAt = o.ExpireAt
	}
	slot = d.store(s, slot, key, h, value, encodingFor(value), &recordMeta{expireAt: expireAt, flags: o.Flags}, now)
	res.Stored = true
	res.CAS = s.cas(&s.entries[slot]) // 0 unless TrackCAS
	return res, nil
}

// ExpireChange is what GetEx does to a key's expiry.
type ExpireChange struct {
	Mode TTLMode // TTLKeep: leave it; TTLClear: persist; TTLSet: expire at At
	At   int64   // unix ms with TTLSet; at or before now deletes the key
}

// GetEx returns the string at key and then changes its expiry (GETEX,
// memcached gat/touch) or deletes it (GETDEL when del is set).
func (d DB) GetEx(key []byte, ch ExpireChange, del bool) (Item, bool, error) {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, h, now, slot := k.s, k.h, k.now, k.slot
	if slot < 0 {
		s.lookedUp(0, 1)
		return Item{}, false, nil
	}
	en := &s.entries[slot]
	s.lookedUp(1, 0)
	fetched := d.fetch(en, now)
	if en.typ != TypeString {
		return Item{}, false, ErrWrongType
	}
	it := d.itemOf(&s.shardData, en)
	it.Fetched = fetched
	switch {
	case del:
		d.removeKey(s, slot, h)
	case ch.Mode == TTLSet && ch.At <= d.expiryNow(now): // already expired (Set says when not)
		d.removeKey(s, slot, h)
	case ch.Mode == TTLSet || (ch.Mode == TTLClear && s.expireAt(en) != 0):
		at := int64(0)
		if ch.Mode == TTLSet {
			at = ch.At
		}
		s.setExpire(en, at)
		s.changed(1)
		d.wrote()
	}
	return it, true, nil
}

// AppendOptions describe APPEND and memcached append/prepend.
type AppendOptions struct {
	Prepend   bool
	MustExist bool   // memcached: a missing key is not created
	CAS       uint64 // memcached append with a CAS unique (meta ms); 0 = none
}

// AppendResult reports what Append did.
type AppendResult struct {
	Stored  bool
	Existed bool
	Len     int // length of the value afterwards
	CAS     uint64
}

// Append adds data after (or before) the string at key, keeping its expiry
// and flags. A key of another type gives ErrWrongType.
func (d DB) Append(key, data []byte, o AppendOptions, maxLen int64) (AppendResult, error) {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, h, now, slot := k.s, k.h, k.now, k.slot
	var res AppendResult
	if slot < 0 {
		if o.MustExist || o.CAS != 0 {
			return res, nil
		}
		if d.overLimit() {
			return res, ErrOOM
		}
		if maxLen > 0 && int64(len(data)) > maxLen {
			return res, ErrTooLarge
		}
		// A new key holds the argument as SET would (APPEND k 123 is "int").
		slot = d.store(s, -1, key, h, data, encodingFor(data), &recordMeta{}, now)
		res.Stored, res.Len, res.CAS = true, len(data), s.cas(&s.entries[slot])
		return res, nil
	}
	en := &s.entries[slot]
	res.Existed = true
	if en.typ != TypeString {
		return res, ErrWrongType
	}
	if o.CAS != 0 && s.cas(en) != o.CAS {
		return res, nil
	}
	if maxLen > 0 && int64(s.plainSize(en)+len(data)) > maxLen {
		return res, ErrTooLarge
	}
	if d.overLimit() {
		return res, ErrOOM
	}
	old, buf := s.plainValue(en, true)
	value := make([]byte, 0, len(old)+len(data))
	if o.Prepend {
		value = append(append(value, data...), old...)
	} else {
		value = append(append(value, old...), data...)
	}
	putBuf(buf)
	d.store(s, slot, key, h, value, EncRaw, keepMeta, now)
	res.Stored, res.Len, res.CAS = true, len(value), s.cas(&s.entries[slot])
	return res, nil
}

// modifyString runs fn on the current string value of key (nil, false when
// absent) and stores what it returns, keeping expiry and flags. fn's error
// aborts without a write. It is the one read-modify-write path for the
// counters and SETRANGE.
func (d DB) modifyString(key []byte, fn func(old []byte, exists bool) ([]byte, Encoding, error)) (Item, error) {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, slot := k.s, k.slot
	var (
		old []byte
		buf *[]byte
	)
	if slot >= 0 {
		en := &s.entries[slot]
		if en.typ != TypeString {
			return Item{}, ErrWrongType
		}
		old, buf = s.plainValue(en, true)
	}
	value, enc, err := fn(old, slot >= 0)
	putBuf(buf) // fn does not keep old
	if err != nil {
		return Item{}, err
	}
	if value == nil {
		// fn asked for no write (e.g. SETRANGE with nothing to set).
		if slot < 0 {
			return Item{}, nil
		}
		return d.itemOf(&s.shardData, &s.entries[slot]), nil
	}
	if d.overLimit() {
		return Item{}, ErrOOM
	}
	slot = d.store(s, slot, key, k.h, value, enc, keepMeta, k.now)
	return d.itemOf(&s.shardData, &s.entries[slot]), nil
}

// IncrBy adds delta to the integer at key (INCR, INCRBY, DECR, DECRBY); a
// missing key counts as 0. Errors: ErrNotInteger, ErrOverflow, ErrWrongType.
func (d DB) IncrBy(key []byte, delta int64) (int64, error) {
	var result int64
	_, err := d.modifyString(key, func(old []byte, exists bool) ([]byte, Encoding, error) {
		var cur int64
		if exists {
			v, ok := num.ParseInt(old)
			if !ok {
				return nil, 0, ErrNotInteger
			}
			cur = v
		}
		if (delta < 0 && cur < 0 && delta < math.MinInt64-cur) ||
			(delta > 0 && cur > 0 && delta > math.MaxInt64-cur) {
			return nil, 0, ErrOverflow
		}
		result = cur + delta
		return strconv.AppendInt(nil, result, 10), EncInt, nil
	})
	return result, err
}

// IncrByFloat adds delta to the number at key with Redis's long double
// arithmetic and stores the result as Redis prints it. Errors:
// ErrNotFloat (value or delta), ErrNaNOrInf, ErrWrongType.
//
// The checks run in Redis's order: the key's type, then the stored value,
// then delta, then the result ("inf" stored plus a bad delta is
// ErrNotFloat, not ErrNaNOrInf).
func (d DB) IncrByFloat(key, delta []byte) ([]byte, error) {
	it, err := d.modifyString(key, func(old []byte, exists bool) ([]byte, Encoding, error) {
		cur, curInf, _ := num.ParseLongDouble([]byte("0"))
		if exists {
			v, inf, ok := num.ParseLongDouble(old)
			if !ok {
				return nil, 0, ErrNotFloat
			}
			cur, curInf = v, inf
		}
		incr, incrInf, ok := num.ParseLongDouble(delta)
		if !ok {
			return nil, 0, ErrNotFloat
		}
		if curInf != 0 || incrInf != 0 {
			return nil, 0, ErrNaNOrInf
		}
		sum, finite := num.AddLongDouble(cur, incr)
		if !finite {
			return nil, 0, ErrNaNOrInf
		}
		out := []byte(num.FormatLongDoubleHuman(sum))
		// Redis stores the printed number as a plain string, never "int":
		// 1.5 INCRBYFLOAT 1.5 gives "3" with encoding embstr.
		enc := EncEmbstr
		if len(out) > embstrMaxLen {
			enc = EncRaw
		}
		return out, enc, nil
	})
	if err != nil {
		return nil, err
	}
	return it.Value, nil
}

// IncrResult reports what IncrUnsigned did.
type IncrResult struct {
	Value uint64 // the number stored, when the key was changed
	CAS   uint64 // the key's new CAS unique, when it was changed
	Found bool   // the key exists (a missing key is not created)
	// CASMismatch: a CAS unique was given and the key has another one;
	// nothing was changed.
	CASMismatch bool
}

// IncrUnsigned is memcached's incr/decr: the value must be an unsigned
// decimal (as strtoull reads it), incr wraps at 2^64, decr stops at 0, and
// a shorter result is padded with spaces to the old length, as memcached
// rewrites the number in place. Found is false for a missing key (nothing
// is created). A non-number, or a key of another type, gives ErrNotInteger
// with Found set. cas, when non-zero, must match the key's CAS unique
// (meta arithmetic); CASMismatch reports when it does not.
func (d DB) IncrUnsigned(key []byte, delta uint64, decr bool, cas uint64) (IncrResult, error) {
	k := d.lockKey(key)
	defer k.s.unlock()
	s, slot := k.s, k.slot
	if slot < 0 {
		return IncrResult{}, nil
	}
	found := IncrResult{Found: true}
	en := &s.entries[slot]
	if en.typ != TypeString {
		return found, ErrNotInteger
	}
	if cas != 0 && s.cas(en) != cas {
		return IncrResult{Found: true, CASMismatch: true}, nil
	}
	old, buf := s.plainValue(en, true)
	defer putBuf(buf)
	cur, ok := parseMemcachedUint(old)
	if !ok {
		return found, ErrNotInteger
	}
	if decr {
		if delta > cur {
			cur = 0
		} else {
			cur -= delta
		}
	} else {
		cur += delta
	}
	out := strconv.AppendUint(make([]byte, 0, max(len(old), 20)), cur, 10)
	for len(out) < len(old) {
		out = append(out, ' ')
	}
	if d.overLimit() && len(out) > len(old) {
		return found, ErrOOM
	}
	slot = d.store(s, slot, key, k.h, out, encodingFor(out), keepMeta, k.now)
	en = &s.entries[slot]
	d.touch(en, k.now)
	return IncrResult{Value: cur, CAS: s.cas(en), Found: true}, nil
}

// parseMemcachedUint reads a stored value as memcached's safe_strtoull:
// optional leading white space and sign, decimal digits, then white space
// or the end; a value that would be negative as int64 must carry no '-'.
// Like safe_strtoull it looks only at the byte after the digits: memcached
// 1.6 increments "12 abc" to 13, and " 5\x00\xffbin" to 6, as strtoull
// reads a C string, which ends at a NUL byte.
func parseMemcachedUint(b []byte) (uint64, bool) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start := i
	var v uint64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		d := uint64(b[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false // ERANGE
		}
		v = v*10 + d
		i++
	}
	if i == start {
		return 0, false
	}
	if i < len(b) && !isSpace(b[i]) && b[i] != 0 {
		return 0, false
	}
	if neg {
		// strtoull negates; memcached refuses only results that look
		// negative as signed, which for a real '-' is any non-zero value.
		v = -v
		if int64(v) < 0 {
			return 0, false
		}
	}
	return v, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// SetRange overwrites the string at key from offset with data, padding with
// zero bytes (SETRANGE). It returns the new length. An empty data on a
// missing key creates nothing and returns 0.
func (d DB) SetRange(key []byte, offset int64, data []byte, maxLen int64) (int, error) {
	var n int
	_, err := d.modifyString(key, func(old []byte, exists bool) ([]byte, Encoding, error) {
		if len(data) == 0 {
			n = len(old)
			return nil, 0, nil
		}
		// offset > maxLen-len(data) is offset+len(data) > maxLen without
		// overflowing for offsets near MaxInt64.
		if maxLen > 0 && offset > maxLen-int64(len(data)) {
			return nil, 0, ErrTooLarge
		}
		size := max(len(old), int(offset)+len(data))
		out := make([]byte, size)
		copy(out, old)
		copy(out[offset:], data)
		n = size
		return out, EncRaw, nil
	})
	return n, err
}

// MGet returns the values of several keys read at one instant; a missing
// key or one of another type gives ok=false in its place.
func (d DB) MGet(keys [][]byte, fn func(i int, it Item, ok bool)) {
	ls := d.newLockSet()
	hashes := make([]uint64, len(keys))
	idx := make([]int, len(keys))
	for i, k := range keys {
		idx[i], hashes[i] = d.locate(k)
		ls.add(idx[i])
	}
	now := d.e.clock.NowMs()
	ls.lock()
	defer ls.unlock()
	for i, k := range keys {
		s := &d.e.shards[idx[i]]
		slot := d.find(s, k, hashes[i], now)
		if slot < 0 {
			s.lookedUp(0, 1)
			fn(i, Item{}, false)
			continue
		}
		// A key of another type reads as nil but is a hit, as in Redis.
		s.lookedUp(1, 0)
		en := &s.entries[slot]
		fetched := d.fetch(en, now)
		if en.typ != TypeString {
			fn(i, Item{}, false)
			continue
		}
		it := d.itemOf(&s.shardData, en)
		it.Fetched = fetched
		fn(i, it, true)
	}
}

// MSet writes several keys at one instant (MSET); with onlyIfNoneExist
// (MSETNX) nothing is written if any key exists. It reports whether the
// values were written.
func (d DB) MSet(pairs [][]byte, onlyIfNoneExist bool) (bool, error) {
	n := len(pairs) / 2
	ls := d.newLockSet()
	hashes := make([]uint64, n)
	idx := make([]int, n)
	for i := 0; i < n; i++ {
		idx[i], hashes[i] = d.locate(pairs[2*i])
		ls.add(idx[i])
	}
	now := d.e.clock.NowMs()
	ls.lock()
	defer ls.unlock()
	if onlyIfNoneExist {
		for i := 0; i < n; i++ {
			if d.find(&d.e.shards[idx[i]], pairs[2*i], hashes[i], now) >= 0 {
				return false, nil
			}
		}
	}
	if d.overLimit() {
		return false, ErrOOM
	}
	for i := 0; i < n; i++ {
		s := &d.e.shards[idx[i]]
		key, value := pairs[2*i], pairs[2*i+1]
		slot := d.find(s, key, hashes[i], now)
		d.store(s, slot, key, hashes[i], value, encodingFor(value), &recordMeta{}, now)
	}
	return true, nil
}
