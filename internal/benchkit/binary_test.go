package benchkit

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// binFrame is a reply frame as a server writes it, built here by hand so
// that the decoder is not checked against its own encoder.
func binFrame(op byte, status uint16, opaque uint32, extras, key, value string) string {
	b := []byte{binResponseMagic, op, byte(len(key) >> 8), byte(len(key)), byte(len(extras)), 0}
	b = binary.BigEndian.AppendUint16(b, status)
	b = binary.BigEndian.AppendUint32(b, uint32(len(extras)+len(key)+len(value)))
	b = binary.BigEndian.AppendUint32(b, opaque)
	b = binary.BigEndian.AppendUint64(b, 0x1234) // a CAS, which the client ignores
	return string(b) + extras + key + value
}

const flags0, flags1 = "\x00\x00\x00\x00", "\x00\x00\x00\x01"

func TestBinaryRequests(t *testing.T) {
	var c MemcacheBinary
	for _, tc := range []struct {
		name string
		got  []byte
		want string // hex, header fields spaced: magic op keylen extlen type vbucket bodylen opaque cas, body
	}{
		{"set", c.AppendSet(nil, []byte("k1"), []byte("abc")),
			"80 01 0002 08 00 0000 0000000d 00000000 0000000000000000 0000000000000000 6b31 616263"},
		{"get", c.AppendGet(nil, []byte("k1")),
			"80 00 0002 00 00 0000 00000002 " + fmt.Sprintf("%08x", binOpaque([]byte("k1"))) + " 0000000000000000 6b31"},
		{"getkq+noop", c.AppendMultiGet(nil, [][]byte{[]byte("a"), []byte("bc")}),
			"80 0d 0001 00 00 0000 00000001 00000000 0000000000000000 61" +
				"80 0d 0002 00 00 0000 00000002 00000001 0000000000000000 6263" +
				"80 0a 0000 00 00 0000 00000000 00000002 0000000000000000"},
		{"flush", c.AppendFlush(nil), "80 08 0000 00 00 0000 00000000 00000000 0000000000000000"},
	} {
		if got, want := hex.EncodeToString(tc.got), strings.ReplaceAll(tc.want, " ", ""); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
	// Appending adds to what is there: a pipeline is one buffer.
	if b := c.AppendGet(c.AppendFlush(nil), []byte("x")); len(b) != 2*binHeaderLen+1 || b[binHeaderLen+1] != binOpGet {
		t.Errorf("pipeline %x", b)
	}
	// FNV-1a, as hash/fnv computes it.
	if got := binOpaque([]byte("a")); got != 0xe40c292c {
		t.Errorf("binOpaque(a) = %#x", got)
	}
}

// binReplies is one server's answers to: set, set, get k1, get k2, get
// k3 (flags 1), get k4 (another request's reply), multi-get k0..k3,
// multi-get a b (one refused), flush. Each refusal leaves the stream in
// step for the next read.
var binReplies = binFrame(binOpSet, 0, 0, "", "", "") +
	binFrame(binOpSet, 0x0082, 0, "", "", "Out of memory") +
	binFrame(binOpGet, 0, binOpaque([]byte("k1")), flags0, "", "ab\r\nc") +
	binFrame(binOpGet, binStatusNotFound, binOpaque([]byte("k2")), "", "", "Not found") +
	binFrame(binOpGet, 0, binOpaque([]byte("k3")), flags1, "", "v") +
	binFrame(binOpGet, 0, binOpaque([]byte("k1")), flags0, "", "v") +
	binFrame(binOpGetKQ, 0, 1, flags0, "k1", "one") +
	binFrame(binOpGetKQ, 0, 3, flags0, "k3", strings.Repeat("3", 300)) +
	binFrame(binOpNoop, 0, 4, "", "", "") +
	binFrame(binOpGetKQ, 0x0004, 0, "", "", "Invalid arguments") +
	binFrame(binOpGetKQ, 0, 1, flags0, "b", "B") +
	binFrame(binOpNoop, 0, 2, "", "", "") +
	binFrame(binOpFlush, 0, 0, "", "", "")

// readBinReplies reads binReplies from r and checks every outcome.
func readBinReplies(t *testing.T, r *bufio.Reader) {
	t.Helper()
	var c MemcacheBinary
	var scratch []byte
	isReplyErr := func(err error, part string) bool {
		var re ReplyErr
		return errors.As(err, &re) && strings.Contains(string(re), part)
	}
	if err := c.ReadSet(r); err != nil {
		t.Fatalf("set: %v", err)
	}
	if err := c.ReadSet(r); !isReplyErr(err, "status 0x0082 Out of memory") {
		t.Fatalf("set refused: %v", err)
	}
	if v, hit, err := c.ReadGet(r, []byte("k1"), &scratch); err != nil || !hit || string(v) != "ab\r\nc" {
		t.Fatalf("hit: %q %v %v", v, hit, err)
	}
	if v, hit, err := c.ReadGet(r, []byte("k2"), &scratch); err != nil || hit || v != nil {
		t.Fatalf("miss: %q %v %v", v, hit, err)
	}
	if _, _, err := c.ReadGet(r, []byte("k3"), &scratch); !isReplyErr(err, "flags are not 0") {
		t.Fatalf("flags 1: %v", err)
	}
	if _, _, err := c.ReadGet(r, []byte("k4"), &scratch); !isReplyErr(err, "another request") {
		t.Fatalf("another request's reply: %v", err)
	}
	var got []string
	collect := func(i int, v []byte, hit bool) { got = append(got, fmt.Sprintf("%d:%v:%d", i, hit, len(v))) }
	keys := [][]byte{[]byte("k0"), []byte("k1"), []byte("k2"), []byte("k3")}
	if err := c.ReadMultiGet(r, keys, &scratch, collect); err != nil {
		t.Fatalf("multi-get: %v", err)
	}
	if s := strings.Join(got, " "); s != "0:false:0 1:true:3 2:false:0 3:true:300" {
		t.Errorf("multi-get: %s", s)
	}
	got = got[:0]
	if err := c.ReadMultiGet(r, [][]byte{[]byte("a"), []byte("b")}, &scratch, collect); !isReplyErr(err, "status 0x0004 Invalid arguments") {
		t.Fatalf("multi-get with a refusal: %v", err)
	}
	if s := strings.Join(got, " "); s != "1:true:1" {
		t.Errorf("multi-get with a refusal: %s", s)
	}
	if err := c.ReadFlush(r); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("bytes left after the last reply: %v", err)
	}
}

