package compat

import (
	"strings"
	"testing"
)

// The server's introspection and control commands, differential: MEMORY,
// OBJECT, DEBUG, LOLWUT, CLIENT PAUSE/UNPAUSE/UNBLOCK, FUNCTION
// DUMP/RESTORE and CONFIG REWRITE. Errors, arity, nulls, command rows
// and every text either server fixes are exact; a figure that is each
// server's own (bytes of memory, an address, an idle time) is loosened by
// name.

func TestRedisMemory(t *testing.T) { runRedisCases(t, memoryCases) }

var memoryCases = []redisCase{
	{name: "memory usage errors", cmds: mbs("MEMORY USAGE nokey", "MEMORY USAGE nokey SAMPLES", "MEMORY USAGE nokey SAMPLES x",
		"MEMORY USAGE nokey SAMPLES -1", "MEMORY USAGE nokey SAMPLES 0", "MEMORY USAGE nokey samples 5 SAMPLES 1",
		"MEMORY USAGE nokey FOO", "MEMORY USAGE nokey SAMPLES 5 FOO", "SET k v", "MEMORY USAGE k SAMPLES x",
		"MEMORY USAGE k SAMPLES 99999999999999999999", "MEMORY USAGE k SAMPLES -5")},
	{name: "memory usage", cmds: cmds(mbs("SET s v", "MEMORY USAGE s", "SET n 12345", "MEMORY USAGE n SAMPLES 0"),
		cmd("SET", "big", strings.Repeat("x", 5000)), mbs("MEMORY USAGE big", "RPUSH l a b c", "MEMORY USAGE l",
			"HSET h f v", "MEMORY USAGE h samples 1", "SADD st 1 2 3", "MEMORY USAGE st", "ZADD z 1 a", "MEMORY USAGE z",
			"PFADD hll a b", "MEMORY USAGE hll", "SELECT 9", "MEMORY USAGE s", "SET s other", "MEMORY USAGE s", "SELECT 0")),
		loose: at(1, anyInt, 3, anyInt, 5, anyInt, 7, anyInt, 9, anyInt, 11, anyInt, 13, anyInt, 15, anyInt, 19, anyInt)},
	{name: "memory arity and subcommands", cmds: mbs("MEMORY", "MEMORY USAGE", "MEMORY STATS x", "MEMORY DOCTOR x",
		"MEMORY PURGE x", "MEMORY MALLOC-STATS x", "MEMORY HELP x", "MEMORY nosuch", "MEMORY nosuch x y")},
	{name: "memory help", cmds: mbs("MEMORY HELP", "memory help")},
	{name: "memory stats", cmds: mbs("MEMORY STATS", "SET a 1", "MEMORY STATS", "SELECT 3", "SET b 2", "SELECT 5", "SET c 3",
		"MEMORY STATS", "FLUSHDB", "MEMORY STATS", "SELECT 0"),
		loose: at(0, namedFigures, 2, namedFigures, 7, namedFigures, 9, namedFigures)},
	// Both servers are nearly empty: under 5MB, which is MEMORY DOCTOR's
	// fixed answer.
	{name: "memory doctor", cmds: mbs("MEMORY DOCTOR", "SET k v", "MEMORY DOCTOR")},
	{name: "memory purge", cmds: mbs("MEMORY PURGE")},
	{name: "memory malloc-stats", cmds: mbs("MEMORY MALLOC-STATS"), loose: at(0, anyBulk)},
	{name: "memory in multi", cmds: mbs("SET k v", "MULTI", "MEMORY USAGE k", "MEMORY USAGE nokey", "MEMORY USAGE k SAMPLES x", "EXEC"),
		loose: at(5, anyBulk)},
	{name: "memory in scripts", cmds: cmds(mbs("SET k v"), cmd("EVAL", "return redis.call('memory','usage',KEYS[1])", "1", "nokey"),
		cmd("EVAL", "return redis.pcall('memory','usage','k','samples','x')", "0"),
		cmd("EVAL", "return redis.call('memory','purge')", "0"))},
	{name: "memory command info", cmds: mbs("COMMAND INFO memory|usage memory|stats memory|doctor memory|purge memory|malloc-stats memory|help",
		"COMMAND GETKEYS MEMORY USAGE k", "COMMAND GETKEYSANDFLAGS MEMORY USAGE k SAMPLES 5", "COMMAND GETKEYS MEMORY STATS")},
}

func TestRedisObjectIntrospection(t *testing.T) { runRedisCases(t, objectIntrospectionCases) }

