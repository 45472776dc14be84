package memproto

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/users"
)

// Unit tests of the binary protocol's framing and opcodes. The golden
// exchanges recorded from memcached 1.6.18 (binary_golden_test.go) check
// bytes; these check the behaviour the recordings cannot show: SASL, ACL,
// renames, write refusal, limits, and the mixing of both protocols on one
// port.

// binFrame builds a request.
type binFrameSpec struct {
	opcode byte
	key    string
	extras []byte
	value  string
	opaque uint32
	cas    uint64
	// bodyLen, when not 0, overrides the computed body length.
	bodyLen uint32
}

func (f binFrameSpec) bytes() string {
	b := []byte{binReqMagic, f.opcode}
	b = binary.BigEndian.AppendUint16(b, uint16(len(f.key)))
	b = append(b, byte(len(f.extras)), 0, 0, 0)
	body := uint32(len(f.extras) + len(f.key) + len(f.value))
	if f.bodyLen != 0 {
		body = f.bodyLen
	}
	b = binary.BigEndian.AppendUint32(b, body)
	b = binary.BigEndian.AppendUint32(b, f.opaque)
	b = binary.BigEndian.AppendUint64(b, f.cas)
	b = append(b, f.extras...)
	b = append(b, f.key...)
	return string(append(b, f.value...))
}

// binResp is one parsed response.
type binResp struct {
	opcode byte
	status binStatus
	opaque uint32
	cas    uint64
	extras string
	key    string
	value  string
}

// parseBinResps splits out into responses and fails on a malformed one.
func parseBinResps(t *testing.T, out string) []binResp {
	t.Helper()
	var rs []binResp
	for len(out) > 0 {
		if len(out) < binHeaderLen || out[0] != binResMagic {
			t.Fatalf("malformed response bytes %q", out)
		}
		keyLen := int(binary.BigEndian.Uint16([]byte(out[2:])))
		extLen := int(out[4])
		body := int(binary.BigEndian.Uint32([]byte(out[8:])))
		if len(out) < binHeaderLen+body {
			t.Fatalf("short response %q", out)
		}
		b := out[binHeaderLen : binHeaderLen+body]
		rs = append(rs, binResp{
			opcode: out[1],
			status: binStatus(binary.BigEndian.Uint16([]byte(out[6:]))),
			opaque: binary.BigEndian.Uint32([]byte(out[12:])),
			cas:    binary.BigEndian.Uint64([]byte(out[16:])),
			extras: b[:extLen],
			key:    b[extLen : extLen+keyLen],
			value:  b[extLen+keyLen:],
		})
		out = out[binHeaderLen+body:]
	}
	return rs
}

func setExtras(flags, exptime uint32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, flags), exptime)
}

func arithExtras(delta, initial uint64, exptime uint32) []byte {
	b := binary.BigEndian.AppendUint64(nil, delta)
	b = binary.BigEndian.AppendUint64(b, initial)
	return binary.BigEndian.AppendUint32(b, exptime)
}

func plainAuth(user, pass string) binFrameSpec {
	return binFrameSpec{opcode: opcSASLAuth, key: "PLAIN", value: "\x00" + user + "\x00" + pass}
}

func TestBinarySetGetOneKeyspace(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	rs := parseBinResps(t, c.send(binFrameSpec{opcode: opcSet, key: "k", extras: setExtras(7, 0), value: "hello", opaque: 42}.bytes()+
		binFrameSpec{opcode: opcGetK, key: "k", opaque: 43}.bytes()))
	if len(rs) != 2 || rs[0].status != binOK || rs[0].opaque != 42 || rs[0].cas == 0 {
		t.Fatalf("set: %+v", rs)
	}
	if g := rs[1]; g.status != binOK || g.key != "k" || g.value != "hello" || binary.BigEndian.Uint32([]byte(g.extras)) != 7 || g.cas != rs[0].cas || g.opaque != 43 {
		t.Fatalf("getk: %+v", g)
	}
	// The text protocol sees the same item: flags, value and CAS.
	text := env.client()
	if got, want := maskCAS(text.send("gets k\r\n")), "VALUE k 7 5 <cas>\r\nhello\r\nEND\r\n"; got != want {
		t.Fatalf("gets after a binary set: %q, want %q", got, want)
	}
	if !strings.Contains(text.send("gets k\r\n"), " "+itoa(rs[0].cas)+"\r\n") {
		t.Fatal("the text protocol shows another CAS unique")
	}
}

func itoa(u uint64) string { return string(appendUint(nil, u)) }