func TestBinaryReplies(t *testing.T) {
	readBinReplies(t, bufio.NewReader(strings.NewReader(binReplies)))
}

// A reply split anywhere, down to one byte per read, is the same reply.
func TestBinaryRepliesInPieces(t *testing.T) {
	t.Run("one byte a read", func(t *testing.T) {
		readBinReplies(t, bufio.NewReader(iotest.OneByteReader(strings.NewReader(binReplies))))
	})
	t.Run("half a read", func(t *testing.T) {
		readBinReplies(t, bufio.NewReader(iotest.HalfReader(strings.NewReader(binReplies))))
	})
	t.Run("EOF with the last data", func(t *testing.T) {
		readBinReplies(t, bufio.NewReader(iotest.DataErrReader(strings.NewReader(binReplies))))
	})
	t.Run("smallest buffer", func(t *testing.T) {
		readBinReplies(t, bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(binReplies)), binHeaderLen))
	})
}

// Replies that break the stream: the error is not a ReplyErr, since what
// follows cannot be trusted.
func TestBinaryBrokenStream(t *testing.T) {
	var c MemcacheBinary
	keys := [][]byte{[]byte("a"), []byte("b")}
	hdr := binFrame(binOpGet, 0, binOpaque([]byte("a")), flags0, "", "value")
	lenient := []byte(hdr)
	lenient[4] = 9  // 9 bytes of extras
	lenient[11] = 3 // in a body of 3
	huge := []byte(binFrame(binOpGet, 0, 0, "", "", ""))
	binary.BigEndian.PutUint32(huge[8:12], binMaxBody+1)
	for _, tc := range []struct {
		name, in string
		read     string // get, set, multi, flush
		wantEOF  bool
	}{
		{"request magic", "\x80" + binFrame(binOpGet, 0, 0, "", "", "")[1:], "get", false},
		{"text reply", "END\r\n" + strings.Repeat(" ", 30), "get", false},
		{"no reply", "", "get", true},
		{"header cut", binFrame(binOpSet, 0, 0, "", "", "")[:10], "set", true},
		{"body cut", hdr[:len(hdr)-2], "get", true},
		{"key and extras longer than the body", string(lenient), "get", false},
		{"body over the bound", string(huge), "get", false},
		{"a set's reply to a get", binFrame(binOpSet, 0, 0, "", "", ""), "get", false},
		{"a get's reply to a set", hdr, "set", false},
		{"a get's reply to a flush", hdr, "flush", false},
		{"multi-get: a get's reply", hdr, "multi", false},
		{"multi-get: opaque past the keys", binFrame(binOpGetKQ, 0, 2, flags0, "c", "C"), "multi", false},
		{"multi-get: out of order", binFrame(binOpGetKQ, 0, 1, flags0, "b", "B") + binFrame(binOpGetKQ, 0, 0, flags0, "a", "A"), "multi", false},
		{"multi-get: no Noop", binFrame(binOpGetKQ, 0, 0, flags0, "a", "A"), "multi", true},
		{"multi-get: another batch's Noop", binFrame(binOpNoop, 0, 7, "", "", ""), "multi", false},
	} {
		r := bufio.NewReader(strings.NewReader(tc.in))
		var scratch []byte
		var err error
		switch tc.read {
		case "get":
			_, _, err = c.ReadGet(r, []byte("a"), &scratch)
		case "set":
			err = c.ReadSet(r)
		case "flush":
			err = c.ReadFlush(r)
		case "multi":
			err = c.ReadMultiGet(r, keys, &scratch, func(int, []byte, bool) {})
		}
		switch {
		case err == nil:
			t.Errorf("%s: no error", tc.name)
		case InStep(err):
			t.Errorf("%s: %v is a ReplyErr: the stream is broken", tc.name, err)
		case tc.wantEOF != (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// Replies well-framed but wrong: a ReplyErr each, and the stream goes on.
func TestBinaryRefusalsStayInStep(t *testing.T) {
	var c MemcacheBinary
	for _, tc := range []struct{ name, reply, want string }{
		{"no flags", binFrame(binOpGet, 0, binOpaque([]byte("a")), "", "", "v"), "0 bytes of extras"},
		{"data type", func() string {
			b := []byte(binFrame(binOpGet, 0, binOpaque([]byte("a")), flags0, "", "v"))
			b[5] = 1
			return string(b)
		}(), "data type 0x01"},
		{"too large", binFrame(binOpGet, 0x0003, binOpaque([]byte("a")), "", "", "Too large."), "status 0x0003 Too large."},
	} {
		r := bufio.NewReader(strings.NewReader(tc.reply + binFrame(binOpFlush, 0, 0, "", "", "")))
		var scratch []byte
		_, _, err := c.ReadGet(r, []byte("a"), &scratch)
		if !InStep(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a ReplyErr with %q", tc.name, err, tc.want)
		}
		if err := c.ReadFlush(r); err != nil {
			t.Errorf("%s: the next reply: %v", tc.name, err)
		}
	}
}

// The timed path allocates nothing once the scratch buffer has grown:
// requests, and set, get and multi-get replies.
func TestBinaryAllocatesNothing(t *testing.T) {
	var c MemcacheBinary
	key, value := []byte("key:000000000001"), bytes.Repeat([]byte("v"), 100)
	keys := [][]byte{key, []byte("key:000000000002")}
	replies := binFrame(binOpSet, 0, 0, "", "", "") +
		binFrame(binOpGet, 0, binOpaque(key), flags0, "", string(value)) +
		binFrame(binOpGetKQ, 0, 1, flags0, string(keys[1]), string(value)) +
		binFrame(binOpNoop, 0, 2, "", "", "")
	src := strings.NewReader(replies)
	r := bufio.NewReader(src)
	out := make([]byte, 0, 1024)
	scratch := make([]byte, 0, 256)
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		out = c.AppendSet(out[:0], key, value)
		out = c.AppendGet(out, key)
		out = c.AppendMultiGet(out, keys)
		src.Reset(replies)
		r.Reset(src)
		if e := c.ReadSet(r); e != nil {
			err = e
		}
		if _, hit, e := c.ReadGet(r, key, &scratch); e != nil || !hit {
			err = fmt.Errorf("get: %v %v", hit, e)
		}
		if e := c.ReadMultiGet(r, keys, &scratch, func(int, []byte, bool) {}); e != nil {
			err = e
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("%v allocations a round, want 0", allocs)
	}
}

// The codec against the real memcached, started as compare starts it (-B
// auto: the first byte of a connection picks the protocol): a pipeline
// of sets and gets, a multi-get with misses among hits, a refusal, a
// flush.
func TestBinaryAgainstMemcached(t *testing.T) {
	bin, err := LookBinary("memcached")
	if err != nil {
		t.Fatalf("memcached is needed (scripts/test.sh installs it): %v", err)
	}
	s, err := Launch(Spec{Kind: Memcached, Bin: bin, Dir: filepath.Join(t.TempDir(), "memcached"), Threads: 1, MemcachedMB: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	conn, err := net.DialTimeout("tcp", s.MemcachedAddr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(conn)
	var c MemcacheBinary
	var scratch []byte
	exchange := func(req []byte, read func() error) {
		t.Helper()
		if _, err := conn.Write(req); err != nil {
			t.Fatal(err)
		}
		if err := read(); err != nil {
			t.Fatal(err)
		}
	}
	exchange(c.AppendFlush(nil), func() error { return c.ReadFlush(r) })

	const n = 16
	key := func(i int) []byte { return AppendKey(nil, "key:", int64(i), 12) }
	val := func(i int) []byte {
		v := make([]byte, 50+i*100)
		FillPattern(v, key(i))
		return v
	}
	var req []byte
	for i := range n {
		req = c.AppendSet(req, key(i), val(i))
	}
	exchange(req, func() error {
		for range n {
			if err := c.ReadSet(r); err != nil {
				return fmt.Errorf("set: %w", err)
			}
		}
		return nil
	})
	req = req[:0]
	for i := range n + 2 { // the last two were never set
		req = c.AppendGet(req, key(i))
	}
	exchange(req, func() error {
		for i := range n + 2 {
			v, hit, err := c.ReadGet(r, key(i), &scratch)
			switch {
			case err != nil:
				return fmt.Errorf("get %s: %w", key(i), err)
			case hit != (i < n):
				return fmt.Errorf("get %s: hit %v", key(i), hit)
			case hit && !bytes.Equal(v, val(i)):
				return fmt.Errorf("get %s: %q", key(i), Clip(v))
			}
		}
		return nil
	})
	keys := [][]byte{key(n), key(3), key(n + 1), key(n + 2), key(7), key(n + 3)}
	exchange(c.AppendMultiGet(nil, keys), func() error {
		var got []string
		err := c.ReadMultiGet(r, keys, &scratch, func(i int, v []byte, hit bool) {
			if hit && !bytes.Equal(v, val(map[int]int{1: 3, 4: 7}[i])) {
				got = append(got, "wrong value")
			}
			got = append(got, fmt.Sprint(hit))
		})
		if s := strings.Join(got, " "); s != "false true false false true false" {
			return fmt.Errorf("multi-get: %s (%v)", s, err)
		}
		return err
	})
	// A value over memcached's item size (1 MB by default) is refused and
	// swallowed: the next reply is the next request's. (memcached drops
	// the key's old value too, rather than leave a stale one.)
	big := make([]byte, 2<<20)
	exchange(c.AppendGet(c.AppendSet(nil, key(0), big), key(1)), func() error {
		if err := c.ReadSet(r); !InStep(err) || !strings.Contains(err.Error(), "status 0x0003 Too large.") {
			return fmt.Errorf("2 MB set: %v, want status 0x0003 Too large.", err)
		}
		if v, hit, err := c.ReadGet(r, key(1), &scratch); err != nil || !hit || !bytes.Equal(v, val(1)) {
			return fmt.Errorf("get after the refusal: %v %v", hit, err)
		}
		return nil
	})
	exchange(c.AppendGet(c.AppendFlush(nil), key(1)), func() error {
		if err := c.ReadFlush(r); err != nil {
			return err
		}
		if _, hit, err := c.ReadGet(r, key(1), &scratch); err != nil || hit {
			return fmt.Errorf("get after flush: %v %v", hit, err)
		}
		return nil
	})
}

// FuzzBinaryReplies: whatever bytes a server sends, the decoder neither
// panics nor grows its buffer much past what the stream holds (a header
// may announce 64 MB and send nothing), and a hit's value is within the
// input.
func FuzzBinaryReplies(f *testing.F) {
	f.Add([]byte(binReplies))
	f.Add([]byte(binFrame(binOpGetKQ, 0, 0, flags0, "a", "A") + binFrame(binOpNoop, 0, 2, "", "", "")))
	f.Fuzz(func(t *testing.T, in []byte) {
		var c MemcacheBinary
		keys := [][]byte{[]byte("a"), []byte("b")}
		for _, read := range []string{"get", "multi", "set"} {
			r := bufio.NewReader(bytes.NewReader(in))
			var scratch []byte
			for range 4 {
				var err error
				switch read {
				case "get":
					var v []byte
					v, _, err = c.ReadGet(r, []byte("a"), &scratch)
					if len(v) > len(in) {
						t.Fatalf("a value of %d bytes from %d", len(v), len(in))
					}
				case "multi":
					err = c.ReadMultiGet(r, keys, &scratch, func(i int, v []byte, _ bool) {
						if i < 0 || i >= len(keys) || len(v) > len(in) {
							t.Fatalf("got(%d, %d bytes) from %d", i, len(v), len(in))
						}
					})
				case "set":
					err = c.ReadSet(r)
				}
				if err != nil && !InStep(err) {
					break
				}
			}
			if cap(scratch) > 2*(len(in)+bodyChunk) {
				t.Fatalf("scratch of %d bytes from an input of %d", cap(scratch), len(in))
			}
		}
	})
}
