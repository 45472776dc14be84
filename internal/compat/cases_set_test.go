package compat

import (
	"strconv"
	"strings"
	"testing"
)

// Set commands: every command, option and error, in RESP2 and RESP3.
// Redis 7.0 holds a set as an intset (ascending, compared exactly) or a
// hashtable (arbitrary order: sortedArray). Random results (SPOP,
// SRANDMEMBER) are compared by shape (anyBulk) and followed by exact
// checks of what they must leave behind; random_set_test.go compares
// their membership.

func TestRedisSets(t *testing.T)       { runRedisCases(t, setCases) }
func TestRedisSetRandom(t *testing.T)  { runRedisCases(t, setRandomCases) }
func TestRedisSetAlgebra(t *testing.T) { runRedisCases(t, setAlgebraCases) }

// intsetLimit sets set-max-intset-entries; every case that uses it ends
// with resetIntsetLimit.
func intsetLimit(n int) string {
	return cmd("CONFIG", "SET", "set-max-intset-entries", strconv.Itoa(n))
}

var resetIntsetLimit = intsetLimit(512)

// setWrongType makes str a string and l a hash, keys of other types.
var setWrongType = mbs("SET str v", "HSET l f v")

// hashtableInts makes h a hashtable holding only the integers 1..10: a
// string member converted it, then left.
var hashtableInts = mbs("SADD h x 1 2 3 4 5 6 7 8 9 10", "SREM h x", "OBJECT ENCODING h")

