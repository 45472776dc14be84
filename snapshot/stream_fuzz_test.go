package snapshot

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

// FuzzStreamRestore takes stream bodies (RDB type 19, or 15) through
// what RESTORE and a load do with them: rdb.DecodeDump, StreamFromRDB,
// engine.DB.Restore. Seeded with redis-server's payloads
// (rdb/testdata/stream-redis7.jsonl). Nothing panics; a stream the engine
// takes holds together (checkRestoredStream); and its own DUMP, decoded
// and restored again, answers XINFO STREAM FULL the same.
func FuzzStreamRestore(f *testing.F) {
	for _, p := range redisStreamPayloads(f) {
		f.Add(p[1:len(p)-10], true)
	}
	f.Fuzz(func(t *testing.T, body []byte, v2 bool) {
		typ := byte(15)
		if v2 {
			typ = 19
		}
		v, err := rdb.DecodeDump(seal(append([]byte{typ}, body...)))
		if err != nil || v.Type != rdb.StreamType {
			return
		}
		eng := engine.New(engine.Options{Clock: engine.NewManualClock(1_700_000_000_000), ShardBits: 1, Databases: 1})
		d := eng.DB(0)
		if ok, err := d.Restore(&engine.SnapItem{Key: []byte("s"), Type: engine.TypeStream, Stream: StreamFromRDB(v.Stream)}, limits); !ok || err != nil {
			return
		}
		info := checkRestoredStream(t, d, []byte("s"))
		var payload []byte
		d.Dump([]byte("s"), func(it *engine.SnapItem, _ engine.DumpInfo) {
			payload, err = rdb.AppendDump(nil, &rdb.Value{Type: rdb.StreamType, Stream: StreamToRDB(it.Stream)}, rdb.DumpOptions{Compress: true})
		})
		if err != nil || payload == nil {
			t.Fatalf("DUMP of the restored stream: %v", err)
		}
		back, err := rdb.DecodeDump(payload)
		if err != nil {
			t.Fatalf("our DUMP does not decode: %v", err)
		}
		if ok, err := d.Restore(&engine.SnapItem{Key: []byte("again"), Type: engine.TypeStream, Stream: StreamFromRDB(back.Stream)}, limits); !ok || err != nil {
			t.Fatalf("our DUMP does not restore: %v %v", ok, err)
		}
		if again := checkRestoredStream(t, d, []byte("again")); !reflect.DeepEqual(info, again) {
			t.Fatalf("XINFO STREAM FULL after DUMP and RESTORE\n  first:  %+v\n  again:  %+v", info, again)
		}
	})
}

