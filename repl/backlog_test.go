package repl

import (
	"bytes"
	"math/rand"
	"runtime"
	"testing"
)

// The ring against a plain byte slice of the whole stream: after every
// write, the held range is the last min(size, total) bytes and every
// offset in it reads back what was written there.
func TestBacklogMatchesStream(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, size := range []int64{1, 7, 16, 100} {
		b := newBacklog(size, 0)
		var all []byte
		for i := 0; i < 300; i++ {
			p := make([]byte, rng.Intn(int(size)*2+3))
			rng.Read(p)
			b.write(p)
			all = append(all, p...)
			total := int64(len(all))
			held := min(total, size)
			if b.histlen != held || b.first != total-held+1 || b.last() != total {
				t.Fatalf("size %d after %d bytes: first %d histlen %d last %d", size, total, b.first, b.histlen, b.last())
			}
			for _, from := range []int64{b.first, b.first + held/2, total + 1} {
				if !b.canServe(from) {
					t.Fatalf("size %d: cannot serve %d in [%d,%d]", size, from, b.first, total+1)
				}
				if got := b.appendFrom(nil, from); !bytes.Equal(got, all[from-1:]) {
					t.Fatalf("size %d from %d: %q want %q", size, from, got, all[from-1:])
				}
			}
			if b.canServe(b.first-1) && b.first > 1 || b.canServe(total+2) {
				t.Fatalf("size %d: serves outside [%d,%d]", size, b.first, total+1)
			}
		}
	}
}

// A backlog made at offset N starts at N+1 and, empty, serves exactly
// N+1 (the replica has everything).
func TestBacklogCreatedAtOffset(t *testing.T) {
	b := newBacklog(10, 500)
	if b.first != 501 || b.histlen != 0 || !b.canServe(501) || b.canServe(500) || b.canServe(502) {
		t.Fatalf("first %d histlen %d", b.first, b.histlen)
	}
	b.write([]byte("abc"))
	if got := string(b.appendFrom(nil, 502)); got != "bc" {
		t.Fatalf("got %q", got)
	}
}

func TestBacklogResizeKeepsNewest(t *testing.T) {
	b := newBacklog(8, 0)
	b.write([]byte("0123456789")) // holds 23456789, offsets 3..10
	small := b.resize(4)
	if small.first != 7 || string(small.appendFrom(nil, 7)) != "6789" {
		t.Fatalf("shrunk: first %d %q", small.first, small.appendFrom(nil, small.first))
	}
	big := small.resize(16)
	big.write([]byte("ab"))
	if big.first != 7 || string(big.appendFrom(nil, 7)) != "6789ab" {
		t.Fatalf("grown: first %d %q", big.first, big.appendFrom(nil, big.first))
	}
}

// A Primary that never replicates runs no goroutine (its cron would keep
// the whole server alive: a test's, a fuzz input's), and closes at once.
func TestIdlePrimaryRunsNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	ps := make([]*Primary, 100)
	for i := range ps {
		ps[i] = NewPrimary(DefaultConfig())
	}
	if grew := runtime.NumGoroutine() - before; grew >= 50 {
		t.Errorf("100 idle Primaries started %d goroutines", grew)
	}
	for _, p := range ps {
		p.Close()
	}
}
