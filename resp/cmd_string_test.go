package resp

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The string family's tests are scripts: steps sent in order to one client
// of a fresh server, each with the reply redis-server 7.0.15 gives to the
// same step (every expected reply below was read from it). Each script runs
// once in RESP2 and once in RESP3.
//
// A step whose first word starts with "~" is not a command but an action of
// the test itself, so that the scripts need no other command family:
//
//	~advance ms        move the clock forward
//	~pttl key          the key's remaining ms as PTTL replies it (:-2 missing, :-1 no expiry)
//	~expireat key      the key's absolute expiry in unix ms as PEXPIRETIME replies it
//	~encoding key      the key's encoding as OBJECT ENCODING replies it
//	~nonstring key     make key a non-string key
//	~config name value set a configuration directive
type strStep struct {
	args  []string
	want  string // reply in RESP2
	want3 string // reply in RESP3 when it differs from want
}

func step(want string, args ...string) strStep { return strStep{args: args, want: want} }

// step3 is a step whose RESP3 reply differs from its RESP2 one.
func step3(want, want3 string, args ...string) strStep {
	return strStep{args: args, want: want, want3: want3}
}

// act is a test action (a "~" step) with no reply to check.
func act(args ...string) strStep { return strStep{args: args} }

// Reply texts the scripts use often.
const (
	rOK        = "+OK\r\n"
	rNull      = "$-1\r\n"
	rNull3     = "_\r\n"
	rEmpty     = "$0\r\n\r\n"
	rSyntax    = "-ERR syntax error\r\n"
	rNotInt    = "-ERR value is not an integer or out of range\r\n"
	rNotFloat  = "-ERR value is not a valid float\r\n"
	rWrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	rTooBig    = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n"
)

func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
func integer(n int64) string {
	return ":" + strconv.FormatInt(n, 10) + "\r\n"
}
func errReply(msg string) string { return "-" + msg + "\r\n" }

// null is a missing-value step: $-1 in RESP2, _ in RESP3.
func null(args ...string) strStep { return step3(rNull, rNull3, args...) }

func wrongArgs(cmd string) string {
	return "-ERR wrong number of arguments for '" + cmd + "' command\r\n"
}

func invalidExpireReply(cmd string) string {
	return "-ERR invalid expire time in '" + cmd + "' command\r\n"
}

// strScript is a named list of steps.
type strScript struct {
	name  string
	steps []strStep
}

