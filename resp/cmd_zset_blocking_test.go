package resp

import (
	"strings"
	"testing"
	"time"
)

func TestBZPopReady(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	add := func() { c.expect(":4\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c", "1.5", "d") }
	add()
	c.expect("*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n", "BZPOPMIN", "nosuch", "z", "0")
	c.expect("*3\r\n$1\r\nz\r\n$1\r\nc\r\n$1\r\n3\r\n", "BZPOPMAX", "z", "0")
	c.expect("*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nd\r\n$3\r\n1.5\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n", "BZMPOP", "0", "2", "nx", "z", "MIN", "COUNT", "10")
	c.expect(":0\r\n", "EXISTS", "z")
	c.do("HELLO", "3")
	add()
	c.expect("*3\r\n$1\r\nz\r\n$1\r\na\r\n,1\r\n", "BZPOPMIN", "z", "0")
	c.expect("*3\r\n$1\r\nz\r\n$1\r\nc\r\n,3\r\n", "BZPOPMAX", "z", "0")
	c.expect("*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nb\r\n,2\r\n", "BZMPOP", "0", "1", "z", "max")
	c.expect("*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nd\r\n,1.5\r\n", "BZMPOP", "0", "1", "z", "MAX", "COUNT", "9223372036854775807")
	env.expectWaiting(0)
}

// TestBZPopErrors: the messages and their order, as redis 7.0.15 (BZPOPMIN
// parses its timeout before looking at keys; BZMPOP after its other
// arguments).
func TestBZPopErrors(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "SET", "s", "v")
	const (
		wrong   = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
		notFl   = "-ERR timeout is not a float or out of range\r\n"
		neg     = "-ERR timeout is negative\r\n"
		syntax  = "-ERR syntax error\r\n"
		numkeys = "-ERR numkeys should be greater than 0\r\n"
		count   = "-ERR count should be greater than 0\r\n"
	)
	for _, tc := range []struct {
		want string
		args string
	}{
		{wrong, "BZPOPMIN s 0"},
		{wrong, "BZPOPMAX nosuch s 0"},
		{notFl, "BZPOPMIN nosuch s x"},
		{neg, "BZPOPMAX s -1"},
		{neg, "BZPOPMIN s inf"},
		{"-ERR wrong number of arguments for 'bzpopmin' command\r\n", "BZPOPMIN k"},
		{"-ERR wrong number of arguments for 'bzmpop' command\r\n", "BZMPOP 0 1 k"},
		{notFl, "BZMPOP x 1 k MIN"},
		{numkeys, "BZMPOP x 0 k MIN"},
		{numkeys, "BZMPOP 0 -1 k MIN"},
		{numkeys, "BZMPOP 0 abc k MIN"},
		{syntax, "BZMPOP 0 1 k FOO"},
		{syntax, "BZMPOP 0 2 k MIN"},
		{syntax, "BZMPOP 0 5 k MIN"},
		{syntax, "BZMPOP 0 9223372036854775807 s MIN"},
		{count, "BZMPOP x 1 k MIN COUNT 0"},
		{count, "BZMPOP 0 1 k MIN COUNT -3"},
		{syntax, "BZMPOP -1 1 k MIN COUNT 1 COUNT 2"},
		{syntax, "BZMPOP 0 1 s min count"},
		{notFl, "BZMPOP x 1 s MIN"},
		{wrong, "BZMPOP 0 1 s MIN"},
		{wrong, "BZMPOP 0 2 nosuch s MAX COUNT 3"},
	} {
		c.expect(tc.want, strings.Fields(tc.args)...)
	}
	env.expectWaiting(0)
}

