package resp

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandemkv/tandem/engine"
)

// Tests of the generic key family. Every expected reply is what
// redis-server 7.0.15 sends for the same commands; steps that move the
// clock are the only ones that could not be replayed against it verbatim.

// keyStep is one command and its exact reply, or a clock move.
type keyStep struct {
	args     []string
	want     string
	sorted   bool          // the reply holds keys in no set order: compare its arrays sorted
	advance  time.Duration // move the clock by this much instead of sending a command
	selectDB int           // n+1: switch the client to database n instead (SELECT is another family's)
}

// keyCase is a sequence of steps on a fresh server and client.
type keyCase struct {
	name   string
	resp3  bool
	config [][2]string // CONFIG SET before the steps
	steps  []keyStep
	// testClock marks a case whose replies depend on the test clock (its
	// absolute time, or no millisecond passing between two commands), so
	// it cannot be replayed reliably against a real server.
	testClock bool
}

// kst is a step: want is the reply to args.
func kst(want string, args ...string) keyStep { return keyStep{args: args, want: want} }

// kstSorted is kst for replies listing keys.
func kstSorted(want string, args ...string) keyStep {
	return keyStep{args: args, want: want, sorted: true}
}

// kadv moves the clock.
func kadv(d time.Duration) keyStep { return keyStep{advance: d} }

// ksel switches the client to database n.
func ksel(n int) keyStep { return keyStep{selectDB: n + 1} }

const (
	kOK    = "+OK\r\n"
	kZero  = ":0\r\n"
	kOne   = ":1\r\n"
	kTwo   = ":2\r\n"
	kNil   = "$-1\r\n"
	kNull3 = "_\r\n"
)

func kErr(msg string) string { return "-" + msg + "\r\n" }

func kInt(n int64) string { return ":" + strconv.FormatInt(n, 10) + "\r\n" }

func kBulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// kArr is an array of bulk strings.
func kArr(items ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(items)) + "\r\n")
	for _, s := range items {
		b.WriteString(kBulk(s))
	}
	return b.String()
}

// kScan is SCAN's [cursor, keys] reply.
func kScan(cursor string, keys ...string) string {
	return "*2\r\n" + kBulk(cursor) + kArr(keys...)
}

func kWrongArgs(name string) string { return kErr(WrongArgs(name)) }

// runKeyCases runs each case on a fresh in-process server. With
// TANDEM_REF_REDIS=host:port it instead replays every case that does not
// depend on the test clock against that real redis-server (FLUSHALL
// first), which is how the expected replies here were checked; the cases
// that do still run in-process, so that mode checks no fewer cases.
func runKeyCases(t *testing.T, cases []keyCase) {
	t.Helper()
	ref := os.Getenv("TANDEM_REF_REDIS")
	for _, kc := range cases {
		t.Run(kc.name, func(t *testing.T) {
			if ref != "" && !kc.dependsOnClock() {
				replayKeyCase(t, ref, kc)
				return
			}
			runKeyCase(t, kc)
		})
	}
}

// dependsOnClock reports whether kc's replies depend on the test clock,
// which a real redis-server does not have.
func (kc keyCase) dependsOnClock() bool {
	if kc.testClock {
		return true
	}
	for _, s := range kc.steps {
		if s.advance != 0 {
			return true
		}
	}
	return false
}

// runKeyCase runs kc on a fresh in-process server.
func runKeyCase(t *testing.T, kc keyCase) {
	env := newTestEnv(t)
	if len(kc.config) > 0 {
		if err := env.cfg.Set(kc.config...); err != nil {
			t.Fatal(err)
		}
	}
	c := env.client()
	if kc.resp3 {
		c.c.w.Proto = 3
		c.c.proto.Store(3)
	}
	for i, s := range kc.steps {
		if s.advance != 0 {
			env.clock.Advance(s.advance)
			continue
		}
		if s.selectDB != 0 {
			c.c.selectDB(s.selectDB - 1)
			continue
		}
		got := c.do(s.args...)
		want := s.want
		if s.sorted {
			got, want = ksortReply(t, got), ksortReply(t, want)
		}
		if got != want {
			t.Errorf("step %d %q:\n got %q\nwant %q", i, s.args, got, want)
		}
	}
}

// ksortReply re-encodes a reply with the elements of every array of bulk
// strings sorted, for replies whose order is not defined (KEYS, SCAN).
func ksortReply(t *testing.T, s string) string {
	t.Helper()
	v, rest := kparseReply(t, s)
	if rest != "" {
		t.Fatalf("trailing bytes after reply: %q", rest)
	}
	return kencodeSorted(v)
}

// kparseReply parses one RESP2 reply: arrays become []any, bulk
// strings string, anything else is kept as its raw line.
func kparseReply(t *testing.T, s string) (any, string) {
	t.Helper()
	i := strings.Index(s, "\r\n")
	if i < 0 {
		t.Fatalf("incomplete reply %q", s)
	}
	line, rest := s[:i], s[i+2:]
	switch line[0] {
	case '*':
		n, _ := strconv.Atoi(line[1:])
		var arr []any
		for ; n > 0; n-- {
			var v any
			v, rest = kparseReply(t, rest)
			arr = append(arr, v)
		}
		return arr, rest
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return line, rest
		}
		return rest[:n], rest[n+2:]
	}
	return line, rest
}

func kencodeSorted(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		allBulk := true
		for i, e := range v {
			parts[i] = kencodeSorted(e)
			if _, isStr := e.(string); !isStr || strings.HasPrefix(parts[i], ":") {
				allBulk = false
			}
		}
		if allBulk {
			sort.Strings(parts)
		}
		return "*" + strconv.Itoa(len(v)) + "\r\n" + strings.Join(parts, "")
	case string:
		return kBulk(v)
	}
	return fmt.Sprint(v)
}

func TestKeyDelExistsTouch(t *testing.T) {
	runKeyCases(t, []keyCase{
		{name: "del", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "2"), kst(kOK, "SET", "c", "3"),
			kst(kOne, "DEL", "a"), kst(kZero, "DEL", "a"), kst(kTwo, "DEL", "b", "c", "nosuch"),
			kst(kZero, "EXISTS", "a", "b", "c"),
		}},
		{name: "del repeated key counts once", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOne, "DEL", "a", "a", "a"),
		}},
		{name: "unlink", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "2"),
			kst(kTwo, "UNLINK", "a", "b", "c"), kst(kZero, "EXISTS", "a", "b"),
		}},
		{name: "del of an expired key", steps: []keyStep{
			kst(kOK, "SET", "a", "1", "PX", "100"), kadv(101 * time.Millisecond), kst(kZero, "DEL", "a"),
		}},
		{name: "exists counts repeats", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "2"),
			kst(kOne, "EXISTS", "a"), kst(kZero, "EXISTS", "nosuch"),
			kst(":5\r\n", "EXISTS", "a", "a", "b", "b", "a", "nosuch"),
		}},
		{name: "exists expiry boundary", steps: []keyStep{
			kst(kOK, "SET", "a", "1", "PX", "100"), kadv(99 * time.Millisecond), kst(kOne, "EXISTS", "a"),
			kadv(2 * time.Millisecond), kst(kZero, "EXISTS", "a"),
		}},
		{name: "touch", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "2"),
			kst(":3\r\n", "TOUCH", "a", "b", "nosuch", "a"), kst(kZero, "TOUCH", "nosuch"),
		}},
		{name: "arity", steps: []keyStep{
			kst(kWrongArgs("del"), "DEL"), kst(kWrongArgs("unlink"), "UNLINK"),
			kst(kWrongArgs("exists"), "EXISTS"), kst(kWrongArgs("touch"), "TOUCH"),
			kst(kWrongArgs("del"), "dEl"),
		}},
	})
}

