package benchkit

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// MemcacheBinary is memcached's binary protocol: Set and Get frames
// (client flags 0, no expiry, CAS 0), and a multi-key get as one GetKQ
// per key closed by a Noop, the way binary clients batch gets: hits come
// back with their keys, misses not at all, and the Noop's reply says the
// batch is over. A pipeline of P requests is P plain frames and P
// replies, as with the text protocol.
//
// Frames are self-delimiting: a reply whose header is sound is always
// consumed whole, so a refusal (an error status) or a value that fails a
// check is a ReplyErr and the connection stays in step; a bad magic, an
// inconsistent length, or a reply to another opcode is a broken stream.
type MemcacheBinary struct{}

// Binary protocol constants (memcached's protocol_binary.h).
const (
	binRequestMagic  = 0x80
	binResponseMagic = 0x81
	binHeaderLen     = 24

	binOpGet   = 0x00
	binOpSet   = 0x01
	binOpFlush = 0x08
	binOpNoop  = 0x0a
	binOpGetKQ = 0x0d

	binStatusOK       = 0x0000
	binStatusNotFound = 0x0001

	// binSetExtras is a Set's extras: flags and expiry, 4 bytes each.
	binSetExtras = 8
	// binGetExtras is a Get hit's extras: the flags.
	binGetExtras = 4
	// binMaxBody bounds a reply's body: the largest value a reply may
	// announce, with the most key and extras a header can declare.
	binMaxBody = MaxValueSize + 0xffff + 0xff
)

func (MemcacheBinary) Protocol() string { return "binary" }

// appendBinHeader appends a request header; the body that follows is
// extras, then key, then value, bodyLen bytes in all.
func appendBinHeader(dst []byte, op byte, keyLen, extLen, bodyLen int, opaque uint32) []byte {
	dst = append(dst, binRequestMagic, op, byte(keyLen>>8), byte(keyLen), byte(extLen), 0, 0, 0) // data type raw, vbucket 0
	dst = binary.BigEndian.AppendUint32(dst, uint32(bodyLen))
	dst = binary.BigEndian.AppendUint32(dst, opaque)
	return binary.BigEndian.AppendUint64(dst, 0) // CAS: none
}

// binOpaque is the opaque a Get of key carries; its reply must echo it,
// which tells a reply to another request from the right one even when
// values are not verified.
// It is FNV-1a, written out: hash/fnv's interface would allocate.
func binOpaque(key []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range key {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

func (MemcacheBinary) AppendSet(dst, key, value []byte) []byte {
	dst = appendBinHeader(dst, binOpSet, len(key), binSetExtras, binSetExtras+len(key)+len(value), 0)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0) // flags 0, expiry 0
	dst = append(dst, key...)
	return append(dst, value...)
}

func (MemcacheBinary) AppendGet(dst, key []byte) []byte {
	dst = appendBinHeader(dst, binOpGet, len(key), 0, len(key), binOpaque(key))
	return append(dst, key...)
}

// AppendMultiGet is one GetKQ per key, its opaque the key's index, and a
// Noop whose opaque is the number of keys.
func (MemcacheBinary) AppendMultiGet(dst []byte, keys [][]byte) []byte {
	for i, k := range keys {
		dst = appendBinHeader(dst, binOpGetKQ, len(k), 0, len(k), uint32(i))
		dst = append(dst, k...)
	}
	return appendBinHeader(dst, binOpNoop, 0, 0, 0, uint32(len(keys)))
}

func (MemcacheBinary) AppendFlush(dst []byte) []byte {
	return appendBinHeader(dst, binOpFlush, 0, 0, 0, 0)
}

// binReply is one reply frame; extras, key and value point into the
// scratch buffer it was read into.
type binReply struct {
	op                 byte
	dataType           byte
	status             uint16
	opaque             uint32
	extras, key, value []byte
}

// readBinReply reads one whole reply frame, its body into *scratch
// (grown as needed). A header that cannot be trusted (bad magic, lengths
// that do not add up or are past binMaxBody) is a broken stream: what
// follows it cannot be found.
func readBinReply(r *bufio.Reader, scratch *[]byte) (binReply, error) {
	h, err := r.Peek(binHeaderLen)
	if err != nil {
		if errors.Is(err, io.EOF) && len(h) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return binReply{}, err
	}
	if h[0] != binResponseMagic {
		return binReply{}, fmt.Errorf("binary: reply magic 0x%02x, want 0x%02x", h[0], binResponseMagic)
	}
	keyLen := int(binary.BigEndian.Uint16(h[2:4]))
	extLen := int(h[4])
	bodyLen := int(binary.BigEndian.Uint32(h[8:12]))
	if bodyLen > binMaxBody || keyLen+extLen > bodyLen {
		return binReply{}, fmt.Errorf("binary: reply to opcode 0x%02x: body of %d bytes with %d of key and %d of extras", h[1], bodyLen, keyLen, extLen)
	}
	rep := binReply{op: h[1], dataType: h[5], status: binary.BigEndian.Uint16(h[6:8]), opaque: binary.BigEndian.Uint32(h[12:16])}
	r.Discard(binHeaderLen)
	body, err := readBody(r, bodyLen, scratch)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return binReply{}, err
	}
	rep.extras, rep.key, rep.value = body[:extLen], body[extLen:extLen+keyLen], body[extLen+keyLen:]
	return rep, nil
}

// bodyChunk is how far ahead of the bytes received readBody grows its
// buffer.
const bodyChunk = 64 << 10

