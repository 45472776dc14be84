package memproto

import (
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/mclog"
)

// The classic text protocol: retrieval, storage, arithmetic, delete, touch.

// Retrieval and storage variants.
const (
	retrWithCAS = 1 << iota // gets, gats: VALUE lines carry the CAS unique
	retrTouch               // gat, gats: set the expiry of each hit
)

type storeOp uint8

const (
	opSet storeOp = iota
	opAdd
	opReplace
	opAppend
	opPrepend
	opCAS
)

func textCommands() []*command {
	get := func(name string, variant int) *command {
		sh := shapeRetrieve
		if variant&retrTouch != 0 {
			sh = shapeRetrieveTouch
		}
		return &command{name: name, shape: sh, minTokens: 3, flushes: true, run: func(s *session, r *Request) { s.retrieve(r, variant) }}
	}
	store := func(name string, op storeOp) *command {
		c := &command{name: name, shape: shapeStore, minTokens: 6, maxTokens: 7, run: func(s *session, r *Request) { s.store(r, op) }}
		if op == opCAS {
			c.shape, c.minTokens, c.maxTokens = shapeStoreCAS, 7, 8
		}
		return c
	}
	arith := func(name string, decr bool) *command {
		return &command{name: name, shape: shapeArith, minTokens: 4, maxTokens: 5, run: func(s *session, r *Request) { s.arith(r, decr) }}
	}
	return []*command{
		get("get", 0),
		get("bget", 0), // memcached keeps this ancient alias
		get("gets", retrWithCAS),
		get("gat", retrTouch),
		get("gats", retrTouch|retrWithCAS),
		store("set", opSet),
		store("add", opAdd),
		store("replace", opReplace),
		store("append", opAppend),
		store("prepend", opPrepend),
		store("cas", opCAS),
		arith("incr", false),
		arith("decr", true),
		{name: "delete", shape: shapeDelete, minTokens: 3, maxTokens: 5, run: (*session).delete},
		{name: "touch", shape: shapeTouch, minTokens: 4, maxTokens: 5, run: (*session).touch},
	}
}

// retrieve serves get, gets, bget, gat and gats. A key holding a Redis
// hash, list, set or sorted set is a miss.
func (s *session) retrieve(r *Request, variant int) {
	fe := s.fe
	keys := r.Keys
	if r.BadKey >= 0 {
		keys = keys[:r.BadKey]
	}
	touch := variant&retrTouch != 0
	var change engine.ExpireChange
	if touch {
		change = fe.expireChange(r.Exptime)
	}
	// With a bad key every reply is dropped (below), so none is built,
	// and the lookups, with their side effects, run unpaced.
	drop := r.BadKey >= 0
	first := s.resumeFrom(r)
	for i := first; i < len(keys); i++ {
		if i > first && !drop && s.suspendBefore(r, i) {
			return // goes on from key i when the client drains (pacing.go)
		}
		key := keys[i]
		var it engine.Item
		var ok bool
		if touch {
			it, ok, _ = fe.getEx(fe.db, key, change)
			fe.stats.cmdTouch.Add(1)
			if ok {
				fe.stats.touchHits.Add(1)
			} else {
				fe.stats.touchMisses.Add(1)
			}
		} else {
			it, ok, _ = fe.db.Get(key)
			fe.stats.cmdGet.Add(1)
			if ok {
				fe.stats.getHits.Add(1)
			} else {
				fe.stats.getMisses.Add(1)
			}
		}
		fe.prefixes.recordGet(key, ok)
		if fe.log.Wants(mclog.Fetchers) {
			s.logGet(key, ok, len(it.Value))
		}
		if ok {
			if !drop {
				s.appendValue(key, &it, variant&retrWithCAS != 0)
			}
			it.Release() // copied out: a decompression buffer goes back
		}
	}
	if drop {
		// memcached drops every reply it had queued, not only this
		// command's, and answers the error.
		s.cull()
		s.line(r, errBadFormat)
		return
	}
	s.out = append(append(s.out, replyEnd...), '\r', '\n')
}

// appendValue appends "VALUE <key> <flags> <bytes>[ <cas>]\r\n<data>\r\n".
func (s *session) appendValue(key []byte, it *engine.Item, withCAS bool) {
	b := append(s.out, "VALUE "...)
	b = append(b, key...)
	b = append(b, ' ')
	b = appendUint(b, uint64(it.Flags))
	b = append(b, ' ')
	b = appendUint(b, uint64(len(it.Value)))
	if withCAS {
		b = append(b, ' ')
		b = appendUint(b, it.CAS)
	}
	b = append(b, '\r', '\n')
	b = append(b, it.Value...)
	s.out = append(b, '\r', '\n')
}

