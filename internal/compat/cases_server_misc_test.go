package compat

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
	"github.com/tandemkv/tandem/snapshot/rdb"
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
	// Redis measures a key that expired but is still held (its active
	// cycle stopped here), without reclaiming it.
	{name: "memory usage expired", cmds: cmds(mbs("DEBUG SET-ACTIVE-EXPIRE 0", "SET k v PX 5"), pause(50*time.Millisecond),
		mbs("MEMORY USAGE k", "DBSIZE", "GET k", "MEMORY USAGE k", "DBSIZE", "DEBUG SET-ACTIVE-EXPIRE 1")), loose: at(3, anyInt)},
	{name: "memory arity and subcommands", cmds: mbs("MEMORY", "MEMORY USAGE", "MEMORY STATS x", "MEMORY DOCTOR x",
		"MEMORY PURGE x", "MEMORY MALLOC-STATS x", "MEMORY HELP x", "MEMORY nosuch", "MEMORY nosuch x y")},
	{name: "memory help", cmds: mbs("MEMORY HELP", "memory help")},
	{name: "memory stats", cmds: mbs("MEMORY STATS", "SET a 1", "MEMORY STATS", "SELECT 3", "SET b 2", "SELECT 5", "SET c 3",
		"MEMORY STATS", "FLUSHDB", "MEMORY STATS", "SELECT 0"),
		loose: at(0, namedFigures, 2, namedFigures, 7, namedFigures, 9, namedFigures)},
	// MEMORY DOCTOR's verdict reads each server's own figures (Redis's
	// used memory counts its script caches and buffers, which earlier
	// cases leave behind): the reply's type is compared, its texts are
	// resp's unit tests'.
	{name: "memory doctor", cmds: mbs("MEMORY DOCTOR", "SET k v", "MEMORY DOCTOR"), loose: at(0, anyBulk, 2, anyBulk)},
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

func TestRedisDebug(t *testing.T) { runRedisCases(t, debugCases) }

// debugObject loosens DEBUG OBJECT: the address and the access clock
// are each server's own; encoding, refcount, serialized length and a
// list's quicklist are compared.
var debugObject = ignoreFields("at", "lru", "lru_seconds_idle")

