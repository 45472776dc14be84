package services

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/aof"
	"github.com/tandemkv/tandem/aof/cmdbase"
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/snapshot"
)

// AppendOnly is the append-only file (package aof) fed by the write
// stream: a sink of Stream while appendonly is yes. It loads the AOF at
// start through a Replayer (the Redis front-end's: the commands are
// Redis commands), writes every batch's effects before the batch's
// replies go out (group commit under appendfsync always), and rewrites
// it forklessly from the engine's point-in-time capture (BGREWRITEAOF,
// auto-aof-rewrite-*, CONFIG SET appendonly yes).
type AppendOnly struct {
	s *Services

	mu        sync.Mutex              // guards the fields below
	log       *aof.Log                // nil while appendonly is no
	cur       atomic.Pointer[aof.Log] // log, read without mu by every write (WritesRefused)
	sink      *aofSink
	rewriting bool
	scheduled bool // BGREWRITEAOF while a BGSAVE ran: started when it ends
	// offDone, while a rewrite runs with appendonly no, is closed when it
	// ends; off counts those rewrites for INFO.
	offDone chan struct{}
	off     offRewrites
	loaded  aof.LoadStats
	// flushSleep is DEBUG AOF-FLUSH-SLEEP's microseconds (aof.Options.FlushSleep).
	flushSleep atomic.Int64
}

// SetFlushSleep is DEBUG AOF-FLUSH-SLEEP: every write of the log's buffer
// sleeps usec microseconds first (0: none).
func (a *AppendOnly) SetFlushSleep(usec int) { a.flushSleep.Store(int64(usec)) }

func (a *AppendOnly) flushSleepFor() time.Duration {
	return time.Duration(a.flushSleep.Load()) * time.Microsecond
}

// Replayer runs the commands an AOF or a master's stream holds
// (resp.Replay).
type Replayer interface {
	Apply(args [][]byte) error
}

func newAppendOnly(s *Services) *AppendOnly { return &AppendOnly{s: s} }

// options are the aof package's options from the configuration.
func (a *AppendOnly) options() aof.Options {
	c := a.s.Config
	return aof.Options{Dir: c.Dir(), DirName: c.AppendDirname(), FileName: c.AppendFilename(),
		Fsync: fsyncOf(c), UseRDBPreamble: c.AOFUseRDBPreamble(), TimestampEnabled: c.AOFTimestampEnabled(),
		LoadTruncated: c.AOFLoadTruncated(), NoFsyncOnRewrite: c.NoAppendFsyncOnRewrite(),
		DisableAutoGC: c.AOFDisableAutoGC(), Logger: a.s.Log, FlushSleep: a.flushSleepFor}
}

func fsyncOf(c *conf.Config) aof.Fsync {
	switch c.AppendFsync() {
	case "always":
		return aof.FsyncAlways
	case "no":
		return aof.FsyncNo
	}
	return aof.FsyncEverySec
}

// Enabled reports whether the AOF is on.
func (a *AppendOnly) Enabled() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.log != nil
}

// LoadAtStart loads the AOF when appendonly is yes (Redis then ignores
// the RDB dump) and opens it for appending; it reports whether it did, so
// the caller loads the dump otherwise. Its error — a corrupt file, a cut
// tail without aof-load-truncated, an unknown command — names the file
// and offset, and must stop start-up.
func (a *AppendOnly) LoadAtStart(r Replayer) (bool, error) {
	if !a.s.Config.AppendOnly() {
		return false, nil
	}
	o := a.options()
	stats, err := a.load(o, r)
	if err != nil {
		return true, err
	}
	log, err := aof.Open(o, func(w io.Writer, kind aof.BaseKind) error {
		return cmdbase.WriteBase(w, kind, func(w io.Writer) error {
			_, err := a.s.Persist.WriteRDB(w, nil)
			return err
		})
	})
	if err != nil {
		return true, err
	}
	a.mu.Lock()
	a.loaded = stats
	a.attachLocked(log)
	a.mu.Unlock()
	return true, nil
}

