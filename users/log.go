package users

import (
	"sync"
	"time"
)

// ACL LOG: the denials both front-ends record (a refused command, key or
// channel, a failed login), kept as Redis 7.0 keeps them (addACLLogEntry):
// newest first; an entry like one of the 10 newest (same reason, context,
// object and user, updated at most 60 seconds before) is counted again,
// moved to the front, instead of added; and adding an entry drops the
// oldest ones beyond acllog-max-len (SetLogMaxLen). As in Redis, lowering
// the bound trims the log only when the next entry is added.

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
	maxLen  int // acllog-max-len (New: LogMaxLen)
}

// SetLogMaxLen is acllog-max-len: how many entries the log keeps.
func (s *Store) SetLogMaxLen(n int) {
	s.log.mu.Lock()
	s.log.maxLen = n
	s.log.mu.Unlock()
}

// Log records a denial at now.
func (s *Store) Log(e LogEntry, now time.Time) {
	l := &s.log
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range min(len(l.entries), 10) { // Redis scans the 10 newest
		o := &l.entries[i]
		if o.Reason == e.Reason && o.Context == e.Context && o.Object == e.Object &&
			o.Username == e.Username && now.Sub(o.Updated).Abs().Milliseconds() <= logGrouping.Milliseconds() {
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
	if len(l.entries) > l.maxLen {
		l.entries = l.entries[:l.maxLen]
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