func TestExpireFamily(t *testing.T) {
	const nxErr = "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"
	const gtltErr = "-ERR GT and LT options at the same time are not compatible\r\n"
	notInt := kErr(ErrNotInteger)
	runKeyCases(t, []keyCase{
		{name: "expire and ttl", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "100"),
			kst(":100\r\n", "TTL", "k"), kst(":100000\r\n", "PTTL", "k"),
			kadv(30 * time.Second), kst(":70\r\n", "TTL", "k"),
			kadv(70*time.Second - time.Millisecond), kst(kOne, "PTTL", "k"), kst(kZero, "TTL", "k"),
			kadv(2 * time.Millisecond), kst(":-2\r\n", "TTL", "k"), kst(":-2\r\n", "PTTL", "k"), kst(kZero, "EXISTS", "k"),
		}},
		{name: "ttl rounds to the nearest second", testClock: true, steps: []keyStep{
			kst(kOK, "SET", "k", "v"),
			kst(kOne, "PEXPIRE", "k", "1500"), kst(kTwo, "TTL", "k"),
			kst(kOne, "PEXPIRE", "k", "1499"), kst(kOne, "TTL", "k"),
			kst(kOne, "PEXPIRE", "k", "500"), kst(kOne, "TTL", "k"),
			kst(kOne, "PEXPIRE", "k", "499"), kst(kZero, "TTL", "k"), kst(":499\r\n", "PTTL", "k"),
		}},
		{name: "missing key", steps: []keyStep{
			kst(kZero, "EXPIRE", "nosuch", "100"), kst(kZero, "PEXPIRE", "nosuch", "100"),
			kst(kZero, "EXPIREAT", "nosuch", "32503680000"), kst(kZero, "PEXPIREAT", "nosuch", "32503680000000"),
			kst(kZero, "EXPIRE", "nosuch", "100", "NX"), kst(kZero, "EXPIRE", "nosuch", "100", "XX", "GT"),
			kst(":-2\r\n", "TTL", "nosuch"), kst(":-2\r\n", "PTTL", "nosuch"),
			kst(":-2\r\n", "EXPIRETIME", "nosuch"), kst(":-2\r\n", "PEXPIRETIME", "nosuch"),
			kst(kZero, "PERSIST", "nosuch"),
		}},
		{name: "no expiry", steps: []keyStep{
			kst(kOK, "SET", "k", "v"),
			kst(":-1\r\n", "TTL", "k"), kst(":-1\r\n", "PTTL", "k"),
			kst(":-1\r\n", "EXPIRETIME", "k"), kst(":-1\r\n", "PEXPIRETIME", "k"),
		}},
		{name: "expireat and expiretime", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIREAT", "k", "32503680000"),
			kst(":32503680000\r\n", "EXPIRETIME", "k"), kst(":32503680000000\r\n", "PEXPIRETIME", "k"),
			kst(kOne, "PEXPIREAT", "k", "32503680000555"),
			kst(":32503680000555\r\n", "PEXPIRETIME", "k"), kst(":32503680001\r\n", "EXPIRETIME", "k"),
		}},
		{name: "expiretime rounds like ttl", steps: []keyStep{
			kst(kOK, "SET", "k", "v"),
			kst(kOne, "PEXPIREAT", "k", "4000000000499"), kst(":4000000000\r\n", "EXPIRETIME", "k"),
			kst(kOne, "PEXPIREAT", "k", "4000000000500"), kst(":4000000001\r\n", "EXPIRETIME", "k"),
			kst(":4000000000500\r\n", "PEXPIRETIME", "k"),
		}},
		{name: "relative expiry against the clock", testClock: true, steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "10"),
			kst(":1700000010\r\n", "EXPIRETIME", "k"), kst(":1700000010000\r\n", "PEXPIRETIME", "k"),
			kst(kOne, "PEXPIRE", "k", "1"), kst(":1700000000001\r\n", "PEXPIRETIME", "k"),
		}},
		{name: "zero negative and past delete", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "0"), kst(kZero, "EXISTS", "k"),
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "-10"), kst(kZero, "EXISTS", "k"),
			kst(kOK, "SET", "k", "v"), kst(kOne, "PEXPIRE", "k", "-1"), kst(kZero, "EXISTS", "k"),
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIREAT", "k", "1000"), kst(kZero, "EXISTS", "k"),
			kst(kOK, "SET", "k", "v"), kst(kOne, "PEXPIREAT", "k", "0"), kst(kNil, "GET", "k"),
			kst(kOK, "SET", "k", "v"), kst(kOne, "PEXPIREAT", "k", "-9223372036854775808"), kst(kZero, "EXISTS", "k"),
		}},
		{name: "expiring now deletes", testClock: true, steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "PEXPIREAT", "k", "1700000000000"), kst(kZero, "EXISTS", "k"),
			kst(kOK, "SET", "k", "v"), kst(kOne, "PEXPIREAT", "k", "1700000000001"), kst(kOne, "EXISTS", "k"),
		}},
		{name: "not an integer", steps: []keyStep{
			kst(kOK, "SET", "k", "v"),
			kst(notInt, "EXPIRE", "k", "abc"), kst(notInt, "EXPIRE", "k", "1.5"),
			kst(notInt, "PEXPIRE", "k", "1e3"), kst(notInt, "EXPIREAT", "k", "x"),
			kst(notInt, "EXPIRE", "k", "10\x00"), kst(notInt, "EXPIRE", "k", ""),
			kst(notInt, "EXPIRE", "nosuch", "abc"), kst(notInt, "EXPIRE", "k", "+5"),
			kst(":-1\r\n", "TTL", "k"),
		}},
		{name: "overflow", steps: []keyStep{
			kst(kOK, "SET", "k", "v"),
			kst("-ERR invalid expire time in 'expire' command\r\n", "EXPIRE", "k", "9223372036854775807"),
			kst("-ERR invalid expire time in 'pexpire' command\r\n", "PEXPIRE", "k", "9223372036854775807"),
			kst("-ERR invalid expire time in 'expireat' command\r\n", "EXPIREAT", "k", "9223372036854775807"),
			kst("-ERR invalid expire time in 'expire' command\r\n", "EXPIRE", "k", "9223372036854775"),
			kst("-ERR invalid expire time in 'expire' command\r\n", "EXPIRE", "k", "9223372036854776"),
			kst("-ERR invalid expire time in 'expireat' command\r\n", "EXPIREAT", "k", "9223372036854776"),
			kst("-ERR invalid expire time in 'expire' command\r\n", "EXPIRE", "k", "-9223372036854776"),
			kst("-ERR invalid expire time in 'expire' command\r\n", "EXPIRE", "nosuch", "9223372036854776"),
			kst("-ERR invalid expire time in 'expire' command\r\n", "EXPIRE", "k", "-9223372036854775808"),
			kst(kOne, "EXISTS", "k"),
			kst(kOne, "EXPIRE", "k", "9223372036"), kst(":9223372036\r\n", "TTL", "k"),
			kst(kOne, "PEXPIREAT", "k", "9223372036854775807"), kst(":9223372036854775807\r\n", "PEXPIRETIME", "k"),
			kst(kOne, "EXPIREAT", "k", "9223372036854775"), kst(":9223372036854775\r\n", "EXPIRETIME", "k"),
			kst(kOne, "PEXPIRE", "k", "-9223372036854775808"), kst(kZero, "EXISTS", "k"),
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "-9223372036854775"), kst(kZero, "EXISTS", "k"),
		}},
		{name: "nx", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "100", "NX"),
			kst(kZero, "EXPIRE", "k", "200", "NX"), kst(":100\r\n", "TTL", "k"),
			kst(kZero, "EXPIRE", "k", "10", "nX"),
		}},
		{name: "xx", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kZero, "EXPIRE", "k", "100", "XX"), kst(":-1\r\n", "TTL", "k"),
			kst(kOne, "EXPIRE", "k", "100"), kst(kOne, "EXPIRE", "k", "200", "XX"), kst(":200\r\n", "TTL", "k"),
		}},
		{name: "gt", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kZero, "EXPIRE", "k", "100", "GT"), kst(":-1\r\n", "TTL", "k"),
			kst(kOne, "EXPIRE", "k", "100"), kst(kZero, "EXPIRE", "k", "50", "GT"),
			kst(kZero, "EXPIRE", "k", "100", "GT"), kst(kOne, "EXPIRE", "k", "200", "gt"),
			kst(":200\r\n", "TTL", "k"),
			kst(kZero, "EXPIRE", "k", "-1", "GT"), kst(kOne, "EXISTS", "k"),
		}},
		{name: "lt", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "100", "LT"), kst(":100\r\n", "TTL", "k"),
			kst(kOne, "EXPIRE", "k", "50", "LT"), kst(kZero, "EXPIRE", "k", "50", "LT"),
			kst(kZero, "EXPIRE", "k", "200", "LT"), kst(":50\r\n", "TTL", "k"),
			kst(kOK, "SET", "j", "v"), kst(kOne, "EXPIRE", "j", "-5", "LT"), kst(kZero, "EXISTS", "j"),
		}},
		{name: "xx with gt and lt", steps: []keyStep{
			kst(kOK, "SET", "k", "v", "EX", "50"), kst(kOne, "EXPIRE", "k", "100", "XX", "GT"),
			kst(":100\r\n", "TTL", "k"), kst(kOne, "EXPIRE", "k", "10", "XX", "LT"),
			kst(":10\r\n", "TTL", "k"), kst(kOK, "SET", "j", "v"), kst(kZero, "EXPIRE", "j", "10", "XX", "LT"),
			kst(kOne, "EXPIRE", "k", "20", "GT", "GT"),
		}},
		{name: "option conflicts", steps: []keyStep{
			kst(kOK, "SET", "k", "v"),
			kst(nxErr, "EXPIRE", "k", "100", "NX", "XX"), kst(nxErr, "EXPIRE", "k", "100", "NX", "GT"),
			kst(nxErr, "EXPIRE", "k", "100", "NX", "LT"), kst(nxErr, "EXPIRE", "k", "100", "xx", "nx"),
			kst(gtltErr, "EXPIRE", "k", "100", "GT", "LT"), kst(gtltErr, "PEXPIREAT", "k", "100", "lt", "gt"),
			kst(nxErr, "EXPIRE", "k", "100", "NX", "GT", "LT"),
			kst(nxErr, "EXPIRE", "k", "abc", "NX", "XX"), // options before the time
			kst(nxErr, "EXPIRE", "nosuch", "100", "NX", "XX"),
			kst(":-1\r\n", "TTL", "k"),
		}},
		{name: "unsupported option", steps: []keyStep{
			kst(kOK, "SET", "k", "v"),
			kst("-ERR Unsupported option FOO\r\n", "EXPIRE", "k", "100", "FOO"),
			kst("-ERR Unsupported option foo\r\n", "EXPIRE", "k", "100", "nx", "foo"),
			kst("-ERR Unsupported option foo\r\n", "EXPIRE", "k", "abc", "foo"),
			kst("-ERR Unsupported option foo\r\n", "PEXPIRE", "k", "100", "foo", "NX", "XX"),
			kst("-ERR Unsupported option fo\r\n", "EXPIRE", "k", "10", "fo\x00o"),
			kst("-ERR Unsupported option f  o\r\n", "EXPIRE", "k", "10", "f\r\no"),
			kst("-ERR Unsupported option \r\n", "EXPIRE", "k", "10", ""),
			kst(":-1\r\n", "TTL", "k"),
		}},
		{name: "options compare as C strings", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "10", "nx\x00zz"), kst(":10\r\n", "TTL", "k"),
		}},
		{name: "persist", steps: []keyStep{
			kst(kOK, "SET", "k", "v", "EX", "100"), kst(kOne, "PERSIST", "k"), kst(kZero, "PERSIST", "k"),
			kst(":-1\r\n", "TTL", "k"), kst(kZero, "PERSIST", "nosuch"),
			kadv(200 * time.Second), kst(kOne, "EXISTS", "k"),
		}},
		{name: "set clears expiry", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kOne, "EXPIRE", "k", "100"), kst(kOK, "SET", "k", "w"), kst(":-1\r\n", "TTL", "k"),
		}},
		{name: "arity", steps: []keyStep{
			kst(kWrongArgs("expire"), "EXPIRE", "k"), kst(kWrongArgs("pexpire"), "PEXPIRE", "k"),
			kst(kWrongArgs("expireat"), "EXPIREAT", "k"), kst(kWrongArgs("pexpireat"), "PEXPIREAT"),
			kst(kWrongArgs("ttl"), "TTL"), kst(kWrongArgs("ttl"), "TTL", "a", "b"),
			kst(kWrongArgs("pttl"), "PTTL"), kst(kWrongArgs("expiretime"), "EXPIRETIME", "a", "b"),
			kst(kWrongArgs("pexpiretime"), "PEXPIRETIME"), kst(kWrongArgs("persist"), "PERSIST", "a", "b"),
		}},
	})
}

