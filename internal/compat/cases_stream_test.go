package compat

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Stream commands: every command, option and error, in both protocols.
// IDs are explicit wherever the reply shows them: an auto ID ("*") is the
// server's clock, so replies holding one are compared by shape (anyBulk).

func TestRedisStreamAdd(t *testing.T)    { runRedisCases(t, streamAddCases) }
func TestRedisStreamRange(t *testing.T)  { runRedisCases(t, streamRangeCases) }
func TestRedisStreamTrim(t *testing.T)   { runRedisCases(t, streamTrimCases) }
func TestRedisStreamRead(t *testing.T)   { runRedisCases(t, streamReadCases) }
func TestRedisStreamKeys(t *testing.T)   { runRedisCases(t, streamKeyCases) }
func TestRedisStreamBlocks(t *testing.T) { runRedisCases(t, streamBlockCases()) }
func TestRedisStreamGroups(t *testing.T) { runRedisCases(t, streamGroupCases) }
func TestRedisStreamClaim(t *testing.T)  { runRedisCases(t, streamClaimCases) }
func TestRedisStreamInfo(t *testing.T)   { runRedisCases(t, streamInfoCases) }
func TestRedisStreamDump(t *testing.T)   { runRedisCases(t, streamDumpCases) }

// streamDumpCases: a stream's DUMP payload is redis-server's byte for
// byte (its listpack nodes, groups and PELs; delivery and seen times are
// the servers' clocks, so group payloads with a PEL compare by shape).
var streamDumpCases = []redisCase{
	{name: "dump stream", cmds: cmds(sfixture, mbs("DUMP s", "XDEL s 2-0", "DUMP s", "XADD s 6-0 "+strings.Repeat("long", 10)+" v", "DUMP s", "CONFIG SET rdbcompression no", "DUMP s", "CONFIG SET rdbcompression yes"))},
	{name: "dump stream nodes", cmds: cmds(mbs("CONFIG SET stream-node-max-entries 2"), sfixture, mbs("DUMP s", "XTRIM s MAXLEN 3", "DUMP s", "CONFIG SET stream-node-max-entries 100"))},
	{name: "dump stream groups", cmds: cmds(gfixture, mbs("XGROUP CREATE s h $ ENTRIESREAD 5", "XGROUP CREATECONSUMER s g c", "DUMP s", "XREADGROUP GROUP g a COUNT 2 STREAMS s >", "DUMP s")), loose: at(8, anyBulk, 10, anyBulk)},
	{name: "dump empty stream", cmds: mbs("XADD s 1-1 f v", "XDEL s 1-1", "DUMP s", "XGROUP CREATE e g $ MKSTREAM", "DUMP e")},
}

// TestRedisStreamRestoreBothWays restores each server's DUMP of streams
// into the other and compares what both then answer.
func TestRedisStreamRestoreBothWays(t *testing.T) {
	setup := cmds(mbs("CONFIG SET stream-node-max-entries 3"), sfixture, mbs("XDEL s 2-0", "XGROUP CREATE s g 0", "XGROUP CREATE s h $", "XREADGROUP GROUP g a COUNT 2 STREAMS s >", "XREADGROUP GROUP g b STREAMS s >", "XACK s g 1-2", "CONFIG SET stream-node-max-entries 100"))
	checks := [][]string{{"XRANGE", "s", "-", "+"}, {"XINFO", "GROUPS", "s"}, {"XPENDING", "s", "g", "-", "+", "10"}, {"XINFO", "STREAM", "s"}, {"XADD", "s", "7-0", "f", "v"}, {"XTRIM", "s", "MAXLEN", "~", "2"}, {"XLEN", "s"}}
	for _, dir := range [][2]string{{refRedis, sutRedis}, {sutRedis, refRedis}} {
		for _, a := range []string{refRedis, sutRedis} {
			if err := flushRedis(a); err != nil {
				t.Fatal(err)
			}
		}
		from, to := dialRESP(t, dir[0]), dialRESP(t, dir[1])
		from.pipeline(setup)
		payload := from.do("DUMP", "s")
		if r := to.do("RESTORE", "s", "0", payload.text); string(r.raw) != "+OK\r\n" {
			t.Fatalf("RESTORE of %s's payload into %s: %q", dir[0], dir[1], r.raw)
		}
		for _, c := range checks {
			want, got := from.do(c...), to.do(c...)
			if c[0] == "XPENDING" { // idle times
				continue
			}
			if string(want.raw) != string(got.raw) {
				t.Errorf("%s -> %s: %v: source %q, restored %q", dir[0], dir[1], c, want.raw, got.raw)
			}
		}
	}
}

// sfixture is a stream of five entries with mixed fields.
var sfixture = mbs("XADD s 1-1 a 1", "XADD s 1-2 a 2 b 3", "XADD s 2-0 a 3", "XADD s 3-5 c 4", "XADD s 5-0 a 5")

