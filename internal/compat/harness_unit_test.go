package compat

import (
	"bufio"
	"strings"
	"testing"
)

// Unit tests of the harness itself: the reply reader and the loosenings.

func parse(t *testing.T, raw string) reply {
	t.Helper()
	r := bufio.NewReader(strings.NewReader(raw))
	rep, err := readReply(r)
	if err != nil {
		t.Fatalf("readReply(%q): %v", raw, err)
	}
	if string(rep.raw) != raw {
		t.Fatalf("readReply(%q) consumed %q", raw, rep.raw)
	}
	if r.Buffered() != 0 {
		t.Fatalf("readReply(%q) left %d bytes", raw, r.Buffered())
	}
	return rep
}

func TestHarnessReadsEveryRESPType(t *testing.T) {
	for _, raw := range []string{
		"+OK\r\n", "-ERR x\r\n", ":-12\r\n", "$3\r\na\r\n\r\n", "$0\r\n\r\n", "$-1\r\n", "*-1\r\n",
		"*0\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "_\r\n", ",3.14\r\n", ",inf\r\n", "#t\r\n",
		"!9\r\nSYNTAX xx\r\n", "=8\r\ntxt:abcd\r\n", "(12345678901234567890\r\n",
		"%1\r\n+k\r\n*1\r\n:1\r\n", "~2\r\n+a\r\n+b\r\n", ">2\r\n+message\r\n+x\r\n",
		"|1\r\n+ttl\r\n:3\r\n$1\r\nv\r\n",
	} {
		parse(t, raw)
	}
	if rep := parse(t, "|1\r\n+a\r\n:1\r\n+OK\r\n"); rep.kind != '+' || rep.attr == nil {
		t.Errorf("attribute not attached to the reply that follows it: %+v", rep)
	}
}

func TestHarnessRejectsMalformedReplies(t *testing.T) {
	for _, raw := range []string{"OK\r\n", "$3\r\nabcde\r\n", "$x\r\n", "*1\r\n", "+OK\n", "$99999999999\r\n"} {
		if _, err := readReply(bufio.NewReader(strings.NewReader(raw))); err == nil {
			t.Errorf("readReply(%q) accepted a malformed reply", raw)
		}
	}
}