// redisStreamPayloads are redis-server's DUMPs of streams.
func redisStreamPayloads(t testing.TB) [][]byte {
	b, err := os.ReadFile(filepath.Join("rdb", "testdata", "stream-redis7.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var g struct{ Payload string }
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatal(err)
		}
		p, err := hex.DecodeString(g.Payload)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestRedisStreamPayloadsRestore: every redis-server stream payload, the
// fuzz target's seeds, restores and holds together.
func TestRedisStreamPayloadsRestore(t *testing.T) {
	for i, p := range redisStreamPayloads(t) {
		v, err := rdb.DecodeDump(p)
		if err != nil {
			t.Fatalf("payload %d: %v", i, err)
		}
		d := engine.New(engine.Options{Clock: engine.NewManualClock(1_700_000_000_000), ShardBits: 1, Databases: 1}).DB(0)
		if ok, err := d.Restore(&engine.SnapItem{Key: []byte("s"), Type: engine.TypeStream, Stream: StreamFromRDB(v.Stream)}, limits); !ok || err != nil {
			t.Fatalf("payload %d does not restore: %v %v", i, ok, err)
		}
		checkRestoredStream(t, d, []byte("s"))
	}
}

// seal adds a DUMP footer to a value.
func seal(p []byte) []byte {
	p = binary.LittleEndian.AppendUint16(p, rdb.DumpVersion)
	return binary.LittleEndian.AppendUint64(p, rdb.CRC64(p))
}

// checkRestoredStream reads a restored stream as clients would and
// checks it holds together: XLEN is what XRANGE walks, forwards and
// backwards alike, in rising IDs up to the last ID; XINFO's first and
// last entries are XRANGE's; each group's pending count is its PEL's
// and its consumers' together, and each consumer's PEL is in the
// group's. It returns XINFO STREAM FULL.
func checkRestoredStream(t *testing.T, d engine.DB, key []byte) *engine.StreamInfo {
	t.Helper()
	var fwd, rev []engine.StreamID
	if _, err := d.XRange(key, engine.StreamID{}, engine.MaxStreamID, 0, false, func(e *engine.StreamEntry) { fwd = append(fwd, e.ID) }); err != nil {
		t.Fatal(err)
	}
	if _, err := d.XRange(key, engine.StreamID{}, engine.MaxStreamID, 0, true, func(e *engine.StreamEntry) { rev = append(rev, e.ID) }); err != nil {
		t.Fatal(err)
	}
	n, err := d.XLen(key)
	if err != nil || n != int64(len(fwd)) || len(rev) != len(fwd) {
		t.Fatalf("XLEN %d (%v), XRANGE %d, XREVRANGE %d", n, err, len(fwd), len(rev))
	}
	for i := range fwd {
		if rev[len(rev)-1-i] != fwd[i] {
			t.Fatalf("XREVRANGE is not XRANGE reversed: %v, %v", fwd, rev)
		}
		if i > 0 && fwd[i].Cmp(fwd[i-1]) <= 0 {
			t.Fatalf("XRANGE IDs do not rise: %v", fwd)
		}
	}
	info, ok, err := d.XInfoStream(key, true, 0)
	if !ok || err != nil {
		t.Fatalf("XINFO STREAM FULL: %v %v", ok, err)
	}
	if info.Length != uint64(len(fwd)) || len(info.Entries) != len(fwd) {
		t.Fatalf("XINFO length %d with %d entries, XRANGE %d", info.Length, len(info.Entries), len(fwd))
	}
	if len(fwd) > 0 {
		if info.Entries[0].ID != fwd[0] || info.Entries[len(fwd)-1].ID != fwd[len(fwd)-1] {
			t.Fatalf("XINFO entries %v..%v, XRANGE %v..%v", info.Entries[0].ID, info.Entries[len(fwd)-1].ID, fwd[0], fwd[len(fwd)-1])
		}
		if fwd[len(fwd)-1].Cmp(info.LastID) > 0 {
			t.Fatalf("entry %v past the last ID %v", fwd[len(fwd)-1], info.LastID)
		}
	}
	if why := groupsHoldTogether(info); why != "" {
		t.Fatal(why)
	}
	return info
}

func groupsHoldTogether(info *engine.StreamInfo) string {
	if len(info.Groups) != info.GroupCount {
		return fmt.Sprintf("%d groups, XINFO says %d", len(info.Groups), info.GroupCount)
	}
	for _, g := range info.Groups {
		if g.Pending != len(g.PEL) {
			return fmt.Sprintf("group %q: %d pending, PEL of %d", g.Name, g.Pending, len(g.PEL))
		}
		inPEL := map[engine.StreamID]bool{}
		for _, p := range g.PEL {
			inPEL[p.ID] = true
		}
		owned := 0
		for _, c := range g.ConsumersFull {
			if c.Pending != len(c.PEL) {
				return fmt.Sprintf("consumer %q: %d pending, PEL of %d", c.Name, c.Pending, len(c.PEL))
			}
			for _, p := range c.PEL {
				if !inPEL[p.ID] {
					return fmt.Sprintf("consumer %q has %v pending, not in the group's PEL", c.Name, p.ID)
				}
			}
			owned += len(c.PEL)
		}
		if owned != len(g.PEL) || g.Consumers != len(g.ConsumersFull) {
			return fmt.Sprintf("group %q: consumers own %d of %d pending; %d consumers of %d", g.Name, owned, len(g.PEL), len(g.ConsumersFull), g.Consumers)
		}
	}
	return ""
}
