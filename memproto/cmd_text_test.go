package memproto

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/engine"
)

// Text protocol behaviour. Replies were checked against memcached 1.6.18;
// the bulk of the byte-for-byte evidence is testdata/memcached-1.6.18.golden
// (TestMemcachedGolden). These tests add what a recording cannot show:
// time moving, CAS values, engine state, configuration.

func TestTextScripts(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		setup func(e *testEnv)
	}{
		{"set get", []step{
			{in: "set k 5 0 3\r\nabc\r\n", want: "STORED\r\n"},
			{in: "get k\r\n", want: "VALUE k 5 3\r\nabc\r\nEND\r\n"},
		}, nil},
		{"pipelined storage and retrieval", []step{
			{in: "set a 0 0 1\r\n1\r\nset b 0 0 2\r\n22\r\nget a b c\r\ndelete a\r\nget a\r\n",
				want: "STORED\r\nSTORED\r\nVALUE a 0 1\r\n1\r\nVALUE b 0 2\r\n22\r\nEND\r\nDELETED\r\nEND\r\n"},
		}, nil},
		{"relative exptime expires", []step{
			{in: "set k 0 10 1\r\nx\r\n", want: "STORED\r\n"},
			{advance: 9999 * time.Millisecond},
			{in: "get k\r\n", want: "VALUE k 0 1\r\nx\r\nEND\r\n"},
			{advance: 2 * time.Millisecond}, // the engine keeps a key through its last millisecond
			{in: "get k\r\n", want: "END\r\n"},
		}, nil},
		{"thirty days is relative, one more second is absolute", []step{
			{in: "set a 0 2592000 1\r\nx\r\nset b 0 2592001 1\r\nx\r\n", want: "STORED\r\nSTORED\r\n"},
			{in: "get a b\r\n", want: "VALUE a 0 1\r\nx\r\nEND\r\n"},
			{advance: 2592000*time.Second + time.Millisecond},
			{in: "get a\r\n", want: "END\r\n"},
		}, nil},
		{"absolute exptime in the future", []step{
			{in: "set k 0 " + strconv.Itoa(startMs/1000+100) + " 1\r\nx\r\n", want: "STORED\r\n"},
			{in: "mg k t\r\n", want: "HD t100\r\n"},
			{advance: 100*time.Second + time.Millisecond},
			{in: "get k\r\n", want: "END\r\n"},
		}, nil},
		{"negative exptime stores nothing but answers STORED", []step{
			{in: "set k 0 0 1\r\nx\r\nset k 0 -1 1\r\ny\r\nget k\r\n", want: "STORED\r\nSTORED\r\nEND\r\n"},
			{in: "add k 0 -1 1\r\nz\r\nget k\r\n", want: "STORED\r\nEND\r\n"},
		}, nil},
		{"exptime wraps to 32 bits as memcached's int32", []step{
			// 4294967396 is 100 once truncated; -4294967196 is 100 too.
			{in: "set k 0 4294967396 1\r\nx\r\nmg k t\r\n", want: "STORED\r\nHD t100\r\n"},
			{in: "set k 0 -4294967196 1\r\nx\r\nmg k t\r\n", want: "STORED\r\nHD t100\r\n"},
		}, nil},
		{"touch and gat change expiry, keep the CAS", []step{
			{in: "set k 0 5 1\r\nx\r\ngets k\r\n", want: "STORED\r\nVALUE k 0 1 20001\r\nx\r\nEND\r\n"},
			{in: "touch k 100\r\n", want: "TOUCHED\r\n"},
			{advance: 50 * time.Second},
			{in: "gats 0 k\r\n", want: "VALUE k 0 1 20001\r\nx\r\nEND\r\n"},
			{advance: 1000 * time.Second},
			{in: "get k\r\ncas k 0 0 1 20001\r\ny\r\nget k\r\n", want: "VALUE k 0 1\r\nx\r\nEND\r\nSTORED\r\nVALUE k 0 1\r\ny\r\nEND\r\n"},
		}, nil},
		{"gat with a negative exptime returns then expires", []step{
			{in: "set k 0 0 1\r\nx\r\ngat -1 k\r\nget k\r\n", want: "STORED\r\nVALUE k 0 1\r\nx\r\nEND\r\nEND\r\n"},
		}, nil},
		{"cas flow", []step{
			{in: "set k 0 0 1\r\na\r\ngets k\r\n", want: "STORED\r\nVALUE k 0 1 20001\r\na\r\nEND\r\n"},
			{in: "cas k 0 0 1 20001\r\nb\r\ncas k 0 0 1 20001\r\nc\r\ncas nope 0 0 1 1\r\nd\r\ngets k\r\n",
				want: "STORED\r\nEXISTS\r\nNOT_FOUND\r\nVALUE k 0 1 20002\r\nb\r\nEND\r\n"},
		}, nil},
		{"every write changes the CAS", []step{
			{in: "set k 0 0 1\r\n1\r\nappend k 0 0 1\r\n2\r\nprepend k 0 0 1\r\n0\r\nincr k 1\r\ntouch k 9\r\ngets k\r\n",
				want: "STORED\r\nSTORED\r\nSTORED\r\n13\r\nTOUCHED\r\nVALUE k 0 3 20004\r\n13 \r\nEND\r\n"},
		}, nil},
		{"append keeps flags and expiry", []step{
			{in: "set k 7 10 1\r\na\r\nappend k 9 0 1\r\nb\r\nmg k f t v\r\n", want: "STORED\r\nSTORED\r\nVA 2 f7 t10\r\nab\r\n"},
		}, nil},
		{"incr keeps flags and expiry, pads in place", []step{
			{in: "set n 3 10 3\r\n100\r\ndecr n 1\r\nmg n f t v\r\n", want: "STORED\r\n99\r\nVA 3 f3 t10\r\n99 \r\n"},
		}, nil},
		{"flush_all", []step{
			{in: "set a 0 0 1\r\n1\r\nflush_all\r\nget a\r\n", want: "STORED\r\nOK\r\nEND\r\n"},
		}, nil},
		{"flush_all with a delay", []step{
			{in: "set a 0 0 1\r\n1\r\nset b 0 5 1\r\n2\r\nflush_all 10\r\n", want: "STORED\r\nSTORED\r\nOK\r\n"},
			{in: "mg a t\r\nmg b t\r\n", want: "HD t10\r\nHD t5\r\n"},
			{advance: 10*time.Second + time.Millisecond},
			{in: "get a b\r\n", want: "END\r\n"},
		}, nil},
		{"flush_all at an absolute time", []step{
			{in: "set a 0 0 1\r\n1\r\nflush_all " + strconv.Itoa(startMs/1000+20) + "\r\nmg a t\r\n", want: "STORED\r\nOK\r\nHD t20\r\n"},
			{in: "set b 0 0 1\r\n2\r\nflush_all " + strconv.Itoa(startMs/1000-1) + "\r\nget a b\r\n", want: "STORED\r\nOK\r\nEND\r\n"},
		}, nil},
		{"flush_all before the server started is ignored", []step{
			{in: "set a 0 0 1\r\n1\r\nflush_all 1000000000\r\nget a\r\n", want: "STORED\r\nOK\r\nVALUE a 0 1\r\n1\r\nEND\r\n"},
		}, nil},
		{"version", []step{{in: "version\r\n", want: "VERSION 1.6.18-tandem-test\r\n"}}, nil},
		{"quit closes after earlier replies", []step{
			{in: "set k 0 0 1\r\nx\r\nquit\r\nget k\r\n", want: "STORED\r\n"},
		}, nil},
		{"shutdown disabled", []step{{in: "shutdown\r\n", want: "ERROR: shutdown not enabled\r\n"}}, nil},
		{"shutdown bad mode", []step{{in: "shutdown now\r\n", want: "CLIENT_ERROR invalid shutdown mode\r\n"}}, nil},
		{"item size limit follows item-size-max", []step{
			{in: "set k 0 0 1000\r\n" + strings.Repeat("x", 1000) + "\r\n", want: "SERVER_ERROR object too large for cache\r\n"},
			{in: "set k 0 0 " + strconv.Itoa(1024-itemHeaderSize-4) + "\r\n" + strings.Repeat("y", 1024-itemHeaderSize-4) + "\r\n", want: "STORED\r\n"},
		}, func(e *testEnv) { e.set("item-size-max", "1024") }},
		{"memcached-max-line", []step{
			{in: "get " + strings.Repeat("k", 200) + "\r\n", want: "END\r\n"},
		}, func(e *testEnv) { e.set("memcached-max-line", "512") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "shutdown bad") {
				runSteps(t, tc.steps, tc.setup, "--memcached-enable-shutdown", "yes")
				return
			}
			runSteps(t, tc.steps, tc.setup)
		})
	}
}

