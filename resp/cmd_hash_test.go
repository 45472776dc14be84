package resp

import (
	"strings"
	"testing"
)

// Hash family tests through the in-process client. Expected replies are
// redis-server 7.0.15's; internal/compat checks the same against a live
// one.

const (
	hWrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	hNotInt    = "-ERR value is not an integer or out of range\r\n"
	hSyntax    = "-ERR syntax error\r\n"
)

func hbulk(s string) string { return "$" + itoa(len(s)) + "\r\n" + s + "\r\n" }

func harr(elems ...string) string { return "*" + itoa(len(elems)) + "\r\n" + strings.Join(elems, "") }

func hbulks(ss ...string) string {
	var out []string
	for _, s := range ss {
		out = append(out, hbulk(s))
	}
	return harr(out...)
}

func TestHashBasics(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("-ERR wrong number of arguments for 'hset' command\r\n", "HSET", "h", "a", "1", "b")
	c.expect("-ERR wrong number of arguments for 'hset' command\r\n", "HSET", "h", "a")
	c.expect("-ERR wrong number of arguments for 'hmset' command\r\n", "HmSeT", "h", "a", "1", "b")
	c.expect(":2\r\n", "HSET", "h", "a", "1", "b", "2", "a", "3")
	c.expect(hbulks("a", "3", "b", "2"), "HGETALL", "h")
	c.expect("+OK\r\n", "HMSET", "h", "c", "3")
	c.expect(":0\r\n", "HSETNX", "h", "c", "4")
	c.expect(":1\r\n", "HSETNX", "h", "d", "4")
	c.expect(hbulk("3"), "HGET", "h", "c")
	c.expect("$-1\r\n", "HGET", "h", "nosuch")
	c.expect("$-1\r\n", "HGET", "nosuch", "a")
	c.expect("*3\r\n$1\r\n3\r\n$-1\r\n$1\r\n2\r\n", "HMGET", "h", "a", "nosuch", "b")
	c.expect("*2\r\n$-1\r\n$-1\r\n", "HMGET", "nosuch", "a", "b")
	c.expect(hbulks("a", "b", "c", "d"), "HKEYS", "h")
	c.expect(hbulks("3", "2", "3", "4"), "HVALS", "h")
	c.expect(":4\r\n", "HLEN", "h")
	c.expect(":1\r\n", "HSTRLEN", "h", "a")
	c.expect(":0\r\n", "HSTRLEN", "h", "zz")
	c.expect(":1\r\n", "HEXISTS", "h", "a")
	c.expect(":0\r\n", "HEXISTS", "h", "zz")
	c.expect(":1\r\n", "HDEL", "h", "a", "zz", "a")
	c.expect(hbulks("b", "c", "d"), "HKEYS", "h")
	c.expect(":3\r\n", "HDEL", "h", "b", "c", "d")
	c.expect(":0\r\n", "EXISTS", "h")
	c.expect(":0\r\n", "HDEL", "h", "b")
	c.expect("*0\r\n", "HGETALL", "nosuch")
	c.expect("*0\r\n", "HKEYS", "nosuch")
	c.expect("*0\r\n", "HVALS", "nosuch")
	c.expect(":0\r\n", "HLEN", "nosuch")
	c.expect(":0\r\n", "HEXISTS", "nosuch", "a")
	c.expect(":0\r\n", "HSTRLEN", "nosuch", "a")
	c.expect("+none\r\n", "TYPE", "nosuch") // nothing above created it
}

