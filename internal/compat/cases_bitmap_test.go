package compat

import (
	"strings"
	"testing"
)

// Bitmap commands: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and
// BITFIELD_RO on string values, with every option and error.

func TestRedisBitmaps(t *testing.T)  { runRedisCases(t, bitmapCases) }
func TestRedisBitfield(t *testing.T) { runRedisCases(t, bitfieldCases) }

// bitsSetup holds "\xff\xf0\x00" (12 ones then 12 zeros) at b, "foobar"
// at f and 24 ones at ones.
var bitsSetup = cmds(cmd("SET", "b", "\xff\xf0\x00"), cmd("SET", "ones", "\xff\xff\xff"), mbs("SET f foobar"))

// bitWrongTypeSetup makes key l a list and h a hash (the cases using it
// need the aggregate types).
var bitWrongTypeSetup = mbs("RPUSH l a b", "HSET h f v")

var bitmapCases = []redisCase{
	// SETBIT / GETBIT
	{name: "setbit new key", cmds: mbs("SETBIT k 7 1", "GET k", "STRLEN k", "TYPE k", "OBJECT ENCODING k")},
	{name: "setbit returns old bit", cmds: mbs("SETBIT k 0 1", "SETBIT k 0 1", "SETBIT k 0 0", "SETBIT k 0 0", "GET k")},
	{name: "setbit grows with zeros", cmds: mbs("SET k a", "SETBIT k 100 1", "STRLEN k", "GET k", "GETBIT k 100", "GETBIT k 99")},
	{name: "setbit on integer string", cmds: mbs("SET k 123", "OBJECT ENCODING k", "SETBIT k 0 0", "OBJECT ENCODING k", "GET k", "SETBIT k 6 0", "GET k", "INCR k")},
	{name: "setbit same bit makes raw", cmds: mbs("SET k abc", "SETBIT k 1 1", "OBJECT ENCODING k", "GET k")},
	{name: "setbit keeps ttl", cmds: mbs("SET k abc EX 100", "SETBIT k 1 0", "TTL k", "SETBIT k 100 1", "TTL k"), loose: at(2, ttlApprox, 4, ttlApprox)},
	{name: "setbit bad offset", cmds: cmds(mbs("SETBIT k -1 1", "SETBIT k abc 1", "SETBIT k 1.0 1", "SETBIT k 07 1", "SETBIT k +7 1", "SETBIT k 9223372036854775807 1", "SETBIT k 9223372036854775808 1", "SETBIT k 4294967296 1"), cmd("SETBIT", "k", "", "1"), cmd("SETBIT", "k", " 1", "1"), mbs("EXISTS k"))},
	{name: "setbit bad value", cmds: cmds(mbs("SETBIT k 1 2", "SETBIT k 1 -1", "SETBIT k 1 a", "SETBIT k 1 01", "SETBIT k 1 +1", "SETBIT k 1 1.0"), cmd("SETBIT", "k", "1", "1\x00"), cmd("SETBIT", "k", "1", ""), mbs("EXISTS k"))},
	{name: "setbit offset checked before value", cmds: mbs("SETBIT k x y", "SETBIT k 1 y")},
	{name: "setbit arity", cmds: mbs("SETBIT k 1", "SETBIT k 1 1 1", "SETBIT")},
	{name: "setbit respects proto-max-bulk-len", cmds: mbs("CONFIG SET proto-max-bulk-len 1mb", "SETBIT k 8388607 1", "SETBIT k 8388608 1", "GETBIT k 8388608", "STRLEN k", "CONFIG SET proto-max-bulk-len 512mb"), noSplit: true},
	{name: "getbit", cmds: mbs("SET k `", "GETBIT k 0", "GETBIT k 1", "GETBIT k 2", "GETBIT k 7", "GETBIT k 8", "GETBIT k 1000000")},
	{name: "getbit missing", cmds: mbs("GETBIT nosuch 0", "GETBIT nosuch 100", "EXISTS nosuch")},
	{name: "getbit integer", cmds: mbs("SET k 1", "GETBIT k 2", "GETBIT k 3", "GETBIT k 7", "GETBIT k 8")},
	{name: "getbit bad offset", cmds: mbs("GETBIT k -1", "GETBIT k x", "GETBIT k 4294967296", "GETBIT k 4294967295", "GETBIT k #1")},
	{name: "getbit arity", cmds: mbs("GETBIT k", "GETBIT k 1 2")},

	// BITCOUNT
	{name: "bitcount", cmds: cmds(bitsSetup, mbs("BITCOUNT f", "BITCOUNT b", "BITCOUNT ones", "BITCOUNT nosuch"))},
	{name: "bitcount byte ranges", cmds: cmds(bitsSetup, mbs("BITCOUNT f 0 0", "BITCOUNT f 1 1", "BITCOUNT f 1 -1", "BITCOUNT f -2 -1", "BITCOUNT f -100 100", "BITCOUNT f 5 2", "BITCOUNT f -1 -2", "BITCOUNT f 6 10", "BITCOUNT f 1 1 BYTE", "BITCOUNT f 0 -1 byte"))},
	{name: "bitcount bit ranges", cmds: cmds(bitsSetup, mbs("BITCOUNT f 5 30 BIT", "BITCOUNT f 0 0 BIT", "BITCOUNT f 1 1 bit", "BITCOUNT f 1 6 bit", "BITCOUNT f -5 -1 BIT", "BITCOUNT f -1 -5 BIT", "BITCOUNT f 47 1000 BIT", "BITCOUNT f 48 1000 BIT", "BITCOUNT b 3 20 BiT", "BITCOUNT b 12 23 bit", "BITCOUNT b 11 11 bit", "BITCOUNT f 0 -1 bit"))},
	{name: "bitcount unit words", cmds: cmds(bitsSetup, mbs("BITCOUNT f 0 1 bits", "BITCOUNT f 0 1 BYTES"), cmd("BITCOUNT", "f", "0", "1", "bit\x00x"), cmd("BITCOUNT", "f", "0", "1", ""))},
	{name: "bitcount bad arguments", cmds: cmds(bitsSetup, mbs("BITCOUNT f 0", "BITCOUNT f 0 1 BIT x", "BITCOUNT f a 1", "BITCOUNT f 0 a", "BITCOUNT f a 1 foo", "BITCOUNT f 0 1.5", "BITCOUNT f 0 99999999999999999999"))},
	{name: "bitcount missing key ignores arguments", cmds: mbs("BITCOUNT nosuch a b", "BITCOUNT nosuch 0 1 foo", "BITCOUNT nosuch 0", "BITCOUNT nosuch 0 1 2 3", "BITCOUNT missing 0 -1 WORD")},
	{name: "bitcount empty negative range before the unit", cmds: cmds(bitsSetup, mbs("BITCOUNT f -1 -5 WORD", "BITCOUNT f -1 -5 BIT", "BITCOUNT f -5 -1 WORD", "BITCOUNT f 5 2 WORD", "BITCOUNT f -1 -5 a b"))},
	{name: "bitcount empty string", cmds: cmds(cmd("SET", "e", ""), mbs("BITCOUNT e", "BITCOUNT e 0 -1", "BITCOUNT e 0 0 BIT", "BITCOUNT e -1 -1"))},
	{name: "bitcount integer", cmds: mbs("SET n 12345", "BITCOUNT n", "BITCOUNT n 1 2", "BITCOUNT n 9 20 BIT")},
	{name: "bitcount extreme indexes", cmds: cmds(bitsSetup, mbs("BITCOUNT f 0 9223372036854775807", "BITCOUNT f -9223372036854775808 -1", "BITCOUNT f 0 9223372036854775807 BIT", "BITCOUNT f -9223372036854775808 9223372036854775807 BIT"))},
	{name: "bitcount arity", cmds: mbs("BITCOUNT")},
	{name: "bitcount long string", cmds: cmds(cmd("SET", "k", strings.Repeat("\x55\xaa\x0f", 1000)), mbs("BITCOUNT k", "BITCOUNT k 7 2900", "BITCOUNT k 13 23000 BIT", "BITCOUNT k -1000 -3"))},

	// BITPOS
	{name: "bitpos whole string", cmds: cmds(bitsSetup, mbs("BITPOS b 0", "BITPOS b 1", "BITPOS ones 0", "BITPOS ones 1", "BITPOS f 0", "BITPOS f 1"))},
	{name: "bitpos all zeros", cmds: cmds(cmd("SET", "z", "\x00\x00\x00"), mbs("BITPOS z 1", "BITPOS z 0", "BITPOS z 1 1", "BITPOS z 1 0 -1", "BITPOS z 0 1 2"))},
	{name: "bitpos byte ranges", cmds: cmds(bitsSetup, mbs("BITPOS b 1 2", "BITPOS b 0 2", "BITPOS b 0 2 -1", "BITPOS b 0 0 -1", "BITPOS b 1 1", "BITPOS b 1 1 1", "BITPOS b 0 1 0", "BITPOS b 0 -1", "BITPOS b 1 -2 -2", "BITPOS b 0 0 0 BYTE", "BITPOS b 1 -100 100 byte"))},
	{name: "bitpos clear bit past the end", cmds: cmds(bitsSetup, mbs("BITPOS ones 0", "BITPOS ones 0 0", "BITPOS ones 0 1", "BITPOS ones 0 0 -1", "BITPOS ones 0 0 2", "BITPOS ones 0 0 100", "BITPOS ones 0 3", "BITPOS ones 0 0 -1 BIT", "BITPOS ones 0 5 23 BIT", "BITPOS ones 1 3"))},
	{name: "bitpos bit ranges", cmds: cmds(bitsSetup, mbs("BITPOS b 0 8 -1 BIT", "BITPOS b 0 0 0 BIT", "BITPOS b 0 0 11 BIT", "BITPOS b 0 0 12 BIT", "BITPOS b 1 20 100 BIT", "BITPOS b 0 20 100 BIT", "BITPOS b 0 22 23 BIT", "BITPOS b 0 -3 -1 BIT", "BITPOS b 1 -100 -1 BIT", "BITPOS b 1 5 3 BIT", "BITPOS b 0 0 7 bit", "BITPOS b 0 0 8 BiT", "BITPOS b 1 3 3 BIT", "BITPOS b 0 3 3 BIT", "BITPOS b 0 12 12 BIT", "BITPOS b 1 13 13 BIT", "BITPOS f 1 7 40 BIT", "BITPOS f 0 9 9 BIT", "BITPOS f 1 17 31 BIT", "BITPOS f 0 1 46 BIT"))},
	{name: "bitpos bit range inside one byte", cmds: cmds(cmd("SET", "m", "\x81\x7e"), mbs("BITPOS m 1 1 6 BIT", "BITPOS m 0 1 6 BIT", "BITPOS m 1 0 0 BIT", "BITPOS m 1 7 7 BIT", "BITPOS m 0 9 14 BIT", "BITPOS m 1 9 14 BIT", "BITPOS m 0 8 8 BIT", "BITPOS m 1 2 9 BIT", "BITPOS m 0 7 15 BIT"))},
	{name: "bitpos missing key", cmds: mbs("BITPOS nosuch 0", "BITPOS nosuch 1", "BITPOS nosuch 0 a", "BITPOS nosuch 1 0 1 foo", "BITPOS nosuch 0 1 2 3 4", "EXISTS nosuch")},
	{name: "bitpos bad bit", cmds: cmds(bitsSetup, mbs("BITPOS b 2", "BITPOS b -1", "BITPOS b x", "BITPOS nosuch 2", "BITPOS b 1.0"))},
	{name: "bitpos bad arguments", cmds: cmds(bitsSetup, mbs("BITPOS b 0 x", "BITPOS b 0 0 x", "BITPOS b 0 8 BIT", "BITPOS b 0 0 0 bits", "BITPOS b 0 x 1 foo", "BITPOS b 0 0 x foo", "BITPOS b 0 0 1 BIT x"), cmd("BITPOS", "b", "0", "0", "0", "bit\x00x"))},
	{name: "bitpos empty string", cmds: cmds(cmd("SET", "e", ""), mbs("BITPOS e 0", "BITPOS e 1", "BITPOS e 0 0", "BITPOS e 1 0 -1", "BITPOS e 0 0 0 BIT"))},
	{name: "bitpos integer", cmds: mbs("SET n 12345", "BITPOS n 1", "BITPOS n 0", "BITPOS n 0 1", "BITPOS n 1 9 20 BIT")},
	{name: "bitpos long string", cmds: cmds(cmd("SET", "k", strings.Repeat("\x00", 3000)+"\x10"+strings.Repeat("\xff", 3000)), mbs("BITPOS k 1", "BITPOS k 0 3000", "BITPOS k 1 100 -2", "BITPOS k 0 24000 48000 BIT", "BITPOS k 1 24004 24010 BIT", "BITPOS k 0 3001", "BITPOS k 0 3001 -1"))},
	{name: "bitpos arity", cmds: mbs("BITPOS k")},

	// BITOP
	{name: "bitop and or xor", cmds: cmds(cmd("SET", "a", "\xff\x0f\xaa"), cmd("SET", "b", "\x0f\xff"), mbs("BITOP AND d a b", "GET d", "BITOP OR d a b", "GET d", "BITOP XOR d a b", "GET d", "STRLEN d", "OBJECT ENCODING d"))},
	{name: "bitop not", cmds: cmds(cmd("SET", "a", "\xff\x0f\xaa"), mbs("BITOP NOT d a", "GET d", "BITOP not a a", "GET a"))},
	{name: "bitop single source", cmds: mbs("SET a foo", "BITOP AND d a", "GET d", "BITOP OR d a", "GET d", "BITOP XOR d a", "GET d")},
	{name: "bitop many sources", cmds: mbs("SET a 1", "SET b 22", "SET c 333", "SET e 4444", "BITOP OR d a b c e nosuch", "GET d", "BITOP AND d a b c e", "GET d", "BITOP XOR d a b c e a", "GET d")},
	{name: "bitop long sources", cmds: cmds(cmd("SET", "a", strings.Repeat("\x5a\xc3", 300)), cmd("SET", "b", strings.Repeat("\xf0", 500)), mbs("BITOP AND d a b", "GET d", "BITOP OR d a b", "GET d", "BITOP XOR d b a", "GET d", "BITOP NOT d a", "GET d"))},
	{name: "bitop missing sources", cmds: mbs("SET a abc", "BITOP AND d a nosuch", "GET d", "BITOP OR d nosuch a", "GET d", "BITOP NOT d nosuch", "EXISTS d")},
	{name: "bitop empty result deletes dest", cmds: cmds(mbs("SET d old", "BITOP AND d nosuch", "EXISTS d", "SET d old", "BITOP OR d x y"), cmd("SET", "e", ""), mbs("BITOP XOR d e", "EXISTS d", "BITOP NOT e e", "EXISTS e"))},
	{name: "bitop dest loses ttl", cmds: mbs("SET a abc", "SET d x EX 100", "BITOP OR d a", "TTL d", "GET d")},
	{name: "bitop integer sources", cmds: mbs("SET a 12", "SET b 345", "BITOP OR d a b", "GET d", "OBJECT ENCODING d")},
	{name: "bitop dest is source", cmds: mbs("SET a abc", "SET b xyz", "BITOP XOR a a b", "GET a", "BITOP AND b b b", "GET b")},
	{name: "bitop bad operation", cmds: cmds(mbs("SET a abc", "BITOP FOO d a", "BITOP ANDX d a", "BITOP an d a", "bitop And d a", "bitop xOr d a", "GET d"), cmd("BITOP", "and\x00x", "e", "a"), mbs("GET e"))},
	{name: "bitop not arity", cmds: mbs("SET a abc", "BITOP NOT d a a", "BITOP NOT d", "BITOP NOT d nosuch nosuch", "EXISTS d")},
	{name: "bitop arity", cmds: mbs("BITOP AND d", "BITOP AND", "BITOP")},
	{name: "bitop syntax before arity of not", cmds: mbs("BITOP FOO d a b")},
}