func TestKeyTypeKeysRandom(t *testing.T) {
	// patternKeys is a keyspace for KEYS patterns.
	patternKeys := []keyStep{}
	for i, k := range []string{"hello", "hallo", "hxllo", "hllo", "heeello", "h*llo", "h?llo", "h[a]llo", "foo", "foo:bar", "-x", "]x", "\\x"} {
		patternKeys = append(patternKeys, kst(kOK, "SET", k, strconv.Itoa(i)))
	}
	keysCase := func(pattern string, want ...string) keyCase {
		return keyCase{name: "keys " + pattern, steps: append(append([]keyStep{}, patternKeys...), kstSorted(kArr(want...), "KEYS", pattern))}
	}
	runKeyCases(t, []keyCase{
		{name: "type", steps: []keyStep{
			kst(kOK, "SET", "str", "v"), kst(kOK, "SET", "n", "123"),
			kst("+string\r\n", "TYPE", "str"), kst("+string\r\n", "TYPE", "n"), kst("+none\r\n", "TYPE", "nosuch"),
			kst(kWrongArgs("type"), "TYPE"), kst(kWrongArgs("type"), "TYPE", "a", "b"),
		}},
		{name: "type of an expired key", steps: []keyStep{
			kst(kOK, "SET", "k", "v", "PX", "10"), kadv(11 * time.Millisecond), kst("+none\r\n", "TYPE", "k"),
		}},
		keysCase("*", "hello", "hallo", "hxllo", "hllo", "heeello", "h*llo", "h?llo", "h[a]llo", "foo", "foo:bar", "-x", "]x", "\\x"),
		keysCase("h*", "hello", "hallo", "hxllo", "hllo", "heeello", "h*llo", "h?llo", "h[a]llo"),
		keysCase("h?llo", "hello", "hallo", "hxllo", "h*llo", "h?llo"),
		keysCase("h[ae]llo", "hello", "hallo"),
		keysCase("h[^e]llo", "hallo", "hxllo", "h*llo", "h?llo"),
		keysCase("h[a-f]llo", "hello", "hallo"),
		keysCase("h\\*llo", "h*llo"),
		keysCase("h\\[a\\]llo", "h[a]llo"),
		keysCase("foo", "foo"),
		keysCase("foo:*", "foo:bar"),
		keysCase("*llo", "hello", "hallo", "hxllo", "hllo", "heeello", "h*llo", "h?llo", "h[a]llo"),
		keysCase("zzz*"),
		keysCase("-*", "-x"),
		keysCase("]*", "]x"),
		keysCase("\\\\*", "\\x"),
		{name: "keys empty and arity", steps: []keyStep{
			kst("*0\r\n", "KEYS", "*"), kst(kWrongArgs("keys"), "KEYS"), kst(kWrongArgs("keys"), "KEYS", "a", "b"),
		}},
		{name: "keys skips expired", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "2", "PX", "20"), kst(kOK, "SET", "c", "3", "PXAT", "1"),
			kstSorted(kArr("a", "b"), "KEYS", "*"), kadv(21 * time.Millisecond), kst(kArr("a"), "KEYS", "*"),
		}},
		{name: "keys per database", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOne, "MOVE", "a", "1"), kst(kOK, "SET", "b", "1"), kst(kArr("b"), "KEYS", "*"),
			ksel(1), kst(kArr("a"), "KEYS", "*"),
		}},
		{name: "randomkey", steps: []keyStep{
			kst(kNil, "RANDOMKEY"), kst(kOK, "SET", "only", "1"), kst(kBulk("only"), "RANDOMKEY"),
			kst(kOK, "SET", "gone", "1", "PX", "5"), kadv(6 * time.Millisecond), kst(kBulk("only"), "RANDOMKEY"),
			kst(kOne, "DEL", "only"), kst(kNil, "RANDOMKEY"),
			kst(kWrongArgs("randomkey"), "RANDOMKEY", "x"),
		}},
		{name: "resp3", resp3: true, steps: []keyStep{
			kst(kNull3, "RANDOMKEY"), kst("*0\r\n", "KEYS", "*"), kst(kScan("0"), "SCAN", "0"),
			kst(kOK, "SET", "a", "1"), kst(kArr("a"), "KEYS", "*"), kst(kScan("0", "a"), "SCAN", "0"),
			kst(kOne, "EXISTS", "a"), kst(":-1\r\n", "TTL", "a"), kst("+string\r\n", "TYPE", "a"),
			kst(kZero, "PERSIST", "a"), kst(kOne, "EXPIRE", "a", "10"), kst(kOne, "COPY", "a", "b"),
			kst(kZero, "RENAMENX", "a", "b"), kst(kOne, "MOVE", "a", "1"), kst(kNull3, "OBJECT", "ENCODING", "nosuch"),
			kst(kNull3, "OBJECT", "REFCOUNT", "nosuch"), kst(kNull3, "OBJECT", "FREQ", "nosuch"),
			kst(kNull3, "OBJECT", "IDLETIME", "nosuch"),
		}},
	})
}