func TestHashResp3(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.do("HELLO", "3")
	c.expect(":3\r\n", "HSET", "h", "a", "1", "b", "2", "c", "3")
	c.expect("%3\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n", "HGETALL", "h")
	c.expect("%0\r\n", "HGETALL", "nosuch")
	c.expect(hbulks("a", "b", "c"), "HKEYS", "h")
	c.expect("_\r\n", "HGET", "h", "x")
	c.expect("*2\r\n$1\r\n1\r\n_\r\n", "HMGET", "h", "a", "x")
	c.expect("*2\r\n_\r\n_\r\n", "HMGET", "nosuch", "a", "x")
	c.expect(":1\r\n", "HEXISTS", "h", "a")
	c.expect(hbulk("2.5"), "HINCRBYFLOAT", "h", "a", "1.5")
	c.expect("_\r\n", "HRANDFIELD", "nosuch")
	c.expect("*3\r\n*2\r\n$1\r\na\r\n$3\r\n2.5\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n", "HRANDFIELD", "h", "100", "WITHVALUES")
	c.expect("*2\r\n$1\r\n0\r\n*6\r\n$1\r\na\r\n$3\r\n2.5\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n", "HSCAN", "h", "0")
	// One field: every draw is that field.
	c.expect(":1\r\n", "HSET", "one", "f", "v")
	c.expect("*2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n", "HRANDFIELD", "one", "-2", "WITHVALUES")
	c.expect("*1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n", "HRANDFIELD", "one", "1", "WITHVALUES")
}

func TestHashIncr(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":5\r\n", "HINCRBY", "h", "n", "5")
	c.expect(hNotInt, "HINCRBY", "h", "n", "x")
	c.expect(hNotInt, "HINCRBY", "h", "n", " 1")
	c.expect(hNotInt, "HINCRBY", "h", "n", "01")
	c.expect("-ERR increment or decrement would overflow\r\n", "HINCRBY", "h", "n", "9223372036854775807")
	c.expect(":1\r\n", "HSET", "h", "s", "abc")
	c.expect("-ERR hash value is not an integer\r\n", "HINCRBY", "h", "s", "1")
	c.expect("-ERR hash value is not a float\r\n", "HINCRBYFLOAT", "h", "s", "1")
	c.expect(hbulk("1.5"), "HINCRBYFLOAT", "h", "f", "1.5")
	c.expect("-ERR value is NaN or Infinity\r\n", "HINCRBYFLOAT", "h", "f", "inf")
	c.expect("-ERR value is not a valid float\r\n", "HINCRBYFLOAT", "h", "f", "nan")
	c.expect("-ERR value is not a valid float\r\n", "HINCRBYFLOAT", "h", "f", "abc")
	c.expect(":1\r\n", "HSET", "h", "inf", "inf")
	c.expect("-ERR increment would produce NaN or Infinity\r\n", "HINCRBYFLOAT", "h", "inf", "1")
	c.expect(hbulk("10.5"), "HINCRBYFLOAT", "h", "g", "10.5")
	c.expect(hbulk("10.6"), "HINCRBYFLOAT", "h", "g", "0.1")
	c.expect(hbulk("16"), "HINCRBYFLOAT", "h", "hx", "0x10")
	c.expect(hbulk("0"), "HINCRBYFLOAT", "h", "neg", "-0")
	c.expect(":1\r\n", "HSET", "h", "e", "5e3")
	c.expect(hbulk("5001"), "HINCRBYFLOAT", "h", "e", "1")
	c.expect(hNotInt, "HINCRBY", "nosuch", "n", "x")
	c.expect(":0\r\n", "EXISTS", "nosuch")
	c.expect(":1\r\n", "HSET", "h", "big", "9223372036854775807")
	c.expect(hbulk("9223372036854775808"), "HINCRBYFLOAT", "h", "big", "1")
}

