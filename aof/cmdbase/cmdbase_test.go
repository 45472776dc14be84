package cmdbase

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/aof"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

// dump builds an RDB stream with fill.
func dump(t *testing.T, fill func(w *rdb.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := rdb.NewWriter(&b, rdb.WriterOptions{Compress: true, Checksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := fill(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// commands converts an RDB stream and returns its commands, each as its
// arguments joined by spaces.
func commands(t *testing.T, rdbStream []byte) []string {
	t.Helper()
	var out bytes.Buffer
	if err := Write(&out, bytes.NewReader(rdbStream)); err != nil {
		t.Fatal(err)
	}
	r := aof.NewReader(&out, 0)
	var cmds []string
	for {
		args, ann, err := r.Next()
		if err == io.EOF {
			return cmds
		}
		if err != nil || ann != nil {
			t.Fatalf("the output is not AOF commands: %v %q", err, ann)
		}
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = string(a)
		}
		cmds = append(cmds, strings.Join(s, " "))
	}
}

func elems(prefix string, n int) [][]byte {
	var e [][]byte
	for i := range n {
		e = append(e, []byte(prefix+strconv.Itoa(i)))
	}
	return e
}

func join(b [][]byte) string { return string(bytes.Join(b, []byte(" "))) }

func check(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStringsAndExpiries(t *testing.T) {
	m := rdb.NewMeta()
	exp := m
	exp.ExpireAtMs = 1893456000123
	got := commands(t, dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 3, 1)
		w.String([]byte("s"), []byte("v"), m)
		w.String([]byte("n"), []byte("12345"), m) // integer-encoded in the RDB
		w.String([]byte("bin\r\n"), []byte("\x00\xff"), exp)
		return w.List([]byte("l"), [][]byte{[]byte("a")}, exp)
	}))
	check(t, got, []string{
		"SELECT 0",
		"SET s v",
		"SET n 12345",
		"SET bin\r\n \x00\xff", "PEXPIREAT bin\r\n 1893456000123",
		"RPUSH l a", "PEXPIREAT l 1893456000123",
	})
}

// TestCollectionsSplitEvery64 checks that a collection takes one command
// per 64 items (Redis's AOF_REWRITE_ITEMS_PER_CMD), in order, and the
// last one the rest.
func TestCollectionsSplitEvery64(t *testing.T) {
	m := rdb.NewMeta()
	list := elems("e", 130)
	set := elems("m", 65)
	fields, values := elems("f", 64), elems("v", 64)
	got := commands(t, dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 3, 0)
		w.List([]byte("l"), list, m)
		w.Set([]byte("s"), set, m)
		return w.Hash([]byte("h"), fields, values, m)
	}))
	var pairs []string
	for i := range fields {
		pairs = append(pairs, string(fields[i])+" "+string(values[i]))
	}
	check(t, got, []string{
		"SELECT 0",
		"RPUSH l " + join(list[:64]), "RPUSH l " + join(list[64:128]), "RPUSH l " + join(list[128:]),
		"SADD s " + join(set[:64]), "SADD s " + join(set[64:]),
		"HMSET h " + strings.Join(pairs, " "),
	})
}

func TestSortedSetScores(t *testing.T) {
	members := []rdb.Member{
		{Member: []byte("a"), Score: 3}, {Member: []byte("b"), Score: 0.1}, {Member: []byte("c"), Score: -1.5e-10},
		{Member: []byte("d"), Score: 1e20}, {Member: []byte("e"), Score: math.Inf(1)}, {Member: []byte("f"), Score: math.Inf(-1)},
	}
	var big []rdb.Member
	for i := range 65 {
		big = append(big, rdb.Member{Member: []byte("m" + strconv.Itoa(i)), Score: float64(i)})
	}
	got := commands(t, dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 2, 0)
		w.ZSet([]byte("z"), members, rdb.NewMeta())
		return w.ZSet([]byte("big"), big, rdb.NewMeta())
	}))
	var first []string
	for _, m := range big[:64] {
		first = append(first, fmt.Sprint(m.Score)+" "+string(m.Member))
	}
	// The scores as C's %.17g prints them (rioWriteBulkDouble).
	check(t, got, []string{
		"SELECT 0",
		"ZADD z 3 a 0.10000000000000001 b -1.5e-10 c 1e+20 d inf e -inf f",
		"ZADD big " + strings.Join(first, " "), "ZADD big 64 m64",
	})
}

// TestDatabasesSelectedAtTheirFirstKey: a database is selected once,
// before its first key, and one the dump names without keys not at all.
func TestDatabasesSelectedAtTheirFirstKey(t *testing.T) {
	m := rdb.NewMeta()
	got := commands(t, dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 0, 0)
		w.SelectDB(3, 2, 0)
		w.String([]byte("a"), []byte("1"), m)
		w.String([]byte("b"), []byte("2"), m)
		w.SelectDB(7, 0, 0)
		w.SelectDB(15, 1, 0)
		return w.String([]byte("c"), []byte("3"), m)
	}))
	check(t, got, []string{"SELECT 3", "SET a 1", "SET b 2", "SELECT 15", "SET c 3"})
	if got := commands(t, dump(t, func(w *rdb.Writer) error { return w.SelectDB(0, 0, 0) })); len(got) != 0 {
		t.Errorf("an empty dump gave %q", got)
	}
}