// Shared integers (0..9999) are left out of FREQ and IDLETIME: Redis
// keeps one object per value, whose access time every key holding it
// shares, touched by reads of any of them and by the policy in force when
// it was last touched.
var objectIntrospectionCases = []redisCase{
	{name: "object encodings", cmds: cmds(mbs("SET i 123", "SET e 12345678901234567890", "SET s abc", "SET f 1.5", "SET n -0", "SET z 007",
		"SET m 9223372036854775807", "SET o 9223372036854775808", "RPUSH l a", "SADD si 1", "SADD ss a", "HSET h a b", "ZADD zs 1 a", "PFADD hl a"),
		cmd("SET", "r", strings.Repeat("x", 45)), cmd("SET", "em", strings.Repeat("x", 44)),
		mbs("OBJECT ENCODING i", "OBJECT ENCODING e", "OBJECT ENCODING s", "OBJECT ENCODING f", "OBJECT ENCODING n", "OBJECT ENCODING z",
			"OBJECT ENCODING m", "OBJECT ENCODING o", "OBJECT ENCODING l", "OBJECT ENCODING si", "OBJECT ENCODING ss", "OBJECT ENCODING h",
			"OBJECT ENCODING zs", "OBJECT ENCODING hl", "OBJECT ENCODING r", "OBJECT ENCODING em", "OBJECT encoding nokey",
			"APPEND s x", "OBJECT ENCODING s", "INCRBYFLOAT f 1", "OBJECT ENCODING f", "SETRANGE sr 0 abc", "OBJECT ENCODING sr"))},
	{name: "object refcount", cmds: mbs("SET a 100", "OBJECT REFCOUNT a", "SET b 9999", "OBJECT REFCOUNT b", "SET c 10000", "OBJECT REFCOUNT c",
		"SET d -1", "OBJECT REFCOUNT d", "SET e abc", "OBJECT REFCOUNT e", "RPUSH l a", "OBJECT REFCOUNT l", "INCR n", "OBJECT REFCOUNT n",
		"OBJECT REFCOUNT nokey", "SET z 0", "OBJECT REFCOUNT z", "SET p +1", "OBJECT REFCOUNT p")},
	{name: "object refcount with an lru policy", cmds: mbs("CONFIG SET maxmemory 1gb", "CONFIG SET maxmemory-policy allkeys-lru",
		"SET a 100", "OBJECT REFCOUNT a", "CONFIG SET maxmemory-policy volatile-ttl", "SET b 100", "OBJECT REFCOUNT b",
		"CONFIG SET maxmemory-policy allkeys-lfu", "SET c 5", "OBJECT REFCOUNT c",
		"CONFIG SET maxmemory-policy noeviction", "CONFIG SET maxmemory 0")},
	// A policy switch leaves a key's LRU field read as an LFU counter or
	// the reverse, in Redis as its error texts say: each key here is
	// written under the policy it is read under.
	{name: "object freq and idletime", cmds: mbs("SET k v", "OBJECT FREQ k", "OBJECT FREQ nokey", "OBJECT IDLETIME k", "OBJECT IDLETIME nokey",
		"CONFIG SET maxmemory-policy allkeys-lfu", "SET f v", "OBJECT FREQ f", "GET f", "OBJECT FREQ f", "OBJECT IDLETIME f",
		"OBJECT IDLETIME nokey", "OBJECT FREQ nokey", "CONFIG SET maxmemory-policy volatile-lfu", "OBJECT FREQ f", "RPUSH l a", "OBJECT FREQ l",
		"CONFIG SET maxmemory-policy volatile-lru", "OBJECT FREQ k", "SET r v", "OBJECT IDLETIME r", "CONFIG SET maxmemory-policy noeviction")},
	{name: "object keeps the access time", cmds: mbs("SET k v", "OBJECT IDLETIME k", "OBJECT ENCODING k", "OBJECT IDLETIME k")},
	{name: "object errors and arity", cmds: mbs("OBJECT", "OBJECT ENCODING", "OBJECT ENCODING a b", "OBJECT FREQ", "OBJECT IDLETIME a b",
		"OBJECT REFCOUNT", "OBJECT HELP x", "OBJECT nosuch", "OBJECT nosuch k", "OBJECT help")},
	{name: "object help", cmds: mbs("OBJECT HELP", "object help")},
	{name: "object in multi and scripts", cmds: cmds(mbs("SET k v", "MULTI", "OBJECT ENCODING k", "OBJECT FREQ k", "EXEC"),
		cmd("EVAL", "return redis.call('object','encoding',KEYS[1])", "1", "k"),
		cmd("EVAL", "return redis.pcall('object','freq',KEYS[1])", "1", "k"))},
	{name: "object command info", cmds: mbs("COMMAND INFO object|encoding object|freq object|idletime object|refcount object|help",
		"COMMAND GETKEYS OBJECT ENCODING k", "COMMAND GETKEYSANDFLAGS OBJECT FREQ k", "COMMAND GETKEYS OBJECT HELP")},
}
