package engine

import (
	"fmt"
	"testing"
)

// TestZView reads score ranges and member lookups of both encodings, and
// stores computed results: sorted, in Redis's encoding, deleting the
// destination when empty, refusing a source of another type.
func TestZView(t *testing.T) {
	e, _ := newTestEngine(t, 1)
	d := e.DB(0)
	lim := ZsetLimits{MaxListpackEntries: 4, MaxListpackValue: 64}
	for _, key := range []string{"lp", "sl"} {
		var zm []ZMember
		n := 3
		if key == "sl" {
			n = 10
		}
		for i := 0; i < n; i++ {
			zm = append(zm, ZMember{bs(fmt.Sprintf("m%d", i)), float64(i / 2)})
		}
		if _, err := d.ZAdd(bs(key), 0, zm, lim); err != nil {
			t.Fatal(err)
		}
	}
	for key, want := range map[string]string{"lp": "m0 m1 m2 ", "sl": "m2 m3 m4 m5 "} {
		got := ""
		err := d.ZViewRead(bs(key), func(v *ZView) {
			if v == nil {
				t.Fatalf("%s: no view", key)
			}
			if s, ok := v.Score(bs("m2")); !ok || s != 1 {
				t.Errorf("%s: Score(m2) = %v, %v", key, s, ok)
			}
			if _, ok := v.Score(bs("nosuch")); ok {
				t.Errorf("%s: a missing member has a score", key)
			}
			lo, hi := 0.0, 2.0
			if key == "sl" {
				lo, hi = 1, 3
			}
			v.EachInRange(lo, hi, func(m []byte, _ float64) bool { got += string(m) + " "; return true })
		})
		if err != nil || got != want {
			t.Errorf("%s: range [lo, hi) gave %q (%v), want %q", key, got, err, want)
		}
	}
	stopped := 0
	d.ZViewRead(bs("sl"), func(v *ZView) {
		v.EachInRange(0, 100, func([]byte, float64) bool { stopped++; return stopped < 3 })
	})
	if stopped != 3 {
		t.Errorf("EachInRange went on after false: %d calls", stopped)
	}
	called := false
	if err := d.ZViewRead(bs("nosuch"), func(v *ZView) { called = v == nil }); err != nil || !called {
		t.Errorf("missing key: called with nil %v, err %v", called, err)
	}
	putRaw(t, d, bs("str"), bs("v"), TypeString)
	if err := d.ZViewRead(bs("str"), func(*ZView) { t.Error("fn ran on a string") }); err != ErrWrongType {
		t.Errorf("string key: %v", err)
	}

	store := func(dst, src string, members []ZMember) error {
		return d.ZViewStore(bs(dst), bs(src), lim, func(*ZView) ([]ZMember, bool) { return members, true })
	}
	if err := store("d", "sl", []ZMember{{bs("b"), 2}, {bs("a"), 2}, {bs("c"), 1}}); err != nil {
		t.Fatal(err)
	}
	got := ""
	d.ZRange(bs("d"), &ZRangeSpec{By: ZByRank, Start: 0, Stop: -1}, func(int) {}, func(m []byte, s float64) { got += fmt.Sprintf("%s=%v ", m, s) })
	if info, _ := d.Info(bs("d")); got != "c=1 a=2 b=2 " || info.Encoding.String() != "listpack" {
		t.Errorf("stored %q as %s", got, info.Encoding)
	}
	var five []ZMember
	for i := range 5 {
		five = append(five, ZMember{bs(fmt.Sprintf("x%d", i)), float64(i)})
	}
	if store("d", "lp", five); mustInfo(t, d, "d") != "skiplist" {
		t.Errorf("5 members past 4: %s", mustInfo(t, d, "d"))
	}
	if err := store("d", "nosuch", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Info(bs("d")); ok {
		t.Error("an empty result left the destination")
	}
	if err := store("d", "str", five); err != ErrWrongType {
		t.Errorf("string source: %v", err)
	}
	if _, ok := d.Info(bs("d")); ok {
		t.Error("a refused store wrote the destination")
	}
	if err := d.ZViewStore(bs("d"), bs("lp"), lim, func(*ZView) ([]ZMember, bool) { return five, false }); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Info(bs("d")); ok {
		t.Error("store false wrote the destination")
	}
	// The destination may be the source: the result is built from the
	// source's bytes before it is replaced.
	err := d.ZViewStore(bs("sl"), bs("sl"), lim, func(v *ZView) ([]ZMember, bool) {
		var out []ZMember
		v.EachInRange(4, 5, func(m []byte, s float64) bool { out = append(out, ZMember{m, s}); return true })
		return out, true
	})
	got = ""
	d.ZRange(bs("sl"), &ZRangeSpec{By: ZByRank, Start: 0, Stop: -1}, func(int) {}, func(m []byte, s float64) { got += fmt.Sprintf("%s=%v ", m, s) })
	if err != nil || got != "m8=4 m9=4 " {
		t.Errorf("store onto the source: %q %v", got, err)
	}
	checkInvariants(t, e)
}

func mustInfo(t *testing.T, d DB, key string) string {
	t.Helper()
	info, ok := d.Info(bs(key))
	if !ok {
		return "none"
	}
	return info.Encoding.String()
}
