package memproto

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tandemkv/tandem/engine"
)

func engineSet() engine.SetOptions { return engine.SetOptions{} }

// Meta protocol behaviour beyond the recorded golden exchanges: time, CAS
// values, the stale/win protocol, concurrency.

func TestMetaScripts(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"ms returns CAS, mg t counts down", []step{
			{in: "ms k 2 T100 F5 c\r\nhi\r\n", want: "HD c20001\r\n"},
			{advance: 30500 * time.Millisecond},
			{in: "mg k v t f c s k\r\n", want: "VA 2 t70 f5 c20001 s2 kk\r\nhi\r\n"},
		}},
		{"mg T changes the TTL where it stands in the flags", []step{
			{in: "ms k 1 T100\r\nx\r\nmg k t T30\r\nmg k t\r\nmg k T0 t\r\n", want: "HD\r\nHD t100\r\nHD t30\r\nHD t-1\r\n"},
		}},
		{"mg l and h", []step{
			{in: "ms k 1\r\nx\r\n", want: "HD\r\n"},
			{advance: 5 * time.Second},
			{in: "mg k l h u\r\n", want: "HD l5 h0\r\n"},
			{in: "mg k l h\r\n", want: "HD l5 h0\r\n"},
			{in: "mg k l h\r\n", want: "HD l0 h1\r\n"},
			{in: "ms k 1\r\ny\r\nmg k h\r\n", want: "HD\r\nHD h0\r\n"},
		}},
		{"mg N: one winner, then Z, until the item is set", []step{
			{in: "mg k N30 s c v\r\n", want: "VA 0 s0 c20001 W\r\n\r\n"},
			{in: "mg k N30 v\r\nmg k v\r\n", want: "VA 0 Z\r\n\r\nVA 0 Z\r\n\r\n"},
			{in: "ms k 2\r\nhi\r\nmg k v N30\r\n", want: "HD\r\nVA 2\r\nhi\r\n"},
		}},
		{"mg N vivified item expires with N's TTL", []step{
			{in: "mg k N10 t\r\n", want: "HD t10 W\r\n"},
			{advance: 10*time.Second + time.Millisecond},
			{in: "mg k t\r\n", want: "EN\r\n"},
		}},
		{"mg R wins once when the TTL runs low", []step{
			{in: "ms k 1 T100\r\nx\r\nmg k R30 t\r\n", want: "HD\r\nHD t100\r\n"},
			{advance: 71 * time.Second},
			{in: "mg k R30 t\r\nmg k R30 t\r\n", want: "HD t29 W\r\nHD t29 Z\r\n"},
		}},
		{"md I: stale, new CAS, first mg wins", []step{
			{in: "ms k 2 c\r\nhi\r\nmd k I T30\r\n", want: "HD c20001\r\nHD\r\n"},
			{in: "mg k c t v\r\nmg k c v\r\n", want: "VA 2 c20002 t30 X W\r\nhi\r\nVA 2 c20002 Z X\r\nhi\r\n"},
			{in: "ms k 2 C20002 c\r\nho\r\nmg k v\r\n", want: "HD c20003\r\nVA 2\r\nho\r\n"},
		}},
		{"ms I with an older CAS stores stale, keeping the TTL", []step{
			{in: "ms k 1 T100 c\r\na\r\nms k 1 I C20000 c\r\nb\r\n", want: "HD c20001\r\nHD c20002\r\n"},
			{in: "mg k v t\r\n", want: "VA 1 t100 X W\r\nb\r\n"},
			{in: "ms k 1 I C20002 T0\r\nc\r\nmg k v t\r\n", want: "HD\r\nVA 1 t-1\r\nc\r\n"},
		}},
		{"ms b stores a binary key; mg and me show it in base64", []step{
			{in: "ms AQID 1 b\r\nx\r\nmg AQID b k v\r\nme AQID b\r\n",
				want: "HD\r\nVA 1 kAQID b\r\nx\r\nME AQID exp=-1 la=0 cas=20001 fetch=yes cls=1 size=63\r\n"},
			{in: "mg \x01\x02\x03 k\r\nme \x01\x02\x03\r\n", want: "HD kAQID b\r\nME AQID exp=-1 la=0 cas=20001 fetch=yes cls=1 size=63\r\n"},
			// A NUL ends a line, so binary keys need b.
			{in: "mg \x00\x01 k\r\n", want: "ERROR\r\n"},
		}},
		{"ma vivify and TTL order", []step{
			{in: "ma n N100 J5 t v c\r\n", want: "VA 1 t100 c20001\r\n5\r\n"},
			{advance: 40 * time.Second},
			{in: "ma n t v T10\r\n", want: "VA 1 t60\r\n6\r\n"},
			{in: "ma n v t\r\n", want: "VA 1 t10\r\n7\r\n"},
			{in: "ma n MD D10 v\r\n", want: "VA 1\r\n0\r\n"},
		}},
		{"me exp counts up to zero", []step{
			{in: "ms k 3 T100 F1\r\nabc\r\n", want: "HD\r\n"},
			{advance: 40 * time.Second},
			{in: "me k\r\n", want: "ME k exp=-60 la=40 cas=20001 fetch=no cls=1 size=67\r\n"},
		}},
		{"mg T-1 shows memcached's wrapped clock", []step{
			{in: "ms k 1\r\nx\r\nmg k T-1 t\r\nmg k\r\n", want: "HD\r\nHD t4294967235\r\nEN\r\n"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runSteps(t, tc.steps, nil) })
	}
}

