package snapshot

import (
	"path/filepath"
	"testing"
	"time"
)

// rdb-key-save-delay and key-load-delay sleep once per key: a dump of n
// keys takes at least n delays to write and to load.
func TestKeyDelays(t *testing.T) {
	src, _ := newEngine()
	fill(t, src)
	keys := int(src.DB(0).Size())
	for db := 1; db < src.Databases(); db++ {
		keys += int(src.DB(db).Size())
	}
	const delay = 3000 // µs
	want := time.Duration(keys*delay) * time.Microsecond
	path := filepath.Join(t.TempDir(), "dump.rdb")
	start := time.Now()
	res, err := WriteFile(src, path, FileOptions{Checksum: true, KeySaveDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); int(res.Keys) != keys || took < want {
		t.Errorf("saved %d of %d keys in %v, want at least %v", res.Keys, keys, took, want)
	}
	dst, _ := newEngine()
	start = time.Now()
	lr, err := ReadFile(dst, path, LoadOptions{Limits: limits, KeyLoadDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); int(lr.Loaded+lr.Expired) != keys || took < want {
		t.Errorf("loaded %+v of %d keys in %v, want at least %v", lr, keys, took, want)
	}
}

// A negative delay -N sleeps a microsecond about once in N calls; -1
// always.
func TestDebugDelayNegative(t *testing.T) {
	start := time.Now()
	for i := 0; i < 1000; i++ {
		DebugDelay(-1 << 30) // almost never sleeps
	}
	cheap := time.Since(start)
	start = time.Now()
	for i := 0; i < 1000; i++ {
		DebugDelay(-1)
	}
	if slept := time.Since(start); slept < time.Millisecond || slept < cheap {
		t.Errorf("1000 × DebugDelay(-1) took %v (no sleep: %v); want at least 1000 µs", slept, cheap)
	}
}
