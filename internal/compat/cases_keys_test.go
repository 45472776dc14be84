package compat

import (
	"strings"
	"testing"
	"time"
)

// Keyspace commands: deletion, existence, expiry, renaming, copying,
// patterns and OBJECT.

func TestRedisKeys(t *testing.T)   { runRedisCases(t, keyCases) }
func TestRedisExpiry(t *testing.T) { runRedisCases(t, expiryCases) }
func TestRedisObject(t *testing.T) { runRedisCases(t, objectCases) }

// patternKeys is a keyspace for KEYS patterns.
var patternKeys = mbs("MSET hello 1 hallo 2 hxllo 3 hllo 4 heeello 5 h*llo 6 h?llo 7 h[a]llo 8 foo 9 foo:bar 10 -x 11 ]x 12 \\x 13")

func keysCase(name, pattern string) redisCase {
	return redisCase{name: name, cmds: cmds(patternKeys, cmd("KEYS", pattern)), loose: at(1, sortedArray)}
}

var keyCases = []redisCase{
	{name: "del", cmds: mbs("MSET a 1 b 2 c 3", "DEL a", "DEL a", "DEL b c nosuch", "DBSIZE")},
	{name: "del repeated key", cmds: mbs("SET a 1", "DEL a a a")},
	{name: "unlink", cmds: mbs("MSET a 1 b 2", "UNLINK a b c", "EXISTS a b")},
	{name: "exists", cmds: mbs("SET a 1", "EXISTS a", "EXISTS nosuch", "EXISTS a nosuch a")},
	{name: "exists repeated counts twice", cmds: mbs("MSET a 1 b 2", "EXISTS a a b b nosuch")},
	{name: "type of integer", cmds: mbs("SET n 123", "INCR m", "TYPE n", "TYPE m")},
	keysCase("keys star", "*"),
	keysCase("keys prefix", "h*"),
	keysCase("keys question", "h?llo"),
	keysCase("keys class", "h[ae]llo"),
	keysCase("keys negated class", "h[^e]llo"),
	keysCase("keys range class", "h[a-f]llo"),
	keysCase("keys reversed range", "h[f-a]llo"),
	keysCase("keys escaped star", "h\\*llo"),
	keysCase("keys escaped question", "h\\?llo"),
	keysCase("keys escaped bracket", "h\\[a\\]llo"),
	keysCase("keys literal", "foo"),
	keysCase("keys suffix", "*llo"),
	keysCase("keys middle", "h*l*o"),
	keysCase("keys no match", "zzz*"),
	keysCase("keys unclosed class", "h[al"),
	keysCase("keys dash key", "-*"),
	keysCase("keys bracket key", "]*"),
	keysCase("keys backslash key", "\\\\*"),
	keysCase("keys colon", "foo:*"),
	keysCase("keys trailing backslash", "foo\\"),
	keysCase("keys lone bracket", "h["),
	keysCase("keys empty class", "h[]llo"),
	keysCase("keys escaped dash in class", "h[\\-a]llo"),
	keysCase("keys question only", "?x"),
	keysCase("keys many stars", "***"),
	{name: "keys empty db", cmds: mbs("KEYS *")},
	{name: "keys other db", cmds: mbs("SET a 1", "SELECT 1", "SET b 1", "KEYS *"), loose: at(3, sortedArray)},
	{name: "keys skips expired", cmds: mbs("SET a 1", "SET b 1 PXAT 1", "KEYS *")},
	{name: "randomkey empty", cmds: mbs("RANDOMKEY")},
	{name: "randomkey one key", cmds: mbs("SET only 1", "RANDOMKEY")},
	{name: "randomkey after delete", cmds: mbs("SET a 1", "DEL a", "RANDOMKEY")},
	{name: "rename", cmds: mbs("SET a 1", "RENAME a b", "GET a", "GET b")},
	{name: "rename missing", cmds: mbs("RENAME nosuch b", "RENAMENX nosuch b")},
	{name: "rename same name", cmds: mbs("SET a 1", "RENAME a a", "GET a", "RENAMENX a a", "RENAME nosuch nosuch")},
	{name: "rename keeps ttl", cmds: mbs("SET a 1 EX 100", "SET b 2", "RENAME a b", "TTL b"), loose: at(3, ttlApprox)},
	{name: "rename clears target ttl", cmds: mbs("SET a 1", "SET b 2 EX 100", "RENAME a b", "TTL b")},
	{name: "renamenx", cmds: mbs("MSET a 1 b 2", "RENAMENX a b", "RENAMENX a c", "MGET a b c")},
	{name: "touch", cmds: mbs("MSET a 1 b 2", "TOUCH a b nosuch a")},
	{name: "copy", cmds: mbs("SET a 1", "COPY a b", "GET b", "COPY a b", "COPY a b REPLACE", "COPY nosuch c")},
	{name: "copy keeps ttl", cmds: mbs("SET a 1 EX 100", "COPY a b", "TTL b"), loose: at(2, ttlApprox)},
	{name: "copy db", cmds: mbs("SET a 1", "COPY a a DB 1", "SELECT 1", "GET a", "SELECT 0", "COPY a a DB 1", "COPY a a DB 1 REPLACE")},
	{name: "copy same key", cmds: mbs("SET a 1", "COPY a a", "COPY a a REPLACE")},
	{name: "copy bad db", cmds: mbs("SET a 1", "COPY a b DB 16", "COPY a b DB x", "COPY a b DB -1", "COPY a b DB")},
	{name: "copy bad option", cmds: mbs("SET a 1", "COPY a b FOO", "COPY a b REPLACE REPLACE")},
	{name: "move", cmds: mbs("SET a 1", "MOVE a 1", "EXISTS a", "SELECT 1", "GET a")},
	{name: "move target exists", cmds: mbs("SET a 1", "SELECT 1", "SET a 2", "SELECT 0", "MOVE a 1", "GET a")},
	{name: "move missing", cmds: mbs("MOVE nosuch 1")},
	{name: "move same db", cmds: mbs("SET a 1", "MOVE a 0")},
	{name: "move bad db", cmds: mbs("SET a 1", "MOVE a 16", "MOVE a x", "MOVE a -1")},
	{name: "move keeps ttl", cmds: mbs("SET a 1 EX 100", "MOVE a 1", "SELECT 1", "TTL a"), loose: at(3, ttlApprox)},
	{name: "scan empty", cmds: mbs("SCAN 0")},
	{name: "scan one key", cmds: mbs("SET a 1", "SCAN 0")},
	{name: "scan bad cursor", cmds: mbs("SCAN abc", "SCAN -1", "SCAN 1.5")},
	{name: "scan bad options", cmds: mbs("SCAN 0 COUNT 0", "SCAN 0 COUNT -1", "SCAN 0 COUNT x", "SCAN 0 MATCH", "SCAN 0 FOO bar", "SCAN 0 TYPE")},
}

