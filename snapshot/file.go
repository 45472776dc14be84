// Package snapshot persists the keyspace in Redis's RDB format: save rules,
// SAVE and BGSAVE (a point-in-time dump without fork, engine.Snapshot),
// and loading at start. The format itself is package snapshot/rdb.
package snapshot

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

// FileOptions say how a dump is written.
type FileOptions struct {
	Compress bool // rdbcompression
	Checksum bool // rdbchecksum
	// IncrementalFsync (rdb-save-incremental-fsync) fsyncs the file every
	// autoSyncBytes, as Redis does: the kernel then never holds a dump's
	// worth of dirty pages, whose writeback at the end stalls the whole
	// machine.
	IncrementalFsync bool
	// Functions are the FUNCTION libraries' sources, saved with the keys.
	Functions [][]byte
	// UsedMemory goes into the used-mem AUX field.
	UsedMemory int64
	// Cut, when set, runs at the dump's instant (engine.SnapshotCut).
	Cut func()
	// Repl, when set, runs at the dump's instant after Cut and returns
	// the replication position the dump records (ok false: none). The
	// header and its AUX fields are written after the instant.
	Repl func() (info ReplInfo, ok bool)
	// KeySaveDelay is rdb-key-save-delay, slept after each key
	// (DebugDelay); read once, as a Redis child reads it at its fork.
	KeySaveDelay int
	// Aborted, when set, is asked after each key: true stops the dump
	// with ErrAborted (a FLUSHALL made it pointless).
	Aborted func() bool
	// NoKeys leaves the keys out: a replica's filtered full sync (REPLCONF
	// rdb-filter-only, redis-cli --functions-rdb) gets the AUX fields and
	// whatever else the filter includes.
	NoKeys bool
}

// ErrAborted is a dump stopped by FileOptions.Aborted.
var ErrAborted = errors.New("snapshot: the dump was aborted")

// SaveResult describes a finished dump.
type SaveResult struct {
	Keys  int64
	Bytes int64
}

var tempSeq atomic.Int64

// tempName is the name of a dump being written: temp-<pid>-<seq>.rdb.
// Redis names its child's temp-<childpid>.rdb; Tandem has no child, so a
// sequence number keeps SAVE and BGSAVE of one process apart.
// RemoveStaleTemp recognizes the name with isTempName.
func tempName(pid int, seq int64) string {
	return "temp-" + strconv.Itoa(pid) + "-" + strconv.FormatInt(seq, 10) + ".rdb"
}

// isTempName reports whether name is one tempName makes.
func isTempName(name string) bool {
	rest, ok := strings.CutPrefix(name, "temp-")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, ".rdb")
	if !ok {
		return false
	}
	pid, seq, ok := strings.Cut(rest, "-")
	return ok && allDigits(pid) && allDigits(seq)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// RemoveStaleTemp removes from dir the temporary dumps (tempName) that a
// process stopped in the middle of a save left behind, as Redis removes
// its children's temp-<pid>.rdb: a crash loop during saves would
// otherwise fill the disk. Only regular files with that exact name form
// are touched. Call it before any save of this process begins: it
// removes every such file, whichever process wrote it (in a container,
// the process that crashed had our pid too). It returns the names
// removed, and the first error met (the other files are still tried).
func RemoveStaleTemp(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var first error
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTempName(e.Name()) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		removed = append(removed, e.Name())
	}
	return removed, first
}

// WriteFile dumps eng to path atomically: a temporary file in the same
// directory, fsync'd, renamed over path, and the directory fsync'd, so a
// crash at any point leaves either the previous dump or the new one whole
// (and a temporary file, which RemoveStaleTemp removes at the next start).
func WriteFile(eng *engine.Engine, path string, o FileOptions) (SaveResult, error) {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, tempName(os.Getpid(), tempSeq.Add(1)))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return SaveResult{}, err
	}
	var w io.Writer = f
	if o.IncrementalFsync {
		w = &autoSyncWriter{f: f}
	}
	res, err := write(w, eng, o)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return SaveResult{}, err
	}
	if d, derr := os.Open(dir); derr == nil {
		err = d.Sync()
		d.Close()
	}
	return res, err
}

// autoSyncBytes is Redis's REDIS_AUTOSYNC_BYTES.
const autoSyncBytes = 4 << 20

// autoSyncWriter writes to a file and fsyncs it every autoSyncBytes.
type autoSyncWriter struct {
	f        *os.File
	unsynced int
}

