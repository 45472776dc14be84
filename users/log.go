package users

import (
	"sync"
	"time"
)

// ACL LOG: the denials both front-ends record (a refused command, key or
// channel, a failed login), kept as Redis 7.0 keeps them (addACLLogEntry):
// newest first, at most LogMaxLen, and an entry like the newest one with
// the same reason, context, object and user less than 60 seconds old is
// counted again instead of added.

// LogMaxLen is Redis's acllog-max-len default.
const LogMaxLen = 128

// logGrouping is Redis's ACL_LOG_GROUPING_MAX_TIME_DELTA.
const logGrouping = 60 * time.Second

// LogEntry is one ACL LOG entry.
type LogEntry struct {
	Count      int64
	Reason     string // "command", "key", "channel", "auth"
	Context    string // "toplevel", "multi", "lua"
	Object     string // the command's full name, the key, the channel, or "AUTH"
	Username   string
	ClientInfo string // CLIENT INFO of the connection, without the newline
	EntryID    int64
	Created    time.Time
	Updated    time.Time
}

type aclLog struct {
	mu      sync.Mutex
	entries []LogEntry // newest first
	nextID  int64
}

// Log records a denial at now.
func (s *Store) Log(e LogEntry, now time.Time) {
	l := &s.log
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range min(len(l.entries), 10) { // Redis scans the 10 newest
		o := &l.entries[i]
		if o.Reason == e.Reason && o.Context == e.Context && o.Object == e.Object &&
			o.Username == e.Username && now.Sub(o.Updated) < logGrouping {
			o.Count++
			o.Updated = now
			o.ClientInfo = e.ClientInfo
			moved := *o
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = moved
			return
		}
	}
	e.Count = 1
	e.EntryID = l.nextID
	l.nextID++
	e.Created, e.Updated = now, now
	l.entries = append([]LogEntry{e}, l.entries...)
	if len(l.entries) > LogMaxLen {
		l.entries = l.entries[:LogMaxLen]
	}
}

// LogEntries returns up to n entries, newest first (n < 0: all).
func (s *Store) LogEntries(n int) []LogEntry {
	l := &s.log
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > len(l.entries) {
		n = len(l.entries)
	}
	return append([]LogEntry(nil), l.entries[:n]...)
}

// ResetLog empties the log (ACL LOG RESET).
func (s *Store) ResetLog() {
	s.log.mu.Lock()
	s.log.entries = nil
	s.log.mu.Unlock()
}
