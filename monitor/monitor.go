// Package monitor is the feed MONITOR clients read: every command either
// front-end runs, as one Redis 7.0 status line (replicationFeedMonitors'
// format), sent to every watcher.
//
// One Feed serves the process (package services builds it and hands it to
// both front-ends). A front-end calls Active first, one atomic load, and
// Publish only while someone watches. Publish formats the line once and
// hands the same bytes to every watcher; a watcher (a Redis connection in
// MONITOR mode) queues them under its own output limit, so a watcher that
// does not read is closed by its front-end, not grown without bound.
package monitor

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/internal/sdsargs"
)

// Watcher receives the feed's lines. Watch is called from any goroutine,
// often while the publisher holds locks of its own: it must only queue.
// line is shared with the other watchers and must not be changed or kept
// past the call without copying.
type Watcher interface {
	Watch(line []byte)
}

// Script is the source Publish takes for a command a script ran
// (redis.call): Redis shows it as "[<db> lua]".
const Script = "lua"

// Feed is the monitor feed. The zero value is not usable: call New.
type Feed struct {
	n        atomic.Int32
	mu       sync.RWMutex
	watchers map[Watcher]struct{}
	now      func() time.Time
}

// New returns a feed nobody watches.
func New() *Feed {
	return &Feed{watchers: make(map[Watcher]struct{}), now: time.Now}
}

// Active reports whether anyone watches: Publish is worth calling.
func (f *Feed) Active() bool { return f.n.Load() > 0 }

// Watchers is how many watch.
func (f *Feed) Watchers() int { return int(f.n.Load()) }

// Add starts sending lines to w; adding it again does nothing.
func (f *Feed) Add(w Watcher) {
	f.mu.Lock()
	if _, ok := f.watchers[w]; !ok {
		f.watchers[w] = struct{}{}
		f.n.Add(1)
	}
	f.mu.Unlock()
}

// Remove stops sending lines to w. Once it returns, no Watch of w is in
// flight.
func (f *Feed) Remove(w Watcher) {
	f.mu.Lock()
	if _, ok := f.watchers[w]; ok {
		delete(f.watchers, w)
		f.n.Add(-1)
	}
	f.mu.Unlock()
}

// Publish sends one command to every watcher: db is the database it ran
// in, source the client's addr ("ip:port"), Script for a script's command,
// or "unix:<socket path>"; args the command as the client sent it, with
// secrets already redacted. self is the publishing connection's own
// watcher, or nil: when it watches, it is skipped and the line returned,
// for its front-end to place after the command's reply, where Redis puts
// it. Otherwise Publish returns nil.
func (f *Feed) Publish(db int, source string, args [][]byte, self Watcher) []byte {
	if !f.Active() {
		return nil
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	if len(f.watchers) == 0 {
		return nil
	}
	line := AppendLine(nil, f.now(), db, source, args)
	var own []byte
	for w := range f.watchers {
		if self != nil && w == self {
			own = line
			continue
		}
		w.Watch(line)
	}
	return own
}

// AppendLine appends the status line Redis sends monitors for a command:
// "+<secs>.<micros> [<db> <source>] "arg" ...\r\n", each argument quoted
// as sdscatrepr quotes it.
func AppendLine(b []byte, t time.Time, db int, source string, args [][]byte) []byte {
	b = append(b, '+')
	b = strconv.AppendInt(b, t.Unix(), 10)
	b = append(b, '.')
	us := strconv.AppendInt(nil, int64(t.Nanosecond()/1000), 10)
	for i := len(us); i < 6; i++ {
		b = append(b, '0')
	}
	b = append(b, us...)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(db), 10)
	b = append(b, ' ')
	b = append(b, source...)
	b = append(b, "] "...)
	for i, a := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = sdsargs.AppendRepr(b, a)
	}
	return append(b, '\r', '\n')
}