func TestBinaryQuietPipelineFlushedByNoop(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	in := binFrameSpec{opcode: opcSetQ, key: "a", extras: setExtras(0, 0), value: "1"}.bytes() +
		binFrameSpec{opcode: opcGetKQ, key: "missing", opaque: 1}.bytes() +
		binFrameSpec{opcode: opcGetKQ, key: "a", opaque: 2}.bytes() +
		binFrameSpec{opcode: opcDeleteQ, key: "missing", opaque: 3}.bytes() +
		binFrameSpec{opcode: opcNoop, opaque: 4}.bytes()
	rs := parseBinResps(t, c.send(in))
	// SetQ's success and GetKQ's miss are silent; DeleteQ's error is not.
	if len(rs) != 3 || rs[0].opaque != 2 || rs[0].value != "1" || rs[1].status != binKeyNotFound || rs[1].opaque != 3 || rs[2].opcode != opcNoop {
		t.Fatalf("replies %+v", rs)
	}
}

func TestBinaryIncrementCreatesAndCounts(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	rs := parseBinResps(t, c.send(
		binFrameSpec{opcode: opcIncrement, key: "n", extras: arithExtras(5, 10, 0)}.bytes()+
			binFrameSpec{opcode: opcIncrement, key: "n", extras: arithExtras(5, 10, 0)}.bytes()+
			binFrameSpec{opcode: opcDecrement, key: "n", extras: arithExtras(100, 0, 0)}.bytes()+
			binFrameSpec{opcode: opcIncrement, key: "absent", extras: arithExtras(1, 0, binNoCreate)}.bytes()))
	values := []uint64{10, 15, 0}
	for i, v := range values {
		if rs[i].status != binOK || binary.BigEndian.Uint64([]byte(rs[i].value)) != v {
			t.Fatalf("reply %d: %+v, want value %d", i, rs[i], v)
		}
	}
	if rs[3].status != binKeyNotFound {
		t.Fatalf("no-create increment: %+v", rs[3])
	}
}

func TestBinaryBadMagicClosesDroppingUnwrittenReplies(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	// A quiet-mode hit is queued but not written when the bad frame comes.
	c.send(binFrameSpec{opcode: opcSet, key: "k", extras: setExtras(0, 0), value: "v"}.bytes())
	out := c.send(binFrameSpec{opcode: opcGetQ, key: "k"}.bytes() + "get k\r\n" + strings.Repeat("x", 30))
	if out != "" || !c.closed {
		t.Fatalf("got %q closed=%v; want nothing and a close", out, c.closed)
	}
}

func TestBinaryFramingErrorsClose(t *testing.T) {
	for name, tc := range map[string]struct {
		frame binFrameSpec
		want  binStatus
	}{
		"key longer than body": {binFrameSpec{opcode: opcGet, key: "abc", bodyLen: 2}, binUnknownCommand},
		"key over 250 bytes":   {binFrameSpec{opcode: opcGet, key: strings.Repeat("k", 251)}, binInvalid},
		"get with extras":      {binFrameSpec{opcode: opcGet, key: "k", extras: []byte{0, 0, 0, 0}}, binInvalid},
		"set without extras":   {binFrameSpec{opcode: opcSet, key: "k", value: "v"}, binInvalid},
		"noop with a body":     {binFrameSpec{opcode: opcNoop, value: "x"}, binInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			c := newTestEnv(t).client()
			rs := parseBinResps(t, c.send(tc.frame.bytes()))
			if len(rs) != 1 || rs[0].status != tc.want || rs[0].value != tc.want.text() || !c.closed {
				t.Fatalf("got %+v closed=%v; want status %#x and a close", rs, c.closed, tc.want)
			}
		})
	}
}

func TestBinaryUnknownOpcodeSwallowsItsBodyLength(t *testing.T) {
	c := newTestEnv(t).client()
	// memcached swallows the body length again after the key: the 3 bytes
	// of "abc" after the key are lost, then the Noop is served.
	in := binFrameSpec{opcode: 0x1b, key: "abc"}.bytes() + "xyz" + binFrameSpec{opcode: opcNoop, opaque: 9}.bytes()
	rs := parseBinResps(t, c.send(in))
	if len(rs) != 2 || rs[0].status != binUnknownCommand || rs[1].opcode != opcNoop || rs[1].opaque != 9 || c.closed {
		t.Fatalf("got %+v closed=%v", rs, c.closed)
	}
}