func TestRenameCopyMove(t *testing.T) {
	sameObj := "-ERR source and destination objects are the same\r\n"
	dbRange := "-ERR DB index is out of range\r\n"
	intRange := "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n"
	noKey := "-ERR no such key\r\n"
	notInt := kErr(ErrNotInteger)
	runKeyCases(t, []keyCase{
		{name: "rename", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "RENAME", "a", "b"), kst(kZero, "EXISTS", "a"), kst(kBulk("1"), "GET", "b"),
		}},
		{name: "rename missing", steps: []keyStep{
			kst(noKey, "RENAME", "nosuch", "b"), kst(noKey, "RENAMENX", "nosuch", "b"),
			kst(noKey, "RENAME", "nosuch", "nosuch"), kst(noKey, "RENAMENX", "nosuch", "nosuch"),
		}},
		{name: "rename same name", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "RENAME", "a", "a"), kst(kBulk("1"), "GET", "a"), kst(kZero, "RENAMENX", "a", "a"),
		}},
		{name: "rename overwrites and keeps ttl", steps: []keyStep{
			kst(kOK, "SET", "a", "1", "EX", "100"), kst(kOK, "SET", "b", "2"), kst(kOK, "RENAME", "a", "b"),
			kst(":100\r\n", "TTL", "b"), kst(kBulk("1"), "GET", "b"), kst(kZero, "EXISTS", "a"),
		}},
		{name: "rename clears the target's ttl", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "2", "EX", "100"), kst(kOK, "RENAME", "a", "b"), kst(":-1\r\n", "TTL", "b"),
		}},
		{name: "rename expired source", steps: []keyStep{
			kst(kOK, "SET", "a", "1", "PX", "20"), kadv(21 * time.Millisecond),
			kst(noKey, "RENAME", "a", "b"), kst(kZero, "EXISTS", "b"),
		}},
		{name: "renamenx", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "2"), kst(kZero, "RENAMENX", "a", "b"),
			kst(kOne, "RENAMENX", "a", "c"), kst(kZero, "EXISTS", "a"), kst(kBulk("2"), "GET", "b"), kst(kBulk("1"), "GET", "c"),
		}},
		{name: "renamenx onto an expired key", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "2", "PX", "5"), kadv(6 * time.Millisecond),
			kst(kOne, "RENAMENX", "a", "b"), kst(kBulk("1"), "GET", "b"),
		}},
		{name: "rename arity", steps: []keyStep{
			kst(kWrongArgs("rename"), "RENAME", "a"), kst(kWrongArgs("renamenx"), "RENAMENX", "a", "b", "c"),
		}},
		{name: "copy", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOne, "COPY", "a", "b"), kst(kBulk("1"), "GET", "b"),
			kst(kZero, "COPY", "a", "b"), kst(kOne, "COPY", "a", "b", "REPLACE"), kst(kZero, "COPY", "nosuch", "c"),
			kst(kZero, "COPY", "nosuch", "b", "replace"), kst(kBulk("1"), "GET", "a"), kst(kBulk("1"), "GET", "b"),
		}},
		{name: "copy keeps ttl", steps: []keyStep{
			kst(kOK, "SET", "a", "1", "EX", "100"), kst(kOne, "COPY", "a", "b"), kst(":100\r\n", "TTL", "b"),
			kst(kOK, "SET", "c", "1"), kst(kOne, "COPY", "c", "b", "REPLACE"), kst(":-1\r\n", "TTL", "b"),
		}},
		{name: "copy db", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOne, "COPY", "a", "a", "DB", "1"), kst(kZero, "COPY", "a", "a", "DB", "1"),
			kst(kOK, "SET", "a", "2"), kst(kOne, "COPY", "a", "a", "DB", "1", "REPLACE"),
			kst(kOne, "COPY", "a", "x", "REPLACE", "DB", "1", "db", "2"),
			ksel(1), kst(kBulk("2"), "GET", "a"), kst(kZero, "EXISTS", "x"),
			ksel(2), kst(kBulk("2"), "GET", "x"), kst(sameObj, "COPY", "x", "x", "DB", "2"),
			kst(kOne, "COPY", "x", "x", "DB", "0"), ksel(0), kst(kBulk("2"), "GET", "x"),
		}},
		{name: "copy same key", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(sameObj, "COPY", "a", "a"), kst(sameObj, "COPY", "a", "a", "REPLACE"),
			kst(sameObj, "COPY", "a", "a", "DB", "0"), kst(sameObj, "COPY", "nosuch", "nosuch"),
		}},
		{name: "copy bad db", steps: []keyStep{
			kst(kOK, "SET", "a", "1"),
			kst(dbRange, "COPY", "a", "b", "DB", "16"), kst(dbRange, "COPY", "a", "b", "DB", "-1"),
			kst(dbRange, "COPY", "nosuch", "b", "DB", "16"), kst(dbRange, "COPY", "a", "b", "DB", "1", "DB", "16"),
			kst(dbRange, "COPY", "a", "b", "DB", "16", "FOO"),
			kst(intRange, "COPY", "a", "b", "DB", "2147483648"), kst(intRange, "COPY", "a", "b", "DB", "-2147483649"),
			kst(notInt, "COPY", "a", "b", "DB", "x"), kst(notInt, "COPY", "a", "b", "DB", "99999999999999999999"),
			kst(notInt, "COPY", "a", "b", "DB", "1\x00"), kst(notInt, "COPY", "a", "a", "DB", "x"),
			kst(kErr(ErrSyntax), "COPY", "a", "b", "DB"), kst(kErr(ErrSyntax), "COPY", "a", "b", "REPLACE", "DB"),
			kst(kZero, "EXISTS", "b"),
		}},
		{name: "copy bad option", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kErr(ErrSyntax), "COPY", "a", "b", "FOO"),
			kst(kErr(ErrSyntax), "COPY", "a", "b", "REPLACE", "FOO"), kst(kErr(ErrSyntax), "COPY", "a", "a", "FOO"),
			kst(kOne, "COPY", "a", "b", "REPLACE", "REPLACE"), kst(kOne, "COPY", "a", "c", "replace\x00x"),
			kst(kWrongArgs("copy"), "COPY", "a"),
		}},
		{name: "move", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOne, "MOVE", "a", "1"), kst(kZero, "EXISTS", "a"), kst(kZero, "MOVE", "a", "1"),
			ksel(1), kst(kBulk("1"), "GET", "a"), kst(kOne, "MOVE", "a", "15"), ksel(15), kst(kOne, "EXISTS", "a"),
		}},
		{name: "move target exists", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), ksel(1), kst(kOK, "SET", "a", "2"), ksel(0),
			kst(kZero, "MOVE", "a", "1"), kst(kBulk("1"), "GET", "a"), ksel(1), kst(kBulk("2"), "GET", "a"),
		}},
		{name: "move onto an expired key", steps: []keyStep{
			ksel(1), kst(kOK, "SET", "a", "old", "PX", "5"), ksel(0), kst(kOK, "SET", "a", "new"), kadv(6 * time.Millisecond),
			kst(kOne, "MOVE", "a", "1"), ksel(1), kst(kBulk("new"), "GET", "a"),
		}},
		{name: "move errors", steps: []keyStep{
			kst(kOK, "SET", "a", "1"),
			kst(sameObj, "MOVE", "a", "0"), kst(sameObj, "MOVE", "nosuch", "0"),
			kst(dbRange, "MOVE", "a", "16"), kst(dbRange, "MOVE", "a", "-1"),
			kst(notInt, "MOVE", "a", "x"), kst(notInt, "MOVE", "a", "99999999999999999999"),
			kst(intRange, "MOVE", "a", "2147483648"), kst(kZero, "MOVE", "nosuch", "1"),
			kst(kWrongArgs("move"), "MOVE", "a"), kst(kWrongArgs("move"), "MOVE", "a", "1", "2"),
			ksel(3), kst(sameObj, "MOVE", "a", "3"),
		}},
		{name: "move keeps ttl", steps: []keyStep{
			kst(kOK, "SET", "a", "1", "EX", "100"), kst(kOne, "MOVE", "a", "1"), ksel(1), kst(":100\r\n", "TTL", "a"),
		}},
	})
}

