package compat

import "testing"

// TestRedisDebugReloadOnto: DEBUG RELOAD's NOFLUSH loads the dump over the
// data (a library the dump has too fails the reload, the data stays) and
// NOFLUSH MERGE replaces what the dump has too — a list is not appended
// to. Each case ends with FUNCTION FLUSH: the harness flushes keys only.
func TestRedisDebugReloadOnto(t *testing.T) { runRedisCases(t, debugReloadOntoCases) }

const reloadLib = "#!lua name=lib\nredis.register_function('f', function() return 1 end)"

var debugReloadOntoCases = []redisCase{
	{name: "noflush with a library there", cmds: cmds(cmd("FUNCTION", "LOAD", reloadLib),
		mbs("RPUSH l a b", "DEBUG RELOAD NOFLUSH", "FUNCTION LIST", "LRANGE l 0 -1", "FCALL f 0", "FUNCTION FLUSH"))},
	{name: "noflush merge replaces keys and libraries", cmds: cmds(cmd("FUNCTION", "LOAD", reloadLib),
		mbs("RPUSH l a b", "SADD s x", "HSET h f v", "DEBUG RELOAD NOFLUSH MERGE", "LRANGE l 0 -1", "SMEMBERS s", "HGETALL h",
			"RPUSH l c", "DEBUG RELOAD NOSAVE NOFLUSH MERGE", "LRANGE l 0 -1", "FUNCTION LIST", "DBSIZE", "FUNCTION FLUSH"))},
	{name: "merge alone flushes", cmds: cmds(cmd("FUNCTION", "LOAD", reloadLib),
		mbs("RPUSH l a b", "SAVE", "RPUSH l c", "SET k v", "DEBUG RELOAD NOSAVE MERGE", "LRANGE l 0 -1", "EXISTS k", "FUNCTION LIST", "FUNCTION FLUSH"))},
	{name: "noflush nosave without a library there", cmds: mbs("FUNCTION FLUSH", "SAVE", "SET k v", "DEBUG RELOAD NOSAVE NOFLUSH", "GET k", "DBSIZE")},
}
