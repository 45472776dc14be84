package aof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func testOptions(t *testing.T) Options {
	return Options{Dir: t.TempDir(), DirName: "appendonlydir", FileName: "appendonly.aof", Logger: quiet}
}

// writeDir lays out an AOF directory: the manifest text and each file.
func writeDir(t *testing.T, o Options, manifest string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(o.dirPath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if manifest != "" {
		if err := os.WriteFile(o.path(ManifestName(o.FileName)), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		if err := os.WriteFile(o.path(name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func cmd(args ...string) string { return string(propagate.AppendCommand(nil, args...)) }

// collect loads o and returns the commands seen, space-joined.
func collect(o Options) ([]string, []string, LoadStats, error) {
	var cmds, notes []string
	st, err := Load(o, LoadCallbacks{
		Base: func(r *bufio.Reader) error { return readRDB(r, &cmds) },
		Command: func(args [][]byte) error {
			cmds = append(cmds, string(bytes.Join(args, []byte(" "))))
			return nil
		},
		Annotation: func(l []byte) { notes = append(notes, string(l)) },
	})
	return cmds, notes, st, err
}

// readRDB reads an RDB's string keys as "rdb k v" lines.
func readRDB(r io.Reader, out *[]string) error {
	return eachRDBString(r, func(_ int, k, v []byte) { *out = append(*out, fmt.Sprintf("rdb %s %s", k, v)) })
}

// eachRDBString hands each string key of an RDB to f.
func eachRDBString(r io.Reader, f func(db int, k, v []byte)) error {
	rr, err := rdb.NewReader(r)
	if err != nil {
		return err
	}
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Kind == rdb.KindKey && rec.Type == rdb.String {
			f(rec.DB, rec.Key, rec.Str)
		}
	}
}

const twoFiles = "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"

func TestLoadOrderAndAnnotations(t *testing.T) {
	o := testOptions(t)
	writeDir(t, o, twoFiles+"file appendonly.aof.3.incr.aof seq 3 type i\n", map[string]string{
		"appendonly.aof.1.base.aof": "#TS:1700000000\r\n" + cmd("SET", "a", "1"),
		"appendonly.aof.1.incr.aof": "",
		"appendonly.aof.3.incr.aof": cmd("SELECT", "2") + "#MC:x\r\n" + cmd("SET", "b", "two\r\nlines"),
	})
	cmds, notes, st, err := collect(o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cmds, "|") != "SET a 1|SELECT 2|SET b two\r\nlines" {
		t.Errorf("commands %q", cmds)
	}
	if strings.Join(notes, "") != "#TS:1700000000\r\n#MC:x\r\n" {
		t.Errorf("annotations %q", notes)
	}
	if st.Status != LoadOK || st.Files != 3 || st.Commands != 3 || st.BaseSize != int64(16+len(cmd("SET", "a", "1"))) {
		t.Errorf("stats %+v", st)
	}
}

func TestLoadRDBBaseAndPreamble(t *testing.T) {
	var b bytes.Buffer
	w, err := rdb.NewWriter(&b, rdb.WriterOptions{Checksum: true})
	if err != nil {
		t.Fatal(err)
	}
	w.SelectDB(0, 1, 0)
	w.String([]byte("k"), []byte("v"), rdb.NewMeta())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// An RDB base, then an incr file.
	o := testOptions(t)
	writeDir(t, o, "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n", map[string]string{
		"appendonly.aof.1.base.rdb": b.String(),
		"appendonly.aof.1.incr.aof": cmd("DEL", "k"),
	})
	cmds, _, _, err := collect(o)
	if err != nil || strings.Join(cmds, "|") != "rdb k v|DEL k" {
		t.Errorf("rdb base: %q %v", cmds, err)
	}
	// An AOF base with an RDB preamble and a tail (the pre-7.0 layout).
	o = testOptions(t)
	writeDir(t, o, twoFiles, map[string]string{
		"appendonly.aof.1.base.aof": b.String() + cmd("SET", "x", "y"),
		"appendonly.aof.1.incr.aof": cmd("DEL", "x"),
	})
	cmds, _, _, err = collect(o)
	if err != nil || strings.Join(cmds, "|") != "rdb k v|SET x y|DEL x" {
		t.Errorf("preamble: %q %v", cmds, err)
	}
	// A corrupt RDB base is refused in Redis's words.
	o = testOptions(t)
	writeDir(t, o, twoFiles, map[string]string{"appendonly.aof.1.base.aof": "REDIS0010garbage", "appendonly.aof.1.incr.aof": ""})
	if _, _, _, err = collect(o); err == nil || err.Error() != "Error reading the RDB base file appendonly.aof.1.base.aof, AOF loading aborted" {
		t.Errorf("corrupt base: %v", err)
	}
}

func TestLoadTruncatedTail(t *testing.T) {
	good := cmd("SET", "a", "1") + cmd("SET", "b", "2")
	for _, tail := range []string{"*3\r\n$3\r\nSET\r\n$1\r\nc", "*", "*2\r\n", "*1\r\n$4\r\nPI", "*1\r\n$4\r\nPING\r", "*1\r\n$2147483647\r\nab"} {
		t.Run(fmt.Sprintf("%q", tail), func(t *testing.T) {
			o := testOptions(t)
			writeDir(t, o, twoFiles, map[string]string{"appendonly.aof.1.base.aof": cmd("SET", "z", "0"), "appendonly.aof.1.incr.aof": good + tail})
			_, _, _, err := collect(o)
			want := "Unexpected end of file reading the append only file appendonly.aof.1.incr.aof. You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server."
			if err == nil || err.Error() != want {
				t.Fatalf("without aof-load-truncated: %v", err)
			}
			o.LoadTruncated = true
			cmds, _, st, err := collect(o)
			if err != nil || st.Status != LoadTruncated || len(cmds) != 3 {
				t.Fatalf("with aof-load-truncated: %q %+v %v", cmds, st, err)
			}
			data, _ := os.ReadFile(o.path("appendonly.aof.1.incr.aof"))
			if string(data) != good {
				t.Errorf("file after truncation %q", data)
			}
		})
	}
}

func TestLoadTruncatedNotLast(t *testing.T) {
	o := testOptions(t)
	o.LoadTruncated = true
	writeDir(t, o, twoFiles, map[string]string{"appendonly.aof.1.base.aof": cmd("SET", "z", "0") + "*2\r\n", "appendonly.aof.1.incr.aof": cmd("SET", "a", "1")})
	_, _, _, err := collect(o)
	if err == nil || !strings.HasPrefix(err.Error(), "Fatal error: the truncated file is not the last file") {
		t.Fatalf("err %v", err)
	}
	if data, _ := os.ReadFile(o.path("appendonly.aof.1.base.aof")); !strings.HasSuffix(string(data), "*2\r\n") {
		t.Errorf("an earlier file was truncated: %q", data)
	}
}

func TestLoadRevertsOpenTransaction(t *testing.T) {
	before := cmd("SET", "a", "1") + cmd("MULTI") + cmd("INCR", "n") + cmd("EXEC")
	o := testOptions(t)
	o.LoadTruncated = true
	writeDir(t, o, twoFiles, map[string]string{"appendonly.aof.1.base.aof": "", "appendonly.aof.1.incr.aof": before + cmd("MULTI") + cmd("SET", "b", "2")})
	cmds, _, st, err := collect(o)
	if err != nil || st.Status != LoadTruncated {
		t.Fatal(err, st)
	}
	if strings.Join(cmds, "|") != "SET a 1|MULTI|INCR n|EXEC" {
		t.Errorf("commands %q: the open transaction must not run", cmds)
	}
	if data, _ := os.ReadFile(o.path("appendonly.aof.1.incr.aof")); string(data) != before {
		t.Errorf("file %q", data)
	}
	// Without aof-load-truncated an open transaction refuses start-up.
	o.LoadTruncated = false
	writeDir(t, o, "", map[string]string{"appendonly.aof.1.incr.aof": before + cmd("MULTI")})
	if _, _, _, err := collect(o); err == nil || !strings.HasPrefix(err.Error(), "Unexpected end of file") {
		t.Errorf("err %v", err)
	}
}

func TestLoadBadFormat(t *testing.T) {
	for _, bad := range []string{"SET a 1\r\n", "*0\r\n", "*1\r\nPING\r\n", "*1\r\n$-1\r\n", "*-5\r\n", "*4294967296\r\n"} {
		o := testOptions(t)
		o.LoadTruncated = true
		writeDir(t, o, twoFiles, map[string]string{"appendonly.aof.1.base.aof": "", "appendonly.aof.1.incr.aof": cmd("SET", "a", "1") + bad})
		_, _, _, err := collect(o)
		var le *LoadError
		if !errors.As(err, &le) || le.Msg != "Bad file format reading the append only file appendonly.aof.1.incr.aof: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>" {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestLoadUnknownCommand(t *testing.T) {
	o := testOptions(t)
	writeDir(t, o, twoFiles, map[string]string{"appendonly.aof.1.base.aof": "", "appendonly.aof.1.incr.aof": cmd("NOPE", "x")})
	_, err := Load(o, LoadCallbacks{Command: func(args [][]byte) error { return fmt.Errorf("%w: %s", ErrUnknownCommand, args[0]) }})
	if err == nil || err.Error() != "Unknown command 'NOPE' reading the append only file appendonly.aof.1.incr.aof" {
		t.Errorf("err %v", err)
	}
}

func TestLoadMissingFileAndEmpty(t *testing.T) {
	o := testOptions(t)
	writeDir(t, o, twoFiles+"file appendonly.aof.2.incr.aof seq 2 type i\n", map[string]string{"appendonly.aof.1.base.aof": "", "appendonly.aof.2.incr.aof": ""})
	_, _, _, err := collect(o)
	if err == nil || err.Error() != "Unable to obtain the AOF file appendonly.aof.1.incr.aof length. stat: No such file or directory" {
		t.Errorf("missing: %v", err)
	}
	o = testOptions(t)
	writeDir(t, o, twoFiles, map[string]string{"appendonly.aof.1.base.aof": "", "appendonly.aof.1.incr.aof": ""})
	if _, _, st, err := collect(o); err != nil || st.Status != LoadEmpty {
		t.Errorf("empty: %+v %v", st, err)
	}
	o = testOptions(t)
	if _, _, st, err := collect(o); err != nil || st.Status != LoadNotExist {
		t.Errorf("nothing: %+v %v", st, err)
	}
}

func TestLoadUpgradesOldAOF(t *testing.T) {
	o := testOptions(t)
	old := cmd("SET", "old", "1")
	if err := os.WriteFile(filepath.Join(o.Dir, o.FileName), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, _, _, err := collect(o)
	if err != nil || strings.Join(cmds, "|") != "SET old 1" {
		t.Fatalf("%q %v", cmds, err)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, o.FileName)); !os.IsNotExist(err) {
		t.Errorf("old file still in dir: %v", err)
	}
	m, err := ReadManifest(o)
	if err != nil {
		t.Fatal(err)
	}
	if s := formatted(t, m); s != "file appendonly.aof seq 1 type b\n" {
		t.Errorf("manifest %q", s)
	}
	// Open continues from there: a first incr file after the old base.
	l, err := Open(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	m, _ = ReadManifest(o)
	if s := formatted(t, m); s != "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" {
		t.Errorf("manifest after Open %q", s)
	}
}
