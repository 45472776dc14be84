package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// groupKeys are written together by MSet; any MGet must see them equal.
var groupKeys = func() [][]byte {
	ks := make([][]byte, 10)
	for i := range ks {
		ks[i] = keyN("grp:", i)
	}
	return ks
}()

// checkGroup reads the group in one MGet and reports a torn read.
func checkGroup(d DB) error {
	var first string
	var firstOK bool
	var err error
	d.MGet(groupKeys, func(i int, it Item, ok bool) {
		if i == 0 {
			first, firstOK = string(it.Value), ok
			return
		}
		if ok != firstOK || string(it.Value) != first {
			err = fmt.Errorf("db %d: MGet saw %q (%v) for grp:0 but %q (%v) for grp:%d", d.Num(), first, firstOK, it.Value, ok, i)
		}
	})
	return err
}

// TestConcurrentMixed runs every kind of operation at once on overlapping
// keys (run it with -race) and checks the invariants afterwards:
// multi-key writes are atomic, renames lose nothing, the books balance.
func TestConcurrentMixed(t *testing.T) {
	e, clock := newTestEngine(t, 3) // 8 shards per db: plenty of contention
	const iters = 1500
	const tokens, tokenSlots = 8, 32
	tokDB := e.DB(3)
	for i := 0; i < tokens; i++ {
		mustSet(t, tokDB, fmt.Sprint("tok:", i), fmt.Sprint("token-", i), SetOptions{})
	}

	var wg sync.WaitGroup
	errs := make(chan error, 100)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	run := func(name string, n int, fn func(r *rand.Rand, i int)) {
		for g := 0; g < n; g++ {
			wg.Add(1)
			go func(seed uint64) {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed, 7))
				for i := 0; i < iters; i++ {
					fn(r, i)
				}
			}(uint64(g) + uint64(len(name))*1000)
		}
	}

	// Group writers on db 0 and db 1, which SwapDB exchanges.
	run("mset", 3, func(r *rand.Rand, i int) {
		d := e.DB(r.IntN(2))
		v := bs(fmt.Sprintf("w%d-%d", r.Uint32(), i))
		pairs := make([][]byte, 0, 2*len(groupKeys))
		for _, k := range groupKeys {
			pairs = append(pairs, k, v)
		}
		if _, err := d.MSet(pairs, false); err != nil {
			report(err)
		}
	})
	run("mget", 2, func(r *rand.Rand, _ int) {
		if err := checkGroup(e.DB(r.IntN(2))); err != nil {
			report(err)
		}
	})
	run("swapdb", 1, func(_ *rand.Rand, i int) {
		if i%10 == 0 {
			e.SwapDB(0, 1, nil)
		}
	})
	// Point operations on a shared key set in db 2.
	run("point", 4, func(r *rand.Rand, _ int) {
		d := e.DB(2)
		k := keyN("x:", r.IntN(64))
		var err error
		switch r.IntN(12) {
		case 0, 1:
			_, err = d.Set(k, bs("v"), SetOptions{})
		case 2:
			_, err = d.Set(k, bs("7"), SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + int64(r.IntN(300))})
		case 3:
			_, _, err = d.Get(k)
		case 4:
			d.Delete(k, keyN("x:", r.IntN(64)))
		case 5:
			_, err = d.Append(k, bs("ab"), AppendOptions{}, 1<<20)
		case 6:
			_, err = d.IncrBy(k, 1)
			if errors.Is(err, ErrNotInteger) || errors.Is(err, ErrOverflow) {
				err = nil
			}
		case 7:
			d.Expire(k, clock.NowMs()+int64(r.IntN(200)), ExpireCond(r.IntN(2)))
		case 8:
			_, _, err = d.GetEx(k, ExpireChange{Mode: TTLClear}, r.IntN(4) == 0)
		case 9:
			_, err = d.Copy(k, e.DB(r.IntN(2)), keyN("copy:", r.IntN(8)), true)
		case 10:
			_, err = d.Rename(k, keyN("x:", r.IntN(64)), r.IntN(2) == 0)
			if errors.Is(err, ErrNoSuchKey) {
				err = nil
			}
		case 11:
			_, err = d.SetRange(k, int64(r.IntN(10)), bs("zz"), 1<<20)
		}
		if err != nil {
			report(err)
		}
	})
	// Tokens wander between slots by RENAMENX; none may be lost or doubled.
	run("tokens", 3, func(r *rand.Rand, _ int) {
		src, dst := keyN("tok:", r.IntN(tokenSlots)), keyN("tok:", r.IntN(tokenSlots))
		if _, err := tokDB.Rename(src, dst, true); err != nil && !errors.Is(err, ErrNoSuchKey) {
			report(err)
		}
	})
	// Readers of the whole keyspace.
	run("scan", 1, func(r *rand.Rand, i int) {
		d := e.DB(r.IntN(4))
		cursor := uint64(0)
		for {
			cursor = d.Scan(cursor, 5, nil, TypeNone, func(k []byte) {
				if len(k) == 0 {
					report(errors.New("scan returned an empty key"))
				}
			})
			if cursor == 0 {
				break
			}
		}
		if i%20 == 0 {
			d.Keys(bs("x:*"), func([]byte) {})
			d.RandomKey()
			d.Size()
		}
	})
	// Time moves and the active cycle reclaims what expired.
	run("expire", 1, func(_ *rand.Rand, _ int) {
		clock.Advance(10 * time.Millisecond)
		e.ActiveExpireCycle(time.Millisecond)
	})

	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for db := 0; db < 2; db++ {
		if err := checkGroup(e.DB(db)); err != nil {
			t.Error(err)
		}
	}
	var tokKeys [][]byte
	tokDB.Keys(bs("tok:*"), func(k []byte) { tokKeys = append(tokKeys, k) }) // keys are immutable: keeping them is safe
	var left []string
	for _, k := range tokKeys {
		it, _, _ := tokDB.Get(k)
		left = append(left, string(it.Value))
	}
	sort.Strings(left)
	want := make([]string, tokens)
	for i := range want {
		want[i] = fmt.Sprint("token-", i)
	}
	sort.Strings(want)
	if strings.Join(left, ",") != strings.Join(want, ",") {
		t.Errorf("tokens after concurrent renames: %v", left)
	}
	checkInvariants(t, e)
	clock.Advance(time.Hour)
	runCyclesUntil(e, time.Second, 10_000, func() bool {
		return e.DB(0).Volatile()+e.DB(1).Volatile()+e.DB(2).Volatile() == 0
	})
	e.FlushAll()
	if e.UsedMemory() != 0 {
		t.Errorf("used memory %d after FlushAll", e.UsedMemory())
	}
	checkInvariants(t, e)
}

