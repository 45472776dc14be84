package main

import (
	"bufio"
	"bytes"
	"fmt"
)

// memcachedText speaks memcached's classic text protocol: set/get, with
// client flags 0 and no expiry.
type memcachedText struct{}

func (memcachedText) appendSet(dst, key, value []byte) []byte {
	dst = append(dst, "set "...)
	dst = append(dst, key...)
	dst = append(dst, " 0 0 "...)
	dst = appendInt(dst, len(value))
	dst = append(dst, '\r', '\n')
	dst = append(dst, value...)
	return append(dst, '\r', '\n')
}

func (memcachedText) appendGet(dst, key []byte) []byte {
	dst = append(dst, "get "...)
	dst = append(dst, key...)
	return append(dst, '\r', '\n')
}

func (memcachedText) appendFlush(dst []byte) []byte { return append(dst, "flush_all\r\n"...) }

func (memcachedText) readSet(r *bufio.Reader) error {
	line, err := readLine(r)
	if err != nil {
		return err
	}
	if string(line) == "STORED" {
		return nil
	}
	return memcachedOther("set", line)
}

func (memcachedText) readFlush(r *bufio.Reader) error {
	line, err := readLine(r)
	if err != nil {
		return err
	}
	if string(line) == "OK" {
		return nil
	}
	return memcachedOther("flush_all", line)
}

// readGet reads "END" (a miss) or "VALUE <key> <flags> <bytes>[ <cas>]",
// the data block and "END".
func (memcachedText) readGet(r *bufio.Reader, key []byte, scratch *[]byte) ([]byte, bool, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, false, err
	}
	if string(line) == "END" {
		return nil, false, nil
	}
	if !bytes.HasPrefix(line, []byte("VALUE ")) {
		return nil, false, memcachedOther("get", line)
	}
	f := bytes.Fields(line[len("VALUE "):])
	if len(f) < 3 || len(f) > 4 {
		return nil, false, fmt.Errorf("get: bad VALUE line %q", clip(line))
	}
	n, ok := atoi(f[2])
	if !ok || n > maxValueSize*2 {
		return nil, false, fmt.Errorf("get: bad VALUE line %q", clip(line))
	}
	// Keep what is checked before line's buffer is reused by the next read.
	sameKey, zeroFlags := bytes.Equal(f[0], key), string(f[1]) == "0"
	v, err := readData(r, n, scratch)
	if err != nil {
		return nil, false, err
	}
	end, err := readLine(r)
	if err != nil {
		return nil, false, err
	}
	if string(end) != "END" {
		return nil, false, fmt.Errorf("get: %q after the value, want END", clip(end))
	}
	switch {
	case !sameKey:
		return nil, false, replyError(fmt.Sprintf("get %s: VALUE of another key", key))
	case !zeroFlags:
		return nil, false, replyError(fmt.Sprintf("get %s: flags are not 0", key))
	}
	return v, true, nil
}

// memcachedOther turns a reply line that is not the expected success into
// an error: a replyError for memcached's one-line answers (the connection
// is still in step), a fatal error for anything else.
func memcachedOther(cmd string, line []byte) error {
	for _, p := range []string{"ERROR", "CLIENT_ERROR", "SERVER_ERROR", "NOT_STORED", "EXISTS", "NOT_FOUND", "NS", "EX", "NF"} {
		if bytes.HasPrefix(line, []byte(p)) && (len(line) == len(p) || line[len(p)] == ' ') {
			return replyError(fmt.Sprintf("%s: %q", cmd, clip(line)))
		}
	}
	return fmt.Errorf("%s: unexpected reply %q", cmd, clip(line))
}

// memcachedMeta speaks memcached's meta protocol: ms and mg.
type memcachedMeta struct{ memcachedText }

func (memcachedMeta) appendSet(dst, key, value []byte) []byte {
	dst = append(dst, "ms "...)
	dst = append(dst, key...)
	dst = append(dst, ' ')
	dst = appendInt(dst, len(value))
	dst = append(dst, " T0 F0\r\n"...)
	dst = append(dst, value...)
	return append(dst, '\r', '\n')
}

func (memcachedMeta) appendGet(dst, key []byte) []byte {
	dst = append(dst, "mg "...)
	dst = append(dst, key...)
	return append(dst, " v f\r\n"...)
}

func (memcachedMeta) readSet(r *bufio.Reader) error {
	line, err := readLine(r)
	if err != nil {
		return err
	}
	if string(line) == "HD" {
		return nil
	}
	return memcachedOther("ms", line)
}

// readGet reads "EN" (a miss) or "VA <bytes> f<flags>" and the data block.
func (memcachedMeta) readGet(r *bufio.Reader, key []byte, scratch *[]byte) ([]byte, bool, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, false, err
	}
	if string(line) == "EN" {
		return nil, false, nil
	}
	if !bytes.HasPrefix(line, []byte("VA ")) {
		return nil, false, memcachedOther("mg", line)
	}
	f := bytes.Fields(line[len("VA "):])
	if len(f) < 1 {
		return nil, false, fmt.Errorf("mg: bad VA line %q", clip(line))
	}
	n, ok := atoi(f[0])
	if !ok || n > maxValueSize*2 {
		return nil, false, fmt.Errorf("mg: bad VA line %q", clip(line))
	}
	zeroFlags := false
	for _, t := range f[1:] {
		if len(t) > 0 && t[0] == 'f' {
			zeroFlags = string(t) == "f0"
		}
	}
	v, err := readData(r, n, scratch)
	if err != nil {
		return nil, false, err
	}
	if !zeroFlags {
		return nil, false, replyError(fmt.Sprintf("mg %s: flags are not f0", key))
	}
	return v, true, nil
}