func TestBinaryTooLargeSwallowedUnbuffered(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.send(binFrameSpec{opcode: opcSet, key: "big", extras: setExtras(0, 0), value: "old"}.bytes())
	// Declare 10 MB and send only the header: the value is refused at once
	// and swallowed as it comes, none of it buffered. As memcached, the
	// refusal is written once the swallowed bytes have all arrived.
	head := binFrameSpec{opcode: opcSet, key: "big", extras: setExtras(0, 0), bodyLen: 8 + 3 + 10<<20}.bytes()
	if out := c.send(head); out != "" {
		t.Fatalf("a reply before the refused value arrived: %q", out)
	}
	if len(c.pending) != 0 || c.s.swallow != 10<<20 {
		t.Fatalf("pending %d bytes, swallowing %d", len(c.pending), c.s.swallow)
	}
	if out := c.send(strings.Repeat("z", 10<<20-1)); out != "" || len(c.pending) != 0 {
		t.Fatalf("a reply before the refused value arrived: %q (%d bytes pending)", out, len(c.pending))
	}
	rs := parseBinResps(t, c.send("z"+binFrameSpec{opcode: opcGet, key: "big"}.bytes()))
	// As memcached, a refused Set drops the old value.
	if len(rs) != 2 || rs[0].status != binTooLarge || rs[0].value != "Too large." || rs[1].status != binKeyNotFound {
		t.Fatalf("the refusal, then a get after the refused set: %+v", rs)
	}
}

func TestBinarySASLWithRequirepass(t *testing.T) {
	env := newTestEnv(t, "--requirepass", "sekret")
	c := env.client()
	// Version and List Mechanisms are served before login.
	rs := parseBinResps(t, c.send(binFrameSpec{opcode: opcVersion}.bytes()+binFrameSpec{opcode: opcSASLList}.bytes()))
	if len(rs) != 2 || rs[0].status != binOK || rs[1].value != "PLAIN" {
		t.Fatalf("before login: %+v", rs)
	}
	rs = parseBinResps(t, c.send(plainAuth("default", "wrong").bytes()))
	if len(rs) != 1 || rs[0].status != binAuthError || c.closed {
		t.Fatalf("wrong password: %+v closed=%v", rs, c.closed)
	}
	rs = parseBinResps(t, c.send(plainAuth("default", "sekret").bytes()+binFrameSpec{opcode: opcSet, key: "k", extras: setExtras(0, 0), value: "v"}.bytes()))
	if len(rs) != 2 || rs[0].value != "Authenticated" || rs[1].status != binOK {
		t.Fatalf("login then set: %+v", rs)
	}

	// Without a login, a data opcode is refused and the connection closes.
	other := env.client()
	rs = parseBinResps(t, other.send(binFrameSpec{opcode: opcGet, key: "k"}.bytes()))
	if len(rs) != 1 || rs[0].status != binAuthError || !other.closed {
		t.Fatalf("get before login: %+v closed=%v", rs, other.closed)
	}

	// PLAIN in two steps: Auth with no message, then Step.
	two := env.client()
	rs = parseBinResps(t, two.send(binFrameSpec{opcode: opcSASLAuth, key: "PLAIN"}.bytes()))
	if len(rs) != 1 || rs[0].status != binAuthContinue {
		t.Fatalf("auth without a message: %+v", rs)
	}
	step := plainAuth("default", "sekret")
	step.opcode = opcSASLStep
	rs = parseBinResps(t, two.send(step.bytes()+binFrameSpec{opcode: opcGet, key: "k"}.bytes()))
	if len(rs) != 2 || rs[0].value != "Authenticated" || rs[1].value != "v" {
		t.Fatalf("step then get: %+v", rs)
	}
}

func TestBinarySASLRefusals(t *testing.T) {
	env := newTestEnv(t, "--requirepass", "sekret")
	for name, frame := range map[string]binFrameSpec{
		"other mechanism":      {opcode: opcSASLAuth, key: "CRAM-MD5", value: "x"},
		"foreign authzid":      {opcode: opcSASLAuth, key: "PLAIN", value: "admin\x00default\x00sekret"},
		"no separators":        {opcode: opcSASLAuth, key: "PLAIN", value: "defaultsekret"},
		"step without an auth": {opcode: opcSASLStep, key: "PLAIN", value: "\x00default\x00sekret"},
	} {
		c := env.client()
		rs := parseBinResps(t, c.send(frame.bytes()+binFrameSpec{opcode: opcGet, key: "k"}.bytes()))
		if len(rs) != 2 || rs[0].status != binAuthError || rs[1].status != binAuthError || !c.closed {
			t.Errorf("%s: %+v closed=%v; want two auth errors and a close", name, rs, c.closed)
		}
	}
	c := env.client()
	rs := parseBinResps(t, c.send(binFrameSpec{opcode: opcSASLAuth, key: strings.Repeat("M", 33), value: "abc"}.bytes()+binFrameSpec{opcode: opcVersion}.bytes()))
	if len(rs) != 2 || rs[0].status != binInvalid || rs[1].status != binOK {
		t.Fatalf("long mechanism name: %+v (its value must be swallowed)", rs)
	}
}

