// Package slowlog is the slow log both front-ends record into (SLOWLOG
// GET, LEN, RESET): the commands of either protocol whose run took at
// least slowlog-log-slower-than microseconds, newest first, at most
// slowlog-max-len of them, their arguments cut as Redis 7.0 cuts them.
//
// One Log serves the process (package services builds it and keeps it in
// step with the two directives); a front-end calls Slower first, which is
// one atomic load, and Add only for a command that qualifies.
package slowlog

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// MaxArgs is the most arguments an entry keeps; the last one kept then
// says how many more there were.
const MaxArgs = 32

// MaxArgLen is the most bytes an entry keeps of one argument; a longer
// one ends with how many more bytes it had.
const MaxArgLen = 128

// Entry is one logged command.
type Entry struct {
	ID       int64
	Time     int64 // unix seconds when it was logged
	Duration int64 // microseconds
	Args     [][]byte
	Peer     string // client addr:port
	Name     string // client name
}

// Log is the slow log. The zero value is not usable: call New.
type Log struct {
	threshold atomic.Int64 // microseconds; negative: disabled
	maxLen    atomic.Int64

	mu      sync.Mutex
	entries []Entry // oldest first
	nextID  int64
	now     func() time.Time
}

// New returns a log with Redis's defaults (10000 µs, 128 entries).
func New() *Log {
	l := &Log{now: time.Now}
	l.threshold.Store(10000)
	l.maxLen.Store(128)
	return l
}

// SetThreshold sets slowlog-log-slower-than in microseconds (negative
// disables the log, 0 logs every command).
func (l *Log) SetThreshold(usec int64) {
	l.threshold.Store(usec)
	l.trim()
}

// SetMaxLen sets slowlog-max-len. Redis drops the entries beyond it when
// the next command is pushed, which is the CONFIG SET that changed it:
// here, at once. While the log is disabled they stay, as in Redis.
func (l *Log) SetMaxLen(n int64) {
	l.maxLen.Store(n)
	l.trim()
}

func (l *Log) trim() {
	if l.threshold.Load() < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trimLocked()
}

// trimLocked drops the oldest entries beyond slowlog-max-len.
func (l *Log) trimLocked() {
	if over := int64(len(l.entries)) - l.maxLen.Load(); over > 0 {
		n := copy(l.entries, l.entries[over:])
		clear(l.entries[n:])
		l.entries = l.entries[:n]
	}
}

// Slower reports whether a command that ran usec microseconds is logged.
func (l *Log) Slower(usec int64) bool {
	t := l.threshold.Load()
	return t >= 0 && usec >= t
}

// Add logs a command that ran usec microseconds if it qualifies (Slower),
// copying (and cutting) its arguments, and drops the oldest entries
// beyond slowlog-max-len. The log keeps nothing of args.
func (l *Log) Add(args [][]byte, usec int64, peer, name string) {
	if !l.Slower(usec) {
		return
	}
	kept := Cut(args)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, Entry{ID: l.nextID, Time: l.now().Unix(), Duration: usec,
		Args: kept, Peer: peer, Name: name})
	l.nextID++
	l.trimLocked()
}

// Cut copies args as an entry keeps them: at most MaxArgs, the last one
// then "... (N more arguments)"; each longer than MaxArgLen bytes cut to
// them followed by "... (N more bytes)".
func Cut(args [][]byte) [][]byte {
	n := len(args)
	if n > MaxArgs {
		n = MaxArgs
	}
	out := make([][]byte, n)
	for i := 0; i < n; i++ {
		a := args[i]
		switch {
		case n != len(args) && i == n-1:
			out[i] = []byte("... (" + strconv.Itoa(len(args)-n+1) + " more arguments)")
		case len(a) > MaxArgLen:
			b := append(make([]byte, 0, MaxArgLen+32), a[:MaxArgLen]...)
			b = append(b, "... ("...)
			b = strconv.AppendInt(b, int64(len(a)-MaxArgLen), 10)
			out[i] = append(b, " more bytes)"...)
		default:
			out[i] = append([]byte(nil), a...)
		}
	}
	return out
}

// Get returns up to count entries, newest first; count < 0 returns all.
func (l *Log) Get(count int64) []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := int64(len(l.entries))
	if count < 0 || count > n {
		count = n
	}
	out := make([]Entry, count)
	for i := range out {
		out[i] = l.entries[n-1-int64(i)]
	}
	return out
}

// Len is the number of entries.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Reset empties the log; ids go on from where they were, as in Redis.
func (l *Log) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.entries)
	l.entries = l.entries[:0]
}
