package aof

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/internal/sdsargs"
)

// FileType is a manifest entry's type, the byte Redis 7.0 writes after "type".
type FileType byte

// The three types of a manifest entry.
const (
	TypeBase    FileType = 'b' // the snapshot of the last rewrite, at most one, first
	TypeHistory FileType = 'h' // a file a rewrite made obsolete, deleted unless aof-disable-auto-gc
	TypeIncr    FileType = 'i' // commands since the base, loaded in order
)

// FileInfo is one manifest entry.
type FileInfo struct {
	Name string
	Seq  int64
	Type FileType
}

// Manifest is the list of files of a multi-part AOF directory, as Redis
// 7.0's aofManifest: the base, the history files and the incr files in
// load order. BaseSeq and IncrSeq are the last sequence numbers given out,
// so the next base or incr file is numbered one higher.
type Manifest struct {
	Base    *FileInfo
	History []FileInfo
	Incr    []FileInfo
	BaseSeq int64
	IncrSeq int64
}

// Naming, as Redis 7.0: <appendfilename>.<seq>.base.rdb|aof,
// <appendfilename>.<seq>.incr.aof and <appendfilename>.manifest; temporary
// files begin with "temp-".
const (
	baseSuffix     = ".base"
	incrSuffix     = ".incr"
	rdbSuffix      = ".rdb"
	aofSuffix      = ".aof"
	manifestSuffix = ".manifest"
	tempPrefix     = "temp-"
)

// ManifestName is the manifest's file name inside the AOF directory.
func ManifestName(appendFilename string) string { return appendFilename + manifestSuffix }

func tempManifestName(appendFilename string) string {
	return tempPrefix + appendFilename + manifestSuffix
}

// Clone returns a deep copy, which a change edits so that the manifest in
// use stays intact until the new one is on disk.
func (m *Manifest) Clone() *Manifest {
	c := &Manifest{BaseSeq: m.BaseSeq, IncrSeq: m.IncrSeq}
	if m.Base != nil {
		b := *m.Base
		c.Base = &b
	}
	c.History = append([]FileInfo(nil), m.History...)
	c.Incr = append([]FileInfo(nil), m.Incr...)
	return c
}

// newBase names the next base file and turns the current base, if any,
// into the first history file.
func (m *Manifest) newBase(appendFilename string, rdb bool) FileInfo {
	if m.Base != nil {
		old := *m.Base
		old.Type = TypeHistory
		m.History = append([]FileInfo{old}, m.History...)
	}
	suffix := aofSuffix
	if rdb {
		suffix = rdbSuffix
	}
	m.BaseSeq++
	f := FileInfo{Name: appendFilename + "." + strconv.FormatInt(m.BaseSeq, 10) + baseSuffix + suffix, Seq: m.BaseSeq, Type: TypeBase}
	m.Base = &f
	return f
}

// newIncr names the next incr file and appends it to the incr list.
func (m *Manifest) newIncr(appendFilename string) FileInfo {
	m.IncrSeq++
	f := FileInfo{Name: appendFilename + "." + strconv.FormatInt(m.IncrSeq, 10) + incrSuffix + aofSuffix, Seq: m.IncrSeq, Type: TypeIncr}
	m.Incr = append(m.Incr, f)
	return f
}

// historyBefore turns every incr file but the last n into history files,
// the newest first, as a successful rewrite does with the files its base
// replaces.
func (m *Manifest) historyBefore(keep int) {
	cut := len(m.Incr) - keep
	if cut <= 0 {
		return
	}
	var moved []FileInfo
	for i := cut - 1; i >= 0; i-- {
		f := m.Incr[i]
		f.Type = TypeHistory
		moved = append(moved, f)
	}
	m.History = append(moved, m.History...)
	m.Incr = append([]FileInfo(nil), m.Incr[cut:]...)
}

// Format returns the manifest's text: the base, then history, then incr
// files, one line each, "file <name> seq <n> type <t>\n", the name quoted
// as sdscatrepr when Redis would (blanks, quotes, backslashes, bytes
// outside printable ASCII). It refuses to write a line longer than Redis
// reads (a long appendfilename, or a name that grows when quoted): a
// manifest that cannot be read back would stop the next start-up.
func (m *Manifest) Format() ([]byte, error) {
	var b []byte
	var tooLong string
	line := func(f FileInfo) {
		start := len(b)
		b = append(b, "file "...)
		if needsRepr(f.Name) {
			b = sdsargs.AppendRepr(b, []byte(f.Name))
		} else {
			b = append(b, f.Name...)
		}
		b = append(b, " seq "...)
		b = strconv.AppendInt(b, f.Seq, 10)
		b = append(b, " type "...)
		b = append(b, byte(f.Type), '\n')
		if len(b)-start > maxManifestLine && tooLong == "" {
			tooLong = f.Name
		}
	}
	if m.Base != nil {
		line(*m.Base)
	}
	for _, f := range m.History {
		line(f)
	}
	for _, f := range m.Incr {
		line(f)
	}
	if tooLong != "" {
		return nil, fmt.Errorf("the AOF manifest line of %q would be longer than the %d bytes Redis reads", tooLong, maxManifestLine)
	}
	return b, nil
}

