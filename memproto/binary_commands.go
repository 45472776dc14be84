package memproto

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/mclog"
)

// The binary protocol's opcodes, each with the text command it is: the
// same engine calls, counters, ACL categories, renames and write refusal,
// only the framing differs (binary.go). memcached 1.6.18 serves these and
// no others: Verbosity (0x1b) and the range opcodes answer Unknown
// command there, and here.

// binOp is one entry of the opcode table.
type binOp struct {
	// cmd is the text command the opcode is, from commandTable: nil for
	// Noop and SASL, which have none. Its shape gives the ACL categories
	// and whether the opcode writes (misconf.go) or grows the data;
	// renaming or removing it (memcached-rename-command) disables the
	// opcode too, which answers Unknown command.
	cmd *command
	// quiet: no reply on success (GetQ-style: no miss either).
	quiet bool
	// beforeAuth: served to a session not yet logged in (SASL, Version).
	beforeAuth bool
	// fits checks the frame's lengths as memcached does for the opcode;
	// a frame that does not fit is a protocol error (0x04, close).
	fits func(r *binRequest) bool
	// refusesValue, for opcodes that read a value, is the error that
	// refuses it unread (binOK: read it); nil for opcodes without one.
	refusesValue func(s *session, r *binRequest) binStatus
	run          func(s *session, r *binRequest)
}

// Binary opcodes.
const (
	opcGet       = 0x00
	opcSet       = 0x01
	opcAdd       = 0x02
	opcReplace   = 0x03
	opcDelete    = 0x04
	opcIncrement = 0x05
	opcDecrement = 0x06
	opcQuit      = 0x07
	opcFlush     = 0x08
	opcGetQ      = 0x09
	opcNoop      = 0x0a
	opcVersion   = 0x0b
	opcGetK      = 0x0c
	opcGetKQ     = 0x0d
	opcAppend    = 0x0e
	opcPrepend   = 0x0f
	opcStat      = 0x10
	opcSetQ      = 0x11
	opcAddQ      = 0x12
	opcReplaceQ  = 0x13
	opcDeleteQ   = 0x14
	opcIncrQ     = 0x15
	opcDecrQ     = 0x16
	opcQuitQ     = 0x17
	opcFlushQ    = 0x18
	opcAppendQ   = 0x19
	opcPrependQ  = 0x1a
	opcTouch     = 0x1c
	opcGAT       = 0x1d
	opcGATQ      = 0x1e
	opcSASLList  = 0x20
	opcSASLAuth  = 0x21
	opcSASLStep  = 0x22
	opcGATK      = 0x23
	opcGATKQ     = 0x24
)

// Frame shapes (binOp.fits), as memcached's dispatch checks them.
var (
	fitsEmpty = func(r *binRequest) bool { return len(r.extras) == 0 && len(r.key) == 0 && r.bodyLen == 0 }
	fitsKey   = func(r *binRequest) bool {
		return len(r.extras) == 0 && len(r.key) > 0 && int(r.bodyLen) == len(r.key)
	}
	fitsStore = func(r *binRequest) bool {
		return len(r.extras) == 8 && len(r.key) > 0 && int(r.bodyLen) >= len(r.key)+8
	}
	fitsConcat = func(r *binRequest) bool { return len(r.extras) == 0 && len(r.key) > 0 }
	fitsArith  = func(r *binRequest) bool {
		return len(r.extras) == 20 && len(r.key) > 0 && int(r.bodyLen) == len(r.key)+20
	}
	fitsTouch = func(r *binRequest) bool { return len(r.extras) == 4 && len(r.key) > 0 }
	fitsFlush = func(r *binRequest) bool {
		return len(r.key) == 0 && int(r.bodyLen) == len(r.extras) && (len(r.extras) == 0 || len(r.extras) == 4)
	}
	fitsStat = func(r *binRequest) bool { return len(r.extras) == 0 }
	fitsSASL = func(r *binRequest) bool { return len(r.extras) == 0 && len(r.key) > 0 }
)

// Variants of the retrieval opcodes.
const (
	binWithKey   = 1 << iota // GetK, GATK: the reply carries the key
	binTouch                 // Touch, GAT: set the expiry first
	binValueless             // Touch: the reply has no value
)

