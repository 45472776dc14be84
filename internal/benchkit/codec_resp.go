package benchkit

import (
	"bufio"
	"errors"
	"fmt"
)

// RESP is the Redis protocol: requests are arrays of bulk strings,
// replies RESP2 (RESP3's null "_" is taken as a miss too).
type RESP struct{}

func (RESP) Protocol() string { return "resp" }

// AppendBulk appends one RESP bulk string.
func AppendBulk(dst, s []byte) []byte {
	dst = append(dst, '$')
	dst = appendInt(dst, len(s))
	dst = append(dst, '\r', '\n')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// AppendCommand appends a RESP array of bulk strings.
func AppendCommand(dst []byte, args ...[]byte) []byte {
	dst = append(dst, '*')
	dst = appendInt(dst, len(args))
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = AppendBulk(dst, a)
	}
	return dst
}

func (RESP) AppendSet(dst, key, value []byte) []byte {
	dst = append(dst, "*3\r\n$3\r\nSET\r\n"...)
	return AppendBulk(AppendBulk(dst, key), value)
}

func (RESP) AppendGet(dst, key []byte) []byte {
	dst = append(dst, "*2\r\n$3\r\nGET\r\n"...)
	return AppendBulk(dst, key)
}

func (RESP) AppendMultiGet(dst []byte, keys [][]byte) []byte {
	dst = append(dst, '*')
	dst = appendInt(dst, len(keys)+1)
	dst = append(dst, "\r\n$4\r\nMGET\r\n"...)
	for _, k := range keys {
		dst = AppendBulk(dst, k)
	}
	return dst
}

func (RESP) AppendFlush(dst []byte) []byte {
	return append(dst, "*1\r\n$8\r\nFLUSHALL\r\n"...)
}

func (c RESP) ReadSet(r *bufio.Reader) error   { return c.readOK(r, "SET") }
func (c RESP) ReadFlush(r *bufio.Reader) error { return c.readOK(r, "FLUSHALL") }

// readOK reads a reply that should be +OK.
func (RESP) readOK(r *bufio.Reader, cmd string) error {
	line, err := ReadLine(r)
	if err != nil {
		return err
	}
	if string(line) == "+OK" {
		return nil
	}
	return respOther(r, cmd, line)
}

// respOther turns a reply that is not the expected one into an error: a
// ReplyErr (the error text itself for an error reply) when the reply can
// be skipped safely, a broken stream otherwise.
func respOther(r *bufio.Reader, cmd string, line []byte) error {
	if len(line) > 0 && line[0] == '-' {
		return ReplyErr(line[1:])
	}
	if err := skipRESPScalar(r, line); err != nil {
		return err
	}
	return ReplyErr(fmt.Sprintf("%s: unexpected reply %q", cmd, Clip(line)))
}

func (RESP) ReadGet(r *bufio.Reader, key []byte, scratch *[]byte) ([]byte, bool, error) {
	line, err := ReadLine(r)
	if err != nil {
		return nil, false, err
	}
	return readRESPBulk(r, line, scratch, "GET")
}

// readRESPBulk reads the bulk string (or null) whose header is line.
func readRESPBulk(r *bufio.Reader, line []byte, scratch *[]byte, cmd string) ([]byte, bool, error) {
	if len(line) == 0 {
		return nil, false, errors.New(cmd + ": empty reply line")
	}
	switch line[0] {
	case '$':
		if string(line) == "$-1" {
			return nil, false, nil
		}
		n, ok := atoi(line[1:])
		if !ok || n > MaxValueSize {
			return nil, false, fmt.Errorf("%s: bad bulk header %q", cmd, Clip(line))
		}
		v, err := readData(r, n, scratch)
		return v, err == nil, err
	case '_':
		return nil, false, nil
	}
	return nil, false, respOther(r, cmd, line)
}

func (RESP) ReadMultiGet(r *bufio.Reader, keys [][]byte, scratch *[]byte, got func(int, []byte, bool)) error {
	line, err := ReadLine(r)
	if err != nil {
		return err
	}
	if len(line) == 0 || line[0] != '*' {
		if len(line) > 0 && line[0] == '-' {
			return ReplyErr(line[1:])
		}
		return fmt.Errorf("MGET: unexpected reply %q", Clip(line))
	}
	if n, ok := atoi(line[1:]); !ok || n != len(keys) {
		return fmt.Errorf("MGET of %d keys: %q", len(keys), Clip(line))
	}
	for i := range keys {
		h, err := ReadLine(r)
		if err != nil {
			return err
		}
		if len(h) > 0 && h[0] != '$' && h[0] != '_' {
			return fmt.Errorf("MGET: element %q", Clip(h))
		}
		v, hit, err := readRESPBulk(r, h, scratch, "MGET")
		if err != nil {
			return err
		}
		got(i, v, hit)
	}
	return nil
}

// skipRESPScalar consumes the rest of a reply whose first line is line,
// if it is a kind that can be skipped safely (simple string, error,
// integer, bulk string, null); an aggregate is a desynchronisation.
func skipRESPScalar(r *bufio.Reader, line []byte) error {
	if len(line) == 0 {
		return errors.New("empty reply line")
	}
	switch line[0] {
	case '+', '-', ':', '_', ',', '#':
		return nil
	case '$':
		if string(line) == "$-1" {
			return nil
		}
		n, ok := atoi(line[1:])
		if !ok || n > MaxValueSize {
			return fmt.Errorf("bad bulk header %q", Clip(line))
		}
		var scratch []byte
		_, err := readData(r, n, &scratch)
		return err
	}
	return fmt.Errorf("unexpected reply %q", Clip(line))
}