// needsRepr is sdsneedsrepr: true when a byte is a quote, a backslash, a
// blank or outside printable ASCII; and for the empty name and a single
// quote, which Redis would write unquoted and then fail to read back
// (sdssplitargs opens a quoted token at a ' too).
func needsRepr(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '"' || c == '\'' || c <= ' ' || c >= 0x7f {
			return true
		}
	}
	return false
}

// Redis's manifest errors, word for word.
const (
	ErrMsgEmptyManifest   = "Found an empty AOF manifest"
	ErrMsgTooLongLine     = "The AOF manifest file contains too long line"
	ErrMsgInvalidFormat   = "Invalid AOF manifest file format"
	ErrMsgNotBaseName     = "File can't be a path, just a filename"
	ErrMsgDuplicateBase   = "Found duplicate base file information"
	ErrMsgNonMonotonicSeq = "Found a non-monotonic sequence number"
	ErrMsgUnknownType     = "Unknown AOF file type"
)

// ManifestError is a manifest Redis 7.0 refuses to start with: Msg is
// Redis's reason; Line and Text the offending line when Redis names one
// (Line is 0 otherwise).
type ManifestError struct {
	Path string
	Line int
	Text string
	Msg  string
}

func (e *ManifestError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("*** FATAL AOF MANIFEST FILE ERROR *** %s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("*** FATAL AOF MANIFEST FILE ERROR *** Reading the manifest file %s, at line %d: >>> '%s': %s", e.Path, e.Line, e.Text, e.Msg)
}

// maxManifestLine is the longest line Redis reads (MANIFEST_MAX_LINE).
const maxManifestLine = 1024

// ParseManifest reads a manifest as Redis 7.0 does at start-up, with its
// checks: lines of at most 1024 bytes each ending in a newline, '#' lines
// skipped, an even number of at least 6 words per line whose keys are
// case-insensitive and whose unknown keys are ignored (forward
// compatibility), a name that is not a path, a non-zero seq, one base,
// increasing incr seqs. path only names the file in errors.
func ParseManifest(path string, data []byte) (*Manifest, error) {
	m := &Manifest{}
	fail := func(line int, text, msg string) (*Manifest, error) {
		return nil, &ManifestError{Path: path, Line: line, Text: text, Msg: msg}
	}
	var maxSeq int64
	linenum := 0
	for {
		if len(data) == 0 {
			if linenum == 0 {
				return fail(0, "", ErrMsgEmptyManifest)
			}
			return m, nil
		}
		// fgets: up to the newline, at most maxManifestLine bytes.
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 || n > maxManifestLine {
			n = min(len(data), maxManifestLine)
		}
		chunk := data[:n]
		data = data[n:]
		linenum++
		// C string functions stop at a NUL byte.
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			chunk = chunk[:i]
		}
		if len(chunk) > 0 && chunk[0] == '#' {
			continue
		}
		if bytes.IndexByte(chunk, '\n') < 0 {
			return fail(0, "", ErrMsgTooLongLine)
		}
		line := strings.Trim(string(chunk), " \t\r\n")
		if line == "" {
			return fail(linenum, line, ErrMsgInvalidFormat)
		}
		words, ok := sdsargs.Strings(line)
		if !ok || len(words) < 6 || len(words)%2 != 0 {
			return fail(linenum, line, ErrMsgInvalidFormat)
		}
		var f FileInfo
		haveName := false
		for i := 0; i < len(words); i += 2 {
			switch v := words[i+1]; {
			case strings.EqualFold(words[i], "file"):
				// sdsnew(argv[i+1]) stops at a NUL from a \x00 escape.
				if j := strings.IndexByte(v, 0); j >= 0 {
					v = v[:j]
				}
				if strings.ContainsAny(v, "/\\") {
					return fail(linenum, line, ErrMsgNotBaseName)
				}
				f.Name, haveName = v, true
			case strings.EqualFold(words[i], "seq"):
				f.Seq = num.Strtoll(v)
			case strings.EqualFold(words[i], "type"):
				f.Type = 0
				if v != "" {
					f.Type = FileType(v[0])
				}
			}
		}
		if !haveName || f.Seq == 0 || f.Type == 0 {
			return fail(linenum, line, ErrMsgInvalidFormat)
		}
		switch f.Type {
		case TypeBase:
			if m.Base != nil {
				return fail(linenum, line, ErrMsgDuplicateBase)
			}
			m.Base = &f
			m.BaseSeq = f.Seq
		case TypeHistory:
			m.History = append(m.History, f)
		case TypeIncr:
			if f.Seq <= maxSeq {
				return fail(linenum, line, ErrMsgNonMonotonicSeq)
			}
			m.Incr = append(m.Incr, f)
			m.IncrSeq, maxSeq = f.Seq, f.Seq
		default:
			return fail(linenum, line, ErrMsgUnknownType)
		}
	}
}
