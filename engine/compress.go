package engine

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Transparent value compression.
//
// A string value of at least Compression.MinSize bytes is compressed when
// a SET-like command stores it (store: SET and its variants, MSET, APPEND,
// SETRANGE, the memcached storage commands), and kept compressed only when
// that saves at least MinSaving percent. The commands that rewrite a value
// bit by bit (SETBIT, BITFIELD, PFADD, PFMERGE, BITOP's destination) store
// plain bytes: they rewrite the value often, and would pay a compression
// per bit changed. Integers (EncInt) are never compressed.
//
// Where the state lives: the top two bits of the entry's enc byte name the
// codec (encCodecMask); the low bits keep the encoding OBJECT ENCODING
// reports, so compression is invisible there (a compressed value reports
// what Redis would: raw, or embstr below 45 bytes). The entry does not
// grow and its memcached flags are untouched.
//
// The stored form starts with the plain length as a uvarint: an s2 block
// begins with exactly that, and a zstd frame is stored after one. So the
// plain length (STRLEN, INFO's counters) is read without decompressing.
//
// Values are immutable: a read decompresses into a buffer of its own
// (entry.plainValue, the one accessor every reader of a string value goes
// through). Get and friends take that buffer from a pool; a caller that is
// done with the value gives it back with Item.Release.
//
// A change of configuration applies to new writes only: every entry names
// its own codec, so values stored under another setting stay readable.

// Codec is a compression algorithm for values.
type Codec uint8

// Codecs, in the order of the "compression" directive's values.
const (
	CodecNone Codec = iota
	CodecS2
	CodecZstd
)

// String returns the directive's name for the codec.
func (c Codec) String() string {
	switch c {
	case CodecS2:
		return "s2"
	case CodecZstd:
		return "zstd"
	}
	return "none"
}

// Compression configures value compression. The zero value disables it.
type Compression struct {
	Codec     Codec
	MinSize   int64 // values shorter than this are stored as they are
	MinSaving int   // percent (0..100) the compressed form must save to be kept
}

// encCodecShift and encCodecMask place the codec in the entry's enc byte.
// String encodings use values below 32 (aggregate.go's start at 16).
const (
	encCodecShift          = 6
	encCodecMask  Encoding = 3 << encCodecShift
)

// codec returns the codec the entry's value is stored with.
func (en *entry) codec() Codec { return Codec(en.enc >> encCodecShift) }

// encoding returns the encoding OBJECT ENCODING reports, without the codec.
func (en *entry) encoding() Encoding { return en.enc &^ encCodecMask }

// maxPlainLen bounds the plain length of a stored value: s2's block limit.
const maxPlainLen = 0xffffffff

// errCorrupt reports stored bytes that do not decode (never for values the
// engine wrote; decodeValue also checks untrusted input in tests).
var errCorrupt = errors.New("engine: corrupt compressed value")

// plainLen returns the plain length of a compressed value from its header.
func plainLen(stored []byte) (int, int, error) {
	n, hl := binary.Uvarint(stored)
	if hl <= 0 || n > maxPlainLen {
		return 0, 0, errCorrupt
	}
	return int(n), hl, nil
}

// plainSize is the length a reader sees: STRLEN without decompressing.
func (a *arena) plainSize(en *entry) int {
	v := a.value(en)
	if en.codec() == CodecNone {
		return len(v)
	}
	n, _, err := plainLen(v)
	if err != nil {
		panic(err)
	}
	return n
}

// decodeValue decompresses stored (written with codec c) into dst's storage
// (from dst[:0]; a new allocation when its capacity is short) and returns
// the plain bytes. A declared length above limit is refused before any
// allocation, and zstd never decodes more than the declared length.
func decodeValue(dst, stored []byte, c Codec, limit int) ([]byte, error) {
	n, hl, err := plainLen(stored)
	if err != nil || n > limit {
		return nil, errCorrupt
	}
	if cap(dst) < n {
		dst = make([]byte, 0, n)
	}
	var out []byte
	switch c {
	case CodecS2:
		out, err = s2.Decode(dst[:n], stored)
	case CodecZstd:
		out, err = zstdDecoder().DecodeAll(stored[hl:], dst[:0:n])
	default:
		return nil, errCorrupt
	}
	if err != nil || len(out) != n {
		return nil, errCorrupt
	}
	return out, nil
}

// bufPool holds decompression buffers (*[]byte) of up to poolMaxBuf bytes.
var bufPool sync.Pool

const poolMaxBuf = 1 << 20

