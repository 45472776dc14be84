package main

import (
	"bufio"
	"errors"
	"fmt"
)

// redisCodec speaks RESP: requests are arrays of bulk strings, replies
// RESP2 (RESP3's null "_" is accepted as a miss too).
type redisCodec struct{}

func appendBulk(dst, b []byte) []byte {
	dst = append(dst, '$')
	dst = appendInt(dst, len(b))
	dst = append(dst, '\r', '\n')
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

func (redisCodec) appendSet(dst, key, value []byte) []byte {
	dst = append(dst, "*3\r\n$3\r\nSET\r\n"...)
	return appendBulk(appendBulk(dst, key), value)
}

func (redisCodec) appendGet(dst, key []byte) []byte {
	dst = append(dst, "*2\r\n$3\r\nGET\r\n"...)
	return appendBulk(dst, key)
}

func (redisCodec) appendFlush(dst []byte) []byte {
	return append(dst, "*1\r\n$8\r\nFLUSHALL\r\n"...)
}

func (c redisCodec) readSet(r *bufio.Reader) error   { return c.readOK(r, "SET") }
func (c redisCodec) readFlush(r *bufio.Reader) error { return c.readOK(r, "FLUSHALL") }

// readOK reads a reply that should be +OK.
func (redisCodec) readOK(r *bufio.Reader, cmd string) error {
	line, err := readLine(r)
	if err != nil {
		return err
	}
	if string(line) == "+OK" {
		return nil
	}
	if err := skipRedisScalar(r, line); err != nil {
		return err
	}
	return replyError(fmt.Sprintf("%s: %q", cmd, clip(line)))
}

func (redisCodec) readGet(r *bufio.Reader, key []byte, scratch *[]byte) ([]byte, bool, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, false, err
	}
	if len(line) == 0 {
		return nil, false, errors.New("GET: empty reply line")
	}
	switch line[0] {
	case '$':
		if string(line) == "$-1" {
			return nil, false, nil
		}
		n, ok := atoi(line[1:])
		if !ok || n > maxValueSize*2 {
			return nil, false, fmt.Errorf("GET: bad bulk header %q", clip(line))
		}
		v, err := readData(r, n, scratch)
		return v, err == nil, err
	case '_':
		return nil, false, nil
	}
	if err := skipRedisScalar(r, line); err != nil {
		return nil, false, err
	}
	return nil, false, replyError(fmt.Sprintf("GET: %q", clip(line)))
}

// skipRedisScalar consumes the rest of a reply whose first line is line,
// if it is a kind that can be skipped safely (simple string, error,
// integer, bulk string, null); an aggregate is a desynchronisation.
func skipRedisScalar(r *bufio.Reader, line []byte) error {
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
		if !ok || n > maxValueSize*2 {
			return fmt.Errorf("bad bulk header %q", clip(line))
		}
		var scratch []byte
		_, err := readData(r, n, &scratch)
		return err
	}
	return fmt.Errorf("unexpected reply %q", clip(line))
}
