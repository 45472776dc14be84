package engine

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testWaiter is a waiter whose wake-ups are counted.
type testWaiter struct {
	*Waiter
	wakes atomic.Int32
}

func newTestWaiter(e *Engine) *testWaiter {
	tw := &testWaiter{}
	tw.Waiter = e.NewWaiter(func() { tw.wakes.Add(1) })
	return tw
}

// blockPop runs a BLPOP that must block.
func blockPop(t *testing.T, d DB, w *testWaiter, keys ...string) {
	t.Helper()
	var ks [][]byte
	for _, k := range keys {
		ks = append(ks, bs(k))
	}
	res, err := d.BLPopEnd(ks, ListLeft, -1, w.Waiter)
	if res != nil || err != nil {
		t.Fatalf("BLPOP %v did not block: %v %v", keys, res, err)
	}
}

func resultOf(w *testWaiter) string {
	r := w.ListResult()
	if r == nil {
		return "<none>"
	}
	var vals []string
	for _, v := range r.Values {
		vals = append(vals, string(v))
	}
	return fmt.Sprintf("%s:%v", r.Key, vals)
}

func listOf(t *testing.T, d DB, key string) []string {
	t.Helper()
	var out []string
	d.LRange(bs(key), 0, -1, func(_, _ int, v []byte) { out = append(out, string(v)) })
	return out
}

func rpush(t *testing.T, d DB, key string, vals ...string) int {
	t.Helper()
	var vs [][]byte
	for _, v := range vals {
		vs = append(vs, bs(v))
	}
	n, err := d.LPushEnd(bs(key), ListRight, vs, false)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBlockingFIFOHandOff(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	w1, w2, w3 := newTestWaiter(e), newTestWaiter(e), newTestWaiter(e)
	blockPop(t, d, w1, "l")
	blockPop(t, d, w2, "l")
	if e.Waiting() != 2 {
		t.Fatalf("Waiting = %d", e.Waiting())
	}
	// The push replies with the length before serving, as Redis does.
	if n := rpush(t, d, "l", "a", "b", "c"); n != 3 {
		t.Fatalf("RPUSH = %d", n)
	}
	if resultOf(w1) != "l:[a]" || resultOf(w2) != "l:[b]" {
		t.Fatalf("served %s and %s", resultOf(w1), resultOf(w2))
	}
	if w1.wakes.Load() != 1 || w2.wakes.Load() != 1 {
		t.Fatalf("wakes %d %d", w1.wakes.Load(), w2.wakes.Load())
	}
	if got := listOf(t, d, "l"); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("left %q", got)
	}
	w1.Done()
	w2.Done()
	// A third client arriving now finds the element.
	res, _ := d.BLPopEnd([][]byte{bs("l")}, ListLeft, -1, w3.Waiter)
	if res == nil || string(res.Values[0]) != "c" || d.Exists(bs("l")) != 0 {
		t.Fatalf("third BLPOP = %v", res)
	}
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d", e.Waiting())
	}
	checkInvariants(t, e)
}

func TestBlockingCountPop(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	w := newTestWaiter(e)
	res, err := d.BLPopEnd([][]byte{bs("a"), bs("b")}, ListRight, 2, w.Waiter)
	if res != nil || err != nil {
		t.Fatal("BLMPOP did not block")
	}
	rpush(t, d, "b", "1", "2", "3")
	if resultOf(w) != "b:[3 2]" {
		t.Fatalf("BLMPOP got %s", resultOf(w))
	}
	w.Done()
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d after Done", e.Waiting())
	}
	rpush(t, d, "a", "x")
	if got := listOf(t, d, "a"); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("a = %q: a served waiter took more", got)
	}
}