func TestHashWrongType(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "SET", "s", "x")
	for _, cmd := range [][]string{
		{"HSET", "s", "a", "1"}, {"HMSET", "s", "a", "1"}, {"HSETNX", "s", "a", "1"}, {"HGET", "s", "a"},
		{"HMGET", "s", "a"}, {"HGETALL", "s"}, {"HKEYS", "s"}, {"HVALS", "s"}, {"HDEL", "s", "a"},
		{"HLEN", "s"}, {"HEXISTS", "s", "a"}, {"HSTRLEN", "s", "a"}, {"HINCRBY", "s", "a", "1"},
		{"HINCRBYFLOAT", "s", "a", "1"}, {"HRANDFIELD", "s"}, {"HRANDFIELD", "s", "0"},
		{"HRANDFIELD", "s", "3", "WITHVALUES"}, {"HSCAN", "s", "0"}, {"HSCAN", "s", "0", "COUNT", "0"},
	} {
		c.expect(hWrongType, cmd...)
	}
	// Argument errors come before the type check.
	c.expect(hNotInt, "HINCRBY", "s", "a", "x")
	c.expect("-ERR value is not a valid float\r\n", "HINCRBYFLOAT", "s", "a", "x")
	c.expect("-ERR value is NaN or Infinity\r\n", "HINCRBYFLOAT", "s", "a", "-inf")
	c.expect(hNotInt, "HRANDFIELD", "s", "x")
	c.expect("-ERR invalid cursor\r\n", "HSCAN", "s", "x")
	c.expect(hbulk("x"), "GET", "s")
	c.expect(":1\r\n", "HSET", "h", "a", "1")
	c.expect(hWrongType, "GET", "h")
}

func TestHashRandField(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("$-1\r\n", "HRANDFIELD", "nosuch")
	c.expect("*0\r\n", "HRANDFIELD", "nosuch", "5")
	c.expect("*0\r\n", "HRANDFIELD", "nosuch", "-5", "WITHVALUES")
	c.expect(hSyntax, "HRANDFIELD", "nosuch", "5", "FOO")
	c.expect(hSyntax, "HRANDFIELD", "nosuch", "5", "WITHVALUES", "x")
	c.expect(hNotInt, "HRANDFIELD", "nosuch", "1.5")
	c.expect(":3\r\n", "HSET", "h", "a", "1", "b", "2", "c", "3")
	c.expect("*0\r\n", "HRANDFIELD", "h", "0")
	c.expect("*0\r\n", "HRANDFIELD", "h", "0", "WITHVALUES")
	c.expect("-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n", "HRANDFIELD", "h", "-9223372036854775808")
	c.expect("-ERR value is out of range\r\n", "HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES")
	c.expect("-ERR value is out of range\r\n", "HRANDFIELD", "h", "4611686018427387904", "withvalues")
	c.expect(hbulks("a", "b", "c"), "HRANDFIELD", "h", "4611686018427387904")
	c.expect(hbulks("a", "1", "b", "2", "c", "3"), "HRANDFIELD", "h", "3", "WITHVALUES")
	c.expect(hbulks("a", "1", "b", "2", "c", "3"), "HRANDFIELD", "h", "100", "withvalues\x00junk")
	// Shapes of the random replies.
	for i := 0; i < 50; i++ {
		if got := c.do("HRANDFIELD", "h"); got != hbulk("a") && got != hbulk("b") && got != hbulk("c") {
			t.Fatalf("HRANDFIELD h = %q", got)
		}
		got := c.do("HRANDFIELD", "h", "2")
		if !strings.HasPrefix(got, "*2\r\n") || strings.Count(got, "$1\r\n") != 2 {
			t.Fatalf("HRANDFIELD h 2 = %q", got)
		}
		got = c.do("HRANDFIELD", "h", "-5", "WITHVALUES")
		if !strings.HasPrefix(got, "*10\r\n") || strings.Count(got, "$1\r\n") != 10 {
			t.Fatalf("HRANDFIELD h -5 WITHVALUES = %q", got)
		}
	}
}

