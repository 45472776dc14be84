package compat

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SLOWLOG, differential: each case turns slowlog-log-slower-than to 0
// with CONFIG SET on both servers (so every command is logged), resets
// the log and runs its commands; it ends by restoring the defaults.
// SLOWLOG GET replies are compared entry by entry: ids (relative to the
// case's first, since each server's count began long before), arguments
// with their cutting, and client names exactly; the unix time within a
// few seconds of the other server's; the duration any integer; the client
// address by its host. Every other reply (LEN, RESET, HELP, errors) is
// exact.

func TestRedisSlowlog(t *testing.T) { runSlowlogCases(t, slowlogCases) }

// slowlogCase is a redisCase whose cmds run between slowlogOn and
// slowlogOff; gets are the indexes (in cmds) of SLOWLOG GET replies.
type slowlogCase struct {
	name string
	cmds []string
	gets []int
	any  []int // replies not compared
	// shapes are the indexes of replies compared by shape, bulk strings
	// exact and integers free (LATENCY's times and latencies).
	shapes []int
	on     []string // the commands before cmds; nil: slowlogOn
	off    []string // the commands after cmds; nil: slowlogOff
}

var (
	slowlogOn  = mbs("CONFIG SET slowlog-log-slower-than 0", "CONFIG SET slowlog-max-len 128", "SLOWLOG RESET")
	slowlogOff = mbs("CONFIG SET slowlog-log-slower-than 10000", "CONFIG SET slowlog-max-len 128", "SLOWLOG RESET")
)

func manyArgs(n int) []string {
	a := []string{"RPUSH", "l"}
	for i := 0; i < n; i++ {
		a = append(a, strconv.Itoa(i))
	}
	return a
}

var slowlogCases = []slowlogCase{
	{name: "get len reset", cmds: mbs("SLOWLOG LEN", "SET k v", "GET k", "SLOWLOG LEN", "SLOWLOG GET", "SLOWLOG RESET",
		"SLOWLOG LEN", "SLOWLOG GET"), gets: []int{4, 7}},
	{name: "get count", cmds: mbs("SET a 1", "SET b 2", "SET c 3", "SLOWLOG GET 2", "SLOWLOG GET 0", "SLOWLOG GET -1",
		"SLOWLOG GET 100", "slowlog get 1"), gets: []int{3, 4, 5, 6, 7}},
	{name: "get errors", cmds: mbs("SLOWLOG GET -2", "SLOWLOG GET x", "SLOWLOG GET 1.5", "SLOWLOG GET 99999999999999999999",
		"SLOWLOG GET 1 2", "SLOWLOG LEN x", "SLOWLOG RESET x", "SLOWLOG HELP x", "SLOWLOG nosuch", "SLOWLOG", "SLOWLOG GET -1"),
		gets: []int{10}},
	{name: "help", cmds: mbs("SLOWLOG HELP", "slowlog help", "SLOWLOG GET"), gets: []int{2}},
	{name: "argument cutting", cmds: cmds(cmd("SET", strings.Repeat("k", 128), strings.Repeat("v", 129)),
		cmd("SET", "x", strings.Repeat("y", 1000)), cmd(manyArgs(31)...), cmd(manyArgs(30)...), cmd(manyArgs(29)...),
		cmd(manyArgs(100)...), cmd("ECHO", ""), mbs("SLOWLOG GET")), gets: []int{7}},
	{name: "client name", cmds: mbs("CLIENT SETNAME slowpoke", "PING", "CLIENT SETNAME", "PING", "SLOWLOG GET"), gets: []int{4}},
	{name: "max len", cmds: mbs("SET a 1", "SET b 2", "CONFIG SET slowlog-max-len 2", "SLOWLOG LEN", "SLOWLOG GET",
		"CONFIG SET slowlog-max-len 0", "SLOWLOG LEN", "CONFIG SET slowlog-max-len 5", "PING", "SLOWLOG GET"), gets: []int{4, 9}},
	{name: "disabled", cmds: mbs("SET a 1", "CONFIG SET slowlog-log-slower-than -1", "SET b 2", "SLOWLOG LEN", "SLOWLOG GET",
		"CONFIG SET slowlog-log-slower-than 1000000", "SET c 3", "SLOWLOG GET", "CONFIG SET slowlog-log-slower-than 0",
		"SLOWLOG GET"), gets: []int{4, 7, 9}},
	{name: "multi exec", cmds: mbs("MULTI", "SET a 1", "INCR a", "EXEC", "SLOWLOG GET"), gets: []int{4}},
	// HELLO's reply holds the connection's id, each server's own.
	{name: "redacted", cmds: cmds(mbs("AUTH x", "AUTH a b", "AUTH a b c", "HELLO 2 AUTH default pw", "HELLO 2 AUTH u p SETNAME n",
		"HELLO 2 AUTH u", "ACL SETUSER slowuser on >secret", "ACL DELUSER slowuser"),
		cmd("CONFIG", "SET", "requirepass", "", "slowlog-max-len", "128"), cmd("CONFIG", "SET", "masteruser", "", "masterauth", ""),
		mbs("SLOWLOG GET -1")), gets: []int{10}, any: []int{3}},
	{name: "redacted migrate", cmds: mbs("MIGRATE 127.0.0.1 1 nokey 0 10 AUTH secret", "MIGRATE 127.0.0.1 1 nokey 0 10 COPY AUTH2 u p REPLACE",
		"MIGRATE 127.0.0.1 1 nokey 0 10 AUTH", "MIGRATE 127.0.0.1 1 \"\" 0 10 AUTH pw KEYS nokey AUTH x",
		"MIGRATE 127.0.0.1 1 nokey 0 10 FOO AUTH pw", "SLOWLOG GET"), gets: []int{5}},
	{name: "errors are logged", cmds: mbs("INCR", "NOSUCHCOMMAND", "GET a b", "SET k v", "LPUSH k x", "SLOWLOG GET"), gets: []int{5}},
}