var streamAddCases = []redisCase{
	{name: "xadd explicit ids", cmds: mbs("XADD s 1-1 f v", "XADD s 1-2 f v g w", "XADD s 2 f v", "XADD s 2-* f v", "XADD s 3-* f v", "XADD s 3-* f v", "XLEN s", "TYPE s", "OBJECT ENCODING s", "XRANGE s - +")},
	{name: "xadd id errors", cmds: mbs("XADD s 0-0 f v", "XADD s 0 f v", "EXISTS s", "XADD s 0-* f v", "XADD s 0-* f v", "XADD s 5-5 f v", "XADD s 5-5 f v", "XADD s 5-4 f v", "XADD s 4-* f v", "XADD s 5-* f v", "XRANGE s - +")},
	{name: "xadd bad ids", cmds: cmds(mbs("XADD s abc f v", "XADD s 1-x f v", "XADD s - f v", "XADD s + f v", "XADD s 1- f v", "XADD s -1 f v", "XADD s 1-2-3 f v", "XADD s 18446744073709551616 f v", "XADD s *-1 f v", "XADD s 1-** f v", "EXISTS s"),
		cmd("XADD", "s", " 7", "f", "v"), cmd("XADD", "s", "+8", "f", "v"), cmd("XADD", "s", "009-01", "f", "v"), cmd("XADD", "s", "-0", "f", "v"), cmd("XADD", "s", "10-1\x00junk", "f", "v"), cmd("XADD", "s", "", "f", "v"),
		cmd("XADD", "s", "18446744073709551615-18446744073709551615", "f", "v"), mbs("XADD s 1-1 f v", "XRANGE s - +"))},
	{name: "xadd exhausted", cmds: mbs("XADD s 18446744073709551615-18446744073709551614 f v", "XADD s 18446744073709551615-* f v", "XADD s 18446744073709551615-* f v", "XADD s * f v", "XLEN s")},
	{name: "xadd seq star overflow", cmds: mbs("XADD s 5-18446744073709551615 f v", "XADD s 5-* f v", "XADD s 6-* f v", "XRANGE s - +")},
	{name: "xadd auto id", cmds: mbs("XADD s * f v", "XADD s * f v", "XLEN s", "XADD s 99999999999999-0 f v", "XADD s * f v", "XRANGE s 99999999999999 +"), loose: at(0, anyBulk, 1, anyBulk)},
	{name: "xadd arity", cmds: mbs("XADD s", "XADD s *", "XADD s * f", "XADD s * f v g", "XADD s 1-1 f", "XADD s NOMKSTREAM * f", "XADD s MAXLEN 1 * f", "EXISTS s")},
	{name: "xadd nomkstream", cmds: mbs("XADD s NOMKSTREAM 1-1 f v", "EXISTS s", "XADD s 1-1 f v", "XADD s NOMKSTREAM 1-2 f v", "xadd s nomkstream nomkstream 1-3 f v", "XLEN s")},
	{name: "xadd options order", cmds: mbs("XADD s 1-1 f v", "XADD s MAXLEN 5 NOMKSTREAM 1-2 f v", "XADD s NOMKSTREAM MINID 1-2 1-3 f v", "XRANGE s - +", "XADD s MAXLEN 5 MINID 1 1-4 f v", "XADD s MINID 1 MAXLEN 5 1-4 f v", "XADD s MAXLEN -1 1-4 f v", "XADD s MAXLEN x 1-4 f v", "XADD s MINID x 1-4 f v", "XADD s MINID - 1-4 f v", "XADD s MINID + 1-4 f v")},
	{name: "xadd limit errors", cmds: mbs("XADD s LIMIT 10 1-1 f v", "XADD s MAXLEN 1 LIMIT 10 1-1 f v", "XADD s MAXLEN = 1 LIMIT 10 1-1 f v", "XADD s MAXLEN ~ 1 LIMIT -1 1-1 f v", "XADD s MAXLEN ~ 1 LIMIT x 1-1 f v", "XADD s LIMIT 0 1-1 f v", "XADD s MAXLEN 1 LIMIT 0 1-2 f v", "XADD s MAXLEN ~ 1 LIMIT 0 1-3 f v", "XLEN s")},
	{name: "xadd option as last argument", cmds: mbs("XADD s MAXLEN", "XADD s 1-1 MAXLEN", "XADD s MAXLEN 1", "XADD s LIMIT", "XADD s NOMKSTREAM", "XADD s MAXLEN ~", "XADD s MAXLEN ~ 1", "XADD s MAXLEN = 1 1-1")},
	{name: "xadd star with nul", cmds: cmds(cmd("XADD", "s", "MAXLEN", "~\x00", "5", "1-1", "f", "v"), cmd("XADD", "s", "maxlen\x00x", "5", "1-2", "f", "v"), mbs("XLEN s"))},
	{name: "xadd fields", cmds: mbs("XADD s 1-1 a 1 b 2", "XADD s 1-2 b 2 a 1", "XADD s 1-3 a 1 b 2 c 3", "XADD s 1-4 a 1", "XADD s 1-5 a x b y", "XADD s 1-6 123 -45 a 1", "XADD s 1-7 f v f w", "XRANGE s - +", "XREVRANGE s + -")},
	{name: "xadd empty fields and values", cmds: cmds(cmd("XADD", "s", "1-1", "", ""), cmd("XADD", "s", "1-2", "f", ""), cmd("XADD", "s", "1-3", "", "v"), mbs("XRANGE s - +"))},
	{name: "xadd wrong type", cmds: mbs("SET str v", "XADD str 1-1 f v", "XADD str NOMKSTREAM 1-1 f v", "XADD str 0-0 f v", "XADD str abc f v", "XLEN str", "XRANGE str - +", "XDEL str 1-1", "XTRIM str MAXLEN 0", "XSETID str 1-1", "GET str")},
	{name: "other commands on a stream", cmds: mbs("XADD s 1-1 f v", "GET s", "LPUSH s a", "HGET s f", "SADD s a", "ZADD s 1 a", "INCR s", "APPEND s x", "TYPE s", "XLEN s")},
	{name: "xlen", cmds: mbs("XLEN nosuch", "XADD s 1-1 f v", "XADD s 2-1 f v", "XLEN s", "XDEL s 1-1", "XLEN s", "XDEL s 2-1", "XLEN s", "EXISTS s", "TYPE s")},
	{name: "xdel", cmds: cmds(sfixture, mbs("XDEL s 1-2", "XDEL s 1-2", "XDEL s 1-1 2-0 9-9 2-0", "XRANGE s - +", "XDEL nosuch 1-1", "XDEL nosuch abc", "XDEL s abc", "XDEL s 3-5 abc", "XDEL s 3", "XDEL s -", "XDEL s +", "XRANGE s - +", "XDEL s 5-0 3-5", "XLEN s", "EXISTS s", "XRANGE s - +"))},
	{name: "xdel arity", cmds: mbs("XDEL s", "XDEL")},
	{name: "xsetid", cmds: mbs("XSETID nosuch 1-1", "XADD s 5-5 f v", "XSETID s 5-4", "XSETID s 5-5", "XADD s 5-5 f v", "XSETID s 10-0", "XADD s 9-9 f v", "XADD s 10-* f v", "XSETID s 10-1 ENTRIESADDED 1", "XSETID s 10-1 ENTRIESADDED 5 MAXDELETEDID 10-2", "XSETID s 10-1 ENTRIESADDED 5 MAXDELETEDID 3-0", "XSETID s 10-1 ENTRIESADDED -1", "XSETID s 10-1 ENTRIESADDED x", "XSETID s 10-1 MAXDELETEDID x", "XSETID s 10-1 FOO 1", "XSETID s 10-1 ENTRIESADDED", "XSETID s abc", "XSETID s -", "XSETID s +", "XSETID s 20")},
	{name: "xsetid empty stream", cmds: mbs("XADD s 5-5 f v", "XDEL s 5-5", "XSETID s 1-1", "XSETID s 0-0 ENTRIESADDED 0", "XADD s 0-1 f v", "XLEN s", "XSETID s 0 MAXDELETEDID 0-0", "XSETID s 1 MAXDELETEDID 2")},
	{name: "xsetid arity", cmds: mbs("XSETID s", "XSETID")},
}

