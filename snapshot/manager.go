package snapshot

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// Manager runs persistence as Redis does: save rules checked ten times a
// second against the changes since the last save, BGSAVE in the
// background (one at a time; BGSAVE SCHEDULE queues one), SAVE in the
// foreground, and the facts INFO persistence and LASTSAVE report.
type Manager struct {
	eng       *engine.Engine
	cfg       *conf.Config
	log       *slog.Logger
	functions func() [][]byte
	loadFn    func([]byte, bool) error
	limits    func() engine.RestoreLimits
	repl      Replication
	progress  LoadProgress // follows loads of the file (Options.LoadProgress)

	mu           sync.Mutex
	saving       bool      // a save (SAVE or BGSAVE) runs
	bgStart      time.Time // when the running BGSAVE started
	scheduled    bool      // BGSAVE SCHEDULE waits for the running save
	dirtyAtSave  int64     // engine.Changes() when the last good save began
	dirtyAtStart int64     // engine.Changes() when the running save began
	lastSave     time.Time // the last good save (start time until one)
	lastTry      time.Time // the last BGSAVE attempt
	lastOK       bool      // the last BGSAVE succeeded
	rulesAt      time.Time // when due last checked the save rules
	lastBgSecs   int64     // its duration in seconds; -1 before any
	saves        int64
	lastLoaded   int64
	lastExpired  int64
	lastKeys     int64 // keys in the running or last save
	done         chan struct{}
	aborting     atomic.Bool // AbortBGSave: the running BGSAVE stops at its next key
}

// Options configure a Manager.
type Options struct {
	Engine *engine.Engine
	Config *conf.Config
	Logger *slog.Logger
	// Functions returns the FUNCTION libraries to save; Function loads one.
	Functions func() [][]byte
	Function  func(code []byte, replace bool) error
	// Limits returns the encoding thresholds configured now, which keys
	// loaded from a dump follow.
	Limits func() engine.RestoreLimits
	// Replication, when set, gives each save the replication position it
	// records and takes the one the dump loaded at start recorded.
	Replication Replication
	// LoadProgress, when set, follows every load of the dump file.
	LoadProgress LoadProgress
}

// New returns a manager; Run starts its save-rule checks.
func New(o Options) *Manager {
	m := &Manager{eng: o.Engine, cfg: o.Config, log: o.Logger, functions: o.Functions, loadFn: o.Function, limits: o.Limits, repl: o.Replication, progress: o.LoadProgress,
		lastSave: time.Now(), lastOK: true, lastBgSecs: -1}
	if m.log == nil {
		m.log = slog.Default()
	}
	return m
}

// Path is the dump file: dir/dbfilename.
func (m *Manager) Path() string { return filepath.Join(m.cfg.Dir(), m.cfg.DBFilename()) }

// Load loads the dump file if there is one (at start, DEBUG RELOAD). A
// missing file is no error; a bad one is, and leaves the keyspace empty.
func (m *Manager) Load() (LoadResult, error) { return m.LoadOnto(OntoEmpty) }

// LoadOnto is Load into a keyspace that holds what onto says (DEBUG
// RELOAD NOFLUSH, MERGE).
func (m *Manager) LoadOnto(onto Onto) (LoadResult, error) { return m.loadFile(onto, nil) }

// loadFile is LoadOnto giving expired the keys dropped as expired.
func (m *Manager) loadFile(onto Onto, expired func(db int, key []byte)) (LoadResult, error) {
	start := time.Now()
	res, err := ReadFile(m.eng, m.Path(), LoadOptions{Limits: m.limits(), Function: m.loadFn, Onto: onto, Expired: expired, KeyLoadDelay: m.cfg.KeyLoadDelay(), Progress: m.progress})
	if errors.Is(err, ErrNoFile) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	m.mu.Lock()
	m.lastLoaded, m.lastExpired = res.Loaded, res.Expired
	m.dirtyAtSave = m.eng.Changes() // what was loaded is what is on disk
	m.mu.Unlock()
	m.log.Info("DB loaded from disk", "file", m.Path(), "keys", res.Loaded, "expired_dropped", res.Expired, "seconds", time.Since(start).Seconds())
	return res, nil
}