var setCases = []redisCase{
	// SADD
	{name: "sadd new and existing", cmds: mbs("SADD s a b c", "SADD s a d", "SADD s a", "SCARD s", "TYPE s", "OBJECT ENCODING s")},
	{name: "sadd duplicates in one call", cmds: mbs("SADD s a a b b", "SCARD s", "SADD i 1 1 2", "SCARD i")},
	{name: "sadd integers make an intset", cmds: mbs("SADD s 3 1 2 -5 100000", "OBJECT ENCODING s", "SMEMBERS s")},
	{name: "sadd intset widths", cmds: mbs("SADD s 1", "SADD s 40000", "SADD s -3000000000", "SADD s 9223372036854775807 -9223372036854775808", "OBJECT ENCODING s", "SMEMBERS s", "SISMEMBER s 40000", "SISMEMBER s 40001", "SREM s 40000", "SMEMBERS s")},
	{name: "sadd non canonical integers", cmds: cmds(mbs("SADD s 01"), cmd("SADD", "s", "+1", "-0", " 1", "1 ", "1"), mbs("OBJECT ENCODING s", "SCARD s", "SISMEMBER s 1", "SISMEMBER s 01", "SISMEMBER s +1"))},
	{name: "sadd out of range integer is a string", cmds: mbs("SADD s 9223372036854775808", "OBJECT ENCODING s", "SADD t -9223372036854775809 1", "OBJECT ENCODING t")},
	{name: "sadd string converts for good", cmds: mbs("SADD s 1 2", "OBJECT ENCODING s", "SADD s x", "OBJECT ENCODING s", "SREM s x", "OBJECT ENCODING s", "SMEMBERS s"), loose: at(6, sortedArray)},
	{name: "sadd string first", cmds: mbs("SADD s x 1 2", "OBJECT ENCODING s", "SMEMBERS s"), loose: at(2, sortedArray)},
	{name: "sadd intset limit", cmds: cmds(intsetLimit(4), mbs("SADD s 1 2 3 4", "OBJECT ENCODING s", "SADD s 4", "OBJECT ENCODING s", "SADD s 5", "OBJECT ENCODING s", "SREM s 5 4", "OBJECT ENCODING s"), resetIntsetLimit)},
	{name: "sadd intset limit in one call", cmds: cmds(intsetLimit(2), mbs("SADD s 1 2 3", "OBJECT ENCODING s", "SADD t 1 2", "OBJECT ENCODING t"), resetIntsetLimit)},
	{name: "intset limit lowered later", cmds: cmds(mbs("SADD s 1 2 3"), intsetLimit(2), mbs("OBJECT ENCODING s", "SADD s 3", "OBJECT ENCODING s", "SREM s 3", "OBJECT ENCODING s", "SADD s 3", "OBJECT ENCODING s", "SADD s 4", "OBJECT ENCODING s"), resetIntsetLimit)},
	{name: "intset limit zero", cmds: cmds(intsetLimit(0), mbs("SADD s 1", "OBJECT ENCODING s", "SMEMBERS s"), resetIntsetLimit)},
	{name: "intset default limit", cmds: cmds(cmd(append([]string{"SADD", "s"}, setIntRange(1, 512)...)...), mbs("OBJECT ENCODING s", "SADD s 512", "OBJECT ENCODING s", "SADD s 513", "OBJECT ENCODING s", "SCARD s")), noSplit: true},
	{name: "sadd empty and binary members", cmds: cmds(cmd("SADD", "s", "", "\x00\r\n\xff"), cmd("SISMEMBER", "s", ""), cmd("SISMEMBER", "s", "\x00\r\n\xff"), mbs("SCARD s", "OBJECT ENCODING s"))},
	{name: "sadd long member", cmds: cmds(cmd("SADD", "s", strings.Repeat("m", 10000)), mbs("SCARD s", "SMEMBERS s", "OBJECT ENCODING s")), noSplit: true},
	{name: "sadd arity", cmds: mbs("SADD s", "SADD", "EXISTS s")},
	{name: "sadd clears nothing else", cmds: mbs("SADD s a", "EXPIRE s 100", "SADD s b", "TTL s"), loose: at(3, ttlApprox)},

	// SREM
	{name: "srem", cmds: mbs("SADD s a b c", "SREM s a nosuch", "SREM s a", "SCARD s", "SREM s b c", "EXISTS s")},
	{name: "srem missing key", cmds: mbs("SREM nosuch a", "EXISTS nosuch")},
	{name: "srem intset", cmds: mbs("SADD s 1 2 3", "SREM s x 01 +2", "SREM s 2 3", "SMEMBERS s", "OBJECT ENCODING s", "SREM s 1", "EXISTS s")},
	{name: "srem repeated member", cmds: mbs("SADD s a b", "SREM s a a", "SCARD s")},
	{name: "srem arity", cmds: mbs("SREM s", "SREM")},

	// SMEMBERS, SISMEMBER, SMISMEMBER, SCARD
	{name: "smembers missing", cmds: mbs("SMEMBERS nosuch")},
	{name: "smembers intset ascends", cmds: mbs("SADD s 10 -1 5 0 7", "SMEMBERS s")},
	{name: "smembers hashtable", cmds: mbs("SADD s b a c 1", "SMEMBERS s"), loose: at(1, sortedArray)},
	{name: "smembers hashtable of integers", cmds: cmds(hashtableInts, mbs("SMEMBERS h")), loose: at(3, sortedArray)},
	{name: "smembers arity", cmds: mbs("SMEMBERS", "SMEMBERS a b")},
	{name: "sismember", cmds: mbs("SADD s a 1", "SISMEMBER s a", "SISMEMBER s 1", "SISMEMBER s b", "SISMEMBER nosuch a", "SISMEMBER s", "SISMEMBER s a b")},
	{name: "smismember", cmds: mbs("SADD s a b", "SMISMEMBER s a x b a", "SMISMEMBER nosuch a b", "SMISMEMBER s", "SADD i 1 2", "SMISMEMBER i 1 01 x 2")},
	{name: "scard", cmds: mbs("SCARD nosuch", "SADD s a b", "SCARD s", "SADD i 1", "SCARD i", "SCARD", "SCARD s i")},

	// SMOVE
	{name: "smove", cmds: mbs("SADD a 1 2", "SMOVE a b 1", "SMEMBERS a", "SMEMBERS b", "OBJECT ENCODING b", "SMOVE a b 1", "SMOVE a b 2", "EXISTS a", "SMEMBERS b")},
	{name: "smove to existing member", cmds: mbs("SADD a x", "SADD b x y", "SMOVE a b x", "EXISTS a", "SCARD b")},
	{name: "smove string into intset", cmds: mbs("SADD a x y", "SADD b 1 2", "SMOVE a b x", "OBJECT ENCODING b", "SMEMBERS b", "OBJECT ENCODING a"), loose: at(4, sortedArray)},
	{name: "smove string creates hashtable", cmds: mbs("SADD a x 1", "SMOVE a n x", "OBJECT ENCODING n", "SMOVE a m 1", "OBJECT ENCODING m")},
	{name: "smove same key", cmds: mbs("SADD a 1", "SMOVE a a 1", "SMOVE a a 2", "SMEMBERS a")},
	{name: "smove missing source", cmds: cmds(setWrongType, mbs("SMOVE nosuch str m", "SMOVE nosuch b m", "EXISTS b"))},
	{name: "smove wrong types", cmds: cmds(setWrongType, mbs("SADD a 1", "SMOVE a str m", "SMOVE a str 1", "SMOVE str a 1", "SMOVE l nosuch 1", "SMEMBERS a"))},
	{name: "smove intset limit", cmds: cmds(intsetLimit(2), mbs("SADD a 3", "SADD b 1 2", "SMOVE a b 3", "OBJECT ENCODING b"), resetIntsetLimit)},
	{name: "smove arity", cmds: mbs("SMOVE a b", "SMOVE a b c d")},

	// SSCAN. A hashtable's batches depend on its hash seed: only cursor 0
	// of a one-member hashtable is compared here (random_set_test.go
	// compares whole iterations).
	{name: "sscan intset whole", cmds: mbs("SADD s 3 1 2 10 11", "SSCAN s 0", "SSCAN s 0 COUNT 1", "SSCAN s 5 COUNT 1", "SSCAN s -1", "SSCAN s 18446744073709551615")},
	{name: "sscan intset match", cmds: mbs("SADD s 3 1 2 10 11", "SSCAN s 0 MATCH 1*", "SSCAN s 0 COUNT 1 MATCH *1 COUNT 2", "SSCAN s 0 match [0-2]", "SSCAN s 0 MATCH *", "SSCAN s 0 MATCH nothing")},
	{name: "sscan small hashtable", cmds: mbs("SADD s abc", "SSCAN s 0", "SSCAN s 0 MATCH a*", "SSCAN s 0 MATCH z*", "SSCAN s 0 COUNT 100")},
	{name: "sscan missing", cmds: mbs("SSCAN nosuch 0", "SSCAN nosuch 0 COUNT 0", "SSCAN nosuch 0 FOO", "SSCAN nosuch 0 MATCH")},
	{name: "sscan bad cursor", cmds: mbs("SSCAN nosuch x", "SADD s 1", "SSCAN s x", "SSCAN s 18446744073709551616", "SSCAN s 1.5", "SSCAN s +1", "SSCAN s -")},
	{name: "sscan bad options", cmds: mbs("SADD s a", "SSCAN s 0 COUNT 0", "SSCAN s 0 COUNT -1", "SSCAN s 0 COUNT x", "SSCAN s 0 COUNT", "SSCAN s 0 MATCH", "SSCAN s 0 TYPE set", "SSCAN s 0 NOVALUES", "SSCAN s 0 FOO bar", "SSCAN s 0 COUNT 0 MATCH a")},
	{name: "sscan option words", cmds: cmds(mbs("SADD s a", "SSCAN s 0 count 5 match *"), cmd("SSCAN", "s", "0", "COUNT\x00x", "5"))},
	{name: "sscan wrong type", cmds: cmds(setWrongType, mbs("SSCAN str 0", "SSCAN str 0 COUNT 0", "SSCAN str x", "SSCAN l 0"))},
	{name: "sscan arity", cmds: mbs("SSCAN s", "SSCAN")},

	// The set commands on keys of other types.
	{name: "set commands wrong type", cmds: cmds(setWrongType, mbs(
		"SADD str a", "SREM str a", "SMEMBERS str", "SISMEMBER str a", "SMISMEMBER str a", "SCARD str",
		"SPOP str", "SPOP str 2", "SPOP str 0", "SRANDMEMBER str", "SRANDMEMBER str 2", "SRANDMEMBER str 0",
		"SINTER str", "SINTERCARD 1 str", "SUNION str", "SDIFF str", "SINTERSTORE d str", "SUNIONSTORE d str", "SDIFFSTORE d str",
		"SADD l a", "SMEMBERS l", "GET str", "EXISTS d"))},

	// Generic commands on sets.
	{name: "type and encoding", cmds: mbs("SADD i 1", "SADD h a", "TYPE i", "TYPE h", "OBJECT ENCODING i", "OBJECT ENCODING h", "OBJECT ENCODING nosuch")},
	{name: "expire and persist a set", cmds: mbs("SADD s a", "EXPIRE s 100", "TTL s", "PERSIST s", "TTL s"), loose: at(2, ttlApprox)},
	{name: "set expires", cmds: cmds(mbs("SADD s a", "PEXPIRE s 20"), expiryPause, mbs("EXISTS s", "SCARD s", "SMEMBERS s", "SADD s b", "SMEMBERS s"))},
	{name: "rename and copy a set", cmds: mbs("SADD s 1 2", "RENAME s t", "SMEMBERS t", "OBJECT ENCODING t", "COPY t u", "SADD u x", "SMEMBERS t", "OBJECT ENCODING t", "OBJECT ENCODING u", "DEL t u", "EXISTS t u")},
	{name: "set over a set", cmds: mbs("SADD s a", "SET s v", "GET s", "TYPE s")},
}

