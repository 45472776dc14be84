package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// Reader reads an RDB file one record at a time. Only the current record is
// held in memory; a length read from the file never causes an allocation
// larger than the bytes that actually arrive (buffers grow as data does).
type Reader struct {
	r       *bufio.Reader
	off     int64
	crc     uint64
	version int
	db      int
	pend    Meta // metadata opcodes seen since the last key
	err     error
	curKey  []byte // the key whose value is being read, for error messages
	stats   readStats
}

// readStats counts encodings met, for tests.
type readStats struct {
	lzfStrings   int
	plainNodes   int
	packedNodes  int
	lzfNodes     int
	emptySkipped int
}

// abort carries an error out of the reading helpers to Next, which is the
// only place it is recovered.
type abort struct{ err error }

// NewReader reads and checks the 9-byte header "REDIS" + 4-digit version.
// Versions 1 to 10 are accepted; newer ones are refused.
func NewReader(r io.Reader) (_ *Reader, err error) {
	rd := &Reader{r: bufio.NewReaderSize(r, 64<<10), pend: NewMeta()}
	defer rd.catch(&err)
	hdr := rd.read(9, "header")
	if string(hdr[:5]) != "REDIS" {
		rd.failf(0, "bad magic %q: not an RDB file", hdr[:5])
	}
	v := 0
	for i, c := range hdr[5:] {
		if c < '0' || c > '9' {
			rd.failf(int64(5+i), "bad version %q", hdr[5:])
		}
		v = v*10 + int(c-'0')
	}
	if v < 1 {
		rd.failf(5, "bad RDB version %d", v)
	}
	if v > RDBVersion {
		panic(abort{&Error{Offset: 5, Msg: fmt.Sprintf("RDB version %d is newer than this reader supports (at most %d, Redis 7.0)", v, RDBVersion), Unsupported: true}})
	}
	rd.version = v
	return rd, nil
}

// Version is the file's RDB version.
func (r *Reader) Version() int { return r.version }

// Offset is the number of bytes consumed so far.
func (r *Reader) Offset() int64 { return r.off }

func (r *Reader) catch(err *error) {
	if x := recover(); x != nil {
		a, ok := x.(abort)
		if !ok {
			panic(x)
		}
		*err = a.err
	}
}

func (r *Reader) failf(off int64, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if r.curKey != nil {
		k := r.curKey
		if len(k) > 64 {
			k = k[:64]
		}
		msg = fmt.Sprintf("value of key %q: %s", k, msg)
	}
	panic(abort{&Error{Offset: off, Msg: msg}})
}

func (r *Reader) unsupported(off int64, format string, args ...any) {
	panic(abort{&Error{Offset: off, Msg: fmt.Sprintf(format, args...), Unsupported: true}})
}

// fill reads exactly len(p) bytes, adding them to the checksum.
func (r *Reader) fill(p []byte, what string) {
	n, err := io.ReadFull(r.r, p)
	r.crc = crc64Update(r.crc, p[:n])
	r.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			r.failf(r.off, "truncated: file ends while reading %s", what)
		}
		panic(abort{fmt.Errorf("rdb: at offset %d: reading %s: %w", r.off, what, err)})
	}
}

func (r *Reader) readByte(what string) byte {
	c, err := r.r.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			r.failf(r.off, "truncated: file ends while reading %s", what)
		}
		panic(abort{fmt.Errorf("rdb: at offset %d: reading %s: %w", r.off, what, err)})
	}
	r.crc = crcTable[0][byte(r.crc)^c] ^ r.crc>>8
	r.off++
	return c
}

// read returns the next n bytes. Large reads grow their buffer as the data
// arrives, so a corrupt length fails at the end of the input instead of
// allocating its claimed size.
func (r *Reader) read(n uint64, what string) []byte {
	const chunk = 64 << 10
	if n <= chunk {
		p := make([]byte, n)
		r.fill(p, what)
		return p
	}
	var p []byte
	for rem := n; rem > 0; {
		c := uint64(len(p))
		if c < chunk {
			c = chunk
		}
		if c > rem {
			c = rem
		}
		old := len(p)
		p = slices.Grow(p, int(c))[:old+int(c)]
		r.fill(p[old:], what)
		rem -= c
	}
	return p
}

// readLen reads a length; enc is true (and n the encoding) for the 11xxxxxx
// special string encodings.
func (r *Reader) readLen(what string) (n uint64, enc bool) {
	c := r.readByte(what)
	switch c >> 6 {
	case len6:
		return uint64(c & 0x3F), false
	case len14:
		return uint64(c&0x3F)<<8 | uint64(r.readByte(what)), false
	case lenEnc:
		return uint64(c & 0x3F), true
	}
	switch c {
	case len32:
		var b [4]byte
		r.fill(b[:], what)
		return uint64(binary.BigEndian.Uint32(b[:])), false
	case len64:
		var b [8]byte
		r.fill(b[:], what)
		return binary.BigEndian.Uint64(b[:]), false
	}
	r.failf(r.off-1, "invalid length encoding byte 0x%02x in %s", c, what)
	return 0, false
}

