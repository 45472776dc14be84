package snapshot

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// Issue 12, defect 7: a crash during a save leaves its temp-*.rdb; a crash
// loop during saves filled the disk. At start the manager removes every
// file of Tandem's temporary-dump name form in dir, and nothing else.
func TestLoadAtStartRemovesStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	cfg, err := conf.Load([]string{"--dir", dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := engine.New(engine.Options{ShardBits: 2})
	if _, err := src.DB(0).Set([]byte("k"), []byte("v"), engine.SetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFile(src, filepath.Join(dir, "dump.rdb"), FileOptions{Checksum: true}); err != nil {
		t.Fatal(err)
	}
	stale := []string{"temp-1-1.rdb", "temp-" + strconv.Itoa(os.Getpid()) + "-3.rdb", "temp-4194304-12345.rdb"}
	keep := []string{"dump.rdb", "temp-12.rdb" /* redis-server's name form */, "temp-1-1.rdb.old", "temp--1.rdb",
		"temp-1-.rdb", "temp-a-1.rdb", "temp-1-1.rdbx", "xtemp-1-1.rdb", "temp-1-1-1.rdb", "notes.txt"}
	for _, name := range append(slices.Clone(stale), keep[1:]...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial dump"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "temp-2-2.rdb"), 0o755); err != nil { // not a regular file: kept
		t.Fatal(err)
	}
	keep = append(keep, "temp-2-2.rdb")

	var logBuf bytes.Buffer
	eng := engine.New(engine.Options{ShardBits: 2})
	m := New(Options{Engine: eng, Config: cfg, Logger: slog.New(slog.NewTextHandler(&logBuf, nil)),
		Limits: func() engine.RestoreLimits { return limits }})
	res, err := m.LoadAtStart()
	if err != nil {
		t.Fatal(err)
	}
	if res.Loaded != 1 {
		t.Errorf("loaded %d keys, want 1", res.Loaded)
	}
	for _, name := range stale {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s: not removed (%v)", name, err)
		}
		if !strings.Contains(logBuf.String(), filepath.Join(dir, name)) {
			t.Errorf("the log does not name %s:\n%s", name, logBuf.String())
		}
	}
	for _, name := range keep {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s must survive: %v", name, err)
		}
	}
	// Nothing to remove, or no directory at all, is no error.
	if _, err := m.LoadAtStart(); err != nil {
		t.Fatal(err)
	}
	if removed, err := RemoveStaleTemp(filepath.Join(dir, "missing")); err != nil || removed != nil {
		t.Errorf("missing dir: %v %v", removed, err)
	}
}

// The names WriteFile gives its temporary files are the ones removed.
func TestTempNameIsRecognized(t *testing.T) {
	for _, name := range []string{tempName(1, 1), tempName(os.Getpid(), tempSeq.Load()+1), tempName(1<<22, 1<<40)} {
		if !isTempName(name) {
			t.Errorf("isTempName(%q) = false", name)
		}
	}
}