func TestBinaryACLUser(t *testing.T) {
	env := newTestEnv(t)
	var ruleErr error
	env.fe.users.Set("reader", func(sp *users.Spec) { ruleErr = sp.ApplyRules("on", ">pw", "~r:*", "+@read") })
	if ruleErr != nil {
		t.Fatal(ruleErr)
	}
	if _, err := env.db.Set([]byte("r:1"), []byte("one"), engine.SetOptions{}); err != nil {
		t.Fatal(err)
	}
	c := env.client()
	rs := parseBinResps(t, c.send(plainAuth("reader", "pw").bytes()+
		binFrameSpec{opcode: opcGet, key: "r:1"}.bytes()+
		binFrameSpec{opcode: opcGet, key: "w:1"}.bytes()+
		binFrameSpec{opcode: opcSet, key: "r:1", extras: setExtras(0, 0), value: "x"}.bytes()))
	if len(rs) != 4 || rs[0].value != "Authenticated" || rs[1].value != "one" {
		t.Fatalf("login and read: %+v", rs)
	}
	for _, r := range rs[2:] {
		if r.status != binAuthError || r.value != binPermissionDenied {
			t.Fatalf("a refused request: %+v", r)
		}
	}
	if it, _, _ := env.db.Get([]byte("r:1")); string(it.Value) != "one" {
		t.Fatalf("the refused set wrote %q", it.Value)
	}
}

func TestBinaryRenamedFlushDisabled(t *testing.T) {
	env := newTestEnv(t, "--memcached-rename-command", "flush_all", "")
	c := env.client()
	c.send(binFrameSpec{opcode: opcSet, key: "k", extras: setExtras(0, 0), value: "v"}.bytes())
	rs := parseBinResps(t, c.send(binFrameSpec{opcode: opcFlush}.bytes()+binFrameSpec{opcode: opcGet, key: "k"}.bytes()))
	if len(rs) != 2 || rs[0].status != binUnknownCommand || rs[1].value != "v" {
		t.Fatalf("flush under a removed flush_all: %+v", rs)
	}
}

func TestBinaryAndTextConnectionsSideBySide(t *testing.T) {
	env := newTestEnv(t)
	text, bin := env.client(), env.client()
	text.expect("set k 3 0 2\r\nhi\r\n", "STORED\r\n")
	rs := parseBinResps(t, bin.send(binFrameSpec{opcode: opcGet, key: "k"}.bytes()))
	if len(rs) != 1 || rs[0].value != "hi" || binary.BigEndian.Uint32([]byte(rs[0].extras)) != 3 {
		t.Fatalf("binary get of a text set: %+v", rs)
	}
	// Once binary, a connection stays binary: text is a bad magic, once a
	// header's worth of it is in.
	if out := bin.send("get k\r\n"); out != "" || bin.closed {
		t.Fatalf("7 bytes of text on a binary connection: %q closed=%v", out, bin.closed)
	}
	if out := bin.send("get k2 k3 k4 k5 k6\r\n"); out != "" || !bin.closed {
		t.Fatalf("text on a binary connection: %q closed=%v", out, bin.closed)
	}
}

func TestBindingProtocol(t *testing.T) {
	get := binFrameSpec{opcode: opcGet, key: "k"}.bytes()
	// binary: text is a bad magic once a header's worth has come.
	c := newTestEnv(t, "--memcached-binding-protocol", "binary").client()
	if out := c.send("version\r\nversion\r\nversion\r\n"); out != "" || !c.closed {
		t.Fatalf("text under binary: %q closed=%v", out, c.closed)
	}
	if rs := parseBinResps(t, newTestEnv(t, "--memcached-binding-protocol", "binary").client().send(get)); len(rs) != 1 || rs[0].status != binKeyNotFound {
		t.Fatalf("binary under binary: %+v", rs)
	}
	// ascii: a binary header is a text line like any other.
	c = newTestEnv(t, "--memcached-binding-protocol", "ascii").client()
	if out := c.send(get + "\r\nversion\r\n"); !strings.HasPrefix(out, "ERROR\r\n") || !strings.Contains(out, "VERSION ") {
		t.Fatalf("binary under ascii: %q", out)
	}
	env := newTestEnv(t, "--memcached-binding-protocol", "ascii")
	if out := env.client().send("stats settings\r\n"); !strings.Contains(out, "STAT binding_protocol ascii\r\n") {
		t.Fatalf("stats settings under ascii: %q", out)
	}
}
