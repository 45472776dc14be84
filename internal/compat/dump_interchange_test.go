package compat

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// DUMP/RESTORE and MIGRATE between redis-server and Tandem, both ways: a
// keyspace of every type and encoding is made on one server, moved to the
// other key by key (DUMP there, RESTORE here) or by MIGRATE (with AUTH and
// AUTH2 to servers that require them), and both must then describe every
// key alike: type, encoding (but a string's), value, TTL, and the key's
// DUMP payload, which must be the one the source gave (but for a
// hashtable's member order).

// dumpFill makes a key of every type and encoding in database 0, some
// with a TTL.
var dumpFill = [][]string{
	{"SET", "str", "hello"}, {"SET", "int", "-12345"}, {"SET", "int64", "12345678901"}, {"SET", "empty", ""},
	{"SET", "long", strings.Repeat("compressible ", 300)}, {"SET", "rand", incompressible}, {"SET", "bin\x00\xff", "\x00\r\n\xfe"},
	{"SET", "ttl", "v", "PX", "3600000"},
	{"RPUSH", "list", "a", "b", "1", "", "-300", "70000", strings.Repeat("m", 64), strings.Repeat("L", 5000)},
	append([]string{"RPUSH", "biglist"}, seq(3000, func(i int) string { return "el-" + strconv.Itoa(i) + strings.Repeat("x", i%40) })...),
	{"RPUSH", "hugeelem", "a", strings.Repeat("H", 20000), "b"},
	{"SADD", "intset16", "3", "1", "-7"}, {"SADD", "intset64", "1", "1099511627776"},
	{"SADD", "intsetwide", "1", "2", "9223372036854775807"}, {"SREM", "intsetwide", "9223372036854775807"},
	{"SADD", "set", "x", "y", "z", "1"},
	append([]string{"SADD", "bigintset"}, seq(600, func(i int) string { return strconv.Itoa(i * 3) })...),
	{"HSET", "hash", "f", "v", "n", "1", "neg", "-300", "flt", "1.5"}, {"HSET", "hash", "f", "v2"},
	{"HSET", "bighash", "f", strings.Repeat("v", 100), "g", "w"},
	{"ZADD", "zset", "1.5", "a", "-2", "b", "inf", "c", "-inf", "d", "0.1", "e", "4611686018427387905", "f"},
	append([]string{"ZADD", "bigzset"}, seq(600, func(i int) string {
		if i%2 == 0 {
			return strconv.FormatFloat(float64(i)/3, 'g', -1, 64)
		}
		return "m" + strconv.Itoa(i)
	})...),
	{"PFADD", "hll", "a", "b", "c"},
	append([]string{"PFADD", "hlldense"}, seq(5000, func(i int) string { return "e" + strconv.Itoa(i) })...),
	{"EXPIRE", "hash", "7200"}, {"PEXPIRE", "bigzset", "9000000"},
}

// keyFacts describes every key of database 0 of addr: name, type,
// encoding, value (members sorted where the order is the server's), TTL
// in minutes, and the DUMP payload (hashtables: only its length).
func keyFacts(t *testing.T, addr string) []string {
	t.Helper()
	c := dialRESP(t, addr)
	keys := c.do("KEYS", "*")
	var names []string
	for _, k := range keys.elems {
		names = append(names, k.text)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		typ := c.do("TYPE", k).text
		enc := c.do("OBJECT", "ENCODING", k).text
		if typ == "string" {
			// RESTORE encodes a string as SET would (an HLL that PFADD
			// left raw comes back embstr), on both servers alike: the
			// restore cases compare that.
			enc = "-"
		}
		var v string
		flat := func(r reply, sorted bool) string {
			var s []string
			for _, e := range r.elems {
				s = append(s, strconv.Quote(e.text))
			}
			if sorted {
				sort.Strings(s)
			}
			return strings.Join(s, " ")
		}
		switch typ {
		case "string":
			v = strconv.Quote(c.do("GET", k).text)
		case "list":
			v = flat(c.do("LRANGE", k, "0", "-1"), false)
		case "set":
			v = flat(c.do("SMEMBERS", k), true)
		case "hash":
			v = flat(c.do("HGETALL", k), enc == "hashtable")
		case "zset":
			v = flat(c.do("ZRANGE", k, "0", "-1", "WITHSCORES"), false)
		}
		pttl, _ := strconv.ParseInt(c.do("PTTL", k).text, 10, 64)
		if pttl > 0 {
			pttl = (pttl + 30000) / 60000
		}
		payload := c.do("DUMP", k).text
		if enc == "hashtable" {
			payload = fmt.Sprintf("%d bytes", len(payload))
		} else {
			payload = fmt.Sprintf("%x", payload)
		}
		if len(v) > 200 {
			v = fmt.Sprintf("%s…(%d bytes)", v[:100], len(v))
		}
		out = append(out, fmt.Sprintf("%q %s %s ttl=%dmin %s dump=%s", k, typ, enc, pttl, v, payload))
	}
	return out
}