var bitfieldCases = []redisCase{
	{name: "bitfield set get", cmds: mbs("BITFIELD k SET u8 0 255 GET u8 0", "GET k", "BITFIELD k SET i8 8 -1 GET i8 8 GET u8 8", "GET k", "STRLEN k", "OBJECT ENCODING k")},
	{name: "bitfield unaligned", cmds: mbs("BITFIELD k SET u5 7 23", "GET k", "BITFIELD k GET u5 7 GET u4 7 GET i5 7 GET u16 0 GET i3 9")},
	{name: "bitfield hash offsets", cmds: mbs("BITFIELD k SET u8 #0 1 SET u8 #1 2 SET u8 #2 3", "GET k", "BITFIELD k GET u8 #1 GET u4 #3 GET i16 #1", "BITFIELD k SET i5 #3 -1", "GET k")},
	{name: "bitfield incrby wrap", cmds: mbs("BITFIELD k INCRBY u2 100 1 INCRBY u2 100 1 INCRBY u2 100 1 INCRBY u2 100 1", "BITFIELD k INCRBY i8 0 127 INCRBY i8 0 1 INCRBY i8 0 -1 INCRBY i8 0 -300", "BITFIELD k INCRBY u8 0 -1 INCRBY u8 0 1000")},
	{name: "bitfield overflow sat", cmds: mbs("BITFIELD k OVERFLOW SAT INCRBY u8 0 300 INCRBY u8 0 -500 INCRBY i8 8 200 INCRBY i8 8 -1000 SET u8 16 -1 SET i8 24 200 SET i8 24 -200 GET u8 16 GET i8 24")},
	{name: "bitfield overflow fail", cmds: mbs("BITFIELD k OVERFLOW FAIL INCRBY u2 0 3 INCRBY u2 0 1 SET u2 0 4 SET i8 8 128 SET i8 8 -129 INCRBY i8 8 -1 GET u2 0", "GET k")},
	{name: "bitfield overflow switches", cmds: mbs("BITFIELD k SET u8 0 250 OVERFLOW FAIL INCRBY u8 0 10 OVERFLOW SAT INCRBY u8 0 10 OVERFLOW WRAP INCRBY u8 0 10", "BITFIELD k overflow sat incrby u8 0 300 overflow wrap incrby u8 0 300")},
	{name: "bitfield fail creates key", cmds: mbs("BITFIELD k OVERFLOW FAIL SET u2 0 5", "EXISTS k", "GET k", "BITFIELD j OVERFLOW FAIL INCRBY u2 100 5", "GET j", "STRLEN j")},
	{name: "bitfield get only missing key", cmds: mbs("BITFIELD k GET u8 0 GET i64 1000", "EXISTS k", "BITFIELD k", "EXISTS k")},
	{name: "bitfield get past end", cmds: mbs("SET k ab", "BITFIELD k GET u16 8 GET i32 0 GET u63 1 GET i64 4", "BITFIELD k SET u8 100 1 GET u16 8 GET i64 790")},
	{name: "bitfield i64 edges", cmds: mbs("BITFIELD k SET i64 0 -5 GET i64 0", "GET k", "BITFIELD k SET i64 0 9223372036854775807 INCRBY i64 0 1 GET i64 0", "BITFIELD k SET i64 0 -9223372036854775808 INCRBY i64 0 -1 GET i64 0", "BITFIELD k SET i64 0 -9223372036854775808 OVERFLOW SAT INCRBY i64 0 -1 INCRBY i64 0 9223372036854775807", "BITFIELD k OVERFLOW FAIL SET i64 0 5 INCRBY i64 0 9223372036854775807 INCRBY i64 0 -9223372036854775808", "BITFIELD k SET i64 3 -1 GET u63 4 GET i64 3")},
	{name: "bitfield u63 edges", cmds: mbs("BITFIELD k SET u63 0 9223372036854775807 INCRBY u63 0 1 OVERFLOW SAT INCRBY u63 0 5 OVERFLOW WRAP INCRBY u63 0 -9223372036854775808 SET u63 0 -1 GET u63 0", "BITFIELD k OVERFLOW SAT SET u63 0 -1 INCRBY u63 0 9223372036854775807 INCRBY u63 0 -9223372036854775808")},
	{name: "bitfield int64 wrap quirk", cmds: mbs("BITFIELD k OVERFLOW SAT SET i5 0 -9223372036854775808 GET i5 0", "BITFIELD k OVERFLOW SAT SET i5 0 -9223372036854775807 GET i5 0", "BITFIELD k OVERFLOW SAT SET i5 0 -9223372036854775790 GET i5 0", "BITFIELD k OVERFLOW SAT SET i63 0 -9223372036854775808 GET i63 0", "BITFIELD k OVERFLOW SAT INCRBY i5 0 -9223372036854775808 SET i5 0 0 INCRBY i5 0 9223372036854775807 SET i5 0 -16 INCRBY i5 0 9223372036854775807 SET i5 0 -1 INCRBY i5 0 -9223372036854775808", "BITFIELD k OVERFLOW FAIL SET i5 0 -9223372036854775808 SET i5 0 9223372036854775807", "BITFIELD k OVERFLOW WRAP SET i5 0 -9223372036854775808 SET i5 0 9223372036854775807 GET i5 0")},
	{name: "bitfield one bit", cmds: mbs("BITFIELD k SET i1 0 1 GET i1 0 GET u1 0 INCRBY i1 0 1 INCRBY i1 0 -1 OVERFLOW SAT INCRBY i1 0 -5 INCRBY u1 1 5 OVERFLOW FAIL INCRBY u1 1 1")},
	{name: "bitfield keeps ttl", cmds: mbs("SET k abc EX 100", "BITFIELD k SET u8 0 1", "TTL k"), loose: at(2, ttlApprox)},
	{name: "bitfield makes raw", cmds: mbs("SET k abc", "BITFIELD k GET u8 0", "OBJECT ENCODING k", "BITFIELD k SET u8 0 97", "OBJECT ENCODING k", "GET k")},
	{name: "bitfield case insensitive", cmds: mbs("BITFIELD k GET u8 0 OvErFlOw SaT InCrBy u8 0 300 sEt i4 0 3 gEt u8 0")},
	{name: "bitfield bad types", cmds: cmds(mbs("BITFIELD k GET u64 0", "BITFIELD k GET i65 0", "BITFIELD k GET i0 0", "BITFIELD k GET u0 0", "BITFIELD k GET x8 0", "BITFIELD k GET U8 0", "BITFIELD k GET I8 0", "BITFIELD k GET u08 0", "BITFIELD k GET u+8 0", "BITFIELD k GET i-1 0", "BITFIELD k GET u 0", "BITFIELD k SET x8 0 abc"), cmd("BITFIELD", "k", "GET", "", "0"), cmd("BITFIELD", "k", "GET", "i8\x00x", "0"), mbs("EXISTS k"))},
	{name: "bitfield bad offsets", cmds: cmds(mbs("BITFIELD k GET i8 #-1", "BITFIELD k GET i8 ##1", "BITFIELD k GET i8 #", "BITFIELD k GET i8 -1", "BITFIELD k GET i8 x", "BITFIELD k SET i8 x abc", "BITFIELD k GET i8 4294967296", "BITFIELD k GET i8 #536870912", "BITFIELD k GET i64 #67108864", "BITFIELD k GET i64 #67108863", "BITFIELD k GET i8 #1152921504606846976"), cmd("BITFIELD", "k", "GET", "i8", ""))},
	{name: "bitfield bad values", cmds: mbs("BITFIELD k SET i8 0 abc", "BITFIELD k INCRBY i8 0 1.5", "BITFIELD k SET i8 0 99999999999999999999", "BITFIELD k GET u8 0 SET i8 0 x", "EXISTS k")},
	{name: "bitfield syntax errors", cmds: mbs("BITFIELD k foo", "BITFIELD k GET", "BITFIELD k GET i8", "BITFIELD k SET i8 0", "BITFIELD k INCRBY i8 0", "BITFIELD k OVERFLOW", "BITFIELD k GET i8 0 foo", "BITFIELD k GET u8 0 SET")},
	{name: "bitfield bad overflow", cmds: cmds(mbs("BITFIELD k OVERFLOW foo", "BITFIELD k OVERFLOW foo GET u8 0", "BITFIELD k GET u8 0 OVERFLOW foo", "BITFIELD k OVERFLOW wrapx SET u8 0 1", "EXISTS k"), cmd("BITFIELD", "k", "OVERFLOW", "wrap\x00x", "INCRBY", "u8", "0", "1"), cmd("BITFIELD", "k", "get\x00x", "u8", "0"))},
	{name: "bitfield first error wins", cmds: mbs("BITFIELD k GET x8 0 OVERFLOW foo", "BITFIELD k OVERFLOW foo GET x8 0", "BITFIELD k SET u8 x y GET u64 0", "BITFIELD_RO k SET u8 0 1 GET x8 0")},
	{name: "bitfield arity", cmds: mbs("BITFIELD", "BITFIELD_RO")},
	{name: "bitfield offset limit", cmds: mbs("CONFIG SET proto-max-bulk-len 1mb", "BITFIELD k GET u8 8388608", "BITFIELD k SET u8 8388600 1", "BITFIELD k SET u8 8388601 1", "STRLEN k", "CONFIG SET proto-max-bulk-len 512mb"), noSplit: true},
	{name: "bitfield_ro", cmds: mbs("SET k abc", "BITFIELD_RO k GET u8 0 GET i4 4 GET u8 #2", "BITFIELD_RO k", "BITFIELD_RO k OVERFLOW SAT", "BITFIELD_RO k GET u8 0 OVERFLOW WRAP", "BITFIELD_RO nosuch GET u8 0", "EXISTS nosuch")},
	{name: "bitfield_ro rejects writes", cmds: mbs("BITFIELD_RO k GET i8 0 SET i8 0 1", "BITFIELD_RO k INCRBY u8 0 1", "BITFIELD_RO k SET x8 0 1", "EXISTS k")},
	{name: "bitfield many ops", cmds: mbs("BITFIELD k SET u4 0 1 SET u4 4 2 SET u4 8 3 SET u4 12 4 SET u4 16 5 INCRBY u4 0 1 INCRBY u4 4 1 GET u16 0 GET u24 0 GET i24 0", "GET k")},
}