func TestShutdown(t *testing.T) {
	env := newTestEnv(t, "--memcached-enable-shutdown", "yes")
	c := env.client()
	if got := c.send("set k 0 0 1\r\nx\r\nshutdown\r\nget k\r\n"); got != "STORED\r\n" || !c.closed {
		t.Fatalf("got %q closed=%v", got, c.closed)
	}
	c = env.client()
	if got := c.send("shutdown graceful\r\n"); got != "" || !c.closed {
		t.Fatalf("got %q closed=%v", got, c.closed)
	}
	if len(env.shutdowns) != 2 || env.shutdowns[0] || !env.shutdowns[1] {
		t.Fatalf("shutdowns %v", env.shutdowns)
	}
}

func TestTooLargeDropsOldValueOnSetOnly(t *testing.T) {
	env := newTestEnv(t)
	env.set("item-size-max", "1024")
	c := env.client()
	big := strings.Repeat("x", 2000)
	c.expect("set k 0 0 1\r\na\r\n", "STORED\r\n")
	c.expect("add k 0 0 2000\r\n"+big+"\r\nget k\r\n", "SERVER_ERROR object too large for cache\r\nVALUE k 0 1\r\na\r\nEND\r\n")
	c.expect("set k 0 0 2000 noreply\r\n"+big+"\r\nget k\r\n", "END\r\n")
	// The swallowed block may arrive in pieces; as memcached, nothing is
	// written until it has all arrived (checked against memcached 1.6.18:
	// it sends the refusal only then).
	c.expect("set k 0 0 2000\r\n"+big[:10], "")
	c.expect(big[10:]+"\r\nget k\r\n", "SERVER_ERROR object too large for cache\r\nEND\r\n")
	if got := env.fe.stats.storeTooLarge.Load(); got != 3 {
		t.Errorf("store_too_large %d", got)
	}
}