func runSlowlogCases(t *testing.T, cases []slowlogCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, proto := range []int{2, 3} {
				for _, mode := range []writeMode{oneByOne, pipelined} {
					t.Run(fmt.Sprintf("resp%d/%s", proto, mode), func(t *testing.T) { runSlowlogCase(t, c, proto, mode) })
				}
			}
		})
	}
}

func runSlowlogCase(t *testing.T, c slowlogCase, proto int, mode writeMode) {
	t.Helper()
	on, off := slowlogOn, slowlogOff
	if c.on != nil {
		on, off = c.on, c.off
	}
	rc := redisCase{name: c.name, cmds: cmds(on, c.cmds, off), noSplit: true}
	if err := flushRedis(refRedis); err != nil {
		t.Fatal(err)
	}
	if err := flushRedis(sutRedis); err != nil {
		t.Fatal(err)
	}
	ref, sut := both(func(addr string) sideResult {
		return playRedis(addr, rc, proto, mode, seedOf(c.name, proto, mode))
	}, refRedis, sutRedis)
	gets, skip, shapes := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for _, g := range c.gets {
		gets[g+len(on)] = true
	}
	for _, a := range c.any {
		skip[a+len(on)] = true
	}
	// The off commands only clean up. What they reply may count what
	// happened meanwhile on a loaded machine (LATENCY RESET's events: an
	// expiry cycle or a command of the case past the threshold), which
	// the case does not compare.
	for i := range off {
		skip[len(on)+len(c.cmds)+i] = true
	}
	for _, a := range c.shapes {
		shapes[a+len(on)] = true
	}
	refBase, sutBase := int64(-1), int64(-1)
	for i, command := range rc.cmds {
		if ref.errs[i] != nil {
			t.Fatalf("reference redis-server gave no reply to cmd %d %s: %v (the case is wrong)", i, describe(command), ref.errs[i])
		}
		if sut.errs[i] != nil {
			t.Fatalf("cmd %d %s: %s gave no reply: %v", i, describe(command), sideName(), sut.errs[i])
		}
		if skip[i] {
			continue
		}
		if shapes[i] {
			if why := shapeDiffers(ref.replies[i], sut.replies[i]); why != "" {
				t.Errorf("cmd %d %s: %s\n  redis:  %q\n  %s: %q", i, describe(command), why, ref.replies[i].raw, sideName(), sut.replies[i].raw)
			}
			continue
		}
		if !gets[i] {
			if string(ref.replies[i].raw) != string(sut.replies[i].raw) {
				t.Errorf("cmd %d %s: reply differs\n  redis:  %q\n  %s: %q", i, describe(command), ref.replies[i].raw, sideName(), sut.replies[i].raw)
			}
			continue
		}
		if why := slowlogEntriesDiffer(ref.replies[i], sut.replies[i], &refBase, &sutBase); why != "" {
			t.Errorf("cmd %d %s: %s\n  redis:  %q\n  %s: %q", i, describe(command), why, ref.replies[i].raw, sideName(), sut.replies[i].raw)
		}
	}
}

