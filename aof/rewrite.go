package aof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// BaseKind is the format of a base file.
type BaseKind int

// The two kinds of base, chosen by aof-use-rdb-preamble.
const (
	BaseRDB BaseKind = iota // an RDB file: <name>.<seq>.base.rdb
	BaseAOF                 // AOF commands: <name>.<seq>.base.aof
)

// tempRewritePrefix names the base being written, as Redis's
// temp-rewriteaof-bg-<pid>.aof; it lives in the AOF directory so the
// rename into place stays on one file system.
const tempRewritePrefix = "temp-rewriteaof-"

func tempBaseName() string {
	return tempRewritePrefix + "bg-" + strconv.Itoa(os.Getpid()) + ".aof"
}

// Rewrite is a rewrite in progress (BGREWRITEAOF without fork): the Log
// appends to a new incr file while the caller writes the base of the
// dataset as it was when BeginRewrite rotated.
type Rewrite struct {
	l       *Log
	kind    BaseKind
	tmp     string
	started time.Time
	wrote   bool
	done    bool
}

// ErrRewriteInProgress: one rewrite at a time, as Redis.
var ErrRewriteInProgress = errors.New("Background append only file rewriting already in progress")

// BeginRewrite writes out the buffer, opens the next incr file (persisting
// the manifest that names it) and makes every later Append go there, as
// Redis does before it forks. The caller must hold its writers still
// (the engine's exclusive gate) from the point-in-time snapshot the base
// is written from until BeginRewrite returns, so that each write is in
// exactly one of the base and the new incr file.
func (l *Log) BeginRewrite() (*Rewrite, error) {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rewrite != nil {
		return nil, ErrRewriteInProgress
	}
	if l.closed {
		return nil, ErrClosed
	}
	if l.waiting {
		// Everything so far is in the base about to be written: the temp
		// incr file starts over.
		l.buf = l.buf[:0]
		l.written, l.synced = l.appended, l.appended
		if err := l.file.Truncate(0); err != nil {
			l.lastRewriteOK = false
			l.rewriteFailures++
			return nil, failf(err, "Can't truncate the append-only file %s: %s", l.fileName)
		}
		l.incrSize, l.db = 0, -1
		return l.startRewriteLocked(), nil
	}
	l.writeLocked(true)
	if l.fatal != nil || len(l.buf) > 0 {
		// Bytes from before the rotation point must not land in the new
		// file, which is replayed after the new base.
		l.lastRewriteOK = false
		l.rewriteFailures++
		if l.fatal != nil {
			return nil, l.fatal
		}
		return nil, l.writeErr
	}
	if err := l.rotateLocked(); err != nil {
		l.lastRewriteOK = false
		l.rewriteFailures++
		return nil, err
	}
	return l.startRewriteLocked(), nil
}

func (l *Log) startRewriteLocked() *Rewrite {
	l.rewrites++
	h := &Rewrite{l: l, kind: l.kind(), tmp: tempBaseName(), started: time.Now()}
	l.rewrite = h
	return h
}

// rotateLocked is openNewIncrAofForAppend: the new file first, then the
// manifest naming it; only when both succeed does the Log switch, and the
// old file is fsynced and closed off the caller's path.
func (l *Log) rotateLocked() error {
	m := l.manifest.Clone()
	nf := m.newIncr(l.o.FileName)
	path := l.o.path(nf.Name)
	os.Remove(path) // O_TRUNC: a file left by a crash before its manifest
	f, err := l.o.openFile(path)
	if err != nil {
		return failf(err, "Can't open the append-only file %s: %s", nf.Name)
	}
	if err := writeManifest(&l.o, m); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	l.o.logger().Info(fmt.Sprintf("Creating AOF incr file %s on background rewrite", nf.Name))
	old := l.file
	if Fsync(l.fsync.Load()) == FsyncAlways && !l.fsyncHeldBack() {
		// Waiters on bytes of the old file are answered by this sync.
		if err := old.Sync(); err != nil {
			l.fatal = failf(err, "Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. Exiting...")
		}
	}
	// Under everysec it is fine to sync the old file later, as long as it
	// is synced: a close job, off the caller's path.
	l.pendingFsync.Add(1)
	go func() {
		defer l.pendingFsync.Add(-1)
		old.Sync()
		old.Close()
	}()
	l.synced = l.written
	l.file, l.fileName, l.manifest = f, nf.Name, m
	l.incrSize = 0
	l.db = -1 // the new file starts without a SELECT
	return nil
}