var streamRangeCases = []redisCase{
	{name: "xrange bounds", cmds: cmds(sfixture, mbs("XRANGE s - +", "XRANGE s 1 1", "XRANGE s 1-2 3", "XRANGE s 2 3-5", "XRANGE s 3-6 4", "XRANGE s 5 -", "XRANGE s + -", "XRANGE s 0 18446744073709551615", "XRANGE s 18446744073709551615 +"))},
	{name: "xrange exclusive", cmds: cmds(sfixture, mbs("XRANGE s (1-1 +", "XRANGE s - (5-0", "XRANGE s (1-1 (5-0", "XRANGE s (1 5", "XRANGE s (2-0 (3-5", "XRANGE s (3-5 (3-6", "XRANGE s (- +", "XRANGE s - (+", "XRANGE s (18446744073709551615-18446744073709551615 +", "XRANGE s - (0-0", "XRANGE s ( +", "XRANGE s (abc +", "XRANGE s - (x"))},
	{name: "xrevrange", cmds: cmds(sfixture, mbs("XREVRANGE s + -", "XREVRANGE s 3 1", "XREVRANGE s (5 (1-1", "XREVRANGE s 5 5", "XREVRANGE s 1-2 1-2", "XREVRANGE s - +", "XREVRANGE s + - COUNT 2", "XREVRANGE s 3 - COUNT 1", "XREVRANGE s (- +", "XREVRANGE s (+ -"))},
	{name: "xrange count", cmds: cmds(sfixture, mbs("XRANGE s - + COUNT 2", "XRANGE s - + COUNT 0", "XRANGE s - + COUNT -1", "XRANGE s - + COUNT 100", "XRANGE s - + count 1 COUNT 3", "XRANGE s - + COUNT x", "XRANGE s - + COUNT", "XRANGE s - + FOO 1", "XRANGE nosuch - + COUNT 0", "XRANGE s x + COUNT 0", "XRANGE s - + COUNT 1 FOO"))},
	{name: "xrange bad ids", cmds: cmds(sfixture, mbs("XRANGE s abc +", "XRANGE s - abc", "XRANGE s 1-x +", "XRANGE s -1 +", "XRANGE nosuch abc +", "XRANGE s 1-2-3 +"), cmd("XRANGE", "s", "1\x00-5", "+"), cmd("XRANGE", "s", strings.Repeat("1", 128), "+"), cmd("XRANGE", "s", " 2", "+"))},
	{name: "xrange missing key", cmds: mbs("XRANGE nosuch - +", "XREVRANGE nosuch + -")},
	{name: "xrange after deletes", cmds: cmds(sfixture, mbs("XDEL s 1-1 3-5", "XRANGE s - +", "XREVRANGE s + -", "XRANGE s - + COUNT 1", "XREVRANGE s + - COUNT 1", "XRANGE s 3 4"))},
	{name: "xrange arity", cmds: mbs("XRANGE s -", "XREVRANGE s +", "XRANGE")},
}

var streamTrimCases = []redisCase{
	{name: "xtrim maxlen exact", cmds: cmds(sfixture, mbs("XTRIM s MAXLEN 3", "XRANGE s - +", "XTRIM s MAXLEN = 3", "XTRIM s MAXLEN 10", "XTRIM s MAXLEN 0", "XLEN s", "EXISTS s", "XADD s 6-0 f v", "XRANGE s - +"))},
	{name: "xtrim minid exact", cmds: cmds(sfixture, mbs("XTRIM s MINID 2", "XRANGE s - +", "XTRIM s MINID = 3-5", "XTRIM s MINID 3-6", "XRANGE s - +", "XTRIM s MINID 0", "XTRIM s MINID 18446744073709551615", "XLEN s"))},
	{name: "xtrim errors", cmds: mbs("XTRIM s", "XTRIM s FOO", "XTRIM s MAXLEN", "XTRIM s MAXLEN x", "XTRIM s MAXLEN -1", "XTRIM s MINID x", "XTRIM s MINID -", "XTRIM s LIMIT 5", "XTRIM s MAXLEN 1 LIMIT 5", "XTRIM s MAXLEN 1 MINID 1", "XTRIM s MAXLEN 1 FOO", "XTRIM s NOMKSTREAM MAXLEN 1", "XTRIM nosuch MAXLEN 0", "XTRIM s MAXLEN ~ 1 LIMIT -1", "XTRIM s MAXLEN ~")},
	{name: "xtrim approx whole blocks", cmds: cmds(mbs("CONFIG SET stream-node-max-entries 3"), sfixture, mbs("XADD s 6-0 a 6", "XADD s 7-0 a 7", "XTRIM s MAXLEN ~ 5", "XLEN s", "XTRIM s MAXLEN ~ 4", "XLEN s", "XRANGE s - +", "XTRIM s MINID ~ 7", "XRANGE s - +", "XTRIM s MAXLEN ~ 0", "XLEN s", "CONFIG SET stream-node-max-entries 100"))},
	{name: "xtrim approx limit", cmds: cmds(mbs("CONFIG SET stream-node-max-entries 2"), sfixture, mbs("XADD s 6-0 a 6", "XADD s 7-0 a 7", "XTRIM s MAXLEN ~ 0 LIMIT 3", "XLEN s", "XTRIM s MAXLEN ~ 0 LIMIT 4", "XLEN s", "XTRIM s MINID ~ 9 LIMIT 1", "XTRIM s MINID ~ 9 LIMIT 0", "XLEN s", "CONFIG SET stream-node-max-entries 100"))},
	{name: "xtrim exact inside a block", cmds: cmds(mbs("CONFIG SET stream-node-max-entries 4"), sfixture, mbs("XADD s 6-0 a 6", "XTRIM s MAXLEN 4", "XRANGE s - +", "XDEL s 3-5", "XTRIM s MINID 5-0", "XRANGE s - +", "XADD s 7-0 a 7", "XTRIM s MAXLEN 1", "XRANGE s - +", "CONFIG SET stream-node-max-entries 100"))},
	{name: "xadd with trim", cmds: cmds(sfixture, mbs("XADD s MAXLEN 2 6-0 a 6", "XRANGE s - +", "XADD s MINID 6-0 7-0 a 7", "XRANGE s - +", "XADD s MAXLEN 0 8-0 a 8", "XLEN s", "EXISTS s", "XADD s MAXLEN ~ 0 9-0 a 9", "XLEN s"))},
	{name: "xadd approx trim blocks", cmds: cmds(mbs("CONFIG SET stream-node-max-entries 2"), mbs("XADD s MAXLEN ~ 3 1-0 a 1", "XADD s MAXLEN ~ 3 2-0 a 1", "XADD s MAXLEN ~ 3 3-0 a 1", "XADD s MAXLEN ~ 3 4-0 a 1", "XADD s MAXLEN ~ 3 5-0 a 1", "XADD s MAXLEN ~ 3 6-0 a 1", "XLEN s", "XRANGE s - +", "CONFIG SET stream-node-max-entries 100"))},
	{name: "node max bytes", cmds: cmds(mbs("CONFIG SET stream-node-max-bytes 100"), mbs("XADD s 1-0 field "+strings.Repeat("v", 30), "XADD s 2-0 field "+strings.Repeat("v", 30), "XADD s 3-0 field "+strings.Repeat("v", 30), "XADD s 4-0 other 12345", "XADD s 5-0 field 1", "XADD s 6-0 field 1", "XTRIM s MAXLEN ~ 0", "XLEN s", "XTRIM s MAXLEN ~ 1", "XLEN s", "CONFIG SET stream-node-max-bytes 4096"))},
	{name: "node limits zero", cmds: cmds(mbs("CONFIG SET stream-node-max-entries 0", "CONFIG SET stream-node-max-bytes 0"), mbs("XADD s 1-0 a 1", "XADD s 2-0 a 1", "XADD s 3-0 a 1", "XTRIM s MAXLEN ~ 1", "XLEN s", "XTRIM s MAXLEN ~ 0", "XLEN s", "CONFIG SET stream-node-max-entries 100", "CONFIG SET stream-node-max-bytes 4096"))},
}

