package aof

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Fsync is appendfsync.
type Fsync int

// The appendfsync policies.
const (
	FsyncEverySec Fsync = iota // write at each Flush, fdatasync once a second off the loops
	FsyncAlways                // WaitDurable writes and fdatasyncs before replies go out
	FsyncNo                    // write at each Flush, the kernel syncs when it likes
)

// Options are the AOF directives. Dir, DirName and FileName are fixed for
// a Log's life; the others have setters on Log for CONFIG SET.
type Options struct {
	Dir              string // dir: the server's working directory
	DirName          string // appenddirname, inside Dir ("appendonlydir")
	FileName         string // appendfilename ("appendonly.aof")
	Fsync            Fsync  // appendfsync
	UseRDBPreamble   bool   // aof-use-rdb-preamble: bases are RDB files
	TimestampEnabled bool   // aof-timestamp-enabled: #TS: annotations
	LoadTruncated    bool   // aof-load-truncated
	NoFsyncOnRewrite bool   // no-appendfsync-on-rewrite
	DisableAutoGC    bool   // aof-disable-auto-gc: keep history files
	Logger           *slog.Logger
	// FlushSleep, when set, says how long to sleep before each write of
	// buffered commands: DEBUG AOF-FLUSH-SLEEP (Redis's aof_flush_sleep),
	// with which Redis's tests check that no reply overtakes its write.
	FlushSleep func() time.Duration

	// Test hooks; nil means the real thing.
	Now func() time.Time // the clock of #TS: annotations and everysec
	// OpenFile opens an incr file for appending (creating it); tests
	// return files that count syncs or fail writes.
	OpenFile func(path string) (File, error)
}

// File is what the writer needs of an incr file. Sync is fdatasync for
// the real file.
type File interface {
	Write(p []byte) (int, error)
	Truncate(size int64) error
	Sync() error
	Close() error
}

// osFile is the real incr file.
type osFile struct{ *os.File }

// Sync is fdatasync, as redis_fsync on Linux: the data and the size, not
// the times.
func (f osFile) Sync() error { return fdatasync(f.File) }

func openAppend(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (o *Options) openFile(path string) (File, error) {
	if o.OpenFile != nil {
		return o.OpenFile(path)
	}
	return openAppend(path)
}

func (o *Options) dirPath() string { return filepath.Join(o.Dir, o.DirName) }

func (o *Options) path(name string) string { return filepath.Join(o.Dir, o.DirName, name) }

func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}