var debugCases = []redisCase{
	{name: "debug object", cmds: cmds(mbs("DEBUG OBJECT nokey", "SET s v", "DEBUG OBJECT s", "SET i 12345", "DEBUG OBJECT i",
		"SET n 100", "DEBUG OBJECT n", "RPUSH l a b 1 2", "DEBUG OBJECT l", "SADD si 1 2 3", "DEBUG OBJECT si", "SADD ss a b", "DEBUG OBJECT ss",
		"HSET h f v", "DEBUG OBJECT h", "ZADD z 1 a 2 b", "DEBUG OBJECT z", "PFADD hl a b c", "DEBUG OBJECT hl"),
		cmd("SET", "big", strings.Repeat("compressible ", 40)), mbs("DEBUG OBJECT big"),
		cmd(append([]string{"RPUSH", "bl"}, seq(300, func(int) string { return strings.Repeat("e", 40) })...)...), mbs("DEBUG OBJECT bl")),
		loose: at(2, debugObject, 4, debugObject, 6, debugObject, 8, debugObject, 10, debugObject, 12, debugObject, 14, debugObject,
			16, debugObject, 18, debugObject, 20, debugObject, 22, debugObject)},
	// A Redis list keeps the fill and compression it was created with
	// and its nodes as they were built; Tandem's follow the settings of
	// the moment. Each list here is read under the settings it was
	// written with.
	{name: "debug object list settings", cmds: cmds(mbs("CONFIG SET list-max-listpack-size 4", "RPUSH l 1 2 3 4 5 6 7 8 9", "DEBUG OBJECT l",
		"CONFIG SET list-compress-depth 1", "RPUSH c 1 2 3 4 5 6 7 8 9", "DEBUG OBJECT c", "CONFIG SET list-compress-depth 0",
		"CONFIG SET list-max-listpack-size -2")),
		loose: at(2, debugObject, 5, debugObject)},
	{name: "debug digest", cmds: cmds(mbs("DEBUG DIGEST", "SET s v", "DEBUG DIGEST", "SET n 12345", "SET e v EX 1000",
		"RPUSH l a b 1 -2", "SADD si 5 1 300000", "SADD ss x y z", "HSET h f v g 1", "ZADD zl 1 a 2.5 b -inf c", "PFADD hll a b",
		"DEBUG DIGEST", "SELECT 7", "SET s v", "DEBUG DIGEST", "DEBUG DIGEST-VALUE s", "SELECT 0",
		"DEBUG DIGEST-VALUE s n e l si ss h zl hll nokey", "DEBUG DIGEST-VALUE", "CONFIG SET zset-max-listpack-entries 1",
		"ZADD zs 1 a 2 b 3.25 c", "DEBUG DIGEST-VALUE zs", "CONFIG SET zset-max-listpack-entries 128",
		"CONFIG SET hash-max-listpack-entries 1", "HSET hh a 1 b 2", "DEBUG DIGEST-VALUE hh", "CONFIG SET hash-max-listpack-entries 128"),
		cmd("SET", "bin", "\x00\xff\r\n"), mbs("DEBUG DIGEST", "DEBUG DIGEST-VALUE bin"))},
	// Streams: the live entries and their fields, whatever the node
	// layout, deletions and groups (which Redis does not digest).
	{name: "debug digest stream", cmds: mbs("XADD st 1-1 a 1 b 2", "XADD st 1-2 a 3 b 4", "XADD st 2-0 c 5", "XADD st 3-0 a 1 b 2",
		"DEBUG DIGEST-VALUE st", "XDEL st 1-2", "DEBUG DIGEST-VALUE st", "XGROUP CREATE st g 0", "DEBUG DIGEST-VALUE st",
		"XADD other 1-1 a 1 b 2", "XADD other 3-0 a 1 b 2", "XADD other 2-0 c 5", "DEBUG DIGEST-VALUE other", "XADD e MAXLEN 0 5-0 f v",
		"DEBUG DIGEST-VALUE e", "DEBUG DIGEST")},
	{name: "debug digest order", cmds: mbs("RPUSH a x y", "RPUSH b y x", "DEBUG DIGEST-VALUE a b", "SADD c x y", "SADD d y x",
		"DEBUG DIGEST-VALUE c d", "DEL a b c d", "DEBUG DIGEST")},
	{name: "debug protocol", cmds: mbs("DEBUG PROTOCOL string", "DEBUG PROTOCOL integer", "DEBUG PROTOCOL double", "DEBUG PROTOCOL bignum",
		"DEBUG PROTOCOL null", "DEBUG PROTOCOL array", "DEBUG PROTOCOL set", "DEBUG PROTOCOL map", "DEBUG PROTOCOL true",
		"DEBUG PROTOCOL false", "DEBUG PROTOCOL verbatim", "DEBUG PROTOCOL nosuch", "DEBUG protocol STRING", "DEBUG PROTOCOL")},
	// The attribute and the push come before the real reply: the
	// reader sees one reply each, and the case checks its bytes.
	{name: "debug protocol attrib and push", proto: 2, cmds: mbs("DEBUG PROTOCOL attrib", "DEBUG PROTOCOL push")},
	{name: "debug error and log", cmds: cmds(mbs("DEBUG ERROR hello", "DEBUG ERROR WRONGTYPE custom"), cmd("DEBUG", "ERROR", "a\r\nb"),
		cmd("DEBUG", "ERROR", ""), mbs("DEBUG LOG message", "DEBUG ERROR", "DEBUG LOG"))},
	{name: "debug sleep", cmds: mbs("DEBUG SLEEP 0", "DEBUG SLEEP 0.01", "DEBUG SLEEP abc", "DEBUG SLEEP -1", "DEBUG SLEEP 0.005xyz", "DEBUG SLEEP", "DEBUG SLEEP 1 2")},
	{name: "debug set-active-expire", cmds: cmds(mbs("DEBUG SET-ACTIVE-EXPIRE 0", "SET k v PX 5"), pause(300*time.Millisecond),
		mbs("DBSIZE", "DEBUG SET-ACTIVE-EXPIRE x", "DEBUG SET-ACTIVE-EXPIRE 1", "GET k", "DBSIZE", "DEBUG SET-ACTIVE-EXPIRE", "DEBUG SET-ACTIVE-EXPIRE 1 2"))},
	{name: "debug quicklist-packed-threshold", cmds: cmds(mbs("DEBUG QUICKLIST-PACKED-THRESHOLD 0", "DEBUG QUICKLIST-PACKED-THRESHOLD 1b",
		"DEBUG QUICKLIST-PACKED-THRESHOLD 4gb", "DEBUG QUICKLIST-PACKED-THRESHOLD 4095mb", "DEBUG QUICKLIST-PACKED-THRESHOLD 4096mb",
		"DEBUG QUICKLIST-PACKED-THRESHOLD -1", "DEBUG QUICKLIST-PACKED-THRESHOLD 1x", "DEBUG QUICKLIST-PACKED-THRESHOLD kb",
		"DEBUG QUICKLIST-PACKED-THRESHOLD 4294967295", "DEBUG QUICKLIST-PACKED-THRESHOLD 4293918720", "DEBUG QUICKLIST-PACKED-THRESHOLD 4293918721",
		"DEBUG QUICKLIST-PACKED-THRESHOLD 5b", "RPUSH l a bb ccccc dddddddd e", "DUMP l", "DEBUG OBJECT l", "LRANGE l 0 -1",
		"DEBUG QUICKLIST-PACKED-THRESHOLD 0", "RPUSH m a bb ccccc dddddddd e", "DUMP m", "DEBUG QUICKLIST-PACKED-THRESHOLD",
		"DEBUG QUICKLIST-PACKED-THRESHOLD 1 2")),
		loose: at(14, debugObject)},
	{name: "debug listpack and quicklist", cmds: mbs("DEBUG LISTPACK nokey", "HSET h f v", "DEBUG LISTPACK h", "ZADD z 1 a", "DEBUG LISTPACK z",
		"RPUSH l a", "DEBUG LISTPACK l", "DEBUG QUICKLIST l", "DEBUG QUICKLIST l 1", "DEBUG QUICKLIST h", "DEBUG QUICKLIST nokey",
		"SADD s 1", "DEBUG LISTPACK s", "SET k v", "DEBUG LISTPACK k", "DEBUG LISTPACK", "DEBUG QUICKLIST l 1 2")},
	{name: "debug populate", cmds: mbs("DEBUG POPULATE 3", "DBSIZE", "GET key:0", "GET key:2", "DEBUG POPULATE 2 pre", "GET pre:1",
		"DEBUG POPULATE 2 pad 10", "STRLEN pad:0", "GETRANGE pad:1 0 6", "DEBUG POPULATE 2 cut 3", "GET cut:1", "SET key:5 mine",
		"DEBUG POPULATE 6", "GET key:5", "DBSIZE", "DEBUG DIGEST", "DEBUG POPULATE -1", "DEBUG POPULATE x", "DEBUG POPULATE 1 p -1",
		"DEBUG POPULATE 1 p x", "DEBUG POPULATE 0", "DEBUG POPULATE", "DEBUG POPULATE 1 2 3 4", "OBJECT ENCODING key:0")},
	{name: "debug change-repl-id", cmds: mbs("DEBUG CHANGE-REPL-ID", "DEBUG CHANGE-REPL-ID x")},
	// DEBUG STRINGMATCH-TEST itself takes Redis longer than the
	// harness waits; its argument check is compared here.
	{name: "debug stringmatch-test", cmds: mbs("DEBUG STRINGMATCH-TEST x")},
	{name: "debug subcommands and arity", cmds: mbs("DEBUG", "DEBUG nosuch", "DEBUG OBJECT", "DEBUG OBJECT a b", "DEBUG DIGEST x",
		"DEBUG HELP x", "DEBUG PROTOCOL a b")},
	{name: "debug in multi and scripts", cmds: cmds(mbs("SET k v", "MULTI", "DEBUG DIGEST-VALUE k", "DEBUG PROTOCOL integer", "EXEC"),
		cmd("EVAL", "return redis.pcall('debug','digest')", "0"))},
	{name: "debug command info", cmds: mbs("COMMAND INFO debug", "COMMAND GETKEYS DEBUG OBJECT k")},
}