// LoadAtStart prepares dir at start: it removes the temporary dumps a
// crash during a save left (RemoveStaleTemp), logging each, then loads
// the dump as Load does. Call it once, before any save begins; DEBUG
// RELOAD, which may run beside a BGSAVE, calls Load.
func (m *Manager) LoadAtStart() (LoadResult, error) {
	removed, err := RemoveStaleTemp(m.cfg.Dir())
	for _, name := range removed {
		m.log.Warn("removed a temporary dump left by an interrupted save", "file", filepath.Join(m.cfg.Dir(), name))
	}
	if err != nil {
		m.log.Warn("cannot remove the temporary dumps left by an interrupted save", "dir", m.cfg.Dir(), "err", err)
	}
	if m.repl == nil {
		return m.Load()
	}
	var dropped []DroppedKey
	res, err := m.loadFile(OntoEmpty, func(db int, key []byte) {
		dropped = append(dropped, DroppedKey{DB: db, Key: append([]byte(nil), key...)})
	})
	if err == nil && res.HasRepl {
		m.repl.Restore(res.Repl, dropped)
	}
	return res, err
}

// ErrInProgress is SAVE's and BGSAVE's refusal while a save runs.
var ErrInProgress = errors.New("ERR Background save already in progress")

// Save dumps the keyspace now and returns when it is on disk (SAVE,
// SHUTDOWN, DEBUG RELOAD). The dump is still a point-in-time one, taken
// without stopping other clients.
func (m *Manager) Save() error {
	if !m.begin() {
		return ErrInProgress
	}
	return m.run(false)
}

// BGSave starts a background dump (BGSAVE). With schedule, a dump already
// running makes it queue one for when that ends instead of failing.
// It returns Redis's status reply.
func (m *Manager) BGSave(schedule bool) (string, error) {
	if !m.begin() {
		if !schedule {
			return "", ErrInProgress
		}
		m.mu.Lock()
		m.scheduled = true
		m.mu.Unlock()
		return "Background saving scheduled", nil
	}
	m.mu.Lock()
	m.bgStart = time.Now()
	m.mu.Unlock()
	go func() {
		defer lowerPriority()()
		m.run(true) //nolint:errcheck // reported through INFO and the log
	}()
	return "Background saving started", nil
}

// begin claims the right to save.
func (m *Manager) begin() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.saving {
		return false
	}
	m.saving = true
	m.aborting.Store(false)
	m.done = make(chan struct{})
	m.dirtyAtStart = m.eng.Changes()
	return true
}

// fileOptions are the dump's options from the configuration, with cut.
func (m *Manager) fileOptions(cut func()) FileOptions {
	var fns [][]byte
	if m.functions != nil {
		fns = m.functions()
	}
	return FileOptions{Compress: m.cfg.RDBCompression(), Checksum: m.cfg.RDBChecksum(),
		IncrementalFsync: m.cfg.RDBSaveIncrementalFsync(),
		Functions:        fns, UsedMemory: m.eng.UsedMemory(), Cut: cut, KeySaveDelay: m.cfg.RDBKeySaveDelay()}
}

// WriteRDB streams a point-in-time dump of the keyspace to w, as SAVE
// writes the file, calling cut at its instant: an AOF's base, a
// replica's full sync. It is not a save: INFO's save facts do not move.
func (m *Manager) WriteRDB(w io.Writer, cut func()) (SaveResult, error) {
	return write(w, m.eng, m.fileOptions(cut))
}

// WriteSyncRDB is WriteRDB for a replica's full sync: at runs at the
// dump's instant and returns the replication position the dump records;
// noKeys and noFunctions leave those out (REPLCONF rdb-filter-only).
func (m *Manager) WriteSyncRDB(w io.Writer, noKeys, noFunctions bool, at func() ReplInfo) (SaveResult, error) {
	o := m.fileOptions(nil)
	o.Repl = func() (ReplInfo, bool) { return at(), true }
	o.NoKeys = noKeys
	if noFunctions {
		o.Functions = nil
	}
	return write(w, m.eng, o)
}

// ReadRDB loads a dump from r, reading exactly the dump (an AOF base's
// RDB preamble is followed by commands), into a keyspace holding what
// onto says: an AOF base, a replica's full sync.
func (m *Manager) ReadRDB(r io.Reader, onto Onto) (LoadResult, error) {
	res, err := load(r, m.eng, LoadOptions{Limits: m.limits(), Function: m.loadFn, Onto: onto, KeyLoadDelay: m.cfg.KeyLoadDelay()}, math.MaxInt32)
	if err != nil && onto == OntoEmpty {
		m.eng.FlushAll()
	}
	return res, err
}