// store serves set, add, replace, append, prepend and cas.
func (s *session) store(r *Request, op storeOp) {
	fe := s.fe
	fe.stats.cmdSet.Add(1)
	fe.prefixes.recordSet(r.Key)
	status, _, err := fe.storeItem(r.Key, r.Data, op, r.Flags, r.Exptime, r.CAS)
	s.logStore(r.Key, r.Data, op, r.Exptime, status, err)
	if err != nil {
		s.line(r, fe.storeError(r.Key, op == opSet, err))
		return
	}
	s.line(r, status.text())
}

// storeStatus is memcached's store_item_type.
type storeStatus uint8

const (
	statusStored storeStatus = iota
	statusNotStored
	statusExists
	statusNotFound
)

func (st storeStatus) text() string {
	return [...]string{replyStored, replyNotStored, replyExists, replyNotFound}[st]
}

// metaCode is the two-letter meta form of a status.
func (st storeStatus) metaCode() string {
	return [...]string{"HD", "NS", "EX", "NF"}[st]
}

// storeItem is memcached's do_store_item over the engine, shared by the
// text storage commands and ms. casUnique is the cas command's unique (or
// ms's C). It returns the status and the new CAS unique when stored.
//
// Keys of other types: set and replace overwrite them, as Redis SET does;
// add finds the key present; append and prepend do not store; cas finds a
// different CAS unique.
func (fe *Frontend) storeItem(key, data []byte, op storeOp, flags uint32, exptime int32, casUnique uint64) (storeStatus, uint64, error) {
	db := fe.db
	switch op {
	case opAppend, opPrepend:
		maxLen := fe.maxValueLen(key)
		res, err := db.Append(key, data, engine.AppendOptions{Prepend: op == opPrepend, MustExist: true, CAS: casUnique}, maxLen)
		switch {
		case err == engine.ErrWrongType || err == engine.ErrTooLarge:
			return statusNotStored, 0, nil
		case err != nil:
			return 0, 0, err
		case res.Stored:
			fe.stats.totalItems.Add(1)
			fe.notify(engine.ClassString, "append", key)
			return statusStored, res.CAS, nil
		case res.Existed:
			return statusExists, 0, nil // a CAS given with ms MA/MP that does not match
		}
		return statusNotStored, 0, nil
	}
	mode, at := fe.ttlMode(exptime)
	o := engine.SetOptions{TTL: mode, ExpireAt: at, Flags: flags}
	switch op {
	case opAdd:
		o.Cond = engine.CondAbsent
	case opReplace:
		o.Cond = engine.CondPresent
	case opCAS:
		o.Cond, o.CAS, o.KeepNonString = engine.CondCAS, casUnique, true
	}
	res, err := db.Set(key, data, o)
	if err != nil {
		return 0, 0, err
	}
	if op == opCAS {
		switch {
		case res.Stored:
			fe.stats.casHits.Add(1)
		case !res.Existed:
			fe.stats.casMisses.Add(1)
			return statusNotFound, 0, nil
		default:
			fe.stats.casBadval.Add(1)
			return statusExists, 0, nil
		}
	}
	if !res.Stored {
		return statusNotStored, 0, nil
	}
	fe.stats.totalItems.Add(1)
	fe.notifyStored(key, mode, res.Expired)
	return statusStored, res.CAS, nil
}

// maxValueLen is the longest value key may hold under item-size-max, with
// the client flags its current item has (append keeps them).
func (fe *Frontend) maxValueLen(key []byte) int64 {
	size := fe.cfg.ItemSizeMax() - itemHeaderSize - int64(len(key)) - 1 - 2
	if info, ok := fe.db.Info(key); ok && info.Flags != 0 {
		size -= 4
	}
	return max(size, 0)
}

// storeError maps an engine error of a write to memcached's reply. A set
// that fails for memory drops the key's old value, as memcached does.
func (fe *Frontend) storeError(key []byte, dropOld bool, err error) string {
	if err == engine.ErrOOM {
		fe.stats.storeNoMemory.Add(1)
		if dropOld {
			fe.dropStale(key)
		}
		return errOOMStore
	}
	return "SERVER_ERROR " + err.Error()
}

// dropStale deletes key's old value after a set that could not store the
// new one: memcached drops it rather than leave it stale.
func (fe *Frontend) dropStale(key []byte) {
	if fe.db.Delete(key) > 0 {
		fe.deleted(key)
	}
}