// Read-modify-write calls on one key from many goroutines lose no update.
func TestConcurrentCounters(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet(t, d, "mc", "0", SetOptions{})
	const workers, n = 8, 500
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				d.IncrBy(bs("redis"), 1)
				d.IncrUnsigned(bs("mc"), 2, false, 0)
				d.Append(bs("log"), bs("x"), AppendOptions{}, 0)
				d.IncrByFloat(bs("f"), bs("0.5"))
			}
		}()
	}
	wg.Wait()
	if got := getString(t, d, "redis"); got != fmt.Sprint(workers*n) {
		t.Errorf("IncrBy total %s", got)
	}
	if got := strings.TrimSpace(getString(t, d, "mc")); got != fmt.Sprint(2*workers*n) {
		t.Errorf("IncrUnsigned total %s", got)
	}
	if got := getString(t, d, "log"); len(got) != workers*n {
		t.Errorf("Append total length %d", len(got))
	}
	if got := getString(t, d, "f"); got != fmt.Sprint(workers*n/2) {
		t.Errorf("IncrByFloat total %s", got)
	}
}

// CAS-guarded writes from many goroutines: exactly one writer wins per CAS
// value, so a CAS-loop counter loses nothing.
func TestConcurrentCASLoop(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	d.TrackCAS = true // memcached semantics: CAS uniques at once
	mustSet(t, d, "k", "0", SetOptions{})
	const workers, n = 6, 200
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; {
				it, _, _ := d.Get(bs("k"))
				var v int
				fmt.Sscan(string(it.Value), &v)
				res, err := d.Set(bs("k"), bs(fmt.Sprint(v+1)), SetOptions{Cond: CondCAS, CAS: it.CAS})
				if err != nil {
					t.Error(err)
					return
				}
				if res.Stored {
					i++
				}
			}
		}()
	}
	wg.Wait()
	if got := getString(t, d, "k"); got != fmt.Sprint(workers*n) {
		t.Errorf("CAS loop total %s, want %d", got, workers*n)
	}
}