// load reads the directory o names into the keyspace: the base through
// the RDB loader, the commands through r.
func (a *AppendOnly) load(o aof.Options, r Replayer) (aof.LoadStats, error) {
	start := time.Now()
	stats, err := aof.Load(o, aof.LoadCallbacks{
		Base: func(br *bufio.Reader) error {
			_, err := a.s.Persist.ReadRDB(br, snapshot.OntoMerge)
			return err
		},
		Command: func(args [][]byte) error {
			if err := r.Apply(args); err != nil {
				return fmt.Errorf("%w: %v", aof.ErrUnknownCommand, err)
			}
			snapshot.DebugDelay(a.s.Config.KeyLoadDelay())
			return nil
		},
		Progress: a.s.Loading,
	})
	if err == nil && stats.Status != aof.LoadNotExist {
		a.s.Log.Info("DB loaded from append only file", "seconds", time.Since(start).Seconds(), "commands", stats.Commands)
	}
	return stats, err
}

// ErrNoAOF is DEBUG LOADAOF's refusal when the directory holds no AOF.
var ErrNoAOF = errors.New("ERR no append only file to load")

// Reload is DEBUG LOADAOF, for a caller that holds the keyspace
// exclusively: the log's buffer is written (under appendfsync always,
// synced), then the keyspace and the functions are emptied and the
// directory loaded again through r, whose writes must feed no sink (as
// Redis's loading, server.dirty = 0). Where Redis exits — no AOF, or one
// that does not load — Tandem refuses: with no AOF before emptying
// anything; with a damaged one, keeping what it loaded, the error naming
// the file and offset.
func (a *AppendOnly) Reload(r Replayer) error {
	a.mu.Lock()
	log := a.log
	a.mu.Unlock()
	if log != nil {
		if err := log.Flush(); err != nil {
			return err
		}
	}
	o := a.options()
	if !aof.Exists(o) {
		return ErrNoAOF
	}
	a.s.Engine.FlushAll()
	a.s.Scripts.Functions.Flush()
	_, err := a.load(o, r)
	if err == nil {
		a.s.Log.Warn("Append Only File loaded by DEBUG LOADAOF")
	}
	return err
}

// attachLocked makes log the stream's AOF sink.
func (a *AppendOnly) attachLocked(log *aof.Log) {
	a.log = log
	a.cur.Store(log)
	a.sink = newAOFSink(log, fsyncOf(a.s.Config) == aof.FsyncAlways, a.s.Log)
	a.s.Stream.Add(a.sink)
}

// Start turns the AOF on at run time (CONFIG SET appendonly yes): the log
// starts at a rewrite's cut, as Redis's startAppendOnly, and is named in
// the manifest once that rewrite's base is written.
func (a *AppendOnly) Start() error {
	a.mu.Lock()
	for a.offDone != nil { // a BGREWRITEAOF of appendonly no: the log starts from a rewrite of its own
		done := a.offDone
		a.mu.Unlock()
		<-done
		a.mu.Lock()
	}
	if a.log != nil || a.rewriting {
		a.mu.Unlock()
		return nil
	}
	a.rewriting = true
	a.mu.Unlock()
	var log *aof.Log
	err := a.rewrite(func() (*aof.Rewrite, error) {
		l, h, err := aof.Enable(a.options())
		if err == nil {
			log = l
			a.mu.Lock()
			a.attachLocked(l)
			a.mu.Unlock()
		}
		return h, err
	})
	if err != nil && log == nil {
		a.mu.Lock()
		a.rewriting = false
		a.mu.Unlock()
	}
	return err
}

// Stop turns the AOF off (CONFIG SET appendonly no): the stream stops
// feeding it and it is written, synced and closed.
func (a *AppendOnly) Stop() {
	a.mu.Lock()
	log, sink := a.log, a.sink
	a.log, a.sink = nil, nil
	a.cur.Store(nil)
	a.mu.Unlock()
	if log == nil {
		return
	}
	a.s.Stream.Remove(sink)
	if err := log.Close(); err != nil {
		a.s.Log.Warn("closing the append only file", "err", err)
	}
}

