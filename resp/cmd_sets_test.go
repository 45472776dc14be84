package resp

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Tests of the set family through the in-process client. Every exact reply
// is what redis-server 7.0.15 sends for the same commands (checked with a
// raw client); internal/compat compares against a live server.

// setStep is a command and its reply in RESP2 and, when it differs, RESP3.
type setStep struct {
	args        []string
	want, want3 string
}

func sst(want string, args ...string) setStep { return setStep{args: args, want: want} }

func sst3(want, want3 string, args ...string) setStep {
	return setStep{args: args, want: want, want3: want3}
}

func runSetSteps(t *testing.T, steps []setStep) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		env := newTestEnv(t)
		c := env.client()
		if proto == 3 {
			c.do("HELLO", "3")
		}
		for _, s := range steps {
			want := s.want
			if proto == 3 && s.want3 != "" {
				want = s.want3
			}
			if got := c.do(s.args...); got != want {
				t.Errorf("resp%d %q: got %q, want %q", proto, s.args, got, want)
			}
		}
	}
}

const (
	sWrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	sSyntax    = "-ERR syntax error\r\n"
)

func TestSetCommandReplies(t *testing.T) {
	runSetSteps(t, []setStep{
		sst(":3\r\n", "SADD", "s", "3", "1", "2"),
		sst3("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", "~3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", "SMEMBERS", "s"),
		sst("$6\r\nintset\r\n", "OBJECT", "ENCODING", "s"),
		sst3("*0\r\n", "~0\r\n", "SMEMBERS", "nosuch"),
		sst3("*0\r\n", "~0\r\n", "SPOP", "s", "0"),
		sst("-ERR value is out of range, must be positive\r\n", "SPOP", "s", "-1"),
		sst("-ERR value is out of range, must be positive\r\n", "SPOP", "s", "abc"),
		sst(sSyntax, "SPOP", "s", "1", "2"),
		sst3("$-1\r\n", "_\r\n", "SPOP", "nosuch"),
		sst3("*0\r\n", "~0\r\n", "SPOP", "nosuch", "2"),
		sst3("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", "~3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", "SPOP", "s", "10"),
		sst(":0\r\n", "EXISTS", "s"),
		sst3("$-1\r\n", "_\r\n", "SRANDMEMBER", "nosuch"),
		sst("*0\r\n", "SRANDMEMBER", "nosuch", "3"),
		sst(":5\r\n", "SADD", "s", "5", "4", "3", "2", "1"),
		sst("*0\r\n", "SRANDMEMBER", "s", "0"),
		sst("*5\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n$1\r\n5\r\n", "SRANDMEMBER", "s", "10"),
		sst("-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n", "SRANDMEMBER", "s", "-9223372036854775808"),
		sst("-ERR value is not an integer or out of range\r\n", "SRANDMEMBER", "s", "abc"),
		sst(sSyntax, "SRANDMEMBER", "s", "1", "2"),
		sst("*2\r\n:1\r\n:0\r\n", "SMISMEMBER", "s", "1", "9"),
		sst("*1\r\n:0\r\n", "SMISMEMBER", "nosuch", "1"),
		sst(":1\r\n", "SISMEMBER", "s", "5"),
		sst(":0\r\n", "SISMEMBER", "s", "05"),
		sst(":5\r\n", "SCARD", "s"),
		sst("*2\r\n$1\r\n0\r\n*5\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n$1\r\n5\r\n", "SSCAN", "s", "7", "COUNT", "1"),
		sst("*2\r\n$1\r\n0\r\n*0\r\n", "SSCAN", "nosuch", "0", "COUNT", "0"),
		sst("-ERR invalid cursor\r\n", "SSCAN", "nosuch", "x"),
		sst(sSyntax, "SSCAN", "s", "0", "COUNT", "0"),
		sst("-ERR value is not an integer or out of range\r\n", "SSCAN", "s", "0", "COUNT", "x"),
		sst(sSyntax, "SSCAN", "s", "0", "TYPE", "set"),
		sst("*2\r\n$1\r\n0\r\n*1\r\n$1\r\n1\r\n", "SSCAN", "s", "0", "MATCH", "1*"),
	})
}

