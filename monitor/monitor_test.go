package monitor

import (
	"sync"
	"testing"
	"time"
)

type rec struct {
	mu    sync.Mutex
	lines []string
}

func (r *rec) Watch(line []byte) {
	r.mu.Lock()
	r.lines = append(r.lines, string(line))
	r.mu.Unlock()
}

func TestAppendLine(t *testing.T) {
	at := time.Unix(1700000000, 4000)
	args := [][]byte{[]byte("set"), []byte("k\"\\"), []byte("a\nb\r\t\a\b\x00\x7f\xff ~")}
	got := string(AppendLine(nil, at, 3, "127.0.0.1:5000", args))
	want := "+1700000000.000004 [3 127.0.0.1:5000] \"set\" \"k\\\"\\\\\" \"a\\nb\\r\\t\\a\\b\\x00\\x7f\\xff ~\"\r\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := string(AppendLine(nil, time.Unix(5, 123456000), 0, Script, [][]byte{[]byte("get"), {}})); got != "+5.123456 [0 lua] \"get\" \"\"\r\n" {
		t.Fatalf("script line %q", got)
	}
}

func TestFeedWatchers(t *testing.T) {
	f := New()
	f.now = func() time.Time { return time.Unix(1, 0) }
	f.Publish(0, "x", [][]byte{[]byte("ping")}, nil) // nobody watches: nothing to do
	a, b := &rec{}, &rec{}
	f.Add(a)
	f.Add(a)
	f.Add(b)
	if !f.Active() || f.Watchers() != 2 {
		t.Fatalf("watchers %d", f.Watchers())
	}
	if own := f.Publish(1, "1.2.3.4:5", [][]byte{[]byte("ping")}, nil); own != nil {
		t.Fatal("own line without self")
	}
	f.Remove(a)
	f.Remove(a)
	if own := f.Publish(0, "1.2.3.4:5", [][]byte{[]byte("echo"), []byte("x")}, b); string(own) != "+1.000000 [0 1.2.3.4:5] \"echo\" \"x\"\r\n" {
		t.Fatalf("own line %q", own)
	}
	f.Publish(0, "1.2.3.4:5", [][]byte{[]byte("echo"), []byte("x")}, a) // a no longer watches
	if len(a.lines) != 1 || a.lines[0] != "+1.000000 [1 1.2.3.4:5] \"ping\"\r\n" {
		t.Fatalf("a got %q", a.lines)
	}
	if len(b.lines) != 2 || b.lines[1] != "+1.000000 [0 1.2.3.4:5] \"echo\" \"x\"\r\n" {
		t.Fatalf("b got %q", b.lines)
	}
	f.Remove(b)
	if f.Active() {
		t.Fatal("still active")
	}
}

func TestFeedConcurrent(t *testing.T) {
	f := New()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				r := &rec{}
				f.Add(r)
				f.Publish(0, "a", [][]byte{[]byte("x")}, r)
				f.Remove(r)
			}
		}()
	}
	wg.Wait()
	if f.Active() {
		t.Fatal("watchers left")
	}
}
