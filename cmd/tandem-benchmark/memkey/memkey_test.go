package memkey

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	for n, want := range map[int]string{0: "key:0", 7: "key:7", 999999: "key:999999"} {
		if got := string(appendKey([]byte("x"), n)); got != "x"+want {
			t.Errorf("appendKey(%d) = %q", n, got)
		}
	}
	for _, keys := range []int{1, 9, 10, 11, 99, 100, 101, 12345, 1000000} {
		total := 0
		for i := 0; i < keys; i++ {
			total += len(appendKey(nil, i))
		}
		if got, want := avgKeyLen(keys), float64(total)/float64(keys); math.Abs(got-want) > 1e-9 {
			t.Errorf("avgKeyLen(%d) = %v, want %v", keys, got, want)
		}
	}
}

func TestPickKeys(t *testing.T) {
	idx := pickKeys(1000000, 1000, 1)
	if len(idx) != 1000 || idx[0] != 0 || idx[1] != 999999 {
		t.Fatalf("pickKeys: %d keys, starting %v", len(idx), idx[:2])
	}
	uniq := map[int]bool{}
	for _, i := range idx {
		if i < 0 || i >= 1000000 {
			t.Fatalf("key %d out of range", i)
		}
		uniq[i] = true
	}
	if len(uniq) < 990 {
		t.Errorf("only %d distinct keys of 1000", len(uniq))
	}
	again := pickKeys(1000000, 1000, 1)
	if strconv.Itoa(again[500]) != strconv.Itoa(idx[500]) {
		t.Error("pickKeys is not deterministic")
	}
	if got := pickKeys(1, 3, 1); len(got) != 3 || got[0] != 0 || got[1] != 0 {
		t.Errorf("one key: %v", got)
	}
	if got := pickKeys(10, 0, 1); len(got) != 0 {
		t.Errorf("none: %v", got)
	}
}

func TestCompare(t *testing.T) {
	want := []byte("abcdef")
	if err := compare(1, []byte("abcdef"), true, want); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		got  string
		hit  bool
		errs string
	}{
		{"", false, "missing"},
		{"abc", true, "3 bytes"},
		{"abXdef", true, "byte 2"},
	} {
		err := compare(1, []byte(c.got), c.hit, want)
		if err == nil || !strings.Contains(err.Error(), c.errs) {
			t.Errorf("%q: %v, want an error with %q", c.got, err, c.errs)
		}
	}
}

func TestSummarize(t *testing.T) {
	const keys = 1000
	mk := func(name, srv string, round int, acc, rss int64) *caseRun {
		return &caseRun{Case: name, Server: srv, Round: round, Accounted: "used_memory",
			Empty: &sample{Accounted: 1000, RSS: 10000}, After1: &sample{},
			After: &sample{Accounted: 1000 + acc*keys, RSS: 10000 + rss*keys}}
	}
	rep := &report{Options: options{Keys: keys, Rounds: 2}}
	rep.Runs = []*caseRun{
		mk("tandem-resp", "tandem", 1, 60, 90), mk("redis", "redis", 1, 80, 100), mk("memcached", "memcached", 1, 150, 200),
		mk("tandem-resp", "tandem", 2, 70, 110), mk("redis", "redis", 2, 80, 100), mk("memcached", "memcached", 2, 150, 200),
	}
	broken := mk("tandem-memcached", "tandem", 1, 1, 1)
	broken.Error = "boom"
	rep.Runs = append(rep.Runs, broken)
	rep.summarize(allCases)
	s := rep.Summary[0]
	if s.Case != "tandem-resp" || s.Rounds != 2 || s.AccountedPerKey != 65 || s.RSSPerKey != 100 {
		t.Fatalf("tandem-resp summary %+v", s)
	}
	if *s.AccountedVsRedis != 65.0/80 || *s.RSSVsRedis != 1 || *s.RSSVsMemcached != 0.5 {
		t.Errorf("ratios %v %v %v", *s.AccountedVsRedis, *s.RSSVsRedis, *s.RSSVsMemcached)
	}
	if tm := rep.Summary[3]; tm.Rounds != 0 || len(tm.Errors) != 1 || tm.RSSVsRedis != nil {
		t.Errorf("a failed case is summarised as %+v", tm)
	}
	var out strings.Builder
	rep.writeTable(&out)
	for _, want := range []string{"| tandem-resp |", "65.0 (60.0, 70.0)", "0.81×", "0.50×", "memcached `bytes` †", "FAILED: boom"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