var streamReadCases = []redisCase{
	{name: "xread", cmds: cmds(sfixture, mbs("XADD t 1-0 x y", "XREAD STREAMS s 0", "XREAD STREAMS s 2", "XREAD STREAMS s 5", "XREAD STREAMS s t 3 0", "XREAD COUNT 2 STREAMS s t 0 0", "XREAD STREAMS nosuch s 0 4-9", "XREAD STREAMS s $", "XREAD STREAMS nosuch $", "XREAD count 1 streams s s 0 1-1", "XREAD STREAMS s 18446744073709551615-18446744073709551615"))},
	{name: "xread errors", cmds: cmds(sfixture, mbs("XREAD STREAMS s", "XREAD STREAMS s t 0", "XREAD s 0", "XREAD COUNT x STREAMS s 0", "XREAD COUNT -5 STREAMS s 0", "XREAD BLOCK x STREAMS s 0", "XREAD BLOCK -1 STREAMS s 0", "XREAD BLOCK 1.5 STREAMS s 0", "XREAD GROUP g c STREAMS s 0", "XREAD NOACK STREAMS s 0", "XREAD STREAMS s >", "XREAD STREAMS s +", "XREAD STREAMS s -", "XREAD STREAMS s abc", "XREAD STREAMS nosuch abc", "XREAD FOO STREAMS s 0", "XREAD COUNT 1", "XREAD STREAMS", "XREAD BLOCK", "XREAD STREAMS s 1-x"))},
	{name: "xread wrong type", cmds: mbs("SET str v", "XADD s 1-1 f v", "XREAD STREAMS s str 0 0", "XREAD STREAMS str s abc 0", "XREAD STREAMS s str 0 abc", "XREAD STREAMS nosuch str abc 0")},
	{name: "xread block served at once", cmds: cmds(sfixture, mbs("XREAD BLOCK 0 STREAMS s 0", "XREAD BLOCK 100 COUNT 1 STREAMS nosuch s $ 3"))},
	{name: "xread block timeout", cmds: mbs("XADD s 1-1 f v", "XREAD BLOCK 10 STREAMS s $", "XREAD BLOCK 10 STREAMS nosuch 0", "XREAD BLOCK 10 STREAMS s 1-1")},
	{name: "xread in multi", cmds: mbs("XADD s 1-1 f v", "MULTI", "XREAD BLOCK 0 STREAMS s $", "XREAD BLOCK 0 STREAMS s 0", "XREAD STREAMS s $", "EXEC")},
	{name: "xread in scripts", cmds: mbs("XADD s 1-1 f v", "EVAL \"return redis.call('XREAD','STREAMS','s','0')\" 1 s", "EVAL \"return redis.pcall('XREAD','BLOCK','0','STREAMS','s','$')\" 1 s", "EVAL \"return redis.pcall('xread','block','0','STREAMS','s','0')\" 1 s")},
}

var streamKeyCases = []redisCase{
	{name: "type encoding scan", cmds: mbs("XADD s 1-1 f v", "SET str v", "TYPE s", "OBJECT ENCODING s", "SCAN 0 TYPE stream", "SCAN 0 TYPE STREAM COUNT 100", "SCAN 0 TYPE string")},
	{name: "empty stream stays", cmds: mbs("XADD s 1-1 f v", "XDEL s 1-1", "EXISTS s", "TYPE s", "XLEN s", "XRANGE s - +", "XADD s 1-1 f v", "XADD s 1-2 f v", "XREAD STREAMS s 0", "DEL s", "EXISTS s")},
	{name: "copy rename move", cmds: cmds(sfixture, mbs("COPY s c", "XADD c 9-0 a 9", "XLEN s", "XLEN c", "RENAME c r", "XRANGE r 5 +", "EXISTS c", "MOVE r 1", "SELECT 1", "XRANGE r - +", "XADD r 10-0 z z", "SELECT 0", "COPY s r DB 1", "COPY s r DB 1 REPLACE", "SELECT 1", "XLEN r", "FLUSHDB", "SELECT 0"))},
	{name: "copy keeps ids", cmds: cmds(sfixture, mbs("XDEL s 5-0", "COPY s c", "XADD c 5-0 f v", "XADD c 5-1 f v", "XADD s 5-1 f v", "XRANGE c 4 +"))},
	{name: "watch", cmds: mbs("XADD s 1-1 f v", "WATCH s", "XRANGE s - +", "XLEN s", "XREAD STREAMS s 0", "MULTI", "PING", "EXEC", "WATCH s", "XDEL s 9-9", "XTRIM s MAXLEN 5", "MULTI", "PING", "EXEC", "WATCH s", "XADD s 2-2 f v", "MULTI", "PING", "EXEC", "WATCH s", "XDEL s 2-2", "MULTI", "PING", "EXEC", "WATCH s", "XSETID s 5-0", "MULTI", "PING", "EXEC")},
	{name: "xsetid order of checks", cmds: mbs("XSETID nosuch abc", "XSETID nosuch 1 ENTRIESADDED -1", "SET str v", "XSETID str 1", "XSETID str 1 FOO")},
}