// setIntRange returns the decimal texts of lo..hi.
func setIntRange(lo, hi int) []string {
	var out []string
	for i := lo; i <= hi; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

var setRandomCases = []redisCase{
	// SPOP
	{name: "spop one member", cmds: mbs("SADD s only", "SPOP s", "EXISTS s", "SPOP s")},
	{name: "spop intset one member", cmds: mbs("SADD s 42", "SPOP s", "EXISTS s")},
	{name: "spop missing", cmds: mbs("SPOP nosuch", "SPOP nosuch 3", "SPOP nosuch 0")},
	{name: "spop random", cmds: mbs("SADD s a b c", "SPOP s", "SCARD s", "SPOP s 1", "SCARD s"), loose: at(1, anyBulk, 3, anyBulk)},
	{name: "spop count zero", cmds: mbs("SADD s a", "SPOP s 0", "SCARD s")},
	{name: "spop count errors", cmds: mbs("SADD s a", "SPOP s -1", "SPOP s abc", "SPOP s 1.5", "SPOP s 9223372036854775808", "SPOP s -9223372036854775808", "SPOP nosuch -1", "SPOP s 1 2", "SPOP s 1 2 3", "SCARD s")},
	{name: "spop count errors before type", cmds: cmds(setWrongType, mbs("SPOP str -1", "SPOP str x", "SPOP str 1 2"))},
	{name: "spop count all of an intset", cmds: mbs("SADD s 3 1 2", "SPOP s 3", "EXISTS s", "SADD s 3 1 2", "SPOP s 100", "SADD s 3 1 2", "SPOP s 9223372036854775807")},
	{name: "spop count all of a hashtable of integers", cmds: cmds(hashtableInts, mbs("SPOP h 10", "EXISTS h"))},
	{name: "spop count all over the intset limit", cmds: cmds(intsetLimit(3), hashtableInts, mbs("SPOP h 10"), resetIntsetLimit), loose: at(4, sortedArray)},
	{name: "spop count all strings", cmds: mbs("SADD s a b c", "SPOP s 3", "EXISTS s"), loose: at(1, sortedArray)},
	{name: "spop count some", cmds: mbs("SADD s a b c d e f g h i j", "SPOP s 3", "SCARD s"), loose: at(1, anyBulk)},
	{name: "spop count keeps the encoding", cmds: cmds(hashtableInts, mbs("SPOP h 2", "OBJECT ENCODING h", "SCARD h")), loose: at(3, anyBulk)},
	// Popping all but a few rebuilds the set: a hashtable of integers
	// becomes an intset again.
	{name: "spop count rebuilds the rest", cmds: cmds(hashtableInts, mbs("SPOP h 9", "OBJECT ENCODING h", "SCARD h", "SADD h2 x 1 2 3 4 5 6 7 8 9 10", "SREM h2 x", "SPOP h2 8", "OBJECT ENCODING h2")), loose: at(3, anyBulk, 8, anyBulk)},
	{name: "spop count rebuild over the limit", cmds: cmds(intsetLimit(1), hashtableInts, mbs("SPOP h 8", "OBJECT ENCODING h", "SCARD h"), resetIntsetLimit), loose: at(4, anyBulk)},
	{name: "spop arity", cmds: mbs("SPOP")},

	// SRANDMEMBER
	{name: "srandmember missing", cmds: mbs("SRANDMEMBER nosuch", "SRANDMEMBER nosuch 3", "SRANDMEMBER nosuch -3", "SRANDMEMBER nosuch 0")},
	{name: "srandmember one member", cmds: mbs("SADD s only", "SRANDMEMBER s", "SRANDMEMBER s 1", "SRANDMEMBER s 5", "SRANDMEMBER s -3", "SRANDMEMBER s -1", "SCARD s")},
	{name: "srandmember intset one member", cmds: mbs("SADD s 7", "SRANDMEMBER s", "SRANDMEMBER s -2")},
	{name: "srandmember whole intset", cmds: mbs("SADD s 5 4 3 2 1", "SRANDMEMBER s 5", "SRANDMEMBER s 10", "SRANDMEMBER s 9223372036854775807")},
	{name: "srandmember whole hashtable", cmds: mbs("SADD s a b c", "SRANDMEMBER s 3", "SRANDMEMBER s 4"), loose: at(1, sortedArray, 2, sortedArray)},
	{name: "srandmember random", cmds: mbs("SADD s a b c d e f g h i j", "SRANDMEMBER s", "SRANDMEMBER s 1", "SRANDMEMBER s 2", "SRANDMEMBER s 5", "SRANDMEMBER s 9", "SRANDMEMBER s -20", "SCARD s"), loose: at(1, anyBulk, 2, anyBulk, 3, anyBulk, 4, anyBulk, 5, anyBulk, 6, anyBulk)},
	{name: "srandmember count zero", cmds: cmds(setWrongType, mbs("SADD s a", "SRANDMEMBER s 0", "SRANDMEMBER str 0"))},
	{name: "srandmember count errors", cmds: cmds(setWrongType, mbs("SADD s a", "SRANDMEMBER s abc", "SRANDMEMBER s 1.5", "SRANDMEMBER s -9223372036854775808", "SRANDMEMBER s 9223372036854775808", "SRANDMEMBER str x", "SRANDMEMBER nosuch -9223372036854775808", "SRANDMEMBER s 1 2", "SRANDMEMBER s 1 2 3"))},
	{name: "srandmember arity", cmds: mbs("SRANDMEMBER")},
}

var setAlgebraCases = []redisCase{
	// SINTER
	{name: "sinter intsets ascend", cmds: mbs("SADD a 5 3 1 9", "SADD b 9 1 5 7", "SINTER a b", "SINTER b a")},
	{name: "sinter smallest intset", cmds: mbs("SADD a 3 2 1", "SADD b x 1 2 3 4", "SINTER b a", "SINTER a b")},
	{name: "sinter smallest hashtable", cmds: mbs("SADD a x 2 1", "SADD b 1 2 3 4 x y", "SINTER b a"), loose: at(2, sortedArray)},
	{name: "sinter same sizes", cmds: mbs("SADD a 3 2 1", "SADD b 1 2 3", "SINTER a b", "SINTER b a")},
	{name: "sinter single and repeated", cmds: mbs("SADD a 2 1", "SINTER a", "SINTER a a a")},
	{name: "sinter missing key", cmds: mbs("SADD a 1", "SINTER a nosuch", "SINTER nosuch a", "SINTER nosuch")},
	{name: "sinter empty result", cmds: mbs("SADD a 1", "SADD b 2", "SINTER a b")},
	{name: "sinter wrong type anywhere", cmds: cmds(setWrongType, mbs("SADD a 1", "SINTER a str", "SINTER str a", "SINTER nosuch str", "SINTER a nosuch l"))},
	{name: "sinter integers and strings", cmds: mbs("SADD a 1 01 x", "SADD b 1 x", "SINTER b a"), loose: at(2, sortedArray)},
	{name: "sinter arity", cmds: mbs("SINTER")},

	// SINTERCARD
	{name: "sintercard", cmds: mbs("SADD a 1 2 3 4 5", "SADD b 2 3 4 x", "SINTERCARD 2 a b", "SINTERCARD 1 a", "SINTERCARD 2 a nosuch", "SINTERCARD 1 nosuch", "SINTERCARD 3 a b a")},
	{name: "sintercard limit", cmds: mbs("SADD a 1 2 3 4 5", "SINTERCARD 1 a LIMIT 3", "SINTERCARD 1 a LIMIT 0", "SINTERCARD 1 a LIMIT 5", "SINTERCARD 1 a LIMIT 100", "SINTERCARD 1 a limit 5 LIMIT 1", "SINTERCARD 2 a a LIMIT 1")},
	{name: "sintercard numkeys errors", cmds: mbs("SADD a 1", "SINTERCARD 0 a", "SINTERCARD -1 a", "SINTERCARD x a", "SINTERCARD 1.5 a", "SINTERCARD 9223372036854775808 a", "SINTERCARD 2 a", "SINTERCARD 9223372036854775807 a")},
	{name: "sintercard option errors", cmds: cmds(setWrongType, mbs("SADD a 1", "SINTERCARD 1 a LIMIT", "SINTERCARD 1 a LIMIT -1", "SINTERCARD 1 a LIMIT x", "SINTERCARD 1 a LIMIT 1.5", "SINTERCARD 1 a FOO", "SINTERCARD 1 a b c", "SINTERCARD 1 nosuch LIMIT -1", "SINTERCARD 1 str LIMIT -1", "SINTERCARD 1 str FOO", "SINTERCARD 2 nosuch str"))},
	{name: "sintercard arity", cmds: mbs("SINTERCARD 1", "SINTERCARD")},

	// SINTERSTORE
	{name: "sinterstore", cmds: mbs("SADD a 1 2 3 x", "SADD b 2 3 x y", "SINTERSTORE d a b", "SMEMBERS d", "OBJECT ENCODING d"), loose: at(3, sortedArray)},
	{name: "sinterstore integers make an intset", cmds: mbs("SADD a 1 2 3 x", "SADD b 3 2 y", "SINTERSTORE d a b", "OBJECT ENCODING d", "SMEMBERS d")},
	{name: "sinterstore over the limit", cmds: cmds(intsetLimit(2), mbs("SADD a x 1 2 3", "SADD b 1 2 3 y", "SINTERSTORE d a b", "OBJECT ENCODING d", "SINTERSTORE d a d", "OBJECT ENCODING d"), resetIntsetLimit)},
	{name: "sinterstore replaces any type and ttl", cmds: cmds(setWrongType, mbs("SADD a 1 2", "EXPIRE str 100", "SINTERSTORE str a", "TYPE str", "TTL str", "SMEMBERS str", "SINTERSTORE l a a", "TYPE l"))},
	{name: "sinterstore empty deletes", cmds: cmds(setWrongType, mbs("SADD a 1", "SADD b 2", "SINTERSTORE str a b", "EXISTS str", "SINTERSTORE a a nosuch", "EXISTS a", "SINTERSTORE nosuch2 nosuch", "EXISTS nosuch2"))},
	{name: "sinterstore into a source", cmds: mbs("SADD a 1 2 3", "SADD b 2 3 4", "SINTERSTORE a a b", "SMEMBERS a")},
	{name: "sinterstore wrong type source", cmds: cmds(setWrongType, mbs("SADD d 1", "SINTERSTORE d nosuch str", "SMEMBERS d"))},
	{name: "sinterstore arity", cmds: mbs("SINTERSTORE d", "SINTERSTORE")},

	// SUNION, SUNIONSTORE
	{name: "sunion intsets", cmds: mbs("SADD a 5 1", "SADD b 3 1 -7", "SUNION a b", "SUNION a nosuch b", "SUNION nosuch")},
	{name: "sunion hashtable of integers is sorted", cmds: cmds(hashtableInts, mbs("SUNION h", "SUNION h nosuch"))},
	{name: "sunion strings", cmds: mbs("SADD a x 1", "SADD b y 1", "SUNION a b"), loose: at(2, sortedArray)},
	{name: "sunion over the limit", cmds: cmds(intsetLimit(3), mbs("SADD a 1 2", "SADD b 3 4", "SUNION a b", "SUNIONSTORE d a b", "OBJECT ENCODING d"), resetIntsetLimit), loose: at(3, sortedArray)},
	{name: "sunionstore", cmds: mbs("SADD a 2 1", "SADD b x", "SUNIONSTORE d a", "OBJECT ENCODING d", "SMEMBERS d", "SUNIONSTORE d a b", "OBJECT ENCODING d", "SCARD d", "SUNIONSTORE d nosuch", "EXISTS d")},
	{name: "sunionstore replaces any type", cmds: cmds(setWrongType, mbs("SADD a 1", "SET ttl v EX 100", "SUNIONSTORE ttl a", "TTL ttl", "SUNIONSTORE l a", "TYPE l", "SUNIONSTORE str nosuch", "EXISTS str"))},
	{name: "sunion wrong type", cmds: cmds(setWrongType, mbs("SADD a 1", "SUNION a str", "SUNION nosuch l", "SUNIONSTORE d a str", "EXISTS d"))},
	{name: "sunion arity", cmds: mbs("SUNION", "SUNIONSTORE d")},

	// SDIFF, SDIFFSTORE
	{name: "sdiff intsets", cmds: mbs("SADD a 1 2 3 4 5", "SADD b 2 4", "SADD c 5 9", "SDIFF a b c", "SDIFF a", "SDIFF a nosuch", "SDIFF nosuch a", "SDIFF a a", "SDIFF b a")},
	{name: "sdiff strings", cmds: mbs("SADD a x y z 1", "SADD b y", "SDIFF a b"), loose: at(2, sortedArray)},
	// The second algorithm adds all of the first set before removing, so
	// its result is a hashtable when the first set does not fit an
	// intset, even if the result would.
	{name: "sdiff algorithm two converts", cmds: cmds(intsetLimit(3), mbs("SADD t 1 2 3 4 5 6 7 8 9 10", "SADD w 1 2", "SADD x 7 8 9 10", "SDIFFSTORE v t w x", "OBJECT ENCODING v", "SMEMBERS v", "SDIFF t w x"), resetIntsetLimit), loose: at(6, sortedArray, 7, sortedArray)},
	{name: "sdiff algorithm one", cmds: cmds(intsetLimit(3), mbs("SADD t 1 2 3 4 5 6 7 8 9 10", "SADD w 1 2 3 4 5 6 7 8 9", "SDIFFSTORE v t w", "OBJECT ENCODING v", "SMEMBERS v", "SDIFF t w"), resetIntsetLimit)},
	{name: "sdiff strings removed", cmds: mbs("SADD a x 1 2 3", "SADD b x", "SDIFFSTORE d a b", "OBJECT ENCODING d", "SADD big 1 2 3 4 5 6 7 8 9 10 11 12", "SADD small x 5", "SDIFFSTORE d small big", "OBJECT ENCODING d", "SMEMBERS d")},
	{name: "sdiffstore", cmds: cmds(setWrongType, mbs("SADD a 1 2 3", "SADD b 1", "SDIFFSTORE str a b", "TYPE str", "SMEMBERS str", "SDIFFSTORE str a a", "EXISTS str", "SDIFFSTORE a a b", "SMEMBERS a", "SDIFFSTORE d nosuch a", "EXISTS d"))},
	{name: "sdiff wrong type", cmds: cmds(setWrongType, mbs("SADD a 1", "SDIFF a str", "SDIFF str a", "SDIFF nosuch str", "SDIFFSTORE d a l"))},
	{name: "sdiff arity", cmds: mbs("SDIFF", "SDIFFSTORE d")},
}