// stringScripts are the scripts, by name.
var stringScripts = []strScript{
	{"GetSet", []strStep{
		null("GET", "k"),
		step(wrongArgs("get"), "GET"),
		step(wrongArgs("get"), "GET", "a", "b"),
		step(wrongArgs("set"), "SET", "k"),
		step(rOK, "SET", "k", "v"),
		step(bulk("v"), "GET", "k"),
		step(rOK, "set", "k", "v x"),
		step(bulk("v x"), "gEt", "k"),
		step(rOK, "SET", "e", ""),
		step(rEmpty, "GET", "e"),
		// NX / XX.
		null("SET", "k", "w", "NX"),
		step(rOK, "SET", "k", "w", "xx"),
		null("SET", "n", "w", "XX"),
		null("GET", "n"),
		step(rOK, "SET", "n", "w", "nx"),
		step(rSyntax, "SET", "k", "v", "NX", "XX"),
		step(rSyntax, "SET", "k", "v", "XX", "NX"),
		null("SET", "k", "v", "NX", "NX"),
		// Option words are C strings to Redis: what follows a NUL is not seen.
		null("SET", "k", "v", "NX\x00zz"),
		// Syntax first, the expiry value afterwards.
		step(rSyntax, "SET", "k", "v", "EX", "0", "NX", "XX"),
		step(rSyntax, "SET", "k", "v", "EX", "abc", "NX", "XX"),
		step(rSyntax, "SET", "k", "v", "EX", "10", "PX", "5"),
		step(rSyntax, "SET", "k", "v", "EX", "0", "PX", "5"),
		step(rSyntax, "SET", "k", "v", "PX", "10", "EXAT", "5"),
		step(rSyntax, "SET", "k", "v", "EXAT", "10", "PXAT", "5"),
		step(rSyntax, "SET", "k", "v", "KEEPTTL", "EX", "10"),
		step(rSyntax, "SET", "k", "v", "EX", "10", "KEEPTTL"),
		step(rSyntax, "SET", "k", "v", "PERSIST"),
		step(rSyntax, "SET", "k", "v", "EX"),
		step(rSyntax, "SET", "k", "v", "foo"),
		step(rSyntax, "SET", "k", "v", ""),
		// The same expiry word twice: the last value wins, the others are
		// never parsed.
		step(rOK, "SET", "k", "v", "ex", "abc", "EX", "10"),
		step(":10000\r\n", "~pttl", "k"),
		step(rOK, "SET", "k", "v", "EX", "10", "ex\x00", "20"),
		step(":20000\r\n", "~pttl", "k"),
		step(invalidExpireReply("set"), "SET", "k", "v", "EX", "10", "EX", "0"),
		step(rNotInt, "SET", "k", "v", "EX", "10", "EX", ""),
		// Expiry values.
		step(invalidExpireReply("set"), "SET", "k", "v", "EX", "0"),
		step(invalidExpireReply("set"), "SET", "k", "v", "EX", "-1"),
		step(invalidExpireReply("set"), "SET", "k", "v", "PX", "0"),
		step(invalidExpireReply("set"), "SET", "k", "v", "EXAT", "0"),
		step(invalidExpireReply("set"), "SET", "k", "v", "PXAT", "-5"),
		step(rNotInt, "SET", "k", "v", "EX", "x"),
		step(rNotInt, "SET", "k", "v", "EX", "01"),
		step(rNotInt, "SET", "k", "v", "PX", "+1"),
		step(rNotInt, "SET", "k", "v", "PX", "1.5"),
		step(invalidExpireReply("set"), "SET", "k", "v", "EX", "9223372036854775807"),
		step(invalidExpireReply("set"), "SET", "k", "v", "EX", "9223372036854776"),
		step(invalidExpireReply("set"), "SET", "k", "v", "EX", "9223372036854775"),
		step(invalidExpireReply("set"), "SET", "k", "v", "PX", "9223372036854775807"),
		step(invalidExpireReply("set"), "SET", "k", "v", "PX", "9223372036854775807", "XX"),
		step(invalidExpireReply("set"), "SET", "k", "v", "EXAT", "9223372036854776"),
		step(rOK, "SET", "k", "v", "EXAT", "9223372036854775"),
		step(":9223372036854775000\r\n", "~expireat", "k"),
		step(rOK, "SET", "k", "v", "PXAT", "9223372036854775807"),
		step(":9223372036854775807\r\n", "~expireat", "k"),
		step(rOK, "SET", "k", "v", "PXAT", "4102444800000"),
		step(":4102444800000\r\n", "~expireat", "k"),
		step(rOK, "SET", "k", "v", "exat", "4102444800"),
		step(":4102444800000\r\n", "~expireat", "k"),
		// A time in the past stores nothing that lasts.
		step(rOK, "SET", "k", "v", "EXAT", "1"),
		null("GET", "k"),
		step(rOK, "SET", "k", "v"),
		step(bulk("v"), "SET", "k", "w", "PXAT", "1", "GET"),
		null("GET", "k"),
		// EX / PX and the clock.
		step(rOK, "SET", "t", "v", "PX", "100"),
		act("~advance", "100"),
		step(bulk("v"), "GET", "t"), // still there in its expire millisecond, as Redis
		act("~advance", "1"),
		null("GET", "t"),
		step(rOK, "SET", "t", "v", "EX", "2"),
		step(":2000\r\n", "~pttl", "t"),
		act("~advance", "2001"),
		null("GET", "t"),
		// KEEPTTL keeps, a plain SET clears.
		step(rOK, "SET", "t", "v", "EX", "100"),
		step(rOK, "SET", "t", "w", "KEEPTTL"),
		step(":100000\r\n", "~pttl", "t"),
		step(rOK, "SET", "t", "x", "keepttl", "KEEPTTL"),
		step(":100000\r\n", "~pttl", "t"),
		step(bulk("x"), "GET", "t"),
		step(rOK, "SET", "t", "y"),
		step(":-1\r\n", "~pttl", "t"),
		step(rOK, "SET", "kt", "v", "KEEPTTL"),
		step(":-1\r\n", "~pttl", "kt"),
		// GET: the old value is the reply, with or without the write.
		step(rOK, "SET", "k", "v"),
		step(bulk("v"), "SET", "k", "w", "GET"),
		step(bulk("w"), "SET", "k", "x", "get", "GET"),
		step(bulk("x"), "SET", "k", "y", "NX", "GET"),
		step(bulk("x"), "GET", "k"),
		step(bulk("x"), "SET", "k", "y", "GET", "NX"),
		null("SET", "g1", "v", "GET"),
		step(bulk("v"), "GET", "g1"),
		null("SET", "g2", "v", "NX", "GET"),
		step(bulk("v"), "GET", "g2"),
		null("SET", "g3", "v", "XX", "GET"),
		null("GET", "g3"),
		step(bulk("x"), "SET", "k", "z", "XX", "GET", "EX", "100"),
		step(":100000\r\n", "~pttl", "k"),
		step(invalidExpireReply("set"), "SET", "k", "z", "GET", "EX", "0"),
		// Encodings as Redis picks them for SET.
		step(rOK, "SET", "i", "12345"),
		step(bulk("int"), "~encoding", "i"),
		step(rOK, "SET", "i", "hello"),
		step(bulk("embstr"), "~encoding", "i"),
		step(rOK, "SET", "i", strings.Repeat("x", 45)),
		step(bulk("raw"), "~encoding", "i"),
	}},
	{"SetNXSetEX", []strStep{
		step(":1\r\n", "SETNX", "k", "v"),
		step(":0\r\n", "SETNX", "k", "w"),
		step(bulk("v"), "GET", "k"),
		step(wrongArgs("setnx"), "SETNX", "k"),
		step(wrongArgs("setnx"), "SETNX", "k", "v", "NX"),
		step(rOK, "SETEX", "k", "10", "w"),
		step(bulk("w"), "GET", "k"),
		step(":10000\r\n", "~pttl", "k"),
		step(invalidExpireReply("setex"), "SETEX", "k", "0", "v"),
		step(invalidExpireReply("setex"), "SETEX", "k", "-1", "v"),
		step(invalidExpireReply("setex"), "SETEX", "k", "9223372036854776", "v"),
		step(rNotInt, "SETEX", "k", "abc", "v"),
		step(rNotInt, "SETEX", "k", "", "v"),
		step(wrongArgs("setex"), "SETEX", "k", "10"),
		step(rOK, "PSETEX", "k", "1500", "x"),
		step(":1500\r\n", "~pttl", "k"),
		act("~advance", "1500"),
		step(bulk("x"), "GET", "k"),
		act("~advance", "1"),
		null("GET", "k"),
		step(invalidExpireReply("psetex"), "PSETEX", "k", "0", "v"),
		step(invalidExpireReply("psetex"), "PSETEX", "k", "9223372036854775807", "v"),
		step(rNotInt, "PSETEX", "k", "1.5", "v"),
		step(wrongArgs("psetex"), "PSETEX", "k", "10", "v", "x"),
		// A plain SET after SETEX clears the expiry.
		step(rOK, "SETEX", "k", "10", "w"),
		step(rOK, "SET", "k", "w"),
		step(":-1\r\n", "~pttl", "k"),
		step(":1\r\n", "SETNX", "n", "5"),
		step(bulk("int"), "~encoding", "n"),
	}},
	{"MGetMSet", []strStep{
		step(wrongArgs("mget"), "MGET"),
		step(wrongArgs("mset"), "MSET"),
		step(wrongArgs("mset"), "MSET", "a"),
		step(wrongArgs("mset"), "MSET", "a", "1", "b"),
		step(wrongArgs("msetnx"), "MSETNX", "a"),
		step(wrongArgs("msetnx"), "MSETNX", "c", "3", "d"),
		step(rOK, "MSET", "a", "1", "b", "2"),
		step3("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$-1\r\n", "*3\r\n$1\r\n1\r\n$1\r\n2\r\n_\r\n", "MGET", "a", "b", "nokey"),
		step3("*1\r\n$-1\r\n", "*1\r\n_\r\n", "MGET", ""),
		step("*2\r\n$1\r\n1\r\n$1\r\n1\r\n", "MGET", "a", "a"),
		step(":0\r\n", "MSETNX", "a", "1", "c", "3"),
		null("GET", "c"),
		step(":1\r\n", "MSETNX", "c", "3", "d", "4"),
		step("*2\r\n$1\r\n3\r\n$1\r\n4\r\n", "MGET", "c", "d"),
		// Duplicate keys: the last value wins.
		step(rOK, "MSET", "x", "1", "x", "2"),
		step(bulk("2"), "GET", "x"),
		step(":1\r\n", "MSETNX", "y", "1", "y", "2"),
		step(bulk("2"), "GET", "y"),
		// MSET clears expiries.
		step(rOK, "SET", "t", "v", "EX", "100"),
		step(rOK, "MSET", "t", "w"),
		step(":-1\r\n", "~pttl", "t"),
		step(bulk("w"), "GET", "t"),
		step(rOK, "MSET", "i", "5"),
		step(bulk("int"), "~encoding", "i"),
		// An expired key counts as missing for MSETNX.
		step(rOK, "SET", "e", "v", "PX", "10"),
		act("~advance", "11"),
		step(":1\r\n", "MSETNX", "e", "1"),
		step(bulk("1"), "GET", "e"),
	}},
	{"GetSetGetDelGetEx", []strStep{
		// GETSET.
		null("GETSET", "n", "w"),
		step(bulk("w"), "GET", "n"),
		step(rOK, "SET", "k", "v", "EX", "100"),
		step(bulk("v"), "GETSET", "k", "w"),
		step(":-1\r\n", "~pttl", "k"),
		step(wrongArgs("getset"), "GETSET", "k"),
		null("GETSET", "g", "5"),
		step(bulk("int"), "~encoding", "g"),
		// GETDEL.
		step(bulk("w"), "GETDEL", "k"),
		null("GETDEL", "k"),
		null("GET", "k"),
		step(wrongArgs("getdel"), "GETDEL", "k", "x"),
		// GETEX on a missing key: null even when the time is wrong.
		null("GETEX", "nokey"),
		null("GETEX", "nokey", "EX", "abc"),
		null("GETEX", "nokey", "EX", "0"),
		null("GETEX", "nokey", "PERSIST"),
		step(rSyntax, "GETEX", "nokey", "foo"),
		step(rSyntax, "GETEX", "nokey", "EX"),
		step(rSyntax, "GETEX", "nokey", ""),
		step(wrongArgs("getex"), "GETEX"),
		// GETEX on a key.
		step(rOK, "SET", "k", "v"),
		step(rNotInt, "GETEX", "k", "EX", "abc"),
		step(invalidExpireReply("getex"), "GETEX", "k", "EX", "0"),
		step(invalidExpireReply("getex"), "GETEX", "k", "PXAT", "-1"),
		step(invalidExpireReply("getex"), "GETEX", "k", "EXAT", "9223372036854776"),
		step(invalidExpireReply("getex"), "GETEX", "k", "PX", "9223372036854775807"),
		step(rSyntax, "GETEX", "k", "EX", "10", "PX", "10"),
		step(rSyntax, "GETEX", "k", "PERSIST", "EX", "10"),
		step(rSyntax, "GETEX", "k", "EX", "10", "PERSIST"),
		step(rSyntax, "GETEX", "k", "KEEPTTL"),
		step(rSyntax, "GETEX", "k", "NX"),
		step(rSyntax, "GETEX", "k", "XX"),
		step(rSyntax, "GETEX", "k", "GET"),
		step(":-1\r\n", "~pttl", "k"),
		step(bulk("v"), "GETEX", "k", "EX", "10", "EX", "20"),
		step(":20000\r\n", "~pttl", "k"),
		step(bulk("v"), "GETEX", "k"),
		step(":20000\r\n", "~pttl", "k"),
		step(bulk("v"), "GETEX", "k", "PERSIST"),
		step(":-1\r\n", "~pttl", "k"),
		step(bulk("v"), "GETEX", "k", "persist", "PERSIST"),
		step(bulk("v"), "GETEX", "k", "px", "1500"),
		step(":1500\r\n", "~pttl", "k"),
		act("~advance", "1501"),
		null("GETEX", "k"),
		step(rOK, "SET", "k", "v"),
		step(bulk("v"), "GETEX", "k", "PXAT", "4102444800000"),
		step(":4102444800000\r\n", "~expireat", "k"),
		step(bulk("v"), "GETEX", "k", "EXAT", "4102444801"),
		step(":4102444801000\r\n", "~expireat", "k"),
		// An absolute time in the past deletes the key after replying.
		step(bulk("v"), "GETEX", "k", "PXAT", "1"),
		null("GET", "k"),
		step(rOK, "SET", "k", "5"),
		step(bulk("5"), "GETEX", "k", "EX", "100"),
		step(bulk("int"), "~encoding", "k"),
	}},
	{"AppendStrlen", []strStep{
		step(":3\r\n", "APPEND", "new", "123"),
		step(bulk("int"), "~encoding", "new"),
		step(":4\r\n", "APPEND", "new", "4"),
		step(bulk("raw"), "~encoding", "new"),
		step(bulk("1234"), "GET", "new"),
		step(":0\r\n", "APPEND", "e", ""),
		step(rEmpty, "GET", "e"),
		step(":4\r\n", "APPEND", "new", ""),
		step(":4\r\n", "STRLEN", "new"),
		step(":0\r\n", "STRLEN", "nokey"),
		step(":0\r\n", "STRLEN", "e"),
		step(rOK, "SET", "i", "12345"),
		step(":5\r\n", "STRLEN", "i"),
		step(wrongArgs("strlen"), "STRLEN"),
		step(wrongArgs("append"), "APPEND", "k"),
		// APPEND keeps the expiry.
		step(rOK, "SET", "t", "v", "EX", "100"),
		step(":2\r\n", "APPEND", "t", "w"),
		step(":100000\r\n", "~pttl", "t"),
		step(bulk("vw"), "GET", "t"),
		// Growing past proto-max-bulk-len.
		act("~config", "proto-max-bulk-len", "1mb"),
		step(rOK, "SET", "big", strings.Repeat("x", 600000)),
		step(":1048576\r\n", "APPEND", "big", strings.Repeat("y", 448576)),
		step(rTooBig, "APPEND", "big", "y"),
		step(":1048576\r\n", "APPEND", "big", ""),
		step(":1048576\r\n", "STRLEN", "big"),
	}},
	{"IncrDecr", []strStep{
		step(":1\r\n", "INCR", "n"),
		step(":11\r\n", "INCRBY", "n", "10"),
		step(":10\r\n", "DECR", "n"),
		step(":5\r\n", "DECRBY", "n", "5"),
		step(":-2\r\n", "INCRBY", "n", "-7"),
		step(":3\r\n", "DECRBY", "n", "-5"),
		step(":3\r\n", "INCRBY", "n", "0"),
		step(bulk("3"), "GET", "n"),
		step(":-1\r\n", "DECR", "d"),
		step(":-5\r\n", "DECRBY", "d2", "5"),
		step(":9223372036854775807\r\n", "INCRBY", "d3", "9223372036854775807"),
		step(":-9223372036854775808\r\n", "INCRBY", "d4", "-9223372036854775808"),
		// Argument errors, before the key is looked at.
		step("-ERR decrement would overflow\r\n", "DECRBY", "n", "-9223372036854775808"),
		step("-ERR decrement would overflow\r\n", "DECRBY", "nokey", "-9223372036854775808"),
		step(rNotInt, "INCRBY", "n", "abc"),
		step(rNotInt, "INCRBY", "n", "9223372036854775808"),
		step(rNotInt, "INCRBY", "n", "1.5"),
		step(rNotInt, "INCRBY", "n", "+1"),
		step(rNotInt, "INCRBY", "n", ""),
		step(rNotInt, "DECRBY", "n", "abc"),
		step(wrongArgs("incr"), "INCR"),
		step(wrongArgs("decr"), "DECR", "a", "b"),
		step(wrongArgs("incrby"), "INCRBY", "n"),
		step(wrongArgs("decrby"), "DECRBY", "n"),
		// Stored values that are not string2ll integers.
		step(rOK, "SET", "s", "abc"),
		step(rNotInt, "INCR", "s"),
		step(rOK, "SET", "s", "+1"),
		step(rNotInt, "INCR", "s"),
		step(rOK, "SET", "s", "01"),
		step(rNotInt, "INCR", "s"),
		step(rOK, "SET", "s", "-0"),
		step(rNotInt, "DECR", "s"),
		step(rOK, "SET", "s", " 1"),
		step(rNotInt, "INCR", "s"),
		step(rOK, "SET", "s", "1 "),
		step(rNotInt, "INCR", "s"),
		step(rOK, "SET", "s", ""),
		step(rNotInt, "INCR", "s"),
		step(rOK, "SET", "s", "1.0"),
		step(rNotInt, "INCRBY", "s", "1"),
		// Overflow.
		step(rOK, "SET", "m", "9223372036854775807"),
		step("-ERR increment or decrement would overflow\r\n", "INCR", "m"),
		step(":9223372036854775807\r\n", "INCRBY", "m", "0"),
		step(":9223372036854775806\r\n", "DECR", "m"),
		step(rOK, "SET", "m", "-9223372036854775808"),
		step("-ERR increment or decrement would overflow\r\n", "DECR", "m"),
		step("-ERR increment or decrement would overflow\r\n", "INCRBY", "m", "-1"),
		step("-ERR increment or decrement would overflow\r\n", "DECRBY", "m", "1"),
		step("-ERR increment or decrement would overflow\r\n", "DECRBY", "m", "9223372036854775807"),
		step(":-1\r\n", "INCRBY", "m", "9223372036854775807"),
		step(rOK, "SET", "v", "-9223372036854775807"),
		step(":-9223372036854775808\r\n", "DECR", "v"),
		// The expiry stays; the result is an integer.
		step(rOK, "SET", "t", "5", "EX", "100"),
		step(":6\r\n", "INCR", "t"),
		step(":100000\r\n", "~pttl", "t"),
		step(bulk("int"), "~encoding", "t"),
		step(rOK, "SET", "r", "123"),
		step(":4\r\n", "APPEND", "r", "4"),
		step(bulk("raw"), "~encoding", "r"),
		step(":1235\r\n", "INCR", "r"),
		step(bulk("int"), "~encoding", "r"),
	}},
	{"IncrByFloat", []strStep{
		step(bulk("10.5"), "INCRBYFLOAT", "f", "10.5"),
		step(bulk("10.6"), "INCRBYFLOAT", "f", "0.1"),
		step(bulk("-4989.39999999999999991"), "INCRBYFLOAT", "f", "-5.0e3"),
		step(bulk("-4989.39999999999999991"), "GET", "f"),
		step(rNotFloat, "INCRBYFLOAT", "f", "abc"),
		step(rNotFloat, "INCRBYFLOAT", "f", ""),
		step(rNotFloat, "INCRBYFLOAT", "f", "nan"),
		step(rNotFloat, "INCRBYFLOAT", "f", " 1"),
		step(rNotFloat, "INCRBYFLOAT", "f", "1\x00"),
		step("-ERR increment would produce NaN or Infinity\r\n", "INCRBYFLOAT", "f", "inf"),
		step("-ERR increment would produce NaN or Infinity\r\n", "INCRBYFLOAT", "f", "-inf"),
		step(wrongArgs("incrbyfloat"), "INCRBYFLOAT", "f"),
		// A stored "inf" parses; only the sum is refused, after the
		// increment is parsed.
		step(rOK, "SET", "g", "inf"),
		step("-ERR increment would produce NaN or Infinity\r\n", "INCRBYFLOAT", "g", "1"),
		step(rNotFloat, "INCRBYFLOAT", "g", "abc"),
		step(rOK, "SET", "s", "abc"),
		step(rNotFloat, "INCRBYFLOAT", "s", "1"),
		step(rNotFloat, "INCRBYFLOAT", "s", "inf"),
		// Number forms strtold takes.
		step(bulk("16"), "INCRBYFLOAT", "h", "0x10"),
		step(bulk("16.001"), "INCRBYFLOAT", "h", "1e-3"),
		step(bulk("0"), "INCRBYFLOAT", "h", "-16.001"),
		step(bulk("5"), "INCRBYFLOAT", "h", "+5"),
		step(bulk("10"), "INCRBYFLOAT", "h", "5."),
		step(bulk("10.5"), "INCRBYFLOAT", "h", ".5"),
		// The result is a plain string, even when it looks like an integer.
		step(bulk("1.5"), "INCRBYFLOAT", "x", "1.5"),
		step(bulk("3"), "INCRBYFLOAT", "x", "1.5"),
		step(bulk("embstr"), "~encoding", "x"),
		step(":4\r\n", "INCR", "x"),
		step(bulk("123456789012345678896802277657040928322355200"), "INCRBYFLOAT", "y", "123456789012345678901234567890123456789012345"),
		step(bulk("raw"), "~encoding", "y"),
		// The expiry stays.
		step(rOK, "SET", "t", "1", "EX", "100"),
		step(bulk("2.5"), "INCRBYFLOAT", "t", "1.5"),
		step(":100000\r\n", "~pttl", "t"),
	}},
	{"GetRangeSetRange", []strStep{
		step(rOK, "SET", "k", "Hello"),
		step(bulk("Hell"), "GETRANGE", "k", "0", "3"),
		step(bulk("llo"), "GETRANGE", "k", "-3", "-1"),
		step(bulk("Hello"), "GETRANGE", "k", "0", "-1"),
		step(bulk("o"), "GETRANGE", "k", "4", "-1"),
		step(bulk("Hello"), "GETRANGE", "k", "-5", "-1"),
		step(bulk("H"), "GETRANGE", "k", "-6", "-6"),
		step(bulk("H"), "GETRANGE", "k", "-6", "0"),
		step(bulk("H"), "GETRANGE", "k", "0", "0"),
		step(rEmpty, "GETRANGE", "k", "5", "5"),
		step(rEmpty, "GETRANGE", "k", "10", "100"),
		step(rEmpty, "GETRANGE", "k", "-1", "-5"),
		step(rEmpty, "GETRANGE", "k", "3", "1"),
		step(bulk("Hello"), "GETRANGE", "k", "-100", "100"),
		step(bulk("Hello"), "GETRANGE", "k", "-9223372036854775808", "9223372036854775807"),
		step(rNotInt, "GETRANGE", "k", "a", "1"),
		step(rNotInt, "GETRANGE", "k", "1", "a"),
		step(rEmpty, "GETRANGE", "nokey", "0", "-1"),
		step(rNotInt, "GETRANGE", "nokey", "a", "1"),
		step(bulk("el"), "SUBSTR", "k", "1", "2"),
		step(rNotInt, "SUBSTR", "k", "1", "2.0"),
		step(wrongArgs("getrange"), "GETRANGE", "k", "1"),
		step(wrongArgs("substr"), "SUBSTR", "k", "1"),
		step(rOK, "SET", "e", ""),
		step(rEmpty, "GETRANGE", "e", "0", "-1"),
		step(rEmpty, "GETRANGE", "e", "0", "0"),
		step(rEmpty, "GETRANGE", "e", "-1", "0"),
		step(rOK, "SET", "i", "12345"),
		step(bulk("23"), "GETRANGE", "i", "1", "2"),
		// SETRANGE.
		step("-ERR offset is out of range\r\n", "SETRANGE", "k", "-1", "x"),
		step("-ERR offset is out of range\r\n", "SETRANGE", "k", "-1", ""),
		step(rNotInt, "SETRANGE", "k", "a", "x"),
		step(wrongArgs("setrange"), "SETRANGE", "k", "1"),
		step(":0\r\n", "SETRANGE", "nokey", "5", ""),
		null("GET", "nokey"),
		step(":5\r\n", "SETRANGE", "k", "0", ""),
		step(":9\r\n", "SETRANGE", "k", "7", "xy"),
		step(bulk("Hello\x00\x00xy"), "GET", "k"),
		step(":9\r\n", "SETRANGE", "k", "1", "E"),
		step(bulk("HEllo\x00\x00xy"), "GET", "k"),
		step(":4\r\n", "SETRANGE", "nk", "2", "ab"),
		step(bulk("\x00\x00ab"), "GET", "nk"),
		step(bulk("raw"), "~encoding", "nk"),
		step(":5\r\n", "SETRANGE", "i", "0", "9"),
		step(bulk("92345"), "GET", "i"),
		step(bulk("raw"), "~encoding", "i"),
		// proto-max-bulk-len (512mb): checked only when something is written.
		step(rTooBig, "SETRANGE", "k", "536870911", "xy"),
		step(rTooBig, "SETRANGE", "k", "9223372036854775807", "x"),
		step(rTooBig, "SETRANGE", "nokey", "536870912", "x"),
		step(":9\r\n", "SETRANGE", "k", "536870911", ""),
		step(":0\r\n", "SETRANGE", "nokey", "536870912", ""),
		null("GET", "nokey"),
		// The expiry stays.
		step(rOK, "SET", "t", "v", "EX", "100"),
		step(":1\r\n", "SETRANGE", "t", "0", "w"),
		step(":100000\r\n", "~pttl", "t"),
		step(bulk("w"), "GET", "t"),
	}},
	{"LCS", []strStep{
		step(rOK, "MSET", "key1", "ohmytext", "key2", "mynewtext"),
		step(bulk("mytext"), "LCS", "key1", "key2"),
		step(":6\r\n", "LCS", "key1", "key2", "LEN"),
		step(":6\r\n", "LCS", "key1", "key2", "len", "WITHMATCHLEN"),
		step(bulk("mytext"), "LCS", "key1", "key2", "WITHMATCHLEN"),
		step3("*4\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n",
			"%2\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n",
			"LCS", "key1", "key2", "IDX"),
		step3("*4\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n$3\r\nlen\r\n:6\r\n",
			"%2\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n$3\r\nlen\r\n:6\r\n",
			"LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4"),
		step3("*4\r\n$7\r\nmatches\r\n*2\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n*3\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n:2\r\n$3\r\nlen\r\n:6\r\n",
			"%2\r\n$7\r\nmatches\r\n*2\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n*3\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n:2\r\n$3\r\nlen\r\n:6\r\n",
			"LCS", "key1", "key2", "IDX", "WITHMATCHLEN"),
		step3("*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n$3\r\nlen\r\n:6\r\n",
			"%2\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n$3\r\nlen\r\n:6\r\n",
			"LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
		// A negative MINMATCHLEN is 0; repeated options are fine, the last wins.
		step3("*4\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n",
			"%2\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n",
			"LCS", "key1", "key2", "MINMATCHLEN", "-5", "idx\x00x"),
		step3("*4\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n$3\r\nlen\r\n:6\r\n",
			"%2\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n$3\r\nlen\r\n:6\r\n",
			"LCS", "key1", "key2", "IDX", "IDX", "MINMATCHLEN", "1", "MINMATCHLEN", "3"),
		step3("*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:0\r\n:7\r\n*2\r\n:0\r\n:7\r\n:8\r\n$3\r\nlen\r\n:8\r\n",
			"%2\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:0\r\n:7\r\n*2\r\n:0\r\n:7\r\n:8\r\n$3\r\nlen\r\n:8\r\n",
			"LCS", "key1", "key1", "IDX", "WITHMATCHLEN"),
		// Missing keys are empty strings.
		step3("*4\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n", "%2\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n", "LCS", "nokey", "key1", "IDX"),
		step(rEmpty, "LCS", "nokey", "nokey2"),
		step(":0\r\n", "LCS", "key1", "nokey", "LEN"),
		// Errors.
		step("-ERR If you want both the length and indexes, please just use IDX.\r\n", "LCS", "key1", "key2", "IDX", "LEN"),
		step("-ERR If you want both the length and indexes, please just use IDX.\r\n", "LCS", "key1", "key2", "LEN", "IDX"),
		step(rSyntax, "LCS", "key1", "key2", "IDX", "LEN", "foo"),
		step(rSyntax, "LCS", "key1", "key2", "MINMATCHLEN"),
		step(rSyntax, "LCS", "key1", "key2", "foo", "MINMATCHLEN", "abc"),
		step(rNotInt, "LCS", "key1", "key2", "MINMATCHLEN", "abc"),
		step(rNotInt, "LCS", "key1", "key2", "MINMATCHLEN", "abc", "foo"),
		step(wrongArgs("lcs"), "LCS", "key1"),
		// The table may not be larger than proto-max-bulk-len bytes.
		act("~config", "proto-max-bulk-len", "1mb"),
		step(rOK, "SET", "a", strings.Repeat("x", 600)),
		step(rOK, "SET", "b", strings.Repeat("y", 600)),
		step("-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\r\n", "LCS", "a", "b"),
		step("-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\r\n", "LCS", "a", "b", "LEN"),
		step(rOK, "SET", "b", strings.Repeat("y", 400)+"x"),
		step(":1\r\n", "LCS", "a", "b", "LEN"),
		step(bulk("x"), "LCS", "a", "b"),
	}},
}

func TestStringCommands(t *testing.T) {
	for _, sc := range stringScripts {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/RESP"+strconv.Itoa(proto), func(t *testing.T) {
				runStringScript(t, proto, sc.steps)
			})
		}
	}
}

