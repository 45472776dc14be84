package aof

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tandemkv/tandem/propagate"
)

// Log is the open AOF: the manifest in use and the incr file every write
// command is appended to. Append is safe from any goroutine; one writer at
// a time writes the buffer to the file (see doc.go for the group commit).
//
// Locks: mu guards the buffer, the counters, the file and the manifest,
// and is held only for short copies; wmu is held by the one goroutine
// writing (and under appendfsync always, syncing) the buffer it took out
// from under mu. Order: wmu before mu.
type Log struct {
	o Options

	fsync            atomic.Int32
	noFsyncOnRewrite atomic.Bool
	timestamps       atomic.Bool
	rdbPreamble      atomic.Bool
	disableGC        atomic.Bool
	childActive      atomic.Bool // a BGSAVE is running (no-appendfsync-on-rewrite)

	wmu sync.Mutex

	mu       sync.Mutex
	cond     *sync.Cond // signalled when a group commit ends
	buf      []byte     // appended, not yet handed to a writer
	spare    []byte     // the previous buffer, reused
	appended uint64     // bytes appended since Open: Append's sequence numbers
	written  uint64     // of those, bytes written to the files
	synced   uint64     // of those, bytes known fsynced
	leader   bool       // a WaitDurable group commit is writing and syncing
	file     File
	fileName string
	incrSize int64 // aof_last_incr_size: bytes in the current incr file
	curSize  int64 // aof_current_size
	baseSize int64 // aof_rewrite_base_size
	db       int   // the database the stream has SELECTed; -1 none yet
	lastTS   int64 // the last #TS: written
	manifest *Manifest

	writeErr error // aof_last_write_status: the last write failed
	fsyncErr error // aof_bio_fsync_status: the last background fsync failed
	fatal    error // a write or fsync error under appendfsync always
	errLog   time.Time

	rewrite         *Rewrite
	rewrites        int64
	rewriteFailures int64
	lastRewriteOK   bool
	lastRewriteTime time.Duration
	rewritten       bool // a rewrite has ended (lastRewriteTime is set)
	delayedFsync    int64
	pendingFsync    atomic.Int64
	// waiting is AOF_WAIT_REWRITE: enabled at run time, appending to a
	// temp incr file the manifest does not name until the first rewrite
	// commits.
	waiting    bool
	closed     bool
	stop, done chan struct{}
}

// Open opens o's AOF directory for appending as Redis 7.0 does at start
// after loading (aofOpenIfNeededOnServerStart): it creates the directory,
// writes a base with initialBase when the manifest has neither base nor
// incr files (the dataset at that moment, empty at a fresh start),
// reopens the last incr file or creates the first, persists the manifest
// and deletes history files unless aof-disable-auto-gc.
func Open(o Options, initialBase func(w io.Writer, kind BaseKind) error) (*Log, error) {
	l, m, err := newLog(o)
	if err != nil {
		return nil, err
	}
	log := o.logger()
	dirty := false
	hadIncr := len(m.Incr) > 0
	if m.Base == nil && len(m.Incr) == 0 {
		if initialBase == nil {
			return nil, errors.New("aof: Open needs a base writer for an empty AOF directory")
		}
		b := m.newBase(o.FileName, o.UseRDBPreamble)
		if err := writeBaseFile(&l.o, tempBaseName(), b.Name, l.kind(), initialBase); err != nil {
			return nil, err
		}
		log.Info(fmt.Sprintf("Creating AOF base file %s on server start", b.Name))
		dirty = true
	}
	if len(m.Incr) == 0 {
		m.newIncr(o.FileName)
		dirty = true
	}
	last := m.Incr[len(m.Incr)-1]
	f, err := l.o.openFile(l.o.path(last.Name))
	if err != nil {
		return nil, failf(err, "Can't open the append-only file %s: %s", last.Name)
	}
	if dirty {
		if err := writeManifest(&l.o, m); err != nil {
			f.Close()
			return nil, err
		}
	}
	l.file, l.fileName, l.manifest = f, last.Name, m
	l.incrSize = fileSize(l.o.path(last.Name))
	if m.Base != nil {
		l.baseSize = fileSize(l.o.path(m.Base.Name))
	}
	l.curSize = l.baseSize
	for _, in := range m.Incr {
		l.curSize += fileSize(l.o.path(in.Name))
	}
	if hadIncr {
		log.Info(fmt.Sprintf("Opening AOF incr file %s on server start", last.Name))
	} else {
		log.Info(fmt.Sprintf("Creating AOF incr file %s on server start", last.Name))
	}
	l.mu.Lock()
	l.deleteHistoryLocked()
	l.mu.Unlock()
	go l.background()
	return l, nil
}