// streamBlockCases checks that stream-node-max-entries splits blocks as
// Redis's nodes do, through XTRIM ~ on streams of many entries.
func streamBlockCases() []redisCase {
	var add []string
	for i := 1; i <= 250; i++ {
		v := strings.Repeat("x", i%37)
		if i%50 == 0 {
			add = append(add, fmt.Sprintf("XADD s %d-0 other %d", i, i))
		} else {
			add = append(add, fmt.Sprintf("XADD s %d-0 field %s", i, v))
		}
	}
	return []redisCase{
		{name: "default node limits", cmds: cmds(mbs(add...), mbs("XTRIM s MAXLEN ~ 200", "XLEN s", "XTRIM s MAXLEN ~ 120", "XLEN s", "XDEL s 150-0 151-0", "XTRIM s MINID ~ 180", "XLEN s", "XTRIM s MAXLEN ~ 10 LIMIT 20", "XLEN s", "XRANGE s - + COUNT 3")), noSplit: true},
		{name: "max bytes", cmds: cmds(mbs("CONFIG SET stream-node-max-bytes 500"), mbs(add...), mbs("XTRIM s MAXLEN ~ 200", "XLEN s", "XTRIM s MAXLEN ~ 120", "XLEN s", "XTRIM s MINID ~ 180", "XLEN s", "CONFIG SET stream-node-max-bytes 4096")), noSplit: true},
	}
}

func init() { notifyScenarios = append(notifyScenarios, streamNotifyScenarios...) }

// streamNotifyScenarios: the events of every stream write, and none from
// writes that change nothing.
var streamNotifyScenarios = []notifyScenario{
	{name: "stream group events", conns: 1, steps: nLines("XGROUP CREATE s g $ MKSTREAM", "XGROUP CREATE s g $", "XGROUP CREATECONSUMER s g a", "XGROUP CREATECONSUMER s g a", "XADD s 1-1 f v", "XREADGROUP GROUP g b STREAMS s >", "XGROUP SETID s g 0", "XCLAIM s g c 0 1-1", "XAUTOCLAIM s g d 0 0", "XACK s g 1-1", "XGROUP DELCONSUMER s g a", "XGROUP DELCONSUMER s g zz", "XGROUP DESTROY s g", "XGROUP DESTROY s g")},
	{name: "stream events", conns: 1, steps: nLines("XADD s 1-1 f v", "XADD s MAXLEN 1 2-0 f v", "XADD s MAXLEN 5 3-0 f v", "XDEL s 9-9", "XDEL s 3-0", "XTRIM s MAXLEN 5", "XADD s 4-0 f v", "XTRIM s MAXLEN 0", "XSETID s 10-0", "XADD s NOMKSTREAM 11-0 f v", "XADD n NOMKSTREAM 1-1 f v", "XSETID s 9-0", "DEL s")},
}

// TestRedisBlockingStream plays blocking XREAD scenarios on both servers.
func TestRedisBlockingStream(t *testing.T) {
	for _, sc := range streamBlockScenarios {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/resp%d", sc.name, proto), func(t *testing.T) {
				for _, a := range []string{refRedis, sutRedis} {
					if err := flushRedis(a); err != nil {
						t.Fatal(err)
					}
				}
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

var streamBlockScenarios = []blockScenario{
	{name: "xadd wakes xread", conns: 2, steps: []blockStep{
		bSend(1, "XREAD BLOCK 0 STREAMS s $"), bBlocked(1), bDo(0, "XADD s 1-1 f v"), bRead(1), bBlocked(0),
	}},
	{name: "xread fifo and ids", conns: 4, steps: []blockStep{
		bDo(0, "XADD s 1-1 f v"),
		bSend(1, "XREAD BLOCK 0 STREAMS s $"), bBlocked(1), bSend(2, "XREAD BLOCK 0 COUNT 1 STREAMS s 1-1"), bBlocked(2), bSend(3, "XREAD BLOCK 0 STREAMS x s $ 5-0"), bBlocked(3),
		bDo(0, "XADD s 2-0 a 1"), bRead(1), bRead(2), bBlocked(1), bDo(0, "XADD s 5-0 b 2"), bBlocked(1), bDo(0, "XADD s 5-1 c 3"), bRead(3),
	}},
	{name: "xread many keys", conns: 2, steps: []blockStep{
		bSend(1, "XREAD BLOCK 0 STREAMS a b c $ $ $"), bBlocked(1), bDo(0, "XADD c 1-1 f v"), bRead(1), bDo(0, "XADD a 2-2 g w"), bBlocked(0),
	}},
	// A stream whose last ID is past the one asked for, but whose entries
	// past it are deleted, blocks (Redis's streamLastValidID): no reply
	// with an empty array, then served by the next XADD.
	{name: "xread blocks past deleted entries", conns: 2, steps: []blockStep{
		bDo(0, "XADD s 666 f v"), bDo(0, "XADD s 667 f2 v2"), bDo(0, "XDEL s 667"), bSend(1, "XREAD BLOCK 30 STREAMS s 666"), bRead(1),
		bSend(1, "XREAD BLOCK 0 STREAMS s 665"), bRead(1), bSend(1, "XREAD BLOCK 0 STREAMS s 666"), bBlocked(1), bDo(0, "XADD s 668 k v"), bRead(1),
	}},
	{name: "xreadgroup blocks past deleted entries", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bDo(0, "XADD s 666 f v"), bDo(1, "XREADGROUP GROUP g a BLOCK 10 STREAMS s >"), bDo(0, "XADD s 667 f2 v2"), bDo(0, "XDEL s 667"),
		bSend(1, "XREADGROUP GROUP g a BLOCK 30 STREAMS s >"), bRead(1), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "XADD s 668 k v"), bRead(1),
	}},
	{name: "xread timeout", conns: 2, steps: []blockStep{
		bSend(1, "XREAD BLOCK 50 STREAMS s $"), bRead(1), bDo(0, "XADD s 1-1 f v"), bBlocked(0),
	}},
	{name: "xread served after exec", conns: 2, steps: []blockStep{
		bSend(1, "XREAD BLOCK 0 STREAMS s $"), bBlocked(1), bDo(0, "MULTI"), bDo(0, "XADD s 1-1 f v"), bDo(0, "XADD s 1-2 g w"), bDo(0, "EXEC"), bRead(1),
	}},
	{name: "xread served after script", conns: 2, steps: []blockStep{
		bSend(1, "XREAD BLOCK 0 STREAMS s $"), bBlocked(1), bSendRaw(0, cmd("EVAL", "redis.call('XADD','s','1-1','f','v') redis.call('XADD','s','1-2','g','w')", "1", "s")), bRead(0), bRead(1),
	}},
	{name: "xread not served by xdel or trim", conns: 2, steps: []blockStep{
		bDo(0, "XADD s 1-1 f v"), bSend(1, "XREAD BLOCK 0 STREAMS s $"), bBlocked(1), bDo(0, "XDEL s 1-1"), bDo(0, "XSETID s 5-0"), bBlocked(1), bDo(0, "XADD s 6-0 f v"), bRead(1),
	}},
	{name: "xread other types", conns: 3, steps: []blockStep{
		bSend(1, "XREAD BLOCK 0 STREAMS k $"), bBlocked(1), bSend(2, "BLPOP k 0"), bBlocked(2), bDo(0, "RPUSH k v"), bRead(2), bBlocked(1),
		bDo(0, "SET k s"), bDo(0, "DEL k"), bDo(0, "XADD k 1-1 f v"), bRead(1),
	}},
	{name: "xread disconnect", conns: 3, steps: []blockStep{
		bSend(1, "XREAD BLOCK 0 STREAMS s $"), bBlocked(1), bSend(2, "XREAD BLOCK 0 STREAMS s t $ $"), bBlocked(2), bClose(1), bClose(2), bBlocked(0), bDo(0, "XADD s 1-1 f v"),
	}},
	{name: "xread pipelined after blocking", conns: 2, steps: []blockStep{
		bSendRaw(1, cmd("XREAD", "BLOCK", "0", "STREAMS", "s", "$")+cmd("PING")+cmd("XLEN", "s")), bBlocked(1), bDo(0, "XADD s 1-1 f v"), bRead(1), bRead(1), bRead(1),
	}},
	{name: "rename onto waited stream", conns: 2, steps: []blockStep{
		bSend(1, "XREAD BLOCK 0 STREAMS k 0"), bBlocked(1), bDo(0, "XADD tmp 1-1 f v"), bDo(0, "RENAME tmp k"), bRead(1),
	}},
	{name: "xread default count when blocked", conns: 2, steps: []blockStep{
		bSend(1, "XREAD BLOCK 0 STREAMS s 0"), bBlocked(1), bSendRaw(0, cmd("EVAL", "for i=1,1005 do redis.call('XADD','s',i..'-1','f',i) end", "1", "s")), bRead(0), bRead(1), bDo(0, "XLEN s"),
	}},
}

