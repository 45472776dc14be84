package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

var limits = engine.RestoreLimits{
	Hash: engine.HashLimits{MaxListpackEntries: 128, MaxListpackValue: 64},
	Set:  engine.SetLimits{MaxIntsetEntries: 512},
	ZSet: engine.ZsetLimits{MaxListpackEntries: 128, MaxListpackValue: 64},
}

// dumpOf lists every key of eng as text, sorted: the comparison form.
func dumpOf(t *testing.T, eng *engine.Engine) []string {
	t.Helper()
	var out []string
	err := eng.Snapshot(nil, func(it *engine.SnapItem) error {
		var b bytes.Buffer
		fmt.Fprintf(&b, "%d %q %v exp=%d flags=%d cas=%d ", it.DB, it.Key, it.Type, it.ExpireAt, it.Flags, it.CAS)
		switch it.Type {
		case engine.TypeString:
			fmt.Fprintf(&b, "%q", it.Value)
		case engine.TypeList:
			fmt.Fprintf(&b, "%q", it.Elems)
		case engine.TypeSet:
			s := make([]string, len(it.Elems))
			for i, e := range it.Elems {
				s[i] = string(e)
			}
			sort.Strings(s)
			fmt.Fprintf(&b, "%q", s)
		case engine.TypeHash:
			s := make([]string, len(it.Fields))
			for i := range it.Fields {
				s[i] = string(it.Fields[i]) + "=" + string(it.Values[i])
			}
			sort.Strings(s)
			fmt.Fprintf(&b, "%q", s)
		case engine.TypeZSet:
			for _, m := range it.Members {
				fmt.Fprintf(&b, "%q:%v ", m.Member, m.Score)
			}
		}
		out = append(out, b.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func newEngine() (*engine.Engine, *engine.ManualClock) {
	clock := engine.NewManualClock(1_700_000_000_000)
	return engine.New(engine.Options{Clock: clock, ShardBits: 4}), clock
}

// fill writes every type, small and large, with TTLs and memcached state.
func fill(t *testing.T, eng *engine.Engine) {
	t.Helper()
	now := eng.Clock().NowMs()
	d0, d3 := eng.DB(0), eng.DB(3)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d0.Set([]byte("str"), []byte("hello"), engine.SetOptions{}))
	must(d0.Set([]byte("int"), []byte("12345"), engine.SetOptions{}))
	mc := d0
	mc.TrackCAS = true // a memcached write: its CAS unique is saved
	must(mc.Set([]byte("bin\x00key"), []byte("\x00\xff\r\n"), engine.SetOptions{Flags: 42}))
	must(d0.Set([]byte("ttl"), bytes.Repeat([]byte("abc"), 100), engine.SetOptions{TTL: engine.TTLSet, ExpireAt: now + 60_000}))
	must(d0.Set([]byte("gone"), []byte("x"), engine.SetOptions{TTL: engine.TTLSet, ExpireAt: now + 10}))
	must(d0.LPushEnd([]byte("list"), engine.ListRight, [][]byte{[]byte("a"), []byte("b"), []byte("1")}, false))
	var big [][]byte
	for i := 0; i < 300; i++ {
		big = append(big, []byte("element-"+strconv.Itoa(i)))
	}
	must(d0.LPushEnd([]byte("biglist"), engine.ListRight, big, false))
	must(d0.SAdd([]byte("intset"), [][]byte{[]byte("1"), []byte("2"), []byte("-7")}, limits.Set))
	must(d0.SAdd([]byte("set"), big, limits.Set))
	must(d3.HSet([]byte("hash"), [][]byte{[]byte("f"), []byte("v"), []byte("g"), []byte("w")}, limits.Hash))
	must(d3.HSet([]byte("bighash"), append(big, []byte("odd")), limits.Hash))
	must(d3.ZAdd([]byte("zset"), 0, []engine.ZMember{{Member: []byte("a"), Score: 1.5}, {Member: []byte("b"), Score: -3}}, limits.ZSet))
	var zm []engine.ZMember
	for i, m := range big {
		zm = append(zm, engine.ZMember{Member: m, Score: float64(i) / 7})
	}
	must(d3.ZAdd([]byte("bigzset"), 0, zm, limits.ZSet))
	d3.Expire([]byte("hash"), now+3_600_000, 0)
}

func TestRoundTrip(t *testing.T) {
	src, clock := newEngine()
	fill(t, src)
	// "gone" expires, but nothing reclaims it before the save: it is
	// saved, as Redis saves such a key, and the load drops it.
	clock.Advance(20 * time.Millisecond)
	path := filepath.Join(t.TempDir(), "dump.rdb")
	res, err := WriteFile(src, path, FileOptions{Compress: true, Checksum: true, IncrementalFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Keys != 13 || res.Bytes == 0 {
		t.Errorf("saved %+v, want 13 keys", res)
	}
	dst, dclock := newEngine()
	dclock.Set(clock.NowMs())
	lr, err := ReadFile(dst, path, LoadOptions{Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	if lr.Loaded != 12 || lr.Expired != 1 {
		t.Errorf("loaded %+v, want 12 loaded, 1 expired", lr)
	}
	if _, ok, _ := src.DB(0).Get([]byte("gone")); ok { // reclaims it, for the comparison
		t.Fatal("expired key read")
	}
	want, got := dumpOf(t, src), dumpOf(t, dst)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Errorf("round trip differs:\nsaved  %q\nloaded %q", want, got)
	}
	// Loaded CAS uniques are not handed out again.
	mc := dst.DB(0)
	mc.TrackCAS = true // memcached's view
	r, err := mc.Set([]byte("new"), []byte("v"), engine.SetOptions{})
	if err != nil || r.CAS == 0 {
		t.Fatalf("set after load: %+v %v", r, err)
	}
	it, _, _ := mc.Get([]byte("bin\x00key"))
	if it.CAS >= r.CAS || it.Flags != 42 {
		t.Errorf("loaded key CAS %d flags %d; a new write got CAS %d", it.CAS, it.Flags, r.CAS)
	}
}

func TestLoadDropsKeysExpiredSinceTheSave(t *testing.T) {
	src, clock := newEngine()
	fill(t, src)
	path := filepath.Join(t.TempDir(), "dump.rdb")
	if _, err := WriteFile(src, path, FileOptions{Checksum: true}); err != nil {
		t.Fatal(err)
	}
	dst, dclock := newEngine()
	dclock.Set(clock.NowMs() + 120_000) // "ttl" (60 s) and "gone" have expired
	lr, err := ReadFile(dst, path, LoadOptions{Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	if lr.Expired != 2 || lr.Loaded != 11 {
		t.Errorf("load %+v, want 11 loaded and 2 expired", lr)
	}
}

func TestCorruptFileIsRefusedAndNothingLoaded(t *testing.T) {
	src, _ := newEngine()
	fill(t, src)
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.rdb")
	if _, err := WriteFile(src, path, FileOptions{Checksum: true}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, bad := range [][]byte{
		data[:len(data)/2], // truncated
		append(append([]byte{}, data[:len(data)-1]...), data[len(data)-1]^1), // CRC
	} {
		p := filepath.Join(dir, "bad.rdb")
		os.WriteFile(p, bad, 0o644)
		dst, _ := newEngine()
		_, err := ReadFile(dst, p, LoadOptions{Limits: limits})
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("bad.rdb")) {
			t.Errorf("corrupt file: err %v, want one naming the file", err)
		}
		if n := len(dumpOf(t, dst)); n != 0 {
			t.Errorf("a corrupt file left %d keys loaded", n)
		}
	}
	if _, err := ReadFile(src, filepath.Join(dir, "none.rdb"), LoadOptions{}); !errors.Is(err, ErrNoFile) {
		t.Errorf("missing file: %v", err)
	}
}

// TestSnapshotIsPointInTime: writers keep invariants across shards —
// transfers between counters in exclusive sections (as EXEC and scripts
// run) and multi-key writes of one sequence number to ten keys (as MSET)
// — while dumps are taken again and again; every dump, loaded back, must
// satisfy both.
func TestSnapshotIsPointInTime(t *testing.T) {
	eng, _ := newEngine()
	d := eng.DB(0)
	const counters, seqKeys = 16, 10
	for i := 0; i < counters; i++ {
		d.Set([]byte("c"+strconv.Itoa(i)), []byte("1000"), engine.SetOptions{})
	}
	seq := make([][]byte, seqKeys)
	for i := range seq {
		seq[i] = []byte("s" + strconv.Itoa(i))
		d.Set(seq[i], []byte("0"), engine.SetOptions{})
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	gate := eng.Gate()
	for w := 0; w < 3; w++ {
		wg.Add(2)
		go func(w int) { // transfers, each an exclusive section
			defer wg.Done()
			for n := 0; !stop.Load(); n++ {
				from, to := []byte("c"+strconv.Itoa((w+n)%counters)), []byte("c"+strconv.Itoa((w*7+n*3+1)%counters))
				gate.Exclusive(func() {
					d.IncrBy(from, -5)
					d.IncrBy(to, 5)
				})
			}
		}(w)
		go func() { // one sequence number to all keys, atomically
			defer wg.Done()
			for n := 1; !stop.Load(); n++ {
				v := []byte(strconv.Itoa(n))
				if !gate.Enter() {
					continue
				}
				pairs := make([][]byte, 0, 2*len(seq))
				for _, k := range seq {
					pairs = append(pairs, k, v)
				}
				d.MSet(pairs, false)
				gate.Leave()
			}
		}()
	}
	dir := t.TempDir()
	for round := 0; round < 15; round++ {
		path := filepath.Join(dir, "dump.rdb")
		if _, err := WriteFile(eng, path, FileOptions{Checksum: true}); err != nil {
			t.Fatal(err)
		}
		back, _ := newEngine()
		if _, err := ReadFile(back, path, LoadOptions{Limits: limits}); err != nil {
			t.Fatal(err)
		}
		bd := back.DB(0)
		sum := 0
		for i := 0; i < counters; i++ {
			it, _, _ := bd.Get([]byte("c" + strconv.Itoa(i)))
			v, _ := strconv.Atoi(string(it.Value))
			sum += v
		}
		if sum != counters*1000 {
			t.Fatalf("round %d: the dump's counters sum to %d, want %d", round, sum, counters*1000)
		}
		first, _, _ := bd.Get(seq[0])
		for _, k := range seq[1:] {
			if it, _, _ := bd.Get(k); !bytes.Equal(it.Value, first.Value) {
				t.Fatalf("round %d: %s is %q but %s is %q in one dump", round, k, it.Value, seq[0], first.Value)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
}

// The incremental fsync writer passes every byte through and syncs at
// each autoSyncBytes boundary, leaving less than that unsynced.
func TestAutoSyncWriter(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &autoSyncWriter{f: f}
	chunk := bytes.Repeat([]byte("x"), 1<<20+7)
	for i := 0; i < 9; i++ {
		if n, err := w.Write(chunk); err != nil || n != len(chunk) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	total := 9 * len(chunk)
	if w.unsynced >= autoSyncBytes {
		t.Fatalf("%d bytes unsynced", w.unsynced)
	}
	if st, _ := f.Stat(); st.Size() != int64(total) {
		t.Fatalf("file holds %d bytes, want %d", st.Size(), total)
	}
}

// A RESIZEDB hint far beyond what the file holds does not make the load
// reserve memory for keys that are not there.
func TestLoadIgnoresAbsurdResizeHint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dump.rdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := rdb.NewWriter(f, rdb.WriterOptions{Checksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.SelectDB(0, 1<<40, 0); err != nil {
		t.Fatal(err)
	}
	if err := writeItem(rw, &engine.SnapItem{Key: []byte("k"), Type: engine.TypeString, Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	eng, _ := newEngine()
	lr, err := ReadFile(eng, path, LoadOptions{Limits: limits})
	if err != nil || lr.Loaded != 1 {
		t.Fatalf("loaded %+v: %v", lr, err)
	}
	if used := eng.UsedMemory(); used > 64<<10 {
		t.Fatalf("one key loaded under a huge RESIZEDB hint accounts %d bytes", used)
	}
}