// Kind is the base format this rewrite writes.
func (h *Rewrite) Kind() BaseKind { return h.kind }

// WriteBase writes the base to a temporary file with write (an RDB when
// Kind is BaseRDB, else AOF commands, which a #TS: annotation precedes
// when aof-timestamp-enabled), then fsyncs and closes it.
func (h *Rewrite) WriteBase(write func(w io.Writer, kind BaseKind) error) error {
	l := h.l
	if err := writeTemp(&l.o, h.tmp, h.kind, stamped(&l.o, h.kind, l.timestamps.Load(), write)); err != nil {
		return err
	}
	h.wrote = true
	return nil
}

// stamped is write preceded, in a command-form base under
// aof-timestamp-enabled, by the #TS: annotation of the rewrite's time.
func stamped(o *Options, kind BaseKind, timestamps bool, write func(w io.Writer, kind BaseKind) error) func(w io.Writer, kind BaseKind) error {
	if kind != BaseAOF || !timestamps {
		return write
	}
	return func(w io.Writer, kind BaseKind) error {
		if _, err := fmt.Fprintf(w, "#TS:%d\r\n", o.now().Unix()); err != nil {
			return err
		}
		return write(w, kind)
	}
}

// writeTemp writes a temporary base file and makes it durable.
func writeTemp(o *Options, tmp string, kind BaseKind, write func(w io.Writer, kind BaseKind) error) error {
	path := o.path(tmp)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return failf(err, "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s")
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw, kind)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return failf(err, "Write error writing append only file on disk: %s")
	}
	return nil
}

// writeBaseFile writes a base at start (rewriteAppendOnlyFile): temp
// file, fsync, rename to name.
func writeBaseFile(o *Options, tmp, name string, kind BaseKind, write func(w io.Writer, kind BaseKind) error) error {
	if err := writeTemp(o, tmp, kind, write); err != nil {
		return err
	}
	if err := os.Rename(o.path(tmp), o.path(name)); err != nil {
		os.Remove(o.path(tmp))
		return failf(err, "Error moving temp append only file on the final destination: %s")
	}
	return nil
}

// Commit makes the new base current (backgroundRewriteDoneHandler): the
// temp base is renamed to the next base name, the old base and the incr
// files before the one BeginRewrite opened become history, and the new
// manifest is persisted atomically; then history files are deleted unless
// aof-disable-auto-gc. Until the manifest's rename the previous manifest
// and its files are intact, so a crash at any step leaves a loadable
// directory.
func (h *Rewrite) Commit() error {
	l := h.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.done {
		return errors.New("aof: rewrite already ended")
	}
	if !h.wrote || l.closed {
		h.failLocked()
		if l.closed {
			return ErrClosed
		}
		return errors.New("aof: Commit before WriteBase")
	}
	log := l.o.logger()
	m := l.manifest.Clone()
	base := m.newBase(l.o.FileName, h.kind == BaseRDB)
	tmpPath, basePath := l.o.path(h.tmp), l.o.path(base.Name)
	if err := os.Rename(tmpPath, basePath); err != nil {
		h.failLocked()
		return failf(err, "Error trying to rename the temporary AOF base file %s into %s: %s", h.tmp, base.Name)
	}
	log.Info(fmt.Sprintf("Successfully renamed the temporary AOF base file %s into %s", h.tmp, base.Name))
	incrName := l.fileName
	if l.waiting {
		// The temp incr file gets its name in the manifest now; the open
		// file goes on being appended to under it.
		incrName = m.newIncr(l.o.FileName).Name
		if err := os.Rename(l.o.path(l.fileName), l.o.path(incrName)); err != nil {
			os.Remove(basePath)
			h.failLocked()
			return failf(err, "Error trying to rename the temporary AOF incr file %s into %s: %s", l.fileName, incrName)
		}
		log.Info(fmt.Sprintf("Successfully renamed the temporary AOF incr file %s into %s", l.fileName, incrName))
	}
	// Only the current incr file stays.
	m.historyBefore(1)
	if err := writeManifest(&l.o, m); err != nil {
		if l.waiting {
			os.Rename(l.o.path(incrName), l.o.path(l.fileName))
		}
		os.Remove(basePath)
		h.failLocked()
		return err
	}
	l.manifest, l.fileName, l.waiting = m, incrName, false
	l.baseSize = fileSize(basePath) + l.incrSize
	l.curSize = l.baseSize
	l.deleteHistoryLocked()
	h.done = true
	l.rewrite = nil
	l.lastRewriteOK = true
	l.rewriteFailures = 0
	l.lastRewriteTime = time.Since(h.started)
	l.rewritten = true
	log.Info("Background AOF rewrite finished successfully")
	return nil
}

