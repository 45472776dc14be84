package services

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/aof"
)

// aofSink feeds the stream into the log and syncs it per batch.
type aofSink struct {
	log    appendLog
	always atomic.Bool // appendfsync always
	seq    atomic.Uint64

	flushing atomic.Bool // a flushSoon is pending

	mu         sync.Mutex // guards waiters, committing and want
	waiters    []durableWaiter
	committing bool
	// want, while the committer gathers (see gather), is how many
	// waiters it waits for; gathered is signalled when they are there.
	want     int
	gathered chan struct{}
	logger   *slog.Logger
}

// appendLog is what the sink needs of an aof.Log.
type appendLog interface {
	Append(db int, cmd []byte) (seq uint64)
	Flush() error
	WaitDurable(seq uint64) error
}

var _ appendLog = (*aof.Log)(nil)

func newAOFSink(log appendLog, always bool, logger *slog.Logger) *aofSink {
	k := &aofSink{log: log, logger: logger, gathered: make(chan struct{}, 1)}
	k.always.Store(always)
	return k
}

func (k *aofSink) Feed(db int, cmd []byte) { k.seq.Store(k.log.Append(db, cmd)) }

// Flush implements propagate.Syncer: under appendfsync always the
// batch's replies wait until its writes are on disk (WhenSafe: one write
// and fdatasync for every connection waiting, the group commit);
// otherwise the writes are written within a millisecond (flushSoon) and
// the replies go.
func (k *aofSink) Flush() (wait bool) {
	if !k.always.Load() {
		k.flushSoon()
		return false
	}
	return true
}

// WhenSafe implements propagate.Syncer: done joins the next group commit.
func (k *aofSink) WhenSafe(done func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.waiters = append(k.waiters, durableWaiter{seq: k.seq.Load(), done: done})
	switch {
	case !k.committing:
		k.committing = true
		go k.commit()
	case k.want > 0 && len(k.waiters) >= k.want:
		k.want = 0
		select {
		case k.gathered <- struct{}{}:
		default:
		}
	}
}

// flushSoon writes what the log buffers within about a millisecond, off
// the event loops, coalescing every batch of that millisecond into one
// write(2): under everysec and no the replies do not wait for the
// write, and a kill -9 loses at most that millisecond (a machine crash:
// up to the last second's fdatasync, as Redis).
func (k *aofSink) flushSoon() {
	if !k.flushing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		time.Sleep(time.Millisecond)
		k.flushing.Store(false)
		if err := k.log.Flush(); err != nil {
			k.logger.Warn("writing the append only file", "err", err)
		}
	}()
}

// durableWaiter is a batch waiting for its writes (up to seq) on disk.
type durableWaiter struct {
	seq  uint64
	done func()
}

// maxGather bounds how long a group commit waits for the connections it
// just released (gather).
const maxGather = time.Millisecond

// commit is the group commit's one goroutine: it takes every waiter,
// waits for the furthest one's bytes (one write and fdatasync for all:
// aof.Log.WaitDurable), releases them, gathers the next group, and goes
// on while there are waiters.
func (k *aofSink) commit() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		k.mu.Lock()
		ws := k.waiters
		k.waiters = nil
		if len(ws) == 0 {
			k.committing = false
			k.mu.Unlock()
			return
		}
		k.mu.Unlock()
		var upTo uint64
		for _, w := range ws {
			upTo = max(upTo, w.seq)
		}
		start := time.Now()
		if err := k.log.WaitDurable(upTo); err != nil {
			k.logger.Warn("writing the append only file", "err", err)
		}
		took := time.Since(start)
		for _, w := range ws {
			w.done()
		}
		k.gather(len(ws), min(took/2, maxGather), timer)
	}
}

// gather waits, before the next sync, for the connections just released
// to come back with their next writes: each of them is one round trip
// away, while a sync takes many. Without it the clients split into two
// cohorts that take turns — those released by one sync write during the
// next and wait for the one after — and every sync serves half of them,
// as Redis's one per event-loop iteration does. Gathering merges them
// into one group per sync. It waits until the waiters are as many as
// those released plus those already waiting, or for wait (half a sync,
// at most maxGather: a client that went quiet costs the others no more).
func (k *aofSink) gather(released int, wait time.Duration, timer *time.Timer) {
	k.mu.Lock()
	want := released + len(k.waiters)
	if len(k.waiters) >= want || wait <= 0 {
		k.mu.Unlock()
		return
	}
	k.want = want
	select { // a signal left from an earlier gather that timed out
	case <-k.gathered:
	default:
	}
	k.mu.Unlock()
	timer.Reset(wait)
	select {
	case <-k.gathered:
		timer.Stop()
	case <-timer.C:
		k.mu.Lock()
		k.want = 0
		k.mu.Unlock()
	}
}
