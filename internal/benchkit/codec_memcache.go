package benchkit

import (
	"bufio"
	"bytes"
	"fmt"
)

// MemcacheText is memcached's classic text protocol: set and get, client
// flags 0 and no expiry.
type MemcacheText struct{}

func (MemcacheText) Protocol() string { return "memcache" }

func (MemcacheText) AppendSet(dst, key, value []byte) []byte {
	dst = append(dst, "set "...)
	dst = append(dst, key...)
	dst = append(dst, " 0 0 "...)
	dst = appendInt(dst, len(value))
	dst = append(dst, '\r', '\n')
	dst = append(dst, value...)
	return append(dst, '\r', '\n')
}

func (MemcacheText) AppendGet(dst, key []byte) []byte {
	dst = append(dst, "get "...)
	dst = append(dst, key...)
	return append(dst, '\r', '\n')
}

func (MemcacheText) AppendMultiGet(dst []byte, keys [][]byte) []byte {
	dst = append(dst, "get"...)
	for _, k := range keys {
		dst = append(dst, ' ')
		dst = append(dst, k...)
	}
	return append(dst, '\r', '\n')
}

func (MemcacheText) AppendFlush(dst []byte) []byte { return append(dst, "flush_all\r\n"...) }

func (MemcacheText) ReadSet(r *bufio.Reader) error { return readWord(r, "set", "STORED") }

func (MemcacheText) ReadFlush(r *bufio.Reader) error { return readWord(r, "flush_all", "OK") }

// readWord reads a one-line reply that should be want.
func readWord(r *bufio.Reader, cmd, want string) error {
	line, err := ReadLine(r)
	if err != nil {
		return err
	}
	if string(line) == want {
		return nil
	}
	return memcacheOther(cmd, line)
}

// readValue reads one "VALUE <key> <flags> <bytes>[ <cas>]" line's data
// block, line being that header; it checks the key is key and the flags
// 0.
func readValue(r *bufio.Reader, line, key []byte, scratch *[]byte) ([]byte, error) {
	f := bytes.Fields(line[len("VALUE "):])
	if len(f) < 3 || len(f) > 4 {
		return nil, fmt.Errorf("get: bad VALUE line %q", Clip(line))
	}
	n, ok := atoi(f[2])
	if !ok || n > MaxValueSize {
		return nil, fmt.Errorf("get: bad VALUE line %q", Clip(line))
	}
	// Keep what is checked before line's buffer is reused by the next read.
	sameKey, zeroFlags := bytes.Equal(f[0], key), string(f[1]) == "0"
	v, err := readData(r, n, scratch)
	if err != nil {
		return nil, err
	}
	switch {
	case !sameKey:
		return nil, ReplyErr(fmt.Sprintf("get %s: VALUE of another key", key))
	case !zeroFlags:
		return nil, ReplyErr(fmt.Sprintf("get %s: flags are not 0", key))
	}
	return v, nil
}

// ReadGet reads "END" (a miss) or a VALUE line, the data block and "END".
func (MemcacheText) ReadGet(r *bufio.Reader, key []byte, scratch *[]byte) ([]byte, bool, error) {
	line, err := ReadLine(r)
	if err != nil {
		return nil, false, err
	}
	if string(line) == "END" {
		return nil, false, nil
	}
	if !bytes.HasPrefix(line, []byte("VALUE ")) {
		return nil, false, memcacheOther("get", line)
	}
	v, verr := readValue(r, line, key, scratch)
	if verr != nil && !InStep(verr) {
		return nil, false, verr
	}
	end, err := ReadLine(r)
	if err != nil {
		return nil, false, err
	}
	if string(end) != "END" {
		return nil, false, fmt.Errorf("get: %q after the value, want END", Clip(end))
	}
	return v, verr == nil, verr
}