// gfixture is sfixture with a group g at 0 and consumer reads.
var gfixture = cmds(sfixture, mbs("XGROUP CREATE s g 0"))

var streamGroupCases = []redisCase{
	{name: "xgroup create", cmds: cmds(sfixture, mbs("XGROUP CREATE s g 0", "XGROUP CREATE s g 0", "XGROUP CREATE s h $", "XGROUP CREATE s i 2-0 ENTRIESREAD 2", "XGROUP CREATE s j - ", "XGROUP CREATE s j +", "XGROUP CREATE s j abc", "XGROUP CREATE nosuch g 0", "XGROUP CREATE nosuch g $ MKSTREAM", "XLEN nosuch", "XINFO GROUPS nosuch", "XGROUP CREATE s k 0 ENTRIESREAD -2", "XGROUP CREATE s k 0 ENTRIESREAD x", "XGROUP CREATE s k 0 FOO", "XGROUP CREATE s k 0 ENTRIESREAD", "XGROUP CREATE s k 0 MKSTREAM ENTRIESREAD -1", "XINFO GROUPS s"))},
	{name: "xgroup create errors", cmds: mbs("SET str v", "XGROUP CREATE str g 0", "XGROUP CREATE str g 0 MKSTREAM", "XGROUP CREATE nosuch g abc MKSTREAM", "EXISTS nosuch", "XGROUP CREATE nosuch g 0 MKSTREAM MKSTREAM MKSTREAM MKSTREAM", "XGROUP CREATE k", "XGROUP", "XGROUP FOO k g", "XGROUP HELP", "XGROUP help x", "XGROUP CREATE s g 0 MKSTREAM", "XGROUP CREATE s g2 0 MKSTREAM MKSTREAM MKSTREAM MKSTREAM")},
	{name: "xgroup setid destroy consumers", cmds: cmds(gfixture, mbs("XGROUP SETID s g 3", "XGROUP SETID s g $", "XGROUP SETID s g - ENTRIESREAD 0", "XGROUP SETID s g + ", "XGROUP SETID s nog 0", "XGROUP SETID nosuch g 0", "XGROUP SETID s g 0 ENTRIESREAD", "XGROUP SETID s g 0 MKSTREAM", "XGROUP SETID s g abc", "XINFO GROUPS s", "XGROUP CREATECONSUMER s g alice", "XGROUP CREATECONSUMER s g alice", "XGROUP CREATECONSUMER s nog bob", "XGROUP DELCONSUMER s g bob", "XGROUP DELCONSUMER s g alice", "XGROUP DELCONSUMER nosuch g alice", "XGROUP DESTROY s g", "XGROUP DESTROY s g", "XGROUP DESTROY nosuch g", "XINFO GROUPS s"))},
	{name: "xreadgroup", cmds: cmds(gfixture, mbs("XREADGROUP GROUP g alice COUNT 2 STREAMS s >", "XREADGROUP GROUP g bob STREAMS s >", "XREADGROUP GROUP g bob STREAMS s >", "XREADGROUP GROUP g alice STREAMS s 0", "XREADGROUP GROUP g alice COUNT 1 STREAMS s 1-1", "XREADGROUP GROUP g carol STREAMS s 0", "XINFO GROUPS s", "XPENDING s g", "XADD s 9-0 z 9", "XREADGROUP GROUP g alice NOACK STREAMS s >", "XPENDING s g"))},
	{name: "xreadgroup errors", cmds: cmds(gfixture, mbs("SET str v", "XREADGROUP GROUP g c STREAMS s $", "XREADGROUP GROUP nog c STREAMS s >", "XREADGROUP GROUP g c STREAMS nosuch >", "XREADGROUP GROUP g c STREAMS str >", "XREADGROUP STREAMS s >", "XREADGROUP GROUP g STREAMS s >", "XREADGROUP GROUP g c STREAMS s abc", "XREADGROUP GROUP g c STREAMS s s > >", "XREADGROUP GROUP g c COUNT x STREAMS s >", "XREADGROUP GROUP g c NOACK NOACK STREAMS s", "XREADGROUP GROUP g c BLOCK 0 STREAMS s 0 x", "XREADGROUP GROUP g c STREAMS s +", "XREADGROUP GROUP g c STREAMS s -"))},
	{name: "xreadgroup deleted history", cmds: cmds(gfixture, mbs("XREADGROUP GROUP g a STREAMS s >", "XDEL s 1-2 3-5", "XREADGROUP GROUP g a STREAMS s 0", "XACK s g 1-2", "XREADGROUP GROUP g a COUNT 2 STREAMS s 0", "XINFO GROUPS s"))},
	{name: "xreadgroup in multi", cmds: cmds(gfixture, mbs("MULTI", "XREADGROUP GROUP g a BLOCK 0 STREAMS s >", "XREADGROUP GROUP g a BLOCK 0 STREAMS s >", "EXEC"))},
	{name: "xack", cmds: cmds(gfixture, mbs("XREADGROUP GROUP g a STREAMS s >", "XACK s g 1-1 1-1 2-0 9-9", "XACK s g abc", "XACK s nog abc", "XACK nosuch g abc", "XACK s g 3-5 abc", "XPENDING s g", "XACK s g 1-2 3-5 5-0", "XPENDING s g", "SET str v", "XACK str g 1-1"))},
	{name: "xpending extended", cmds: cmds(gfixture, mbs("XREADGROUP GROUP g a COUNT 2 STREAMS s >", "XREADGROUP GROUP g b STREAMS s >", "XPENDING s g - + 10", "XPENDING s g - + 10 a", "XPENDING s g - + 10 nobody", "XPENDING s g (1-1 + 2", "XPENDING s g - (3-5 10 b", "XPENDING s g IDLE 100000 - + 10", "XPENDING s g - + 0", "XPENDING s g - + -1"), mbs("XPENDING s g - + x", "XPENDING s g IDLE x - + 10", "XPENDING s g IDLE 10 - +", "XPENDING s g - +", "XPENDING s g x + 10", "XPENDING s g - x 10", "XPENDING s g (- + 10", "XPENDING s nog", "XPENDING nosuch g - + 10", "XPENDING s g - + 10 a b", "XPENDING s"), mbs("XPENDING s g - + 10 a")), loose: at(8, anyBulk, 9, anyBulk, 11, anyBulk, 12, anyBulk, 25, anyBulk, 27, anyBulk)},
}

