package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var zblim = ZsetLimits{MaxListpackEntries: 128, MaxListpackValue: 64}

// zblockPop runs a BZPOPMIN/BZPOPMAX/BZMPOP that must block.
func zblockPop(t *testing.T, d DB, w *testWaiter, max bool, count int, keys ...string) {
	t.Helper()
	var ks [][]byte
	for _, k := range keys {
		ks = append(ks, bs(k))
	}
	res, err := d.BZPop(ks, max, count, w.Waiter)
	if res != nil || err != nil {
		t.Fatalf("BZPop %v did not block: %v %v", keys, res, err)
	}
}

func zresultString(r *ZPopResult) string {
	if r == nil {
		return "<none>"
	}
	var ms []string
	for _, m := range r.Members {
		ms = append(ms, fmt.Sprintf("%s=%g", m.Member, m.Score))
	}
	return fmt.Sprintf("%s:[%s]", r.Key, strings.Join(ms, " "))
}

func zadd(t *testing.T, d DB, key string, pairs ...any) {
	t.Helper()
	var ms []ZMember
	for i := 0; i < len(pairs); i += 2 {
		ms = append(ms, ZMember{bs(pairs[i+1].(string)), pairs[i].(float64)})
	}
	if _, err := d.ZAdd(bs(key), 0, ms, zblim); err != nil {
		t.Fatal(err)
	}
}

func zmembers(t *testing.T, d DB, key string) string {
	t.Helper()
	var ms []string
	found, err := d.ZRange(bs(key), &ZRangeSpec{Start: 0, Stop: -1}, func(int) {}, func(m []byte, s float64) {
		ms = append(ms, fmt.Sprintf("%s=%g", m, s))
	})
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return "<missing>"
	}
	return strings.Join(ms, " ")
}

func TestZSetBlockPopReady(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	zadd(t, d, "z", 1.0, "a", 2.0, "b", 3.0, "c")
	w := newTestWaiter(e)
	res, err := d.BZPop([][]byte{bs("nosuch"), bs("z")}, false, -1, w.Waiter)
	if err != nil || zresultString(res) != "z:[a=1]" {
		t.Fatalf("min: %s %v", zresultString(res), err)
	}
	res, _ = d.BZPop([][]byte{bs("z")}, true, 5, nil)
	if zresultString(res) != "z:[c=3 b=2]" {
		t.Fatalf("max count: %s", zresultString(res))
	}
	if d.Exists(bs("z")) != 0 {
		t.Fatal("emptied key not deleted")
	}
	if e.Waiting() != 0 {
		t.Fatalf("a ready pop queued the waiter: %d", e.Waiting())
	}
	w.Done()
	// Wrong type first: an error, nothing queued. A sorted set before it wins.
	mustSet(t, d, "s", "v", SetOptions{})
	w = newTestWaiter(e)
	if _, err := d.BZPop([][]byte{bs("nosuch"), bs("s"), bs("z")}, false, 1, w.Waiter); err != ErrWrongType {
		t.Fatalf("wrong type: %v", err)
	}
	w.Done()
	zadd(t, d, "z", 1.0, "a")
	if res, err := d.BZPop([][]byte{bs("z"), bs("s")}, false, 1, nil); err != nil || zresultString(res) != "z:[a=1]" {
		t.Fatalf("zset before string: %s %v", zresultString(res), err)
	}
	// A list is another type too.
	d.LPushEnd(bs("l"), ListRight, [][]byte{bs("x")}, false)
	if _, err := d.BZPop([][]byte{bs("l")}, false, 1, nil); err != ErrWrongType {
		t.Fatalf("list: %v", err)
	}
	// nil waiter: nothing queued.
	if res, err := d.BZPop([][]byte{bs("nosuch")}, false, 1, nil); res != nil || err != nil || e.Waiting() != 0 {
		t.Fatalf("nil waiter: %v %v %d", res, err, e.Waiting())
	}
	checkInvariants(t, e)
}

func TestZSetBlockPopFIFOHandOff(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	w1, w2, w3 := newTestWaiter(e), newTestWaiter(e), newTestWaiter(e)
	zblockPop(t, d, w1, false, -1, "z")
	zblockPop(t, d, w2, true, -1, "other", "z")
	zblockPop(t, d, w3, false, 2, "z")
	if e.Waiting() != 4 {
		t.Fatalf("Waiting = %d", e.Waiting())
	}
	zadd(t, d, "z", 1.0, "a", 2.0, "b", 3.0, "c", 4.0, "d", 5.0, "e")
	for i, tc := range []struct {
		w    *testWaiter
		want string
	}{{w1, "z:[a=1]"}, {w2, "z:[e=5]"}, {w3, "z:[b=2 c=3]"}} {
		if got := zresultString(tc.w.ZSetResult()); got != tc.want {
			t.Errorf("waiter %d: %s, want %s", i+1, got, tc.want)
		}
		if tc.w.wakes.Load() != 1 {
			t.Errorf("waiter %d woken %d times", i+1, tc.w.wakes.Load())
		}
		tc.w.Done()
	}
	if got := zmembers(t, d, "z"); got != "d=4" {
		t.Fatalf("left: %s", got)
	}
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d", e.Waiting())
	}
	// Two waiters, one member: the first gets it, the second still waits.
	d.Delete(bs("z"))
	w1, w2 = newTestWaiter(e), newTestWaiter(e)
	zblockPop(t, d, w1, false, -1, "z")
	zblockPop(t, d, w2, false, -1, "z")
	zadd(t, d, "z", 7.0, "x")
	if zresultString(w1.ZSetResult()) != "z:[x=7]" || w2.ZSetResult() != nil {
		t.Fatalf("got %s and %s", zresultString(w1.ZSetResult()), zresultString(w2.ZSetResult()))
	}
	if d.Exists(bs("z")) != 0 {
		t.Fatal("the hand-off did not delete the emptied key")
	}
	w1.Done()
	zadd(t, d, "z", 8.0, "y")
	if zresultString(w2.ZSetResult()) != "z:[y=8]" {
		t.Fatalf("second: %s", zresultString(w2.ZSetResult()))
	}
	w2.Done()
	checkInvariants(t, e)
}