// ReadMultiGet reads the VALUE blocks of the keys that hit, in the order
// asked, then "END".
func (MemcacheText) ReadMultiGet(r *bufio.Reader, keys [][]byte, scratch *[]byte, got func(int, []byte, bool)) error {
	i := 0
	var first error
	for {
		line, err := ReadLine(r)
		if err != nil {
			return err
		}
		if string(line) == "END" {
			for ; i < len(keys); i++ {
				got(i, nil, false)
			}
			return first
		}
		if !bytes.HasPrefix(line, []byte("VALUE ")) {
			return memcacheOther("get", line)
		}
		// The key named on the line: every key before it in the request
		// missed.
		name := line[len("VALUE "):]
		if sp := bytes.IndexByte(name, ' '); sp >= 0 {
			name = name[:sp]
		}
		j := i
		for j < len(keys) && !bytes.Equal(keys[j], name) {
			j++
		}
		if j == len(keys) {
			return fmt.Errorf("get: VALUE of %q, not asked or out of order", Clip(name))
		}
		for ; i < j; i++ {
			got(i, nil, false)
		}
		v, err := readValue(r, line, keys[i], scratch)
		switch {
		case err == nil:
			got(i, v, true)
		case InStep(err):
			if first == nil {
				first = err
			}
		default:
			return err
		}
		i++
	}
}

// memcacheOther turns a reply line that is not the expected success into
// an error: a ReplyErr (the line) for memcached's one-line answers, the
// connection still in step; a broken stream for anything else.
func memcacheOther(cmd string, line []byte) error {
	for _, p := range []string{"ERROR", "CLIENT_ERROR", "SERVER_ERROR", "NOT_STORED", "EXISTS", "NOT_FOUND", "NS", "EX", "NF"} {
		if bytes.HasPrefix(line, []byte(p)) && (len(line) == len(p) || line[len(p)] == ' ') {
			return ReplyErr(line)
		}
	}
	return fmt.Errorf("%s: unexpected reply %q", cmd, Clip(line))
}

// MemcacheMeta is memcached's meta protocol: ms and mg.
type MemcacheMeta struct{ MemcacheText }

func (MemcacheMeta) Protocol() string { return "meta" }

func (MemcacheMeta) AppendSet(dst, key, value []byte) []byte {
	dst = append(dst, "ms "...)
	dst = append(dst, key...)
	dst = append(dst, ' ')
	dst = appendInt(dst, len(value))
	dst = append(dst, " T0 F0\r\n"...)
	dst = append(dst, value...)
	return append(dst, '\r', '\n')
}

func (MemcacheMeta) AppendGet(dst, key []byte) []byte {
	dst = append(dst, "mg "...)
	dst = append(dst, key...)
	return append(dst, " v f\r\n"...)
}

// AppendMultiGet is one mg per key: the meta protocol has no multi-key
// get.
func (m MemcacheMeta) AppendMultiGet(dst []byte, keys [][]byte) []byte {
	for _, k := range keys {
		dst = m.AppendGet(dst, k)
	}
	return dst
}

func (MemcacheMeta) ReadSet(r *bufio.Reader) error { return readWord(r, "ms", "HD") }

// ReadGet reads "EN" (a miss) or "VA <bytes> f<flags>" and the data block.
func (MemcacheMeta) ReadGet(r *bufio.Reader, key []byte, scratch *[]byte) ([]byte, bool, error) {
	line, err := ReadLine(r)
	if err != nil {
		return nil, false, err
	}
	if string(line) == "EN" {
		return nil, false, nil
	}
	if !bytes.HasPrefix(line, []byte("VA ")) {
		return nil, false, memcacheOther("mg", line)
	}
	f := bytes.Fields(line[len("VA "):])
	if len(f) < 1 {
		return nil, false, fmt.Errorf("mg: bad VA line %q", Clip(line))
	}
	n, ok := atoi(f[0])
	if !ok || n > MaxValueSize {
		return nil, false, fmt.Errorf("mg: bad VA line %q", Clip(line))
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
		return nil, false, ReplyErr(fmt.Sprintf("mg %s: flags are not f0", key))
	}
	return v, true, nil
}

func (m MemcacheMeta) ReadMultiGet(r *bufio.Reader, keys [][]byte, scratch *[]byte, got func(int, []byte, bool)) error {
	var first error
	for i, k := range keys {
		v, hit, err := m.ReadGet(r, k, scratch)
		switch {
		case err == nil:
			got(i, v, hit)
		case InStep(err):
			if first == nil {
				first = err
			}
		default:
			return err
		}
	}
	return first
}