// expiryPause is slept after setting 20ms expiries: 100ms of margin keeps
// the cases deterministic on a loaded machine.
var expiryPause = pause(120 * time.Millisecond)

var expiryCases = []redisCase{
	{name: "expire ttl", cmds: mbs("SET k v", "EXPIRE k 100", "TTL k", "PTTL k"), loose: at(2, ttlApprox, 3, pttlApprox)},
	{name: "expire missing", cmds: mbs("EXPIRE nosuch 100", "PEXPIRE nosuch 100", "EXPIREAT nosuch 32503680000", "PEXPIREAT nosuch 32503680000000")},
	{name: "ttl missing and persistent", cmds: mbs("TTL nosuch", "PTTL nosuch", "SET k v", "TTL k", "PTTL k", "EXPIRETIME k", "PEXPIRETIME k", "EXPIRETIME nosuch", "PEXPIRETIME nosuch")},
	{name: "pexpire", cmds: mbs("SET k v", "PEXPIRE k 100000", "PTTL k", "TTL k"), loose: at(2, pttlApprox, 3, ttlApprox)},
	{name: "expireat", cmds: mbs("SET k v", "EXPIREAT k 32503680000", "EXPIRETIME k", "PEXPIRETIME k")},
	{name: "pexpireat", cmds: mbs("SET k v", "PEXPIREAT k 32503680000555", "PEXPIRETIME k", "EXPIRETIME k")},
	{name: "expiretime after expire", cmds: mbs("SET k v", "EXPIRE k 1000", "EXPIRETIME k"), loose: at(2, ttlApprox)},
	{name: "pexpiretime after pexpire", cmds: mbs("SET k v", "PEXPIRE k 1000000", "PEXPIRETIME k"), loose: at(2, pttlApprox)},
	{name: "expire zero deletes", cmds: mbs("SET k v", "EXPIRE k 0", "EXISTS k")},
	{name: "expire negative deletes", cmds: mbs("SET k v", "EXPIRE k -10", "EXISTS k", "SET j v", "PEXPIRE j -1", "EXISTS j")},
	{name: "expireat past deletes", cmds: mbs("SET k v", "EXPIREAT k 1000", "EXISTS k", "SET j v", "PEXPIREAT j 0", "GET j")},
	{name: "expire not integer", cmds: mbs("SET k v", "EXPIRE k abc", "EXPIRE k 1.5", "PEXPIRE k 1e3", "EXPIREAT k x", "TTL k")},
	{name: "expire overflow", cmds: mbs("SET k v", "EXPIRE k 9223372036854775807", "PEXPIRE k 9223372036854775807", "EXPIREAT k 9223372036854775807", "EXPIRE k 9223372036854775", "TTL k")},
	{name: "expire overflow negative", cmds: mbs("SET k v", "EXPIRE k -9223372036854775808", "PEXPIRE k -9223372036854775808", "EXISTS k")},
	{name: "expire nx", cmds: mbs("SET k v", "EXPIRE k 100 NX", "EXPIRE k 200 NX", "TTL k"), loose: at(3, ttlApprox)},
	{name: "expire xx", cmds: mbs("SET k v", "EXPIRE k 100 XX", "TTL k", "EXPIRE k 100", "EXPIRE k 200 XX", "TTL k"), loose: at(5, ttlApprox)},
	{name: "expire gt", cmds: mbs("SET k v", "EXPIRE k 100 GT", "TTL k", "EXPIRE k 100", "EXPIRE k 50 GT", "EXPIRE k 200 GT", "TTL k"), loose: at(6, ttlApprox)},
	{name: "expire lt", cmds: mbs("SET k v", "EXPIRE k 100 LT", "TTL k", "EXPIRE k 50 LT", "EXPIRE k 200 LT", "TTL k"), loose: at(2, ttlApprox, 5, ttlApprox)},
	{name: "expire nx xx conflict", cmds: mbs("SET k v", "EXPIRE k 100 NX XX", "EXPIRE k 100 NX GT", "EXPIRE k 100 NX LT", "EXPIRE k 100 GT LT", "TTL k")},
	{name: "expire xx gt allowed", cmds: mbs("SET k v EX 50", "EXPIRE k 100 XX GT", "TTL k"), loose: at(2, ttlApprox)},
	{name: "expire bad option", cmds: mbs("SET k v", "EXPIRE k 100 FOO", "PEXPIRE k 100 nx", "EXPIREAT k 32503680000 gt", "PTTL k"), loose: at(4, pttlApprox)},
	{name: "expire options on missing", cmds: mbs("EXPIRE nosuch 100 NX", "EXPIRE nosuch 100 XX GT")},
	{name: "persist", cmds: mbs("SET k v EX 100", "PERSIST k", "PERSIST k", "TTL k", "PERSIST nosuch")},
	{name: "set clears expire", cmds: mbs("SET k v", "EXPIRE k 100", "SET k w", "TTL k")},
	{name: "pexpire observed", cmds: cmds(mbs("SET k v", "PEXPIRE k 20"), expiryPause, mbs("EXISTS k", "GET k", "TTL k", "PTTL k", "DBSIZE"))},
	{name: "expired key not in keys", cmds: cmds(mbs("SET a 1", "SET b 2 PX 20", "SET c 3 PX 20"), expiryPause, mbs("KEYS *", "RANDOMKEY", "EXISTS a b c"))},
	{name: "expired key rename", cmds: cmds(mbs("SET a 1 PX 20"), expiryPause, mbs("RENAME a b", "EXISTS b"))},
	{name: "expired key incr restarts", cmds: cmds(mbs("SET n 10 PX 20"), expiryPause, mbs("INCR n", "TTL n"))},
	{name: "expired key setnx", cmds: cmds(mbs("SET a 1 PX 20"), expiryPause, mbs("SETNX a 2", "GET a", "TTL a"))},
	{name: "expired key is gone for every command", cmds: cmds(mbs("SET a 1 PX 20", "SET b 2 PX 20", "SET c 3 PX 20", "SET d 4 PX 20"), expiryPause,
		mbs("TTL a", "PTTL a", "PERSIST a", "EXPIRE b 100", "DEL c", "EXISTS a b c d", "TYPE d", "STRLEN d", "GETRANGE d 0 -1", "OBJECT ENCODING d", "MGET a b c d"))},
	{name: "expired key append", cmds: cmds(mbs("SET a old PX 20"), expiryPause, mbs("APPEND a new", "GET a"))},
	// SCAN reclaims the expired keys it meets, as a lookup does, so DBSIZE
	// no longer counts them (before an active expiry cycle would).
	{name: "scan reclaims expired keys", cmds: cmds(mbs("SET a 1 PX 10", "SET b 2 PX 10", "SET c 3 PX 10", "SET live 1"), pause(40*time.Millisecond),
		mbs("SCAN 0 COUNT 100", "DBSIZE"))},
	{name: "scan type reclaims expired keys", cmds: cmds(mbs("SET a 1 PX 10", "RPUSH b x", "PEXPIRE b 10", "SET live 1"), pause(40*time.Millisecond),
		mbs("SCAN 0 COUNT 100 TYPE list", "DBSIZE", "SCAN 0 COUNT 100 TYPE string"))},
	{name: "expiretime rounds near 2^63", cmds: mbs("SET k v", "PEXPIREAT k 9223372036854775807", "EXPIRETIME k", "PEXPIRETIME k",
		"PEXPIREAT k 9223372036854775308", "EXPIRETIME k", "PEXPIREAT k 9223372036854775307", "EXPIRETIME k")},
}