// TestRedisDebugHelp: every line of Tandem's DEBUG HELP is one of
// redis-server's, in its order (Tandem lists only the subcommands it
// serves), and both start and end as Redis's help replies do.
func TestRedisDebugHelp(t *testing.T) {
	lines := func(addr string) []string {
		r := dialRESP(t, addr).do("DEBUG", "HELP")
		if r.kind != '*' {
			t.Fatalf("%s: DEBUG HELP: %q", addr, r.raw)
		}
		var out []string
		for _, e := range r.elems {
			out = append(out, e.text)
		}
		return out
	}
	want, got := lines(refRedis), lines(sutRedis)
	if got[0] != want[0] || got[len(got)-2] != "HELP" || got[len(got)-1] != want[len(want)-1] {
		t.Errorf("header or footer: %q ... %q", got[0], got[len(got)-2:])
	}
	j := 0
	for _, l := range got {
		for j < len(want) && want[j] != l {
			j++
		}
		if j == len(want) {
			t.Fatalf("line %q is not one of redis-server's, in its order", l)
		}
		j++
	}
}

func TestRedisLolwut(t *testing.T) { runRedisCases(t, lolwutCases) }

// Schotter's first two rows of squares are drawn without randomness: up
// to two squares per column the art is exact; beyond, and for the
// skyline, each server's own random numbers tilt the squares and light the
// windows, so those are compared by shape (randomArt).
var lolwutCases = []redisCase{
	{name: "lolwut", cmds: mbs("LOLWUT", "lolwut 5", "LOLWUT VERSION", "LOLWUT VERSION 7", "LOLWUT VERSION 7 1 2 3", "LOLWUT foo bar",
		"LOLWUT VERSION -1", "LOLWUT VERSION 4294967301 10 2 2", "LOLWUT VERSION 0")},
	{name: "lolwut 5 exact", cmds: mbs("LOLWUT VERSION 5 66 8 2", "LOLWUT VERSION 5 10 3 1", "LOLWUT VERSION 5 1 1 1", "LOLWUT VERSION 5 0 0 0",
		"LOLWUT VERSION 5 7 2 2", "LOLWUT VERSION 5 33 5 2", "LOLWUT VERSION 5 2 1 1", "LOLWUT VERSION 5 3 7 2", "LOLWUT version 5 -5 -5 -5",
		"LOLWUT VERSION 5 1000 200 2", "LOLWUT VERSION 5 99999 999 1")},
	{name: "lolwut 5 random", cmds: mbs("LOLWUT VERSION 5", "LOLWUT VERSION 5 40", "LOLWUT VERSION 5 20 4 6"),
		loose: at(0, randomArt, 1, randomArt, 2, randomArt)},
	{name: "lolwut 6", cmds: mbs("LOLWUT VERSION 6", "LOLWUT VERSION 6 10 5", "LOLWUT VERSION 6 1 1", "LOLWUT VERSION 6 0 -3", "LOLWUT VERSION 6 33"),
		loose: at(0, randomArt, 1, randomArt, 2, randomArt, 3, randomArt, 4, randomArt)},
	{name: "lolwut errors", cmds: mbs("LOLWUT VERSION x", "LOLWUT VERSION 5 x", "LOLWUT VERSION 5 1 x", "LOLWUT VERSION 5 1 1 x",
		"LOLWUT VERSION 6 x", "LOLWUT VERSION 6 1 x", "LOLWUT VERSION 99999999999999999999")},
	{name: "lolwut in multi and scripts", cmds: cmds(mbs("MULTI", "LOLWUT", "LOLWUT VERSION 5 1 1 1", "EXEC"),
		cmd("EVAL", "return redis.call('lolwut')", "0"), cmd("EVAL", "return redis.call('lolwut','version','5','4','1','1')", "0"))},
	{name: "lolwut command info", cmds: mbs("COMMAND INFO lolwut")},
}