func TestFunctionsComeFirst(t *testing.T) {
	lib1 := "#!lua name=one\nredis.register_function('f1', function() return 1 end)"
	lib2 := "#!lua name=two\nredis.register_function('f2', function() return 2 end)"
	got := commands(t, dump(t, func(w *rdb.Writer) error {
		w.Function([]byte(lib1))
		w.Function([]byte(lib2))
		w.SelectDB(0, 1, 0)
		return w.String([]byte("k"), []byte("v"), rdb.NewMeta())
	}))
	check(t, got, []string{"FUNCTION LOAD " + lib1, "FUNCTION LOAD " + lib2, "SELECT 0", "SET k v"})
}

// TestMemcachedItemsKeepTheirNote: an item's flags and CAS go in the note
// the write stream uses, before a SET with its expiry as PXAT.
func TestMemcachedItemsKeepTheirNote(t *testing.T) {
	item := rdb.NewMeta()
	item.MCFlags, item.MCCAS = 42, 7
	expiring := item
	expiring.MCFlags, expiring.MCCAS, expiring.ExpireAtMs = 0, 9, 1893456000000
	got := commands(t, dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 3, 1)
		w.String([]byte("mc"), []byte("v"), item)
		w.String([]byte("mcx"), []byte("w"), expiring)
		return w.String([]byte("plain"), []byte("x"), rdb.NewMeta())
	}))
	check(t, got, []string{
		"SELECT 0",
		"PING MC 42 7", "SET mc v",
		"PING MC 0 9", "SET mcx w PXAT 1893456000000",
		"SET plain x",
	})
	n, ok := propagate.NoteOf([][]byte{[]byte("PING"), []byte("MC 42 7")})
	if !ok || !n.Item || n.Flags != 42 || n.CAS != 7 {
		t.Errorf("the note reads back as %+v %v", n, ok)
	}
}

func TestStreams(t *testing.T) {
	id := func(ms, seq uint64) rdb.StreamID { return rdb.StreamID{Ms: ms, Seq: seq} }
	s := &rdb.Stream{
		Nodes: []rdb.StreamNode{{
			Master:       id(1, 0),
			MasterFields: [][]byte{[]byte("f")},
			Entries: []rdb.StreamNodeEntry{
				{ID: id(1, 0), SameFields: true, Fields: [][]byte{[]byte("f"), []byte("1")}},
				{ID: id(1, 1), Deleted: true, SameFields: true, Fields: [][]byte{[]byte("f"), []byte("2")}},
				{ID: id(2, 0), Fields: [][]byte{[]byte("a"), []byte("x"), []byte("b"), []byte("y")}},
			},
		}, {
			Master:       id(5, 0),
			MasterFields: [][]byte{[]byte("g")},
			Entries:      []rdb.StreamNodeEntry{{ID: id(5, 0), SameFields: true, Fields: [][]byte{[]byte("g"), []byte("3")}}},
		}},
		Length: 3, LastID: id(7, 0), FirstID: id(1, 0), MaxDeleted: id(6, 0), EntriesAdded: 5,
		Groups: []rdb.StreamGroup{{
			Name: []byte("zgroup"), LastID: id(5, 0), EntriesRead: -1,
		}, {
			Name: []byte("agroup"), LastID: id(2, 0), EntriesRead: 3,
			PEL: []rdb.StreamNACK{
				{ID: id(1, 0), DeliveryTime: 1700000000001, DeliveryCount: 2},
				{ID: id(2, 0), DeliveryTime: 1700000000002, DeliveryCount: 1},
				{ID: id(5, 0), DeliveryTime: 1700000000003, DeliveryCount: 4},
			},
			Consumers: []rdb.StreamConsumer{
				{Name: []byte("idle"), SeenTime: 1700000000000},
				{Name: []byte("bob"), SeenTime: 1700000000002, PEL: []rdb.StreamID{id(5, 0), id(2, 0)}},
				{Name: []byte("alice"), SeenTime: 1700000000001, PEL: []rdb.StreamID{id(1, 0)}},
			},
		}},
	}
	empty := &rdb.Stream{LastID: id(9, 9), MaxDeleted: id(9, 9), EntriesAdded: 4,
		Groups: []rdb.StreamGroup{{Name: []byte("g"), LastID: id(9, 9), EntriesRead: 4}}}
	exp := rdb.NewMeta()
	exp.ExpireAtMs = 1893456000000
	got := commands(t, dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 2, 1)
		w.Stream([]byte("s"), s, rdb.NewMeta())
		return w.Stream([]byte("e"), empty, exp)
	}))
	check(t, got, []string{
		"SELECT 0",
		"XADD s 1-0 f 1", "XADD s 2-0 a x b y", "XADD s 5-0 g 3",
		"XSETID s 7-0 ENTRIESADDED 5 MAXDELETEDID 6-0",
		"XGROUP CREATE s agroup 2-0 ENTRIESREAD 3",
		"XCLAIM s agroup alice 0 1-0 TIME 1700000000001 RETRYCOUNT 2 JUSTID FORCE",
		"XCLAIM s agroup bob 0 2-0 TIME 1700000000002 RETRYCOUNT 1 JUSTID FORCE",
		"XCLAIM s agroup bob 0 5-0 TIME 1700000000003 RETRYCOUNT 4 JUSTID FORCE",
		"XGROUP CREATECONSUMER s agroup idle",
		"XGROUP CREATE s zgroup 5-0 ENTRIESREAD -1",
		"XADD e MAXLEN 0 0-1 x y",
		"XSETID e 9-9 ENTRIESADDED 4 MAXDELETEDID 9-9",
		"XGROUP CREATE e g 9-9 ENTRIESREAD 4",
		"PEXPIREAT e 1893456000000",
	})
}