// newLog prepares a Log on o's directory and reads its manifest.
func newLog(o Options) (*Log, *Manifest, error) {
	l := &Log{o: o, db: -1, lastRewriteOK: true, stop: make(chan struct{}), done: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	l.fsync.Store(int32(o.Fsync))
	l.noFsyncOnRewrite.Store(o.NoFsyncOnRewrite)
	l.timestamps.Store(o.TimestampEnabled)
	l.rdbPreamble.Store(o.UseRDBPreamble)
	l.disableGC.Store(o.DisableAutoGC)
	if err := mkdir(&l.o); err != nil {
		return nil, nil, err
	}
	m, err := ReadManifest(o)
	if err != nil {
		return nil, nil, err
	}
	removeTemps(&l.o)
	return l, m, nil
}

// Enable turns the AOF on at run time (CONFIG SET appendonly yes), as
// Redis's startAppendOnly: appends go at once to a temp incr file that no
// manifest names, and the returned rewrite must write the base of the
// dataset at this point. Only its Commit names both in the manifest (and
// makes every earlier file history), so a crash before leaves the
// previous manifest, which the dataset had already left behind, to be
// replaced by the next successful rewrite; a failed rewrite is retried
// with BeginRewrite, which starts the temp file over. As with
// BeginRewrite, the caller holds writers still from its snapshot until
// Enable returns.
func Enable(o Options) (*Log, *Rewrite, error) {
	l, m, err := newLog(o)
	if err != nil {
		return nil, nil, err
	}
	name := tempIncrName(o.FileName)
	os.Remove(l.o.path(name))
	f, err := l.o.openFile(l.o.path(name))
	if err != nil {
		return nil, nil, failf(err, "Can't open the append-only file %s: %s", name)
	}
	l.file, l.fileName, l.manifest, l.waiting = f, name, m, true
	h := l.startRewriteLocked()
	l.o.logger().Info(fmt.Sprintf("Creating AOF incr file %s on background rewrite", name))
	go l.background()
	return l, h, nil
}

func tempIncrName(appendFilename string) string { return tempPrefix + appendFilename + incrSuffix }

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// removeTemps deletes the temporary bases an interrupted rewrite left and
// the temp incr file of an AOF enabled at run time whose first rewrite
// never committed (the dataset it followed is gone with the process).
func removeTemps(o *Options) {
	os.Remove(o.path(tempIncrName(o.FileName)))
	ents, err := os.ReadDir(o.dirPath())
	if err != nil {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tempRewritePrefix) {
			os.Remove(o.path(e.Name()))
		}
	}
}

// Waiting reports AOF_WAIT_REWRITE: the log was enabled at run time and
// its first rewrite has not committed, so the files hold no whole dataset
// yet.
func (l *Log) Waiting() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting
}

// The setters follow CONFIG SET.
func (l *Log) SetFsync(p Fsync)              { l.fsync.Store(int32(p)) }
func (l *Log) SetNoFsyncOnRewrite(v bool)    { l.noFsyncOnRewrite.Store(v) }
func (l *Log) SetTimestampEnabled(v bool)    { l.timestamps.Store(v) }
func (l *Log) SetUseRDBPreamble(v bool)      { l.rdbPreamble.Store(v) }
func (l *Log) SetDisableAutoGC(v bool)       { l.disableGC.Store(v) }
func (l *Log) SetBackgroundSaving(busy bool) { l.childActive.Store(busy) }

// Append adds one command (or a MULTI…EXEC block) in RESP multibulk form
// to the buffer, preceded by a #TS: annotation when aof-timestamp-enabled
// and the second has changed, and by SELECT when db differs from the
// stream's (db < 0: p needs none). p is copied. The returned sequence
// number is what WaitDurable waits for.
func (l *Log) Append(db int, p []byte) uint64 {
	l.mu.Lock()
	n := len(l.buf)
	if l.timestamps.Load() {
		if now := l.o.now().Unix(); now > l.lastTS {
			l.lastTS = now
			l.buf = append(l.buf, "#TS:"...)
			l.buf = strconv.AppendInt(l.buf, now, 10)
			l.buf = append(l.buf, '\r', '\n')
		}
	}
	if db >= 0 && db != l.db {
		l.buf = propagate.AppendCommand(l.buf, "SELECT", strconv.Itoa(db))
		l.db = db
	}
	l.buf = append(l.buf, p...)
	l.appended += uint64(len(l.buf) - n)
	seq := l.appended
	l.mu.Unlock()
	return seq
}