// readCount reads a plain length (no special encoding allowed).
func (r *Reader) readCount(what string) uint64 {
	start := r.off
	n, enc := r.readLen(what)
	if enc {
		r.failf(start, "%s: expected a length, found a string encoding", what)
	}
	return n
}

// readString reads a string in any encoding. dataOff is the file offset of
// the string's bytes (for error messages), or -1 when they were compressed.
func (r *Reader) readString(what string) (s []byte, dataOff int64) {
	start := r.off
	n, enc := r.readLen(what)
	if !enc {
		dataOff = r.off
		return r.read(n, what), dataOff
	}
	switch n {
	case encInt8:
		v := int8(r.readByte(what))
		return strconv.AppendInt(nil, int64(v), 10), -1
	case encInt16:
		var b [2]byte
		r.fill(b[:], what)
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b[:]))), 10), -1
	case encInt32:
		var b [4]byte
		r.fill(b[:], what)
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b[:]))), 10), -1
	case encLZF:
		clen := r.readCount(what + " (LZF compressed length)")
		ulen := r.readCount(what + " (LZF length)")
		if clen == 0 || ulen > clen*lzfMaxRatio+lzfMaxLit || ulen > math.MaxInt32*4 {
			r.failf(start, "%s: LZF string of %d bytes cannot expand to %d", what, clen, ulen)
		}
		cdata := r.read(clen, what)
		out, err := lzfDecompress(cdata, int(ulen))
		if err != nil {
			r.failf(start, "%s: invalid LZF data", what)
		}
		r.stats.lzfStrings++
		return out, -1
	}
	r.failf(start, "%s: unknown string encoding %d", what, n)
	return nil, 0
}

// Next returns the next record. After the EOF opcode and a verified checksum
// it returns io.EOF; corruption is reported as *Error, and every later call
// returns the same error.
func (r *Reader) Next() (rec *Record, err error) {
	if r.err != nil {
		return nil, r.err
	}
	defer func() {
		if x := recover(); x != nil {
			a, ok := x.(abort)
			if !ok {
				panic(x)
			}
			rec, err, r.err = nil, a.err, a.err
		}
	}()
	for {
		opOff := r.off
		op := r.readByte("opcode")
		switch op {
		case opEOF:
			r.checkEOF()
			r.err = io.EOF
			return nil, io.EOF
		case opSelectDB:
			n := r.readCount("SELECTDB")
			if n > math.MaxInt32 {
				r.failf(opOff, "SELECTDB %d out of range", n)
			}
			r.db = int(n)
			return &Record{Kind: KindSelectDB, DB: r.db}, nil
		case opResizeDB:
			k := r.readCount("RESIZEDB")
			e := r.readCount("RESIZEDB")
			return &Record{Kind: KindResizeDB, DB: r.db, ResizeKeys: k, ResizeExpires: e}, nil
		case opAux:
			k, _ := r.readString("AUX key")
			v, _ := r.readString("AUX value")
			if string(k) == auxMC {
				r.parseMC(opOff, v)
				continue
			}
			return &Record{Kind: KindAux, DB: r.db, AuxKey: k, AuxValue: v}, nil
		case opExpireMs:
			var b [8]byte
			r.fill(b[:], "EXPIRETIME_MS")
			r.setExpire(int64(binary.LittleEndian.Uint64(b[:])))
		case opExpire:
			var b [4]byte
			r.fill(b[:], "EXPIRETIME")
			r.setExpire(int64(int32(binary.LittleEndian.Uint32(b[:]))) * 1000)
		case opIdle:
			n := r.readCount("IDLE")
			if n > math.MaxInt64 {
				n = math.MaxInt64
			}
			r.pend.Idle = int64(n)
		case opFreq:
			r.pend.Freq = int(r.readByte("FREQ"))
		case opFunction2:
			code, _ := r.readString("function library")
			return &Record{Kind: KindFunction, DB: r.db, Code: code}, nil
		case opFunction:
			r.unsupported(opOff, "FUNCTION opcode (246) is the format of Redis 7.0 release candidates, which Tandem does not load; re-save the file with Redis 7.0 GA or later")
		case opModuleAux:
			r.unsupported(opOff, "module AUX data (opcode 247): Tandem does not support Redis modules")
		default:
			if rec := r.readKey(opOff, op); rec != nil {
				return rec, nil
			}
		}
	}
}

