package memproto

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The binary protocol's golden exchanges: testdata/memcached-1.6.18-binary.golden
// holds what the real memcached 1.6.18 answered (recorded by
// TestRecordBinaryGolden), in the text golden file's in/out/closed format.

const binaryGoldenFile = "memcached-1.6.18-binary.golden"

// casOfLastReply in a request's CAS field stands for the CAS of the latest
// reply so far that carries one: a static input cannot know the unique a
// server will hand out, and "set with the CAS just returned" is the
// exchange a client makes. The bytes before such a frame are sent (and
// answered) first, then the frame goes out with the real CAS.
const casOfLastReply uint64 = 0xcacacacacacacaca

// TestMemcachedBinaryGolden replays every recorded binary exchange: the
// replies must be memcached's byte for byte, CAS uniques aside (see
// maskBinaryCAS). Inputs are fed whole and, unless memcached's own answer
// depends on how the bytes arrive (binarySplitInvariant), byte by byte and
// cut in two at every position.
func TestMemcachedBinaryGolden(t *testing.T) {
	for _, gc := range loadGolden(t, binaryGoldenFile) {
		if gc.skip != "" {
			continue // memcached's answer is not Tandem's contract (see the case)
		}
		t.Run(strconv.Itoa(gc.line), func(t *testing.T) {
			env := newTestEnv(t)
			env.fe.version = "1.6.18" // Version's body is the server's version
			fresh := func() *testClient {
				env.fe.flushNow()
				return env.client()
			}
			c := fresh()
			got := c.sendBinary(gc.in)
			if maskBinaryCAS(got) != maskBinaryCAS(gc.out) || c.closed != gc.closed {
				t.Fatalf("input %q\n got  %q closed=%v\n want %q closed=%v\n got  %s\n want %s",
					clip(gc.in), clip(got), c.closed, clip(gc.out), gc.closed, binFrames(got), binFrames(gc.out))
			}
			if !binarySplitInvariant(gc) {
				return
			}
			c = fresh()
			every := make([]int, 0, len(gc.in))
			for i := 1; i < len(gc.in); i++ {
				every = append(every, i)
			}
			if got := c.sendBinary(gc.in, every...); maskBinaryCAS(got) != maskBinaryCAS(gc.out) {
				t.Fatalf("bytewise %q\n got  %q\n want %q\n got  %s\n want %s", clip(gc.in), clip(got), clip(gc.out), binFrames(got), binFrames(gc.out))
			}
			if len(gc.in) > 400 {
				return
			}
			for cut := 1; cut < len(gc.in); cut++ {
				c = fresh()
				if got := c.sendBinary(gc.in, cut); maskBinaryCAS(got) != maskBinaryCAS(gc.out) {
					t.Fatalf("cut at %d %q\n got  %q\n want %q\n got  %s\n want %s", cut, gc.in, got, gc.out, binFrames(got), binFrames(gc.out))
				}
			}
		})
	}
}

// sendBinary feeds in cut at the given ascending positions and returns the
// replies. A frame whose CAS is casOfLastReply is fed only after every
// byte before it, with the CAS of the latest reply that carries one.
func (c *testClient) sendBinary(in string, cuts ...int) string {
	b := []byte(in)
	placeholders := casPlaceholders(b)
	cuts = append(append(cuts, placeholders...), len(b))
	slices.Sort(cuts)
	var out []byte
	prev := 0
	for _, p := range slices.Compact(cuts) {
		if slices.Contains(placeholders, prev) {
			binary.BigEndian.PutUint64(b[prev+16:], lastReplyCAS(out))
		}
		out = append(out, c.feed(b[prev:p])...)
		prev = p
	}
	return string(out)
}

// casPlaceholders returns the offsets of the request frames of in whose
// CAS is casOfLastReply.
func casPlaceholders(in []byte) []int {
	var at []int
	off := 0
	walkFrames(in, binReqMagic, func(f []byte) {
		if binary.BigEndian.Uint64(f[16:]) == casOfLastReply {
			at = append(at, off)
		}
		off += binHeaderLen + int(binary.BigEndian.Uint32(f[8:]))
	})
	return at
}