func TestSetMultiKeyReplies(t *testing.T) {
	runSetSteps(t, []setStep{
		sst("+OK\r\n", "SET", "str", "v"),
		sst(sWrongType, "SINTER", "nosuch", "str"),
		sst(sWrongType, "SUNION", "nosuch", "str"),
		sst(sWrongType, "SDIFF", "str", "nosuch"),
		sst(sWrongType, "SINTERCARD", "2", "nosuch", "str"),
		sst(sWrongType, "SINTERSTORE", "d", "nosuch", "str"),
		sst(":1\r\n", "SADD", "a", "1"),
		sst(":0\r\n", "SINTERSTORE", "str", "a", "nosuch"),
		sst("+none\r\n", "TYPE", "str"),
		sst("+OK\r\n", "SET", "str", "v"),
		sst(":0\r\n", "SMOVE", "nosuch", "str", "m"),
		sst(sWrongType, "SMOVE", "a", "str", "m"),
		sst(sWrongType, "SMOVE", "str", "a", "1"),
		sst(":1\r\n", "SMOVE", "a", "a", "1"),
		sst(":0\r\n", "SMOVE", "a", "a", "2"),
		sst("-ERR numkeys should be greater than 0\r\n", "SINTERCARD", "0", "a"),
		sst("-ERR numkeys should be greater than 0\r\n", "SINTERCARD", "x", "a"),
		sst("-ERR Number of keys can't be greater than number of args\r\n", "SINTERCARD", "2", "a"),
		sst(sSyntax, "SINTERCARD", "1", "a", "LIMIT"),
		sst("-ERR LIMIT can't be negative\r\n", "SINTERCARD", "1", "a", "LIMIT", "-1"),
		sst("-ERR LIMIT can't be negative\r\n", "SINTERCARD", "1", "str", "LIMIT", "x"),
		sst(":1\r\n", "SINTERCARD", "1", "a", "limit", "5", "LIMIT", "1"),
		sst(sSyntax, "SINTERCARD", "1", "a", "b", "c"),
		sst(":5\r\n", "SADD", "big", "5", "4", "3", "2", "1"),
		sst(":3\r\n", "SINTERCARD", "1", "big", "LIMIT", "3"),
		sst(":5\r\n", "SINTERCARD", "2", "big", "big", "LIMIT", "0"),
		sst(":3\r\n", "SADD", "m", "-9223372036854775808", "9223372036854775807", "0"),
		sst3("*3\r\n$20\r\n-9223372036854775808\r\n$1\r\n0\r\n$19\r\n9223372036854775807\r\n",
			"~3\r\n$20\r\n-9223372036854775808\r\n$1\r\n0\r\n$19\r\n9223372036854775807\r\n", "SMEMBERS", "m"),
		sst3("*8\r\n$20\r\n-9223372036854775808\r\n$1\r\n0\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n$1\r\n5\r\n$19\r\n9223372036854775807\r\n",
			"~8\r\n$20\r\n-9223372036854775808\r\n$1\r\n0\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n$1\r\n5\r\n$19\r\n9223372036854775807\r\n", "SUNION", "m", "big", "a", "nosuch"),
		sst(":2\r\n", "SREM", "big", "2", "4"),
		sst3("*2\r\n$1\r\n3\r\n$1\r\n5\r\n", "~2\r\n$1\r\n3\r\n$1\r\n5\r\n", "SDIFF", "big", "a"),
		sst3("*1\r\n$1\r\n1\r\n", "~1\r\n$1\r\n1\r\n", "SINTER", "big", "a"),
		sst(":2\r\n", "SDIFFSTORE", "str", "big", "a"),
		sst("$6\r\nintset\r\n", "OBJECT", "ENCODING", "str"),
		sst("-ERR wrong number of arguments for 'sintercard' command\r\n", "SINTERCARD", "1"),
		sst("-ERR wrong number of arguments for 'sadd' command\r\n", "SADD", "a"),
	})
}

// TestSetRepliesAfterOthers checks that a deferred header lands in front
// of its own members when earlier replies share the output buffer.
func TestSetRepliesAfterOthers(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	got := c.raw(encodeCommand("SADD", "s", "2", "1") + encodeCommand("SMEMBERS", "s") + encodeCommand("SET", "str", "v") +
		encodeCommand("SMEMBERS", "str") + encodeCommand("SSCAN", "s", "0") + encodeCommand("PING"))
	want := ":2\r\n*2\r\n$1\r\n1\r\n$1\r\n2\r\n+OK\r\n" + sWrongType + "*2\r\n$1\r\n0\r\n*2\r\n$1\r\n1\r\n$1\r\n2\r\n+PONG\r\n"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// parseBulks reads an aggregate of bulk strings (header included).
func parseBulks(t *testing.T, s string) []string {
	t.Helper()
	if len(s) == 0 || (s[0] != '*' && s[0] != '~') {
		t.Fatalf("not an aggregate: %q", s)
	}
	end := strings.Index(s, "\r\n")
	n, _ := strconv.Atoi(s[1:end])
	s = s[end+2:]
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		end := strings.Index(s, "\r\n")
		l, _ := strconv.Atoi(s[1:end])
		out = append(out, s[end+2:end+2+l])
		s = s[end+2+l+2:]
	}
	if s != "" {
		t.Fatalf("trailing bytes %q", s)
	}
	return out
}