func (r *Reader) setExpire(ms int64) {
	switch ms {
	case -1: // Redis's own "no expiry"
		ms = 0
	case 0: // the epoch: long expired, but 0 means "none" in Meta
		ms = 1
	}
	r.pend.ExpireAtMs = ms
}

func (r *Reader) parseMC(off int64, v []byte) {
	var flags uint32
	var cas uint64
	var f, c string
	for i, ch := range v {
		if ch == ' ' {
			f, c = string(v[:i]), string(v[i+1:])
			break
		}
	}
	fl, err1 := strconv.ParseUint(f, 10, 32)
	ca, err2 := strconv.ParseUint(c, 10, 64)
	if err1 != nil || err2 != nil {
		r.failf(off, "malformed %s AUX value %q (want \"<flags> <cas>\")", auxMC, v)
	}
	flags, cas = uint32(fl), ca
	r.pend.MCFlags, r.pend.MCCAS = flags, cas
}

func (r *Reader) checkEOF() {
	if r.version < 5 {
		return
	}
	sumOff := r.off
	computed := r.crc
	var b [8]byte
	r.fill(b[:], "checksum")
	stored := binary.LittleEndian.Uint64(b[:])
	if stored != 0 && stored != computed {
		r.failf(sumOff, "RDB CRC error: checksum mismatch: file says %016x, computed %016x", stored, computed) // "CRC error", as Redis logs it
	}
}

// readKey reads a key of RDB type t and its value. It returns nil when the
// value is an empty collection, which Redis also skips on load.
func (r *Reader) readKey(typeOff int64, t byte) *Record {
	switch t {
	case rtString, rtList, rtSet, rtZSet, rtHash, rtZSet2, rtModule, rtModule2,
		rtHashZipmap, rtListZiplist, rtSetIntset, rtZSetZiplist, rtHashZiplist,
		rtListQuicklist, rtStreamListpacks, rtHashListpack, rtZSetListpack,
		rtListQuicklist2, rtStreamListpack2, rtSetListpack, rtStreamListpack3:
	default:
		r.failf(typeOff, "unknown opcode or value type %d", t)
	}
	key, _ := r.readString("key")
	rec := &Record{Kind: KindKey, DB: r.db, Key: key, RDBType: t, Meta: r.pend}
	r.pend = NewMeta()
	switch t {
	case rtModule, rtModule2:
		r.unsupported(typeOff, "key %q has a module value (type %d, %s): Tandem does not support Redis modules", key, t, rdbTypeName(t))
	case rtStreamListpack3:
		r.unsupported(typeOff, "key %q is a Redis 7.2 stream (type %d, %s)", key, t, rdbTypeName(t))
	}
	r.curKey = key
	defer func() { r.curKey = nil }()
	if !r.readValue(rec, typeOff, t) {
		return nil
	}
	return rec
}

