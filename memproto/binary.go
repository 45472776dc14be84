package memproto

import (
	"encoding/binary"
	"math"

	"github.com/tandemkv/tandem/mclog"
)

// memcached 1.6's binary protocol: the framing. The opcodes and what each
// does are in binary_commands.go, SASL in sasl.go.
//
// A connection speaks binary when its first byte is the request magic
// 0x80, as memcached decides with -B auto; it then speaks nothing else. A
// request is a 24-byte header (magic, opcode, key length, extras length,
// data type, vbucket, body length, opaque, CAS, all big-endian) and a body
// of extras, key and value. memcached reads it in steps, and Tandem keeps
// each step's checks and their order, because the order decides which
// error a malformed frame gets and whether the connection survives:
//
//  1. The header. A magic other than 0x80 closes the connection at once;
//     replies memcached had not yet written are lost (session.flushed).
//  2. The extras and the key: at most 255 + 65535 bytes, waited for
//     before anything is checked. Then, each failure answered and the
//     connection closed after the replies so far:
//     key and extras longer than the body → 0x81 Unknown command;
//     not logged in, for any opcode but SASL and Version → 0x20;
//     a key over 250 bytes → 0x04 Invalid arguments;
//     lengths the opcode does not take (binOp.fits) → 0x04.
//  3. The value, for the storage opcodes and SASL Auth/Step: the body's
//     rest. An item over item-size-max is refused (0x03 Too large, for a
//     SASL exchange 0x82) and its value swallowed as it arrives, so a huge
//     declared length holds no memory; any other value is waited for
//     whole, as a text data block is.
//
// An unknown opcode is answered 0x81 and, as memcached does, that many
// more bytes than its body are swallowed: the body length counted from
// after the key. Opcodes that take no value but are sent one (Stat,
// Touch and GAT check no body length) leave it in the stream, where it is
// read as the next header.
//
// Quiet opcodes (GetQ, SetQ, …) send no reply on success, and GetQ-style
// misses none either; errors are always sent. Replies are queued and go
// out with the rest of the read's replies, so a pipeline of quiet
// requests and a Noop comes back in one write.

// Frame constants.
const (
	binReqMagic  = 0x80
	binResMagic  = 0x81
	binHeaderLen = 24
	// binMaxSASLMech is MAX_SASL_MECH_LEN: a longer mechanism name is
	// refused.
	binMaxSASLMech = 32
	// binNoCreate: an Increment/Decrement expiration of all ones means
	// "do not create a missing key".
	binNoCreate = math.MaxUint32
)

// binStatus is a response's status field.
type binStatus uint16

const (
	binOK             binStatus = 0x00
	binKeyNotFound    binStatus = 0x01
	binKeyExists      binStatus = 0x02
	binTooLarge       binStatus = 0x03
	binInvalid        binStatus = 0x04
	binNotStored      binStatus = 0x05
	binNonNumeric     binStatus = 0x06
	binAuthError      binStatus = 0x20
	binAuthContinue   binStatus = 0x21
	binUnknownCommand binStatus = 0x81
	binOutOfMemory    binStatus = 0x82
)

// text is memcached's body for an error sent without its own text.
func (st binStatus) text() string {
	switch st {
	case binKeyNotFound:
		return "Not found"
	case binKeyExists:
		return "Data exists for key."
	case binTooLarge:
		return "Too large."
	case binInvalid:
		return "Invalid arguments"
	case binNotStored:
		return "Not stored."
	case binNonNumeric:
		return "Non-numeric server-side value for incr or decr"
	case binAuthError:
		return "Auth failure."
	case binUnknownCommand:
		return "Unknown command"
	case binOutOfMemory:
		return "Out of memory"
	}
	return ""
}

// binRequest is one binary request. extras and key alias the read buffer.
type binRequest struct {
	op      *binOp
	opcode  byte   // as sent: a reply carries it back
	opaque  uint32 // echoed in the reply
	cas     uint64
	bodyLen uint32
	extras  []byte
	key     []byte
	value   []byte // the body's rest, once read (storage and SASL opcodes)
	// valueRefused: the value is not read but swallowed, with the error
	// the opcode's refusesValue gives.
	valueRefused bool
}

// valueLen is the length of the body after extras and key.
func (r *binRequest) valueLen() int {
	return int(r.bodyLen) - len(r.extras) - len(r.key)
}