func TestCorruptDumpFails(t *testing.T) {
	d := dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 1, 0)
		return w.String([]byte("k"), []byte("v"), rdb.NewMeta())
	})
	for _, bad := range [][]byte{d[:len(d)-3], []byte("NOTRDB0010"), nil} {
		if err := Write(io.Discard, bytes.NewReader(bad)); err == nil {
			t.Errorf("%q converted without an error", bad)
		}
	}
}

// bigDump is a dump far larger than a pipe's buffering, so both sides of
// FromRDB are mid-stream when the other fails.
func bigDump(t *testing.T) []byte {
	return dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 2000, 0)
		for i := range 2000 {
			if err := w.List([]byte("k"+strconv.Itoa(i)), elems("element", 100), rdb.NewMeta()); err != nil {
				return err
			}
		}
		return nil
	})
}

type failingWriter struct {
	n   int // bytes accepted before failing
	err error
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, f.err
	}
	f.n -= len(p)
	return len(p), nil
}

func TestFromRDB(t *testing.T) {
	d := bigDump(t)
	var want bytes.Buffer
	if err := Write(&want, bytes.NewReader(d)); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()

	var got bytes.Buffer
	err := FromRDB(&got, func(w io.Writer) error {
		for p := d; len(p) > 0; p = p[min(len(p), 1000):] { // in pieces, as a dump is written
			if _, err := w.Write(p[:min(len(p), 1000)]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("FromRDB: %v, %d bytes; want the %d bytes of Write", err, got.Len(), want.Len())
	}

	// The dump fails midway: its error, not the conversion's read error.
	dumpErr := errors.New("the snapshot failed")
	err = FromRDB(io.Discard, func(w io.Writer) error {
		if _, err := w.Write(d[:len(d)/2]); err != nil {
			return err
		}
		return dumpErr
	})
	if err != dumpErr {
		t.Errorf("a failed dump: %v, want %v", err, dumpErr)
	}

	// The commands cannot be written: the dump's writes fail, and the
	// error is the write's.
	diskFull := errors.New("no space left on device")
	var dumpSaw error
	err = FromRDB(&failingWriter{n: 10000, err: diskFull}, func(w io.Writer) error {
		_, dumpSaw = w.Write(d)
		return dumpSaw
	})
	if err != diskFull || dumpSaw == nil {
		t.Errorf("a failed write: %v (the dump saw %v), want %v", err, dumpSaw, diskFull)
	}

	// Bytes after the dump's end are read off without an error.
	if err := FromRDB(io.Discard, func(w io.Writer) error {
		_, err := w.Write(append(append([]byte(nil), d...), "trailing"...))
		return err
	}); err != nil {
		t.Errorf("bytes after the dump: %v", err)
	}

	// Every goroutine FromRDB started has ended.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after FromRDB, %d before", n, before)
	}
}

// TestWriteBaseByKind: an RDB base is the dump unchanged, an AOF base its
// commands.
func TestWriteBaseByKind(t *testing.T) {
	d := dump(t, func(w *rdb.Writer) error {
		w.SelectDB(0, 1, 0)
		return w.String([]byte("k"), []byte("v"), rdb.NewMeta())
	})
	writeRDB := func(w io.Writer) error { _, err := w.Write(d); return err }
	var rdbBase, aofBase bytes.Buffer
	if err := WriteBase(&rdbBase, aof.BaseRDB, writeRDB); err != nil || !bytes.Equal(rdbBase.Bytes(), d) {
		t.Errorf("RDB base: %v, %q; want the dump", err, rdbBase.Bytes())
	}
	want := string(propagate.Select(nil, 0)) + string(propagate.AppendCommand(nil, "SET", "k", "v"))
	if err := WriteBase(&aofBase, aof.BaseAOF, writeRDB); err != nil || aofBase.String() != want {
		t.Errorf("AOF base: %v, %q; want %q", err, aofBase.Bytes(), want)
	}
}
