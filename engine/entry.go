package engine

import (
	"unsafe"

	"github.com/tandemkv/tandem/internal/num"
)

// Type is the type tag every entry carries (Redis TYPE).
type Type uint8

// Entry types. TypeNone marks a free slot and a missing key.
const (
	TypeNone Type = iota
	TypeString
	TypeList
	TypeHash
	TypeSet
	TypeZSet
)

// String returns the name Redis's TYPE command uses.
func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeList:
		return "list"
	case TypeHash:
		return "hash"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	}
	return "none"
}

// Encoding is how a string value is held, as OBJECT ENCODING reports it.
// Redis decides it from the value and from the command that wrote it
// (APPEND and SETRANGE always leave a raw string), so the engine records it.
type Encoding uint8

// String encodings.
const (
	EncRaw Encoding = iota
	EncEmbstr
	EncInt
)

// String returns the OBJECT ENCODING name.
func (e Encoding) String() string {
	if name, ok := aggEncodingNames[e]; ok {
		return name
	}
	switch e {
	case EncEmbstr:
		return "embstr"
	case EncInt:
		return "int"
	}
	return "raw"
}

// embstrMaxLen is Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT.
const embstrMaxLen = 44

// encodingFor returns the encoding Redis's tryObjectEncoding gives a value
// written by SET: integers of up to 20 characters that round-trip become
// "int", short strings "embstr", the rest "raw".
func encodingFor(v []byte) Encoding {
	if len(v) <= 20 {
		if _, ok := num.ParseInt(v); ok {
			return EncInt
		}
	}
	if len(v) <= embstrMaxLen {
		return EncEmbstr
	}
	return EncRaw
}

// entry is one key. It is kept small and holds a single pointer (kv), so
// the GC's work per key is one pointer however many keys there are.
type entry struct {
	kv       []byte // key bytes followed by value bytes; immutable once stored
	expireAt int64  // unix ms; 0 = no expiry
	cas      uint64 // memcached CAS unique; changes on every write
	next     uint32 // slot+1 of the next entry whose key has the same hash; 0 = none
	keyLen   uint32
	flags    uint32 // memcached client flags
	access   uint32 // seconds on the engine's LRU clock at the last access
	typ      Type
	enc      Encoding
	// ttlGen counts expiry changes, which keep the CAS (memcached touch
	// does), so WATCH still sees them (watch.go), in its low 15 bits. It
	// wraps; a watch spanning 32,768 expiry changes of one key is not a
	// concern. The top bit is memcached's "fetched" bit (fetched.go).
	ttlGen uint16
	// evict is the eviction policy's per-key state (evict.go): Redis's
	// LFU word under the LFU policies, the S3-FIFO word under
	// allkeys-s3fifo; 0 until a policy first sees the entry.
	evict uint32
}

func (e *entry) key() []byte   { return e.kv[:e.keyLen:e.keyLen] }
func (e *entry) value() []byte { return e.kv[e.keyLen:len(e.kv):len(e.kv)] }

// entrySize is what one entry costs in its shard's slice.
const entrySize = int64(unsafe.Sizeof(entry{}))

// indexCostPerKey is the index map's share per key: an 8-byte hash and a
// 4-byte slot in a Swiss table group, control bytes, the table's spare
// capacity at its average load, and the entries slice's growth slack.
// Measured, not guessed: BenchmarkMemoryPerKey (1M keys) shows the heap
// growing by this much per key beyond the entry and its key+value.
const indexCostPerKey = 44

// allocSize rounds n up to the size Go's allocator hands out for it, so
// that used_memory counts the bytes a value really occupies.
func allocSize(n int) int64 {
	switch {
	case n == 0:
		return 0
	case n <= 16:
		return 16
	case n <= 128:
		return int64((n + 15) &^ 15)
	case n <= 1024:
		return int64((n + 127) &^ 127)
	case n <= 32768:
		return int64((n + 1023) &^ 1023)
	}
	return int64((n + 8191) &^ 8191)
}

// memOf is the memory an entry accounts for.
func memOf(kvLen int) int64 {
	return allocSize(kvLen) + entrySize + indexCostPerKey
}

// Item is what a read returns: a string value with its metadata.
// Value is immutable and shared: it stays valid after the call and must not
// be modified. A value stored compressed is decompressed into a buffer of
// the Item's own, which Release may hand back (compress.go).
type Item struct {
	Value    []byte
	ExpireAt int64 // unix ms; 0 = no expiry
	CAS      uint64
	Flags    uint32
	Type     Type
	Encoding Encoding
	// Fetched is memcached's fetched bit as it was before this read: the
	// value had been read since it was written (fetched.go).
	Fetched bool

	buf *[]byte // decompression buffer holding Value, for Release (compress.go)
}
