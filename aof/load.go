package aof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/tandemkv/tandem/propagate"
)

// LoadStatus says what Load found.
type LoadStatus int

// Load outcomes without an error.
const (
	LoadOK        LoadStatus = iota
	LoadNotExist             // no manifest entries: nothing to load
	LoadEmpty                // every file is empty
	LoadTruncated            // the last file's tail was cut (aof-load-truncated)
)

// LoadCallbacks receive what the files hold, in order.
type LoadCallbacks struct {
	// Base reads an RDB: an RDB base file, or the RDB preamble of an AOF
	// base. r's next bytes are "REDIS"; Base must read exactly the RDB (up
	// to its EOF opcode and checksum) and no further, since AOF commands
	// may follow. r buffers 64 KiB, so rdb.NewReader reads from r itself.
	Base func(r *bufio.Reader) error
	// Command runs one command. args and their bytes are valid only during
	// the call. A transaction is handed over only once its EXEC has been
	// read: MULTI, the queued commands and EXEC in a row. An error wrapping
	// ErrUnknownCommand is reported as Redis reports an unknown command.
	Command func(args [][]byte) error
	// Annotation sees each '#' line (#TS:…, Tandem's #MC:…), newline
	// included; nil skips them.
	Annotation func(line []byte)
	// Progress, when set, is told the bytes of every file before the
	// first is read, then each read (INFO's loading_* fields).
	Progress interface {
		Size(totalBytes int64)
		Read(n int)
	}
}

// ErrUnknownCommand is what Command returns (wrapped) for a command the
// server does not have.
var ErrUnknownCommand = errors.New("unknown command")

// LoadStats are what INFO persistence shows after a load.
type LoadStats struct {
	Status      LoadStatus
	Files       int   // base and incr files read
	Commands    int64 // commands handed to Command (transactions' included)
	BaseSize    int64 // aof_base_size: the base file's size
	CurrentSize int64 // aof_current_size: base and incr files together
}

// LoadError is a load Redis would refuse to start from: File is the AOF
// file (empty for the manifest), Offset where the reader stopped.
type LoadError struct {
	File   string
	Offset int64
	Msg    string // Redis's log line
	Err    error  // the cause, if any
}

func (e *LoadError) Error() string { return e.Msg }
func (e *LoadError) Unwrap() error { return e.Err }

// Load reads o's AOF directory as Redis 7.0 does at start-up: it first
// upgrades an old single-file AOF into the directory, then reads the
// manifest, the base (RDB, or AOF which may begin with an RDB preamble)
// and the incr files in order. A tail cut inside a command, or a
// transaction without its EXEC, at the end of the last file is truncated
// away when o.LoadTruncated, and refused otherwise; the same in an earlier
// file, or bytes that are not an AOF, are refused. An error means the
// server must not start.
func Load(o Options, cb LoadCallbacks) (LoadStats, error) {
	m, err := ReadManifest(o)
	if err != nil {
		return LoadStats{}, err
	}
	if err := upgradeIfNeeded(&o, m); err != nil {
		return LoadStats{}, err
	}
	var st LoadStats
	if m.Base == nil && len(m.Incr) == 0 {
		st.Status = LoadNotExist
		return st, nil
	}
	files := make([]FileInfo, 0, 1+len(m.Incr))
	if m.Base != nil {
		files = append(files, *m.Base)
	}
	files = append(files, m.Incr...)
	// Every file the manifest names must exist before anything is loaded.
	sizes := make([]int64, len(files))
	for i, f := range files {
		fi, err := os.Stat(o.path(f.Name))
		if err != nil {
			return st, &LoadError{File: f.Name, Msg: fmt.Sprintf("Unable to obtain the AOF file %s length. stat: %s", f.Name, strerror(err)), Err: err}
		}
		sizes[i] = fi.Size()
		st.CurrentSize += fi.Size()
	}
	if m.Base != nil {
		st.BaseSize = sizes[0]
	}
	if st.CurrentSize == 0 {
		st.Status = LoadEmpty
		return st, nil
	}
	if cb.Progress != nil {
		cb.Progress.Size(st.CurrentSize)
	}
	log := o.logger()
	for i, f := range files {
		last := i == len(files)-1
		start := time.Now()
		what := "incr"
		if m.Base != nil && i == 0 {
			what = "base"
		}
		truncated, err := loadFile(&o, f.Name, sizes[i], last, cb, &st)
		if err != nil {
			return st, err
		}
		st.Files++
		log.Info(fmt.Sprintf("DB loaded from %s file %s: %.3f seconds", what, f.Name, time.Since(start).Seconds()))
		if truncated {
			st.Status = LoadTruncated
		}
	}
	return st, nil
}