func fillDump(t *testing.T, addr string) {
	t.Helper()
	c := dialRESP(t, addr)
	for _, f := range dumpFill {
		if r := c.do(f...); r.isError() {
			t.Fatalf("%s: %v: %s", addr, f[:2], r.text)
		}
	}
}

func flushBoth(t *testing.T, addrs ...string) {
	t.Helper()
	for _, a := range addrs {
		if err := flushRedis(a); err != nil {
			t.Fatal(err)
		}
	}
}

func sameFacts(t *testing.T, what string, want, got []string) {
	t.Helper()
	if len(want) < len(dumpFill)-8 {
		t.Fatalf("%s: only %d keys made", what, len(want))
	}
	if strings.Join(want, "\n") == strings.Join(got, "\n") {
		return
	}
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Errorf("%s: key %d differs\n  source: %.600s\n  target: %.600s", what, i, w, g)
		}
	}
}

// copyByDump copies every key of database 0 from src to dst with DUMP,
// PTTL and RESTORE.
func copyByDump(t *testing.T, src, dst string) {
	t.Helper()
	s, d := dialRESP(t, src), dialRESP(t, dst)
	for _, k := range s.do("KEYS", "*").elems {
		payload := s.do("DUMP", k.text)
		ttl := s.do("PTTL", k.text).text
		if ttl == "-1" {
			ttl = "0"
		}
		if r := d.do("RESTORE", k.text, ttl, payload.text); r.kind != '+' {
			t.Fatalf("RESTORE %q on %s: %q", k.text, dst, r.raw)
		}
	}
}

func TestDumpInterchange(t *testing.T) {
	for _, dir := range []struct {
		name     string
		src, dst string
	}{{"redis to tandem", refRedis, sutRedis}, {"tandem to redis", sutRedis, refRedis}} {
		t.Run(dir.name, func(t *testing.T) {
			flushBoth(t, refRedis, sutRedis)
			fillDump(t, dir.src)
			want := keyFacts(t, dir.src)
			copyByDump(t, dir.src, dir.dst)
			sameFacts(t, dir.name, want, keyFacts(t, dir.dst))
		})
	}
}

// migrateAll moves every key of database 0 of src to dst's database db
// with one MIGRATE ... KEYS, with opts (AUTH…), and checks the reply.
func migrateAll(t *testing.T, src, dst string, db int, want string, opts ...string) {
	t.Helper()
	s := dialRESP(t, src)
	host, port := splitAddr(t, dst)
	args := append([]string{"MIGRATE", host, port, "", strconv.Itoa(db), "10000"}, opts...)
	args = append(args, "KEYS")
	for _, k := range s.do("KEYS", "*").elems {
		args = append(args, k.text)
	}
	if r := s.do(args...); string(r.raw) != want {
		t.Fatalf("MIGRATE from %s to %s: %q, want %q", src, dst, r.raw, want)
	}
}

func splitAddr(t *testing.T, addr string) (host, port string) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		t.Fatalf("address %q", addr)
	}
	return addr[:i], addr[i+1:]
}

