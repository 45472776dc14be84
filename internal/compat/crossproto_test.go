package compat

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Cross-protocol checks: Tandem's RESP and memcached front doors share one
// keyspace (memcached sees database 0). These cannot be diffed against a
// real server, so they assert concrete values. They need Tandem and are
// skipped in self-test mode.

// crossSetup flushes Tandem and returns a RESP and a memcached connection.
func crossSetup(t *testing.T) (*respClient, *memcClient) {
	t.Helper()
	mustNotSelfTest(t)
	if err := flushRedis(sutRedis); err != nil {
		t.Fatal(err)
	}
	return dialRESP(t, sutRedis), dialMemc(t, sutMemc)
}

func expectReply(t *testing.T, what string, got reply, want string) {
	t.Helper()
	if string(got.raw) != want {
		t.Errorf("%s: got %q, want %q", what, got.raw, want)
	}
}

func expectMemc(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

var (
	getsLine = regexp.MustCompile(`^VALUE \S+ \d+ \d+ (\d+)\r\n`)
	metaTTL  = regexp.MustCompile(` t(-?\d+)\b`)
)

// casOf returns the CAS unique memcached reports for key.
func casOf(t *testing.T, m *memcClient, key string) string {
	t.Helper()
	out := m.do("gets " + key + "\r\n")
	match := getsLine.FindStringSubmatch(out)
	if match == nil {
		t.Fatalf("gets %s: no VALUE line with a CAS in %q", key, out)
	}
	return match[1]
}

func TestCrossRESPSetMemcachedGet(t *testing.T) {
	r, m := crossSetup(t)
	expectReply(t, "SET", r.do("SET", "k", "hello"), "+OK\r\n")
	expectMemc(t, "get after RESP SET", m.do("get k\r\n"), "VALUE k 0 5\r\nhello\r\nEND\r\n")
	expectMemc(t, "mg after RESP SET", m.do("mg k v f s\r\n"), "VA 5 f0 s5\r\nhello\r\n")
}

func TestCrossRESPBinaryValue(t *testing.T) {
	r, m := crossSetup(t)
	val := "a\r\nb\x00\xff"
	r.do("SET", "bin", val)
	expectMemc(t, "get binary", m.do("get bin\r\n"), "VALUE bin 0 6\r\n"+val+"\r\nEND\r\n")
}

func TestCrossMemcachedSetRESPGet(t *testing.T) {
	r, m := crossSetup(t)
	expectMemc(t, "set flags 42", m.do("set k 42 0 3\r\nabc\r\n"), "STORED\r\n")
	expectReply(t, "GET", r.do("GET", "k"), "$3\r\nabc\r\n")
	expectReply(t, "TYPE", r.do("TYPE", "k"), "+string\r\n")
	expectReply(t, "STRLEN", r.do("STRLEN", "k"), ":3\r\n")
	// RESP reads must not disturb the memcached flags.
	expectMemc(t, "get keeps flags", m.do("get k\r\n"), "VALUE k 42 3\r\nabc\r\nEND\r\n")
}

func TestCrossMemcachedMetaSetRESPGet(t *testing.T) {
	r, m := crossSetup(t)
	expectMemc(t, "ms", m.do("ms k 2 F7\r\nhi\r\n"), "HD\r\n")
	expectReply(t, "GET", r.do("GET", "k"), "$2\r\nhi\r\n")
}

func TestCrossRESPSetChangesCAS(t *testing.T) {
	r, m := crossSetup(t)
	m.do("set k 0 0 1\r\na\r\n")
	old := casOf(t, m, "k")
	expectReply(t, "SET", r.do("SET", "k", "b"), "+OK\r\n")
	if now := casOf(t, m, "k"); now == old {
		t.Errorf("CAS unique still %s after a RESP SET", now)
	}
	expectMemc(t, "cas with the old unique", m.do("cas k 0 0 1 "+old+"\r\nc\r\n"), "EXISTS\r\n")
	expectReply(t, "GET", r.do("GET", "k"), "$1\r\nb\r\n")
}

// TestCrossRESPWritesChangeCAS: every RESP write of a value changes the CAS
// unique. (EXPIRE is left out on purpose: memcached's touch keeps the CAS,
// and whether RESP EXPIRE should is Tandem's decision.)
func TestCrossRESPWritesChangeCAS(t *testing.T) {
	writes := [][]string{
		{"APPEND", "k", "x"},
		{"SETRANGE", "k", "0", "z"},
		{"INCR", "k"},
		{"GETSET", "k", "5"},
		{"SET", "k", "5", "KEEPTTL"},
		{"INCRBYFLOAT", "k", "1.5"},
	}
	for _, w := range writes {
		t.Run(w[0], func(t *testing.T) {
			r, m := crossSetup(t)
			m.do("set k 0 0 1\r\n1\r\n")
			old := casOf(t, m, "k")
			if rep := r.do(w...); rep.isError() {
				t.Fatalf("%v: %s", w, rep)
			}
			if now := casOf(t, m, "k"); now == old {
				t.Errorf("%v did not change the CAS unique (%s)", w, now)
			}
		})
	}
}

func TestCrossRESPReadKeepsCAS(t *testing.T) {
	r, m := crossSetup(t)
	m.do("set k 0 0 1\r\n1\r\n")
	old := casOf(t, m, "k")
	r.do("GET", "k")
	r.do("STRLEN", "k")
	r.do("EXISTS", "k")
	if now := casOf(t, m, "k"); now != old {
		t.Errorf("RESP reads changed the CAS unique from %s to %s", old, now)
	}
	expectMemc(t, "cas after reads", m.do("cas k 0 0 1 "+old+"\r\n2\r\n"), "STORED\r\n")
}

func TestCrossMemcachedIncrOnRESPNumber(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SET", "n", "41")
	expectMemc(t, "incr", m.do("incr n 1\r\n"), "42\r\n")
	expectReply(t, "GET", r.do("GET", "n"), "$2\r\n42\r\n")
	expectReply(t, "INCR", r.do("INCR", "n"), ":43\r\n")
	expectMemc(t, "decr", m.do("decr n 3\r\n"), "40\r\n")
	expectMemc(t, "ma", m.do("ma n v\r\n"), "VA 2\r\n41\r\n")
}

func TestCrossRESPIncrOnMemcachedNumber(t *testing.T) {
	r, m := crossSetup(t)
	m.do("set n 5 0 2\r\n10\r\n")
	expectReply(t, "INCR", r.do("INCR", "n"), ":11\r\n")
	expectReply(t, "INCRBY", r.do("INCRBY", "n", "-20"), ":-9\r\n")
	// memcached counters are unsigned: a negative value is not numeric to it.
	expectMemc(t, "incr on negative", m.do("incr n 1\r\n"), "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n")
}

func TestCrossRESPExpireVisibleInMeta(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SET", "k", "v")
	expectMemc(t, "mg t without expiry", m.do("mg k t\r\n"), "HD t-1\r\n")
	expectReply(t, "EXPIRE", r.do("EXPIRE", "k", "100"), ":1\r\n")
	out := m.do("mg k t\r\n")
	match := metaTTL.FindStringSubmatch(out)
	if match == nil {
		t.Fatalf("mg k t: no t flag in %q", out)
	}
	if ttl, _ := strconv.Atoi(match[1]); ttl < 98 || ttl > 100 {
		t.Errorf("mg k t after EXPIRE 100: t%d", ttl)
	}
	r.do("PERSIST", "k")
	expectMemc(t, "mg t after PERSIST", m.do("mg k t\r\n"), "HD t-1\r\n")
}

func TestCrossMemcachedExptimeVisibleInTTL(t *testing.T) {
	r, m := crossSetup(t)
	m.do("set k 0 100 1\r\nx\r\n")
	rep := r.do("TTL", "k")
	if n, err := strconv.Atoi(rep.text); rep.kind != ':' || err != nil || n < 98 || n > 100 {
		t.Errorf("TTL after memcached exptime 100: %s", rep)
	}
	m.do("touch k 0\r\n")
	expectReply(t, "TTL after touch 0", r.do("TTL", "k"), ":-1\r\n")
	m.do("mg k T50\r\n")
	rep = r.do("TTL", "k")
	if n, err := strconv.Atoi(rep.text); rep.kind != ':' || err != nil || n < 48 || n > 50 {
		t.Errorf("TTL after mg T50: %s", rep)
	}
}

func TestCrossRESPExpiryHidesFromMemcached(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SET", "k", "v", "PX", "20")
	time.Sleep(120 * time.Millisecond)
	expectMemc(t, "get after RESP expiry", m.do("get k\r\n"), "END\r\n")
	expectMemc(t, "add after RESP expiry", m.do("add k 0 0 1\r\nw\r\n"), "STORED\r\n")
}

func TestCrossRESPDelMemcachedMiss(t *testing.T) {
	r, m := crossSetup(t)
	m.do("set k 0 0 1\r\nx\r\n")
	expectReply(t, "DEL", r.do("DEL", "k"), ":1\r\n")
	expectMemc(t, "get after DEL", m.do("get k\r\n"), "END\r\n")
	expectMemc(t, "mg after DEL", m.do("mg k v\r\n"), "EN\r\n")
}

func TestCrossMemcachedDeleteRESPNil(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SET", "k", "v")
	expectMemc(t, "delete", m.do("delete k\r\n"), "DELETED\r\n")
	expectReply(t, "GET after delete", r.do("GET", "k"), "$-1\r\n")
	expectReply(t, "EXISTS after delete", r.do("EXISTS", "k"), ":0\r\n")
}

func TestCrossMemcachedSeesDatabaseZero(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SELECT", "1")
	r.do("SET", "k", "db1")
	expectMemc(t, "get of a db 1 key", m.do("get k\r\n"), "END\r\n")
	m.do("set k 0 0 3\r\ndb0\r\n")
	expectReply(t, "GET in db 1", r.do("GET", "k"), "$3\r\ndb1\r\n")
	r.do("SELECT", "0")
	expectReply(t, "GET in db 0", r.do("GET", "k"), "$3\r\ndb0\r\n")
}

func TestCrossFlushBothWays(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SET", "a", "1")
	m.do("set b 0 0 1\r\n2\r\n")
	expectMemc(t, "flush_all", m.do("flush_all\r\n"), "OK\r\n")
	expectReply(t, "DBSIZE after flush_all", r.do("DBSIZE"), ":0\r\n")

	m.do("set c 0 0 1\r\n3\r\n")
	expectReply(t, "FLUSHALL", r.do("FLUSHALL"), "+OK\r\n")
	expectMemc(t, "get after FLUSHALL", m.do("get c\r\n"), "END\r\n")
}

func TestCrossAddReplaceSeeRESPKeys(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SET", "k", "v")
	expectMemc(t, "add on a RESP key", m.do("add k 0 0 1\r\nx\r\n"), "NOT_STORED\r\n")
	expectMemc(t, "replace on a RESP key", m.do("replace k 3 0 1\r\ny\r\n"), "STORED\r\n")
	expectReply(t, "GET", r.do("GET", "k"), "$1\r\ny\r\n")
	expectMemc(t, "append", m.do("append k 0 0 1\r\nz\r\n"), "STORED\r\n")
	expectReply(t, "GET after append", r.do("GET", "k"), "$2\r\nyz\r\n")
	expectMemc(t, "flags survive append", m.do("mg k f\r\n"), "HD f3\r\n")
}

func TestCrossRESPSetNXSeesMemcachedKeys(t *testing.T) {
	r, m := crossSetup(t)
	m.do("set k 0 0 1\r\nx\r\n")
	expectReply(t, "SETNX", r.do("SETNX", "k", "y"), ":0\r\n")
	expectReply(t, "SET XX", r.do("SET", "k", "z", "XX"), "+OK\r\n")
	expectMemc(t, "get", m.do("get k\r\n"), "VALUE k 0 1\r\nz\r\nEND\r\n")
}

func TestCrossKeysListsMemcachedKeys(t *testing.T) {
	r, m := crossSetup(t)
	m.do("set mk 0 0 1\r\nx\r\nms mk2 1\r\ny\r\n")
	rep := r.do("KEYS", "*")
	var keys []string
	for _, e := range rep.elems {
		keys = append(keys, e.text)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "mk,mk2" {
		t.Errorf("KEYS * after memcached sets: %s", rep)
	}
	expectReply(t, "DBSIZE", r.do("DBSIZE"), ":2\r\n")
}