var streamClaimCases = []redisCase{
	{name: "xclaim", cmds: cmds(gfixture, mbs("XREADGROUP GROUP g a STREAMS s >", "XCLAIM s g b 0 1-1 2-0", "XPENDING s g", "XCLAIM s g b 0 1-1 JUSTID", "XCLAIM s g c 3600000 1-2", "XCLAIM s g c 0 9-9 abc", "XCLAIM s g c 0 1-2 RETRYCOUNT 5 JUSTID", "XCLAIM s g c 0 1-2 FORCE", "XCLAIM s g c 0 3-5 9-9 LASTID 7-0", "XINFO GROUPS s", "XDEL s 5-0", "XCLAIM s g d 0 5-0", "XPENDING s g", "XCLAIM s g d 0 5-0 FORCE", "XCLAIM s g d 0 1-1 2-0 FORCE JUSTID", "XPENDING s g"))},
	{name: "xclaim force unread", cmds: cmds(gfixture, mbs("XCLAIM s g a 0 1-1 2-0 FORCE", "XPENDING s g", "XCLAIM s g a 100000 3-5 FORCE JUSTID", "XCLAIM s g b 100000 3-5", "XCLAIM s g b 0 3-5 TIME 1", "XCLAIM s g b 0 1-1 IDLE 5000000000000000", "XINFO CONSUMERS s g")), loose: at(12, anyBulk)},
	{name: "xclaim errors", cmds: cmds(gfixture, mbs("XCLAIM s g a x 1-1", "XCLAIM s nog a x 1-1", "XCLAIM nosuch g a 0 1-1", "XCLAIM s g a 0 1-1 IDLE x", "XCLAIM s g a 0 1-1 TIME x", "XCLAIM s g a 0 1-1 RETRYCOUNT x", "XCLAIM s g a 0 1-1 LASTID x", "XCLAIM s g a 0 1-1 FOO", "XCLAIM s g a 0 1-1 IDLE", "XCLAIM s g a 0 FORCE", "SET str v", "XCLAIM str g a 0 1-1", "XCLAIM s g a 0", "EXISTS s"))},
	{name: "xautoclaim", cmds: cmds(gfixture, mbs("XREADGROUP GROUP g a STREAMS s >", "XAUTOCLAIM s g b 0 0 COUNT 2", "XAUTOCLAIM s g b 0 (1-2 COUNT 2 JUSTID", "XAUTOCLAIM s g b 0 0", "XDEL s 1-2 3-5", "XAUTOCLAIM s g c 0 0 COUNT 1", "XAUTOCLAIM s g c 0 0", "XAUTOCLAIM s g c 3600000 0", "XPENDING s g", "XAUTOCLAIM s g c 0 9-9"))},
	{name: "xautoclaim errors", cmds: cmds(gfixture, mbs("XAUTOCLAIM s g a x 0", "XAUTOCLAIM s g a 0 x", "XAUTOCLAIM s g a 0 (18446744073709551615-18446744073709551615", "XAUTOCLAIM s g a 0 0 COUNT 0", "XAUTOCLAIM s g a 0 0 COUNT -1", "XAUTOCLAIM s g a 0 0 COUNT x", "XAUTOCLAIM s g a 0 0 COUNT 576460752303423487", "XAUTOCLAIM s g a 0 0 COUNT 576460752303423488", "XAUTOCLAIM s g a 0 0 FOO", "XAUTOCLAIM s nog a 0 0", "XAUTOCLAIM nosuch g a 0 0", "SET str v", "XAUTOCLAIM str g a 0 0", "XAUTOCLAIM str g a x 0"))},
}

var streamInfoCases = []redisCase{
	{name: "xinfo stream", cmds: cmds(sfixture, mbs("XINFO STREAM s", "XDEL s 1-1", "XINFO STREAM s", "XGROUP CREATE s g 0", "XINFO STREAM s", "XADD e 1-1 f v", "XDEL e 1-1", "XINFO STREAM e", "XINFO STREAM nosuch", "XINFO STREAM s FOO", "XINFO STREAM s FULL COUNT", "XINFO STREAM s FULL COUNT x", "XINFO STREAM s FULLL", "XINFO STREAM nosuch FOO"))},
	{name: "xinfo stream full", cmds: cmds(gfixture, mbs("XINFO STREAM s FULL", "XINFO STREAM s FULL COUNT 2", "XINFO STREAM s FULL COUNT 0", "XINFO STREAM s FULL COUNT -5"))},
	{name: "xinfo groups lag", cmds: cmds(gfixture, mbs("XINFO GROUPS s", "XREADGROUP GROUP g a COUNT 2 STREAMS s >", "XINFO GROUPS s", "XDEL s 3-5", "XINFO GROUPS s", "XREADGROUP GROUP g a STREAMS s >", "XINFO GROUPS s", "XADD s 6-0 f v", "XINFO GROUPS s", "XGROUP CREATE s h 2-0", "XGROUP CREATE s i 0 ENTRIESREAD 3", "XGROUP CREATE s j $", "XINFO GROUPS s", "XTRIM s MAXLEN 1", "XINFO GROUPS s", "XSETID s 9-0 ENTRIESADDED 20 MAXDELETEDID 8-0", "XINFO GROUPS s"))},
	{name: "xinfo consumers", cmds: cmds(gfixture, mbs("XINFO CONSUMERS s g", "XREADGROUP GROUP g b COUNT 1 STREAMS s >", "XREADGROUP GROUP g a STREAMS s >", "XINFO CONSUMERS s g", "XINFO CONSUMERS s nog", "XINFO CONSUMERS nosuch g", "XINFO CONSUMERS s", "XINFO HELP", "XINFO HELP x", "XINFO", "XINFO FOO s", "XINFO GROUPS s x", "SET str v", "XINFO GROUPS str", "XINFO STREAM str")), loose: at(9, anyBulk)},
}

