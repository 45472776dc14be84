package benchkit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Codec encodes the requests of one protocol and decodes its replies. The
// Append methods add to dst and return it, so a pipeline is one buffer
// and one write. The Read methods consume exactly one reply. Their error
// is a ReplyErr when the reply was well-formed but is not the expected
// success (an error reply, a refusal, a value of another key): the
// connection is still in step and may carry on. Any other error means the
// stream can no longer be trusted.
type Codec interface {
	// Protocol is the name CodecFor takes.
	Protocol() string
	AppendSet(dst, key, value []byte) []byte
	AppendGet(dst, key []byte) []byte
	// AppendMultiGet asks for several keys in one request (MGET, a
	// memcached get of several keys); ReadMultiGet reads its reply.
	AppendMultiGet(dst []byte, keys [][]byte) []byte
	AppendFlush(dst []byte) []byte
	ReadSet(r *bufio.Reader) error
	// ReadGet reads the reply to a get of key. On a hit it returns the
	// value in *scratch (grown as needed), valid until the next call.
	ReadGet(r *bufio.Reader, key []byte, scratch *[]byte) (value []byte, hit bool, err error)
	// ReadMultiGet reads the reply to AppendMultiGet(keys) and calls got
	// for every key in order, with hit false for a miss; the value is
	// valid during the call only.
	ReadMultiGet(r *bufio.Reader, keys [][]byte, scratch *[]byte, got func(i int, value []byte, hit bool)) error
	ReadFlush(r *bufio.Reader) error
}

// Protocols are the names CodecFor knows.
var Protocols = []string{"resp", "memcache", "meta", "binary"}

// CodecFor returns the codec of a protocol: resp (Redis), memcache
// (memcached's text set/get), meta (memcached's ms/mg) or binary
// (memcached's binary Set/Get).
func CodecFor(protocol string) (Codec, error) {
	switch protocol {
	case "resp":
		return RESP{}, nil
	case "memcache":
		return MemcacheText{}, nil
	case "meta":
		return MemcacheMeta{}, nil
	case "binary":
		return MemcacheBinary{}, nil
	}
	return nil, fmt.Errorf("protocol %q: want %s", protocol, strings.Join(Protocols, ", "))
}

// ReplyErr is a well-formed reply that is not the one expected — an error
// reply (its text without RESP's '-'), a refusal, a value that fails
// verification: the connection stays in step.
type ReplyErr string

func (e ReplyErr) Error() string { return string(e) }

// IsOOM reports whether the reply is a refusal for memory: Redis's "-OOM
// command not allowed when used memory > 'maxmemory'." or memcached's
// "SERVER_ERROR out of memory storing object" (Tandem answers the same).
func (e ReplyErr) IsOOM() bool {
	return strings.HasPrefix(string(e), "OOM") || strings.HasPrefix(string(e), "SERVER_ERROR out of memory")
}

// InStep reports whether err leaves the connection usable (a ReplyErr).
func InStep(err error) bool {
	var re ReplyErr
	return errors.As(err, &re)
}

// MaxValueSize bounds the value a reply may announce (memcached's largest
// item-size-max, 1 GB, is far above anything a benchmark writes): a
// corrupt length is an error, not an allocation.
const MaxValueSize = 64 << 20

// ReadLine returns the next line without its "\r\n"; the slice points
// into r's buffer and is valid until the next read.
func ReadLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("reply line longer than %d bytes", r.Size())
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("reply line %q does not end in CRLF", Clip(line))
	}
	return line[:len(line)-2], nil
}

// readData reads n bytes of data and the CRLF after them into *scratch.
func readData(r *bufio.Reader, n int, scratch *[]byte) ([]byte, error) {
	if cap(*scratch) < n+2 {
		*scratch = make([]byte, n+2)
	}
	buf := (*scratch)[:n+2]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	if buf[n] != '\r' || buf[n+1] != '\n' {
		return nil, errors.New("data block does not end in CRLF")
	}
	return buf[:n], nil
}

// atoi parses a non-negative decimal integer of at most 18 digits.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// appendInt appends the decimal form of a non-negative n.
func appendInt(dst []byte, n int) []byte {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(dst, buf[i:]...)
}

// Clip shortens b for an error message.
func Clip(b []byte) []byte {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