// readBody reads n bytes into *scratch. The buffer grows only as bytes
// arrive, a chunk ahead of them at most, so a header that announces more
// than the server sends costs little memory; once grown, it is one read.
func readBody(r *bufio.Reader, n int, scratch *[]byte) ([]byte, error) {
	buf := (*scratch)[:0]
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(n-len(buf), bodyChunk))
		}
		k, err := io.ReadFull(r, buf[len(buf):min(n, cap(buf))])
		buf = buf[:len(buf)+k]
		if err != nil {
			*scratch = buf
			return nil, err
		}
	}
	*scratch = buf
	return buf, nil
}

// readBinReplyTo reads one reply, which must answer opcode op: a reply to
// another opcode means replies and requests no longer match up.
func readBinReplyTo(r *bufio.Reader, op byte, cmd string, scratch *[]byte) (binReply, error) {
	rep, err := readBinReply(r, scratch)
	if err == nil && rep.op != op {
		err = fmt.Errorf("binary %s: reply to opcode 0x%02x, want 0x%02x", cmd, rep.op, op)
	}
	return rep, err
}

// statusErr is a reply of an error status as a ReplyErr: the status and
// the server's text (memcached's "Out of memory", "Too large.", ...).
func (rep *binReply) statusErr(cmd string) error {
	return ReplyErr(fmt.Sprintf("binary %s: status 0x%04x %s", cmd, rep.status, Clip(rep.value)))
}

// checkHit checks a hit's reply for key: raw data, flags 0.
func (rep *binReply) checkHit(cmd string, key []byte) error {
	switch {
	case rep.dataType != 0:
		return ReplyErr(fmt.Sprintf("binary %s %s: data type 0x%02x, want 0 (raw)", cmd, key, rep.dataType))
	case len(rep.extras) != binGetExtras:
		return ReplyErr(fmt.Sprintf("binary %s %s: %d bytes of extras, want %d (flags)", cmd, key, len(rep.extras), binGetExtras))
	case binary.BigEndian.Uint32(rep.extras) != 0:
		return ReplyErr(fmt.Sprintf("binary %s %s: flags are not 0", cmd, key))
	}
	return nil
}

// ReadSet reads a Set's reply: status 0, or a ReplyErr of its status.
func (c MemcacheBinary) ReadSet(r *bufio.Reader) error { return c.readStatus(r, binOpSet, "set") }

func (c MemcacheBinary) ReadFlush(r *bufio.Reader) error {
	return c.readStatus(r, binOpFlush, "flush")
}

// readStatus reads a reply whose only news is its status. ReadSet has no
// scratch to read a body into: a success has no body, so nothing is
// allocated but for an error's text.
func (MemcacheBinary) readStatus(r *bufio.Reader, op byte, cmd string) error {
	var scratch []byte
	rep, err := readBinReplyTo(r, op, cmd, &scratch)
	if err != nil {
		return err
	}
	if rep.status != binStatusOK {
		return rep.statusErr(cmd)
	}
	return nil
}

// ReadGet reads a Get's reply: a hit (status 0, flags 0, the opaque of
// key echoed), a miss (status 1, memcached's "Not found"), or a ReplyErr.
func (MemcacheBinary) ReadGet(r *bufio.Reader, key []byte, scratch *[]byte) ([]byte, bool, error) {
	rep, err := readBinReplyTo(r, binOpGet, "get", scratch)
	switch {
	case err != nil:
		return nil, false, err
	case rep.status == binStatusNotFound:
		return nil, false, nil
	case rep.status != binStatusOK:
		return nil, false, rep.statusErr("get")
	case rep.opaque != binOpaque(key):
		return nil, false, ReplyErr(fmt.Sprintf("binary get %s: opaque 0x%08x, want 0x%08x (a reply to another request)", key, rep.opaque, binOpaque(key)))
	}
	if err := rep.checkHit("get", key); err != nil {
		return nil, false, err
	}
	return rep.value, true, nil
}

// ReadMultiGet reads the GetKQ replies of the keys that hit, in the order
// asked (each names its key's index in its opaque and carries the key),
// then the Noop's reply.
func (MemcacheBinary) ReadMultiGet(r *bufio.Reader, keys [][]byte, scratch *[]byte, got func(int, []byte, bool)) error {
	i := 0
	var first error
	for {
		rep, err := readBinReply(r, scratch)
		if err != nil {
			return err
		}
		switch rep.op {
		case binOpNoop:
			if rep.opaque != uint32(len(keys)) {
				return fmt.Errorf("binary get: Noop reply with opaque %d, want %d", rep.opaque, len(keys))
			}
			for ; i < len(keys); i++ {
				got(i, nil, false)
			}
			if rep.status != binStatusOK && first == nil {
				first = rep.statusErr("noop")
			}
			return first
		case binOpGetKQ:
		default:
			return fmt.Errorf("binary get: reply to opcode 0x%02x in a GetKQ batch", rep.op)
		}
		// The key's index: every key before it in the batch missed.
		j := int(rep.opaque)
		if rep.opaque >= uint32(len(keys)) || j < i {
			return fmt.Errorf("binary get: GetKQ reply with opaque %d, not asked or out of order", rep.opaque)
		}
		for ; i < j; i++ {
			got(i, nil, false)
		}
		err = nil
		switch {
		case rep.status != binStatusOK:
			// A quiet get answers a miss with nothing; any status it
			// does send is a refusal.
			err = rep.statusErr("getkq")
		case !bytes.Equal(rep.key, keys[i]):
			err = ReplyErr(fmt.Sprintf("binary getkq %s: reply carries key %q", keys[i], Clip(rep.key)))
		default:
			err = rep.checkHit("getkq", keys[i])
		}
		if err == nil {
			got(i, rep.value, true)
		} else if first == nil {
			first = err
		}
		i++
	}
}