func TestScan(t *testing.T) {
	invalid := "-ERR invalid cursor\r\n"
	syntax := kErr(ErrSyntax)
	runKeyCases(t, []keyCase{
		{name: "empty", steps: []keyStep{kst(kScan("0"), "SCAN", "0")}},
		{name: "one key", steps: []keyStep{kst(kOK, "SET", "a", "1"), kst(kScan("0", "a"), "SCAN", "0")}},
		{name: "bad cursor", steps: []keyStep{
			kst(invalid, "SCAN", "abc"), kst(invalid, "SCAN", "1.5"), kst(invalid, "SCAN", " 0"),
			kst(invalid, "SCAN", "0 "), kst(invalid, "SCAN", "0x1"), kst(invalid, "SCAN", "+"),
			kst(invalid, "SCAN", "-"), kst(invalid, "SCAN", "18446744073709551616"),
			kst(invalid, "SCAN", "x", "COUNT", "0"), // the cursor is checked first
			kst(kWrongArgs("scan"), "SCAN"),
		}},
		{name: "cursors strtoul accepts", steps: []keyStep{
			kst(kOK, "SET", "k", "v"),
			kst(kScan("0", "k"), "SCAN", ""), kst(kScan("0", "k"), "SCAN", "+0"),
			kst(kScan("0", "k"), "SCAN", "-0"), kst(kScan("0", "k"), "SCAN", "0\x00x"),
			kst(kScan("0", "k"), "SCAN", "\x00"),
		}},
		{name: "end cursors", steps: []keyStep{
			// Redis answers these too; what they visit is implementation
			// defined (Tandem: past the end, so nothing).
			kst(kScan("0"), "SCAN", "-1"), kst(kScan("0"), "SCAN", "18446744073709551615"),
		}},
		{name: "bad options", steps: []keyStep{
			kst(kOK, "SET", "a", "1"),
			kst(syntax, "SCAN", "0", "COUNT", "0"), kst(syntax, "SCAN", "0", "COUNT", "-1"),
			kst(kErr(ErrNotInteger), "SCAN", "0", "COUNT", "x"),
			kst(kErr(ErrNotInteger), "SCAN", "0", "COUNT", "99999999999999999999"),
			kst(syntax, "SCAN", "0", "MATCH"), kst(syntax, "SCAN", "0", "COUNT", "5", "MATCH"),
			kst(syntax, "SCAN", "0", "FOO", "bar"), kst(syntax, "SCAN", "0", "TYPE"),
			kst(syntax, "SCAN", "0", "COUNT", "0", "FOO"), kst(syntax, "SCAN", "0", "FOO", "COUNT", "0"),
		}},
		{name: "options", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "l", "x"),
			kstSorted(kScan("0", "a", "l"), "SCAN", "0", "count", "1", "COUNT", "100"),
			kst(kScan("0", "l"), "SCAN", "0", "MATCH", "a*", "match", "l*"),
			kstSorted(kScan("0", "a", "l"), "SCAN", "0", "MATCH", "*"),
			kstSorted(kScan("0", "a", "l"), "SCAN", "0", "TYPE", "STRING"),
			kstSorted(kScan("0", "a", "l"), "SCAN", "0", "count\x00", "5"),
			kst(kScan("0"), "SCAN", "0", "TYPE", "list"), kst(kScan("0"), "SCAN", "0", "TYPE", "nosuchtype"),
			kst(kScan("0"), "SCAN", "0", "TYPE", "str\x00ing"),
			kstSorted(kScan("0", "a", "l"), "SCAN", "0", "TYPE", "string\x00x"),
			kst(kScan("0"), "SCAN", "0", "TYPE", "none"),
		}},
		{name: "expired keys are skipped", steps: []keyStep{
			kst(kOK, "SET", "a", "1"), kst(kOK, "SET", "b", "1", "PXAT", "1"), kst(kOK, "SET", "c", "1", "PX", "10"),
			kadv(11 * time.Millisecond), kst(kScan("0", "a"), "SCAN", "0", "COUNT", "100"),
		}},
	})
}

// kscanAll iterates SCAN with opts to cursor 0 and returns the keys seen
// and the number of calls; between calls it runs between (may be nil).
func kscanAll(t *testing.T, c *testClient, opts []string, between func(call int)) (map[string]int, int) {
	t.Helper()
	seen := map[string]int{}
	cursor := "0"
	for calls := 1; ; calls++ {
		if calls > 1_000_000 {
			t.Fatal("SCAN did not return to cursor 0")
		}
		v, rest := kparseReply(t, c.do(append([]string{"SCAN", cursor}, opts...)...))
		arr, isArr := v.([]any)
		if rest != "" || !isArr || len(arr) != 2 {
			t.Fatalf("SCAN reply is not [cursor, keys]: %v", v)
		}
		cursor = arr[0].(string)
		if _, err := strconv.ParseUint(cursor, 10, 64); err != nil {
			t.Fatalf("cursor %q is not an unsigned integer", cursor)
		}
		for _, k := range arr[1].([]any) {
			seen[k.(string)]++
		}
		if cursor == "0" {
			return seen, calls
		}
		if between != nil {
			between(calls)
		}
	}
}

func TestScanFullIteration(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	want := map[string]bool{}
	for i := 0; i < 300; i++ {
		k := "user:" + strconv.Itoa(i)
		c.expect(kOK, "SET", k, strconv.Itoa(i))
		want[k] = true
	}
	c.expect(kOK, "SET", "user:expired", "x", "PXAT", "1")
	for _, opts := range [][]string{nil, {"COUNT", "1"}, {"COUNT", "7"}, {"COUNT", "1000"}, {"MATCH", "user:1*", "COUNT", "3"}, {"TYPE", "string"}, {"TYPE", "hash"}} {
		seen, calls := kscanAll(t, c, opts, nil)
		n := 0
		for k := range want {
			switch {
			case len(opts) > 0 && opts[0] == "MATCH" && !strings.HasPrefix(k, "user:1"):
			case len(opts) > 1 && opts[1] == "hash":
			default:
				n++
				if seen[k] == 0 {
					t.Errorf("SCAN %v: %q not returned", opts, k)
				}
			}
		}
		if len(seen) != n {
			t.Errorf("SCAN %v: %d distinct keys, want %d", opts, len(seen), n)
		}
		if len(opts) == 2 && opts[0] == "COUNT" && opts[1] == "1" && calls < 300 {
			t.Errorf("SCAN COUNT 1 took %d calls for 300 keys: COUNT is not honoured", calls)
		}
	}
}

