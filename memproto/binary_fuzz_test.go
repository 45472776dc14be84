package memproto

import (
	"encoding/binary"
	"strings"
	"testing"
)

// binFuzzSeeds are binary-protocol inputs: every opcode, quiet pipelines,
// SASL, malformed and huge lengths.
var binFuzzSeeds = func() []string {
	set := func(opc byte, key, value string, cas uint64) string {
		return binFrameSpec{opcode: opc, key: key, extras: setExtras(1, 0), value: value, cas: cas}.bytes()
	}
	key := func(opc byte, key string) string { return binFrameSpec{opcode: opc, key: key}.bytes() }
	touch := func(opc byte, key string) string {
		return binFrameSpec{opcode: opc, key: key, extras: []byte{0, 0, 0, 10}}.bytes()
	}
	arith := func(opc byte, exptime uint32) string {
		return binFrameSpec{opcode: opc, key: "n", extras: arithExtras(3, 7, exptime)}.bytes()
	}
	noop := binFrameSpec{opcode: opcNoop}.bytes()
	return []string{
		set(opcSet, "k", "hello", 0) + key(opcGet, "k") + key(opcGetK, "k"),
		set(opcSetQ, "k", "v", 0) + key(opcGetQ, "k") + key(opcGetKQ, "x") + noop,
		set(opcAdd, "k", "v", 0) + set(opcAddQ, "k", "v", 0) + set(opcReplace, "k", "w", 0) + set(opcReplaceQ, "z", "w", 0),
		set(opcSet, "k", "v", 12345) + set(opcSet, "k", "v", 0),
		binFrameSpec{opcode: opcAppend, key: "k", value: "tail"}.bytes() + binFrameSpec{opcode: opcPrependQ, key: "k", value: "head"}.bytes(),
		binFrameSpec{opcode: opcDelete, key: "k", cas: 1}.bytes() + key(opcDeleteQ, "k"),
		arith(opcIncrement, 0) + arith(opcDecrQ, 0) + arith(opcIncrQ, binNoCreate) + noop,
		touch(opcTouch, "k") + touch(opcGAT, "k") + touch(opcGATQ, "k") + touch(opcGATK, "k") + touch(opcGATKQ, "k") + noop,
		binFrameSpec{opcode: opcFlush, extras: []byte{0, 0, 0, 5}}.bytes() + binFrameSpec{opcode: opcFlushQ}.bytes(),
		binFrameSpec{opcode: opcVersion}.bytes() + key(opcStat, "settings") + key(opcStat, "detail dump") + key(opcStat, "nope"),
		binFrameSpec{opcode: opcStat}.bytes() + binFrameSpec{opcode: opcQuitQ}.bytes(),
		binFrameSpec{opcode: opcSASLList}.bytes() + plainAuth("default", "pw").bytes() +
			binFrameSpec{opcode: opcSASLAuth, key: "PLAIN"}.bytes() + binFrameSpec{opcode: opcSASLStep, key: "PLAIN", value: "\x00u\x00p"}.bytes(),
		binFrameSpec{opcode: 0x1b, key: "abc", bodyLen: 1 << 30}.bytes(),
		binFrameSpec{opcode: opcSet, key: "big", extras: setExtras(0, 0), bodyLen: 0xffffffff}.bytes() + "partial",
		binFrameSpec{opcode: opcGet, key: strings.Repeat("k", 300)}.bytes(),
		binFrameSpec{opcode: opcGet, key: "k", bodyLen: 1}.bytes(),
		binFrameSpec{opcode: opcSASLAuth, key: strings.Repeat("M", 40), value: "x"}.bytes() + noop,
		"\x80\x00\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00",
		noop + "get k\r\n" + strings.Repeat("x", 20),
	}
}()

// maxBinPending is the most a binary session may leave unconsumed: one
// request's header, extras, key and a value within item-size-max (the
// fuzz targets' 4096). A bigger declared value is swallowed as it comes.
const maxBinPending = binHeaderLen + 255 + 65535 + 4096

// FuzzBinarySession feeds a binary connection arbitrary bytes, cut into
// pieces: it must never panic, every reply must be a well-formed response
// frame, and a declared length must never make the session hold more than
// one request's worth of input.
func FuzzBinarySession(f *testing.F) {
	for _, s := range binFuzzSeeds {
		f.Add([]byte(s), uint8(0), false)
		f.Add([]byte(s), uint8(5), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint8, password bool) {
		if len(in) > 1<<17 {
			return
		}
		args := []string{"--item-size-max", "4096"}
		if password {
			args = append(args, "--requirepass", "pw")
		}
		env := newBareEnv(t, args...)
		c := env.client()
		in = append([]byte{binReqMagic}, in...)
		step := int(cut%32) + 1
		if cut == 0 {
			step = len(in)
		}
		var out []byte
		for i := 0; i < len(in) && !c.closed; i += step {
			out = append(out, c.feed(in[i:min(i+step, len(in))])...)
			if len(c.pending) > maxBinPending {
				t.Fatalf("%d bytes held unconsumed", len(c.pending))
			}
		}
		checkBinReplies(t, out)
	})
}

// FuzzMixedSessions splits the input between a text and a binary
// connection on one keyspace and interleaves them: each must stay well
// formed whatever the other does.
func FuzzMixedSessions(f *testing.F) {
	for i, s := range binFuzzSeeds {
		text := fuzzSeeds[i%len(fuzzSeeds)]
		f.Add([]byte(text+s), uint16(len(text)), uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint16, step uint8) {
		if len(in) > 1<<16 {
			return
		}
		at := min(int(split), len(in))
		textIn, binIn := in[:at], append([]byte{binReqMagic}, in[at:]...)
		env := newBareEnv(t, "--item-size-max", "4096")
		text, bin := env.client(), env.client()
		n := int(step%16) + 1
		var textOut, binOut []byte
		for i := 0; i < max(len(textIn), len(binIn)); i += n {
			if i < len(textIn) && !text.closed && textIn[0] != binReqMagic {
				textOut = append(textOut, text.feed(textIn[i:min(i+n, len(textIn))])...)
			}
			if i < len(binIn) && !bin.closed {
				binOut = append(binOut, bin.feed(binIn[i:min(i+n, len(binIn))])...)
			}
		}
		checkReplies(t, textOut)
		checkBinReplies(t, binOut)
	})
}

// checkBinReplies: the output is a sequence of whole response frames with a
// known status, whose key and extras fit their body.
func checkBinReplies(t *testing.T, out []byte) {
	t.Helper()
	known := map[binStatus]bool{binOK: true, binKeyNotFound: true, binKeyExists: true, binTooLarge: true, binInvalid: true,
		binNotStored: true, binNonNumeric: true, binAuthError: true, binAuthContinue: true, binUnknownCommand: true, binOutOfMemory: true}
	for len(out) > 0 {
		if len(out) < binHeaderLen || out[0] != binResMagic {
			t.Fatalf("not a response frame: %q", out[:min(len(out), 32)])
		}
		keyLen, extLen := int(binary.BigEndian.Uint16(out[2:])), int(out[4])
		status := binStatus(binary.BigEndian.Uint16(out[6:]))
		body := int(binary.BigEndian.Uint32(out[8:]))
		if !known[status] || keyLen+extLen > body || len(out) < binHeaderLen+body {
			t.Fatalf("malformed response header % x (status %#x, key %d, extras %d, body %d, %d bytes left)",
				out[:binHeaderLen], status, keyLen, extLen, body, len(out)-binHeaderLen)
		}
		out = out[binHeaderLen+body:]
	}
}