func TestAppendBeyondItemSize(t *testing.T) {
	env := newTestEnv(t)
	env.set("item-size-max", "1024")
	c := env.client()
	// Key "k" leaves 1024-56-1-1-2 = 964 bytes; flags cost 4 more.
	c.expect("set k 0 0 960\r\n"+strings.Repeat("a", 960)+"\r\n", "STORED\r\n")
	c.expect("append k 0 0 4\r\nbbbb\r\n", "STORED\r\n")
	c.expect("append k 0 0 1\r\nc\r\n", "NOT_STORED\r\n")
	c.expect("set k 1 0 960\r\n"+strings.Repeat("a", 960)+"\r\nappend k 0 0 1\r\nc\r\n", "STORED\r\nNOT_STORED\r\n")
}

func TestOutOfMemory(t *testing.T) {
	env := newTestEnv(t, "--maxmemory-policy", "noeviction")
	c := env.client()
	c.expect("set k 0 0 1\r\nx\r\nset n 0 0 1\r\n1\r\n", "STORED\r\nSTORED\r\n")
	env.eng.SetMaxMemory(1) // everything is over the limit now
	c.expect("add j 0 0 1\r\ny\r\n", "SERVER_ERROR out of memory storing object\r\n")
	c.expect("get k\r\n", "VALUE k 0 1\r\nx\r\nEND\r\n")
	c.expect("incr n 100\r\n", "SERVER_ERROR out of memory\r\n")
	c.expect("ms j 1\r\ny\r\n", "SERVER_ERROR out of memory storing object\r\n")
	c.expect("ms j 1 q\r\ny\r\n", "SERVER_ERROR out of memory storing object\r\n")
	// memcached drops the old value of a set it cannot store.
	c.expect("set k 0 0 1 noreply\r\nz\r\nget k\r\n", "END\r\n")
	if got := env.fe.stats.storeNoMemory.Load(); got != 4 {
		t.Errorf("store_no_memory %d", got)
	}
}