// binOps is the opcode table, indexed by opcode.
var binOps = func() (t [256]*binOp) {
	text := func(name string) *command {
		c := commandTable[name]
		if c == nil {
			panic("memproto: binary opcode for an unknown command " + name)
		}
		return c
	}
	add := func(opcode, quietOpcode int, op binOp) {
		for i, opc := range []int{opcode, quietOpcode} {
			if opc < 0 {
				continue
			}
			if t[opc] != nil {
				panic("memproto: binary opcode declared twice")
			}
			o := op
			o.quiet = i == 1
			t[opc] = &o
		}
	}
	retrieve := func(name string, variant int) binOp {
		fits := fitsKey
		if variant&binTouch != 0 {
			fits = fitsTouch
		}
		return binOp{cmd: text(name), fits: fits, run: func(s *session, r *binRequest) { s.binRetrieve(r, variant) }}
	}
	store := func(name string, op storeOp) binOp {
		fits := fitsStore
		if op == opAppend || op == opPrepend {
			fits = fitsConcat
		}
		return binOp{cmd: text(name), fits: fits, refusesValue: refusesItemValue, run: func(s *session, r *binRequest) { s.binStore(r, op) }}
	}
	arith := func(name string, decr bool) binOp {
		return binOp{cmd: text(name), fits: fitsArith, run: func(s *session, r *binRequest) { s.binArith(r, decr) }}
	}
	add(opcGet, opcGetQ, retrieve("get", 0))
	add(opcGetK, opcGetKQ, retrieve("get", binWithKey))
	add(opcTouch, -1, retrieve("touch", binTouch|binValueless))
	add(opcGAT, opcGATQ, retrieve("gat", binTouch))
	add(opcGATK, opcGATKQ, retrieve("gat", binTouch|binWithKey))
	add(opcSet, opcSetQ, store("set", opSet))
	add(opcAdd, opcAddQ, store("add", opAdd))
	add(opcReplace, opcReplaceQ, store("replace", opReplace))
	add(opcAppend, opcAppendQ, store("append", opAppend))
	add(opcPrepend, opcPrependQ, store("prepend", opPrepend))
	add(opcIncrement, opcIncrQ, arith("incr", false))
	add(opcDecrement, opcDecrQ, arith("decr", true))
	add(opcDelete, opcDeleteQ, binOp{cmd: text("delete"), fits: fitsKey, run: (*session).binDelete})
	add(opcFlush, opcFlushQ, binOp{cmd: text("flush_all"), fits: fitsFlush, run: (*session).binFlush})
	add(opcQuit, opcQuitQ, binOp{cmd: text("quit"), fits: fitsEmpty, run: func(s *session, r *binRequest) {
		s.binReply(r, 0, nil)
		s.closing = true // after the replies so far
	}})
	add(opcNoop, -1, binOp{fits: fitsEmpty, run: func(s *session, r *binRequest) {
		s.binReply(r, 0, nil)
		s.flush() // memcached writes its queue at a Noop
	}})
	add(opcVersion, -1, binOp{cmd: text("version"), beforeAuth: true, fits: fitsEmpty, run: func(s *session, r *binRequest) {
		s.binReply(r, 0, []byte(s.fe.version))
	}})
	add(opcStat, -1, binOp{cmd: text("stats"), fits: fitsStat, run: (*session).binStat})
	add(opcSASLList, -1, binOp{beforeAuth: true, fits: fitsEmpty, run: (*session).saslListMechs})
	for _, opc := range []int{opcSASLAuth, opcSASLStep} {
		add(opc, -1, binOp{beforeAuth: true, fits: fitsSASL, refusesValue: refusesSASLValue, run: (*session).saslAuth})
	}
	return t
}()

// binOpEnabled reports whether op answers under the configured renames: its
// text command must still be there under its own name.
func (s *session) binOpEnabled(op *binOp) bool {
	return op.cmd == nil || s.fe.commands[op.cmd.name] == op.cmd
}

// refusesItemValue refuses the value of a storage opcode that would make an
// item over item-size-max.
func refusesItemValue(s *session, r *binRequest) binStatus {
	if s.binItemTooLarge(r) {
		return binTooLarge
	}
	return binOK
}

// binExptime reads an expiration field. It is unsigned on the wire: a
// time past 2038 is kept as the latest one the text protocol can give.
func binExptime(b []byte) int32 {
	u := binary.BigEndian.Uint32(b)
	if u > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(u)
}

