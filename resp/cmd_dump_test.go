package resp

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// dumpOf returns DUMP key's payload bytes (fails on anything but a bulk).
func (tc *testClient) dumpOf(key string) string {
	tc.env.t.Helper()
	rep := tc.do("DUMP", key)
	rd := bufio.NewReader(strings.NewReader(rep))
	hdr, _ := rd.ReadString('\n')
	if !strings.HasPrefix(hdr, "$") || hdr == "$-1\r\n" {
		tc.env.t.Fatalf("DUMP %s: %q", key, rep)
	}
	n := 0
	for _, d := range hdr[1 : len(hdr)-2] {
		n = n*10 + int(d-'0')
	}
	return rep[len(hdr) : len(hdr)+n]
}

// TestDumpGoldens: for every value of snapshot/rdb's goldens (payloads
// redis-server 7.0.15 returned after the same commands), Tandem's DUMP
// returns the same bytes, with rdbcompression yes and no.
func TestDumpGoldens(t *testing.T) {
	f, err := os.Open("../snapshot/rdb/testdata/dump-redis7.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := newTestEnv(t)
	tc := env.client()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var g struct {
			Name     string
			Setup    [][]string
			Encoding string
			Compress bool
			Payload  string
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(fmt.Sprint(g.Setup), utf8.RuneError) {
			continue // JSON could not carry the setup's bytes (the payload's are hex)
		}
		tc.expect("+OK\r\n", "FLUSHALL")
		yes := map[bool]string{true: "yes", false: "no"}[g.Compress]
		tc.expect("+OK\r\n", "CONFIG", "SET", "rdbcompression", yes)
		for _, s := range g.Setup {
			if rep := tc.do(s...); strings.HasPrefix(rep, "-") {
				t.Fatalf("%s: %v: %s", g.Name, s[:1], rep)
			}
		}
		if enc := tc.do("OBJECT", "ENCODING", "k"); enc != "$"+itoa(len(g.Encoding))+"\r\n"+g.Encoding+"\r\n" {
			t.Errorf("%s: OBJECT ENCODING %q, Redis's %s", g.Name, enc, g.Encoding)
		}
		if got := hex.EncodeToString([]byte(tc.dumpOf("k"))); got != g.Payload {
			t.Errorf("%s (rdbcompression %s): DUMP differs from Redis's:\nredis  %s\ntandem %s", g.Name, yes, g.Payload, got)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d goldens", n)
	}
}

// TestDumpRestoreRoundTrip: every type comes back from its own payload,
// with REPLACE over another type, and with a TTL.
func TestDumpRestoreRoundTrip(t *testing.T) {
	env := newTestEnv(t)
	tc := env.client()
	tc.do("SET", "s", "value")
	tc.do("RPUSH", "l", "a", "b", "3")
	tc.do("SADD", "i", "3", "1", "2", "1099511627776")
	tc.do("SREM", "i", "1099511627776") // an intset of width 8 stays one
	tc.do("SADD", "set", "x", "y", "z")
	tc.do("HSET", "h", "f", "v", "g", "w")
	tc.do("ZADD", "z", "1", "a", "2.5", "b")
	reads := map[string][]string{
		"s": {"GET", "s"}, "l": {"LRANGE", "l", "0", "-1"}, "i": {"SMEMBERS", "i"}, "set": {"SCARD", "set"},
		"h": {"HGETALL", "h"}, "z": {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
	}
	for key, read := range reads {
		want := tc.do(read...)
		enc := tc.do("OBJECT", "ENCODING", key)
		p := tc.dumpOf(key)
		tc.expect("+OK\r\n", "RESTORE", key+"-copy", "0", p)
		read2 := append([]string(nil), read...)
		read2[1] = key + "-copy"
		if got := tc.do(read2...); got != want {
			t.Errorf("%s: restored %q, want %q", key, got, want)
		}
		if got := tc.do("OBJECT", "ENCODING", key+"-copy"); got != enc {
			t.Errorf("%s: restored encoding %q, want %q", key, got, enc)
		}
		if got := tc.dumpOf(key + "-copy"); got != p {
			t.Errorf("%s: the restored key dumps as %q, not %q", key, got, p)
		}
		tc.expect("-"+ErrBusyKey+"\r\n", "RESTORE", key+"-copy", "0", p)
		tc.expect("+OK\r\n", "RESTORE", "s", "0", p, "REPLACE")
		if got := tc.do("TYPE", "s"); got != tc.do("TYPE", key) {
			t.Errorf("%s: REPLACE left %q", key, got)
		}
	}
	p := tc.dumpOf("l")
	tc.expect("+OK\r\n", "RESTORE", "ttl", "5000", p)
	tc.expect(":5000\r\n", "PTTL", "ttl")
	at := env.clock.NowMs() + 9000
	tc.expect("+OK\r\n", "RESTORE", "abs", itoa(int(at)), p, "ABSTTL")
	tc.expect(":9000\r\n", "PTTL", "abs")
	// Already expired: OK, and no key; with REPLACE the old key goes.
	tc.expect("+OK\r\n", "RESTORE", "gone", "1", p, "ABSTTL")
	tc.expect(":0\r\n", "EXISTS", "gone")
	tc.expect("+OK\r\n", "RESTORE", "abs", "1", p, "ABSTTL", "REPLACE")
	tc.expect(":0\r\n", "EXISTS", "abs")
	// A relative TTL past int64 wraps into the past, as in Redis.
	tc.expect("+OK\r\n", "RESTORE", "wrap", "9223372036854775807", p)
	tc.expect(":0\r\n", "EXISTS", "wrap")
	tc.expect("$-1\r\n", "DUMP", "nosuchkey")

	// A value the engine keeps compressed dumps as its plain bytes.
	big := strings.Repeat("compressible text ", 500)
	tc.do("SET", "plain", big)
	want := tc.dumpOf("plain")
	for _, codec := range []string{"s2", "zstd"} {
		tc.expect("+OK\r\n", "CONFIG", "SET", "compression", codec)
		tc.do("SET", "packed", big)
		if got := tc.dumpOf("packed"); got != want {
			t.Errorf("compression %s: DUMP differs", codec)
		}
		tc.expect("+OK\r\n", "RESTORE", "back-"+codec, "0", want)
		tc.expect("$"+itoa(len(big))+"\r\n"+big+"\r\n", "GET", "back-"+codec)
	}
}

// TestRestoreErrors: Redis's refusals, in Redis's order.
func TestRestoreErrors(t *testing.T) {
	env := newTestEnv(t)
	tc := env.client()
	tc.do("SET", "k", "v")
	p := tc.dumpOf("k")
	bad := p[:len(p)-1] + string(p[len(p)-1]^1)
	cases := []struct {
		want string
		args []string
	}{
		{WrongArgs("restore"), []string{"RESTORE", "k", "0"}},
		{WrongArgs("dump"), []string{"DUMP"}},
		{WrongArgs("dump"), []string{"DUMP", "a", "b"}},
		{ErrSyntax, []string{"RESTORE", "n", "0", p, "NOPE"}},
		{ErrSyntax, []string{"RESTORE", "k", "0", p, "IDLETIME"}},                   // before BUSYKEY
		{ErrSyntax, []string{"RESTORE", "n", "0", p, "FREQ", "1", "IDLETIME", "1"}}, // exclusive
		{ErrSyntax, []string{"RESTORE", "n", "0", p, "IDLETIME", "1", "FREQ", "1"}},
		{ErrNotInteger, []string{"RESTORE", "n", "0", p, "IDLETIME", "x"}},
		{ErrInvalidIdletime, []string{"RESTORE", "n", "0", p, "IDLETIME", "-1"}},
		{ErrInvalidFreq, []string{"RESTORE", "n", "0", p, "FREQ", "256"}},
		{ErrInvalidFreq, []string{"RESTORE", "n", "0", p, "FREQ", "-1"}},
		{ErrBusyKey, []string{"RESTORE", "k", "x", "junk"}}, // before the TTL and the payload
		{ErrNotInteger, []string{"RESTORE", "n", "x", "junk"}},
		{ErrInvalidTTL, []string{"RESTORE", "n", "-1", "junk"}}, // before the payload
		{ErrDumpPayload, []string{"RESTORE", "n", "0", "junk"}},
		{ErrDumpPayload, []string{"RESTORE", "n", "0", bad}},
		{ErrDumpPayload, []string{"RESTORE", "n", "0", ""}},
		{ErrBadDataFormat, []string{"RESTORE", "n", "0", sealPayload("\x02\x00")}}, // an empty set
		{ErrBadDataFormat, []string{"RESTORE", "n", "0", sealPayload("\x08\x00")}}, // no such type
	}
	for _, c := range cases {
		tc.expect("-"+c.want+"\r\n", c.args...)
	}
	tc.expect(":0\r\n", "EXISTS", "n")
	// The last IDLETIME or FREQ given counts.
	tc.expect("+OK\r\n", "RESTORE", "n", "0", p, "IDLETIME", "5", "IDLETIME", "100", "REPLACE", "REPLACE")
	tc.expect(":100\r\n", "OBJECT", "IDLETIME", "n")
	tc.expect("+OK\r\n", "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	tc.expect("+OK\r\n", "RESTORE", "f", "0", p, "FREQ", "7", "freq", "42")
	tc.expect(":42\r\n", "OBJECT", "FREQ", "f")
}

// sealPayload gives body a version-10 footer with its CRC.
func sealPayload(body string) string {
	p := append([]byte(body), 10, 0)
	crc := crc64Jones(p)
	for i := 0; i < 8; i++ {
		p = append(p, byte(crc>>(8*i)))
	}
	return string(p)
}

// crc64Jones is an independent bit-at-a-time CRC-64/Jones (reflected
// 0x95ac9329ac4bc9b5, initial 0), as Redis's crc64.
func crc64Jones(p []byte) uint64 {
	var crc uint64
	for _, b := range p {
		crc ^= uint64(b)
		for k := 0; k < 8; k++ {
			if crc&1 == 1 {
				crc = crc>>1 ^ 0x95ac9329ac4bc9b5
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}

// serveTCP serves env's clients on a loopback listener, one goroutine a
// connection, until the test ends; it returns the address.
func serveTCP(t *testing.T, env *testEnv) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				tc := env.client()
				var pending []byte
				buf := make([]byte, 64<<10)
				for {
					n, err := conn.Read(buf)
					if err != nil {
						return
					}
					pending = append(pending, buf[:n]...)
					used, out, closeAfter := tc.c.Serve(pending, nil)
					pending = pending[used:]
					if _, err := conn.Write(out); err != nil || closeAfter {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// await sends a command that may park the client (MIGRATE) and returns its
// reply once it comes.
func (tc *testClient) await(args ...string) string {
	tc.env.t.Helper()
	out := tc.do(args...)
	for deadline := time.Now().Add(10 * time.Second); out == ""; {
		if time.Now().After(deadline) {
			tc.env.t.Fatalf("%q: no reply", args)
		}
		time.Sleep(time.Millisecond)
		out = tc.raw("")
	}
	return out
}

func TestMigrate(t *testing.T) {
	src, dst := newTestEnv(t), newTestEnv(t)
	addr := serveTCP(t, dst)
	host, port, _ := net.SplitHostPort(addr)
	sc, dc := src.client(), dst.client()
	migrate := func(key string, opts ...string) string {
		return sc.await(append([]string{"MIGRATE", host, port, key, "0", "5000"}, opts...)...)
	}
	sc.do("RPUSH", "l", "a", "b")
	sc.do("SET", "s", "v", "PX", "60000")
	if got := migrate("l"); got != "+OK\r\n" {
		t.Fatalf("MIGRATE l: %q", got)
	}
	sc.expect(":0\r\n", "EXISTS", "l")
	dc.expect("*2\r\n$1\r\na\r\n$1\r\nb\r\n", "LRANGE", "l", "0", "-1")
	if got := migrate("s", "COPY"); got != "+OK\r\n" {
		t.Fatalf("MIGRATE s COPY: %q", got)
	}
	sc.expect(":1\r\n", "EXISTS", "s")
	if got := dc.do("PTTL", "s"); got < ":59000" || got > ":60000\r\n" {
		t.Errorf("migrated TTL %q", got)
	}
	if got := migrate("s"); got != "-"+ErrMigrateTarget+"BUSYKEY Target key name already exists.\r\n" {
		t.Errorf("MIGRATE over an existing key: %q", got)
	}
	sc.expect(":1\r\n", "EXISTS", "s")
	sc.do("SET", "s", "new")
	if got := migrate("s", "REPLACE"); got != "+OK\r\n" {
		t.Errorf("MIGRATE REPLACE: %q", got)
	}
	dc.expect("$3\r\nnew\r\n", "GET", "s")
	if got := migrate("nosuch"); got != "+NOKEY\r\n" {
		t.Errorf("MIGRATE of a missing key: %q", got)
	}
	sc.do("MSET", "a", "1", "b", "2")
	if got := migrate("", "KEYS", "a", "missing", "b"); got != "+OK\r\n" {
		t.Errorf("MIGRATE KEYS: %q", got)
	}
	dc.expect("*2\r\n$1\r\n1\r\n$1\r\n2\r\n", "MGET", "a", "b")
	sc.expect(":0\r\n", "EXISTS", "a", "b")
	// Into another database of the target, and one it does not have.
	sc.do("SET", "d", "x")
	if got := sc.await("MIGRATE", host, port, "d", "3", "5000", "COPY"); got != "+OK\r\n" {
		t.Errorf("MIGRATE to db 3: %q", got)
	}
	dc.do("SELECT", "3")
	dc.expect("$1\r\nx\r\n", "GET", "d")
	dc.do("SELECT", "0")
	if got := sc.await("MIGRATE", host, port, "d", "99", "5000"); got != "-"+ErrMigrateTarget+"ERR DB index is out of range\r\n" {
		t.Errorf("MIGRATE to db 99: %q", got)
	}
	sc.expect(":1\r\n", "EXISTS", "d")

	// Inside MULTI and a script, where nothing parks: on the spot.
	sc.do("SET", "m", "1")
	sc.expect("+OK\r\n", "MULTI")
	sc.expect("+QUEUED\r\n", "MIGRATE", host, port, "m", "0", "5000")
	sc.expect("+QUEUED\r\n", "EXISTS", "m")
	sc.expect("*2\r\n+OK\r\n:0\r\n", "EXEC")
	dc.expect("$1\r\n1\r\n", "GET", "m")
	sc.do("SET", "e", "2")
	sc.expect("+OK\r\n", "EVAL", "return redis.call('MIGRATE', ARGV[1], ARGV[2], 'e', 0, 5000)", "0", host, port)
	dc.expect("$1\r\n2\r\n", "GET", "e")
	sc.expect(":0\r\n", "EXISTS", "e")

	// With a password on the target.
	dc.expect("+OK\r\n", "CONFIG", "SET", "requirepass", "secret")
	if got := migrate("d", "COPY"); !strings.HasPrefix(got, "-"+ErrMigrateTarget+"NOAUTH") {
		t.Errorf("MIGRATE without AUTH: %q", got)
	}
	if got := migrate("d", "COPY", "AUTH", "wrong"); got != "-"+ErrMigrateTarget+"WRONGPASS invalid username-password pair or user is disabled.\r\n" {
		t.Errorf("MIGRATE with a wrong password: %q", got)
	}
	if got := migrate("d", "AUTH2", "default", "secret", "REPLACE"); got != "+OK\r\n" {
		t.Errorf("MIGRATE AUTH2: %q", got)
	}
	sc.expect(":0\r\n", "EXISTS", "d")
}

func TestMigrateErrors(t *testing.T) {
	env := newTestEnv(t)
	tc := env.client()
	tc.do("SET", "k", "v")
	for _, c := range []struct {
		want string
		args []string
	}{
		{WrongArgs("migrate"), []string{"MIGRATE", "h", "1", "k", "0"}},
		{ErrSyntax, []string{"MIGRATE", "h", "1", "k", "0", "1", "NOPE"}},
		{ErrSyntax, []string{"MIGRATE", "h", "1", "k", "0", "1", "AUTH"}},
		{ErrSyntax, []string{"MIGRATE", "h", "1", "k", "0", "1", "AUTH2", "u"}},
		{ErrMigrateKeysArg, []string{"MIGRATE", "h", "1", "k", "0", "1", "KEYS", "k"}},
		{ErrNotInteger, []string{"MIGRATE", "h", "1", "k", "x", "y"}},
		{ErrNotInteger, []string{"MIGRATE", "h", "1", "k", "x", "1"}},
	} {
		tc.expect("-"+c.want+"\r\n", c.args...)
	}
	tc.expect("-"+ErrNotInteger+"\r\n", "MIGRATE", "h", "1", "missing", "x", "1") // before the keys
	tc.expect("+NOKEY\r\n", "MIGRATE", "h", "1", "missing", "0", "1")             // before connecting

	// Nobody listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr)
	ln.Close()
	if got := tc.await("MIGRATE", "127.0.0.1", itoa(closed.Port), "k", "0", "1000"); got != "-"+ErrMigrateWrite+"\r\n" {
		t.Errorf("MIGRATE to a closed port: %q", got)
	}
	for _, port := range []string{"-1", "-70000"} {
		if got := tc.await("MIGRATE", "127.0.0.1", port, "k", "0", "1000"); got != "-"+ErrMigrateConnect+"\r\n" {
			t.Errorf("MIGRATE to port %s: %q", port, got)
		}
	}
	// A target that never answers: a timeout, and the key stays.
	mute, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	go func() {
		for {
			c, err := mute.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	if got := tc.await("MIGRATE", "127.0.0.1", itoa(mute.Addr().(*net.TCPAddr).Port), "k", "0", "200"); got != "-"+ErrMigrateRead+"\r\n" {
		t.Errorf("MIGRATE to a mute target: %q", got)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	tc.expect(":1\r\n", "EXISTS", "k")
	// A target that closes at once: retried once, then a read error.
	shut, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer shut.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := shut.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	if got := tc.await("MIGRATE", "127.0.0.1", itoa(shut.Addr().(*net.TCPAddr).Port), "k", "0", "1000"); got != "-"+ErrMigrateRead+"\r\n" && got != "-"+ErrMigrateWrite+"\r\n" {
		t.Errorf("MIGRATE to a target that hangs up: %q", got)
	}
	if n := len(accepted); n != 2 {
		t.Errorf("%d connections, want 2 (one retry)", n)
	}
}