// TestScanConcurrentWrites checks SCAN's guarantee: a key that exists for
// the whole iteration is returned, whatever is added and removed meanwhile,
// between calls and from another goroutine during them.
func TestScanConcurrentWrites(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	db := env.eng.DB(0)
	const n = 5000
	for i := 0; i < n; i++ {
		if _, err := db.Set([]byte("orig:"+strconv.Itoa(i)), []byte("v"), engine.SetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A writer keeps churning other keys while SCAN runs.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			k := []byte("bg:" + strconv.Itoa(rng.IntN(2000)))
			if i%3 == 0 {
				db.Delete(k)
			} else if _, err := db.Set(k, []byte("x"), engine.SetOptions{}); err != nil {
				panic(err)
			}
		}
	}()
	added := 0
	rng := rand.New(rand.NewPCG(3, 4))
	seen, calls := kscanAll(t, c, []string{"COUNT", "10"}, func(call int) {
		// Between calls: add a few keys, delete some added earlier, and
		// rewrite originals (a value change must not lose the key).
		for j := 0; j < 3; j++ {
			c.expect(kOK, "SET", "new:"+strconv.Itoa(added), "x")
			added++
		}
		if added > 10 {
			c.do("DEL", "new:"+strconv.Itoa(rng.IntN(added)), "new:"+strconv.Itoa(rng.IntN(added)))
		}
		c.expect(kOK, "SET", "orig:"+strconv.Itoa(rng.IntN(n)), "rewritten")
		if call%50 == 0 {
			c.do("EXPIRE", "orig:"+strconv.Itoa(rng.IntN(n)), "1000")
		}
	})
	close(stop)
	wg.Wait()
	for i := 0; i < n; i++ {
		if k := "orig:" + strconv.Itoa(i); seen[k] == 0 {
			t.Errorf("%s existed throughout and was not returned", k)
		}
	}
	if calls < n/10 {
		t.Errorf("%d calls for %d keys with COUNT 10", calls, n)
	}
	for k := range seen {
		if !strings.HasPrefix(k, "orig:") && !strings.HasPrefix(k, "new:") && !strings.HasPrefix(k, "bg:") {
			t.Errorf("SCAN returned a key nobody wrote: %q", k)
		}
	}
}

func TestObject(t *testing.T) {
	lfuNotSel := kErr(ErrLFUNotSelected)
	lfuSel := kErr(ErrLFUSelected)
	help := "*15\r\n" +
		"+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n" +
		"+ENCODING <key>\r\n" +
		"+    Return the kind of internal representation used in order to store the value\r\n" +
		"+    associated with a <key>.\r\n" +
		"+FREQ <key>\r\n" +
		"+    Return the access frequency index of the <key>. The returned integer is\r\n" +
		"+    proportional to the logarithm of the recent access frequency of the key.\r\n" +
		"+IDLETIME <key>\r\n" +
		"+    Return the idle time of the <key>, that is the approximated number of\r\n" +
		"+    seconds elapsed since the last access to the key.\r\n" +
		"+REFCOUNT <key>\r\n" +
		"+    Return the number of references of the value associated with the specified\r\n" +
		"+    <key>.\r\n" +
		"+HELP\r\n" +
		"+    Prints this help.\r\n"
	runKeyCases(t, []keyCase{
		{name: "encoding", steps: []keyStep{
			kst(kOK, "SET", "i", "123"), kst(kBulk("int"), "OBJECT", "ENCODING", "i"),
			kst(kOK, "SET", "i", "-9223372036854775808"), kst(kBulk("int"), "object", "encoding", "i"),
			kst(kOK, "SET", "s", "hello"), kst(kBulk("embstr"), "OBJECT", "ENCODING", "s"),
			kst(kOK, "SET", "s", "012"), kst(kBulk("embstr"), "OBJECT", "ENCODING", "s"),
			kst(kOK, "SET", "s", strings.Repeat("x", 44)), kst(kBulk("embstr"), "OBJECT", "ENCODING", "s"),
			kst(kOK, "SET", "s", strings.Repeat("x", 45)), kst(kBulk("raw"), "OBJECT", "ENCODING", "s"),
			kst(kNil, "OBJECT", "ENCODING", "nosuch"),
		}},
		{name: "refcount", steps: []keyStep{
			kst(kOK, "SET", "s", "v"), kst(kOne, "OBJECT", "REFCOUNT", "s"),
			kst(kOK, "SET", "i", "100"), kst(":2147483647\r\n", "OBJECT", "REFCOUNT", "i"),
			kst(kOK, "SET", "z", "0"), kst(":2147483647\r\n", "OBJECT", "REFCOUNT", "z"),
			kst(kOK, "SET", "m", "9999"), kst(":2147483647\r\n", "OBJECT", "REFCOUNT", "m"),
			kst(kOK, "SET", "big", "10000"), kst(kOne, "OBJECT", "REFCOUNT", "big"),
			kst(kOK, "SET", "neg", "-1"), kst(kOne, "OBJECT", "REFCOUNT", "neg"),
			kst(kNil, "OBJECT", "REFCOUNT", "nosuch"),
		}},
		{name: "refcount lru policy without maxmemory shares", config: [][2]string{{"maxmemory-policy", "allkeys-lru"}}, steps: []keyStep{
			kst(kOK, "SET", "i", "100"), kst(":2147483647\r\n", "OBJECT", "REFCOUNT", "i"),
		}},
		{name: "refcount lru policy with maxmemory", config: [][2]string{{"maxmemory", "100mb"}, {"maxmemory-policy", "allkeys-lru"}}, steps: []keyStep{
			kst(kOK, "SET", "i", "100"), kst(kOne, "OBJECT", "REFCOUNT", "i"),
		}},
		{name: "refcount lfu policy with maxmemory", config: [][2]string{{"maxmemory", "100mb"}, {"maxmemory-policy", "volatile-lfu"}}, steps: []keyStep{
			kst(kOK, "SET", "i", "100"), kst(kOne, "OBJECT", "REFCOUNT", "i"),
		}},
		{name: "refcount ttl policy with maxmemory", config: [][2]string{{"maxmemory", "100mb"}, {"maxmemory-policy", "volatile-ttl"}}, steps: []keyStep{
			kst(kOK, "SET", "i", "100"), kst(":2147483647\r\n", "OBJECT", "REFCOUNT", "i"),
		}},
		{name: "freq needs lfu", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(lfuNotSel, "OBJECT", "FREQ", "k"), kst(kNil, "OBJECT", "FREQ", "nosuch"),
		}},
		{name: "freq under lfu", config: [][2]string{{"maxmemory-policy", "allkeys-lfu"}}, steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(":5\r\n", "OBJECT", "FREQ", "k"), kst(kNil, "OBJECT", "FREQ", "nosuch"),
			kst(lfuSel, "OBJECT", "IDLETIME", "k"), kst(kNil, "OBJECT", "IDLETIME", "nosuch"),
			kadv(2*time.Minute + time.Second), kst(":3\r\n", "OBJECT", "FREQ", "k"),
			kadv(10 * time.Minute), kst(kZero, "OBJECT", "FREQ", "k"),
		}},
		{name: "idletime", steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kst(kZero, "OBJECT", "IDLETIME", "k"), kst(kNil, "OBJECT", "IDLETIME", "nosuch"),
			kadv(10 * time.Second), kst(":10\r\n", "OBJECT", "IDLETIME", "k"),
			// Reads that Redis does with LOOKUP_NOTOUCH leave it alone.
			kst(kOne, "EXISTS", "k"), kst(":-1\r\n", "TTL", "k"), kst(":-1\r\n", "PTTL", "k"), kst("+string\r\n", "TYPE", "k"),
			kst(kBulk("embstr"), "OBJECT", "ENCODING", "k"), kst(kOne, "OBJECT", "REFCOUNT", "k"),
			kst(":-1\r\n", "EXPIRETIME", "k"), kst(kArr("k"), "KEYS", "*"), kst(kScan("0", "k"), "SCAN", "0"),
			kst(":10\r\n", "OBJECT", "IDLETIME", "k"),
			kst(kOne, "TOUCH", "k"), kst(kZero, "OBJECT", "IDLETIME", "k"),
		}},
		{name: "idletime under lru", config: [][2]string{{"maxmemory-policy", "volatile-lru"}}, steps: []keyStep{
			kst(kOK, "SET", "k", "v"), kadv(3 * time.Second), kst(":3\r\n", "OBJECT", "IDLETIME", "k"),
		}},
		{name: "writes touch", steps: []keyStep{
			// Redis's lookupKeyWrite updates the access time even when
			// the command then changes nothing.
			kst(kOK, "SET", "a", "x"), kst(kOK, "SET", "b", "x"), kst(kOK, "SET", "c", "x"), kst(kOK, "SET", "d", "x"),
			kst(kOK, "SET", "e", "x"), kst(kOK, "SET", "f", "x", "EX", "1000"),
			kadv(5 * time.Second),
			kst(kOne, "EXPIRE", "a", "100"), kst(kZero, "OBJECT", "IDLETIME", "a"),
			kst(kZero, "PERSIST", "b"), kst(kZero, "OBJECT", "IDLETIME", "b"),
			kst(kOK, "RENAME", "c", "c2"), kst(kZero, "OBJECT", "IDLETIME", "c2"),
			kst(kOne, "COPY", "d", "d2"), kst(kZero, "OBJECT", "IDLETIME", "d"), kst(kZero, "OBJECT", "IDLETIME", "d2"),
			kst(kOne, "MOVE", "e", "1"), ksel(1), kst(kZero, "OBJECT", "IDLETIME", "e"), ksel(0),
			kst(kZero, "EXPIRE", "f", "100", "GT"), kst(kZero, "OBJECT", "IDLETIME", "f"),
		}},
		{name: "help", steps: []keyStep{kst(help, "OBJECT", "HELP"), kst(help, "object", "help")}},
		{name: "help resp3", resp3: true, steps: []keyStep{kst(help, "OBJECT", "HELP")}},
		{name: "bad subcommand and arity", steps: []keyStep{
			kst("-ERR unknown subcommand 'FOO'. Try OBJECT HELP.\r\n", "OBJECT", "FOO", "k"),
			kst("-ERR unknown subcommand 'foo'. Try OBJECT HELP.\r\n", "object", "foo"),
			kst(kWrongArgs("object"), "OBJECT"),
			kst(kWrongArgs("object|encoding"), "OBJECT", "ENCODING"),
			kst(kWrongArgs("object|encoding"), "OBJECT", "ENCODING", "a", "b"),
			kst(kWrongArgs("object|freq"), "OBJECT", "FREQ"),
			kst(kWrongArgs("object|idletime"), "OBJECT", "IDLETIME", "a", "b"),
			kst(kWrongArgs("object|refcount"), "OBJECT", "REFCOUNT"),
			kst(kWrongArgs("object|help"), "OBJECT", "HELP", "x"),
		}},
	})
}