func TestZSetBlockPopTypeAndCancel(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	zw, lw := newTestWaiter(e), newTestWaiter(e)
	zblockPop(t, d, zw, false, -1, "k")
	blockPop(t, d, lw, "k")
	// A list serves the list waiter only; a sorted set the zset waiter only.
	rpush(t, d, "k", "v")
	if resultOf(lw) != "k:[v]" || zw.ZSetResult() != nil {
		t.Fatalf("list push: %s / %s", resultOf(lw), zresultString(zw.ZSetResult()))
	}
	lw.Done()
	mustSet(t, d, "k", "str", SetOptions{})
	if zw.ZSetResult() != nil {
		t.Fatal("a string served the zset waiter")
	}
	d.Delete(bs("k"))
	if !zw.Cancel() {
		t.Fatal("Cancel of a waiting waiter returned false")
	}
	zw.Done()
	zadd(t, d, "k", 1.0, "m")
	if zw.ZSetResult() != nil || zmembers(t, d, "k") != "m=1" {
		t.Fatal("a cancelled waiter took a member")
	}
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d", e.Waiting())
	}
	// Served before the cancel: Cancel says so, the result stays.
	d.Delete(bs("k"))
	w := newTestWaiter(e)
	zblockPop(t, d, w, true, 3, "a", "k")
	zadd(t, d, "k", 1.0, "m", 2.0, "n")
	zadd(t, d, "a", 1.0, "stays") // its place on a is stale
	if w.Cancel() {
		t.Fatal("Cancel after a hand-off returned true")
	}
	if got := zresultString(w.ZSetResult()); got != "k:[n=2 m=1]" {
		t.Fatalf("got %s", got)
	}
	w.Done()
	if zmembers(t, d, "a") != "stays=1" || e.Waiting() != 0 {
		t.Fatalf("a = %s, Waiting = %d", zmembers(t, d, "a"), e.Waiting())
	}
	checkInvariants(t, e)
}

// TestZSetBlockPopWokenByOtherWrites: RENAME and SWAPDB serve zset
// waiters.
func TestZSetBlockPopWokenByOtherWrites(t *testing.T) {
	e, _ := newTestEngine(t, 3)
	d, d1 := e.DB(0), e.DB(1)
	w := newTestWaiter(e)
	zblockPop(t, d, w, false, -1, "k")
	zadd(t, d, "tmp", 3.0, "r")
	if _, err := d.Rename(bs("tmp"), bs("k"), false); err != nil {
		t.Fatal(err)
	}
	if got := zresultString(w.ZSetResult()); got != "k:[r=3]" {
		t.Fatalf("rename: %s", got)
	}
	w.Done()
	w = newTestWaiter(e)
	zblockPop(t, d, w, true, -1, "k")
	zadd(t, d1, "k", 1.0, "p", 2.0, "q")
	e.SwapDB(0, 1, nil)
	if got := zresultString(w.ZSetResult()); got != "k:[q=2]" {
		t.Fatalf("swapdb: %s", got)
	}
	w.Done()
	if zmembers(t, d, "k") != "p=1" {
		t.Fatalf("k = %s", zmembers(t, d, "k"))
	}
	checkInvariants(t, e)
}

// TestZSetBlockPopConcurrent: producers ZADD unique members while
// consumers pop (blocking or not, MIN or MAX, counts 1 and 2) from one or
// several keys; every member is taken exactly once (concurrentPops).
func TestZSetBlockPopConcurrent(t *testing.T) {
	e, _ := newTestEngine(t, 3)
	d := e.DB(0)
	members := func(res *ZPopResult) [][]byte {
		out := make([][]byte, len(res.Members))
		for i, m := range res.Members {
			out[i] = m.Member
		}
		return out
	}
	concurrentPops{
		keys:        [][]byte{bs("z1"), bs("z2"), bs("z3")},
		perProducer: 400,
		pop: func(c int, ks [][]byte, w *Waiter) ([][]byte, bool, error) {
			res, err := d.BZPop(ks, c%3 == 0, 1+c%2, w)
			if res == nil {
				return nil, false, err
			}
			return members(res), true, err
		},
		served: func(w *Waiter) [][]byte { return members(w.ZSetResult()) },
		producer: func(p int) func(key, elem []byte) error {
			r := rand.New(rand.NewPCG(uint64(p), 7))
			return func(key, elem []byte) error {
				_, err := d.ZAdd(key, 0, []ZMember{{elem, r.Float64()}}, zblim)
				return err
			}
		},
		length: func(key []byte) int {
			n, _ := d.ZCard(key)
			return n
		},
	}.run(t, e)
}