// lastReplyCAS returns the CAS of the last response frame of out that has
// a non-zero one.
func lastReplyCAS(out []byte) uint64 {
	var cas uint64
	walkFrames(out, binResMagic, func(f []byte) {
		if v := binary.BigEndian.Uint64(f[16:]); v != 0 {
			cas = v
		}
	})
	return cas
}

// walkFrames calls f with each frame of b whose header starts with magic
// (the last one possibly cut short), in order, while the headers are well
// formed; it returns the offset where it stopped, past len(b) if the last
// frame is cut short.
func walkFrames(b []byte, magic byte, f func(frame []byte)) int {
	off := 0
	for off+binHeaderLen <= len(b) && b[off] == magic {
		end := off + binHeaderLen + int(binary.BigEndian.Uint32(b[off+8:]))
		f(b[off:min(end, len(b))])
		off = end
	}
	return off
}

// binarySplitInvariant reports whether memcached gives the same answer
// however the input is cut: not when it closes the connection (what it
// had written before depends on the cuts), nor when a retrieval's queued
// reply may still hold the item that a later Increment or Decrement
// rewrites (memcached then copies the item instead of rewriting it in
// place, and the value loses its padding: see Frontend.incr).
func binarySplitInvariant(gc goldenCase) bool {
	if gc.closed {
		return false
	}
	retrieved, invariant := false, true
	walkFrames([]byte(gc.in), binReqMagic, func(f []byte) {
		switch f[1] {
		case opcGet, opcGetQ, opcGetK, opcGetKQ, opcTouch, opcGAT, opcGATQ, opcGATK, opcGATKQ:
			retrieved = true
		case opcIncrement, opcDecrement, opcIncrQ, opcDecrQ:
			invariant = invariant && !retrieved
		}
	})
	return invariant
}

// maskBinaryCAS replaces the CAS of every response frame by its rank among
// the distinct non-zero CAS values of s (0xc0…01 for the first seen, …),
// leaving zeros as they are. The values are a server's counter, but which
// replies carry one and which carry the same one are memcached's
// semantics (a Get after a Set returns the Set's CAS, Touch keeps it,
// Append and Incr change it).
func maskBinaryCAS(s string) string {
	b := []byte(s)
	rank := map[uint64]uint64{}
	walkFrames(b, binResMagic, func(h []byte) {
		v := binary.BigEndian.Uint64(h[16:])
		if v == 0 {
			return
		}
		if _, ok := rank[v]; !ok {
			rank[v] = uint64(len(rank) + 1)
		}
		binary.BigEndian.PutUint64(h[16:], 0xc0<<56|rank[v])
	})
	return string(b)
}

// binFrames describes the response frames of s (CAS masked) for failure
// messages: opcode, status, opaque, CAS, lengths and body.
func binFrames(s string) string {
	if s == "" {
		return "(nothing)"
	}
	b := []byte(maskBinaryCAS(s))
	var sb strings.Builder
	end := walkFrames(b, binResMagic, func(h []byte) {
		fmt.Fprintf(&sb, "[op=%#02x status=%#04x opaque=%#x cas=%#x ext=%d key=%d body=%q] ",
			h[1], binary.BigEndian.Uint16(h[6:]), binary.BigEndian.Uint32(h[12:]), binary.BigEndian.Uint64(h[16:]),
			h[4], binary.BigEndian.Uint16(h[2:]), clip(string(h[binHeaderLen:])))
	})
	switch {
	case end > len(b):
		sb.WriteString("(last frame cut short)")
	case end < len(b):
		fmt.Fprintf(&sb, "+%d bytes not a response frame: %q", len(b)-end, clip(string(b[end:])))
	}
	return sb.String()
}
