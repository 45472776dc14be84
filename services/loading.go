package services

import (
	"sync"
	"sync/atomic"
	"time"
)

// Loading is the state of the load at start (the AOF or the dump), which
// both front-ends read. As in Redis, the listeners are open while it runs:
// Redis commands without the loading flag get "-LOADING Redis is loading
// the dataset in memory" (the reply clients retry on) and memcached
// requests, which have no such reply, wait until the data is there. INFO
// persistence shows its progress.
type Loading struct {
	active atomic.Bool
	read   atomic.Int64 // bytes of the files read so far

	mu      sync.Mutex
	start   time.Time
	total   int64    // bytes of the files to read
	waiters []func() // WhenDone's, called at Done
}

// LoadingInfo is INFO persistence's loading_* fields.
type LoadingInfo struct {
	Active      bool
	Start       time.Time
	TotalBytes  int64
	LoadedBytes int64
}

// Begin marks the load as running.
func (l *Loading) Begin() {
	l.mu.Lock()
	l.start, l.total = time.Now(), 0
	l.read.Store(0)
	l.mu.Unlock()
	l.active.Store(true)
}

// Size is told the bytes of the files the loader reads (snapshot and aof
// LoadProgress).
func (l *Loading) Size(total int64) {
	l.mu.Lock()
	l.total = total
	l.mu.Unlock()
}

// Read counts n more bytes read (LoadProgress).
func (l *Loading) Read(n int) { l.read.Add(int64(n)) }

// Active reports whether the load runs: one atomic load.
func (l *Loading) Active() bool { return l.active.Load() }

// Done ends the load and calls every WhenDone callback.
func (l *Loading) Done() {
	l.mu.Lock()
	l.active.Store(false)
	ws := l.waiters
	l.waiters = nil
	l.mu.Unlock()
	for _, fn := range ws {
		fn()
	}
}

// WhenDone arranges for fn to be called once the load ends and reports
// true, or reports false, without calling fn, when no load runs.
func (l *Loading) WhenDone(fn func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.active.Load() {
		return false
	}
	l.waiters = append(l.waiters, fn)
	return true
}

// Info is the load's progress.
func (l *Loading) Info() LoadingInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return LoadingInfo{Active: l.active.Load(), Start: l.start, TotalBytes: l.total, LoadedBytes: l.read.Load()}
}
