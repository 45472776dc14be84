package resp

import (
	"strings"
	"testing"
	"time"
)

// TestLatencyHistogramBlocked checks that a blocked command is recorded
// once, when it is unblocked, with the time it waited.
func TestLatencyHistogramBlocked(t *testing.T) {
	env := newTestEnv(t)
	a, b := env.loopClient(), env.loopClient()
	blpop := env.fe.table.lookupFullName([]byte("blpop"))
	if got := a.send(encodeCommand("BLPOP", "l", "0")); got != "" {
		t.Fatalf("BLPOP replied %q", got)
	}
	if blpop.hist.Snapshot() != nil {
		t.Fatal("a blocked BLPOP was recorded before it was done")
	}
	time.Sleep(3 * time.Millisecond)
	b.expect(":1\r\n", "RPUSH", "l", "v")
	a.expectWoken("*2\r\n$1\r\nl\r\n$1\r\nv\r\n")
	s := blpop.hist.Snapshot()
	if s == nil || s.Count() != 1 || s.Percentile(100) < 3_000_000 {
		t.Fatalf("BLPOP after its wait: %+v", s)
	}
	// INFO latencystats and LATENCY HISTOGRAM name it.
	c := env.client()
	if got := c.do("INFO", "latencystats"); !strings.Contains(got, "latency_percentiles_usec_blpop:p50=") {
		t.Errorf("INFO latencystats: %q", got)
	}
	if got := c.do("LATENCY", "HISTOGRAM", "blpop"); !strings.HasPrefix(got, "*2\r\n$5\r\nblpop\r\n*4\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n*2\r\n:") {
		t.Errorf("LATENCY HISTOGRAM blpop: %q", got)
	}
}