// Flush writes what was appended, without fsync, as Redis does before it
// sends replies (beforeSleep). Under appendfsync always it is
// WaitDurable of everything appended. A failed write keeps the bytes for
// the next Flush and sets WritesRefused.
func (l *Log) Flush() error {
	if Fsync(l.fsync.Load()) == FsyncAlways {
		l.mu.Lock()
		seq := l.appended
		l.mu.Unlock()
		return l.WaitDurable(seq)
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fatal != nil {
		return l.fatal
	}
	if l.closed {
		return ErrClosed
	}
	l.writeLocked(false)
	return l.writeErr
}

// ErrClosed: the Log was closed (appendonly no, shutdown).
var ErrClosed = errors.New("aof: closed")

// WaitDurable returns once every byte up to seq is written and, under
// appendfsync always, fdatasynced (unless no-appendfsync-on-rewrite
// holds it back during a rewrite or BGSAVE, as Redis). Group commit: the
// first waiter becomes the leader and writes and syncs the whole buffer
// at once, outside mu; waiters arriving meanwhile append to the next
// group and wait; one sync serves them all. Under the other policies it
// writes like Flush. An error under always is fatal: Redis exits rather
// than acknowledge a write it could not persist.
func (l *Log) WaitDurable(seq uint64) error {
	if Fsync(l.fsync.Load()) != FsyncAlways {
		l.mu.Lock()
		covered := l.written >= seq
		l.mu.Unlock()
		if covered {
			return nil
		}
		return l.Flush()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		if l.fatal != nil {
			return l.fatal
		}
		if l.synced >= seq {
			return nil
		}
		if l.closed {
			return ErrClosed
		}
		if l.leader {
			l.cond.Wait()
			continue
		}
		l.leader = true
		l.mu.Unlock()
		l.wmu.Lock()
		l.mu.Lock()
		l.writeLocked(false)
		if l.writeErr != nil && l.fatal == nil {
			// Only when the policy left always meanwhile: not fatal, the
			// bytes stay buffered for the next try.
			err := l.writeErr
			l.wmu.Unlock()
			l.leader = false
			l.cond.Broadcast()
			return err
		}
		skip := l.fsyncHeldBack()
		f, upTo := l.file, l.written
		var err error
		if l.fatal == nil && !skip && l.synced < upTo {
			l.mu.Unlock()
			err = f.Sync()
			l.mu.Lock()
		}
		switch {
		case err != nil:
			l.fatal = failf(err, "Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. Exiting...")
			l.o.logger().Error(l.fatal.Error())
		case l.fatal == nil:
			// Held back syncs count as done: Redis replies without them.
			if upTo > l.synced {
				l.synced = upTo
			}
		}
		l.wmu.Unlock()
		l.leader = false
		l.cond.Broadcast()
	}
}

// fsyncHeldBack is no-appendfsync-on-rewrite during a rewrite or BGSAVE.
func (l *Log) fsyncHeldBack() bool {
	return l.noFsyncOnRewrite.Load() && (l.rewrite != nil || l.childActive.Load())
}

// writeLocked writes the buffer to the file; the caller holds wmu and mu.
// mu is released around the write(2) so that appends go on (wmu keeps the
// file and the order), unless hold: a rotation writes the last bytes of
// the old file without letting an Append in. A partial write is cut off the file again (so the
// file ends on a command boundary) or, if that fails, its bytes are
// counted as written and dropped from the buffer; the rest is kept for
// the next try. Under always, a failure is fatal.
func (l *Log) writeLocked(hold bool) {
	if len(l.buf) == 0 || l.fatal != nil || l.closed {
		return
	}
	p := l.buf
	l.buf, l.spare = l.spare[:0], nil
	f := l.file
	if !hold {
		l.mu.Unlock()
	}
	if l.o.FlushSleep != nil {
		if d := l.o.FlushSleep(); d > 0 {
			time.Sleep(d)
		}
	}
	n, err := f.Write(p)
	if !hold {
		l.mu.Lock()
	}
	log := l.o.logger()
	if err == nil && n == len(p) {
		if l.writeErr != nil {
			log.Warn("AOF write error looks solved, Redis can write again.")
			l.writeErr = nil
		}
		l.account(n)
		l.spare = p[:0]
		return
	}
	canLog := time.Since(l.errLog) > 30*time.Second
	if canLog {
		l.errLog = time.Now()
	}
	if n <= 0 {
		if canLog {
			log.Warn("Error writing to the AOF file: " + strerror(err))
		}
		l.writeErr = errOrShort(err)
		n = 0
	} else {
		if canLog {
			log.Warn(fmt.Sprintf("Short write while writing to the AOF file: (nwritten=%d, expected=%d)", n, len(p)))
		}
		if terr := f.Truncate(l.incrSize); terr != nil {
			if canLog {
				log.Warn("Could not remove short write from the append-only file.  Redis may refuse to load the AOF the next time it starts.  ftruncate: " + strerror(terr))
			}
		} else {
			n = 0
		}
		l.writeErr = syscall.ENOSPC
	}
	if Fsync(l.fsync.Load()) == FsyncAlways {
		l.fatal = errors.New("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...")
		log.Error(l.fatal.Error())
	}
	l.account(n)
	// What was not written goes back in front of what came meanwhile.
	l.buf = append(p[n:len(p):len(p)], l.buf...)
}

func errOrShort(err error) error {
	if err == nil {
		return syscall.ENOSPC
	}
	return err
}

func (l *Log) account(n int) {
	l.written += uint64(n)
	l.incrSize += int64(n)
	l.curSize += int64(n)
}

// Err is the error that stops writes, if any: a failed write or
// background fsync (cleared when a later one succeeds), or a fatal error
// under appendfsync always (the caller should exit, as Redis does).
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.fatal != nil:
		return l.fatal
	case l.writeErr != nil:
		return l.writeErr
	}
	return l.fsyncErr
}

