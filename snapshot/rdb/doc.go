// Package rdb reads and writes Redis RDB files, independent of Tandem's
// engine and protocols: the engine's SAVE/BGSAVE and startup load sit on top.
//
// # Writer
//
// NewWriter writes RDB version 10 — what redis-server 7.0 writes — with the
// AUX fields Redis puts first (redis-ver 7.0.15, redis-bits, ctime,
// used-mem, aof-base) followed by WriterOptions.Aux. Values use the plain
// RDB encodings, which every Redis since 2.x loads and which Redis 7.0
// converts to its compact in-memory encodings on load according to its own
// *-max-listpack-* settings:
//
//   - strings: RDB_TYPE_STRING, integer-encoded (8/16/32 bit) when the text is
//     the canonical decimal of such an integer (so "007" or "-0" stay text),
//     LZF-compressed when Compress is set, the string is longer than 20 bytes
//     and compression saves at least 4 bytes (Redis's rdbcompression rule);
//     everything else raw. Keys, elements, fields and members use the same
//     rule. Values are opaque bytes, so a HyperLogLog stays a valid HLL.
//   - lists RDB_TYPE_LIST, sets RDB_TYPE_SET, hashes RDB_TYPE_HASH, sorted
//     sets RDB_TYPE_ZSET_2 (8-byte little-endian IEEE doubles, exact).
//   - functions: the FUNCTION2 opcode carrying the library's source.
//
// Writing the compact encodings (listpack, quicklist) ourselves would save
// Redis a conversion on load but tie the file to one set of thresholds; the
// plain encodings round-trip every value exactly and are what a reader must
// handle anyway. Empty collections are not written (Redis skips them on
// load); a NaN score is refused (Redis refuses such files).
//
// Per-key metadata is written as Redis does, before the type byte:
// EXPIRETIME_MS when Meta.ExpireAtMs != 0, IDLE when Meta.Idle >= 0, FREQ
// when Meta.Freq >= 0 (use NewMeta for "nothing"; the zero Meta means IDLE 0
// and FREQ 0). Redis applies IDLE under an LRU maxmemory-policy and FREQ
// under an LFU one and ignores the other.
//
// Memcached metadata has no place in RDB, so it travels in an AUX field:
// when MCFlags or MCCAS is non-zero, AUX "tandem-mc" = "<flags> <cas>" is
// written just before the key's other opcodes. AUX fields are defined to be
// ignorable, and redis-server 7.0 does ignore unknown ones (it logs
// "Unrecognized RDB AUX field" at debug level; the tests check this), so a
// Tandem file loads in Redis with the memcached metadata dropped. The Reader
// attaches the field to the next key's Meta instead of returning it.
//
// The checksum is CRC-64/Jones as Redis computes it (reflected, initial 0, no
// final xor; "123456789" -> 0xe9c6d914c4b8d9ca) over every byte before it,
// stored little endian; with Checksum off it is eight zero bytes, which Redis
// (and this Reader) treat as "not checked".
//
// # Reader
//
// NewReader accepts RDB versions 1 to 10 (everything up to Redis 7.0) and
// refuses newer ones. Next returns one Record at a time: keys (with DB and
// Meta), function libraries, AUX fields, SELECTDB and RESIZEDB. Every value
// encoding Redis has used for strings, lists, sets, hashes and sorted sets
// is decoded into plain element lists: raw/int/LZF strings; RDB_TYPE_LIST,
// SET, ZSET (text scores), HASH, ZSET_2; zipmap, ziplist, intset, ziplist
// zsets and hashes, quicklists of ziplists; listpack hashes and zsets;
// quicklist 2 with plain and packed (possibly LZF-compressed) nodes; and the
// Redis 7.2 listpack set (type 20), which costs nothing to accept. Integers
// stored in compact encodings come back as their decimal text, as Redis
// returns them. Empty collections are skipped, as Redis skips them.
//
// Streams of types 15 (Redis 5 and 6) and 19 (7.0) are read, and 19
// written, with their nodes, groups and PELs (stream.go).
//
// Refused with an *Error for which errors.Is(err, ErrUnsupported) holds:
// Redis 7.2 streams (type 21) and module values (6, 7), naming the key;
// MODULE_AUX (247); the FUNCTION opcode of Redis 7.0 release candidates
// (246); RDB versions above 10.
//
// Robustness: every malformed input yields an *Error with the file offset
// (bad magic/version, unknown opcode or type, bad length or string
// encoding, truncation, bad LZF, ziplist/listpack/intset/zipmap framing —
// header sizes, counts, prev/back lengths, terminators, intset order — and
// checksum mismatch, reported as "RDB CRC error: checksum mismatch: file says X, computed
// Y"). Nothing is allocated on the word of a length field alone: strings are
// read in chunks that grow as the bytes arrive, element slices start small,
// an LZF string's claimed expansion is checked against the most LZF can
// expand, and compact blobs are only decoded once fully read. Every record
// consumes input, so no input loops forever. The checksum is verified when
// the EOF opcode is reached; records returned before that come from a file
// not yet verified, so a loader should apply them only after Next returns
// io.EOF (or be ready to discard them).
//
// # DUMP payloads
//
// AppendDump and DecodeDump (dump.go) are DUMP's and RESTORE's format: one
// value, the RDB version and a CRC-64. A payload encodes a value by its
// in-memory encoding (Value.Encoding) as redis-server 7.0 does: quicklist
// nodes of listpacks, intsets, listpack hashes and sorted sets, built as
// Redis builds them (compact.go) and compressed with Redis's own LZF
// (lzfRedis), so the bytes are Redis's for the same value held the same
// way. DecodeDump takes every value type the Reader reads and refuses, as
// RESTORE does, a bad footer (ErrDumpFooter) and a value that is not one
// Tandem can hold (ErrDumpData: modules, empty collections,
// duplicate members).
//
// AppendFunctionsDump and DecodeFunctionsDump (functions.go) are FUNCTION
// DUMP's and FUNCTION RESTORE's: FUNCTION2 records, the libraries'
// sources, in the same frame.
//
// Not checked (Redis checks some of these only with sanitize-dump-payload):
// duplicate members or fields within one collection (but DecodeDump
// refuses them), and the ordering of listpack/ziplist sorted sets. A
// caller that needs set semantics merges.
package rdb
