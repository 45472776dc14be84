package aof

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tandemkv/tandem/propagate"
)

// hookFile is a real incr file that counts syncs, can make them slow, and
// fails writes while failWrites is set (after writing partial bytes).
type hookFile struct {
	File
	syncs      *atomic.Int64
	syncDelay  time.Duration
	failWrites *atomic.Int64 // 0 ok; n>0: write n-1 bytes then ENOSPC
}

func (f *hookFile) Sync() error {
	f.syncs.Add(1)
	time.Sleep(f.syncDelay)
	return f.File.Sync()
}

func (f *hookFile) Write(p []byte) (int, error) {
	if n := f.failWrites.Load(); n > 0 {
		part := min(int(n-1), len(p))
		w, _ := f.File.Write(p[:part])
		return w, syscall.ENOSPC
	}
	return f.File.Write(p)
}

type hooks struct {
	syncs, failWrites atomic.Int64
	syncDelay         time.Duration
}

func (h *hooks) install(o *Options) {
	o.OpenFile = func(path string) (File, error) {
		f, err := openAppend(path)
		if err != nil {
			return nil, err
		}
		return &hookFile{File: f, syncs: &h.syncs, syncDelay: h.syncDelay, failWrites: &h.failWrites}, nil
	}
}

func emptyBase(w io.Writer, kind BaseKind) error { return nil }

func openTest(t *testing.T, o Options) *Log {
	t.Helper()
	l, err := Open(o, emptyBase)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// Many goroutines appending and waiting: every write is durable when
// WaitDurable returns, and one fdatasync serves many of them.
func TestGroupCommit(t *testing.T) {
	o := testOptions(t)
	o.Fsync = FsyncAlways
	var h hooks
	h.syncDelay = 2 * time.Millisecond
	h.install(&o)
	l := openTest(t, o)
	const workers, each = 32, 50
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				seq := l.Append(-1, propagate.AppendCommand(nil, "SET", fmt.Sprintf("k%d", w), fmt.Sprint(i)))
				if err := l.WaitDurable(seq); err != nil {
					t.Error(err)
					return
				}
				l.mu.Lock()
				ok := l.synced >= seq
				l.mu.Unlock()
				if !ok {
					t.Error("WaitDurable returned before its bytes were synced")
				}
			}
		}(w)
	}
	wg.Wait()
	syncs := h.syncs.Load()
	t.Logf("%d commits, %d fdatasyncs (%.1f commits per sync)", workers*each, syncs, float64(workers*each)/float64(syncs))
	if syncs == 0 || syncs > workers*each/4 {
		t.Errorf("%d syncs for %d commits: no group commit", syncs, workers*each)
	}
	l.Close()
	var n int
	if _, err := Load(o, LoadCallbacks{Command: func([][]byte) error { n++; return nil }}); err != nil || n != workers*each {
		t.Errorf("reloaded %d commands, %v", n, err)
	}
}

func TestAppendSelectAndTimestamps(t *testing.T) {
	o := testOptions(t)
	o.Fsync = FsyncNo
	o.TimestampEnabled = true
	now := int64(1700000000)
	o.Now = func() time.Time { return time.Unix(atomic.LoadInt64(&now), 0) }
	l := openTest(t, o)
	l.Append(0, propagate.AppendCommand(nil, "SET", "a", "1"))
	l.Append(0, propagate.AppendCommand(nil, "SET", "b", "1"))
	atomic.StoreInt64(&now, now+1)
	l.Append(3, propagate.AppendCommand(nil, "SET", "c", "1"))
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(o.path(l.Stats().IncrFile))
	want := "#TS:1700000000\r\n" + cmd("SELECT", "0") + cmd("SET", "a", "1") + cmd("SET", "b", "1") +
		"#TS:1700000001\r\n" + cmd("SELECT", "3") + cmd("SET", "c", "1")
	if string(data) != want {
		t.Errorf("incr file\n%q\nwant\n%q", data, want)
	}
	// After a rotation the new file selects again.
	rw, err := l.BeginRewrite()
	if err != nil {
		t.Fatal(err)
	}
	l.Append(3, propagate.AppendCommand(nil, "SET", "d", "1"))
	l.Flush()
	rw.Abort()
	data, _ = os.ReadFile(o.path(l.Stats().IncrFile))
	if string(data) != cmd("SELECT", "3")+cmd("SET", "d", "1") {
		t.Errorf("new incr file %q", data)
	}
}