func TestMigrateInterchange(t *testing.T) {
	for _, dir := range []struct {
		name     string
		src, dst string
	}{{"redis to tandem", refRedis, sutRedis}, {"tandem to redis", sutRedis, refRedis}} {
		t.Run(dir.name, func(t *testing.T) {
			flushBoth(t, refRedis, sutRedis)
			fillDump(t, dir.src)
			want := keyFacts(t, dir.src)
			migrateAll(t, dir.src, dir.dst, 0, "+OK\r\n")
			if n := dialRESP(t, dir.src).do("DBSIZE").text; n != "0" {
				t.Errorf("%d keys left on the source", len(n))
			}
			sameFacts(t, dir.name, want, keyFacts(t, dir.dst))
			// Back, COPY, into database 3 over keys that exist (REPLACE),
			// and a second time without REPLACE: BUSYKEY from the target.
			c := dialRESP(t, dir.src)
			c.do("SET", "str", "old")
			c.do("SELECT", "3")
			c.do("SET", "str", "older")
			c.do("SELECT", "0")
			d := dialRESP(t, dir.dst)
			host, port := splitAddr(t, dir.src)
			if r := d.do("MIGRATE", host, port, "str", "3", "5000", "COPY", "REPLACE"); string(r.raw) != "+OK\r\n" {
				t.Fatalf("MIGRATE COPY REPLACE: %q", r.raw)
			}
			c.do("SELECT", "3")
			if r := c.do("GET", "str"); r.text != "hello" {
				t.Errorf("db 3 after MIGRATE REPLACE: %q", r.raw)
			}
			if r := d.do("MIGRATE", host, port, "str", "0", "5000"); string(r.raw) != "-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n" {
				t.Errorf("MIGRATE over an existing key: %q", r.raw)
			}
			if r := d.do("EXISTS", "str"); r.text != "1" {
				t.Errorf("the refused key left its source: %q", r.raw)
			}
		})
	}
}

// TestMigrateAuthInterchange: MIGRATE with AUTH and AUTH2 into a
// redis-server and a Tandem that require a password, from the other.
func TestMigrateAuthInterchange(t *testing.T) {
	mustNotSelfTest(t)
	dir := t.TempDir()
	authArgs := []string{"--requirepass", "s3cret", "--bind", "127.0.0.1", "--save", "", "--dir", dir}
	ar, err := startServer(dir, "redis-auth", 1, func(p []int) []string {
		return append([]string{"redis-server", "--port", strconv.Itoa(p[0]), "--appendonly", "no", "--dbfilename", "auth.rdb"}, authArgs...)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ar.stop()
	at, err := startServer(dir, "tandem-auth", 2, func(p []int) []string {
		return append([]string{tandemBin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]), "--dbfilename", "auth2.rdb"}, authArgs...)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer at.stop()
	for _, a := range []string{ar.addrs[0], at.addrs[0]} {
		c := dialRESP(t, a)
		c.do("AUTH", "s3cret")
		if r := c.do("ACL", "SETUSER", "mover", "on", ">pw2", "~*", "+@all"); r.kind != '+' {
			t.Fatalf("ACL SETUSER on %s: %q", a, r.raw)
		}
	}
	for _, dir := range []struct {
		name     string
		src, dst string
	}{{"redis to tandem", refRedis, at.addrs[0]}, {"tandem to redis", sutRedis, ar.addrs[0]}} {
		t.Run(dir.name, func(t *testing.T) {
			flushBoth(t, refRedis, sutRedis)
			fillDump(t, dir.src)
			want := keyFacts(t, dir.src)
			migrateAll(t, dir.src, dir.dst, 0, "-ERR Target instance replied with error: NOAUTH Authentication required.\r\n")
			migrateAll(t, dir.src, dir.dst, 0, "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled.\r\n", "AUTH", "nope")
			migrateAll(t, dir.src, dir.dst, 0, "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled.\r\n", "AUTH2", "mover", "s3cret")
			if n := dialRESP(t, dir.src).do("DBSIZE").text; n != strconv.Itoa(len(want)) {
				t.Fatalf("refused MIGRATEs left %s of %d keys", n, len(want))
			}
			migrateAll(t, dir.src, dir.dst, 0, "+OK\r\n", "AUTH2", "mover", "pw2")
			sameFacts(t, dir.name, want, keyFactsAuth(t, dir.dst, "s3cret"))
			d := dialRESP(t, dir.dst)
			d.do("AUTH", "s3cret")
			d.do("FLUSHALL")
			// AUTH (the default user) too, back and forth.
			fillDump(t, dir.src)
			migrateAll(t, dir.src, dir.dst, 0, "+OK\r\n", "COPY", "AUTH", "s3cret")
			sameFacts(t, dir.name+" COPY AUTH", want, keyFactsAuth(t, dir.dst, "s3cret"))
			d.do("FLUSHALL")
		})
	}
}

// keyFactsAuth is keyFacts on a server that wants a password.
func keyFactsAuth(t *testing.T, addr, password string) []string {
	t.Helper()
	// keyFacts dials its own connection: give it an address whose default
	// user needs no password by lifting it for the duration.
	c := dialRESP(t, addr)
	c.do("AUTH", password)
	c.do("CONFIG", "SET", "requirepass", "")
	defer func() {
		c.do("CONFIG", "SET", "requirepass", password)
	}()
	return keyFacts(t, addr)
}
