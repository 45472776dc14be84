package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
)

// DUMP payloads: one value in RDB encoding, as DUMP returns it and RESTORE
// and MIGRATE take it:
//
//	<type byte> <value> <RDB version uint16le> <CRC-64 uint64le>
//
// the CRC (crc64.go) covering everything before it. redis-server 7.0
// writes version 10 and refuses anything newer.
//
// AppendDump chooses the RDB type by the value's in-memory encoding, as
// Redis's rdbSaveObjectType does, and writes the compact encodings the way
// Redis builds them (compact.go), so that Tandem's payload for a value is
// byte for byte the payload redis-server 7.0 makes for the same value held
// the same way:
//
//   - strings: RDB_TYPE_STRING, integer-encoded or LZF-compressed by the
//     rules of the Writer's strings;
//   - lists: RDB_TYPE_LIST_QUICKLIST_2, the elements packed into listpack
//     nodes as a list pushed element by element at its tail fills them
//     (list-max-listpack-size); an element of 1 GB or more is a plain node;
//   - sets: an intset as RDB_TYPE_SET_INTSET, a hashtable as RDB_TYPE_SET;
//   - hashes: a listpack as RDB_TYPE_HASH_LISTPACK (in the hash's order), a
//     hashtable as RDB_TYPE_HASH;
//   - sorted sets: a listpack as RDB_TYPE_ZSET_LISTPACK, a skiplist as
//     RDB_TYPE_ZSET_2 from the highest score down, as Redis walks it.
//
// Compression is Redis's own LZF (lzf.go, lzfRedis). The bytes differ only
// where Redis's are not a function of the value: the order of a
// hashtable's members (its dict's, which depends on a random seed), the
// node boundaries of a list that was not built by pushes at its tail, and
// now and then a compressed string (Redis's compressor starts from an
// uninitialized hash table; both decompress to the same bytes).
//
// DecodeDump is RESTORE's reading of a payload: the version and checksum
// first, then one value of any RDB type the Reader decodes — except the
// listpack set (type 20) and stream types, which redis-server 7.0 does not
// take in a payload either.

// Encoding is how a value is held in memory, which decides how a DUMP
// payload encodes it. The names are OBJECT ENCODING's.
type Encoding uint8

// Encodings. Strings and lists have one each (EncodingDefault, or
// EncodingQuicklist for a list).
const (
	EncodingDefault   Encoding = iota // a string; the natural one of its type otherwise
	EncodingQuicklist                 // a list (Redis 7.0's only list encoding)
	EncodingIntset                    // a set of integers
	EncodingHashtable                 // a set or a hash
	EncodingListpack                  // a hash or a sorted set
	EncodingSkiplist                  // a sorted set
)

func (e Encoding) String() string {
	switch e {
	case EncodingQuicklist:
		return "quicklist"
	case EncodingIntset:
		return "intset"
	case EncodingHashtable:
		return "hashtable"
	case EncodingListpack:
		return "listpack"
	case EncodingSkiplist:
		return "skiplist"
	}
	return "default"
}

// Value is one key's value.
type Value struct {
	Type     Type
	Encoding Encoding
	Str      []byte   // String
	Elems    [][]byte // List (head to tail), Set
	Fields   [][]byte // Hash
	Values   [][]byte // Hash, Values[i] belongs to Fields[i]
	Members  []Member // ZSet, in ascending order (score, then member), as ZRANGE
	Stream   *Stream  // StreamType
	// IntsetWidth is an intset's bytes per member (2, 4 or 8): Redis widens
	// an intset for a big member and never narrows it again, so only the
	// holder knows it. 0 takes the narrowest that holds the members.
	IntsetWidth int
}

// DumpOptions say how AppendDump encodes.
type DumpOptions struct {
	Compress bool // rdbcompression: LZF for strings and blobs longer than 20 bytes when it saves
	// ListFill is list-max-listpack-size, which packs a list's nodes
	// (Redis's default is -2: 8 KB a node).
	ListFill int
	// PackedThreshold is the size from which a list element is a plain
	// node of its own (DEBUG QUICKLIST-PACKED-THRESHOLD); 0 is Redis's
	// default, 1 GB.
	PackedThreshold int
}