func TestHashScan(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	empty := "*2\r\n$1\r\n0\r\n*0\r\n"
	c.expect(empty, "HSCAN", "nosuch", "0")
	c.expect(empty, "HSCAN", "nosuch", "0", "COUNT", "0")
	c.expect(empty, "HSCAN", "nosuch", "0", "FOO")
	c.expect("-ERR invalid cursor\r\n", "HSCAN", "nosuch", "x")
	c.expect(":3\r\n", "HSET", "h", "a", "1", "b", "2", "c", "3")
	all := "*2\r\n$1\r\n0\r\n" + hbulks("a", "1", "b", "2", "c", "3")
	c.expect(all, "HSCAN", "h", "0", "COUNT", "1")
	c.expect(all, "HSCAN", "h", "5")
	c.expect(all, "HSCAN", "h", "-1")
	c.expect("*2\r\n$1\r\n0\r\n"+hbulks("b", "2"), "HSCAN", "h", "0", "MATCH", "b*")
	c.expect("*2\r\n$1\r\n0\r\n"+hbulks("c", "3"), "HSCAN", "h", "0", "match", "b*", "MATCH", "c*")
	c.expect(hSyntax, "HSCAN", "h", "0", "COUNT", "0")
	c.expect(hSyntax, "HSCAN", "h", "0", "COUNT", "-1")
	c.expect(hNotInt, "HSCAN", "h", "0", "COUNT", "x")
	c.expect(hSyntax, "HSCAN", "h", "0", "TYPE", "string")
	c.expect(hSyntax, "HSCAN", "h", "0", "MATCH")
	c.expect(hSyntax, "HSCAN", "h", "0", "NOVALUES")
	c.expect("-ERR invalid cursor\r\n", "HSCAN", "h", "18446744073709551616")

	// A hashtable: iterate to the end and get every field once or more.
	args := []string{"HSET", "big"}
	for i := 0; i < 1000; i++ {
		args = append(args, "f"+itoa(i), "v")
	}
	c.expect(":1000\r\n", args...)
	seen := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 1000 {
			t.Fatal("HSCAN does not end")
		}
		r := c.do("HSCAN", "big", cursor, "COUNT", "50")
		lines := strings.Split(r, "\r\n")
		cursor = lines[2]
		for i := 5; i+3 < len(lines); i += 4 {
			seen[lines[i]] = true
		}
		if cursor == "0" {
			break
		}
	}
	if len(seen) != 1000 {
		t.Fatalf("HSCAN returned %d distinct fields of 1000", len(seen))
	}
}