// arith serves incr and decr with memcached's unsigned 64-bit rules (see
// engine.DB.IncrUnsigned). A key of another type is "non-numeric".
func (s *session) arith(r *Request, decr bool) {
	fe := s.fe
	val, _, found, _, err := fe.incr(r.Key, r.Delta, decr, 0, s.pinned(r.Key))
	switch {
	case err == engine.ErrNotInteger:
		s.line(r, errNonNumeric)
		return
	case err == engine.ErrOOM:
		s.line(r, errOOM)
		return
	case err != nil:
		s.line(r, "SERVER_ERROR "+err.Error())
		return
	case !found:
		if decr {
			fe.stats.decrMisses.Add(1)
		} else {
			fe.stats.incrMisses.Add(1)
		}
		s.line(r, replyNotFound)
		return
	}
	if decr {
		fe.stats.decrHits.Add(1)
	} else {
		fe.stats.incrHits.Add(1)
	}
	if r.NoReply {
		return
	}
	s.out = appendUint(s.out, val)
	s.crlf()
}

// delete serves delete; it removes a key of any type.
func (s *session) delete(r *Request) {
	fe := s.fe
	fe.prefixes.recordDelete(r.Key)
	if fe.db.Delete(r.Key) > 0 {
		fe.deleted(r.Key)
		fe.stats.deleteHits.Add(1)
		s.line(r, replyDeleted)
		return
	}
	fe.stats.deleteMisses.Add(1)
	s.line(r, replyNotFound)
}

// touch serves touch; it changes the expiry of a key of any type and, as
// in memcached, leaves its CAS unique alone.
func (s *session) touch(r *Request) {
	fe := s.fe
	fe.stats.cmdTouch.Add(1)
	if fe.touchKey(r.Key, fe.expireChange(r.Exptime)) {
		fe.stats.touchHits.Add(1)
		s.line(r, replyTouched)
		return
	}
	fe.stats.touchMisses.Add(1)
	s.line(r, replyNotFound)
}

// touchKey applies an expiry change to key, whatever its type, and reports
// whether the key existed.
func (fe *Frontend) touchKey(key []byte, ch engine.ExpireChange) bool {
	it, ok, err := fe.getEx(fe.db, key, ch)
	it.Release() // the value is not needed
	if err != engine.ErrWrongType {
		return ok // a hit is a fetch, for memcached's touch too
	}
	if ch.Mode == engine.TTLSet {
		ok, deleted := fe.db.Expire(key, ch.At, 0)
		switch {
		case deleted:
			fe.deleted(key)
		case ok:
			fe.notify(engine.ClassGeneric, "expire", key)
		}
		return ok
	}
	if fe.db.Persist(key) {
		fe.notify(engine.ClassGeneric, "persist", key)
	}
	return fe.db.Exists(key) > 0
}

// incr is engine.DB.IncrUnsigned for incr, decr and ma, with memcached's
// two ways of storing the result. It rewrites the number in place, padded
// with spaces to the old length, and the item keeps its fetched and
// binary-key bits; but when a reply still queued on the connection holds
// the item (an mg hit since memcached last wrote its replies: pinned), it
// stores a new item instead: unpadded, without those bits.
func (fe *Frontend) incr(key []byte, delta uint64, decr bool, cas uint64, pinned bool) (val, newCAS uint64, found, mismatch bool, err error) {
	info, had := fe.db.Info(key)
	var r engine.IncrResult
	r, err = fe.db.IncrUnsigned(key, delta, decr, cas)
	val, newCAS, found, mismatch = r.Value, r.CAS, r.Found, r.CASMismatch
	if found && !mismatch && err == nil {
		fe.notify(engine.ClassString, "incrby", key)
	}
	if !had || !found || mismatch || err != nil {
		return
	}
	if !pinned {
		if info.Fetched {
			fe.db.MarkFetched(key, newCAS)
		}
		fe.carryBits(info.CAS, newCAS)
		return
	}
	db := fe.db
	db.NoTouch = true
	it, ok, _ := db.Get(key)
	var digits [20]byte
	number := appendUint(digits[:0], val)
	if ok && it.CAS == newCAS && len(it.Value) > len(number) {
		res, err := db.Set(key, number, engine.SetOptions{Cond: engine.CondCAS, CAS: newCAS, TTL: engine.TTLKeep, Flags: it.Flags})
		if err == nil && res.Stored {
			newCAS = res.CAS
		}
	}
	return
}