// runStringScript runs steps on a fresh server speaking proto.
func runStringScript(t *testing.T, proto int, steps []strStep) {
	env := newTestEnv(t)
	c := env.client()
	c.c.w.Proto = proto
	db := env.eng.DB(0)
	for i, s := range steps {
		var got string
		switch s.args[0] {
		case "~advance":
			ms, _ := strconv.Atoi(s.args[1])
			env.clock.Advance(time.Duration(ms) * time.Millisecond)
			continue
		case "~config":
			if err := env.cfg.Set([2]string{s.args[1], s.args[2]}); err != nil {
				t.Fatalf("step %d: config set: %v", i, err)
			}
			continue
		case "~nonstring":
			makeNonString(t, c, s.args[1])
			continue
		case "~pttl", "~expireat":
			ki, ok := db.Info([]byte(s.args[1]))
			switch {
			case !ok:
				got = ":-2\r\n"
			case ki.ExpireAt == 0:
				got = ":-1\r\n"
			case s.args[0] == "~pttl":
				got = integer(ki.ExpireAt - env.clock.NowMs())
			default:
				got = integer(ki.ExpireAt)
			}
		case "~encoding":
			ki, ok := db.Info([]byte(s.args[1]))
			if !ok {
				got = rNull
			} else {
				got = bulk(ki.Encoding.String())
			}
		default:
			got = c.do(s.args...)
		}
		want := s.want
		if proto == 3 && s.want3 != "" {
			want = s.want3
		}
		if got != want {
			t.Errorf("step %d %q: got %q, want %q", i, shorten(s.args), got, want)
		}
	}
}