func TestRedisClientPause(t *testing.T) { runRedisCases(t, pauseCases) }

// On one connection a pause only delays: the replies are compared.
var pauseCases = []redisCase{
	{name: "client pause arguments", cmds: mbs("CLIENT PAUSE", "CLIENT PAUSE x", "CLIENT PAUSE 1.5", "CLIENT PAUSE -1", "CLIENT PAUSE 10 foo",
		"CLIENT PAUSE x foo", "CLIENT PAUSE -1 foo", "CLIENT PAUSE 10 WRITE x", "client pause 0", "CLIENT PAUSE 0 write",
		"CLIENT PAUSE 9223372036854775807", "CLIENT PAUSE 99999999999999999999", "SET k v", "CLIENT UNPAUSE", "CLIENT UNPAUSE x")},
	{name: "client pause delays", noSplit: true, cmds: mbs("CLIENT PAUSE 60 WRITE", "GET k", "SET k v", "GET k", "CLIENT PAUSE 60", "PING",
		"CLIENT PAUSE 60 all", "MULTI", "SET k w", "EXEC", "CLIENT UNPAUSE")},
	// Redis keeps the dataset still during a pause: an expired key reads
	// as missing but stays until the pause is over. (Not RANDOMKEY: with
	// only expired keys left, redis-server 7.0 loops forever in it during
	// a pause.)
	{name: "client pause keeps expired keys", noSplit: true, cmds: cmds(mbs("DEBUG SET-ACTIVE-EXPIRE 0", "SET k v PX 20", "SET j v PX 20"),
		pause(60*time.Millisecond), mbs("CLIENT PAUSE 100000 WRITE", "GET k", "EXISTS k j", "DBSIZE", "SCAN 0", "DBSIZE",
			"CLIENT UNPAUSE", "DBSIZE", "GET k", "DBSIZE", "DEBUG SET-ACTIVE-EXPIRE 1"))},
	{name: "client unblock arguments", cmds: mbs("CLIENT UNBLOCK", "CLIENT UNBLOCK x", "CLIENT UNBLOCK 1 foo", "CLIENT UNBLOCK x foo",
		"CLIENT UNBLOCK 999999", "CLIENT UNBLOCK -5 error", "CLIENT UNBLOCK 0 TIMEOUT", "CLIENT UNBLOCK 1 TIMEOUT x")},
	{name: "client pause in multi and scripts", cmds: cmds(mbs("MULTI", "CLIENT PAUSE 10", "CLIENT UNPAUSE", "EXEC"),
		cmd("EVAL", "return redis.pcall('client','pause','10')", "0"), cmd("EVAL", "return redis.pcall('client','unblock','1')", "0"))},
	{name: "client pause command info", cmds: mbs("COMMAND INFO client|pause client|unpause client|unblock")},
	// may_replicate: Redis's COMMAND INFO hides it, its read-only scripts
	// refuse the commands that have it.
	{name: "may-replicate commands", cmds: cmds(mbs("COMMAND INFO publish spublish pfcount eval evalsha fcall"),
		cmd("EVAL_RO", "return redis.pcall('publish','ch','m')", "0"), cmd("EVAL_RO", "return redis.pcall('pfcount','h')", "0"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn redis.pcall('publish','ch','m')", "0"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn redis.pcall('pfcount','h')", "0"))},
}