// plainValue is the one accessor of a string value as readers see it: the
// stored bytes themselves when uncompressed (shared and immutable, no
// copy), else the value decompressed into a buffer of its own. With pooled
// set, that buffer comes from bufPool and is returned as *buf for
// Item.Release; otherwise it is a new allocation the caller keeps.
func (a *arena) plainValue(en *entry, pooled bool) (v []byte, buf *[]byte) {
	stored := a.value(en)
	c := en.codec()
	if c == CodecNone {
		return stored, nil
	}
	var dst []byte
	if pooled {
		if n, _, err := plainLen(stored); err == nil && n <= poolMaxBuf {
			if p, ok := bufPool.Get().(*[]byte); ok {
				buf = p
			} else {
				buf = new([]byte)
			}
			dst = *buf
		}
	}
	v, err := decodeValue(dst, stored, c, maxPlainLen)
	if err != nil {
		// The engine wrote these bytes and never changes them.
		panic(err)
	}
	if buf != nil {
		*buf = v[:0]
	}
	return v, buf
}

// Release gives a decompression buffer back to the engine once the caller
// no longer uses it.Value (it has been written out). It is optional and a
// no-op for values that were not compressed; after it, Value must not be
// read again.
func (it *Item) Release() {
	if it.buf != nil {
		putBuf(it.buf)
		it.buf, it.Value = nil, nil
	}
}

// --- writing ------------------------------------------------------------------

// compressConf is the published Compression with derived values.
type compressConf struct {
	Compression
	minSize int
}

// SetCompression changes how values are compressed from the next write on.
// Stored values keep the form they were written in.
func (e *Engine) SetCompression(c Compression) {
	if c.Codec == CodecNone || c.Codec > CodecZstd {
		e.comp.Store(nil)
		return
	}
	c.MinSaving = min(max(c.MinSaving, 0), 100)
	cc := &compressConf{Compression: c, minSize: int(min(max(c.MinSize, 0), maxPlainLen))}
	e.comp.Store(cc)
}

// Compression returns the compression settings in force.
func (e *Engine) Compression() Compression {
	if cc := e.comp.Load(); cc != nil {
		return cc.Compression
	}
	return Compression{}
}

// packValue returns value as it is to be stored: compressed when the
// settings ask for it and it pays, with enc's codec bits set. A compressed
// form is in a pooled buffer, returned as scratch for putScratch once the
// value is copied into its record.
func (e *Engine) packValue(value []byte, enc Encoding) ([]byte, Encoding, *[]byte) {
	cc := e.comp.Load()
	if cc == nil || len(value) < cc.minSize || len(value) == 0 || enc == EncInt || len(value) > maxPlainLen {
		return value, enc, nil
	}
	return cc.pack(value, enc)
}

// sampleLen is the size of the sample a value is tried on first, and
// sampleFrom the value length from which s2 samples: s2 gives up on
// incompressible input quickly by itself, so below that a failed attempt
// costs little more than the sample would. zstd always samples: a failed
// zstd attempt costs several times a plain SET even at 1 KB.
const sampleLen = 2048

// sampleFrom is a variable only so that a benchmark can measure what the
// sample saves.
var sampleFrom = 8192

// compressible tells from a sample whether value may compress by the
// configured share: s2's size estimate (a fast pass that writes nothing) on
// up to sampleLen bytes from the middle of the value. Already-compressed
// data (gzip, JPEG, random bytes) fails here, at a small fraction of the
// cost of compressing it whole.
func (cc *compressConf) compressible(value []byte) bool {
	if len(value) < sampleFrom && (cc.Codec == CodecS2 || sampleFrom == math.MaxInt) {
		return true
	}
	n := min(len(value), sampleLen)
	mid := len(value)/2 - n/2
	sample := value[mid : mid+n]
	est := s2.EstimateBlockSize(sample)
	if est < 0 {
		return false
	}
	// zstd's entropy coding finds savings s2 cannot (base64, text with a
	// small alphabet): ask the s2 sample only for half the share then.
	need := cc.MinSaving
	if cc.Codec == CodecZstd {
		need /= 2
	}
	return (n-est)*100 >= need*n
}

// scratchPool holds compression output buffers (*[]byte).
var scratchPool sync.Pool

