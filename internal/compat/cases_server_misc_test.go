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
