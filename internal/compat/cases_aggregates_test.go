package compat

// Cases that need keys of other types than string (lists, sets, hashes,
// sorted sets): WRONGTYPE paths of the string commands, and the generic
// commands (TYPE, RENAME, COPY, OBJECT, SCAN TYPE) on aggregates.

// wrongTypeSetup makes key l a list, s a set and h a hash.
var wrongTypeSetup = mbs("RPUSH l a b", "SADD s a", "HSET h f v")

func init() {
	stringCases = append(stringCases, []redisCase{
		{name: "set get wrong type", cmds: cmds(wrongTypeSetup, mbs("SET l v GET", "TYPE l", "LRANGE l 0 -1"))},
		{name: "set wrong type overwrites", cmds: cmds(wrongTypeSetup, mbs("SET l v", "TYPE l", "GET l"))},
		{name: "get wrong type", cmds: cmds(wrongTypeSetup, mbs("GET l", "GET s", "GET h"))},
		{name: "setnx wrong type", cmds: cmds(wrongTypeSetup, mbs("SETNX l v"))},
		{name: "mget", cmds: cmds(mbs("SET a 1", "SET b 2"), wrongTypeSetup, mbs("MGET a nosuch b a l"))},
		{name: "mset clears ttl and type", cmds: cmds(wrongTypeSetup, mbs("SET a 1 EX 100", "MSET a 2 l 3", "TTL a", "TYPE l", "GET l"))},
		{name: "getset wrong type", cmds: cmds(wrongTypeSetup, mbs("GETSET l v"))},
		{name: "getdel wrong type", cmds: cmds(wrongTypeSetup, mbs("GETDEL l", "TYPE l"))},
		{name: "getex wrong type", cmds: cmds(wrongTypeSetup, mbs("GETEX l", "GETEX l PERSIST"))},
		{name: "append wrong type", cmds: cmds(wrongTypeSetup, mbs("APPEND l x"))},
		{name: "strlen wrong type", cmds: cmds(wrongTypeSetup, mbs("STRLEN l"))},
	}...)
	counterCases = append(counterCases, []redisCase{
		{name: "incr wrong type", cmds: cmds(wrongTypeSetup, mbs("INCR l", "DECR s", "INCRBY h 1", "INCRBYFLOAT l 1"))},
	}...)
	rangeCases = append(rangeCases, []redisCase{
		{name: "getrange wrong type", cmds: cmds(wrongTypeSetup, mbs("GETRANGE l 0 1"))},
		{name: "setrange wrong type", cmds: cmds(wrongTypeSetup, mbs("SETRANGE l 0 x"))},
		{name: "lcs wrong type", cmds: cmds(wrongTypeSetup, mbs("SET a abc", "LCS a l", "LCS l a"))},
	}...)
	keyCases = append(keyCases, []redisCase{
		{name: "del any type", cmds: cmds(wrongTypeSetup, mbs("DEL l s h", "DBSIZE"))},
		{name: "exists other types", cmds: cmds(wrongTypeSetup, mbs("EXISTS l s h"))},
		{name: "type", cmds: cmds(wrongTypeSetup, mbs("SET str v", "ZADD z 1 m", "TYPE str", "TYPE l", "TYPE s", "TYPE h", "TYPE z", "TYPE nosuch"))},
		{name: "rename overwrites", cmds: cmds(wrongTypeSetup, mbs("SET a 1", "RENAME a l", "TYPE l", "GET l"))},
		{name: "rename other type", cmds: cmds(wrongTypeSetup, mbs("RENAME l l2", "TYPE l2", "LRANGE l2 0 -1"))},
		{name: "copy other types", cmds: cmds(wrongTypeSetup, mbs("COPY l l2", "LRANGE l2 0 -1", "COPY h h2", "HGETALL h2"))},
		{name: "scan type filter", cmds: cmds(wrongTypeSetup, mbs("SET a 1", "SCAN 0 TYPE string COUNT 100", "SCAN 0 TYPE list COUNT 100", "SCAN 0 TYPE nosuchtype")), loose: at(4, sortedArray, 5, sortedArray, 6, sortedArray)},
	}...)
	expiryCases = append(expiryCases, []redisCase{
		{name: "persist wrong type ok", cmds: cmds(wrongTypeSetup, mbs("EXPIRE l 100", "PERSIST l", "TTL l"))},
		{name: "expire other types", cmds: cmds(wrongTypeSetup, mbs("EXPIRE h 100", "TTL h", "PEXPIREAT s 32503680000000", "PEXPIRETIME s")), loose: at(4, ttlApprox)},
	}...)
	objectCases = append(objectCases, []redisCase{
		{name: "object encoding other types", cmds: cmds(wrongTypeSetup, mbs("OBJECT ENCODING l", "OBJECT ENCODING s", "OBJECT ENCODING h", "SADD is 1 2 3", "OBJECT ENCODING is"))},
	}...)
}
