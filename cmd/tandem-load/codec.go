package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// codec encodes the requests of one protocol and decodes its replies. The
// append methods add to dst and return it, so a pipeline is one buffer.
// The read methods consume exactly one reply. Their error is a replyError
// when the reply was well-formed but is not the expected success (the
// connection is still in step and carries on); any other error means the
// stream can no longer be trusted and the connection ends.
type codec interface {
	appendSet(dst, key, value []byte) []byte
	appendGet(dst, key []byte) []byte
	appendFlush(dst []byte) []byte
	readSet(r *bufio.Reader) error
	// readGet reads the reply to a get of key. On a hit it returns the value
	// in *scratch (grown as needed), valid until the next call.
	readGet(r *bufio.Reader, key []byte, scratch *[]byte) (value []byte, hit bool, err error)
	readFlush(r *bufio.Reader) error
}

// replyError is a well-formed reply that is not the one expected: an error
// reply, a refusal, a value that fails verification.
type replyError string

func (e replyError) Error() string { return string(e) }

// newCodec returns the codec of a -proto name.
func newCodec(proto string) codec {
	switch proto {
	case "memcached":
		return memcachedText{}
	case "memcached-meta":
		return memcachedMeta{}
	default:
		return redisCodec{}
	}
}

// readLine returns the next line without its "\r\n"; the slice points into
// r's buffer and is valid until the next read.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("reply line longer than %d bytes", r.Size())
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("reply line %q does not end in CRLF", clip(line))
	}
	return line[:len(line)-2], nil
}

// readData reads n bytes of data and the "\r\n" after them into *scratch.
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

// clip shortens b for an error message.
func clip(b []byte) []byte {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
