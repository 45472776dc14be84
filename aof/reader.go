package aof

import (
	"bufio"
	"errors"
	"io"
	"math"

	"github.com/tandemkv/tandem/internal/num"
)

// maxLine is the longest line the reader takes at once: Redis reads AOF
// lines with fgets into a buffer of AOF_ANNOTATION_LINE_MAX_LEN (1024)
// bytes, so a longer line is split and its rest read as the next line.
const maxLine = 1023

// preallocLimit caps the buffer allocated for an argument before its bytes
// arrive: a "$2147483647" header costs nothing until the data is there.
const preallocLimit = 1 << 20

// Reader outcomes other than a command.
var (
	// ErrBadFormat: the bytes are not an AOF (Redis's "Bad file format").
	ErrBadFormat = errors.New("aof: bad file format")
	// ErrShortRead: the file ends inside a command (Redis's "short read").
	ErrShortRead = errors.New("aof: unexpected end of file")
)

// Reader reads an AOF's commands: RESP multibulk requests as Redis writes
// them, and '#' annotation lines between them. It reads as Redis's loader
// does, so it accepts and refuses the same files: lines up to 1023 bytes,
// counts as atoi and strtol read them, the two bytes after each argument skipped
// unchecked.
type Reader struct {
	r    *bufio.Reader
	off  int64 // bytes consumed
	line []byte
	args [][]byte
	data []byte // the arguments' bytes, back to back
}

// NewReader reads from r, which it wraps in a bufio.Reader unless r is
// one. off is the offset of r's first byte in the file, for Offset.
func NewReader(r io.Reader, off int64) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &Reader{r: br, off: off, line: make([]byte, 0, maxLine)}
}

// Offset is the file offset just past the last line or command returned.
func (r *Reader) Offset() int64 { return r.off }

// readLine is fgets: bytes up to and including '\n', at most maxLine;
// nil at end of file.
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for len(r.line) < maxLine {
		c, err := r.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				break
			}
			return nil, err
		}
		r.off++
		r.line = append(r.line, c)
		if c == '\n' {
			break
		}
	}
	if len(r.line) == 0 {
		return nil, io.EOF
	}
	return r.line, nil
}

// Next returns the next command's arguments, or with annotation set a
// '#' line (its bytes as read, newline included). Both are valid until the
// next call. At the end of the file it returns io.EOF; a file that ends
// inside a command returns ErrShortRead, bytes that cannot be an AOF
// ErrBadFormat, and a read error itself.
func (r *Reader) Next() (args [][]byte, annotation []byte, err error) {
	line, err := r.readLine()
	if err != nil {
		return nil, nil, err
	}
	if line[0] == '#' {
		return nil, line, nil
	}
	if line[0] != '*' {
		return nil, nil, ErrBadFormat
	}
	if len(line) == 1 {
		return nil, nil, ErrShortRead // "*" and the end of the file
	}
	argc := num.Atoi(line[1:])
	if argc < 1 {
		return nil, nil, ErrBadFormat
	}
	r.args = r.args[:0]
	r.data = r.data[:0]
	ends := make([]int, 0, min(argc, 1024))
	for j := 0; j < argc; j++ {
		line, err := r.readLine()
		if err == io.EOF {
			return nil, nil, ErrShortRead
		}
		if err != nil {
			return nil, nil, err
		}
		if line[0] != '$' {
			return nil, nil, ErrBadFormat
		}
		// strtol; Redis would take a negative length as a huge unsigned
		// one and fail to allocate it: refused here instead.
		n := num.Strtoll(line[1:])
		if n < 0 {
			return nil, nil, ErrBadFormat
		}
		if err := r.readArg(n); err != nil {
			return nil, nil, err
		}
		ends = append(ends, len(r.data))
		// Redis discards the two bytes after the data without looking.
		for k := 0; k < 2; k++ {
			if _, err := r.r.ReadByte(); err != nil {
				if err == io.EOF {
					return nil, nil, ErrShortRead
				}
				return nil, nil, err
			}
			r.off++
		}
	}
	start := 0
	for _, end := range ends {
		r.args = append(r.args, r.data[start:end:end])
		start = end
	}
	return r.args, nil, nil
}

// readArg appends n bytes to r.data, growing the buffer only as bytes
// arrive.
func (r *Reader) readArg(n64 int64) error {
	n := int(min(n64, math.MaxInt))
	if free := cap(r.data) - len(r.data); free < n {
		grow := min(n, preallocLimit)
		nd := make([]byte, len(r.data), len(r.data)+grow)
		copy(nd, r.data)
		r.data = nd
	}
	for n > 0 {
		if len(r.data) == cap(r.data) {
			r.data = append(r.data, 0)[:len(r.data)]
		}
		chunk := min(n, cap(r.data)-len(r.data))
		got, err := io.ReadFull(r.r, r.data[len(r.data):len(r.data)+chunk])
		r.data = r.data[:len(r.data)+got]
		r.off += int64(got)
		n -= got
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return ErrShortRead
			}
			return err
		}
	}
	return nil
}