// DumpVersion is the RDB version written in a payload's footer, and the
// newest DecodeDump accepts.
const DumpVersion = RDBVersion

// Errors of DecodeDump, RESTORE's two refusals.
var (
	// ErrDumpFooter: the payload is shorter than its footer, its RDB
	// version is newer than DumpVersion, or its checksum is wrong
	// (Redis's "DUMP payload version or checksum are wrong").
	ErrDumpFooter = errors.New("rdb: DUMP payload version or checksum are wrong")
	// ErrDumpData: the footer is good but the value is not one Tandem
	// holds (Redis's "Bad data format"); errors.Is finds it in the
	// *Error that says why.
	ErrDumpData = errors.New("rdb: bad DUMP payload data")
)

// dumpFooter is the version and checksum after the value.
const dumpFooter = 10

// compressors are the LZF compressors of DUMP payloads: one holds a 256 KB
// table, which a command should not allocate each time.
var compressors = sync.Pool{New: func() any { return new(lzfRedis) }}

// AppendDump appends v's DUMP payload to dst. It fails for a value no
// payload can hold: an empty collection, a NaN score, an encoding the type
// does not have, a hash with fields and values unpaired.
func AppendDump(dst []byte, v *Value, o DumpOptions) ([]byte, error) {
	w := &Writer{mem: dst, o: WriterOptions{Compress: o.Compress}}
	if o.Compress {
		w.lzfRedis = compressors.Get().(*lzfRedis)
		defer compressors.Put(w.lzfRedis)
	}
	start := len(dst)
	if err := w.value(v, o); err != nil {
		return dst, err
	}
	w.raw(binary.LittleEndian.AppendUint16(w.ibuf[:0], DumpVersion))
	out := binary.LittleEndian.AppendUint64(w.mem, CRC64(w.mem[start:]))
	return out, nil
}

// value writes a value's type byte and its encoding.
func (w *Writer) value(v *Value, o DumpOptions) error {
	bad := func() error {
		return fmt.Errorf("rdb: a %s has no %s encoding", v.Type, v.Encoding)
	}
	switch v.Type {
	case String:
		if v.Encoding != EncodingDefault {
			return bad()
		}
		w.byte1(rtString)
		w.str(v.Str)
		return nil
	case List:
		if v.Encoding != EncodingDefault && v.Encoding != EncodingQuicklist {
			return bad()
		}
		if len(v.Elems) == 0 {
			return errEmptyValue
		}
		w.byte1(rtListQuicklist2)
		w.quicklistBody(v.Elems, o)
		return nil
	case Set:
		if len(v.Elems) == 0 {
			return errEmptyValue
		}
		switch v.Encoding {
		case EncodingIntset:
			blob, ok := intsetBlob(w.lp.buf[:0], v.Elems, v.IntsetWidth)
			if !ok {
				return fmt.Errorf("rdb: set members do not fit an intset of width %d", v.IntsetWidth)
			}
			w.lp.buf = blob
			w.byte1(rtSetIntset)
			w.str(blob)
		case EncodingDefault, EncodingHashtable:
			w.byte1(rtSet)
			w.seqBody(v.Elems)
		default:
			return bad()
		}
		return nil
	case Hash:
		if len(v.Fields) != len(v.Values) {
			return fmt.Errorf("rdb: hash has %d fields but %d values", len(v.Fields), len(v.Values))
		}
		if len(v.Fields) == 0 {
			return errEmptyValue
		}
		switch v.Encoding {
		case EncodingListpack:
			w.lp.reset()
			for i := range v.Fields {
				w.lp.addString(v.Fields[i])
				w.lp.addString(v.Values[i])
			}
			w.byte1(rtHashListpack)
			w.str(w.lp.finish())
		case EncodingDefault, EncodingHashtable:
			w.byte1(rtHash)
			w.hashBody(v.Fields, v.Values)
		default:
			return bad()
		}
		return nil
	case ZSet:
		if err := checkScores(nil, v.Members); err != nil {
			return err
		}
		if len(v.Members) == 0 {
			return errEmptyValue
		}
		switch v.Encoding {
		case EncodingListpack:
			w.lp.reset()
			for _, m := range v.Members {
				w.lp.addString(m.Member)
				w.lp.addScore(m.Score)
			}
			w.byte1(rtZSetListpack)
			w.str(w.lp.finish())
		case EncodingDefault, EncodingSkiplist:
			w.byte1(rtZSet2)
			w.zsetBody(v.Members, true)
		default:
			return bad()
		}
		return nil
	}
	if v.Type == StreamType && v.Stream != nil {
		w.byte1(rtStreamListpack2)
		w.streamBody(v.Stream)
		return nil
	}
	return fmt.Errorf("rdb: cannot dump a value of %s", v.Type)
}

