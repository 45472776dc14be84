package services

import (
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"
)

// slowSyncLog is an appendLog whose every sync takes syncTime, recording
// how many appends each one made durable.
type slowSyncLog struct {
	syncTime time.Duration

	mu     sync.Mutex
	seq    uint64
	synced uint64
	groups []int
}

func (l *slowSyncLog) Append(int, []byte) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return l.seq
}

func (l *slowSyncLog) Flush() error { return nil }

func (l *slowSyncLog) WaitDurable(upTo uint64) error {
	time.Sleep(l.syncTime)
	l.mu.Lock()
	defer l.mu.Unlock()
	if upTo > l.synced {
		l.groups = append(l.groups, int(upTo-l.synced))
		l.synced = upTo
	}
	return nil
}

// TestGroupCommitGathersEveryClient: clients that started at different
// moments of a sync, each writing again as soon as its last write is
// durable, end up sharing one sync per round rather than splitting into
// cohorts that take turns (half of them per sync).
func TestGroupCommitGathersEveryClient(t *testing.T) {
	const clients, rounds = 8, 60
	log := &slowSyncLog{syncTime: 4 * time.Millisecond}
	k := newAOFSink(log, true, slog.New(slog.DiscardHandler))
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * log.syncTime / clients) // arrive during the first sync
			for range rounds {
				k.Feed(0, nil)
				done := make(chan struct{})
				k.WhenSafe(func() { close(done) })
				<-done
			}
		}()
	}
	wg.Wait()
	log.mu.Lock()
	groups := slices.Clone(log.groups)
	log.mu.Unlock()
	late := groups[len(groups)/2:]
	slices.Sort(late)
	if median := late[len(late)/2]; median < clients {
		t.Errorf("median clients per sync in the second half = %d, want %d; groups %v", median, clients, groups)
	}
}
