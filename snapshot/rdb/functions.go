package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
)

// FUNCTION DUMP and FUNCTION RESTORE payloads: the libraries as an RDB
// file holds them (a FUNCTION2 opcode and the library's source, an RDB
// string, for each), framed as a DUMP payload (RDB version, CRC-64), as
// redis-server 7.0's functionDumpCommand writes them.

// AppendFunctionsDump appends the FUNCTION DUMP payload of the libraries
// whose sources are codes, in that order. o.Compress is rdbcompression:
// sources longer than 20 bytes are then LZF-compressed when that saves 4
// bytes, as Redis's rdbSaveRawString does.
func AppendFunctionsDump(dst []byte, codes [][]byte, o DumpOptions) []byte {
	w := &Writer{mem: dst, o: WriterOptions{Compress: o.Compress}}
	if o.Compress {
		w.lzfRedis = compressors.Get().(*lzfRedis)
		defer compressors.Put(w.lzfRedis)
	}
	start := len(dst)
	for _, code := range codes {
		w.byte1(opFunction2)
		w.str(code)
	}
	w.raw(binary.LittleEndian.AppendUint16(w.ibuf[:0], DumpVersion))
	return binary.LittleEndian.AppendUint64(w.mem, CRC64(w.mem[start:]))
}

// FunctionsDumpError is why FUNCTION RESTORE refuses a payload whose
// footer is good, in Redis's words (the reply is "ERR " and Msg).
type FunctionsDumpError struct{ Msg string }

func (e *FunctionsDumpError) Error() string { return "rdb: " + e.Msg }

// DecodeFunctionsDump reads a FUNCTION RESTORE payload as Redis's
// functionRestoreCommand: ErrDumpFooter when its footer is bad; else the
// libraries' sources, read while more than the footer is left, or a
// *FunctionsDumpError: a record that is not a library ("given type is not
// a function"), a source that cannot be read. A library in the format of
// Redis 7.0's release candidates (opcode 246: name, engine, description,
// code) is turned into a source as Redis turns it: "#!<engine>
// name=<name>\n<code>".
func DecodeFunctionsDump(p []byte) (codes [][]byte, err error) {
	if !VerifyDump(p) {
		return nil, ErrDumpFooter
	}
	r := &Reader{r: bufio.NewReaderSize(bytes.NewReader(p), 512), version: DumpVersion, pend: NewMeta()}
	fail := func(msg string) { err = &FunctionsDumpError{Msg: msg} }
	for int64(len(p))-r.off > dumpFooter {
		// More than the footer is left: the type byte is there.
		switch r.readByte("type") {
		case opFunction2:
			code, e := r.stringOrError()
			if err = e; err != nil {
				fail("Failed loading library payload")
				return nil, err
			}
			codes = append(codes, code)
		case opFunction:
			var fields [3][]byte
			for i, what := range []string{"Failed loading library name", "Failed loading engine name"} {
				if fields[i], err = r.stringOrError(); err != nil {
					fail(what)
					return nil, err
				}
			}
			hasDesc, e := r.countOrError()
			if err = e; err != nil {
				fail("Failed loading library description indicator")
				return nil, err
			}
			if hasDesc != 0 {
				if _, err = r.stringOrError(); err != nil {
					fail("Failed loading library description")
					return nil, err
				}
			}
			if fields[2], err = r.stringOrError(); err != nil {
				fail("Failed loading library blob")
				return nil, err
			}
			code := append(append([]byte("#!"), fields[1]...), " name="...)
			code = append(append(append(code, fields[0]...), '\n'), fields[2]...)
			codes = append(codes, code)
		default:
			return nil, &FunctionsDumpError{Msg: "given type is not a function"}
		}
	}
	return codes, nil
}

// stringOrError reads a string, its failure returned rather than raised.
func (r *Reader) stringOrError() (s []byte, err error) {
	defer r.catch(&err)
	s, _ = r.readString("function library")
	return s, nil
}

// countOrError reads a length, its failure returned rather than raised.
func (r *Reader) countOrError() (n uint64, err error) {
	defer r.catch(&err)
	return r.readCount("function library"), nil
}