var streamGroupBlockScenarios = []blockScenario{
	{name: "xreadgroup block", conns: 3, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bSend(2, "XREADGROUP GROUP g b BLOCK 0 STREAMS s >"), bBlocked(2),
		bDo(0, "XADD s 1-1 f v"), bRead(1), bBlocked(1), bDo(0, "XADD s 2-2 f v"), bRead(2), bDo(0, "XPENDING s g"),
	}},
	{name: "xreadgroup noack block", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 NOACK STREAMS s >"), bBlocked(1), bDo(0, "XADD s 1-1 f v"), bRead(1), bDo(0, "XPENDING s g"),
	}},
	{name: "xreadgroup group destroyed", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "XGROUP DESTROY s g"), bRead(1),
	}},
	// A blocked call that ends in an error is a failed call
	// (stream-cgroups.tcl's "XGROUP DESTROY should unblock XREADGROUP
	// with -NOGROUP"); the calls' times differ, so only the counts are
	// compared.
	{name: "xreadgroup unblocked failed call", conns: 2, steps: []blockStep{
		bDo(0, "CONFIG RESETSTAT"), bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "XGROUP DESTROY s g"), bRead(1),
		bDo(0, "DEL s"), bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "DEL s"), bRead(1),
		bDo(0, "INFO errorstats"), {conn: 0, args: []string{"EVAL", `return (string.gsub(redis.call('INFO','commandstats'):match('cmdstat_xreadgroup:[^\r]*'), 'usec[^,]*,', ''))`, "0"}},
	}},
	// A blocked XREADGROUP whose key stops being a stream is answered at
	// once, after the command that did it (Redis's
	// unblockDeletedStreamReadgroupClients); a blocked XREAD on the same
	// key keeps waiting.
	{name: "xreadgroup key deleted", conns: 4, steps: []blockStep{
		bDo(0, "CONFIG RESETSTAT"), bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1),
		bSend(2, "XREAD BLOCK 0 STREAMS s $"), bBlocked(2), bSend(3, "XREADGROUP GROUP g b BLOCK 0 STREAMS s >"), bBlocked(3),
		bDo(0, "DEL s"), bRead(1), bRead(3), bBlocked(1), bDo(0, "XADD s 1-1 f v"), bRead(2), bDo(0, "INFO errorstats"),
	}},
	{name: "xreadgroup key overwritten", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "SET s v"), bRead(1), bDo(0, "TYPE s"),
	}},
	{name: "xreadgroup key unlinked among several", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bDo(0, "XGROUP CREATE t g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s t > >"), bBlocked(1),
		bDo(0, "UNLINK t"), bRead(1), bDo(0, "XADD s 1-1 f v"), bDo(0, "XPENDING s g"),
	}},
	{name: "xreadgroup flushall", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "FLUSHALL"), bRead(1), bBlocked(0),
	}},
	{name: "xreadgroup flushdb", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "FLUSHDB"), bRead(1), bBlocked(0),
	}},
	{name: "xreadgroup other db flushed", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "SELECT 1"), bDo(0, "FLUSHDB"),
		bDo(0, "DEL s"), bBlocked(1), bDo(0, "SELECT 0"), bDo(0, "XADD s 1-1 f v"), bRead(1),
	}},
	{name: "xreadgroup key renamed away", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "RENAME s t"), bRead(1), bDo(0, "XINFO GROUPS t"),
	}},
	{name: "xreadgroup key moved away", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "MOVE s 1"), bRead(1),
	}},
	{name: "xreadgroup key replaced by a stream without the group", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bDo(0, "XADD t 1-1 f v"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "RENAME t s"), bRead(1),
	}},
	{name: "xreadgroup key replaced by a stream with the group", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bDo(0, "XADD t 1-1 f v"), bDo(0, "XGROUP CREATE t g 0"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1),
		bDo(0, "COPY t s REPLACE"), bRead(1), bDo(0, "XPENDING s g"),
	}},
	{name: "xreadgroup key swapped away", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "SWAPDB 0 1"), bRead(1), bDo(0, "SWAPDB 0 1"),
	}},
	{name: "xreadgroup key swapped for a list", conns: 2, steps: []blockStep{
		bDo(0, "SELECT 1"), bDo(0, "LPUSH s e1"), bDo(0, "SELECT 0"), bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1),
		bDo(0, "SWAPDB 0 1"), bRead(1), bDo(0, "TYPE s"), bDo(0, "SWAPDB 0 1"),
	}},
	{name: "xreadgroup key deleted and recreated in multi", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1),
		bDo(0, "MULTI"), bDo(0, "DEL s"), bDo(0, "XADD s 1-1 f v"), bDo(0, "EXEC"), bRead(1),
	}},
	{name: "xreadgroup key deleted and group recreated in multi", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1),
		bDo(0, "MULTI"), bDo(0, "DEL s"), bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bDo(0, "EXEC"), bBlocked(1), bDo(0, "XADD s 1-1 f v"), bRead(1),
	}},
	{name: "xreadgroup key deleted by a script", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1),
		bSendRaw(0, cmd("EVAL", "redis.call('DEL','s') redis.call('SADD','s','m')", "1", "s")), bRead(0), bRead(1),
	}},
	{name: "xreadgroup key expires", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), bBlocked(1), bDo(0, "PEXPIRE s 20"), bRead(1), bDo(0, "EXISTS s"),
	}},
	{name: "xreadgroup timeout", conns: 2, steps: []blockStep{
		bDo(0, "XGROUP CREATE s g $ MKSTREAM"), bSend(1, "XREADGROUP GROUP g a BLOCK 30 STREAMS s >"), bRead(1), bDo(0, "XINFO CONSUMERS s g"),
	}},
}

func init() { streamBlockScenarios = append(streamBlockScenarios, streamGroupBlockScenarios...) }

var _ = time.Millisecond