var objectCases = []redisCase{
	{name: "object encoding int", cmds: mbs("SET k 123", "OBJECT ENCODING k", "SET k -9223372036854775808", "OBJECT ENCODING k")},
	{name: "object encoding int limits", cmds: mbs("SET k 9223372036854775808", "OBJECT ENCODING k", "SET k 012", "OBJECT ENCODING k", "SET k +1", "OBJECT ENCODING k", "SET k -0", "OBJECT ENCODING k")},
	{name: "object encoding embstr", cmds: mbs("SET k hello", "OBJECT ENCODING k", "SET k 1.5", "OBJECT ENCODING k")},
	{name: "object encoding 44 bytes embstr", cmds: cmds(cmd("SET", "k", strings.Repeat("x", 44)), mbs("OBJECT ENCODING k"))},
	{name: "object encoding 45 bytes raw", cmds: cmds(cmd("SET", "k", strings.Repeat("x", 45)), mbs("OBJECT ENCODING k"))},
	{name: "object encoding 20 digit number", cmds: cmds(cmd("SET", "k", "12345678901234567890"), mbs("OBJECT ENCODING k"))},
	{name: "object encoding empty", cmds: cmds(cmd("SET", "k", ""), mbs("OBJECT ENCODING k"))},
	{name: "object encoding after append", cmds: mbs("SET k hello", "APPEND k x", "OBJECT ENCODING k")},
	{name: "object encoding after setrange", cmds: mbs("SET k hello", "SETRANGE k 0 j", "OBJECT ENCODING k")},
	{name: "object encoding incr", cmds: mbs("INCR k", "OBJECT ENCODING k", "INCRBY k 100000", "OBJECT ENCODING k")},
	{name: "object encoding missing", cmds: mbs("OBJECT ENCODING nosuch")},
	{name: "object freq noeviction", cmds: mbs("SET k v", "OBJECT FREQ k", "OBJECT FREQ nosuch")},
	{name: "object idletime", cmds: mbs("SET k v", "OBJECT IDLETIME k", "OBJECT IDLETIME nosuch"), loose: at(1, anyInt)},
	{name: "object refcount", cmds: mbs("SET k v", "OBJECT REFCOUNT k", "OBJECT REFCOUNT nosuch")},
	{name: "object refcount shared integer", cmds: mbs("SET k 100", "OBJECT REFCOUNT k", "SET j 100000", "OBJECT REFCOUNT j")},
	{name: "object help", cmds: mbs("OBJECT HELP", "OBJECT help")},
	{name: "object bad subcommand", cmds: mbs("OBJECT FOO k", "OBJECT FOO", "OBJECT ENCODING a b")},
}