func (cc *compressConf) pack(value []byte, enc Encoding) ([]byte, Encoding, *[]byte) {
	if !cc.compressible(value) {
		return value, enc, nil
	}
	// Kept only when it saves MinSaving percent: at most limit bytes.
	limit := len(value) - len(value)*cc.MinSaving/100
	var p *[]byte
	if q, ok := scratchPool.Get().(*[]byte); ok {
		p = q
	} else {
		p = new([]byte)
	}
	var out []byte
	switch cc.Codec {
	case CodecS2:
		out = s2.Encode((*p)[:0], value)
	case CodecZstd:
		out = binary.AppendUvarint((*p)[:0], uint64(len(value)))
		out = zstdEncoder().EncodeAll(value, out)
	}
	*p = out[:0]
	if len(out) > limit || len(out) >= len(value) {
		putScratch(p)
		return value, enc, nil
	}
	return out, enc | Encoding(cc.Codec)<<encCodecShift, p
}

// putScratch gives a buffer from packValue back to the pool (nil: none).
func putScratch(p *[]byte) {
	if p != nil && cap(*p) <= poolMaxBuf {
		scratchPool.Put(p)
	}
}

// The zstd coders are made on first use and shared: EncodeAll and
// DecodeAll are safe for concurrent use.
var (
	zstdEncOnce, zstdDecOnce sync.Once
	zstdEnc                  *zstd.Encoder
	zstdDec                  *zstd.Decoder
)

func zstdEncoder() *zstd.Encoder {
	zstdEncOnce.Do(func() {
		var err error
		zstdEnc, err = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithEncoderCRC(false), // values live in memory, not on a wire
			zstd.WithLowerEncoderMem(true),
			zstd.WithEncoderConcurrency(0))
		if err != nil {
			panic(err)
		}
	})
	return zstdEnc
}

func zstdDecoder() *zstd.Decoder {
	zstdDecOnce.Do(func() {
		var err error
		zstdDec, err = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecodeAllCapLimit(true)) // never more than the declared length
		if err != nil {
			panic(err)
		}
	})
	return zstdDec
}

// --- statistics -------------------------------------------------------------

// compStats are a shard's compression counters (INFO): compressed values,
// their plain and stored lengths.
type compStats struct {
	keys          int
	plain, stored int64
}

// countCompressed adds (sign 1) or removes (sign -1) a compressed entry's
// share of the shard's counters; a plain entry counts nothing.
func (s *shardData) countCompressed(en *entry, sign int) {
	if en.codec() == CodecNone {
		return
	}
	s.comp.keys += sign
	s.comp.plain += int64(sign * s.plainSize(en))
	s.comp.stored += int64(sign * len(s.value(en)))
}

// CompressionStats are the compression counters of the whole keyspace.
type CompressionStats struct {
	Keys        int64 // values stored compressed
	PlainBytes  int64 // their length as readers see it
	StoredBytes int64 // their compressed length
}

// CompressionStats sums the shards' counters, each read under its lock.
func (e *Engine) CompressionStats() CompressionStats {
	var st CompressionStats
	for i := range e.shards {
		s := &e.shards[i]
		s.lock()
		st.Keys += int64(s.comp.keys)
		st.PlainBytes += s.comp.plain
		st.StoredBytes += s.comp.stored
		s.unlock()
	}
	return st
}

// StrLen returns the length of the string at key (0 when missing) without
// decompressing it (STRLEN). ErrWrongType for another type.
func (d DB) StrLen(key []byte) (int, error) {
	k := d.lockKey(key)
	defer k.s.unlock()
	s := k.s
	if k.slot < 0 {
		s.lookedUp(0, 1)
		return 0, nil
	}
	en := &s.entries[k.slot]
	s.lookedUp(1, 0)
	d.touch(en, k.now)
	if en.typ != TypeString {
		return 0, ErrWrongType
	}
	return s.plainSize(en), nil
}

// putBuf gives a buffer from plainValue back to the pool (nil: none).
func putBuf(buf *[]byte) {
	if buf != nil {
		bufPool.Put(buf)
	}
}

// MemoryUsage returns the bytes key accounts for in used_memory (MEMORY
// USAGE): its entry, index share and record — for a compressed value the
// compressed bytes, the real footprint — plus an aggregate's elements. It
// does not count as an access, and a key that expired but is still held
// is measured, not reclaimed, as Redis's MEMORY USAGE reads its dictionary.
func (d DB) MemoryUsage(key []byte) (int64, bool) {
	s, h := d.shardOf(key)
	s.lock()
	defer s.unlock()
	slot := s.lookup(key, h)
	if slot < 0 {
		return 0, false
	}
	n := s.keyMemory(&s.entries[slot])
	if a := s.aggOf(slot); a != nil {
		n += a.memSize()
	}
	return n, true
}
