package rdb

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// streamGoldens are DUMP payloads of streams from redis-server 7.0.15
// (testdata/stream-redis7.jsonl, in dump-redis7.jsonl's format): nodes,
// deleted entries, XSETID's fields, groups, PELs, consumers, compressed
// and not.
func streamGoldens(t testing.TB) []dumpGolden {
	b, err := os.ReadFile("testdata/stream-redis7.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []dumpGolden
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var g dumpGolden
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// TestStreamGoldensRoundTrip: every redis-server stream payload decodes
// to a stream that holds together, and encodes again to the same bytes.
func TestStreamGoldensRoundTrip(t *testing.T) {
	gs := streamGoldens(t)
	if len(gs) < 8 {
		t.Fatalf("%d stream goldens", len(gs))
	}
	for _, g := range gs {
		p := g.payload(t)
		v, err := DecodeDump(p)
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		if why := streamInvariants(v); why != "" {
			t.Fatalf("%s: %s", g.Name, why)
		}
		again, err := AppendDump(nil, v, DumpOptions{Compress: g.Compress})
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		if string(again) != string(p) {
			t.Errorf("%s: encoded again\n  redis:  %x\n  tandem: %x", g.Name, p, again)
		}
	}
}

// streamInvariants checks what the decoder promises of a stream it
// accepted: a stream value, nodes with entries, the master entry's
// counts matching the node's entries, fields in pairs, entries sharing
// the master's fields holding exactly them. (The header's length and IDs against the entries are
// the engine's to check when it restores the stream: FuzzStreamRestore
// in package snapshot.)
func streamInvariants(v *Value) string {
	if v.Type != StreamType || v.Stream == nil {
		return fmt.Sprintf("type %v, stream %v", v.Type, v.Stream != nil)
	}
	s := v.Stream
	for i, n := range s.Nodes {
		if len(n.Entries) == 0 {
			return fmt.Sprintf("node %d has no entry", i)
		}
		for j, e := range n.Entries {
			if len(e.Fields)%2 != 0 {
				return fmt.Sprintf("node %d entry %d: %d fields and values", i, j, len(e.Fields))
			}
			if e.SameFields {
				if len(e.Fields) != 2*len(n.MasterFields) {
					return fmt.Sprintf("node %d entry %d shares %d master fields with %d values", i, j, len(n.MasterFields), len(e.Fields)/2)
				}
				for k, f := range n.MasterFields {
					if string(e.Fields[2*k]) != string(f) {
						return fmt.Sprintf("node %d entry %d: field %q, master's %q", i, j, e.Fields[2*k], f)
					}
				}
			}
		}
	}
	return ""
}

// FuzzStreamDecode drives the stream decoder (RDB types 19 and 15, and
// the listpacks of their nodes) through DUMP payloads, seeded with
// redis-server's and Tandem's encodings: no input makes it panic or fail
// with anything but a clean *Error; a stream it accepts holds together
// (streamInvariants) and encodes to a payload that decodes to the same
// stream.
func FuzzStreamDecode(f *testing.F) {
	for _, g := range streamGoldens(f) {
		p := g.payload(f)
		f.Add(p[1:len(p)-dumpFooter], true) // redis-server's
		v, err := DecodeDump(p)
		if err != nil {
			f.Fatal(err)
		}
		ours, err := AppendDump(nil, v, DumpOptions{Compress: !g.Compress})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(ours[1:len(ours)-dumpFooter], true) // Tandem's, the other compression
		f.Add(ours[1:len(ours)-dumpFooter], false)
	}
	f.Fuzz(func(t *testing.T, body []byte, v2 bool) {
		typ := byte(rtStreamListpacks)
		if v2 {
			typ = rtStreamListpack2
		}
		p := append([]byte{typ}, body...)
		p = binary.LittleEndian.AppendUint16(p, DumpVersion)
		p = binary.LittleEndian.AppendUint64(p, CRC64(p))
		v, err := DecodeDump(p)
		if err != nil {
			var e *Error
			if !errors.Is(err, ErrDumpData) || !errors.As(err, &e) {
				t.Fatalf("unexpected error %T %v", err, err)
			}
			return
		}
		if why := streamInvariants(v); why != "" {
			t.Fatal(why)
		}
		again, err := AppendDump(nil, v, DumpOptions{Compress: true})
		if err != nil {
			t.Fatalf("a decoded stream does not encode: %v", err)
		}
		back, err := DecodeDump(again)
		if err != nil {
			t.Fatalf("our payload does not decode: %v", err)
		}
		// Type 15 has no first ID, max deleted ID, entries added nor
		// entries read: written as type 19, they are the zeros (and -1)
		// it was read with.
		v.Stream.V1 = false
		if !reflect.DeepEqual(normStream(v.Stream), normStream(back.Stream)) {
			t.Fatalf("round trip changed the stream\n  read:  %+v\n  again: %+v", v.Stream, back.Stream)
		}
	})
}

// normStream makes empty and nil slices alike, for DeepEqual.
func normStream(s *Stream) *Stream {
	c := *s
	c.Nodes = append([]StreamNode{}, s.Nodes...)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		n.MasterFields = normBytes(n.MasterFields)
		n.Entries = append([]StreamNodeEntry{}, n.Entries...)
		for j := range n.Entries {
			n.Entries[j].Fields = normBytes(n.Entries[j].Fields)
		}
	}
	c.Groups = append([]StreamGroup{}, s.Groups...)
	for i := range c.Groups {
		g := &c.Groups[i]
		g.PEL = append([]StreamNACK{}, g.PEL...)
		g.Consumers = append([]StreamConsumer{}, g.Consumers...)
		for j := range g.Consumers {
			g.Consumers[j].PEL = append([]StreamID{}, g.Consumers[j].PEL...)
			g.Consumers[j].Name = append([]byte{}, g.Consumers[j].Name...)
		}
		g.Name = append([]byte{}, g.Name...)
	}
	return &c
}

func normBytes(in [][]byte) [][]byte {
	out := make([][]byte, len(in))
	for i, b := range in {
		out[i] = append([]byte{}, b...)
	}
	return out
}