func TestHarnessLoosenings(t *testing.T) {
	cases := []struct {
		l         loosening
		want, got string
		ok        bool
	}{
		{loosening{}, ":1\r\n", ":1\r\n", true},
		{loosening{}, ":1\r\n", ":2\r\n", false},
		{ttlApprox, ":100\r\n", ":99\r\n", true},
		{ttlApprox, ":100\r\n", ":98\r\n", false},
		{ttlApprox, ":-1\r\n", ":0\r\n", false},
		{ttlApprox, ":100\r\n", "$3\r\n100\r\n", false},
		{pttlApprox, ":100000\r\n", ":99800\r\n", true},
		{sortedArray, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", true},
		{sortedArray, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\na\r\n$1\r\na\r\n", false},
		{sortedArray, "~2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", false},
		{errorPrefix, "-ERR one\r\n", "-ERR two\r\n", true},
		{errorPrefix, "-ERR one\r\n", "-WRONGTYPE one\r\n", false},
		{anyInt, ":1\r\n", ":77\r\n", true},
		{anyInt, ":1\r\n", "$1\r\n1\r\n", false},
		{anyBulk, "*2\r\n$2\r\n10\r\n$1\r\n5\r\n", "*2\r\n$3\r\n100\r\n$2\r\n55\r\n", true},
		{anyBulk, "*2\r\n$2\r\n10\r\n$1\r\n5\r\n", "*1\r\n$3\r\n100\r\n", false},
		{infoFields("a", "b"), "$10\r\na:1\r\nb:2\r\n\r\n", "$15\r\n# S\r\nb:3\r\na:4\r\n\r\n", true},
		{infoFields("a", "b"), "$10\r\na:1\r\nb:2\r\n\r\n", "$3\r\na:1\r\n", false},
		{helloReply, "%2\r\n$7\r\nversion\r\n$1\r\n7\r\n$5\r\nproto\r\n:3\r\n", "%2\r\n$7\r\nversion\r\n$3\r\n0.1\r\n$5\r\nproto\r\n:3\r\n", true},
		{helloReply, "%2\r\n$7\r\nversion\r\n$1\r\n7\r\n$5\r\nproto\r\n:3\r\n", "%2\r\n$7\r\nversion\r\n$1\r\n7\r\n$5\r\nproto\r\n:2\r\n", false},
		{unorderedPairs, "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", "%2\r\n+b\r\n:2\r\n+a\r\n:1\r\n", true},
		{unorderedPairs, "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", "%2\r\n+a\r\n:2\r\n+b\r\n:1\r\n", false},
		{commandInfoNoKeySpecs, "*1\r\n*10\r\n$1\r\nx\r\n:1\r\n*0\r\n:0\r\n:0\r\n:0\r\n*0\r\n*0\r\n*1\r\n+a\r\n*0\r\n", "*1\r\n*10\r\n$1\r\nx\r\n:1\r\n*0\r\n:0\r\n:0\r\n:0\r\n*0\r\n*0\r\n*0\r\n*0\r\n", true},
		{commandInfoNoKeySpecs, "*1\r\n*10\r\n$1\r\nx\r\n:1\r\n*0\r\n:0\r\n:0\r\n:0\r\n*0\r\n*0\r\n*0\r\n*0\r\n", "*1\r\n*10\r\n$1\r\ny\r\n:1\r\n*0\r\n:0\r\n:0\r\n:0\r\n*0\r\n*0\r\n*0\r\n*0\r\n", false},
		{namedFigures, "%2\r\n$1\r\na\r\n:1\r\n$2\r\ndb\r\n%1\r\n$1\r\nx\r\n,0.5\r\n", "%2\r\n$1\r\na\r\n:9\r\n$2\r\ndb\r\n%1\r\n$1\r\nx\r\n,7\r\n", true},
		{namedFigures, "*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n", "*4\r\n$1\r\na\r\n:1\r\n$1\r\nc\r\n:2\r\n", false},
		{namedFigures, "%1\r\n$2\r\ndb\r\n%1\r\n$1\r\nx\r\n:1\r\n", "%1\r\n$2\r\ndb\r\n%1\r\n$1\r\ny\r\n:1\r\n", false},
		{namedFigures, "*2\r\n$1\r\na\r\n:1\r\n", "*2\r\n$1\r\na\r\n$1\r\n1\r\n", false},
		{ignoreFields("at", "lru"), "+Value at:0x1 refcount:1 lru:5\r\n", "+Value at:0x2 refcount:1 lru:7\r\n", true},
		{ignoreFields("at", "lru"), "+Value at:0x1 refcount:1 lru:5\r\n", "+Value at:0x1 refcount:2 lru:5\r\n", false},
		{ignoreFields("at"), "+Value at:0x1 refcount:1\r\n", "+Value at:0x1 refcount:1 x:1\r\n", false},
		{ignoreFields("at"), "+Value at:0x1\r\n", "-Value at:0x1\r\n", false},
		{randomArt, "$11\r\n\xe2\xa0\x80\xe2\xa0\x81\nfoot\r\n", "$11\r\n\xe2\xa0\x82\xe2\xa0\x83\nfoot\r\n", true},
		{randomArt, "$11\r\n\xe2\xa0\x80\xe2\xa0\x81\nfoot\r\n", "$11\r\n\xe2\xa0\x82\xe2\xa0\x83\nfeet\r\n", false},
		{randomArt, "$8\r\n\xe2\xa0\x80\nfoot\r\n", "$11\r\n\xe2\xa0\x82\xe2\xa0\x83\nfoot\r\n", false},
		{randomArt, "$15\r\n\x1b[0;30;40m \x1b[0m\r\n", "$16\r\n\x1b[0;90;100m \x1b[0m\r\n", true},
	}
	for _, c := range cases {
		ok, why := matchReply(parse(t, c.want), parse(t, c.got), c.l)
		if ok != c.ok {
			t.Errorf("%s: want %q, got %q: ok=%v (%s), expected %v", c.l, c.want, c.got, ok, why, c.ok)
		}
	}
}

func TestHarnessMemcLoosenings(t *testing.T) {
	cases := []struct {
		loose     []memcLoosening
		want, got string
		ok        bool
	}{
		{nil, "STORED\r\n", "STORED\r\n", true},
		{nil, "STORED\r\n", "NOT_STORED\r\n", false},
		{[]memcLoosening{maskCAS}, "VALUE k 0 1 12\r\nx\r\nEND\r\n", "VALUE k 0 1 99\r\nx\r\nEND\r\n", true},
		{[]memcLoosening{maskCAS}, "VALUE k 0 1 12\r\nx\r\nEND\r\n", "VALUE k 0 1\r\nx\r\nEND\r\n", false},
		{[]memcLoosening{maskCAS}, "HD c12 f0\r\n", "HD c7 f0\r\n", true},
		{[]memcLoosening{maskCAS}, "HD c12 f0\r\n", "HD f0\r\n", false},
		{[]memcLoosening{metaSecondsApprox}, "HD t30\r\n", "HD t29\r\n", true},
		{[]memcLoosening{metaSecondsApprox}, "HD t30\r\n", "HD t27\r\n", false},
		{[]memcLoosening{metaSecondsApprox}, "HD t-1\r\n", "HD t0\r\n", false},
		{[]memcLoosening{metaSecondsApprox}, "HD h1 l0 t5\r\n", "HD h1 l1 t5\r\n", true},
		{[]memcLoosening{metaSecondsApprox}, "HD h1 l0\r\n", "HD h0 l0\r\n", false},
		{[]memcLoosening{versionAny}, "VERSION 1.6.18\r\n", "VERSION 0.1.0-dev\r\n", true},
		{[]memcLoosening{statsShape}, "STAT pid 1\r\nSTAT uptime 2\r\nEND\r\n", "STAT pid 9\r\nEND\r\n", true},
		{[]memcLoosening{statsShape}, "STAT pid 1\r\nEND\r\n", "END\r\n", false},
		{[]memcLoosening{debugShape}, "ME k exp=-1 la=0 cas=3\r\n", "ME k exp=-1 la=0\r\n", true},
		{[]memcLoosening{debugShape}, "ME k exp=-1\r\n", "EN\r\n", false},
	}
	for _, c := range cases {
		if ok, why := matchMemc([]byte(c.want), []byte(c.got), c.loose); ok != c.ok {
			t.Errorf("%v: want %q, got %q: ok=%v%s, expected %v", c.loose, c.want, c.got, ok, why, c.ok)
		}
	}
}

func TestHarnessReadUntilMN(t *testing.T) {
	// A value that looks like MN must not end the read.
	in := "VALUE k 0 4\r\nMN\r\n\r\nEND\r\nVA 2 f0\r\nMN\r\nMN\r\nleft"
	r := bufio.NewReader(strings.NewReader(in))
	out, err := readUntilMN(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "VALUE k 0 4\r\nMN\r\n\r\nEND\r\nVA 2 f0\r\nMN\r\n"; string(out) != want {
		t.Errorf("readUntilMN: %q, want %q", out, want)
	}
	if cas := lastCASIn([]byte("VALUE k 0 1 41\r\nx\r\nHD c42 t-1\r\n")); cas != "42" {
		t.Errorf("lastCASIn: %q", cas)
	}
}

func TestHarnessCommandEncoding(t *testing.T) {
	if got := cmd("SET", "k", ""); got != "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n" {
		t.Errorf("cmd: %q", got)
	}
	if got := mbs("GET  k"); len(got) != 1 || got[0] != cmd("GET", "k") {
		t.Errorf("mbs: %q", got)
	}
	if got := describe(cmd("SET", "k", "a b")); got != `[SET "k" "a b"]` {
		t.Errorf("describe: %s", got)
	}
}
