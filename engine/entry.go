package engine

import (
	"slices"
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
	TypeStream
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
	case TypeStream:
		return "stream"
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

// entry is one key's fixed-size part, in its shard's entries slice. It
// holds no pointer, so however many keys there are the GC has nothing to
// trace here; the key, the value and the optional metadata live in a
// record in the shard's arena (arena.go), which ref names.
type entry struct {
	ref    uint32 // the record: arena position, or index in bigs (entryBig)
	next   uint32 // slot+1 of the next entry in the same index bucket; 0 = none
	access uint32 // seconds on the engine's LRU clock at the last access
	// evict is the eviction policy's per-key state (evict.go): Redis's
	// LFU word under the LFU policies, the S3-FIFO word under
	// allkeys-s3fifo; 0 until a policy first sees the entry.
	evict uint32
	typ   Type
	enc   Encoding
	bits  uint8 // entryFetched, entryBig and which optional fields the record holds
	// tag is 8 bits of the key's hash: walking a bucket skips other keys
	// without reading their records.
	tag uint8
}

// Entry bits.
const (
	// entryFetched is memcached's fetched bit (fetched.go).
	entryFetched uint8 = 1 << iota
	// entryBig: the record has an allocation of its own (arena.go).
	entryBig
	// The record holds a CAS unique, an expiry, memcached flags.
	entryHasCAS
	entryHasExpire
	entryHasFlags
	// entryShared: a slice of the record's value has been handed out
	// (Item.Value and the like), so the value must not change in place
	// (arena.go, writeRecord).
	entryShared
)

// entrySize is what one entry costs in its shard's slice.
const entrySize = int64(unsafe.Sizeof(entry{}))

// bucketSize is what one index bucket costs (shard.go).
const bucketSize = 4

// sizeClasses are the Go runtime's small object size classes
// (runtime/sizeclasses.go), above 16 bytes.
var sizeClasses = [...]int{
	24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024,
	1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096,
	4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288,
	13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768,
}

// allocSize rounds n up to the size Go's allocator hands out for it, so
// that used_memory counts the bytes a value really occupies.
func allocSize(n int) int64 {
	switch {
	case n == 0:
		return 0
	case n <= 16:
		return 16
	case n <= 32768:
		i, _ := slices.BinarySearch(sizeClasses[:], n)
		return int64(sizeClasses[i])
	}
	return int64((n + 8191) &^ 8191)
}

// Item is what a read returns: a string value with its metadata.
// Value is immutable and shared: it stays valid after the call and must not
// be modified. A value stored compressed is decompressed into a buffer of
// the Item's own, which Release may hand back (compress.go).
type Item struct {
	Value    []byte
	ExpireAt int64  // unix ms; 0 = no expiry
	CAS      uint64 // with TrackCAS only (DB); else 0
	Flags    uint32
	Type     Type
	Encoding Encoding
	// Fetched is memcached's fetched bit as it was before this read: the
	// value had been read since it was written (fetched.go).
	Fetched bool

	buf *[]byte // decompression buffer holding Value, for Release (compress.go)
}