// binFrame is how far a request at the start of in can go: how many bytes
// it takes (header, extras, key, and the value when the opcode reads it),
// and whether they are all there.
type binFrame uint8

const (
	binNeedMore binFrame = iota // the request is not whole yet
	binBadMagic                 // not a request: close at once
	binReady                    // r is parsed; the request takes n bytes
)

// parseBinary reads the request at the start of in into r. Checks that
// answer with an error are left to serveBinary, in memcached's order.
func (s *session) parseBinary(in []byte, r *binRequest) (int, binFrame) {
	if len(in) < binHeaderLen {
		return 0, binNeedMore
	}
	if in[0] != binReqMagic {
		return 0, binBadMagic
	}
	keyLen := int(binary.BigEndian.Uint16(in[2:]))
	extLen := int(in[4])
	n := binHeaderLen + extLen + keyLen
	if len(in) < n {
		return 0, binNeedMore
	}
	*r = binRequest{
		op:      binOps[in[1]],
		opcode:  in[1],
		bodyLen: binary.BigEndian.Uint32(in[8:]),
		opaque:  binary.BigEndian.Uint32(in[12:]),
		cas:     binary.BigEndian.Uint64(in[16:]),
		extras:  in[binHeaderLen : binHeaderLen+extLen : binHeaderLen+extLen],
		key:     in[binHeaderLen+extLen : n : n],
	}
	return n, binReady
}

// serveBinary runs every complete binary request in in and returns how
// many bytes it consumed and whether it ran any.
func (s *session) serveBinary(in []byte) (int, bool) {
	pos := 0
	parsed := false
	r := &s.bin
	for !s.closing {
		var done bool
		if pos, done = s.swallowInput(in, pos); !done {
			break
		}
		if pos == len(in) || s.atBound() {
			break
		}
		n, frame := s.parseBinary(in[pos:], r)
		if frame == binNeedMore {
			break
		}
		if frame == binBadMagic {
			s.cull()
			s.closing = true
			pos = len(in)
			break
		}
		m, ok := s.readBinaryValue(in[pos+n:], r)
		if !ok {
			break // the value is still arriving
		}
		if r.op != nil && s.paused(r.op.cmd, &s.req) {
			break // CLIENT PAUSE: served once it ends (pause.go)
		}
		parsed = true
		s.execBinary(r)
		pos += n + m
	}
	return pos, parsed
}

// readBinaryValue takes the value of a request whose opcode reads one, once
// it is all in in (ok false until then). A value refused before it is read
// (too large; binOp.refusesValue) takes 0 bytes here and is swallowed when
// the request runs.
func (s *session) readBinaryValue(in []byte, r *binRequest) (int, bool) {
	op := r.op
	if op == nil || op.refusesValue == nil || s.binRefusal(r) != binOK {
		return 0, true
	}
	if r.valueRefused = op.refusesValue(s, r) != binOK; r.valueRefused {
		return 0, true
	}
	vlen := r.valueLen()
	if len(in) < vlen {
		return 0, false
	}
	r.value = in[:vlen:vlen]
	return vlen, true
}

// binRefusal is the error the framing checks give r before its opcode
// runs (binOK when none), in memcached's order; each closes the
// connection.
func (s *session) binRefusal(r *binRequest) binStatus {
	switch {
	case len(r.key)+len(r.extras) > int(r.bodyLen):
		return binUnknownCommand
	case s.user.Load() == nil && (r.op == nil || !r.op.beforeAuth):
		return binAuthError
	case len(r.key) > MaxKeyLen:
		return binInvalid
	case r.op != nil && !r.op.fits(r):
		return binInvalid
	}
	return binOK
}

// binItemTooLarge reports whether r's value would make an item over
// item-size-max; a Set's flags count, as in memcached's item_size_ok.
func (s *session) binItemTooLarge(r *binRequest) bool {
	var flags uint32
	if len(r.extras) >= 4 {
		flags = binary.BigEndian.Uint32(r.extras)
	}
	return s.parser.tooLarge(r.key, flags, r.valueLen())
}