// pauseScenarios are played like the blocking ones (blocking_test.go): a
// paused client counts as blocked in both servers, so bBlocked orders the
// steps. Under PAUSE ALL, INFO waits too: those scenarios pause instead.
var pauseScenarios = []blockScenario{
	{name: "pause write holds writes", conns: 4, steps: []blockStep{
		bDo(1, "CLIENT PAUSE 100000 WRITE"), bDo(2, "GET k"), bSend(2, "SET k v"), bBlocked(1), bDo(3, "GET k"), bDo(3, "DBSIZE"),
		bDo(1, "CLIENT UNPAUSE"), bRead(2), bDo(3, "GET k"), bBlocked(0),
	}},
	{name: "pause write pipeline", conns: 3, steps: []blockStep{
		bDo(1, "CLIENT PAUSE 100000 WRITE"), bSendRaw(2, cmd("GET", "k")+cmd("INCR", "k")+cmd("GET", "k")), bBlocked(1), bRead(2),
		bDo(1, "CLIENT UNPAUSE"), bRead(2), bRead(2),
	}},
	{name: "pause write multi", conns: 3, steps: []blockStep{
		bDo(1, "CLIENT PAUSE 100000 WRITE"), bDo(2, "MULTI"), bDo(2, "GET k"), bSend(2, "SET k v"), bBlocked(1),
		bDo(1, "CLIENT UNPAUSE"), bRead(2), bDo(2, "EXEC"), bDo(1, "MULTI"), bDo(1, "GET k"), bDo(1, "EXEC"),
	}},
	{name: "pause write exec of writes", conns: 3, steps: []blockStep{
		bDo(2, "MULTI"), bDo(2, "SET k v"), bDo(1, "CLIENT PAUSE 100000 WRITE"), bSend(2, "EXEC"), bBlocked(1), bDo(1, "GET k"),
		bDo(1, "CLIENT UNPAUSE"), bRead(2),
	}},
	{name: "pause write scripts and may-replicate", conns: 4, steps: []blockStep{
		bDo(1, "CLIENT PAUSE 100000 WRITE"), bSendRaw(2, cmd("EVAL", "return 1", "0")), bBlocked(1),
		bSendRaw(3, cmd("EVAL", "#!lua flags=no-writes\nreturn 2", "0")), bRead(3), bSendRaw(3, cmd("EVAL_RO", "return 3", "0")), bRead(3),
		bSend(3, "PUBLISH ch m"), bBlocked(2), bSend(1, "PFCOUNT h"), bBlocked(3), bDo(0, "CLIENT UNPAUSE"), bRead(2), bRead(3), bRead(1),
	}},
	{name: "pause write blocking command", conns: 3, steps: []blockStep{
		bDo(1, "CLIENT PAUSE 100000 WRITE"), bSend(2, "BLPOP l 0"), bBlocked(1), bDo(1, "CLIENT UNPAUSE"), bBlocked(1),
		bDo(1, "RPUSH l a"), bRead(2),
	}},
	{name: "pause all holds everything", conns: 4, steps: []blockStep{
		bDo(1, "CLIENT PAUSE 300 ALL"), bSend(2, "PING"), bSend(3, "CLIENT UNPAUSE"), bSend(1, "GET k"), bRead(2), bRead(3), bRead(1),
	}},
	{name: "pause ends by itself", conns: 3, steps: []blockStep{
		bDo(1, "CLIENT PAUSE 200 WRITE"), bSend(2, "SET k v"), bBlocked(1), bRead(2), bBlocked(0), bDo(1, "GET k"),
	}},
}

func TestRedisClientPauseScenarios(t *testing.T) {
	for _, sc := range pauseScenarios {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/resp%d", sc.name, proto), func(t *testing.T) {
				for _, a := range []string{refRedis, sutRedis} {
					if err := flushRedis(a); err != nil {
						t.Fatal(err)
					}
				}
				// A scenario that fails half way must not leave a pause
				// behind for the cases after it.
				defer both(func(addr string) error { _, err := controlFor(addr).roundTrip(cmd("CLIENT", "UNPAUSE")); return err }, refRedis, sutRedis)
				ref, sut := both(func(addr string) []string { return playBlocking(addr, sc, proto) }, refRedis, sutRedis)
				for i := range ref {
					if strings.HasPrefix(ref[i], "error: ") {
						t.Fatalf("step %d on redis-server: %s (the scenario is wrong)", i, ref[i])
					}
					if i >= len(sut) || sut[i] != ref[i] {
						got := "<missing>"
						if i < len(sut) {
							got = sut[i]
						}
						t.Fatalf("step %d %v (conn %d): differs\n  redis:  %q\n  %s: %q", i, sc.steps[i].args, sc.steps[i].conn, ref[i], sideName(), got)
					}
				}
			})
		}
	}
}

// TestRedisClientUnblock: CLIENT UNBLOCK of a client blocked on a list
// and a sorted set, TIMEOUT and ERROR, and of clients not blocked; the
// ids are each server's, so this plays its own transcript.
func TestRedisClientUnblock(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			for _, a := range []string{refRedis, sutRedis} {
				if err := flushRedis(a); err != nil {
					t.Fatal(err)
				}
			}
			ref, sut := both(func(addr string) []string { return playUnblock(t, addr, proto) }, refRedis, sutRedis)
			for i := range ref {
				if i >= len(sut) || sut[i] != ref[i] {
					t.Fatalf("step %d differs:\n  redis:  %q\n  %s: %q", i, ref[i], sideName(), sut[i])
				}
			}
		})
	}
}