// WritesRefused is the error reply, without '-' and CRLF, that write
// commands and PING get while the AOF cannot be written (Redis's
// writeCommandsDeniedByDiskError), or "" when they are accepted.
func (l *Log) WritesRefused() string {
	if cause := l.WriteError(); cause != "" {
		return "MISCONF Errors writing to the AOF file: " + cause
	}
	return ""
}

// WriteError is the cause of WritesRefused, in strerror's words (Redis's
// aof_last_write_errno), or "".
func (l *Log) WriteError() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.writeErr
	if err == nil {
		err = l.fsyncErr
	}
	if err == nil {
		return ""
	}
	return strerror(err)
}

// background is Redis's once-a-second work off the event loops: under
// everysec, write anything not yet written and fdatasync; under any
// policy, retry a failed write.
func (l *Log) background() {
	defer close(l.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.tick()
		}
	}
}

// tick is one second of background work.
func (l *Log) tick() {
	policy := Fsync(l.fsync.Load())
	l.mu.Lock()
	retry := l.writeErr != nil
	l.mu.Unlock()
	if policy == FsyncEverySec || retry {
		l.wmu.Lock()
		l.mu.Lock()
		l.writeLocked(false)
		l.mu.Unlock()
		l.wmu.Unlock()
	}
	if policy == FsyncEverySec {
		l.SyncNow()
	}
}

// SyncNow is the everysec fsync: fdatasync of the current file when
// written bytes are not yet synced, unless no-appendfsync-on-rewrite holds
// it back. A failure refuses writes until a later fsync succeeds.
func (l *Log) SyncNow() {
	l.mu.Lock()
	if l.written == l.synced || l.fsyncHeldBack() || l.closed {
		l.mu.Unlock()
		return
	}
	f, upTo := l.file, l.written
	l.mu.Unlock()
	l.pendingFsync.Add(1)
	start := time.Now()
	err := f.Sync()
	l.pendingFsync.Add(-1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(start) > 2*time.Second {
		l.delayedFsync++
	}
	if err != nil && !errors.Is(err, os.ErrClosed) {
		if l.fsyncErr == nil {
			l.o.logger().Warn("Fail to fsync the AOF file: " + strerror(err))
		}
		l.fsyncErr = err
		return
	}
	l.fsyncErr = nil
	if upTo > l.synced {
		l.synced = upTo
	}
}

// Close writes and fsyncs what is buffered and closes the file
// (stopAppendOnly).
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writeLocked(false)
	l.closed = true
	err := l.file.Sync()
	if err != nil {
		l.o.logger().Warn("Fail to fsync the AOF file: " + strerror(err))
	}
	if cerr := l.file.Close(); err == nil {
		err = cerr
	}
	if err == nil && l.writeErr != nil {
		err = l.writeErr
	}
	return err
}

// kind is the base a rewrite writes now.
func (l *Log) kind() BaseKind {
	if l.rdbPreamble.Load() {
		return BaseRDB
	}
	return BaseAOF
}
