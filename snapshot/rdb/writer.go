package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/internal/num"
)

// WriterOptions configures a Writer.
type WriterOptions struct {
	Compress bool        // rdbcompression: LZF for strings longer than 20 bytes when it saves space
	Checksum bool        // rdbchecksum: CRC-64/Jones as Redis; else 8 zero bytes ("not checked")
	Aux      [][2]string // extra AUX fields, written after Redis's own
	UsedMem  int64       // the used-mem AUX field (0 is written as 0)
	CTime    int64       // the ctime AUX field in Unix seconds; 0 = now
}

// Writer writes an RDB file (version 10, as Redis 7.0) to an io.Writer.
// It buffers; Close writes the trailer and flushes. The first error is sticky.
//
// A DUMP payload (dump.go) is written by a Writer with no io.Writer: w is
// nil and every byte is appended to mem instead.
type Writer struct {
	lzf *lzfCompressor // reused for every LZF string
	// lzfRedis, when set, compresses instead, as Redis does (DUMP
	// payloads, dump.go).
	lzfRedis *lzfRedis
	mc       []byte // the tandem-mc AUX value being written
	w        *bufio.Writer
	mem      []byte // the payload, when w is nil
	lp       listpackBuilder
	o        WriterOptions
	crc      uint64
	err      error
	closed   bool
	ibuf     [24]byte
}

var errClosed = errors.New("rdb: writer is closed")

// NewWriter writes the header "REDIS0010" and the AUX fields redis-ver
// (7.0.15), redis-bits (64), ctime, used-mem and aof-base (0), then o.Aux.
func NewWriter(w io.Writer, o WriterOptions) (*Writer, error) {
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10), o: o}
	wr.raw([]byte(fmt.Sprintf("REDIS%04d", RDBVersion)))
	ctime := o.CTime
	if ctime == 0 {
		ctime = time.Now().Unix()
	}
	wr.aux("redis-ver", "7.0.15")
	wr.aux("redis-bits", "64")
	wr.aux("ctime", strconv.FormatInt(ctime, 10))
	wr.aux("used-mem", strconv.FormatInt(o.UsedMem, 10))
	wr.aux("aof-base", "0")
	for _, kv := range o.Aux {
		wr.aux(kv[0], kv[1])
	}
	if wr.err != nil {
		return nil, wr.err
	}
	return wr, nil
}

func (w *Writer) raw(p []byte) {
	if w.err != nil {
		return
	}
	w.crc = crc64Update(w.crc, p)
	if w.w == nil {
		w.mem = append(w.mem, p...)
		return
	}
	_, w.err = w.w.Write(p)
}

func (w *Writer) byte1(c byte) {
	if w.err != nil {
		return
	}
	w.crc = crcTable[0][byte(w.crc)^c] ^ w.crc>>8
	if w.w == nil {
		w.mem = append(w.mem, c)
		return
	}
	w.err = w.w.WriteByte(c)
}

// length writes an RDB length in the shortest form.
func (w *Writer) length(n uint64) {
	b := w.ibuf[:0]
	switch {
	case n < 1<<6:
		b = append(b, byte(n))
	case n < 1<<14:
		b = append(b, byte(n>>8)|0x40, byte(n))
	case n <= math.MaxUint32:
		b = append(b, len32)
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	default:
		b = append(b, len64)
		b = binary.BigEndian.AppendUint64(b, n)
	}
	w.raw(b)
}

// str writes a string: integer-encoded when it is the canonical decimal form
// of a 32-bit integer, LZF-compressed when enabled and it saves, else raw.
func (w *Writer) str(s []byte) {
	if len(s) <= 11 && len(s) > 0 {
		// num.ParseInt accepts only the exact decimal form (Redis's
		// string2ll), and does not allocate on a miss as strconv does.
		if v, ok := num.ParseInt(s); ok {
			b := w.ibuf[:0]
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				b = append(b, 0xC0|encInt8, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				b = append(b, 0xC0|encInt16)
				b = binary.LittleEndian.AppendUint16(b, uint16(v))
			case v >= math.MinInt32 && v <= math.MaxInt32:
				b = append(b, 0xC0|encInt32)
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			}
			if len(b) > 0 {
				w.raw(b)
				return
			}
		}
	}
	if w.o.Compress && len(s) > 20 {
		// Like Redis: only when the result is at least 4 bytes shorter.
		var c []byte
		switch {
		case w.lzfRedis != nil:
			c = w.lzfRedis.compress(s, len(s)-4)
		default:
			if w.lzf == nil {
				w.lzf = new(lzfCompressor)
			}
			c = w.lzf.compress(s, len(s)-4)
		}
		if c != nil {
			w.byte1(0xC0 | encLZF)
			w.length(uint64(len(c)))
			w.length(uint64(len(s)))
			w.raw(c)
			return
		}
	}
	w.length(uint64(len(s)))
	w.raw(s)
}

// auxMCName is the tandem-mc AUX field's name as bytes.
var auxMCName = []byte(auxMC)

func (w *Writer) aux(k, v string) {
	w.byte1(opAux)
	w.str([]byte(k))
	w.str([]byte(v))
}

func (w *Writer) check() error {
	if w.closed {
		return errClosed
	}
	return w.err
}

// SelectDB writes SELECTDB and RESIZEDB (the counts are only sizing hints
// for the loader). It may be called any number of times, in any order.
func (w *Writer) SelectDB(db int, keys, expires uint64) error {
	if err := w.check(); err != nil {
		return err
	}
	if db < 0 {
		return fmt.Errorf("rdb: negative database %d", db)
	}
	w.byte1(opSelectDB)
	w.length(uint64(db))
	w.byte1(opResizeDB)
	w.length(keys)
	w.length(expires)
	return w.err
}

