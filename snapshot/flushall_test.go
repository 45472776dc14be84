package snapshot

import (
	"bytes"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// FLUSHALL, as Redis's flushAllDataAndResetRDB: a running BGSAVE of the
// data that is gone is aborted (no error status), and with save rules the
// emptied keyspace is saved, so a restart does not bring the keys back.
func TestFlushedAllAbortsTheBGSaveAndSavesTheEmptyKeyspace(t *testing.T) {
	dir := t.TempDir()
	// 100 keys at 20 ms each: the BGSAVE would take 2 s.
	cfg, err := conf.Load([]string{"--dir", dir, "--save", "3600 1", "--rdb-key-save-delay", "20000"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{ShardBits: 2})
	for i := 0; i < 100; i++ {
		if _, err := eng.DB(0).Set([]byte(fmt.Sprint("k", i)), []byte("v"), engine.SetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var logBuf bytes.Buffer
	m := New(Options{Engine: eng, Config: cfg, Logger: slog.New(slog.NewTextHandler(&logBuf, nil)),
		Limits: func() engine.RestoreLimits { return limits }})
	if _, err := m.BGSave(false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the dump has begun: keys are being written
	eng.FlushAll()
	start := time.Now()
	if err := m.FlushedAll(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("FlushedAll took %v: the BGSAVE was not aborted", took)
	}
	in := m.Info()
	if in.BGSaveInProgress || !in.LastBGSaveOK || in.ChangesSinceLastSave != 0 || in.Saves != 1 {
		t.Errorf("after FLUSHALL: %+v, want no BGSAVE running, status ok, 0 changes, 1 save", in)
	}
	if !strings.Contains(logBuf.String(), "Background saving aborted") {
		t.Errorf("the log does not say the BGSAVE was aborted:\n%s", logBuf.String())
	}
	back := engine.New(engine.Options{ShardBits: 2})
	res, err := ReadFile(back, filepath.Join(dir, "dump.rdb"), LoadOptions{Limits: limits})
	if err != nil || res.Loaded != 0 {
		t.Errorf("the dump after FLUSHALL loads %d keys (%v), want 0", res.Loaded, err)
	}

	// Without save rules nothing is saved.
	cfg2, _ := conf.Load([]string{"--dir", t.TempDir(), "--save", ""}, nil)
	m2 := New(Options{Engine: eng, Config: cfg2, Limits: func() engine.RestoreLimits { return limits }})
	if err := m2.FlushedAll(); err != nil || m2.Info().Saves != 0 {
		t.Errorf("FlushedAll without rules: %v, %d saves", err, m2.Info().Saves)
	}
}
