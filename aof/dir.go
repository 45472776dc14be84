package aof

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ReadManifest reads the manifest of o's AOF directory. A missing
// directory or manifest is an empty manifest, as Redis starts from one
// (an old single-file AOF is upgraded by Load).
func ReadManifest(o Options) (*Manifest, error) {
	p := o.path(ManifestName(o.FileName))
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &Manifest{}, nil
	}
	if err != nil {
		return nil, failf(err, "Fatal error: can't open the AOF manifest file %s for reading: %s", p)
	}
	return ParseManifest(p, data)
}

// Exists reports whether o's directory holds an AOF for Load to read: a
// manifest naming files, or an old single-file AOF it would upgrade. A
// manifest that does not parse counts, so that Load reports it.
func Exists(o Options) bool {
	m, err := ReadManifest(o)
	return err != nil || m.Base != nil || len(m.Incr) > 0 || isRegular(filepath.Join(o.Dir, o.FileName))
}

// writeManifest replaces the manifest atomically as Redis does: a temp
// file, written and fsynced, renamed over the manifest, then the directory
// fsynced so the rename and any new files in it are durable.
func writeManifest(o *Options, m *Manifest) error {
	name := ManifestName(o.FileName)
	tmpName := tempManifestName(o.FileName)
	tmp := o.path(tmpName)
	text, err := m.Format()
	if err != nil {
		return failf(err, "Can't write the AOF manifest file %s: %s", tmpName)
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return failf(err, "Can't open the AOF manifest file %s: %s", tmpName)
	}
	defer f.Close()
	if _, err := f.Write(text); err != nil {
		return failf(err, "Error trying to write the temporary AOF manifest file %s: %s", tmpName)
	}
	if err := f.Sync(); err != nil {
		return failf(err, "Fail to fsync the temp AOF file %s: %s.", tmpName)
	}
	if err := os.Rename(tmp, o.path(name)); err != nil {
		return failf(err, "Error trying to rename the temporary AOF manifest file %s into %s: %s", tmpName, name)
	}
	if err := syncDir(o.dirPath()); err != nil {
		return failf(err, "Fail to fsync AOF directory %s: %s.", o.path(name))
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// mkdir is dirCreateIfMissing.
func mkdir(o *Options) error {
	if err := os.Mkdir(o.dirPath(), 0o755); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return failf(err, "Can't open or create append-only dir %s: %s", o.DirName)
		}
		if !isDir(o.dirPath()) {
			return failf(syscall.ENOTDIR, "Can't open or create append-only dir %s: %s", o.DirName)
		}
	}
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// upgradeIfNeeded moves an old-style single AOF (appendfilename in dir)
// into the AOF directory as its base, as Redis 7.0 does on its first
// start after an older version: when there is no AOF directory, or no
// manifest entries, or a manifest naming only that file as base while the
// file is not yet in the directory (an interrupted upgrade). The manifest
// is written before the move, so a crash in between is retried.
func upgradeIfNeeded(o *Options, m *Manifest) error {
	old := filepath.Join(o.Dir, o.FileName)
	if !isRegular(old) {
		return nil
	}
	if isDir(o.dirPath()) && !(m.Base == nil && len(m.Incr) == 0) &&
		!(m.Base != nil && len(m.Incr) == 0 && m.Base.Name == o.FileName && !isRegular(o.path(o.FileName))) {
		return nil
	}
	if err := mkdir(o); err != nil {
		return err
	}
	m.Base = &FileInfo{Name: o.FileName, Seq: 1, Type: TypeBase}
	m.BaseSeq = 1
	if err := writeManifest(o, m); err != nil {
		return err
	}
	if err := os.Rename(old, o.path(o.FileName)); err != nil {
		return failf(err, "Error trying to move the old AOF file %s into dir %s: %s", o.FileName, o.DirName)
	}
	o.logger().Info(fmt.Sprintf("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).", o.FileName, o.DirName))
	return nil
}