func (a *autoSyncWriter) Write(p []byte) (int, error) {
	n, err := a.f.Write(p)
	if a.unsynced += n; err == nil && a.unsynced >= autoSyncBytes {
		a.unsynced = 0
		err = a.f.Sync()
	}
	return n, err
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// write streams a point-in-time dump of eng to w.
func write(w io.Writer, eng *engine.Engine, o FileOptions) (SaveResult, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	var aux [][2]string
	cut := func() {
		if o.Cut != nil {
			o.Cut()
		}
		if o.Repl != nil {
			if info, ok := o.Repl(); ok {
				aux = info.auxFields()
			}
		}
	}
	// The header waits for the instant: its AUX fields say where in the
	// write stream the dump is.
	var rw *rdb.Writer
	var headerErr error
	header := func() {
		rw, headerErr = rdb.NewWriter(bw, rdb.WriterOptions{Compress: o.Compress, Checksum: o.Checksum, UsedMem: o.UsedMemory, Aux: aux})
		for _, code := range o.Functions {
			if headerErr == nil {
				headerErr = rw.Function(code)
			}
		}
	}
	var res SaveResult
	var keysPerDB []int
	curDB := -1
	err := eng.SnapshotCut(cut, func(k []int) { keysPerDB = k; header() }, func(it *engine.SnapItem) error {
		if headerErr != nil || o.NoKeys {
			return headerErr
		}
		if it.DB != curDB {
			curDB = it.DB
			if err := rw.SelectDB(it.DB, uint64(keysPerDB[it.DB]), 0); err != nil {
				return err
			}
		}
		res.Keys++
		if err := writeItem(rw, it); err != nil {
			return err
		}
		DebugDelay(o.KeySaveDelay)
		if o.Aborted != nil && o.Aborted() {
			return ErrAborted
		}
		return nil
	})
	if err == nil && rw == nil {
		header()
	}
	if err == nil {
		err = headerErr
	}
	if err == nil {
		err = rw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	res.Bytes = cw.n
	return res, err
}

// writeItem writes one key.
func writeItem(w *rdb.Writer, it *engine.SnapItem) error {
	m := rdb.Meta{ExpireAtMs: it.ExpireAt, Idle: -1, Freq: -1, MCFlags: it.Flags, MCCAS: it.CAS}
	switch it.Type {
	case engine.TypeString:
		return w.String(it.Key, it.Value, m)
	case engine.TypeList:
		return w.List(it.Key, it.Elems, m)
	case engine.TypeSet:
		return w.Set(it.Key, it.Elems, m)
	case engine.TypeHash:
		return w.Hash(it.Key, it.Fields, it.Values, m)
	case engine.TypeZSet:
		members := make([]rdb.Member, len(it.Members))
		for i, zm := range it.Members {
			members[i] = rdb.Member{Member: zm.Member, Score: zm.Score}
		}
		return w.ZSet(it.Key, members, m)
	case engine.TypeStream:
		return w.Stream(it.Key, StreamToRDB(it.Stream), m)
	}
	return fmt.Errorf("snapshot: key of unknown type %v", it.Type)
}

// LoadProgress follows a load: Size once, before the first Read.
type LoadProgress interface {
	Size(totalBytes int64)
	Read(n int)
}

// progressReader tells p of every read.
type progressReader struct {
	r io.Reader
	p LoadProgress
}

func (pr *progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.Read(n)
	return n, err
}

// LoadOptions say how a dump is loaded.
type LoadOptions struct {
	Limits engine.RestoreLimits
	// Function loads a FUNCTION library's source; with replace a library
	// of the same name gives way (FUNCTION LOAD REPLACE), else it is an
	// error.
	Function func(code []byte, replace bool) error
	// Onto says what the keyspace may hold already.
	Onto Onto
	// Progress, when set, is told the file's size and each read from it
	// (INFO's loading_* fields).
	Progress LoadProgress
	// KeyLoadDelay is key-load-delay, slept after each key (DebugDelay).
	KeyLoadDelay int
	// Expired, when set, is given each key the load dropped as expired
	// (key is the reader's: copy it to keep it).
	Expired func(db int, key []byte)
}

// Onto is what a load finds in the keyspace, as DEBUG RELOAD's options
// say (Redis's RDBFLAGS_ALLOW_DUP).
type Onto uint8

const (
	// OntoEmpty: nothing (start, DEBUG RELOAD); an error flushes what was
	// loaded, so the keyspace is never half loaded.
	OntoEmpty Onto = iota
	// OntoMerge: the keyspace's data (DEBUG RELOAD NOFLUSH MERGE); a key
	// or library the dump has too is replaced by the dump's.
	OntoMerge
	// OntoKeep: the keyspace's data (DEBUG RELOAD NOFLUSH); a key or
	// library the dump has too is an error, as in Redis (which stops the
	// server on a duplicated key: Tandem stops the load), and what was
	// there and what loaded before the error stay.
	OntoKeep
)

// LoadResult describes a finished load.
type LoadResult struct {
	Loaded, Expired int64
	// Repl is the replication position the dump recorded, when HasRepl.
	Repl    ReplInfo
	HasRepl bool
}

// ErrNoFile is returned by ReadFile when there is no dump to load.
var ErrNoFile = errors.New("snapshot: no dump file")

// ReadFile loads the dump at path into eng, which should be empty. On any
// error (a corrupt or truncated file, a type Tandem cannot hold) the
// keyspace is flushed again, so it is never half loaded, and the error
// names the file and the offset.
func ReadFile(eng *engine.Engine, path string, o LoadOptions) (LoadResult, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return LoadResult{}, ErrNoFile
	}
	if err != nil {
		return LoadResult{}, err
	}
	defer f.Close()
	// A key takes at least 3 bytes of a dump (type, key and value
	// lengths), so no more keys than size/3 can follow: RESIZEDB hints
	// are cut to that, so a corrupt one cannot make the load reserve
	// memory for keys that are not there.
	maxKeys := int64(math.MaxInt32)
	if st, serr := f.Stat(); serr == nil {
		maxKeys = min(maxKeys, st.Size()/3)
	}
	var r io.Reader = f
	if o.Progress != nil {
		if st, serr := f.Stat(); serr == nil {
			o.Progress.Size(st.Size())
		}
		r = &progressReader{r: f, p: o.Progress}
	}
	res, err := load(bufio.NewReaderSize(r, 1<<20), eng, o, maxKeys)
	if err != nil {
		if o.Onto == OntoEmpty {
			eng.FlushAll()
		}
		return LoadResult{}, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// load reads a dump from r into eng.
func load(r io.Reader, eng *engine.Engine, o LoadOptions, maxKeys int64) (LoadResult, error) {
	rr, err := rdb.NewReader(r)
	if err != nil {
		return LoadResult{}, err
	}
	var res LoadResult
	var it engine.SnapItem
	var repl replAux
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			res.Repl, res.HasRepl = repl.result()
			return res, nil
		}
		if err != nil {
			return res, err
		}
		switch rec.Kind {
		case rdb.KindAux:
			repl.take(rec)
			continue
		case rdb.KindFunction:
			if o.Function != nil {
				if err := o.Function(rec.Code, o.Onto != OntoKeep); err != nil {
					return res, fmt.Errorf("loading a function library: %w", err)
				}
			}
			continue
		case rdb.KindResizeDB:
			// Sized once for what the dump announces, the index and
			// entries do not grow (and rehash, and copy) key by key.
			if rec.DB >= 0 && rec.DB < eng.Databases() && rec.ResizeKeys > 0 {
				eng.DB(rec.DB).Reserve(int(min(rec.ResizeKeys, uint64(maxKeys))))
			}
			continue
		case rdb.KindKey:
		default:
			continue
		}
		if rec.DB < 0 || rec.DB >= eng.Databases() {
			return res, fmt.Errorf("key %q is in database %d, beyond the %d configured (databases)", rec.Key, rec.DB, eng.Databases())
		}
		db := eng.DB(rec.DB)
		db.FromMaster = true // a replica's dump is its master's: none of its TTLs are the replica's own
		switch o.Onto {
		case OntoMerge:
			db.Delete(rec.Key) // Restore adds to an aggregate that is there
		case OntoKeep:
			if db.Exists(rec.Key) != 0 {
				return res, fmt.Errorf("duplicated key %q in database %d", rec.Key, rec.DB)
			}
		}
		itemOf(&it, rec)
		ok, err := db.Restore(&it, o.Limits)
		if err != nil {
			return res, fmt.Errorf("loading key %q: %w", rec.Key, err)
		}
		DebugDelay(o.KeyLoadDelay)
		if ok {
			res.Loaded++
		} else {
			res.Expired++
			if o.Expired != nil {
				o.Expired(rec.DB, rec.Key)
			}
		}
	}
}

// itemOf converts a loaded record.
func itemOf(it *engine.SnapItem, rec *rdb.Record) {
	*it = engine.SnapItem{DB: rec.DB, Key: rec.Key, ExpireAt: rec.Meta.ExpireAtMs, Flags: rec.Meta.MCFlags, CAS: rec.Meta.MCCAS,
		Value: rec.Str, Elems: rec.Elems, Fields: rec.Fields, Values: rec.Values}
	switch rec.Type {
	case rdb.String:
		it.Type = engine.TypeString
	case rdb.List:
		it.Type = engine.TypeList
	case rdb.Set:
		it.Type = engine.TypeSet
	case rdb.Hash:
		it.Type = engine.TypeHash
	case rdb.ZSet:
		it.Type = engine.TypeZSet
		it.Members = make([]engine.ZMember, len(rec.Members))
		for i, m := range rec.Members {
			it.Members[i] = engine.ZMember{Member: m.Member, Score: m.Score}
		}
	case rdb.StreamType:
		it.Type = engine.TypeStream
		it.Stream = StreamFromRDB(rec.Stream)
	}
}