// execBinary runs one request whose frame is read.
func (s *session) execBinary(r *binRequest) {
	if st := s.binRefusal(r); st != binOK {
		s.binError(r, st, "")
		s.closing = true // after the replies so far
		return
	}
	if r.op == nil || !s.binOpEnabled(r.op) {
		s.binRefuseBody(r, binUnknownCommand, int(r.bodyLen)) // memcached's count: too many, see above
		return
	}
	if r.valueRefused {
		st := r.op.refusesValue(s, r)
		if st == binTooLarge && r.op.cmd.name == "set" {
			s.fe.dropStale(r.key)
		}
		s.binRefuseBody(r, st, r.valueLen())
		return
	}
	// The checks shared with the text protocol read a Request: its
	// command and key are all they look at for these shapes (no zeroing
	// of the whole struct on the hot path).
	req := &s.req
	req.Cmd, req.Key, req.Keys = r.op.cmd, r.key, req.Keys[:0]
	switch {
	case r.op.cmd == nil:
		// not an item command: no ACL rule or write refusal applies
	case s.aclDenied(req):
		s.binError(r, binAuthError, binPermissionDenied)
		return
	case s.fe.writeRefusal(req) != "":
		s.binError(r, binOutOfMemory, binServerError(s.fe.writeRefusal(req)))
		return
	case req.Cmd.grows():
		s.fe.eng.FreeMemory()
	}
	s.monitorBinary(r)    // MONITOR (monitor.go)
	if s.orderRequest() { // the write stream's order (effects.go)
		defer s.fe.stream.Unlock()
	}
	start := slowlogStart()
	keys, before := s.beforeWrite(req) // the write stream (effects.go)
	if r.op.cmd != nil && s.fe.log.Wants(mclog.Fetchers) && r.op.cmd.looksUpKey() {
		s.logLookupKey(r.key) // watch fetchers (watch.go)
	}
	r.op.run(s, r)
	s.afterWrite(keys, before)
	s.slowlogBinary(r, start) // SLOWLOG (slowlog.go), latency-tracking
	if s.nreq++; s.nreq%reqsPerEvent == 0 {
		s.flush()
	}
}

// binPermissionDenied answers a request the user's ACL rules refuse. The
// binary protocol has no such status; 0x20, which memcached also sends
// for a flush it does not allow, makes clients report a refusal.
const binPermissionDenied = "Permission denied"

// binServerError is a text-protocol SERVER_ERROR as the binary protocol
// sends it: its text without the prefix, as memcached's out_of_memory
// does, with status 0x82.
func binServerError(text string) string {
	const prefix = "SERVER_ERROR "
	if len(text) >= len(prefix) && text[:len(prefix)] == prefix {
		return text[len(prefix):]
	}
	return text
}

// flush marks the queued replies written, as memcached writes its queue.
func (s *session) flush() {
	s.flushed = len(s.out)
	s.unpin()
}

// binHeader appends a response header for r.
func (s *session) binHeader(r *binRequest, st binStatus, extLen, keyLen, bodyLen int, cas uint64) {
	b := append(s.out, binResMagic, r.opcode, byte(keyLen>>8), byte(keyLen), byte(extLen), 0, byte(st>>8), byte(st))
	b = binary.BigEndian.AppendUint32(b, uint32(bodyLen))
	b = binary.BigEndian.AppendUint32(b, r.opaque)
	s.out = binary.BigEndian.AppendUint64(b, cas)
}

// binReply sends a success reply with body, unless the opcode is quiet.
func (s *session) binReply(r *binRequest, cas uint64, body []byte) {
	if r.op.quiet {
		return
	}
	s.binHeader(r, binOK, 0, 0, len(body), cas)
	s.out = append(s.out, body...)
}

// binError sends an error reply, quiet opcode or not, with text as its
// body ("" for the status's own text). memcached writes its queue after
// an error.
func (s *session) binError(r *binRequest, st binStatus, text string) {
	s.appendBinError(r, st, text)
	s.flush()
}

// binRefuseBody answers r with st's error and swallows the n bytes that
// follow. memcached writes nothing while it swallows: the reply waits
// with the rest of the queue until the bytes have arrived (session.held).
func (s *session) binRefuseBody(r *binRequest, st binStatus, n int) {
	s.appendBinError(r, st, "")
	s.swallow = n
}

func (s *session) appendBinError(r *binRequest, st binStatus, text string) {
	if text == "" {
		text = st.text()
	}
	s.binHeader(r, st, 0, 0, len(text), 0)
	s.out = append(s.out, text...)
}