func TestBlockingMultiKeyServedOnce(t *testing.T) {
	e, _ := newTestEngine(t, 4)
	d := e.DB(0)
	w := newTestWaiter(e)
	blockPop(t, d, w, "k1", "k2", "k1")
	if e.Waiting() != 2 {
		t.Fatalf("Waiting = %d, want 2 (a repeated key counts once)", e.Waiting())
	}
	rpush(t, d, "k2", "v")
	rpush(t, d, "k1", "stays") // before the owner ran Done: its place on k1 is stale
	if resultOf(w) != "k2:[v]" {
		t.Fatalf("got %s", resultOf(w))
	}
	if got := listOf(t, d, "k1"); !slices.Equal(got, []string{"stays"}) {
		t.Fatalf("k1 = %q", got)
	}
	w.Done()
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d", e.Waiting())
	}
}

func TestBlockingCancel(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	w := newTestWaiter(e)
	blockPop(t, d, w, "l")
	if !w.Cancel() {
		t.Fatal("Cancel of a waiting waiter returned false")
	}
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d after Cancel", e.Waiting())
	}
	rpush(t, d, "l", "a")
	if got := listOf(t, d, "l"); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("l = %q", got)
	}
	// Served before the cancel: Cancel says so and the result is there.
	d.Delete(bs("l"))
	w = newTestWaiter(e)
	blockPop(t, d, w, "l")
	rpush(t, d, "l", "b")
	if w.Cancel() {
		t.Fatal("Cancel after a hand-off returned true")
	}
	if resultOf(w) != "l:[b]" {
		t.Fatalf("got %s", resultOf(w))
	}
}

func TestBlockingRetryWaiterKeepsOrder(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	mover, popper := newTestWaiter(e), newTestWaiter(e)
	if v, err := d.BLMove(bs("src"), bs("dst"), ListRight, ListLeft, mover.Waiter); v != nil || err != nil {
		t.Fatal("BLMOVE did not block")
	}
	blockPop(t, d, popper, "src")
	rpush(t, d, "src", "x")
	// The mover blocked first: it is woken to retry, and the popper behind
	// it gets nothing meanwhile.
	if mover.wakes.Load() != 1 || popper.ListResult() != nil {
		t.Fatalf("mover woken %d times, popper got %s", mover.wakes.Load(), resultOf(popper))
	}
	v, err := d.BLMove(bs("src"), bs("dst"), ListRight, ListLeft, mover.Waiter)
	if string(v) != "x" || err != nil {
		t.Fatalf("retried BLMOVE = %q %v", v, err)
	}
	mover.Done()
	if got := listOf(t, d, "dst"); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("dst = %q", got)
	}
	rpush(t, d, "src", "y")
	if resultOf(popper) != "src:[y]" {
		t.Fatalf("popper got %s", resultOf(popper))
	}
	popper.Done()

	// A mover that leaves (timeout) after being woken hands its turn on.
	mover, popper = newTestWaiter(e), newTestWaiter(e)
	d.BLMove(bs("src"), bs("dst"), ListRight, ListLeft, mover.Waiter)
	blockPop(t, d, popper, "src")
	rpush(t, d, "src", "z")
	if popper.ListResult() != nil {
		t.Fatal("popper served before the mover")
	}
	mover.Cancel()
	if resultOf(popper) != "src:[z]" {
		t.Fatalf("popper got %s after the mover left", resultOf(popper))
	}
	popper.Done()
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d", e.Waiting())
	}
	checkInvariants(t, e)
}