// WritingInitial reports that the AOF, enabled at run time, waits for its
// first rewrite (Redis's AOF_WAIT_REWRITE): a shutdown then would leave
// no AOF of the dataset.
func (a *AppendOnly) WritingInitial() bool {
	a.mu.Lock()
	log := a.log
	a.mu.Unlock()
	return log != nil && log.Waiting()
}

// Close writes and syncs the AOF at shutdown.
func (a *AppendOnly) Close() { a.Stop() }

// ErrRewriteInProgress is BGREWRITEAOF's refusal while one runs.
var ErrRewriteInProgress = errors.New("ERR Background append only file rewriting already in progress")

// BGRewrite starts a rewrite in the background (BGREWRITEAOF), replying
// as Redis: started, or scheduled while a BGSAVE runs.
func (a *AppendOnly) BGRewrite() (string, error) {
	a.mu.Lock()
	if a.rewriting {
		a.mu.Unlock()
		return "", ErrRewriteInProgress
	}
	if a.s.Persist.Info().BGSaveInProgress {
		a.scheduled = true
		a.mu.Unlock()
		return "Background append only file rewriting scheduled", nil
	}
	log := a.log
	a.rewriting = true
	var done chan struct{}
	if log == nil {
		done = make(chan struct{})
		a.offDone = done
	}
	a.mu.Unlock()
	go func() {
		var err error
		if log == nil {
			err = a.rewriteWhileOff(done)
		} else {
			err = a.rewrite(log.BeginRewrite)
		}
		if err != nil {
			a.s.Log.Warn("Background AOF rewrite failed", "err", err)
		}
	}()
	return "Background append only file rewriting started", nil
}

// rewriteWhileOff is BGREWRITEAOF with appendonly no: as Redis 7.0, it
// writes a new base into the AOF directory (no incr file follows it), so
// that a start with appendonly yes finds the dataset.
func (a *AppendOnly) rewriteWhileOff(done chan struct{}) error {
	start := time.Now()
	err := aof.RewriteWhileOff(a.options(), func(w io.Writer, kind aof.BaseKind) error {
		return cmdbase.WriteBase(w, kind, func(w io.Writer) error {
			_, err := a.s.Persist.WriteRDB(w, nil)
			return err
		})
	})
	a.mu.Lock()
	defer a.mu.Unlock()
	a.off.record(err, time.Since(start))
	a.rewriting, a.offDone = false, nil
	close(done)
	return err
}

// offRewrites are the INFO figures of rewrites run while appendonly is
// no, which Redis counts in the same fields as the others.
type offRewrites struct {
	count, failures int64
	failed, ran     bool
	last            time.Duration
}

func (o *offRewrites) record(err error, took time.Duration) {
	o.count++
	o.ran, o.last, o.failed = true, took, err != nil
	if err != nil {
		o.failures++
	} else {
		o.failures = 0
	}
}

// stats are INFO's rewrite fields while the AOF is off.
func (o *offRewrites) stats() aof.Stats {
	st := aof.Stats{LastWriteOK: true, LastBgrewriteOK: !o.failed, Rewrites: o.count, RewriteFailures: o.failures,
		LastRewriteTimeSec: -1, CurrentRewriteTimeSec: -1}
	if o.ran {
		st.LastRewriteTimeSec = int64(o.last / time.Second)
	}
	return st
}

// rewrite writes a new base from the keyspace at begin's instant: begin
// runs at the snapshot's cut (engine.SnapshotCut), where no command runs,
// so each write is in exactly one of the base and the new incr file. The
// dump goes to a deferred writer until begin returned the rewrite whose
// WriteBase names the file.
func (a *AppendOnly) rewrite(begin func() (*aof.Rewrite, error)) error {
	defer func() {
		a.mu.Lock()
		a.rewriting = false
		a.mu.Unlock()
	}()
	dw := &deferredWriter{}
	cut := make(chan struct{})
	var h *aof.Rewrite
	var beginErr error
	done := make(chan error, 1)
	go func() {
		_, err := a.s.Persist.WriteRDB(dw, func() {
			h, beginErr = begin()
			if beginErr != nil {
				dw.fail(beginErr)
			}
			close(cut)
		})
		done <- err
	}()
	select {
	case <-cut:
	case err := <-done: // failed before its cut
		return err
	}
	if beginErr != nil {
		<-done
		return beginErr
	}
	start := time.Now()
	err := h.WriteBase(func(w io.Writer, kind aof.BaseKind) error {
		return cmdbase.WriteBase(w, kind, func(w io.Writer) error {
			dw.attach(w)
			return <-done
		})
	})
	if err != nil {
		h.Abort()
		return err
	}
	if err := h.Commit(); err != nil {
		return err
	}
	a.s.Log.Info("Background AOF rewrite finished successfully", "seconds", time.Since(start).Seconds(),
		"dir", filepath.Join(a.s.Config.Dir(), a.s.Config.AppendDirname()))
	return nil
}

