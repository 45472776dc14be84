package resp

import (
	"strconv"

	"github.com/tandemkv/tandem/internal/num"
	"github.com/tidwall/redcon"
)

// Writer appends RESP replies to Buf, one Writer per connection, so that the
// replies to a whole pipeline leave in one write. Proto is the protocol the
// client speaks: 3 after HELLO 3, anything else means RESP2 (so the zero
// Writer speaks RESP2). A method that gets a type RESP2 lacks writes the
// RESP2 form redis 7.0 uses for it.
//
// No method allocates unless Buf has to grow. The caller owns Buf: it may
// reset it (w.Buf = w.Buf[:0]) once the bytes are written out.
type Writer struct {
	Buf   []byte
	Proto int
}

func (w *Writer) resp3() bool { return w.Proto == 3 }

// Status appends a simple string: +s. '\r' and '\n' in s become spaces.
func (w *Writer) Status(s string) {
	w.Buf = append(w.Buf, '+')
	w.Buf = appendLine(w.Buf, s)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Error appends an error: -msg. msg carries its own code ("ERR …",
// "WRONGTYPE …": see the Err* constants). '\r' and '\n' in msg become spaces,
// as redis does.
func (w *Writer) Error(msg string) {
	w.Buf = append(w.Buf, '-')
	w.Buf = appendLine(w.Buf, msg)
	w.Buf = append(w.Buf, '\r', '\n')
}

// appendLine appends s with '\r' and '\n' replaced by spaces.
func appendLine(b []byte, s string) []byte {
	start := len(b)
	b = append(b, s...)
	for i := start; i < len(b); i++ {
		if b[i] == '\r' || b[i] == '\n' {
			b[i] = ' '
		}
	}
	return b
}

// Int appends an integer: :n.
func (w *Writer) Int(n int64) { w.Buf = redcon.AppendInt(w.Buf, n) }

// Bulk appends a bulk string: $len b. A nil b is an empty string, not a null:
// use Null for that.
func (w *Writer) Bulk(b []byte) { w.Buf = redcon.AppendBulk(w.Buf, b) }

// BulkString appends a bulk string: $len s.
func (w *Writer) BulkString(s string) { w.Buf = redcon.AppendBulkString(w.Buf, s) }

// BulkInt appends the decimal text of n as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [20]byte
	w.Buf = redcon.AppendBulk(w.Buf, strconv.AppendInt(tmp[:0], n, 10))
}

// Null appends a null (a missing value): RESP2 $-1, RESP3 _.
func (w *Writer) Null() {
	if w.resp3() {
		w.Buf = append(w.Buf, '_', '\r', '\n')
		return
	}
	w.Buf = redcon.AppendNull(w.Buf)
}

// NullArray appends a null array (e.g. BLPOP timing out): RESP2 *-1, RESP3 _.
func (w *Writer) NullArray() {
	if w.resp3() {
		w.Buf = append(w.Buf, '_', '\r', '\n')
		return
	}
	w.Buf = append(w.Buf, '*', '-', '1', '\r', '\n')
}

// Array appends the header of an array of n elements: *n.
func (w *Writer) Array(n int) { w.Buf = redcon.AppendArray(w.Buf, n) }

// Map appends the header of a map of pairs key-value pairs: RESP3 %pairs,
// RESP2 an array of 2*pairs elements.
func (w *Writer) Map(pairs int) {
	if w.resp3() {
		w.Buf = appendHeader(w.Buf, '%', int64(pairs))
		return
	}
	w.Buf = redcon.AppendArray(w.Buf, 2*pairs)
}

// Set appends the header of a set of n elements: RESP3 ~n, RESP2 *n.
func (w *Writer) Set(n int) {
	if w.resp3() {
		w.Buf = appendHeader(w.Buf, '~', int64(n))
		return
	}
	w.Buf = redcon.AppendArray(w.Buf, n)
}

// Push appends the header of an out-of-band push of n elements (pub/sub
// messages, invalidations): RESP3 >n, RESP2 *n.
func (w *Writer) Push(n int) {
	if w.resp3() {
		w.Buf = appendHeader(w.Buf, '>', int64(n))
		return
	}
	w.Buf = redcon.AppendArray(w.Buf, n)
}

// Double appends a double as redis 7.0's addReplyDouble does: C's "%.17g"
// text (0.1 is "0.10000000000000001"), "inf" and "-inf" for infinities; as a
// bulk string in RESP2 and as ,text in RESP3. NaN prints as glibc does,
// "nan" or "-nan".
func (w *Writer) Double(f float64) {
	var tmp [32]byte
	text := appendDouble(tmp[:0], f)
	if w.resp3() {
		w.Buf = append(w.Buf, ',')
		w.Buf = append(w.Buf, text...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Buf = redcon.AppendBulk(w.Buf, text)
}

// appendDouble appends f as C's printf("%.17g") (num.AppendG17).
func appendDouble(b []byte, f float64) []byte { return num.AppendG17(b, f) }

// Bool appends a boolean: RESP3 #t / #f, RESP2 :1 / :0.
func (w *Writer) Bool(b bool) {
	switch {
	case w.resp3() && b:
		w.Buf = append(w.Buf, '#', 't', '\r', '\n')
	case w.resp3():
		w.Buf = append(w.Buf, '#', 'f', '\r', '\n')
	case b:
		w.Buf = append(w.Buf, ':', '1', '\r', '\n')
	default:
		w.Buf = append(w.Buf, ':', '0', '\r', '\n')
	}
}

// Verbatim appends text meant for humans (INFO, CLIENT INFO, LATENCY
// DOCTOR…): RESP3 a verbatim string of format "txt", RESP2 a bulk string.
func (w *Writer) Verbatim(s string) {
	if !w.resp3() {
		w.Buf = redcon.AppendBulkString(w.Buf, s)
		return
	}
	w.Buf = appendHeader(w.Buf, '=', int64(len(s))+4)
	w.Buf = append(w.Buf, "txt:"...)
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BigNumber appends an integer too big for Int, given as its decimal text:
// RESP3 (s, RESP2 a bulk string.
func (w *Writer) BigNumber(s string) {
	if !w.resp3() {
		w.Buf = redcon.AppendBulkString(w.Buf, s)
		return
	}
	w.Buf = append(w.Buf, '(')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Raw appends b as it is: a reply already encoded in the client's protocol.
func (w *Writer) Raw(b []byte) { w.Buf = append(w.Buf, b...) }

// appendHeader appends prefix, n and "\r\n".
func appendHeader(b []byte, prefix byte, n int64) []byte {
	b = append(b, prefix)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '\r', '\n')
}