func TestBlockingWokenByOtherWrites(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)

	// LMOVE into the key.
	w := newTestWaiter(e)
	blockPop(t, d, w, "k")
	rpush(t, d, "src", "a")
	d.LMove(bs("src"), bs("k"), ListLeft, ListLeft)
	if resultOf(w) != "k:[a]" {
		t.Fatalf("LMOVE: got %s", resultOf(w))
	}
	w.Done()

	// RENAME onto the key.
	w = newTestWaiter(e)
	blockPop(t, d, w, "k")
	rpush(t, d, "tmp", "b")
	if ok, err := d.Rename(bs("tmp"), bs("k"), false); !ok || err != nil {
		t.Fatal(err)
	}
	if resultOf(w) != "k:[b]" || d.Exists(bs("k")) != 0 {
		t.Fatalf("RENAME: got %s", resultOf(w))
	}
	w.Done()

	// MOVE from another database, COPY.
	w = newTestWaiter(e)
	blockPop(t, d, w, "k")
	rpush(t, e.DB(1), "k", "c")
	e.DB(1).Move(bs("k"), d)
	if resultOf(w) != "k:[c]" {
		t.Fatalf("MOVE: got %s", resultOf(w))
	}
	w.Done()
	w = newTestWaiter(e)
	blockPop(t, d, w, "k")
	rpush(t, d, "orig", "d")
	d.Copy(bs("orig"), d, bs("k"), false)
	if resultOf(w) != "k:[d]" || len(listOf(t, d, "orig")) != 1 {
		t.Fatalf("COPY: got %s", resultOf(w))
	}
	w.Done()

	// SWAPDB: the waiter stays on database 0.
	w = newTestWaiter(e)
	blockPop(t, d, w, "k")
	rpush(t, e.DB(1), "k", "e", "f")
	e.SwapDB(0, 1, nil)
	if resultOf(w) != "k:[e]" {
		t.Fatalf("SWAPDB: got %s", resultOf(w))
	}
	if got := listOf(t, d, "k"); !slices.Equal(got, []string{"f"}) {
		t.Fatalf("db0 k = %q", got)
	}
	w.Done()

	// A value of another type does not serve a list waiter.
	d.Delete(bs("k"))
	w = newTestWaiter(e)
	blockPop(t, d, w, "k")
	mustSet(t, d, "k", "string", SetOptions{})
	if w.ListResult() != nil || e.Waiting() != 1 {
		t.Fatal("served by a string")
	}
	d.Delete(bs("k"))
	rpush(t, d, "k", "g")
	if resultOf(w) != "k:[g]" {
		t.Fatalf("after the string: got %s", resultOf(w))
	}
	w.Done()
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d", e.Waiting())
	}
	checkInvariants(t, e)
}

// TestBlockingConcurrent has consumers block, time out (cancel) and
// consume while producers push, on few keys; every element must be
// consumed exactly once and no wait may be left behind. Run with -race.
func TestBlockingConcurrent(t *testing.T) {
	e, _ := newTestEngine(t, 3)
	d := e.DB(0)
	concurrentPops{
		keys:        [][]byte{bs("q1"), bs("q2"), bs("q3")},
		perProducer: 500,
		pop: func(c int, ks [][]byte, w *Waiter) ([][]byte, bool, error) {
			res, err := d.BLPopEnd(ks, ListLeft, 1+c%2, w)
			if res == nil {
				return nil, false, err
			}
			return res.Values, true, err
		},
		served: func(w *Waiter) [][]byte { return w.ListResult().Values },
		producer: func(int) func(key, elem []byte) error {
			return func(key, elem []byte) error {
				_, err := d.LPushEnd(key, ListRight, [][]byte{elem}, false)
				return err
			}
		},
		length: func(key []byte) int {
			n, _ := d.LLen(key)
			return n
		},
	}.run(t, e)
}

// concurrentPops is the blocking pops' stress test: producers push unique
// elements ("p-i") onto a few keys while consumers pop them, from one key
// or all of them, blocking or not, and cancel their waits as a timeout
// would; every element must be taken exactly once and no wait may be left
// behind. Run with -race.
type concurrentPops struct {
	keys        [][]byte
	perProducer int
	// pop pops for consumer c from ks, queuing w when there is nothing
	// (ok false).
	pop func(c int, ks [][]byte, w *Waiter) (elems [][]byte, ok bool, err error)
	// served is what a push handed to w.
	served func(w *Waiter) [][]byte
	// producer returns producer p's push.
	producer func(p int) func(key, elem []byte) error
	length   func(key []byte) int
}

