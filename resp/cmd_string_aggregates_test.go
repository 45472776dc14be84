//go:build aggregates

package resp

// The string commands on keys of other types (WRONGTYPE and overwrite
// paths). They need a command that makes a non-string key, which arrives
// with the data types of issue 3; that issue drops this build constraint.
// Until then: go test -tags aggregates ./resp/ runs them.

func init() {
	stringScripts = append(stringScripts, strScript{"WrongType", []strStep{
		act("~nonstring", "l"),
		step(rWrongType, "GET", "l"),
		step(rWrongType, "SET", "l", "v", "GET"),
		step(rWrongType, "SET", "l", "v", "NX", "GET"),
		step(rWrongType, "SET", "l", "v", "XX", "GET"),
		step(invalidExpireReply("set"), "SET", "l", "v", "GET", "EX", "0"),
		null("SET", "l", "v", "NX"),
		step(":0\r\n", "SETNX", "l", "v"),
		step(rWrongType, "GETSET", "l", "x"),
		step(rWrongType, "GETDEL", "l"),
		step(rWrongType, "GETEX", "l"),
		step(rWrongType, "GETEX", "l", "EX", "abc"),
		step(rWrongType, "GETEX", "l", "PERSIST"),
		step(rSyntax, "GETEX", "l", "foo"),
		step(rWrongType, "APPEND", "l", "x"),
		step(rWrongType, "STRLEN", "l"),
		step(rWrongType, "INCR", "l"),
		step(rWrongType, "DECRBY", "l", "1"),
		step(rNotInt, "INCRBY", "l", "abc"),
		step("-ERR decrement would overflow\r\n", "DECRBY", "l", "-9223372036854775808"),
		step(rWrongType, "INCRBYFLOAT", "l", "abc"),
		step(rWrongType, "INCRBYFLOAT", "l", "1"),
		step(rWrongType, "GETRANGE", "l", "0", "1"),
		step(rNotInt, "GETRANGE", "l", "a", "1"),
		step(rWrongType, "SETRANGE", "l", "0", "x"),
		step(rWrongType, "SETRANGE", "l", "0", ""),
		step(rWrongType, "SETRANGE", "l", "536870911", "xy"),
		step("-ERR offset is out of range\r\n", "SETRANGE", "l", "-1", "x"),
		step(rOK, "SET", "k", "v"),
		step("-ERR The specified keys must contain string values\r\n", "LCS", "k", "l"),
		step("-ERR The specified keys must contain string values\r\n", "LCS", "l", "k", "foo"),
		step("-ERR The specified keys must contain string values\r\n", "LCS", "l", "nokey", "MINMATCHLEN", "abc"),
		step3("*2\r\n$-1\r\n$1\r\nv\r\n", "*2\r\n_\r\n$1\r\nv\r\n", "MGET", "l", "k"),
		step(":0\r\n", "MSETNX", "l", "1", "e", "5"),
		null("GET", "e"),
		// Writes that do not read the old value replace the key.
		step(rOK, "SET", "l", "v"),
		step(bulk("v"), "GET", "l"),
		act("~nonstring", "m"),
		step(rOK, "MSET", "m", "1"),
		step(bulk("1"), "GET", "m"),
		act("~nonstring", "s"),
		step(rOK, "SETEX", "s", "10", "v"),
		step(bulk("v"), "GET", "s"),
		act("~nonstring", "p"),
		step(rOK, "SET", "p", "v", "XX"),
		step(bulk("v"), "GET", "p"),
	}})
}