// A failing disk: writes are refused with Redis's MISCONF text, the
// partial write is cut off the file, and the next successful write
// recovers with nothing lost or doubled.
func TestWriteErrorRefusesThenRecovers(t *testing.T) {
	o := testOptions(t)
	o.Fsync = FsyncEverySec
	var h hooks
	h.install(&o)
	l := openTest(t, o)
	l.Append(-1, propagate.AppendCommand(nil, "SET", "a", "1"))
	if err := l.Flush(); err != nil || l.WritesRefused() != "" {
		t.Fatal(err, l.WritesRefused())
	}
	h.failWrites.Store(6) // five bytes get through, then ENOSPC
	l.Append(-1, propagate.AppendCommand(nil, "SET", "b", "2"))
	if err := l.Flush(); err == nil {
		t.Fatal("Flush succeeded on a failing disk")
	}
	if got := l.WritesRefused(); got != "MISCONF Errors writing to the AOF file: No space left on device" {
		t.Errorf("WritesRefused %q", got)
	}
	if st := l.Stats(); st.LastWriteOK || st.BufferLength != len(cmd("SET", "b", "2")) {
		t.Errorf("stats %+v", st)
	}
	name := l.Stats().IncrFile
	if data, _ := os.ReadFile(o.path(name)); string(data) != cmd("SET", "a", "1") {
		t.Errorf("the partial write stayed in the file: %q", data)
	}
	h.failWrites.Store(0)
	l.Append(-1, propagate.AppendCommand(nil, "SET", "c", "3"))
	if err := l.Flush(); err != nil || l.WritesRefused() != "" {
		t.Fatal(err, l.WritesRefused())
	}
	if data, _ := os.ReadFile(o.path(name)); string(data) != cmd("SET", "a", "1")+cmd("SET", "b", "2")+cmd("SET", "c", "3") {
		t.Errorf("after recovery %q", data)
	}
}

// The background tick retries a failed write by itself (serverCron).
func TestWriteErrorRetriedInBackground(t *testing.T) {
	o := testOptions(t)
	o.Fsync = FsyncNo
	var h hooks
	h.install(&o)
	l := openTest(t, o)
	h.failWrites.Store(1)
	l.Append(-1, propagate.AppendCommand(nil, "SET", "a", "1"))
	l.Flush()
	if l.WritesRefused() == "" {
		t.Fatal("not refused")
	}
	h.failWrites.Store(0)
	l.tick()
	if l.WritesRefused() != "" || l.Stats().BufferLength != 0 {
		t.Errorf("tick did not recover: %q", l.WritesRefused())
	}
}

func TestAlwaysWriteErrorIsFatal(t *testing.T) {
	o := testOptions(t)
	o.Fsync = FsyncAlways
	var h hooks
	h.install(&o)
	l := openTest(t, o)
	h.failWrites.Store(1)
	err := l.WaitDurable(l.Append(-1, propagate.AppendCommand(nil, "SET", "a", "1")))
	if err == nil || err.Error() != "Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting..." {
		t.Errorf("err %v", err)
	}
}

func TestEverysecSyncsOffTheCaller(t *testing.T) {
	o := testOptions(t)
	o.Fsync = FsyncEverySec
	var h hooks
	h.install(&o)
	l := openTest(t, o)
	for i := 0; i < 100; i++ {
		l.Append(-1, propagate.AppendCommand(nil, "INCR", "n"))
		l.Flush()
	}
	if n := h.syncs.Load(); n != 0 {
		t.Errorf("Flush synced %d times under everysec", n)
	}
	l.SyncNow()
	l.SyncNow() // nothing new: no second sync
	if n := h.syncs.Load(); n != 1 {
		t.Errorf("%d syncs, want 1", n)
	}
	// no-appendfsync-on-rewrite holds syncs back during a rewrite.
	l.SetNoFsyncOnRewrite(true)
	rw, _ := l.BeginRewrite()
	l.Append(-1, propagate.AppendCommand(nil, "INCR", "n"))
	l.Flush()
	l.SyncNow()
	waitNoPendingFsync(t, l)
	// The one sync is the old file's close job, as Redis's bio close.
	if n := h.syncs.Load(); n != 2 {
		t.Errorf("synced during a rewrite with no-appendfsync-on-rewrite: %d", n)
	}
	rw.Abort()
	l.SyncNow()
	if n := h.syncs.Load(); n != 3 {
		t.Errorf("%d syncs after the rewrite, want 2", n)
	}
}