// Abort ends a failed rewrite: the temporary base is removed and the
// manifest stays as it is (with the incr file BeginRewrite opened, as
// Redis keeps it after a failed rewrite).
func (h *Rewrite) Abort() {
	l := h.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.done {
		return
	}
	l.o.logger().Warn("Background AOF rewrite terminated with error")
	h.failLocked()
}

func (h *Rewrite) failLocked() {
	l := h.l
	os.Remove(l.o.path(h.tmp))
	h.done = true
	l.rewrite = nil
	l.lastRewriteOK = false
	l.rewriteFailures++
	l.lastRewriteTime = time.Since(h.started)
	l.rewritten = true
}

// deleteHistoryLocked is aofDelHistoryFiles: unless aof-disable-auto-gc,
// remove the history files and persist the manifest without them. A
// failure leaves them listed as history, which loading ignores.
func (l *Log) deleteHistoryLocked() {
	if !l.disableGC.Load() {
		l.manifest = deleteHistory(&l.o, l.manifest)
	}
}

// deleteHistory removes m's history files and returns the manifest
// persisted without them, or m when that failed.
func deleteHistory(o *Options, m *Manifest) *Manifest {
	if len(m.History) == 0 {
		return m
	}
	next := m.Clone()
	for _, f := range next.History {
		o.logger().Info(fmt.Sprintf("Removing the history file %s in the background", f.Name))
		os.Remove(o.path(f.Name))
	}
	next.History = nil
	if err := writeManifest(o, next); err != nil {
		o.logger().Warn(err.Error())
		return m
	}
	return next
}

// RewriteWhileOff is BGREWRITEAOF while appendonly is no, which Redis 7.0
// runs all the same: write's base of the dataset becomes the manifest's
// base and every earlier file history (deleted unless
// aof-disable-auto-gc). No incr file is opened, as none follows the
// dataset while the AOF is off; a start with appendonly yes loads the
// base. The base is written as a rewrite's: a temp file, fsynced, renamed,
// then the manifest replaced atomically, so a crash at any step leaves
// the previous manifest and its files.
func RewriteWhileOff(o Options, write func(w io.Writer, kind BaseKind) error) error {
	if err := mkdir(&o); err != nil {
		return err
	}
	m, err := ReadManifest(o)
	if err != nil {
		return err
	}
	kind := BaseAOF
	if o.UseRDBPreamble {
		kind = BaseRDB
	}
	tmp := tempBaseName()
	if err := writeTemp(&o, tmp, kind, stamped(&o, kind, o.TimestampEnabled, write)); err != nil {
		return err
	}
	log := o.logger()
	m = m.Clone()
	base := m.newBase(o.FileName, kind == BaseRDB)
	if err := os.Rename(o.path(tmp), o.path(base.Name)); err != nil {
		os.Remove(o.path(tmp))
		return failf(err, "Error trying to rename the temporary AOF base file %s into %s: %s", tmp, base.Name)
	}
	log.Info(fmt.Sprintf("Successfully renamed the temporary AOF base file %s into %s", tmp, base.Name))
	m.historyBefore(0)
	if err := writeManifest(&o, m); err != nil {
		os.Remove(o.path(base.Name))
		return err
	}
	if !o.DisableAutoGC {
		deleteHistory(&o, m)
	}
	log.Info("Background AOF rewrite finished successfully")
	return nil
}