// TestKeyLookupStats checks the keyspace_hits/misses Redis counts for
// these commands (TTL, TYPE, OBJECT, EXISTS, TOUCH and COPY's source
// count; writes, KEYS, SCAN and RANDOMKEY do not).
func TestKeyLookupStats(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(kOK, "SET", "a", "x")
	base := env.eng.Stats()
	for _, cmd := range [][]string{
		{"EXISTS", "a", "a", "b"}, {"TTL", "a"}, {"TTL", "b"}, {"PTTL", "a"}, {"EXPIRETIME", "a"}, {"PEXPIRETIME", "b"},
		{"TYPE", "a"}, {"TYPE", "b"}, {"OBJECT", "ENCODING", "a"}, {"OBJECT", "ENCODING", "b"},
		{"OBJECT", "REFCOUNT", "a"}, {"OBJECT", "REFCOUNT", "b"}, {"OBJECT", "IDLETIME", "a"}, {"OBJECT", "FREQ", "b"},
		{"TOUCH", "a", "b"}, {"COPY", "a", "c"}, {"COPY", "b", "d"},
		{"KEYS", "*"}, {"SCAN", "0"}, {"RANDOMKEY"}, {"EXPIRE", "a", "100"}, {"PERSIST", "a"}, {"RENAME", "c", "e"},
		{"MOVE", "e", "1"}, {"DEL", "zz"}, {"COPY", "b", "b"}, {"OBJECT", "HELP"},
		{"SCAN", "0", "TYPE", "list"}, {"SCAN", "0", "TYPE", "string", "MATCH", "zz*"},
	} {
		c.do(cmd...)
	}
	got := env.eng.Stats()
	// hits: EXISTS 2, TTL, PTTL, EXPIRETIME, TYPE, ENCODING, REFCOUNT,
	// IDLETIME, TOUCH, COPY a, SCAN TYPE's check of a (not of keys the
	// pattern rejects)
	// misses: EXISTS, TTL, PEXPIRETIME, TYPE, ENCODING, REFCOUNT, FREQ, TOUCH, COPY b
	if h, m := got.Hits-base.Hits, got.Misses-base.Misses; h != 12 || m != 9 {
		t.Errorf("keyspace hits/misses = %d/%d, want 12/9 (redis-server 7.0.15)", h, m)
	}
}