func TestVerbosityAndMemlimit(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("verbosity 7\r\n", "OK\r\n")
	if v := env.fe.verbosity.Load(); v != maxVerbosity {
		t.Errorf("verbosity %d", v)
	}
	c.expect("cache_memlimit 100\r\n", "OK\r\n")
	if m := env.cfg.MaxMemory(); m != 100<<20 {
		t.Errorf("maxmemory %d", m)
	}
}

// The decision for keys that hold another Redis type, as doc.go lists it.
func TestNonStringKeys(t *testing.T) {
	makeHash := func(env *testEnv) {
		if _, err := env.db.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v")}, engine.HashLimits{}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ in, want string }{
		{"get h\r\n", "END\r\n"},
		{"gets h\r\n", "END\r\n"},
		{"gat 10 h\r\n", "END\r\n"},
		{"mg h v\r\n", "EN\r\n"},
		{"me h\r\n", "EN\r\n"},
		{"add h 0 0 1\r\nx\r\n", "NOT_STORED\r\n"},
		{"append h 0 0 1\r\nx\r\n", "NOT_STORED\r\n"},
		{"prepend h 0 0 1\r\nx\r\n", "NOT_STORED\r\n"},
		{"cas h 0 0 1 1\r\nx\r\n", "EXISTS\r\n"},
		{"ms h 1 ME\r\nx\r\n", "NS\r\n"},
		{"ms h 1 MA\r\nx\r\n", "NS\r\n"},
		{"ms h 1 C1\r\nx\r\n", "EX\r\n"},
		{"incr h 1\r\n", "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n"},
		{"ma h\r\n", "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n"},
		{"touch h 10\r\n", "TOUCHED\r\n"},
		{"delete h\r\n", "DELETED\r\n"},
		{"md h\r\n", "HD\r\n"},
		{"set h 0 0 1\r\nx\r\nget h\r\n", "STORED\r\nVALUE h 0 1\r\nx\r\nEND\r\n"},
		{"replace h 0 0 1\r\nx\r\nget h\r\n", "STORED\r\nVALUE h 0 1\r\nx\r\nEND\r\n"},
	}
	for _, tc := range cases {
		env := newTestEnv(t)
		makeHash(env)
		env.client().expect(tc.in, tc.want)
	}
	// Reads leave the hash alone; touch gives it an expiry.
	env := newTestEnv(t)
	makeHash(env)
	c := env.client()
	c.expect("get h\r\ngat 0 h\r\nmg h T10 v\r\ntouch h 10\r\n", "END\r\nEND\r\nEN\r\nTOUCHED\r\n")
	if info, ok := env.db.Info([]byte("h")); !ok || info.Type != engine.TypeHash || info.ExpireAt != startMs+10_000 {
		t.Fatalf("hash after memcached commands: %+v %v", info, ok)
	}
	c.expect("touch h 0\r\n", "TOUCHED\r\n")
	if info, _ := env.db.Info([]byte("h")); info.ExpireAt != 0 {
		t.Fatalf("touch 0 left expiry %d", info.ExpireAt)
	}
	c.expect("md h I\r\nmg h\r\n", "HD\r\nEN\r\n")
}