// makeNonString replaces key with a one-element list, for the WRONGTYPE
// checks of the string-like families, and fails the test unless RPUSH
// created it and TYPE reports a list.
func makeNonString(t *testing.T, c *testClient, key string) {
	t.Helper()
	c.do("DEL", key)
	if got := c.do("RPUSH", key, "a"); got != ":1\r\n" {
		t.Fatalf("RPUSH %s a: got %q, want :1", key, got)
	}
	if got := c.do("TYPE", key); got != "+list\r\n" {
		t.Fatalf("TYPE %s after RPUSH: got %q, want +list", key, got)
	}
}

// shorten keeps long arguments readable in failure messages.
func shorten(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if len(a) > 40 {
			out[i] = a[:20] + "…(" + strconv.Itoa(len(a)) + " bytes)"
		}
	}
	return out
}

// TestStringCommandTable checks each declaration against redis-server
// 7.0.15's COMMAND INFO: arity, flags, first key, last key, step.
func TestStringCommandTable(t *testing.T) {
	want := map[string]string{
		"get":         "2 readonly,fast 1 1 1",
		"set":         "-3 write,denyoom 1 1 1",
		"setnx":       "3 write,denyoom,fast 1 1 1",
		"setex":       "4 write,denyoom 1 1 1",
		"psetex":      "4 write,denyoom 1 1 1",
		"mget":        "-2 readonly,fast 1 -1 1",
		"mset":        "-3 write,denyoom 1 -1 2",
		"msetnx":      "-3 write,denyoom 1 -1 2",
		"getset":      "3 write,denyoom,fast 1 1 1",
		"getdel":      "2 write,fast 1 1 1",
		"getex":       "-2 write,fast 1 1 1",
		"append":      "3 write,denyoom,fast 1 1 1",
		"strlen":      "2 readonly,fast 1 1 1",
		"incr":        "2 write,denyoom,fast 1 1 1",
		"decr":        "2 write,denyoom,fast 1 1 1",
		"incrby":      "3 write,denyoom,fast 1 1 1",
		"decrby":      "3 write,denyoom,fast 1 1 1",
		"incrbyfloat": "3 write,denyoom,fast 1 1 1",
		"getrange":    "4 readonly 1 1 1",
		"substr":      "4 readonly 1 1 1",
		"setrange":    "4 write,denyoom 1 1 1",
		"lcs":         "-3 readonly 1 2 1",
	}
	cmds := stringCommands()
	if len(cmds) != len(want) {
		t.Errorf("%d commands declared, want %d", len(cmds), len(want))
	}
	for _, cmd := range cmds {
		got := strconv.Itoa(cmd.Arity) + " " + strings.Join(cmd.Flags.Names(), ",") + " " +
			strconv.Itoa(cmd.FirstKey) + " " + strconv.Itoa(cmd.LastKey) + " " + strconv.Itoa(cmd.KeyStep)
		if got != want[cmd.Name] {
			t.Errorf("%s: %q, want %q", cmd.Name, got, want[cmd.Name])
		}
		if cmd.Group != "string" || cmd.Since == "" || cmd.Summary == "" || cmd.Run == nil {
			t.Errorf("%s: incomplete declaration %+v", cmd.Name, cmd)
		}
	}
	mset := NewTable(cmds).Lookup([]byte("mset"), nil)
	if got := mset.KeyIndexes(7); !slices.Equal(got, []int{1, 3, 5}) {
		t.Errorf("mset key indexes %v", got)
	}
}

// TestGetAllocs checks that GET, hit or miss, allocates nothing once the
// reply buffer has room.
func TestGetAllocs(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(rOK, "SET", "k", "some value")
	for _, key := range []string{"k", "missing"} {
		args := [][]byte{[]byte("GET"), []byte(key)}
		c.c.w.Buf = make([]byte, 0, 256)
		allocs := testing.AllocsPerRun(100, func() {
			c.c.w.Buf = c.c.w.Buf[:0]
			cmdGet(c.c, args)
		})
		if allocs != 0 {
			t.Errorf("GET %s: %v allocations", key, allocs)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	// newTestEnv uses its *testing.T only for Helper and Fatal.
	env := newTestEnv(&testing.T{})
	c := env.client()
	c.do("SET", "k", "some value")
	args := [][]byte{[]byte("GET"), []byte("k")}
	c.c.w.Buf = make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		c.c.w.Buf = c.c.w.Buf[:0]
		cmdGet(c.c, args)
	}
}