// readValue reads a value of RDB type t (at file offset typeOff) into rec.
// It returns false when the value is an empty collection, which Redis
// skips when it loads a file and refuses in a DUMP payload.
func (r *Reader) readValue(rec *Record, typeOff int64, t byte) bool {
	const what = "value"
	switch t {
	case rtString:
		rec.Type = String
		rec.Str, _ = r.readString(what)
		return true
	case rtList, rtSet:
		rec.Type = List
		if t == rtSet {
			rec.Type = Set
		}
		n := r.readCount(what)
		rec.Elems = make([][]byte, 0, capHint(int(min(n, 1024)), 1024))
		for i := uint64(0); i < n; i++ {
			e, _ := r.readString(what)
			rec.Elems = append(rec.Elems, e)
		}
	case rtHash:
		rec.Type = Hash
		n := r.readCount(what)
		h := capHint(int(min(n, 1024)), 1024)
		rec.Fields, rec.Values = make([][]byte, 0, h), make([][]byte, 0, h)
		for i := uint64(0); i < n; i++ {
			f, _ := r.readString(what)
			v, _ := r.readString(what)
			rec.Fields = append(rec.Fields, f)
			rec.Values = append(rec.Values, v)
		}
	case rtStreamListpacks, rtStreamListpack2:
		rec.Type = StreamType
		rec.Stream = r.readStream(typeOff, t)
		return true
	case rtZSet, rtZSet2:
		rec.Type = ZSet
		n := r.readCount(what)
		rec.Members = make([]Member, 0, capHint(int(min(n, 1024)), 1024))
		for i := uint64(0); i < n; i++ {
			m, _ := r.readString(what)
			scoreOff := r.off
			var score float64
			if t == rtZSet2 {
				var b [8]byte
				r.fill(b[:], what)
				score = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
			} else {
				score = r.readDoubleString(what)
			}
			if math.IsNaN(score) {
				r.failf(scoreOff, "%s: NaN score", what)
			}
			rec.Members = append(rec.Members, Member{Member: m, Score: score})
		}
	case rtHashZipmap:
		rec.Type = Hash
		blob, off := r.readString(what)
		f, v, err := decodeZipmap(blob)
		r.blobCheck(err, off, typeOff, what, "zipmap")
		rec.Fields, rec.Values = f, v
	case rtListZiplist, rtListQuicklist:
		rec.Type = List
		nodes := uint64(1)
		if t == rtListQuicklist {
			nodes = r.readCount(what)
		}
		for i := uint64(0); i < nodes; i++ {
			blob, off := r.readString(what)
			elems, err := decodeZiplist(blob)
			r.blobCheck(err, off, typeOff, what, "ziplist")
			rec.Elems = append(rec.Elems, elems...)
		}
	case rtListQuicklist2:
		rec.Type = List
		nodes := r.readCount(what)
		for i := uint64(0); i < nodes; i++ {
			cOff := r.off
			container := r.readCount(what)
			blob, off := r.readString(what)
			switch container {
			case qlPlain:
				if len(blob) == 0 { // Redis refuses an empty node of either kind
					r.failf(cOff, "%s: empty plain quicklist node", what)
				}
				r.stats.plainNodes++
				rec.Elems = append(rec.Elems, blob)
			case qlPacked:
				r.stats.packedNodes++
				if off < 0 {
					r.stats.lzfNodes++
				}
				elems, err := decodeListpack(blob)
				r.blobCheck(err, off, typeOff, what, "listpack")
				rec.Elems = append(rec.Elems, elems...)
			default:
				r.failf(cOff, "%s: unknown quicklist node container %d", what, container)
			}
		}
	case rtSetIntset:
		rec.Type = Set
		blob, off := r.readString(what)
		elems, err := decodeIntset(blob)
		r.blobCheck(err, off, typeOff, what, "intset")
		rec.Elems = elems
		rec.IntsetWidth = int(blob[0]) // decodeIntset checked it: 2, 4 or 8
	case rtSetListpack:
		rec.Type = Set
		blob, off := r.readString(what)
		elems, err := decodeListpack(blob)
		r.blobCheck(err, off, typeOff, what, "listpack")
		rec.Elems = elems
	case rtHashZiplist, rtHashListpack, rtZSetZiplist, rtZSetListpack:
		blob, off := r.readString(what)
		var elems [][]byte
		var err error
		kind := "listpack"
		if t == rtHashZiplist || t == rtZSetZiplist {
			kind = "ziplist"
			elems, err = decodeZiplist(blob)
		} else {
			elems, err = decodeListpack(blob)
		}
		r.blobCheck(err, off, typeOff, what, kind)
		if len(elems)%2 != 0 {
			r.failf(typeOff, "%s: %s has an odd number of entries (%d)", what, kind, len(elems))
		}
		if t == rtHashZiplist || t == rtHashListpack {
			rec.Type = Hash
			rec.Fields, rec.Values = make([][]byte, 0, len(elems)/2), make([][]byte, 0, len(elems)/2)
			for i := 0; i < len(elems); i += 2 {
				rec.Fields = append(rec.Fields, elems[i])
				rec.Values = append(rec.Values, elems[i+1])
			}
		} else {
			rec.Type = ZSet
			rec.Members = make([]Member, 0, len(elems)/2)
			for i := 0; i < len(elems); i += 2 {
				s, err := strconv.ParseFloat(string(elems[i+1]), 64)
				if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(s) {
					r.failf(typeOff, "%s: bad score %q in %s", what, elems[i+1], kind)
				}
				rec.Members = append(rec.Members, Member{Member: elems[i], Score: s})
			}
		}
	}
	if len(rec.Elems) == 0 && len(rec.Fields) == 0 && len(rec.Members) == 0 {
		r.stats.emptySkipped++
		return false
	}
	return true
}

// blobCheck turns a blob decoder's error into an *Error at the file offset
// of the bad byte (or of the key's type byte when the blob was compressed).
func (r *Reader) blobCheck(err error, dataOff, typeOff int64, what, kind string) {
	if err == nil {
		return
	}
	var be *blobError
	if errors.As(err, &be) && dataOff >= 0 {
		r.failf(dataOff+int64(be.off), "%s: bad %s: %s", what, kind, be.msg)
	}
	r.failf(typeOff, "%s: bad %s (compressed): %v", what, kind, err)
}

// readDoubleString reads the RDB_TYPE_ZSET score format: a length byte (253
// NaN, 254 +inf, 255 -inf) and that many bytes of decimal text.
func (r *Reader) readDoubleString(what string) float64 {
	off := r.off
	n := r.readByte(what)
	switch n {
	case 253:
		return math.NaN()
	case 254:
		return math.Inf(1)
	case 255:
		return math.Inf(-1)
	}
	b := r.read(uint64(n), what)
	s, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		r.failf(off, "%s: bad score %q", what, b)
	}
	return s
}
