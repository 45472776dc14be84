package mclog

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Flags choose what a watcher sees: memcached's LOG_* event flags, named
// as "watch" takes them.
type Flags uint16

// The event flags, in logger.h's order.
const (
	RawCmds Flags = 1 << iota
	Evictions
	Fetchers
	Mutations
	SysEvents
	ConnEvents
	ProxyReqs
	ProxyEvents
	ProxyUser
)

// flagNames are the arguments "watch" takes. rawcmds, sysevents and the
// proxy ones are accepted as memcached accepts them; nothing Tandem does
// logs under them (memcached 1.6.18 logs no rawcmds line either, and
// without its proxy nothing under the proxy flags).
var flagNames = map[string]Flags{
	"rawcmds": RawCmds, "evictions": Evictions, "fetchers": Fetchers, "mutations": Mutations,
	"sysevents": SysEvents, "connevents": ConnEvents, "proxyreqs": ProxyReqs,
	"proxyevents": ProxyEvents, "proxyuser": ProxyUser,
}

// ParseFlags reads watch's arguments as memcached does: none is fetchers;
// ok is false at the first name it does not know.
func ParseFlags(args [][]byte) (f Flags, ok bool) {
	if len(args) == 0 {
		return Fetchers, true
	}
	for _, a := range args {
		g, known := flagNames[string(a)]
		if !known {
			return 0, false
		}
		f |= g
	}
	return f, true
}

// WatcherLimit is memcached's WATCHER_LIMIT: watchers at once.
const WatcherLimit = 20

// DefaultBufferSize is memcached's default watcher_logbuf_size.
const DefaultBufferSize = 256 << 10

// noticeRoom is what memcached keeps free beside each line for the
// "skipped=" notice: a line is taken only with len+noticeRoom bytes free.
const noticeRoom = 128

// ErrTooMany is Add's error at WatcherLimit watchers.
var ErrTooMany = errors.New("too many watchers")

// Log is the log stream. The zero value is not usable: call New.
type Log struct {
	wants atomic.Uint32 // the union of the watchers' flags
	gid   atomic.Uint64
	size  atomic.Int64 // buffer size of watchers added from now on

	mu       sync.RWMutex // guards watchers; each Watcher has its own lock for its buffer
	watchers []*Watcher

	written, sent, skipped atomic.Int64
	now                    func() time.Time
	bufs                   sync.Pool // *[]byte, a line being formatted
}

// New returns a log nobody watches.
func New() *Log {
	l := &Log{now: time.Now}
	l.size.Store(DefaultBufferSize)
	l.bufs.New = func() any { b := make([]byte, 0, 512); return &b }
	return l
}

// SetBufferSize sets watcher_logbuf_size, in bytes, for watchers added
// from now on (memcached reads it at start only).
func (l *Log) SetBufferSize(n int) {
	if n > 0 {
		l.size.Store(int64(n))
	}
}

// BufferSize is the watcher_logbuf_size new watchers get.
func (l *Log) BufferSize() int { return int(l.size.Load()) }

// Wants reports whether some watcher takes events of flag f: whether
// publishing one is worth anything. One atomic load.
func (l *Log) Wants(f Flags) bool { return Flags(l.wants.Load())&f != 0 }

// Stats are the log's counters, as memcached's stats shows them.
type Stats struct {
	Watchers      int   // log_watchers
	WorkerWritten int64 // log_worker_written: events logged
	WorkerDropped int64 // log_worker_dropped: always 0 (see the package doc)
	WatcherSent   int64 // log_watcher_sent: lines given to a watcher's buffer
	WatcherSkip   int64 // log_watcher_skipped: lines a full buffer lost
}

// Stats returns the counters.
func (l *Log) Stats() Stats {
	l.mu.RLock()
	n := len(l.watchers)
	l.mu.RUnlock()
	return Stats{Watchers: n, WorkerWritten: l.written.Load(), WatcherSent: l.sent.Load(), WatcherSkip: l.skipped.Load()}
}