func playUnblock(t *testing.T, addr string, proto int) []string {
	admin, b := dialRESP(t, addr), dialRESP(t, addr)
	if proto == 3 {
		admin.do("HELLO", "3")
		b.do("HELLO", "3")
	}
	id := b.do("CLIENT", "ID").text
	admin.do("CONFIG", "RESETSTAT") // the errorstats at the end are this transcript's
	var out []string
	note := func(r reply) { out = append(out, string(r.raw)) }
	waitBlocked := func(n int) {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if strings.Contains(admin.do("INFO", "clients").text, "blocked_clients:"+strconv.Itoa(n)+"\r\n") {
				return
			}
		}
		out = append(out, "error: blocked_clients never reached "+strconv.Itoa(n))
	}
	note(admin.do("CLIENT", "UNBLOCK", id)) // not blocked
	for _, c := range []struct{ block, reason []string }{
		{[]string{"BLPOP", "l", "0"}, nil},
		{[]string{"BLPOP", "l", "100"}, []string{"TIMEOUT"}},
		{[]string{"BRPOP", "a", "b", "0"}, []string{"error"}},
		{[]string{"BZPOPMIN", "z", "0"}, []string{"ERROR"}},
		{[]string{"BLMOVE", "l", "m", "LEFT", "RIGHT", "0"}, nil},
		{[]string{"BZMPOP", "0", "1", "z", "MIN"}, []string{"TIMEOUT"}},
		{[]string{"BLMPOP", "0", "1", "l", "LEFT"}, []string{"ERROR"}},
	} {
		b.conn.Write([]byte(cmd(c.block...)))
		waitBlocked(1)
		note(admin.do(append([]string{"CLIENT", "UNBLOCK", id}, c.reason...)...))
		rep, err := readReply(b.r)
		if err != nil {
			out = append(out, "error: "+err.Error())
			return out
		}
		note(rep)
		note(b.do("PING"))
	}
	note(admin.do("CLIENT", "UNBLOCK", id, "ERROR"))
	// Only the UNBLOCKED error count: the others are the whole suite's
	// history on each server.
	for _, line := range strings.Split(admin.do("INFO", "errorstats").text, "\r\n") {
		if strings.HasPrefix(line, "errorstat_UNBLOCKED:") {
			out = append(out, line)
		}
	}
	return out
}

// TestCrossProtoClientPause (Tandem only): a Redis client's CLIENT PAUSE
// holds back memcached requests too, writes under WRITE and everything
// under ALL, and CLIENT UNPAUSE lets them through in order.
func TestCrossProtoClientPause(t *testing.T) {
	mustNotSelfTest(t)
	if err := flushRedis(sutRedis); err != nil {
		t.Fatal(err)
	}
	r := dialRESP(t, sutRedis)
	defer r.do("CLIENT", "UNPAUSE")
	m := dialMemc(t, sutMemc)
	m.do("set k 0 0 1\r\na\r\n")
	// silent reports whether nothing comes back within d.
	silent := func(d time.Duration) bool {
		m.conn.SetReadDeadline(time.Now().Add(d))
		_, err := m.r.Peek(1)
		return err != nil
	}
	r.do("CLIENT", "PAUSE", "100000", "WRITE")
	if got := m.do("get k\r\n"); got != "VALUE k 0 1\r\na\r\nEND\r\n" {
		t.Fatalf("get under PAUSE WRITE: %q", got)
	}
	m.conn.Write([]byte("set k 0 0 1\r\nb\r\nget k\r\nmn\r\n"))
	if !silent(200 * time.Millisecond) {
		t.Fatal("a memcached set was answered during PAUSE WRITE")
	}
	if info := r.do("GET", "k"); string(info.raw) != "$1\r\na\r\n" {
		t.Fatalf("the held-back set ran: %q", info.raw)
	}
	r.do("CLIENT", "UNPAUSE")
	m.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if got, err := readUntilMN(m.r); err != nil || string(got) != "STORED\r\nVALUE k 0 1\r\nb\r\nEND\r\n" {
		t.Fatalf("after CLIENT UNPAUSE: %q, %v", got, err)
	}
	r.do("CLIENT", "PAUSE", "300", "ALL")
	start := time.Now()
	if got := m.do("get k\r\n"); got != "VALUE k 0 1\r\nb\r\nEND\r\n" || time.Since(start) < 250*time.Millisecond {
		t.Fatalf("get under PAUSE ALL: %q after %v", got, time.Since(start))
	}
}

func TestRedisFunctionDump(t *testing.T) { runRedisCases(t, functionDumpCases()) }

// Libraries for FUNCTION DUMP and RESTORE; every case starts and ends
// with FUNCTION FLUSH (FLUSHALL leaves functions alone).
const (
	fdLibA = "#!lua name=liba\nredis.register_function('fa', function(keys, args) return 'a' end)"
	fdLibB = "#!lua name=libb\nredis.register_function{function_name='fb', callback=function() return 'b' end, flags={'no-writes'}, description='bee'}"
	// fdLibA2 is liba again, with another function.
	fdLibA2 = "#!lua name=liba\nredis.register_function('fa2', function() return 'a2' end)"
	// fdLibC's function is named as liba's.
	fdLibC = "#!lua name=libc\nredis.register_function('fa', function() return 'c' end)"
)

