package resp

import (
	"strconv"
	"strings"
	"testing"
)

// HyperLogLog scripts; every expected reply, HLL bytes included, was read
// from redis-server 7.0.15 for the same steps.

const (
	hllABC      = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	hllABCCount = "HYLL\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	hllABCX     = "HYLL\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BP\x84\x08"
	hllEmpty    = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff"
)

var hllScripts = []strScript{
	{"PFAddPFCount", []strStep{
		step(":1\r\n", "PFADD", "h", "a", "b", "c"),
		step(bulk(hllABC), "GET", "h"),
		step(bulk("raw"), "OBJECT", "ENCODING", "h"),
		step(":3\r\n", "PFCOUNT", "h"),
		step(bulk(hllABCCount), "GET", "h"),
		step(":0\r\n", "PFADD", "h", "a", "c"),
		step(bulk(hllABCCount), "GET", "h"),
		step(":0\r\n", "PFCOUNT", "nosuch"),
		step(":1\r\n", "PFADD", "e"),
		step(bulk(hllEmpty), "GET", "e"),
		step(":0\r\n", "PFCOUNT", "e"),
	}},
	{"PFMerge", []strStep{
		step(":1\r\n", "PFADD", "h", "a", "b", "c"),
		step(":3\r\n", "PFCOUNT", "h"),
		step(":1\r\n", "PFADD", "h2", "x"),
		step(rOK, "PFMERGE", "h", "h2"),
		step(bulk(hllABCX), "GET", "h"),
		step(":4\r\n", "PFCOUNT", "h"),
		step(":4\r\n", "PFCOUNT", "h", "nosuch", "h2"),
		step(rOK, "PFMERGE", "new"),
		step(bulk(hllEmpty), "GET", "new"),
	}},
	{"PFErrors", []strStep{
		step(rOK, "SET", "s", "abc"),
		step(errReply(ErrNotHLL), "PFADD", "s", "a"),
		step(errReply(ErrNotHLL), "PFCOUNT", "s"),
		step(errReply(ErrNotHLL), "PFCOUNT", "nosuch", "s"),
		step(errReply(ErrNotHLL), "PFMERGE", "d", "s"),
		step(":0\r\n", "EXISTS", "d"),
		step(rOK, "SET", "c", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xfe"),
		step(errReply(ErrCorruptHLL), "PFCOUNT", "c"),
		step(errReply(ErrCorruptHLL), "PFMERGE", "d", "c"),
		step(rOK, "SET", "c", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
		step(errReply(ErrCorruptHLL), "PFADD", "c", "a"),
		step(wrongArgs("pfadd"), "PFADD"),
	}},
}

func TestHLLCommands(t *testing.T) {
	for _, sc := range hllScripts {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/RESP"+strconv.Itoa(proto), func(t *testing.T) {
				runStringScript(t, proto, sc.steps)
			})
		}
	}
}

// TestHLLDense: enough elements make the HLL dense (12304 bytes) and the
// count is what redis-server 7.0.15 gives for them.
func TestHLLDense(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	for i := 0; i < 10000; i += 1000 {
		args := []string{"PFADD", "h"}
		for j := i; j < i+1000; j++ {
			args = append(args, "e"+strconv.Itoa(j))
		}
		c.expect(":1\r\n", args...)
	}
	c.expect(":12304\r\n", "STRLEN", "h")
	c.expect(":9973\r\n", "PFCOUNT", "h")
	c.expect(":9973\r\n", "PFCOUNT", "h", "nosuch")
	got := c.do("GET", "h")
	if !strings.HasPrefix(got, "$12304\r\nHYLL\x00\x00\x00\x00\xf5\x26\x00\x00\x00\x00\x00\x00") {
		t.Fatalf("dense HLL header %q", got[:40])
	}
}

// TestHLLWrongType: a key of another type gives the ordinary WRONGTYPE.
func TestHLLWrongType(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	makeNonString(t, c, "l")
	for _, args := range [][]string{{"PFADD", "l", "a"}, {"PFCOUNT", "l"}, {"PFCOUNT", "l", "x"}, {"PFMERGE", "l"}, {"PFMERGE", "d", "l"}} {
		c.expect(rWrongType, args...)
	}
}
