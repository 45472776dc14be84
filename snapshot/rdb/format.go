package rdb

// Opcodes that may stand where a value type is expected.
const (
	opFunction2 = 245 // a function library: <string code>
	opFunction  = 246 // Redis 7.0 release candidates' function format (refused)
	opModuleAux = 247 // module AUX data (refused)
	opIdle      = 248 // <length> LRU idle seconds of the next key
	opFreq      = 249 // <byte> LFU counter of the next key
	opAux       = 250 // <string key> <string value>
	opResizeDB  = 251 // <length keys> <length expires>
	opExpireMs  = 252 // <int64le> absolute Unix ms expiry of the next key
	opExpire    = 253 // <int32le> absolute Unix seconds expiry of the next key
	opSelectDB  = 254 // <length db>
	opEOF       = 255 // then 8 bytes: CRC-64 little endian (RDB version >= 5)
)

// RDB object types.
const (
	rtString          = 0
	rtList            = 1
	rtSet             = 2
	rtZSet            = 3
	rtHash            = 4
	rtZSet2           = 5
	rtModule          = 6
	rtModule2         = 7
	rtHashZipmap      = 9
	rtListZiplist     = 10
	rtSetIntset       = 11
	rtZSetZiplist     = 12
	rtHashZiplist     = 13
	rtListQuicklist   = 14
	rtStreamListpacks = 15
	rtHashListpack    = 16
	rtZSetListpack    = 17
	rtListQuicklist2  = 18
	rtStreamListpack2 = 19
	rtSetListpack     = 20 // Redis 7.2 (RDB 11); accepted, it costs nothing
	rtStreamListpack3 = 21 // Redis 7.2 (RDB 11)
)

// Length encoding: the two high bits of the first byte.
const (
	len6     = 0    // 00xxxxxx
	len14    = 1    // 01xxxxxx xxxxxxxx
	len32    = 0x80 // 10000000 + uint32 big endian
	len64    = 0x81 // 10000001 + uint64 big endian
	lenEnc   = 3    // 11xxxxxx: a specially encoded string follows
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// Quicklist 2 node containers.
const (
	qlPlain  = 1
	qlPacked = 2
)

// RDBVersion is the version the Writer writes and the newest the Reader
// accepts (Redis 7.0).
const RDBVersion = 10

// auxMC is Tandem's AUX field carrying the next key's memcached flags and CAS.
const auxMC = "tandem-mc"

func rdbTypeName(t byte) string {
	switch t {
	case rtString:
		return "string"
	case rtList:
		return "list"
	case rtSet:
		return "set"
	case rtZSet:
		return "zset"
	case rtHash:
		return "hash"
	case rtZSet2:
		return "zset-2"
	case rtModule:
		return "module (pre-GA)"
	case rtModule2:
		return "module"
	case rtHashZipmap:
		return "hash-zipmap"
	case rtListZiplist:
		return "list-ziplist"
	case rtSetIntset:
		return "set-intset"
	case rtZSetZiplist:
		return "zset-ziplist"
	case rtHashZiplist:
		return "hash-ziplist"
	case rtListQuicklist:
		return "list-quicklist"
	case rtStreamListpacks:
		return "stream"
	case rtHashListpack:
		return "hash-listpack"
	case rtZSetListpack:
		return "zset-listpack"
	case rtListQuicklist2:
		return "list-quicklist-2"
	case rtStreamListpack2:
		return "stream-2"
	case rtSetListpack:
		return "set-listpack"
	case rtStreamListpack3:
		return "stream-3"
	}
	return "unknown"
}