func TestKeyCommandTable(t *testing.T) {
	env := newTestEnv(t)
	type decl struct {
		arity              int
		flags              []string
		first, last, step  int
		since              string
		summaryPrefix, acl string
	}
	want := map[string]decl{
		"del":             {-2, []string{"write"}, 1, -1, 1, "1.0.0", "Delete a key", "@keyspace @write @slow"},
		"unlink":          {-2, []string{"write", "fast"}, 1, -1, 1, "4.0.0", "Delete a key asynchronously", "@keyspace @write @fast"},
		"exists":          {-2, []string{"readonly", "fast"}, 1, -1, 1, "1.0.0", "Determine if a key exists", "@keyspace @read @fast"},
		"expire":          {-3, []string{"write", "fast"}, 1, 1, 1, "1.0.0", "Set a key's time to live in seconds", "@keyspace @write @fast"},
		"pexpire":         {-3, []string{"write", "fast"}, 1, 1, 1, "2.6.0", "Set a key's time to live in milliseconds", "@keyspace @write @fast"},
		"expireat":        {-3, []string{"write", "fast"}, 1, 1, 1, "1.2.0", "Set the expiration for a key as a UNIX timestamp", "@keyspace @write @fast"},
		"pexpireat":       {-3, []string{"write", "fast"}, 1, 1, 1, "2.6.0", "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "@keyspace @write @fast"},
		"ttl":             {2, []string{"readonly", "fast"}, 1, 1, 1, "1.0.0", "Get the time to live for a key in seconds", "@keyspace @read @fast"},
		"pttl":            {2, []string{"readonly", "fast"}, 1, 1, 1, "2.6.0", "Get the time to live for a key in milliseconds", "@keyspace @read @fast"},
		"expiretime":      {2, []string{"readonly", "fast"}, 1, 1, 1, "7.0.0", "Get the expiration Unix timestamp for a key", "@keyspace @read @fast"},
		"pexpiretime":     {2, []string{"readonly", "fast"}, 1, 1, 1, "7.0.0", "Get the expiration Unix timestamp for a key in milliseconds", "@keyspace @read @fast"},
		"persist":         {2, []string{"write", "fast"}, 1, 1, 1, "2.2.0", "Remove the expiration from a key", "@keyspace @write @fast"},
		"type":            {2, []string{"readonly", "fast"}, 1, 1, 1, "1.0.0", "Determine the type stored at key", "@keyspace @read @fast"},
		"keys":            {2, []string{"readonly"}, 0, 0, 0, "1.0.0", "Find all keys matching the given pattern", "@keyspace @read @slow @dangerous"},
		"scan":            {-2, []string{"readonly"}, 0, 0, 0, "2.8.0", "Incrementally iterate the keys space", "@keyspace @read @slow"},
		"randomkey":       {1, []string{"readonly"}, 0, 0, 0, "1.0.0", "Return a random key from the keyspace", "@keyspace @read @slow"},
		"rename":          {3, []string{"write"}, 1, 2, 1, "1.0.0", "Rename a key", "@keyspace @write @slow"},
		"renamenx":        {3, []string{"write", "fast"}, 1, 2, 1, "1.0.0", "Rename a key, only if the new key does not exist", "@keyspace @write @fast"},
		"touch":           {-2, []string{"readonly", "fast"}, 1, -1, 1, "3.2.1", "Alters the last access time of a key(s).", "@keyspace @read @fast"},
		"copy":            {-3, []string{"write", "denyoom"}, 1, 2, 1, "6.2.0", "Copy a key", "@keyspace @write @slow"},
		"move":            {3, []string{"write", "fast"}, 1, 1, 1, "1.0.0", "Move a key to another database", "@keyspace @write @fast"},
		"object":          {-2, nil, 0, 0, 0, "2.2.3", "A container for object introspection commands", "@slow"},
		"object|encoding": {3, []string{"readonly"}, 2, 2, 1, "2.2.3", "Inspect the internal encoding of a Redis object", "@keyspace @read @slow"},
		"object|freq":     {3, []string{"readonly"}, 2, 2, 1, "4.0.0", "Get the logarithmic access frequency counter of a Redis object", "@keyspace @read @slow"},
		"object|idletime": {3, []string{"readonly"}, 2, 2, 1, "2.2.3", "Get the time since a Redis object was last accessed", "@keyspace @read @slow"},
		"object|refcount": {3, []string{"readonly"}, 2, 2, 1, "2.2.3", "Get the number of references to the value of the key", "@keyspace @read @slow"},
		"object|help":     {2, []string{"loading", "stale"}, 0, 0, 0, "6.2.0", "Show helpful text about the different subcommands", "@keyspace @slow"},
	}
	for name, d := range want {
		var cmd *Command
		if parent, sub, isSub := strings.Cut(name, "|"); isSub {
			cmd = env.fe.Table().Lookup([]byte(parent), nil).subcommand([]byte(sub), nil)
		} else {
			cmd = env.fe.Table().Lookup([]byte(name), nil)
		}
		if cmd == nil {
			t.Errorf("%s: not declared", name)
			continue
		}
		if cmd.Name != name || cmd.Arity != d.arity || cmd.FirstKey != d.first || cmd.LastKey != d.last || cmd.KeyStep != d.step ||
			cmd.Since != d.since || cmd.Group != "generic" || !strings.HasPrefix(cmd.Summary, d.summaryPrefix) {
			t.Errorf("%s: declared %s %d %d,%d,%d %s %s %q", name, cmd.Name, cmd.Arity, cmd.FirstKey, cmd.LastKey, cmd.KeyStep, cmd.Since, cmd.Group, cmd.Summary)
		}
		if got := strings.Join(cmd.Flags.Names(), " "); got != strings.Join(d.flags, " ") {
			t.Errorf("%s: flags %q, want %q", name, got, strings.Join(d.flags, " "))
		}
		if got := strings.Join(cmd.ACLCategories(), " "); got != d.acl {
			t.Errorf("%s: ACL categories %q, want %q", name, got, d.acl)
		}
	}
	if got := env.fe.Table().Lookup([]byte("del"), nil).KeyIndexes(4); fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("DEL key indexes %v", got)
	}
	if got := env.fe.Table().Lookup([]byte("copy"), nil).KeyIndexes(6); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("COPY key indexes %v", got)
	}
}

func TestScanCursorArg(t *testing.T) {
	env := newTestEnv(t)
	c := env.client().c
	for in, want := range map[string]uint64{
		"": 0, "0": 0, "+7": 7, "-0": 0, "-1": 1<<64 - 1, "18446744073709551615": 1<<64 - 1,
		"-18446744073709551615": 1, "12\x00junk": 12, "\x00": 0, "007": 7,
	} {
		c.w.Buf = nil
		got, ok := c.scanCursorArg([]byte(in))
		if !ok || got != want || len(c.w.Buf) != 0 {
			t.Errorf("scanCursorArg(%q) = %d, %v (%q); want %d", in, got, ok, c.w.Buf, want)
		}
	}
	for _, in := range []string{" 1", "1 ", "x", "+", "-", "1.0", "0x10", "18446744073709551616", "-18446744073709551616", "1_0"} {
		c.w.Buf = nil
		if _, ok := c.scanCursorArg([]byte(in)); ok || string(c.w.Buf) != "-ERR invalid cursor\r\n" {
			t.Errorf("scanCursorArg(%q) accepted (%q)", in, c.w.Buf)
		}
	}
}

// replayKeyCase sends kc to a real redis-server and checks the same
// expectations there.
func replayKeyCase(t *testing.T, addr string, kc keyCase) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	do := func(args ...string) string {
		t.Helper()
		if _, err := conn.Write([]byte(encodeCommand(args...))); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		reply, err := readRawReply(r)
		if err != nil {
			t.Fatal(err)
		}
		return reply
	}
	do("FLUSHALL")
	do("CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "noeviction")
	defer do("CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "noeviction")
	for _, kv := range kc.config {
		if got := do("CONFIG", "SET", kv[0], kv[1]); got != kOK {
			t.Fatalf("CONFIG SET %s: %q", kv[0], got)
		}
	}
	if kc.resp3 {
		do("HELLO", "3")
	}
	for i, s := range kc.steps {
		if s.selectDB != 0 {
			do("SELECT", strconv.Itoa(s.selectDB-1))
			continue
		}
		got, want := do(s.args...), s.want
		if s.sorted {
			got, want = ksortReply(t, got), ksortReply(t, want)
		}
		if got != want {
			t.Errorf("step %d %q:\n redis %q\n want  %q", i, s.args, got, want)
		}
	}
}

// readRawReply reads one complete RESP2 or RESP3 reply and returns its
// bytes.
func readRawReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	switch line[0] {
	case '$', '=', '!':
		if n < 0 {
			return line, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return line + string(buf), nil
	case '*', '~', '>', '%':
		if line[0] == '%' {
			n *= 2
		}
		out := line
		for ; n > 0; n-- {
			el, err := readRawReply(r)
			if err != nil {
				return "", err
			}
			out += el
		}
		return out, nil
	}
	return line, nil
}

// TestExpireMillisecond pins Redis's rule for the millisecond a key
// expires in: keyIsExpired is now > when, so at exactly its expire time a
// key is still there with PTTL 0 (redis-server 7.0.15 replies PTTL 0
// hundreds of times in a tight loop). Setting a time not after now deletes
// at once (checkAlreadyExpired is when <= now).
func TestExpireMillisecond(t *testing.T) {
	runKeyCases(t, []keyCase{{name: "boundary", steps: []keyStep{
		kst(kOK, "SET", "k", "v", "PX", "100"), kadv(100 * time.Millisecond),
		kst(kOne, "EXISTS", "k"), kst(kZero, "PTTL", "k"), kst(kZero, "TTL", "k"),
		kadv(time.Millisecond), kst(":-2\r\n", "PTTL", "k"), kst(kZero, "EXISTS", "k"),
	}}})
}
