package resp

import "testing"

// Tests of SORT and SORT_RO through the in-process client. Every reply is
// what redis-server 7.0.15 sends for the same commands (checked with a raw
// client); internal/compat compares against a live server.

func TestSortCommands(t *testing.T) {
	for _, proto := range []int{2, 3} {
		env := newTestEnv(t)
		c := env.client()
		null := "$-1\r\n"
		if proto == 3 {
			c.do("HELLO", "3")
			null = "_\r\n"
		}
		c.expect(":4\r\n", "RPUSH", "l", "3", "1", "10", "2")
		c.expect("*4\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$2\r\n10\r\n", "SORT", "l")
		c.expect("*2\r\n$1\r\n3\r\n$1\r\n2\r\n", "SORT_RO", "l", "DESC", "LIMIT", "1", "2")
		c.expect("*4\r\n$1\r\n1\r\n$2\r\n10\r\n$1\r\n2\r\n$1\r\n3\r\n", "SORT", "l", "ALPHA")
		c.expect("*4\r\n$1\r\n3\r\n$1\r\n1\r\n$2\r\n10\r\n$1\r\n2\r\n", "SORT", "l", "BY", "nosort")
		c.expect("+OK\r\n", "MSET", "w_1", "4", "w_2", "3", "w_3", "2", "w_10", "1")
		c.expect("*4\r\n$2\r\n10\r\n$1\r\n3\r\n$1\r\n2\r\n$1\r\n1\r\n", "SORT", "l", "BY", "w_*")
		c.expect("*6\r\n$1\r\n1\r\n$1\r\n4\r\n"+null+"$1\r\n2\r\n$1\r\n3\r\n"+null, "SORT", "l", "LIMIT", "0", "2", "GET", "#", "GET", "w_*", "GET", "h_*->f")
		c.expect(":4\r\n", "SORT", "l", "GET", "h_*->f", "STORE", "d")
		c.expect("*4\r\n$0\r\n\r\n$0\r\n\r\n$0\r\n\r\n$0\r\n\r\n", "LRANGE", "d", "0", "-1")
		c.expect("-ERR syntax error\r\n", "SORT_RO", "l", "STORE", "d")
		c.expect("-ERR syntax error\r\n", "SORT", "l", "LIMIT", "1")
		c.expect("-ERR value is not an integer or out of range\r\n", "SORT", "l", "LIMIT", "x", "1")
		c.expect(":1\r\n", "RPUSH", "bad", "x")
		c.expect("-ERR One or more scores can't be converted into double\r\n", "SORT", "bad")
		c.expect("+OK\r\n", "SET", "s", "v")
		c.expect("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "SORT", "s")
		c.expect("*0\r\n", "SORT", "nosuch")
		c.expect(":0\r\n", "SORT", "nosuch", "STORE", "d")
		c.expect(":0\r\n", "EXISTS", "d")
	}
}

// SORT … STORE into a list a client is blocked on serves it, as Redis 7.0
// does (checked: BLPOP dst gets the first stored element).
func TestSortStoreWakesBlockedPop(t *testing.T) {
	env := newTestEnv(t)
	a, b := env.loopClient(), env.loopClient()
	if got := a.send(encodeCommand("BLPOP", "dst", "0")); got != "" {
		t.Fatalf("BLPOP on a missing key replied %q", got)
	}
	b.expect(":2\r\n", "RPUSH", "src", "2", "1")
	b.expect(":2\r\n", "SORT", "src", "STORE", "dst")
	a.expectWoken("*2\r\n$3\r\ndst\r\n$1\r\n1\r\n")
	b.expect("*1\r\n$1\r\n2\r\n", "LRANGE", "dst", "0", "-1")
}