// loadFile reads one file. truncated reports a cut tail, which it only
// accepts in the last file.
func loadFile(o *Options, name string, size int64, last bool, cb LoadCallbacks, st *LoadStats) (truncated bool, err error) {
	path := o.path(name)
	log := o.logger()
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, &LoadError{File: name, Msg: fmt.Sprintf("The append log file %s doesn't exist: %s", name, strerror(err)), Err: err}
		}
		return false, &LoadError{File: name, Msg: fmt.Sprintf("Fatal error: can't open the append log file %s for reading: %s", name, strerror(err)), Err: err}
	}
	defer f.Close()
	if size == 0 {
		return false, nil
	}
	cr := &countingReader{r: f}
	if cb.Progress != nil {
		cr.read = cb.Progress.Read
	}
	br := bufio.NewReaderSize(cr, 64<<10)
	var off int64
	if sig, _ := br.Peek(5); bytes.Equal(sig, []byte("REDIS")) {
		oldStyle := name == o.FileName
		if oldStyle {
			log.Info("Reading RDB preamble from AOF file...")
		} else {
			log.Info("Reading RDB base file on AOF loading...")
		}
		if cb.Base == nil {
			return false, &LoadError{File: name, Msg: fmt.Sprintf("Error reading the RDB base file %s, AOF loading aborted", name)}
		}
		if err := cb.Base(br); err != nil {
			msg := fmt.Sprintf("Error reading the RDB base file %s, AOF loading aborted", name)
			if oldStyle {
				msg = fmt.Sprintf("Error reading the RDB preamble of the AOF file %s, AOF loading aborted", name)
			}
			return false, &LoadError{File: name, Msg: msg, Err: err}
		}
		off = cr.n - int64(br.Buffered())
		if oldStyle {
			log.Info("Reading the remaining AOF tail...")
		}
	}
	r := NewReader(br, off)
	validUpTo := off        // just past the last whole command
	validBeforeMulti := off // where the open transaction began
	var queued []byte       // an open transaction, MULTI first, in RESP
	inMulti := false
	run := func(args [][]byte) error {
		if err := cb.Command(args); err != nil {
			if errors.Is(err, ErrUnknownCommand) {
				return &LoadError{File: name, Offset: r.Offset(), Msg: fmt.Sprintf("Unknown command '%s' reading the append only file %s", args[0], name), Err: err}
			}
			return &LoadError{File: name, Offset: r.Offset(), Msg: fmt.Sprintf("Error loading the append only file %s at offset %d: %v", name, r.Offset(), err), Err: err}
		}
		st.Commands++
		return nil
	}
	for {
		args, note, err := r.Next()
		if err == io.EOF {
			break
		}
		if err == ErrShortRead {
			return shortRead(o, name, path, validUpTo, last)
		}
		if err == ErrBadFormat {
			return false, &LoadError{File: name, Offset: r.Offset(), Msg: fmt.Sprintf("Bad file format reading the append only file %s: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>", name), Err: err}
		}
		if err != nil {
			return false, &LoadError{File: name, Offset: r.Offset(), Msg: fmt.Sprintf("Unrecoverable error reading the append only file %s: %s", name, strerror(err)), Err: err}
		}
		if note != nil {
			if cb.Annotation != nil {
				cb.Annotation(note)
			}
			continue
		}
		isMulti := bytes.EqualFold(args[0], []byte("multi"))
		if isMulti {
			validBeforeMulti = validUpTo
		}
		switch {
		case inMulti && bytes.EqualFold(args[0], []byte("exec")):
			tx := NewReader(bytes.NewReader(queued), 0)
			for {
				q, _, err := tx.Next()
				if err != nil {
					break // io.EOF: it holds only what was appended above
				}
				if err := run(q); err != nil {
					return false, err
				}
			}
			queued = queued[:0]
			inMulti = false
			if err := run(args); err != nil {
				return false, err
			}
		case inMulti || isMulti:
			// Queued as Redis queues them: only EXEC runs a transaction.
			queued = propagate.AppendCommand(queued, args...)
			inMulti = true
		default:
			if err := run(args); err != nil {
				return false, err
			}
		}
		validUpTo = r.Offset()
	}
	if inMulti {
		log.Warn(fmt.Sprintf("Revert incomplete MULTI/EXEC transaction in AOF file %s", name))
		return shortRead(o, name, path, validBeforeMulti, last)
	}
	return false, nil
}

// shortRead handles a file that ends inside a command or transaction:
// with aof-load-truncated, the last file is cut back to validUpTo and the
// load goes on; otherwise start-up is refused. A cut earlier file is
// refused without being truncated, since later files depend on it.
func shortRead(o *Options, name, path string, validUpTo int64, last bool) (bool, error) {
	log := o.logger()
	if o.LoadTruncated {
		if !last {
			return false, &LoadError{File: name, Offset: validUpTo, Msg: fmt.Sprintf("Fatal error: the truncated file is not the last file (%s, last valid command at offset %d)", name, validUpTo)}
		}
		log.Warn(fmt.Sprintf("!!! Warning: short read while loading the AOF file %s!!!", name))
		log.Warn(fmt.Sprintf("!!! Truncating the AOF %s at offset %d !!!", name, validUpTo))
		if err := os.Truncate(path, validUpTo); err != nil {
			log.Warn(fmt.Sprintf("Error truncating the AOF file %s: %s", name, strerror(err)))
		} else {
			log.Warn(fmt.Sprintf("AOF %s loaded anyway because aof-load-truncated is enabled", name))
			return true, nil
		}
	}
	return false, &LoadError{File: name, Offset: validUpTo, Msg: fmt.Sprintf("Unexpected end of file reading the append only file %s. You can: "+
		"1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "+
		"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", name)}
}

// countingReader counts the bytes read from the file, so the offset where
// the RDB ended is known through the bufio.Reader's buffering.
type countingReader struct {
	r    io.Reader
	n    int64
	read func(n int) // LoadCallbacks.Progress's, or nil
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.read != nil {
		c.read(n)
	}
	return n, err
}