func init() {
	bitmapCases = append(bitmapCases, []redisCase{
		{name: "bit commands wrong type", cmds: cmds(bitWrongTypeSetup, mbs("SETBIT l 0 1", "GETBIT l 0", "BITCOUNT l", "BITCOUNT h a b c", "BITPOS l 1", "BITPOS h 0 x", "BITPOS h 2", "GETBIT h x", "SETBIT h 0 x"))},
		{name: "bitop wrong type", cmds: cmds(bitWrongTypeSetup, mbs("SET a abc", "BITOP AND d a l", "EXISTS d", "BITOP OR h a", "TYPE h", "GET h", "BITOP AND l nosuch", "EXISTS l"))},
	}...)
	bitfieldCases = append(bitfieldCases, []redisCase{
		{name: "bitfield wrong type", cmds: cmds(bitWrongTypeSetup, mbs("BITFIELD l", "BITFIELD l GET u8 0", "BITFIELD l SET u8 0 1", "BITFIELD_RO h GET u8 0", "BITFIELD h foo", "BITFIELD_RO h SET u8 0 1"))},
	}...)
}

// TestCrossBitmapMemcachedGet: bytes written by bit commands are what
// memcached reads, and a bit command keeps the flags memcached stored.
func TestCrossBitmapMemcachedGet(t *testing.T) {
	r, m := crossSetup(t)
	expectReply(t, "SETBIT", r.do("SETBIT", "bits", "1", "1"), ":0\r\n")
	expectReply(t, "SETBIT", r.do("SETBIT", "bits", "23", "1"), ":0\r\n")
	expectMemc(t, "get after SETBIT", m.do("get bits\r\n"), "VALUE bits 0 3\r\n\x40\x00\x01\r\nEND\r\n")
	expectReply(t, "BITFIELD", r.do("BITFIELD", "bits", "SET", "u8", "8", "10"), "*1\r\n:0\r\n")
	expectMemc(t, "get after BITFIELD", m.do("get bits\r\n"), "VALUE bits 0 3\r\n\x40\n\x01\r\nEND\r\n")
	expectReply(t, "BITOP", r.do("BITOP", "NOT", "inv", "bits"), ":3\r\n")
	expectMemc(t, "get BITOP result", m.do("get inv\r\n"), "VALUE inv 0 3\r\n\xbf\xf5\xfe\r\nEND\r\n")

	// A memcached value with flags: SETBIT changes it in place, flags kept.
	expectMemc(t, "set with flags", m.do("set f 42 0 1\r\nA\r\n"), "STORED\r\n")
	expectReply(t, "SETBIT on memcached value", r.do("SETBIT", "f", "6", "1"), ":0\r\n")
	expectMemc(t, "get after SETBIT keeps flags", m.do("get f\r\n"), "VALUE f 42 1\r\nC\r\nEND\r\n")
	expectReply(t, "BITCOUNT of memcached value", r.do("BITCOUNT", "f"), ":3\r\n")
}