// Cron starts a scheduled rewrite once no BGSAVE runs, and an automatic
// one when the AOF grew auto-aof-rewrite-percentage over its base (and
// past auto-aof-rewrite-min-size), as Redis's serverCron.
func (a *AppendOnly) Cron() {
	a.mu.Lock()
	log, rewriting, scheduled := a.log, a.rewriting, a.scheduled
	a.mu.Unlock()
	if rewriting || a.s.Persist.Info().BGSaveInProgress {
		return
	}
	auto := false
	if log != nil {
		st := log.Stats()
		pct, min := a.s.Config.AutoAOFRewritePercentage(), a.s.Config.AutoAOFRewriteMinSize()
		base := max(st.BaseSize, 1)
		if auto = pct > 0 && st.CurrentSize > min && (st.CurrentSize-base)*100/base >= pct; auto {
			a.s.Log.Info("Starting automatic rewriting of AOF", "growth_percent", (st.CurrentSize-base)*100/base)
		}
	}
	if !scheduled && !auto {
		return
	}
	a.mu.Lock()
	a.scheduled = false
	a.mu.Unlock()
	a.BGRewrite() //nolint:errcheck // a rewrite already running is fine
}

// Run calls Cron ten times a second until ctx is done.
func (a *AppendOnly) Run(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			a.Cron()
		}
	}
}

// WritesRefused is the MISCONF reply writes get while the AOF cannot be
// written, or "".
func (a *AppendOnly) WritesRefused() string {
	if log := a.cur.Load(); log != nil {
		return log.WritesRefused()
	}
	return ""
}

// WriteError is the cause of WritesRefused, in strerror's words, or "".
func (a *AppendOnly) WriteError() string {
	if log := a.cur.Load(); log != nil {
		return log.WriteError()
	}
	return ""
}

// Info is what INFO persistence shows of the AOF.
type AOFInfo struct {
	Enabled, Rewriting, Scheduled bool
	Stats                         aof.Stats
}

// Info returns the AOF's INFO facts.
func (a *AppendOnly) Info() AOFInfo {
	a.mu.Lock()
	log := a.log
	in := AOFInfo{Enabled: log != nil, Rewriting: a.rewriting, Scheduled: a.scheduled, Stats: a.off.stats()}
	a.mu.Unlock()
	if log != nil {
		in.Stats = log.Stats()
	}
	return in
}

// deferredWriter holds what is written to it until attach (or target)
// names the writer it goes to, and fails every write after fail.
type deferredWriter struct {
	mu  sync.Mutex
	buf []byte
	w   io.Writer
	err error
}

func (d *deferredWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.err != nil:
		return 0, d.err
	case d.w != nil:
		if len(d.buf) > 0 {
			buf := d.buf
			d.buf = nil
			if _, err := d.w.Write(buf); err != nil {
				d.err = err
				return 0, err
			}
		}
		return d.w.Write(p)
	}
	d.buf = append(d.buf, p...)
	return len(p), nil
}

// target names the writer without writing to it: what is held goes with
// the next Write (the caller must not block here: the snapshot's cut).
func (d *deferredWriter) target(w io.Writer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.w = w
}

func (d *deferredWriter) attach(w io.Writer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := w.Write(d.buf); err != nil {
		d.err = err
	}
	d.buf, d.w = nil, w
}

func (d *deferredWriter) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.err = err
}