func functionDumpCases() []redisCase {
	payload := func(codes ...string) string {
		bs := make([][]byte, len(codes))
		for i, c := range codes {
			bs[i] = []byte(c)
		}
		return string(rdb.AppendFunctionsDump(nil, bs, rdb.DumpOptions{Compress: true}))
	}
	flush := mbs("FUNCTION FLUSH")
	// A key's DUMP payload: a well framed record that is no library.
	kp, err := rdb.AppendDump(nil, &rdb.Value{Type: rdb.String, Str: []byte("v")}, rdb.DumpOptions{})
	if err != nil {
		panic(err)
	}
	keyPayload := string(kp)
	// One library's payload is the same bytes in both servers; several
	// come in each server's order, so their FUNCTION LIST is compared as
	// a set.
	return []redisCase{
		{name: "function dump", cmds: cmds(flush, mbs("FUNCTION DUMP"), cmd("FUNCTION", "LOAD", fdLibA), mbs("FUNCTION DUMP", "CONFIG SET rdbcompression no",
			"FUNCTION DUMP", "CONFIG SET rdbcompression yes", "FUNCTION DUMP x"), flush)},
		{name: "function restore policies", cmds: cmds(flush, cmd("FUNCTION", "LOAD", fdLibA),
			cmd("FUNCTION", "RESTORE", payload(fdLibA)), cmd("FUNCTION", "RESTORE", payload(fdLibA), "APPEND"),
			cmd("FUNCTION", "RESTORE", payload(fdLibA2), "REPLACE"), mbs("FUNCTION LIST", "FCALL fa2 0", "FCALL fa 0"),
			cmd("FUNCTION", "RESTORE", payload(fdLibB), "append"), cmd("FUNCTION", "RESTORE", payload(fdLibA), "FLUSH"),
			mbs("FUNCTION LIST WITHCODE", "FCALL fa 0", "FCALL fb 0"), cmd("FUNCTION", "RESTORE", payload()), cmd("FUNCTION", "RESTORE", payload(), "FLUSH"),
			mbs("FUNCTION LIST"), flush)},
		{name: "function restore collisions", cmds: cmds(flush, cmd("FUNCTION", "LOAD", fdLibA),
			cmd("FUNCTION", "RESTORE", payload(fdLibC)), cmd("FUNCTION", "RESTORE", payload(fdLibC), "REPLACE"),
			cmd("FUNCTION", "RESTORE", payload(fdLibB, fdLibB), "FLUSH"), cmd("FUNCTION", "RESTORE", payload(fdLibB, fdLibC, fdLibA), "FLUSH"),
			cmd("FUNCTION", "RESTORE", payload(fdLibB, fdLibA), "REPLACE"), mbs("FUNCTION LIST"), flush),
			loose: at(7, sortedArray)},
		{name: "function restore bad payloads", cmds: cmds(flush, mbs("SET k v"), cmd("FUNCTION", "RESTORE", "x"),
			cmd("FUNCTION", "RESTORE", payload(fdLibA)[:20]), cmd("FUNCTION", "RESTORE", payload("no metadata")),
			cmd("FUNCTION", "RESTORE", payload("#!lua name=x\nreturn 1")), cmd("FUNCTION", "RESTORE", payload("#!lua\nx")),
			cmd("FUNCTION", "RESTORE", payload("#!js name=x\nx")), cmd("FUNCTION", "RESTORE", payload(fdLibA), "nosuch"),
			cmd("FUNCTION", "RESTORE", payload(fdLibA), "FLUSH", "x"), mbs("FUNCTION RESTORE"), cmd("FUNCTION", "RESTORE", keyPayload),
			cmd("FUNCTION", "RESTORE", payload(fdLibA)+"\xf5"), mbs("FUNCTION LIST"), flush)},
		{name: "function restore in multi and scripts", cmds: cmds(flush, mbs("MULTI"), cmd("FUNCTION", "RESTORE", payload(fdLibA)),
			mbs("FUNCTION DUMP", "EXEC", "FCALL fa 0"), cmd("EVAL", "return redis.pcall('function','dump')", "0"), flush), loose: at(4, anyBulk)},
		{name: "function dump command info", cmds: mbs("COMMAND INFO function|dump function|restore")},
	}
}

// TestFunctionDumpInterchange: a FUNCTION DUMP of redis-server restores
// into Tandem and the reverse; the libraries then list and run the same.
func TestFunctionDumpInterchange(t *testing.T) {
	mustNotSelfTest(t)
	ref, sut := dialRESP(t, refRedis), dialRESP(t, sutRedis)
	defer ref.do("FUNCTION", "FLUSH")
	defer sut.do("FUNCTION", "FLUSH")
	list := func(c *respClient) string {
		r := c.do("FUNCTION", "LIST", "WITHCODE")
		libs := make([]string, len(r.elems))
		for i, e := range r.elems {
			libs[i] = string(e.raw)
		}
		sort.Strings(libs)
		return strings.Join(libs, "")
	}
	for _, dir := range []struct {
		name     string
		from, to *respClient
	}{{"redis to tandem", ref, sut}, {"tandem to redis", sut, ref}} {
		for _, compression := range []string{"yes", "no"} {
			dir.from.do("FUNCTION", "FLUSH")
			dir.to.do("FUNCTION", "FLUSH")
			dir.from.do("CONFIG", "SET", "rdbcompression", compression)
			for _, lib := range []string{fdLibA, fdLibB, "#!lua name=big\n" + strings.Repeat("-- a comment to compress\n", 50) + "redis.register_function('big', function() return 'big' end)"} {
				if r := dir.from.do("FUNCTION", "LOAD", lib); r.isError() {
					t.Fatalf("%s: FUNCTION LOAD: %q", dir.name, r.raw)
				}
			}
			p := dir.from.do("FUNCTION", "DUMP")
			if r := dir.to.do("FUNCTION", "RESTORE", p.text); string(r.raw) != "+OK\r\n" {
				t.Fatalf("%s (rdbcompression %s): FUNCTION RESTORE: %q", dir.name, compression, r.raw)
			}
			if a, b := list(dir.from), list(dir.to); a != b {
				t.Errorf("%s (rdbcompression %s): FUNCTION LIST differs:\n  from: %q\n  to:   %q", dir.name, compression, a, b)
			}
			for _, fn := range []string{"fa", "fb", "big"} {
				if a, b := dir.from.do("FCALL", fn, "0"), dir.to.do("FCALL", fn, "0"); string(a.raw) != string(b.raw) {
					t.Errorf("%s: FCALL %s: %q and %q", dir.name, fn, a.raw, b.raw)
				}
			}
			dir.from.do("CONFIG", "SET", "rdbcompression", "yes")
		}
	}
}

