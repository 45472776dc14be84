package rdb

import (
	"errors"
	"fmt"
	"strconv"
)

// Type is a key's data type: one of Tandem's six.
type Type uint8

// The five types. The zero Type is invalid.
const (
	String Type = iota + 1
	List
	Set
	Hash
	ZSet
	StreamType // a stream (Record.Stream, Value.Stream; stream.go)
)

func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case List:
		return "list"
	case Set:
		return "set"
	case Hash:
		return "hash"
	case ZSet:
		return "zset"
	case StreamType:
		return "stream"
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

// Kind tells what a Record holds.
type Kind uint8

// Record kinds. The zero Kind is invalid.
const (
	KindKey      Kind = iota + 1 // a key and its value (Key, Type, Meta, value fields)
	KindFunction                 // a function library's source (Code)
	KindAux                      // an AUX field (AuxKey, AuxValue)
	KindSelectDB                 // a SELECTDB opcode (DB)
	KindResizeDB                 // a RESIZEDB opcode (DB, ResizeKeys, ResizeExpires)
)

func (k Kind) String() string {
	switch k {
	case KindKey:
		return "key"
	case KindFunction:
		return "function"
	case KindAux:
		return "aux"
	case KindSelectDB:
		return "selectdb"
	case KindResizeDB:
		return "resizedb"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Member is one sorted-set member with its score.
type Member struct {
	Member []byte
	Score  float64
}

// Meta is a key's metadata.
type Meta struct {
	ExpireAtMs int64  // absolute expiry in Unix milliseconds; 0 = none
	Idle       int64  // LRU idle seconds for the IDLE opcode; -1 = not written / not present
	Freq       int    // LFU counter for the FREQ opcode; -1 = not written / not present
	MCFlags    uint32 // memcached client flags (the tandem-mc AUX field)
	MCCAS      uint64 // memcached CAS unique (0 = none)
}

// NewMeta returns a Meta with nothing set: no expiry, no IDLE, no FREQ, no
// memcached fields. (The zero Meta would write IDLE 0 and FREQ 0.)
func NewMeta() Meta { return Meta{Idle: -1, Freq: -1} }

// Record is one item of an RDB file, as the Reader returns it.
type Record struct {
	Kind Kind
	DB   int // the database the record belongs to (the last SELECTDB; 0 before any)

	// KindKey.
	Key     []byte
	Type    Type
	RDBType uint8 // the RDB object type byte the value was stored with (0..20)
	Meta    Meta
	Str     []byte   // String
	Elems   [][]byte // List (in order), Set
	Fields  [][]byte // Hash
	Values  [][]byte // Hash, Values[i] belongs to Fields[i]
	Members []Member // ZSet
	Stream  *Stream  // StreamType
	// IntsetWidth is an RDB_TYPE_SET_INTSET blob's bytes per member (2,
	// 4 or 8); 0 for other values.
	IntsetWidth int

	// KindAux.
	AuxKey, AuxValue []byte

	// KindFunction.
	Code []byte

	// KindResizeDB: the size hints.
	ResizeKeys, ResizeExpires uint64
}

// ErrUnsupported matches (with errors.Is) an *Error whose file is valid RDB
// but holds something Tandem cannot load: a Redis 7.2 stream, a module value, module
// AUX data, a pre-release FUNCTION opcode, or a newer RDB version.
var ErrUnsupported = errors.New("rdb: unsupported content")

// Error reports a corrupt or unsupported RDB file. Offset is the byte offset
// in the file where the problem was found.
type Error struct {
	Offset      int64
	Msg         string
	Unsupported bool // valid RDB that Tandem refuses (see ErrUnsupported); false = corruption
}

func (e *Error) Error() string {
	return fmt.Sprintf("rdb: at offset %d: %s", e.Offset, e.Msg)
}

// Is reports whether target is ErrUnsupported and e is an unsupported-content error.
func (e *Error) Is(target error) bool { return target == ErrUnsupported && e.Unsupported }