func dirFiles(t *testing.T, o Options) string {
	ents, _ := os.ReadDir(o.dirPath())
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

func loadAll(t *testing.T, o Options) []string {
	t.Helper()
	cmds, _, _, err := collect(o)
	if err != nil {
		t.Fatal(err)
	}
	return cmds
}

func TestRewriteCommit(t *testing.T) {
	o := testOptions(t)
	o.Fsync = FsyncEverySec
	l := openTest(t, o)
	l.Append(-1, propagate.AppendCommand(nil, "SET", "a", "1"))
	l.Append(-1, propagate.AppendCommand(nil, "SET", "b", "1"))
	rw, err := l.BeginRewrite()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.BeginRewrite(); err != ErrRewriteInProgress {
		t.Errorf("second rewrite: %v", err)
	}
	l.Append(-1, propagate.AppendCommand(nil, "SET", "c", "1"))
	l.Flush()
	if err := rw.WriteBase(func(w io.Writer, kind BaseKind) error {
		if kind != BaseAOF {
			t.Errorf("kind %v", kind)
		}
		_, err := io.WriteString(w, cmd("MSET", "a", "1", "b", "1"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := dirFiles(t, o); got != "appendonly.aof.2.base.aof appendonly.aof.2.incr.aof appendonly.aof.manifest" {
		t.Errorf("dir: %s", got)
	}
	m, _ := ReadManifest(o)
	if formatted(t, m) != "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Errorf("manifest %q", formatted(t, m))
	}
	st := l.Stats()
	if st.Rewrites != 1 || !st.LastBgrewriteOK || st.RewriteInProgress || st.BaseSize != st.CurrentSize || st.CurrentSize != int64(len(cmd("MSET", "a", "1", "b", "1"))+len(cmd("SET", "c", "1"))) {
		t.Errorf("stats %+v", st)
	}
	l.Close()
	if got := strings.Join(loadAll(t, o), "|"); got != "MSET a 1 b 1|SET c 1" {
		t.Errorf("loaded %q", got)
	}
}

func TestRewriteKeepsHistoryWithoutGC(t *testing.T) {
	o := testOptions(t)
	o.DisableAutoGC = true
	o.UseRDBPreamble = true
	l := openTest(t, o)
	rw, _ := l.BeginRewrite()
	if rw.Kind() != BaseRDB {
		t.Errorf("kind %v", rw.Kind())
	}
	rw.WriteBase(writeEmptyRDB)
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	m, _ := ReadManifest(o)
	if formatted(t, m) != "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.1.base.rdb seq 1 type h\nfile appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Errorf("manifest %q", formatted(t, m))
	}
}

// A crash at each step of a rewrite leaves a directory that loads to the
// same data: the old manifest and its files until the new manifest's
// rename, the new ones after.
func TestRewriteCrashPoints(t *testing.T) {
	for _, stop := range []string{"after begin", "during base", "after base", "after rename", "after manifest"} {
		t.Run(stop, func(t *testing.T) {
			o := testOptions(t)
			l := openTest(t, o)
			l.Append(-1, propagate.AppendCommand(nil, "SET", "a", "1"))
			rw, err := l.BeginRewrite()
			if err != nil {
				t.Fatal(err)
			}
			l.Append(-1, propagate.AppendCommand(nil, "SET", "b", "2"))
			l.Flush()
			switch stop {
			case "during base":
				rw.WriteBase(func(w io.Writer, _ BaseKind) error {
					io.WriteString(w, "*3\r\n$3\r\nSET")
					return fmt.Errorf("disk gone")
				})
				// A crash leaves the temp file: put one there.
				os.WriteFile(o.path(rw.tmp), []byte("*3\r\n$3"), 0o644)
			case "after base", "after rename", "after manifest":
				if err := rw.WriteBase(func(w io.Writer, _ BaseKind) error { _, err := io.WriteString(w, cmd("SET", "a", "1")); return err }); err != nil {
					t.Fatal(err)
				}
			}
			switch stop {
			case "after rename":
				// The base renamed in, the manifest not yet written.
				os.Rename(o.path(rw.tmp), o.path("appendonly.aof.2.base.aof"))
			case "after manifest":
				// Committed, history not yet deleted.
				o2 := o
				o2.DisableAutoGC = true
				l.disableGC.Store(true)
				if err := rw.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			// Crash: drop the Log without closing (its files are flushed).
			if got := strings.Join(loadAll(t, o), "|"); got != "SET a 1|SET b 2" {
				t.Fatalf("after a crash %s: loaded %q (dir %s)", stop, got, dirFiles(t, o))
			}
			// Restart: Open cleans temp files and deletes history; a new
			// rewrite then works.
			l.Close()
			l2 := openTest(t, o)
			if strings.Contains(dirFiles(t, o), "temp-") {
				t.Errorf("temp files left: %s", dirFiles(t, o))
			}
			rw2, err := l2.BeginRewrite()
			if err != nil {
				t.Fatal(err)
			}
			rw2.WriteBase(func(w io.Writer, _ BaseKind) error {
				_, err := io.WriteString(w, cmd("MSET", "a", "1", "b", "2"))
				return err
			})
			if err := rw2.Commit(); err != nil {
				t.Fatal(err)
			}
			l2.Close()
			if got := strings.Join(loadAll(t, o), "|"); got != "MSET a 1 b 2" {
				t.Errorf("after the next rewrite: %q (dir %s)", got, dirFiles(t, o))
			}
		})
	}
}

func writeEmptyRDB(w io.Writer, kind BaseKind) error {
	bw := bufio.NewWriter(w)
	// REDIS0010, EOF opcode, 8-byte zero checksum: the smallest RDB.
	bw.WriteString("REDIS0010\xff\x00\x00\x00\x00\x00\x00\x00\x00")
	return bw.Flush()
}

func waitNoPendingFsync(t *testing.T, l *Log) {
	for i := 0; l.pendingFsync.Load() != 0; i++ {
		if i > 1000 {
			t.Fatal("close job never ended")
		}
		time.Sleep(time.Millisecond)
	}
}

// CONFIG SET appendonly yes: appends go to a temp incr file at once; the
// first rewrite's Commit names it with the new base; until then the
// directory loads as it was.
func TestEnableAtRunTime(t *testing.T) {
	o := testOptions(t)
	old := openTest(t, o)
	old.Append(-1, propagate.AppendCommand(nil, "SET", "stale", "1"))
	old.Close()

	l, rw, err := Enable(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	l.Append(0, propagate.AppendCommand(nil, "SET", "b", "2"))
	l.Flush()
	if got := strings.Join(loadAll(t, o), "|"); got != "SET stale 1" {
		t.Errorf("before the first commit: %q", got)
	}
	// A failed first rewrite; the retry starts the temp file over, since
	// its base covers what was appended so far.
	rw.Abort()
	rw, err = l.BeginRewrite()
	if err != nil {
		t.Fatal(err)
	}
	l.Append(0, propagate.AppendCommand(nil, "SET", "c", "3"))
	l.Flush()
	rw.WriteBase(func(w io.Writer, _ BaseKind) error {
		_, err := io.WriteString(w, cmd("MSET", "a", "1", "b", "2"))
		return err
	})
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	l.Append(0, propagate.AppendCommand(nil, "SET", "d", "4"))
	l.Flush()
	if got := strings.Join(loadAll(t, o), "|"); got != "MSET a 1 b 2|SELECT 0|SET c 3|SET d 4" {
		t.Errorf("after commit: %q", got)
	}
	m, _ := ReadManifest(o)
	if formatted(t, m) != "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Errorf("manifest %q", formatted(t, m))
	}
	if got := dirFiles(t, o); got != "appendonly.aof.2.base.aof appendonly.aof.2.incr.aof appendonly.aof.manifest" {
		t.Errorf("dir %s", got)
	}
}

func TestClosed(t *testing.T) {
	o := testOptions(t)
	l := openTest(t, o)
	rw, _ := l.BeginRewrite()
	rw.WriteBase(emptyBase)
	l.Close()
	if err := rw.Commit(); err != ErrClosed {
		t.Errorf("Commit after Close: %v", err)
	}
	if err := l.Flush(); err != ErrClosed {
		t.Errorf("Flush after Close: %v", err)
	}
	l.SetFsync(FsyncAlways)
	if err := l.WaitDurable(l.Append(0, propagate.AppendCommand(nil, "PING"))); err != ErrClosed {
		t.Errorf("WaitDurable after Close: %v", err)
	}
	if _, err := l.BeginRewrite(); err != ErrClosed {
		t.Errorf("BeginRewrite after Close: %v", err)
	}
	m, _ := ReadManifest(o)
	if m.BaseSeq != 1 {
		t.Errorf("a closed Log's rewrite committed: %q", formatted(t, m))
	}
}

// BGREWRITEAOF while appendonly is no: the new base is the manifest's
// only file, the files it replaces are deleted (or kept as history
// without auto GC), and a later start loads just the base.
func TestRewriteWhileOff(t *testing.T) {
	for _, gc := range []bool{true, false} {
		o := testOptions(t)
		o.Fsync = FsyncEverySec
		o.DisableAutoGC = !gc
		l := openTest(t, o)
		l.Append(-1, propagate.AppendCommand(nil, "SET", "old", "1"))
		l.Close()
		base := func(w io.Writer, kind BaseKind) error {
			if kind != BaseAOF {
				t.Errorf("kind %v", kind)
			}
			_, err := io.WriteString(w, cmd("SET", "now", "1"))
			return err
		}
		if err := RewriteWhileOff(o, base); err != nil {
			t.Fatal(err)
		}
		m, _ := ReadManifest(o)
		want, files := "file appendonly.aof.2.base.aof seq 2 type b\n", "appendonly.aof.2.base.aof appendonly.aof.manifest"
		if !gc {
			want += "file appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.1.base.aof seq 1 type h\n"
			files = "appendonly.aof.1.base.aof appendonly.aof.1.incr.aof " + files
		}
		if formatted(t, m) != want {
			t.Errorf("gc %v: manifest %q, want %q", gc, formatted(t, m), want)
		}
		if got := dirFiles(t, o); got != files {
			t.Errorf("gc %v: dir %s, want %s", gc, got, files)
		}
		if got := strings.Join(loadAll(t, o), "|"); got != "SET now 1" {
			t.Errorf("gc %v: loaded %q", gc, got)
		}
	}
	// Into an empty directory, with the RDB preamble: the first base.
	o := testOptions(t)
	o.UseRDBPreamble = true
	if err := RewriteWhileOff(o, writeEmptyRDB); err != nil {
		t.Fatal(err)
	}
	if m, _ := ReadManifest(o); formatted(t, m) != "file appendonly.aof.1.base.rdb seq 1 type b\n" {
		t.Errorf("empty dir: manifest %q", formatted(t, m))
	}
}

// DEBUG AOF-FLUSH-SLEEP: the sleep comes before the write, so under
// always a waiter returns no sooner than it, with its bytes in the file.
func TestFlushSleepComesBeforeTheWrite(t *testing.T) {
	o := testOptions(t)
	o.Fsync = FsyncAlways
	var asked atomic.Int64
	const sleep = 30 * time.Millisecond
	o.FlushSleep = func() time.Duration { asked.Add(1); return sleep }
	l := openTest(t, o)
	start := time.Now()
	seq := l.Append(-1, propagate.AppendCommand(nil, "INCR", "x"))
	if err := l.WaitDurable(seq); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < sleep || asked.Load() == 0 {
		t.Errorf("WaitDurable took %v and asked the sleep %d times; want at least %v after asking", took, asked.Load(), sleep)
	}
	l.mu.Lock()
	written := l.written
	l.mu.Unlock()
	if written < seq {
		t.Errorf("written %d, want %d", written, seq)
	}
}