var errEmptyValue = errors.New("rdb: an empty collection has no DUMP payload")

// qlNode is one node of a quicklist: a run of elements, or one element
// in a plain node.
type qlNode struct {
	from, to int
	plain    bool
}

// quicklistNodes splits elems into nodes as Redis's quicklistPushTail
// fills them (compact.go), each at most o.ListFill and elements from
// o.PackedThreshold bytes in plain nodes.
func quicklistNodes(elems [][]byte, o DumpOptions) []qlNode {
	fill := clampFill(o.ListFill)
	threshold := o.PackedThreshold
	if threshold <= 0 {
		threshold = qlPackedThreshold
	}
	var nodes []qlNode
	size, count := 0, 0 // the open packed node's listpack size and length
	open := false
	for i, e := range elems {
		switch {
		case len(e) >= threshold:
			nodes = append(nodes, qlNode{from: i, to: i + 1, plain: true})
			open = false
			continue
		case open && quicklistAllows(fill, size, count, len(e)):
			nodes[len(nodes)-1].to = i + 1
			count++
		default:
			nodes = append(nodes, qlNode{from: i, to: i + 1})
			size, count, open = lpEmpty, 1, true
		}
		size += lpEntrySize(e)
	}
	return nodes
}

// QuicklistShape returns how Redis would hold a list of elems: its
// quicklist's nodes and their bytes uncompressed (each packed node's
// listpack, each plain node's element), as DEBUG OBJECT reports them.
func QuicklistShape(elems [][]byte, o DumpOptions) (nodes, bytes int) {
	ns := quicklistNodes(elems, o)
	for _, n := range ns {
		if n.plain {
			bytes += len(elems[n.from])
			continue
		}
		bytes += lpEmpty
		for _, e := range elems[n.from:n.to] {
			bytes += lpEntrySize(e)
		}
	}
	return len(ns), bytes
}

// quicklistBody writes the value of RDB_TYPE_LIST_QUICKLIST_2: the count of
// nodes, then for each its container (packed or plain) and its listpack
// (or, plain, its one element) as a string.
func (w *Writer) quicklistBody(elems [][]byte, o DumpOptions) {
	nodes := quicklistNodes(elems, o)
	w.length(uint64(len(nodes)))
	for _, n := range nodes {
		if n.plain {
			w.length(qlPlain)
			w.str(elems[n.from])
			continue
		}
		w.length(qlPacked)
		w.lp.reset()
		for _, e := range elems[n.from:n.to] {
			w.lp.addString(e)
		}
		w.str(w.lp.finish())
	}
}

// lpEntrySize is the bytes s takes in a listpack: its entry (as addString
// encodes it) and the entry's backlen.
func lpEntrySize(s []byte) int {
	var l int
	if v, ok := lpInteger(s); ok {
		l = lpIntSize(v)
	} else {
		l = lpStringHeader(len(s)) + len(s)
	}
	return l + backlenSize(l)
}