// run writes the dump and records the outcome.
func (m *Manager) run(background bool) error {
	start := time.Now()
	o := m.fileOptions(nil)
	if m.repl != nil {
		at, release := m.repl.SaveCut()
		defer release()
		o.Repl = func() (ReplInfo, bool) {
			defer release()
			return at()
		}
	}
	if background {
		o.Aborted = m.aborting.Load
	}
	res, err := WriteFile(m.eng, m.Path(), o)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saving = false
	close(m.done)
	m.lastKeys = res.Keys
	if errors.Is(err, ErrAborted) { // as Redis's child killed by SIGUSR1: no error status
		m.lastBgSecs = int64(time.Since(start).Seconds())
		m.bgStart = time.Time{}
		m.log.Warn("Background saving aborted: the keyspace was flushed (FLUSHALL)", "file", m.Path())
		return err
	}
	if background {
		m.lastTry = time.Now()
		m.lastOK = err == nil
		m.lastBgSecs = int64(time.Since(start).Seconds())
		m.bgStart = time.Time{}
	}
	if err != nil {
		m.log.Warn("error saving the DB on disk", "file", m.Path(), "err", err)
		return err
	}
	m.saves++
	m.lastSave = start
	m.dirtyAtSave = m.dirtyAtStart
	m.log.Info("DB saved on disk", "file", m.Path(), "keys", res.Keys, "bytes", res.Bytes, "seconds", time.Since(start).Seconds(), "background", background)
	return nil
}

// FlushedAll is what FLUSHALL does to the dump, as Redis's
// flushAllDataAndResetRDB: a running BGSAVE, of data that is gone, is
// aborted, and with save rules the emptied keyspace is saved at once, so
// a restart does not bring the flushed keys back. A SAVE that runs is
// waited for (its dump is then replaced).
func (m *Manager) FlushedAll() error {
	m.mu.Lock()
	if m.saving && !m.bgStart.IsZero() {
		m.aborting.Store(true)
	}
	m.mu.Unlock()
	if !m.HasRules() {
		return nil
	}
	for {
		m.Wait()
		if err := m.Save(); err != ErrInProgress {
			return err
		}
	}
}

// Wait blocks until no save runs.
func (m *Manager) Wait() {
	m.mu.Lock()
	done := m.done
	saving := m.saving
	m.mu.Unlock()
	if saving {
		<-done
	}
}

// Run checks the save rules and a scheduled BGSAVE ten times a second
// until ctx ends, as Redis's serverCron does.
func (m *Manager) Run(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if m.due() {
				_, _ = m.BGSave(false)
			}
		}
	}
}

// bgsaveRetryDelay is Redis's CONFIG_BGSAVE_RETRY_DELAY: after a failed
// BGSAVE, rules wait this long before trying again.
const bgsaveRetryDelay = 5 * time.Second

// due reports whether a save rule (or BGSAVE SCHEDULE) asks for a dump now.
func (m *Manager) due() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.saving {
		return false
	}
	if m.scheduled {
		m.scheduled = false
		return true
	}
	// The rules count whole seconds, and counting the changes visits
	// every shard (engine/tally.go): once a second, not at every tick.
	if time.Since(m.rulesAt) < time.Second {
		return false
	}
	m.rulesAt = time.Now()
	changes := m.eng.Changes() - m.dirtyAtSave
	since := time.Since(m.lastSave)
	for _, r := range m.cfg.Save() {
		if changes >= r.Changes && since >= time.Duration(r.Seconds)*time.Second &&
			(m.lastOK || time.Since(m.lastTry) > bgsaveRetryDelay) {
			return true
		}
	}
	return false
}

// Info is what INFO persistence reports.
type Info struct {
	ChangesSinceLastSave int64
	BGSaveInProgress     bool
	LastSaveTime         time.Time
	LastBGSaveOK         bool
	LastBGSaveSecs       int64
	CurrentBGSaveSecs    int64 // -1 when none runs
	Saves                int64
	LastLoadLoaded       int64
	LastLoadExpired      int64
}

// Info returns the persistence facts.
func (m *Manager) Info() Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	in := Info{ChangesSinceLastSave: m.eng.Changes() - m.dirtyAtSave, BGSaveInProgress: !m.bgStart.IsZero(),
		LastSaveTime: m.lastSave, LastBGSaveOK: m.lastOK, LastBGSaveSecs: m.lastBgSecs, CurrentBGSaveSecs: -1,
		Saves: m.saves, LastLoadLoaded: m.lastLoaded, LastLoadExpired: m.lastExpired}
	if !m.bgStart.IsZero() {
		in.CurrentBGSaveSecs = int64(time.Since(m.bgStart).Seconds())
	}
	return in
}

// LastSave is when the last good save began (LASTSAVE).
func (m *Manager) LastSave() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastSave
}

// WritesRefused reports whether writes must get MISCONF: the last BGSAVE
// failed, save rules exist and stop-writes-on-bgsave-error is on.
func (m *Manager) WritesRefused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.lastOK && m.cfg.StopWritesOnBgsaveError() && len(m.cfg.Save()) > 0
}

// HasRules reports whether save rules are configured (SHUTDOWN and
// SIGTERM save then).
func (m *Manager) HasRules() bool { return len(m.cfg.Save()) > 0 }
