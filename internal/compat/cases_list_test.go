package compat

import (
	"strconv"
	"strings"
	"testing"
)

// List commands: pushes and pops, ranges, indexes, LINSERT/LREM/LTRIM,
// LPOS, LMOVE, LMPOP, and the blocking commands on one connection (data
// already there, timeouts, errors). blocking_test.go covers what needs
// several connections.

func TestRedisLists(t *testing.T) { runRedisCases(t, listCases) }

// listSetup makes l a list and s a string.
var listSetup = mbs("RPUSH l a b c", "SET s v")

const wrongTypeLists = "LPUSH s x|RPUSH s x|LPUSHX s x|RPUSHX s x|LPOP s|RPOP s 1|LLEN s|LRANGE s 0 -1|LINDEX s 0|LSET s 0 x|LINSERT s BEFORE a x|LREM s 0 a|LTRIM s 0 1|LPOS s a|LMOVE s l LEFT LEFT|LMOVE l s LEFT LEFT|RPOPLPUSH s l|LMPOP 1 s LEFT|BLPOP s 0|BRPOP s 0|BLMOVE s l LEFT LEFT 0|BLMOVE l s LEFT LEFT 0|BRPOPLPUSH l s 0|BLMPOP 0 1 s LEFT"

var listCases = []redisCase{
	// Pushes.
	{name: "push", cmds: mbs("RPUSH l a b c", "LPUSH l x y", "LRANGE l 0 -1", "LLEN l", "TYPE l", "OBJECT ENCODING l")},
	{name: "pushx", cmds: mbs("LPUSHX l a", "RPUSHX l a b", "EXISTS l", "RPUSH l x", "LPUSHX l a b", "RPUSHX l c d", "LRANGE l 0 -1")},
	{name: "push arity", cmds: mbs("LPUSH l", "RPUSH", "LPUSHX l", "RPUSHX l")},
	{name: "push binary and empty", cmds: cmds(cmd("RPUSH", "l", "", "\x00\r\n", "\xff"), mbs("LRANGE l 0 -1", "LLEN l"), cmd("LPOS", "l", ""), cmd("LREM", "l", "0", ""), mbs("LLEN l"))},
	{name: "push integers", cmds: mbs("RPUSH l 1 -1 007 9223372036854775807 9223372036854775808 -0 1.5", "LRANGE l 0 -1", "LPOS l 7", "LPOS l 007", "LREM l 0 1", "LRANGE l 0 -1")},
	{name: "push large", cmds: cmds(cmd("RPUSH", "l", strings.Repeat("x", 10000), "small", strings.Repeat("y", 70000)), mbs("LLEN l", "OBJECT ENCODING l", "LINDEX l 1", "STRLEN l"), cmd("LPOS", "l", strings.Repeat("y", 70000))), noSplit: true},
	{name: "push many", cmds: cmds(cmd(append([]string{"RPUSH", "l"}, numbered(600)...)...), mbs("LLEN l", "LINDEX l 0", "LINDEX l 599", "LINDEX l -300", "LRANGE l 297 302", "OBJECT ENCODING l", "LTRIM l 100 -100", "LLEN l", "LINDEX l 0", "LINDEX l -1")), noSplit: true},

	// Pops.
	{name: "pop", cmds: mbs("RPUSH l a b c d", "LPOP l", "RPOP l", "LRANGE l 0 -1", "LPOP l", "LPOP l", "LPOP l", "EXISTS l")},
	{name: "pop count", cmds: mbs("RPUSH l a b c d e", "LPOP l 2", "RPOP l 2", "LPOP l 0", "RPOP l 0", "LPOP l 5", "EXISTS l")},
	{name: "pop count missing", cmds: mbs("LPOP l", "RPOP l", "LPOP l 0", "RPOP l 3", "LPOP l 1")},
	{name: "pop count errors", cmds: mbs("RPUSH l a", "LPOP l -1", "RPOP l x", "LPOP l 1.5", "LPOP l 1 2", "RPOP nosuch -1", "LPOP l 9223372036854775807", "EXISTS l")},

	// Reads.
	{name: "lrange", cmds: mbs("RPUSH l a b c d e", "LRANGE l 0 0", "LRANGE l -1 -1", "LRANGE l -100 100", "LRANGE l 3 1", "LRANGE l 5 10", "LRANGE l -2 -3", "LRANGE l 1 -2", "LRANGE l -9223372036854775808 9223372036854775807")},
	{name: "lrange errors", cmds: mbs("RPUSH l a", "LRANGE l a 1", "LRANGE l 0 b", "LRANGE nosuch x 1", "LRANGE nosuch 0 -1", "LRANGE l 0")},
	{name: "lindex", cmds: mbs("RPUSH l a b c", "LINDEX l 0", "LINDEX l -1", "LINDEX l 3", "LINDEX l -4", "LINDEX nosuch 0", "LINDEX nosuch x", "LINDEX l x", "LINDEX l 9223372036854775807", "LINDEX l -9223372036854775808")},
	{name: "llen", cmds: mbs("LLEN nosuch", "RPUSH l a b", "LLEN l", "LLEN l x")},

	// Changes in the middle.
	{name: "lset", cmds: mbs("RPUSH l a b c", "LSET l 0 x", "LSET l -1 z", "LSET l 1 a-longer-value", "LRANGE l 0 -1", "LSET l 3 v", "LSET l -4 v", "LSET nosuch 0 v", "LSET nosuch x v", "LSET l x v", "LSET s x v")},
	{name: "linsert", cmds: mbs("RPUSH l a b c", "LINSERT l BEFORE a x", "LINSERT l after c y", "LINSERT l After b z", "LRANGE l 0 -1", "LINSERT l before nosuch v", "LINSERT nosuch before a v", "LINSERT l middle a v", "LINSERT nosuch middle a v", "LINSERT l before", "EXISTS nosuch")},
	{name: "linsert duplicates", cmds: mbs("RPUSH l a b a b", "LINSERT l AFTER b x", "LINSERT l BEFORE a y", "LRANGE l 0 -1")},
	{name: "lrem", cmds: mbs("RPUSH l a b a c a b a", "LREM l 2 a", "LRANGE l 0 -1", "LREM l -1 a", "LRANGE l 0 -1", "LREM l 0 b", "LRANGE l 0 -1", "LREM l 0 nosuch", "LREM l 0 a", "LREM l 0 c", "EXISTS l")},
	{name: "lrem errors", cmds: mbs("RPUSH l a", "LREM l x a", "LREM nosuch x a", "LREM nosuch 0 a", "LREM l -9223372036854775808 a", "EXISTS l")},
	{name: "ltrim", cmds: mbs("RPUSH l a b c d e", "LTRIM l 1 -2", "LRANGE l 0 -1", "LTRIM l -2 100", "LRANGE l 0 -1", "LTRIM l 1 0", "EXISTS l", "LTRIM nosuch 0 1", "LTRIM nosuch a 1", "RPUSH l a", "LTRIM l 0 x")},

	// LPOS.
	{name: "lpos", cmds: mbs("RPUSH l a b c a b c a", "LPOS l a", "LPOS l c", "LPOS l z", "LPOS l a RANK 2", "LPOS l a RANK -1", "LPOS l a RANK -3", "LPOS l a RANK 4", "LPOS l a RANK -4")},
	{name: "lpos count maxlen", cmds: mbs("RPUSH l a b c a b c a", "LPOS l a COUNT 0", "LPOS l a COUNT 2", "LPOS l a COUNT 2 RANK 2", "LPOS l a COUNT 0 RANK -1", "LPOS l a COUNT 1 RANK 5", "LPOS l a MAXLEN 3", "LPOS l a MAXLEN 3 COUNT 0", "LPOS l a MAXLEN 1 RANK -1", "LPOS l c MAXLEN 1", "LPOS l a rank 1 count 1 maxlen 0", "LPOS l a COUNT 1 COUNT 0")},
	{name: "lpos errors", cmds: mbs("RPUSH l a", "LPOS l a RANK 0", "LPOS l a RANK x", "LPOS l a COUNT -1", "LPOS l a COUNT x", "LPOS l a MAXLEN -1", "LPOS l a MAXLEN x", "LPOS l a FOO", "LPOS l a RANK", "LPOS l a COUNT", "LPOS nosuch a RANK 0", "LPOS nosuch a", "LPOS nosuch a COUNT 1", "LPOS l")},
	{name: "lpos rank extremes", cmds: mbs("RPUSH l a b a", "LPOS l a RANK -9223372036854775808", "LPOS l a RANK -9223372036854775808 COUNT 5", "LPOS l a RANK 9223372036854775807", "LPOS l a RANK -9223372036854775807 COUNT 0", "LPOS l a COUNT 9223372036854775807")},

	// LMOVE, RPOPLPUSH.
	{name: "lmove", cmds: mbs("RPUSH src a b c", "LMOVE src dst LEFT RIGHT", "LMOVE src dst RIGHT LEFT", "LMOVE src dst left left", "LRANGE dst 0 -1", "EXISTS src", "LMOVE src dst LEFT RIGHT", "LMOVE dst dst LEFT RIGHT", "LRANGE dst 0 -1")},
	{name: "lmove same single", cmds: mbs("RPUSH l a", "LMOVE l l LEFT RIGHT", "RPOPLPUSH l l", "LRANGE l 0 -1")},
	{name: "lmove errors", cmds: mbs("RPUSH l a", "SET s v", "LMOVE l s LEFT RIGHT", "LMOVE s l LEFT RIGHT", "LMOVE nosuch s LEFT RIGHT", "LMOVE l d UP RIGHT", "LMOVE l d LEFT DOWN", "LMOVE nosuch d UP DOWN", "LMOVE l d LEFT", "LRANGE l 0 -1")},
	{name: "rpoplpush", cmds: mbs("RPUSH src a b", "RPOPLPUSH src dst", "RPOPLPUSH src dst", "RPOPLPUSH src dst", "LRANGE dst 0 -1", "RPOPLPUSH dst dst", "LRANGE dst 0 -1")},

	// LMPOP.
	{name: "lmpop", cmds: mbs("RPUSH b 1 2 3", "RPUSH c x", "LMPOP 3 a b c LEFT", "LMPOP 3 a b c RIGHT COUNT 10", "LMPOP 2 b c right count 1", "LMPOP 3 a b c LEFT", "EXISTS b c")},
	{name: "lmpop errors", cmds: mbs("RPUSH l a", "SET s v", "LMPOP 0 l LEFT", "LMPOP -1 l LEFT", "LMPOP x l LEFT", "LMPOP 2 l LEFT", "LMPOP 1 l MIDDLE", "LMPOP 1 l LEFT COUNT 0", "LMPOP 1 l LEFT COUNT -1", "LMPOP 1 l LEFT COUNT x", "LMPOP 1 l LEFT COUNT", "LMPOP 1 l LEFT COUNT 1 COUNT 2", "LMPOP 1 l LEFT FOO", "LMPOP 2 s l LEFT", "LMPOP 2 l s LEFT", "LMPOP 9223372036854775807 l LEFT", "LMPOP 1", "LLEN l")},

	// Blocking commands that need not block.
	{name: "blpop ready", cmds: mbs("RPUSH b 1 2", "RPUSH c 3", "BLPOP a b c 0", "BRPOP a b c 1", "BLPOP a b c 0.5", "EXISTS b c")},
	{name: "blmpop ready", cmds: mbs("RPUSH b 1 2 3", "BLMPOP 0 2 a b LEFT", "BLMPOP 1 2 a b RIGHT COUNT 5", "EXISTS b")},
	{name: "blmove ready", cmds: mbs("RPUSH src a b", "BLMOVE src dst LEFT RIGHT 0", "BRPOPLPUSH src dst 0", "LRANGE dst 0 -1", "BLMOVE dst dst RIGHT LEFT 0", "LRANGE dst 0 -1")},
	{name: "blocking wrong type", cmds: mbs("RPUSH l a b c", "SET s v", "BLPOP s l 0", "BLPOP nosuch s 0", "BRPOP l s 0", "BLMOVE s d LEFT LEFT 0", "BLMOVE l s LEFT LEFT 0", "BRPOPLPUSH s l 0", "BLMPOP 0 2 s l LEFT", "LLEN l")},

	// Timeouts.
	{name: "blocking timeouts", cmds: mbs("BLPOP a b 0.01", "BRPOP a 0.02", "BLMPOP 0.01 2 a b LEFT COUNT 2", "BLMOVE a b LEFT RIGHT 0.01", "BRPOPLPUSH a b 0.01", "EXISTS a b")},
	{name: "blocking tiny timeouts", cmds: mbs("BLPOP a 0.0001", "BLPOP a 0.001", "BLPOP a 1e-400", "BLPOP a 0x1p-20", "BLPOP a +0.001")},
	{name: "blocking timeout errors", cmds: mbs("BLPOP a abc", "BLPOP a -1", "BLPOP a -0.5", "BLPOP a inf", "BLPOP a -inf", "BLPOP a 1e30", "BLPOP a 1e400", "BLPOP a nan", "BRPOP a x", "BLMOVE a b LEFT RIGHT x", "BLMOVE a b LEFT RIGHT -1", "BRPOPLPUSH a b -1", "BLMPOP -1 1 a LEFT", "BLMPOP x 1 a LEFT")},
	{name: "blocking timeout errors raw", cmds: cmds(cmd("BLPOP", "a", " 1"), cmd("BLPOP", "a", "1 "), cmd("BLPOP", "a", ""))},
	{name: "blocking argument order", cmds: mbs("BLMOVE a b UP RIGHT x", "BLMOVE a b LEFT DOWN -1", "BLMPOP x 0 a LEFT", "BLMPOP x 1 a MIDDLE", "BLMPOP x 1 a LEFT COUNT 0", "BLMPOP x 2 a LEFT", "BLMPOP 0 1 a LEFT FOO", "BLMPOP 0 9223372036854775807 a LEFT")},
	{name: "blocking arity", cmds: mbs("BLPOP a", "BRPOP", "BLMOVE a b LEFT RIGHT", "BRPOPLPUSH a b", "BLMPOP 0 1 a")},

	// Wrong types, one command per key type.
	{name: "wrong type", cmds: cmds(listSetup, mbs(strings.Split(wrongTypeLists, "|")...), mbs("LRANGE l 0 -1"))},

	// Generic commands on lists.
	{name: "list generic", cmds: mbs("RPUSH l a b", "EXPIRE l 100", "TTL l", "RENAME l m", "LRANGE m 0 -1", "COPY m n", "RPUSH n c", "LRANGE m 0 -1", "LRANGE n 0 -1", "TYPE n", "DEL m n", "EXISTS m n"), loose: at(2, ttlApprox)},
	{name: "list emptied key gone", cmds: mbs("RPUSH l a", "EXPIRE l 100", "LPOP l", "TTL l", "RPUSH l b", "TTL l")},
	{name: "set over list", cmds: mbs("RPUSH l a", "SET l v", "TYPE l", "GET l", "LPUSH l x")},
}

// numbered returns "e0", "e1"… n elements.
func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "e" + strings.Repeat("0", i%3) + strconv.Itoa(i)
	}
	return out
}