func TestBZPopWokenFIFO(t *testing.T) {
	env := newTestEnv(t)
	c1, c2, c3, p := env.loopClient(), env.loopClient(), env.loopClient(), env.loopClient()
	if got := c1.send(encodeCommand("BZPOPMIN", "z", "0") + encodeCommand("PING")); got != "" {
		t.Fatalf("BZPOPMIN on a missing key replied %q", got)
	}
	c2.do("BZPOPMAX", "other", "z", "0")
	c3.do("BZMPOP", "0", "1", "z", "MIN", "COUNT", "2")
	env.expectBlockedClients(3)
	p.expect(":5\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
	c1.expectWoken("*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n+PONG\r\n")
	c2.expectWoken("*3\r\n$1\r\nz\r\n$1\r\ne\r\n$1\r\n5\r\n")
	c3.expectWoken("*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n")
	p.expect("*2\r\n$1\r\nd\r\n$1\r\n4\r\n", "ZRANGE", "z", "0", "-1", "WITHSCORES")
	// One member, two waiters: the second keeps waiting.
	p.do("DEL", "z")
	c1.do("HELLO", "3")
	c1.do("BZPOPMIN", "z", "0")
	c2.do("BZPOPMIN", "z", "0")
	p.expect(":1\r\n", "ZADD", "z", "7", "x")
	c1.expectWoken("*3\r\n$1\r\nz\r\n$1\r\nx\r\n,7\r\n")
	if c2.woken() {
		t.Error("the second waiter was woken with nothing for it")
	}
	p.expect("$3\r\n2.5\r\n", "ZINCRBY", "z", "2.5", "y")
	c2.expectWoken("*3\r\n$1\r\nz\r\n$1\r\ny\r\n$3\r\n2.5\r\n")
	p.expect(":0\r\n", "EXISTS", "z")
	env.expectWaiting(0)
}

func TestBZPopTimeout(t *testing.T) {
	env := newTestEnv(t)
	a, p := env.loopClient(), env.loopClient()
	a.expectBlocks("BZPOPMIN", "z", "1.5")
	a.expectAfter(1500*time.Millisecond, "") // not at the deadline itself
	a.expectAfter(time.Millisecond, "*-1\r\n")
	a.expectBlocks("BZMPOP", "0.01", "2", "y", "z", "MAX", "COUNT", "3")
	a.expectAfter(11*time.Millisecond, "*-1\r\n")
	a.do("HELLO", "3")
	for _, cmd := range [][]string{
		{"BZPOPMIN", "z", "0.01"},
		{"BZPOPMAX", "y", "z", "0.01"},
		{"BZMPOP", "0.01", "1", "z", "MIN"},
	} {
		a.expectBlocks(cmd...)
		a.expectAfter(11*time.Millisecond, "_\r\n")
	}
	// A timed-out client takes nothing.
	p.expect(":1\r\n", "ZADD", "z", "1", "m")
	p.expect(":1\r\n", "ZCARD", "z")
	// A tiny timeout rounds up to 1 ms; -0.0009 rounds to 0: forever.
	a.expectBlocks("BZPOPMIN", "nosuch", "0.0001")
	a.expectAfter(2*time.Millisecond, "_\r\n")
	a.expectBlocks("BZPOPMAX", "nosuch", "-0.0009")
	a.expectAfter(time.Hour, "")
	a.c.Closed()
	env.expectWaiting(0)
}

func TestBZPopDisconnect(t *testing.T) {
	env := newTestEnv(t)
	env.blockAndDisconnect(5, []string{"BZPOPMIN", "x", "y", "z", "0"}, []string{"BZMPOP", "5", "2", "x", "y", "MAX"})
	c := env.client()
	c.expect(":1\r\n", "ZADD", "x", "1", "v")
	c.expect(":1\r\n", "ZCARD", "x")
}

// TestBZPopOtherTypes: a list or a string at the key does not serve a
// sorted-set waiter; a list waiter and a zset waiter on one key each get
// their own type.
func TestBZPopOtherTypes(t *testing.T) {
	env := newTestEnv(t)
	z, l, p := env.loopClient(), env.loopClient(), env.loopClient()
	z.do("BZPOPMIN", "k", "0")
	l.do("BLPOP", "k", "0")
	p.expect(":1\r\n", "RPUSH", "k", "v")
	l.expectWoken("*2\r\n$1\r\nk\r\n$1\r\nv\r\n")
	if z.woken() {
		t.Error("a list push woke the sorted-set waiter")
	}
	p.expect("+OK\r\n", "SET", "k", "s")
	p.expect(":1\r\n", "DEL", "k")
	p.expect(":1\r\n", "ZADD", "k", "3", "m")
	z.expectWoken("*3\r\n$1\r\nk\r\n$1\r\nm\r\n$1\r\n3\r\n")
}

func TestBZPopCommandInfo(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	got := c.do("COMMAND", "INFO", "bzpopmin", "bzmpop")
	for _, want := range []string{
		"$8\r\nbzpopmin\r\n:-3\r\n*4\r\n+write\r\n+noscript\r\n+blocking\r\n+fast\r\n:1\r\n:-2\r\n:1\r\n*4\r\n+@write\r\n+@sortedset\r\n+@fast\r\n+@blocking\r\n",
		"$6\r\nbzmpop\r\n:-5\r\n*3\r\n+write\r\n+blocking\r\n+movablekeys\r\n:0\r\n:0\r\n:0\r\n*4\r\n+@write\r\n+@sortedset\r\n+@slow\r\n+@blocking\r\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("COMMAND INFO lacks %q in %q", want, got)
		}
	}
}