// binRetrieve serves Get, GetK, Touch, GAT and GATK and their quiet forms.
// A key holding a Redis hash, list, set or sorted set is a miss, as for get
// and gat; Touch changes its expiry, as touch does.
func (s *session) binRetrieve(r *binRequest, variant int) {
	fe := s.fe
	key := r.key
	var it engine.Item
	var ok bool
	if variant&binTouch != 0 {
		change := fe.expireChange(binExptime(r.extras))
		var err error
		it, ok, err = fe.getEx(fe.db, key, change)
		if err == engine.ErrWrongType && variant&binValueless != 0 {
			ok = fe.touchKey(key, change)
			info, _ := fe.db.Info(key)
			it = engine.Item{CAS: info.CAS}
		}
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
	if fe.log.Wants(mclog.Fetchers) && !r.op.cmd.looksUpKey() { // Touch: logged before it ran
		s.logGet(key, ok, len(it.Value))
	}
	keyLen := 0
	if variant&binWithKey != 0 {
		keyLen = len(key)
	}
	if !ok {
		switch {
		case r.op.quiet:
		case keyLen > 0:
			s.binHeader(r, binKeyNotFound, 0, keyLen, keyLen, 0)
			s.out = append(s.out, key...)
		default:
			s.binError(r, binKeyNotFound, "")
		}
		return
	}
	value := it.Value
	if variant&binValueless != 0 {
		value = nil
	}
	s.binHeader(r, binOK, 4, keyLen, 4+keyLen+len(value), it.CAS)
	s.out = binary.BigEndian.AppendUint32(s.out, it.Flags)
	s.out = append(s.out, key[:keyLen]...)
	s.out = append(s.out, value...)
	it.Release() // copied out: a decompression buffer goes back
	// The queued reply holds the item, as an mg hit's does (see
	// Frontend.incr).
	s.pin(key)
}

// binStore serves Set, Add, Replace, Append and Prepend and their quiet
// forms. A CAS in the header makes Set, Add and Replace a cas, as in
// memcached; Append and Prepend then need it to match.
func (s *session) binStore(r *binRequest, op storeOp) {
	fe := s.fe
	var flags uint32
	var exptime int32
	if len(r.extras) == 8 {
		flags = binary.BigEndian.Uint32(r.extras)
		exptime = binExptime(r.extras[4:])
	}
	if r.cas != 0 && op != opAppend && op != opPrepend {
		op = opCAS
	}
	fe.stats.cmdSet.Add(1)
	fe.prefixes.recordSet(r.key)
	status, cas, err := fe.storeItem(r.key, r.value, op, flags, exptime, r.cas)
	s.logStore(r.key, r.value, op, exptime, status, err)
	if err != nil {
		s.binStoreError(r, op, err)
		return
	}
	switch status {
	case statusStored:
		s.binReply(r, cas, nil)
	case statusExists:
		s.binError(r, binKeyExists, "")
	case statusNotFound:
		s.binError(r, binKeyNotFound, "")
	default:
		switch op {
		case opAdd:
			s.binError(r, binKeyExists, "")
		case opReplace:
			s.binError(r, binKeyNotFound, "")
		default:
			s.binError(r, binNotStored, "")
		}
	}
}

// binStoreError answers a write the engine refused. As for the text set, a
// Set refused for memory drops the key's old value.
func (s *session) binStoreError(r *binRequest, op storeOp, err error) {
	text := s.fe.storeError(r.key, op == opSet, err)
	if err == engine.ErrOOM {
		text = "Out of memory allocating item" // memcached's, at item_alloc
	}
	s.binError(r, binOutOfMemory, binServerError(text))
}

// binArith serves Increment and Decrement and their quiet forms: the
// extras hold the delta, the initial value and the expiration a missing
// key is created with (all ones: not created, Not found).
func (s *session) binArith(r *binRequest, decr bool) {
	fe := s.fe
	delta := binary.BigEndian.Uint64(r.extras)
	initial := binary.BigEndian.Uint64(r.extras[8:])
	expiration := binary.BigEndian.Uint32(r.extras[16:])
	val, cas, found, mismatch, err := fe.incr(r.key, delta, decr, r.cas, s.pinned(r.key))
	switch {
	case err == engine.ErrNotInteger:
		s.binError(r, binNonNumeric, "")
		return
	case err == engine.ErrOOM:
		s.binError(r, binOutOfMemory, "Out of memory incrementing value")
		return
	case err != nil:
		s.binError(r, binOutOfMemory, err.Error())
		return
	case mismatch:
		s.binError(r, binKeyExists, "")
		return
	case !found && expiration == binNoCreate:
		if decr {
			fe.stats.decrMisses.Add(1)
		} else {
			fe.stats.incrMisses.Add(1)
		}
		s.binError(r, binKeyNotFound, "")
		return
	case !found:
		var digits [20]byte
		var status storeStatus
		if fe.log.Wants(mclog.Fetchers) {
			s.logLookupKey(r.key) // memcached stores the new item as an add, which looks it up
		}
		value, exptime := appendUint(digits[:0], initial), binExptime(r.extras[16:])
		status, cas, err = fe.storeItem(r.key, value, opAdd, 0, exptime, 0)
		s.logStore(r.key, value, opAdd, exptime, status, err)
		switch {
		case err == engine.ErrOOM:
			fe.stats.storeNoMemory.Add(1)
			s.binError(r, binOutOfMemory, "Out of memory allocating new item")
			return
		case err != nil:
			s.binError(r, binOutOfMemory, err.Error())
			return
		case status != statusStored:
			s.binError(r, binNotStored, "")
			return
		}
		val = initial
	default:
		if decr {
			fe.stats.decrHits.Add(1)
		} else {
			fe.stats.incrHits.Add(1)
		}
	}
	var body [8]byte
	binary.BigEndian.PutUint64(body[:], val)
	s.binReply(r, cas, body[:])
}

// binDelete serves Delete and DeleteQ; a CAS in the header must match.
func (s *session) binDelete(r *binRequest) {
	fe := s.fe
	fe.prefixes.recordDelete(r.key)
	var existed, deleted bool
	if r.cas == 0 {
		deleted = fe.db.Delete(r.key) > 0
		existed = deleted
	} else {
		existed, deleted = fe.db.DeleteIf(r.key, r.cas)
	}
	switch {
	case deleted:
		fe.deleted(r.key)
		fe.stats.deleteHits.Add(1)
		s.binReply(r, 0, nil)
	case existed:
		s.binError(r, binKeyExists, "")
	default:
		fe.stats.deleteMisses.Add(1)
		s.binError(r, binKeyNotFound, "")
	}
}

// binFlush serves Flush and FlushQ, with an optional delay, as flush_all.
// memcached-disable-flush-all refuses it with 0x20, as memcached -F does.
func (s *session) binFlush(r *binRequest) {
	fe := s.fe
	if fe.cfg.MemcachedDisableFlushAll() {
		s.binError(r, binAuthError, "")
		return
	}
	var delay int32
	if len(r.extras) == 4 {
		delay = binExptime(r.extras)
	}
	fe.stats.cmdFlush.Add(1)
	s.flushAfter(delay)
	s.binReply(r, 0, nil)
}

// binStat serves Stat: the key names the group, as the text stats'
// argument, and each statistic is a reply of its own (key: name, value:
// value) ended by an empty one. memcached matches "reset", "settings" and
// "detail" by prefix and serves no "conns" group here.
func (s *session) binStat(r *binRequest) {
	fe := s.fe
	w := statsWriter{b: s.out, bin: r}
	group := string(r.key)
	switch {
	case group == "":
		fe.generalStats(&w)
	case strings.HasPrefix(group, "reset"):
		fe.resetStats()
	case strings.HasPrefix(group, "settings"):
		fe.settingsStats(&w)
	case strings.HasPrefix(group, "detail"):
		switch arg := group[len("detail"):]; {
		case strings.HasPrefix(arg, " dump"):
			w.str("detailed", string(fe.prefixes.dump(nil)))
		case strings.HasPrefix(arg, " on"):
			fe.prefixes.enabled.Store(true)
		case strings.HasPrefix(arg, " off"):
			fe.prefixes.enabled.Store(false)
		default:
			s.binError(r, binKeyNotFound, "")
			return
		}
	case group == "items":
		fe.itemStats(&w)
	case group == "slabs":
		fe.slabStats(&w)
	case group == "sizes":
		w.str("sizes_status", "disabled")
	default:
		s.binError(r, binKeyNotFound, "")
		return
	}
	w.end()
	s.out = w.b
}