func (h concurrentPops) run(t *testing.T, e *Engine) {
	const producers, consumers = 4, 6
	keys := h.keys
	var mu sync.Mutex
	seen := map[string]int{}
	var done atomic.Bool
	var wg sync.WaitGroup
	for c := 0; c < consumers; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for n := 0; ; n++ {
				woken := make(chan struct{}, 1)
				w := e.NewWaiter(func() {
					select {
					case woken <- struct{}{}:
					default:
					}
				})
				ks := keys[c%3 : c%3+1]
				if c%2 == 0 {
					ks = keys
				}
				elems, ok, err := h.pop(c, ks, w)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					if n%3 == 0 { // wait a little for a hand-off
						select {
						case <-woken:
						case <-time.After(time.Millisecond):
						}
					}
					if w.Cancel() { // "timed out"
						if done.Load() {
							return
						}
						continue
					}
					elems = h.served(w)
				}
				w.Done()
				mu.Lock()
				for _, v := range elems {
					seen[string(v)]++
				}
				mu.Unlock()
			}
		}(c)
	}
	var pw sync.WaitGroup
	for p := 0; p < producers; p++ {
		pw.Add(1)
		go func(p int) {
			defer pw.Done()
			push := h.producer(p)
			for i := 0; i < h.perProducer; i++ {
				if err := push(keys[i%3], bs(fmt.Sprintf("%d-%d", p, i))); err != nil {
					t.Error(err)
					return
				}
			}
		}(p)
	}
	pw.Wait()
	// Let the consumers drain the keys, then stop them.
	for {
		n := 0
		for _, k := range keys {
			n += h.length(k)
		}
		if n == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	done.Store(true)
	wg.Wait()
	for p := 0; p < producers; p++ {
		for i := 0; i < h.perProducer; i++ {
			if n := seen[fmt.Sprintf("%d-%d", p, i)]; n != 1 {
				t.Fatalf("element %d-%d taken %d times", p, i, n)
			}
		}
	}
	if e.Waiting() != 0 {
		t.Fatalf("Waiting = %d after all consumers left", e.Waiting())
	}
	checkInvariants(t, e)
}

// A waiter cancelled outside the gate (a blocked client's connection
// closing, which the server reports off the gate) while an exclusive
// section runs on another goroutine: its release looks at the section's
// deferred serving, which must be safe (go test -race reported a data race
// on Gate.deferring and Gate.deferred here) and must not serve anyone in
// the middle of the section.
func TestBlockingCancelOutsideGateDuringExclusive(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	// a and b in different shards, so that no shard lock orders the
	// section's serving of a against the cancel's of b.
	a, b := "a", "b"
	for i := 0; ; i++ {
		b = fmt.Sprintf("b%d", i)
		sa, _ := d.shardOf(bs(a))
		sb, _ := d.shardOf(bs(b))
		if sa != sb {
			break
		}
	}
	for round := 0; round < 50; round++ {
		d.Delete(bs(a), bs(b))
		inSection := newTestWaiter(e) // served at the section's end
		blockPop(t, d, inSection, a)
		leaving, staying := newTestWaiter(e), newTestWaiter(e)
		blockPop(t, d, leaving, b)
		blockPop(t, d, staying, b)

		started, cancelled := make(chan struct{}), make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.Gate().Exclusive(func() {
				close(started)
				rpush(t, d, a, "x") // deferred: inSection waits for the end
				<-cancelled
				// The section pushes to b after the outside cancel: still
				// nobody may be served before the section ends.
				rpush(t, d, b, "y")
				if r := staying.ListResult(); r != nil {
					t.Errorf("round %d: a waiter was served inside the section: %s", round, resultOf(staying))
				}
			})
		}()
		<-started
		leaving.Cancel() // what resp's Client.Closed does, outside the gate
		close(cancelled)
		<-done
		if got := resultOf(inSection); got != a+":[x]" {
			t.Fatalf("round %d: waiter of %s got %s", round, a, got)
		}
		if got := resultOf(staying); got != b+":[y]" {
			t.Fatalf("round %d: waiter of %s got %s", round, b, got)
		}
		if got := resultOf(leaving); got != "<none>" {
			t.Fatalf("round %d: the cancelled waiter got %s", round, got)
		}
	}
}