// DecodeDump reads a DUMP payload as RESTORE does: ErrDumpFooter when its
// footer is bad, else the value, or an *Error matching ErrDumpData when
// the value cannot be read or is not one Tandem holds (a stream, a module
// value, an empty collection, duplicate members or fields). Bytes after
// the value are ignored, as Redis ignores them; a value that runs into the
// footer reads the footer's bytes, as Redis's does. The returned slices
// do not alias p.
func DecodeDump(p []byte) (*Value, error) {
	if !VerifyDump(p) {
		return nil, ErrDumpFooter
	}
	r := &Reader{r: bufio.NewReaderSize(bytes.NewReader(p), 512), version: DumpVersion, pend: NewMeta()}
	v, err := r.dumpValue()
	if err != nil {
		return nil, err
	}
	return v, nil
}

// VerifyDump checks a payload's footer: at least the footer's 10 bytes, an
// RDB version no newer than DumpVersion, and the CRC-64 of everything but
// the checksum.
func VerifyDump(p []byte) bool {
	if len(p) < dumpFooter {
		return false
	}
	f := p[len(p)-dumpFooter:]
	if binary.LittleEndian.Uint16(f) > DumpVersion {
		return false
	}
	return CRC64(p[:len(p)-8]) == binary.LittleEndian.Uint64(f[2:])
}

// dumpValue reads a payload's type byte and value.
func (r *Reader) dumpValue() (v *Value, err error) {
	defer func() { // after catch
		var e *Error
		if errors.As(err, &e) {
			err = &dumpError{e}
		}
	}()
	defer r.catch(&err)
	t := r.readByte("value type")
	switch {
	case t <= rtModule2, t >= rtHashZipmap && t <= rtStreamListpack2:
	default:
		r.failf(0, "value type %d is not an object type", t)
	}
	switch t {
	case rtModule, rtModule2:
		r.unsupported(0, "a module value (type %d, %s): Tandem does not support Redis modules", t, rdbTypeName(t))
	}
	rec := &Record{Kind: KindKey, RDBType: t}
	if !r.readValue(rec, 0, t) {
		r.failf(0, "empty %s", rdbTypeName(t))
	}
	if err := checkDuplicates(rec); err != "" {
		r.failf(0, "%s", err)
	}
	v = &Value{Type: rec.Type, Encoding: encodingOf(t), Str: rec.Str, Elems: rec.Elems,
		Fields: rec.Fields, Values: rec.Values, Members: rec.Members, IntsetWidth: rec.IntsetWidth, Stream: rec.Stream}
	return v, nil
}

// dumpError is an *Error of a payload's value: it matches ErrDumpData, and
// ErrUnsupported when it is one.
type dumpError struct{ e *Error }

func (e *dumpError) Error() string { return e.e.Error() }

func (e *dumpError) Is(target error) bool { return target == ErrDumpData || e.e.Is(target) }

func (e *dumpError) Unwrap() error { return e.e }

// encodingOf is the encoding an RDB type stands for. A zipmap (Redis 2's
// small hash) is none: Redis converts it by the thresholds, both of them,
// as it does the plain encodings, where it keeps a listpack or ziplist of
// long values a listpack (it checks only the count).
func encodingOf(t byte) Encoding {
	switch t {
	case rtList, rtListZiplist, rtListQuicklist, rtListQuicklist2:
		return EncodingQuicklist
	case rtSetIntset:
		return EncodingIntset
	case rtSet, rtHash:
		return EncodingHashtable
	case rtHashZiplist, rtHashListpack, rtZSetZiplist, rtZSetListpack:
		return EncodingListpack
	case rtZSet, rtZSet2:
		return EncodingSkiplist
	}
	return EncodingDefault
}

// checkDuplicates reports a member or field that appears twice, which a
// set, hash or sorted set cannot hold (Redis refuses such payloads as
// corrupt), or "".
func checkDuplicates(rec *Record) string {
	var names [][]byte
	switch rec.Type {
	case Set:
		names = rec.Elems
	case Hash:
		names = rec.Fields
	case ZSet:
		names = make([][]byte, len(rec.Members))
		for i := range rec.Members {
			names[i] = rec.Members[i].Member
		}
	default:
		return ""
	}
	seen := make(map[string]struct{}, len(names))
	for _, n := range names {
		if _, dup := seen[string(n)]; dup {
			return fmt.Sprintf("duplicate %s member %q", rec.Type, n)
		}
		seen[string(n)] = struct{}{}
	}
	return ""
}