func TestSetSScanHashtable(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	args := []string{"SADD", "h"}
	for i := 0; i < 1000; i++ {
		args = append(args, fmt.Sprintf("m:%d", i))
	}
	c.expect(":1000\r\n", args...)
	c.expect("$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "h")
	for _, opts := range [][]string{nil, {"COUNT", "7"}, {"MATCH", "m:1*", "COUNT", "50"}} {
		seen := map[string]int{}
		cursor := "0"
		for calls := 0; ; calls++ {
			rep := c.do(append([]string{"SSCAN", "h", cursor}, opts...)...)
			// *2 $len cursor <array>
			rest := rep[len("*2\r\n"):]
			end := strings.Index(rest, "\r\n")
			l, _ := strconv.Atoi(rest[1:end])
			cursor = rest[end+2 : end+2+l]
			for _, m := range parseBulks(t, rest[end+2+l+2:]) {
				seen[m]++
			}
			if cursor == "0" {
				break
			}
			if calls > 10000 {
				t.Fatal("SSCAN does not end")
			}
		}
		want := 0
		for i := 0; i < 1000; i++ {
			m := fmt.Sprintf("m:%d", i)
			if len(opts) > 0 && opts[0] == "MATCH" && !strings.HasPrefix(m, "m:1") {
				continue
			}
			want++
			if seen[m] != 1 {
				t.Fatalf("SSCAN %v: %s seen %d times", opts, m, seen[m])
			}
		}
		if len(seen) != want {
			t.Fatalf("SSCAN %v: %d members, want %d", opts, len(seen), want)
		}
	}
}

func TestSetRandomReplies(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	members := map[string]bool{}
	args := []string{"SADD", "h"}
	for i := 0; i < 50; i++ {
		m := fmt.Sprintf("m%d", i)
		members[m] = true
		args = append(args, m)
	}
	c.expect(":50\r\n", args...)
	check := func(rep string, n int, distinct bool) []string {
		t.Helper()
		got := parseBulks(t, rep)
		if len(got) != n {
			t.Fatalf("%d members, want %d", len(got), n)
		}
		seen := map[string]bool{}
		for _, m := range got {
			if !members[m] || (distinct && seen[m]) {
				t.Fatalf("%q foreign or repeated in %v", m, got)
			}
			seen[m] = true
		}
		return got
	}
	for _, n := range []int{1, 3, 16, 17, 30, 49, 50} {
		check(c.do("SRANDMEMBER", "h", strconv.Itoa(n)), n, true)
	}
	check(c.do("SRANDMEMBER", "h", "-200"), 200, false)
	popped := check(c.do("SPOP", "h", "5"), 5, true)
	for _, m := range popped {
		delete(members, m)
	}
	c.expect(":45\r\n", "SCARD", "h")
	popped = check(c.do("SPOP", "h", "44"), 44, true) // keeps one in a new set
	for _, m := range popped {
		delete(members, m)
	}
	var last string
	for m := range members {
		last = m
	}
	c.expect("*1\r\n$"+strconv.Itoa(len(last))+"\r\n"+last+"\r\n", "SMEMBERS", "h")
	c.expect("$"+strconv.Itoa(len(last))+"\r\n"+last+"\r\n", "SPOP", "h")
	c.expect(":0\r\n", "EXISTS", "h")
}

// TestSetIntsetLimitFromConfig: CONFIG SET applies to the next command.
func TestSetIntsetLimitFromConfig(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "CONFIG", "SET", "set-max-intset-entries", "2")
	c.expect(":2\r\n", "SADD", "s", "1", "2")
	c.expect("$6\r\nintset\r\n", "OBJECT", "ENCODING", "s")
	c.expect(":1\r\n", "SADD", "s", "3")
	c.expect("$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "s")
	rep := parseBulks(t, c.do("SMEMBERS", "s"))
	sort.Strings(rep)
	if strings.Join(rep, ",") != "1,2,3" {
		t.Fatalf("members %v", rep)
	}
}

func TestSetCommandsAllocateNothing(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":3\r\n", "SADD", "s", "1", "2", "3")
	c.expect(":2\r\n", "SADD", "h", "a", "b")
	for _, args := range [][]string{
		{"SISMEMBER", "s", "2"}, {"SISMEMBER", "h", "a"}, {"SCARD", "h"}, {"SADD", "h", "a"},
		{"SMEMBERS", "s"}, {"SMEMBERS", "h"}, {"SMISMEMBER", "h", "a", "x"},
	} {
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		cmd := env.fe.table.Lookup(bargs[0], nil)
		c.c.w.Buf = make([]byte, 0, 256)
		allocs := testing.AllocsPerRun(100, func() {
			c.c.w.Buf = c.c.w.Buf[:0]
			cmd.Run(c.c, bargs)
		})
		if allocs != 0 {
			t.Errorf("%v: %v allocations", args, allocs)
		}
	}
}