func TestRedisConfigRewriteErrors(t *testing.T) {
	// Both servers of the suite run without a config file.
	runRedisCases(t, []redisCase{{name: "config rewrite without a file", cmds: mbs("CONFIG REWRITE", "CONFIG REWRITE x", "config rewrite")}})
}

// TestConfigRewriteMatchesRedis: redis-server and Tandem started from the
// same file, given the same CONFIG SETs, rewrite it alike: every line the
// file had, in place, as Redis writes it; the lines they append (Redis in
// its dictionary's order) compared as a set. Only the port and Tandem's
// own directives (memcached-*) differ.
func TestConfigRewriteMatchesRedis(t *testing.T) {
	mustNotSelfTest(t)
	const file = "# Configuration for the CONFIG REWRITE test\n" +
		"maxmemory 100mb\n" +
		"\n\n" +
		"save 900 1\n" +
		"save 300 10\n" +
		"appendonly no\n" +
		"  hz 10\n" +
		"timeout 0\n" +
		"notify-keyspace-events \"\"\n" +
		"rename-command FLUSHDB \"\"\n" +
		"list-max-ziplist-entries 128\n" +
		"slave-read-only yes\n" +
		"bind 127.0.0.1\n" +
		"dbfilename \"dump file.rdb\"\n" +
		"maxmemory-policy noeviction\n" +
		"hash-max-ziplist-entries 64\n" +
		"requirepass \"\"\n"
	redisBin, err := realserver.Lookup(realserver.Redis)
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func(name string, argv func(path, dir string, p []int) []string, nports int) string {
		dir := t.TempDir()
		path := filepath.Join(dir, "server.conf")
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := startServer(dir, name, nports, func(p []int) []string { return argv(path, dir, p) })
		if s != nil {
			defer s.stop()
		}
		if err != nil {
			t.Fatal(err)
		}
		c := dialRESP(t, s.addrs[0])
		for _, set := range [][]string{{"maxmemory", "200mb"}, {"save", "60 5"}, {"hz", "15"}, {"timeout", "30"},
			{"notify-keyspace-events", "KEA"}, {"maxmemory-clients", "5%"}, {"client-output-buffer-limit", "pubsub 64mb 16mb 90"},
			{"list-max-listpack-size", "64"}, {"hash-max-listpack-entries", "100"}, {"zset-max-listpack-value", "1000"},
			{"slowlog-max-len", "1000"}} {
			if r := c.do(append([]string{"CONFIG", "SET"}, set...)...); string(r.raw) != "+OK\r\n" {
				t.Fatalf("%s: CONFIG SET %v: %q", name, set, r.raw)
			}
		}
		if r := c.do("CONFIG", "REWRITE"); string(r.raw) != "+OK\r\n" {
			t.Fatalf("%s: CONFIG REWRITE: %q", name, r.raw)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The same directory names in both files.
		return strings.ReplaceAll(string(b), dir, "<dir>")
	}
	ref := rewrite("rewrite-redis", func(path, dir string, p []int) []string {
		return []string{redisBin, path, "--port", strconv.Itoa(p[0]), "--dir", dir}
	}, 1)
	sut := rewrite("rewrite-tandem", func(path, dir string, p []int) []string {
		return []string{tandemBin, path, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]), "--dir", dir}
	}, 2)
	split := func(content string) (head string, tail []string) {
		head, rest, _ := strings.Cut(content, "# Generated by CONFIG REWRITE\n")
		for _, l := range strings.Split(rest, "\n") {
			switch {
			case l == "", strings.HasPrefix(l, "memcached-"):
			case strings.HasPrefix(l, "port "):
				tail = append(tail, "port <port>")
			default:
				tail = append(tail, l)
			}
		}
		sort.Strings(tail)
		return head, tail
	}
	rh, rt := split(ref)
	sh, st := split(sut)
	if rh != sh {
		t.Errorf("the file's own lines differ:\nredis:\n%s\ntandem:\n%s", rh, sh)
	}
	if strings.Join(rt, "\n") != strings.Join(st, "\n") {
		t.Errorf("the appended lines differ:\nredis:\n%s\ntandem:\n%s", strings.Join(rt, "\n"), strings.Join(st, "\n"))
	}
}