// TestHashEncoding follows OBJECT ENCODING through the conversions Redis
// makes, with thresholds changed by CONFIG SET.
func TestHashEncoding(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	lp, ht := hbulk("listpack"), hbulk("hashtable")
	l64, l65 := strings.Repeat("x", 64), strings.Repeat("x", 65)
	c.expect(":1\r\n", "HSET", "a", "f", l64)
	c.expect(lp, "OBJECT", "ENCODING", "a")
	c.expect(":1\r\n", "HSET", "b", "f", l65)
	c.expect(ht, "OBJECT", "ENCODING", "b")
	c.expect(":1\r\n", "HSET", "c", l65, "v")
	c.expect(ht, "OBJECT", "ENCODING", "c")
	c.expect(":1\r\n", "HSET", "d", "f", "v")
	c.expect(":0\r\n", "HSETNX", "d", "f", l65)
	c.expect(lp, "OBJECT", "ENCODING", "d")
	c.expect(":1\r\n", "HSETNX", "d", "g", l65)
	c.expect(ht, "OBJECT", "ENCODING", "d")
	c.expect(":1\r\n", "HINCRBY", "e", l65, "1")
	c.expect(ht, "OBJECT", "ENCODING", "e")
	c.expect(hbulk("1"), "HINCRBYFLOAT", "e2", l65, "1")
	c.expect(ht, "OBJECT", "ENCODING", "e2")
	c.expect(":1\r\n", "HSET", "e6", "f", "v")
	c.expect(":0\r\n", "HSET", "e6", "f", "v", "f", l65)
	c.expect(ht, "OBJECT", "ENCODING", "e6")
	c.expect(":0\r\n", "HDEL", "e4", l65)

	c.expect("+OK\r\n", "CONFIG", "SET", "hash-max-listpack-entries", "2")
	c.expect(":2\r\n", "HSET", "g", "a", "1", "b", "2")
	c.expect(lp, "OBJECT", "ENCODING", "g")
	c.expect(":1\r\n", "HSET", "g", "c", "3")
	c.expect(ht, "OBJECT", "ENCODING", "g")
	c.expect(":2\r\n", "HDEL", "g", "c", "b")
	c.expect(ht, "OBJECT", "ENCODING", "g") // one-way
	c.expect(":2\r\n", "HSET", "g3", "a", "1", "b", "2", "a", "3")
	c.expect(lp, "OBJECT", "ENCODING", "g3")
	c.expect("+OK\r\n", "CONFIG", "SET", "hash-max-listpack-entries", "0")
	c.expect(":1\r\n", "HINCRBY", "z", "a", "1")
	c.expect(ht, "OBJECT", "ENCODING", "z")
	c.expect("+OK\r\n", "CONFIG", "SET", "hash-max-listpack-entries", "512")
	c.expect("+OK\r\n", "CONFIG", "SET", "hash-max-listpack-value", "1")
	c.expect(":1\r\n", "HSET", "i", "f", "1")
	c.expect(lp, "OBJECT", "ENCODING", "i")
	c.expect(":10\r\n", "HINCRBY", "i", "f", "9")
	c.expect(ht, "OBJECT", "ENCODING", "i")
	c.expect("+OK\r\n", "CONFIG", "SET", "hash-max-listpack-value", "0")
	c.expect(":1\r\n", "HSET", "y", "", "")
	c.expect(lp, "OBJECT", "ENCODING", "y")
	// COPY and RENAME keep the encoding.
	c.expect(":1\r\n", "COPY", "g", "g2")
	c.expect(ht, "OBJECT", "ENCODING", "g2")
	c.expect("+OK\r\n", "RENAME", "y", "y2")
	c.expect(lp, "OBJECT", "ENCODING", "y2")
}

func TestHashCommandInfo(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	got := c.do("COMMAND", "INFO", "hset")
	for _, want := range []string{"$4\r\nhset\r\n:-4\r\n", "+write\r\n+denyoom\r\n+fast\r\n", "+@write\r\n+@hash\r\n+@fast\r\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("COMMAND INFO hset lacks %q: %q", want, got)
		}
	}
	got = c.do("COMMAND", "INFO", "hgetall")
	if !strings.Contains(got, "+@read\r\n+@hash\r\n+@slow\r\n") {
		t.Errorf("COMMAND INFO hgetall: %q", got)
	}
}

func TestHashKeyspaceStats(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.do("HSET", "h", "a", "1")
	c.do("HGET", "h", "a")
	c.do("HGET", "nosuch", "a")
	c.do("HLEN", "h")
	st := env.eng.Stats()
	if st.Hits != 2 || st.Misses != 1 {
		t.Errorf("hits %d misses %d, want 2 1", st.Hits, st.Misses)
	}
}

// TestHashRandFieldReplyLimit: a negative count whose reply outgrows the
// normal clients' output buffer limit is cut short and the connection
// closed, as Redis closes a client over the limit, instead of building a
// reply of any size.
func TestHashRandFieldReplyLimit(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
	c.expect(":1\r\n", "HSET", "h", "f", "v")
	// Past the limit the reply is dropped and the client closed, as Redis
	// frees a client over its output limit without writing its replies.
	got := c.do("HRANDFIELD", "h", "-4611686018427387903", "WITHVALUES")
	if got != "" {
		t.Fatalf("reply of %d bytes starting %q", len(got), got[:min(len(got), 40)])
	}
	if !c.closed {
		t.Fatal("connection not closed")
	}
}