// Add starts a watcher of the events f names. wake is called, from any
// goroutine and possibly under the publisher's locks, when the watcher's
// buffer gets bytes after Take emptied it: it must only schedule a Take.
// Events logged before Add returns are not shown, as memcached's min_gid.
func (l *Log) Add(f Flags, wake func()) (*Watcher, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.watchers) >= WatcherLimit {
		return nil, ErrTooMany
	}
	w := &Watcher{log: l, flags: f, size: int(l.size.Load()), wake: wake}
	w.minGid = l.gid.Add(1) // memcached's logger_add_watcher takes a gid too
	l.watchers = append(l.watchers, w)
	l.setWants()
	return w, nil
}

// Remove stops w; once it returns, no event is offered to it.
func (l *Log) Remove(w *Watcher) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.watchers, w); i >= 0 {
		l.watchers = slices.Delete(l.watchers, i, i+1)
	}
	l.setWants()
}

// setWants recomputes the flags union; l.mu held.
func (l *Log) setWants() {
	var f Flags
	for _, w := range l.watchers {
		f |= w.flags
	}
	l.wants.Store(uint32(f))
}

// publish formats one event and offers it to the watchers of flag f.
func (l *Log) publish(f Flags, format func(b []byte) []byte) {
	gid := l.gid.Add(1)
	t := l.now()
	l.written.Add(1)
	bp := l.bufs.Get().(*[]byte)
	b := appendHead((*bp)[:0], t, gid)
	b = format(b)
	b = append(b, '\n')
	l.mu.RLock()
	for _, w := range l.watchers {
		if w.flags&f != 0 && gid >= w.minGid {
			w.offer(b)
		}
	}
	l.mu.RUnlock()
	if cap(b) <= 4096 {
		*bp = b
		l.bufs.Put(bp)
	}
}

// appendHead appends "ts=<sec>.<usec> gid=<n> ": the microseconds are not
// zero-padded, as logger.c's "%d" prints them.
func appendHead(b []byte, t time.Time, gid uint64) []byte {
	b = append(b, "ts="...)
	b = strconv.AppendInt(b, t.Unix(), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(t.Nanosecond()/1000), 10)
	b = append(b, " gid="...)
	b = strconv.AppendUint(b, gid, 10)
	return append(b, ' ')
}

// Watcher is one watch connection's buffer.
type Watcher struct {
	log    *Log
	flags  Flags
	minGid uint64
	size   int
	wake   func()

	mu      sync.Mutex
	buf     []byte // lines not taken yet
	skipped uint64 // lines lost since the last notice
	waiting bool   // wake was called and no Take has run since
}

// Flags are the events w sees.
func (w *Watcher) Flags() Flags { return w.flags }

// offer queues line if it fits, else counts it skipped.
func (w *Watcher) offer(line []byte) {
	w.mu.Lock()
	if len(w.buf)+len(line)+noticeRoom > w.size {
		w.skipped++
		w.mu.Unlock()
		w.log.skipped.Add(1)
		return
	}
	if w.skipped > 0 {
		w.buf = append(w.buf, "skipped="...)
		w.buf = strconv.AppendUint(w.buf, w.skipped, 10)
		w.buf = append(w.buf, '\n')
		w.skipped = 0
	}
	w.buf = append(w.buf, line...)
	wake := !w.waiting
	w.waiting = true
	w.mu.Unlock()
	w.log.sent.Add(1)
	if wake && w.wake != nil {
		w.wake()
	}
}

// Take appends the lines buffered for w to dst and empties the buffer;
// the next line offered calls wake again.
func (w *Watcher) Take(dst []byte) []byte {
	w.mu.Lock()
	dst = append(dst, w.buf...)
	w.buf = w.buf[:0]
	if cap(w.buf) > w.size {
		w.buf = nil
	}
	w.waiting = false
	w.mu.Unlock()
	return dst
}

// Buffered is how many bytes wait to be taken.
func (w *Watcher) Buffered() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.buf)
}