// keyHeader writes a key's metadata opcodes, its type byte and its name.
func (w *Writer) keyHeader(t byte, key []byte, m Meta) {
	w.keyMeta(m)
	w.byte1(t)
	w.str(key)
}

// keyMeta writes the opcodes of a key's metadata, which come before its
// type byte.
func (w *Writer) keyMeta(m Meta) {
	if m.MCFlags != 0 || m.MCCAS != 0 {
		// Written for most keys (every write has a CAS), so without
		// allocating: a save is a loop over millions of keys.
		w.mc = strconv.AppendUint(w.mc[:0], uint64(m.MCFlags), 10)
		w.mc = append(w.mc, ' ')
		w.mc = strconv.AppendUint(w.mc, m.MCCAS, 10)
		w.byte1(opAux)
		w.str(auxMCName)
		w.str(w.mc)
	}
	if m.ExpireAtMs != 0 {
		w.byte1(opExpireMs)
		w.raw(binary.LittleEndian.AppendUint64(w.ibuf[:0], uint64(m.ExpireAtMs)))
	}
	if m.Idle >= 0 {
		w.byte1(opIdle)
		w.length(uint64(m.Idle))
	}
	if m.Freq >= 0 {
		f := m.Freq
		if f > 255 {
			f = 255
		}
		w.byte1(opFreq)
		w.byte1(byte(f))
	}
}

// String writes a string key.
func (w *Writer) String(key, value []byte, m Meta) error {
	if err := w.check(); err != nil {
		return err
	}
	w.keyHeader(rtString, key, m)
	w.str(value)
	return w.err
}

// List writes a list key (RDB_TYPE_LIST; Redis converts it to a quicklist
// on load). An empty list is not written: Redis would skip it on load.
func (w *Writer) List(key []byte, elems [][]byte, m Meta) error {
	return w.seq(rtList, key, elems, m)
}

// Set writes a set key (RDB_TYPE_SET). An empty set is not written.
func (w *Writer) Set(key []byte, members [][]byte, m Meta) error {
	return w.seq(rtSet, key, members, m)
}

func (w *Writer) seq(t byte, key []byte, elems [][]byte, m Meta) error {
	if err := w.check(); err != nil {
		return err
	}
	if len(elems) == 0 {
		return nil
	}
	w.keyHeader(t, key, m)
	w.seqBody(elems)
	return w.err
}

// seqBody writes the value of RDB_TYPE_LIST and RDB_TYPE_SET: a count and
// the strings.
func (w *Writer) seqBody(elems [][]byte) {
	w.length(uint64(len(elems)))
	for _, e := range elems {
		w.str(e)
	}
}

// Hash writes a hash key (RDB_TYPE_HASH); values[i] belongs to fields[i].
// An empty hash is not written.
func (w *Writer) Hash(key []byte, fields, values [][]byte, m Meta) error {
	if err := w.check(); err != nil {
		return err
	}
	if len(fields) != len(values) {
		return fmt.Errorf("rdb: hash %q has %d fields but %d values", key, len(fields), len(values))
	}
	if len(fields) == 0 {
		return nil
	}
	w.keyHeader(rtHash, key, m)
	w.hashBody(fields, values)
	return w.err
}

// hashBody writes the value of RDB_TYPE_HASH: a count and the pairs.
func (w *Writer) hashBody(fields, values [][]byte) {
	w.length(uint64(len(fields)))
	for i := range fields {
		w.str(fields[i])
		w.str(values[i])
	}
}

// checkScores refuses a NaN score, which Redis refuses to load.
func checkScores(key []byte, members []Member) error {
	for _, mb := range members {
		if math.IsNaN(mb.Score) {
			return fmt.Errorf("rdb: zset %q member %q has a NaN score", key, mb.Member)
		}
	}
	return nil
}

// ZSet writes a sorted set key (RDB_TYPE_ZSET_2, binary double scores). A NaN
// score is refused (Redis would refuse the file). An empty zset is not written.
func (w *Writer) ZSet(key []byte, members []Member, m Meta) error {
	if err := w.check(); err != nil {
		return err
	}
	if err := checkScores(key, members); err != nil {
		return err
	}
	if len(members) == 0 {
		return nil
	}
	w.keyHeader(rtZSet2, key, m)
	w.zsetBody(members, false)
	return w.err
}

// zsetBody writes the value of RDB_TYPE_ZSET_2: a count and the members
// with their scores as 8-byte little-endian doubles, in the order given or
// in reverse (Redis writes a skiplist from the highest score down).
func (w *Writer) zsetBody(members []Member, reverse bool) {
	w.length(uint64(len(members)))
	for i := range members {
		mb := &members[i]
		if reverse {
			mb = &members[len(members)-1-i]
		}
		w.str(mb.Member)
		w.raw(binary.LittleEndian.AppendUint64(w.ibuf[:0], math.Float64bits(mb.Score)))
	}
}

// Function writes a function library's source (the FUNCTION2 opcode).
func (w *Writer) Function(code []byte) error {
	if err := w.check(); err != nil {
		return err
	}
	w.byte1(opFunction2)
	w.str(code)
	return w.err
}

// Close writes the EOF opcode and the checksum and flushes. It does not
// close the underlying writer.
func (w *Writer) Close() error {
	if err := w.check(); err != nil {
		return err
	}
	w.byte1(opEOF)
	var sum uint64
	if w.o.Checksum {
		sum = w.crc
	}
	b := binary.LittleEndian.AppendUint64(w.ibuf[:0], sum)
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
	if w.err == nil {
		w.err = w.w.Flush()
	}
	w.closed = true
	return w.err
}
