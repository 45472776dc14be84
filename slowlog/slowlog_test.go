package slowlog

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func args(words ...string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}

func TestCut(t *testing.T) {
	long := strings.Repeat("x", 200)
	got := Cut(args("SET", strings.Repeat("k", 128), long))
	if string(got[1]) != strings.Repeat("k", 128) {
		t.Errorf("128 bytes cut: %q", got[1])
	}
	if want := strings.Repeat("x", 128) + "... (72 more bytes)"; string(got[2]) != want {
		t.Errorf("long argument %q, want %q", got[2], want)
	}
	for _, n := range []int{31, 32, 33, 100} {
		in := make([]string, n)
		for i := range in {
			in[i] = strconv.Itoa(i)
		}
		got := Cut(args(in...))
		switch {
		case n <= MaxArgs && len(got) != n:
			t.Errorf("%d args kept as %d", n, len(got))
		case n > MaxArgs:
			if len(got) != MaxArgs || string(got[MaxArgs-2]) != "30" {
				t.Errorf("%d args: %d kept, %q", n, len(got), got)
			}
			if want := "... (" + strconv.Itoa(n-MaxArgs+1) + " more arguments)"; string(got[MaxArgs-1]) != want {
				t.Errorf("%d args: last %q, want %q", n, got[MaxArgs-1], want)
			}
		}
	}
	in := args("a")
	out := Cut(in)
	in[0][0] = 'b'
	if string(out[0]) != "a" {
		t.Error("Cut shares the caller's bytes")
	}
}

func TestLog(t *testing.T) {
	l := New()
	l.now = func() time.Time { return time.Unix(1700000000, 0) }
	l.Add(args("fast"), 9999, "1.2.3.4:5", "")
	if l.Len() != 0 {
		t.Fatal("a command under the threshold was logged")
	}
	l.Add(args("slow"), 10000, "1.2.3.4:5", "name")
	e := l.Get(10)
	if len(e) != 1 || e[0].ID != 0 || e[0].Time != 1700000000 || e[0].Duration != 10000 || e[0].Peer != "1.2.3.4:5" || e[0].Name != "name" {
		t.Fatalf("entry %+v", e)
	}
	l.SetThreshold(0)
	for i := 1; i <= 5; i++ {
		l.Add(args("c"+strconv.Itoa(i)), 0, "", "")
	}
	if got := l.Get(2); len(got) != 2 || got[0].ID != 5 || got[1].ID != 4 {
		t.Errorf("Get(2) %+v", got)
	}
	if got := l.Get(-1); len(got) != 6 || got[5].ID != 0 {
		t.Errorf("Get(-1) has %d entries", len(got))
	}
	l.SetMaxLen(3)
	if got := l.Get(-1); len(got) != 3 || got[2].ID != 3 {
		t.Errorf("after max len 3: %+v", got)
	}
	l.Reset()
	if l.Len() != 0 {
		t.Error("Reset left entries")
	}
	l.Add(args("x"), 0, "", "")
	if got := l.Get(1); got[0].ID != 6 {
		t.Errorf("id after Reset %d, want 6", got[0].ID)
	}
	l.SetThreshold(-1)
	l.Add(args("y"), 1<<40, "", "")
	l.SetMaxLen(0)
	if l.Len() != 1 {
		t.Error("a disabled log changed")
	}
	l.SetThreshold(0)
	if l.Len() != 0 {
		t.Error("enabling the log did not apply slowlog-max-len")
	}
}