// Many clients racing mg N on one missing key: exactly one wins.
func TestMetaVivifyRace(t *testing.T) {
	env := newTestEnv(t)
	const n = 16
	wins := make(chan string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		c := env.client()
		wg.Add(1)
		go func() {
			defer wg.Done()
			wins <- c.send("mg k N30\r\n")
		}()
	}
	wg.Wait()
	close(wins)
	w, z := 0, 0
	for r := range wins {
		switch r {
		case "HD W\r\n":
			w++
		case "HD Z\r\n":
			z++
		default:
			t.Errorf("reply %q", r)
		}
	}
	if w != 1 || z != n-1 {
		t.Fatalf("%d winners, %d Z", w, z)
	}
}

// Marks lapse when the value they describe is replaced, through either
// protocol.
func TestMarksLapse(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("ms k 1\r\nx\r\nmd k I\r\n", "HD\r\nHD\r\n")
	if _, err := env.db.Set([]byte("k"), []byte("redis"), engineSet()); err != nil {
		t.Fatal(err)
	}
	if env.fe.marks.empty() {
		t.Fatal("a lapsed mark is counted until it is looked at")
	}
	c.expect("mg k v\r\n", "VA 5\r\nredis\r\n") // no X, no W
	if !env.fe.marks.empty() {
		t.Fatal("the lapsed mark was not dropped")
	}
	c.expect("ms k 1\r\nx\r\nmd k I\r\n", "HD\r\nHD\r\n")
	c.expect("flush_all\r\n", "OK\r\n")
	if !env.fe.marks.empty() {
		t.Fatal("flush_all keeps marks")
	}
}

// A full mark shard is swept of marks whose item changed.
func TestMarksSweep(t *testing.T) {
	env := newTestEnv(t)
	tbl := &env.fe.marks
	var keys [][]byte
	for i := 0; len(keys) < markSweepAt+1; i++ {
		k := []byte("k" + strconv.Itoa(i))
		if sh := tbl.lock(k); sh == &tbl.shards[0] {
			keys = append(keys, k)
			if len(keys) <= markSweepAt {
				tbl.set(sh, k, mark{cas: 1, stale: true}, nil)
			}
			sh.unlock()
		} else {
			sh.unlock()
		}
	}
	live := []byte("live")
	res, _ := env.db.Set(live, []byte("v"), engine.SetOptions{})
	sh := &tbl.shards[0]
	sh.mu.Lock()
	sh.m["live"] = mark{cas: res.CAS, stale: true}
	tbl.count.Add(1)
	tbl.set(sh, keys[markSweepAt], mark{cas: 2, won: true}, env.fe.markLive) // full: sweeps
	n := len(sh.m)
	sh.mu.Unlock()
	if n != 2 || tbl.count.Load() != 2 {
		t.Fatalf("after the sweep: %d marks, count %d", n, tbl.count.Load())
	}
}
