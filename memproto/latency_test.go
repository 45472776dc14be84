package memproto

import (
	"encoding/binary"
	"testing"

	"github.com/tandemkv/tandem/latency"
)

// TestLatencyTracking checks that text, meta and binary requests are
// counted under their memcached names, only while latency-tracking is
// on, and that "stats reset" empties the histograms.
func TestLatencyTracking(t *testing.T) {
	env := newBareEnv(t)
	c := env.client()
	calls := func() map[string]int64 {
		out := map[string]int64{}
		env.fe.cmdLatency.EachCommand(func(name, protocol string, h *latency.Histogram) {
			if s := h.Snapshot(); s != nil {
				if protocol != latency.ProtocolMemcached {
					t.Errorf("%s under protocol %q", name, protocol)
				}
				out[name] = s.Count()
			}
		})
		return out
	}
	c.expect("set k 0 0 1\r\nv\r\n", "STORED\r\n")
	c.send("get k\r\nget k\r\nmg k v\r\nnosuch\r\n")
	getq := make([]byte, 24+1) // a binary Get of "k"
	getq[0], getq[1] = 0x80, 0x00
	binary.BigEndian.PutUint16(getq[2:], 1)
	binary.BigEndian.PutUint32(getq[8:], 1)
	getq[24] = 'k'
	bc := env.client()
	if out := bc.send(string(getq)); len(out) < 24 || out[0] != 0x81 {
		t.Fatalf("binary get: %q", out)
	}
	got := calls()
	if got["set"] != 1 || got["get"] != 3 || got["mg"] != 1 || len(got) != 3 {
		t.Fatalf("calls %v, want set 1, get 3 (one binary), mg 1", got)
	}
	env.set("latency-tracking", "no")
	c.send("get k\r\n")
	if got := calls(); got["get"] != 3 {
		t.Fatalf("recorded with latency-tracking no: %v", got)
	}
	env.set("latency-tracking", "yes")
	c.send("stats reset\r\n")
	if got := calls(); len(got) != 1 || got["stats"] != 1 {
		t.Fatalf("after stats reset: %v, want only the reset itself", got)
	}
}