// slowlogEntriesDiffer compares two SLOWLOG GET replies as the file's
// comment says; bases are each side's first id seen in the case.
func slowlogEntriesDiffer(want, got reply, wantBase, gotBase *int64) string {
	if want.kind != '*' {
		if string(want.raw) != string(got.raw) {
			return "reply differs"
		}
		return ""
	}
	if got.kind != '*' || len(got.elems) != len(want.elems) {
		return "not as many entries"
	}
	for j := range want.elems {
		w, g := want.elems[j], got.elems[j]
		if len(w.elems) != 6 || len(g.elems) != 6 || g.kind != '*' {
			return fmt.Sprintf("entry %d is not 6 fields", j)
		}
		wid, _ := strconv.ParseInt(w.elems[0].text, 10, 64)
		gid, err := strconv.ParseInt(g.elems[0].text, 10, 64)
		if g.elems[0].kind != ':' || err != nil {
			return fmt.Sprintf("entry %d: id not an integer", j)
		}
		if *wantBase < 0 {
			*wantBase, *gotBase = wid, gid
		}
		if wid-*wantBase != gid-*gotBase {
			return fmt.Sprintf("entry %d: id %d after the case's first, redis %d", j, gid-*gotBase, wid-*wantBase)
		}
		wt, _ := strconv.ParseInt(w.elems[1].text, 10, 64)
		gt, err := strconv.ParseInt(g.elems[1].text, 10, 64)
		if g.elems[1].kind != ':' || err != nil || gt < wt-5 || gt > wt+5 {
			return fmt.Sprintf("entry %d: time %q, redis %q", j, g.elems[1].text, w.elems[1].text)
		}
		if g.elems[2].kind != ':' {
			return fmt.Sprintf("entry %d: duration not an integer", j)
		}
		if string(g.elems[3].raw) != string(w.elems[3].raw) {
			return fmt.Sprintf("entry %d: arguments differ", j)
		}
		host := func(r reply) string { h, _, _ := strings.Cut(r.text, ":"); return string(r.kind) + h }
		if g.elems[4].kind != '$' || host(g.elems[4]) != host(w.elems[4]) {
			return fmt.Sprintf("entry %d: client address", j)
		}
		if string(g.elems[5].raw) != string(w.elems[5].raw) {
			return fmt.Sprintf("entry %d: client name", j)
		}
	}
	return ""
}

// TestSlowlogMemcached checks that a memcached request lands in the slow
// log that SLOWLOG GET reads on the Redis port, shown as "mc:<command>"
// and the request line's tokens.
func TestSlowlogMemcached(t *testing.T) {
	mustNotSelfTest(t)
	ctl := controlFor(sutRedis)
	for _, req := range []string{cmd("CONFIG", "SET", "slowlog-log-slower-than", "0"), cmd("SLOWLOG", "RESET")} {
		if line, err := ctl.roundTrip(req); err != nil || line != "+OK\r\n" {
			t.Fatalf("%q: %q %v", req, line, err)
		}
	}
	defer ctl.roundTrip(cmd("CONFIG", "SET", "slowlog-log-slower-than", "10000"))
	mc, err := net.DialTimeout("tcp", sutMemc, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	mc.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(mc)
	if _, err := mc.Write([]byte("set slowkey 5 0 3\r\nbar\r\nget slowkey otherkey\r\n")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"STORED\r\n", "VALUE slowkey 5 3\r\n", "bar\r\n", "END\r\n"} {
		if line, err := r.ReadString('\n'); err != nil || line != want {
			t.Fatalf("memcached reply %q %v, want %q", line, err, want)
		}
	}
	// Binary requests too, as their opcode's text command and their key.
	bin, err := net.DialTimeout("tcp", sutMemc, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	bin.SetDeadline(time.Now().Add(5 * time.Second))
	bin.Write(binaryRequest(0x01, "binslow", "\x00\x00\x00\x00\x00\x00\x00\x00", "v")) // SET
	bin.Write(binaryRequest(0x00, "binslow", "", ""))                                  // GET
	br := bufio.NewReader(bin)
	for i := 0; i < 2; i++ { // both replies: the requests ran
		h := make([]byte, 24)
		if _, err := ioReadFull(br, h); err != nil {
			t.Fatal(err)
		}
		if _, err := ioReadFull(br, make([]byte, binary.BigEndian.Uint32(h[8:]))); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := net.DialTimeout("tcp", sutRedis, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(cmd("SLOWLOG", "GET", "-1"))); err != nil {
		t.Fatal(err)
	}
	got, err := readReply(bufio.NewReader(conn))
	if err != nil {
		t.Fatal(err)
	}
	args := func(e reply) string {
		var a []string
		for _, x := range e.elems[3].elems {
			a = append(a, strconv.Quote(x.text))
		}
		return strings.Join(a, " ")
	}
	var seen []string
	for _, e := range got.elems {
		seen = append(seen, args(e))
	}
	want := []string{`"mc:get" "binslow"`, `"mc:set" "binslow"`, `"mc:get" "slowkey" "otherkey"`, `"mc:set" "slowkey" "5" "0" "3"`}
	var mcSeen []string
	for _, s := range seen {
		if strings.HasPrefix(s, `"mc:`) {
			mcSeen = append(mcSeen, s)
		}
	}
	if strings.Join(mcSeen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("memcached entries %q, want %q (all: %q)", mcSeen, want, seen)
	}
	for _, e := range got.elems {
		if strings.HasPrefix(args(e), `"mc:set"`) && !strings.HasPrefix(e.elems[4].text, "127.0.0.1:") {
			t.Errorf("mc:set entry's client %q", e.elems[4].text)
		}
	}
}

// shapeDiffers compares two replies by shape: the same types and
// aggregate lengths, bulk strings equal, integers free.
func shapeDiffers(want, got reply) string {
	if want.kind != got.kind || len(want.elems) != len(got.elems) {
		return "shape differs"
	}
	if want.kind != ':' && !want.isAggregate() && want.text != got.text {
		return "text differs"
	}
	for i := range want.elems {
		if why := shapeDiffers(want.elems[i], got.elems[i]); why != "" {
			return why
		}
	}
	return ""
}
