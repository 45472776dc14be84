package resp

import (
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/internal/sdsargs"

	"bytes"
	"math"
)

// Default limits: redis-server 7.0's.
const (
	DefaultMaxBulkLen      = 512 << 20     // proto-max-bulk-len 512mb
	DefaultMaxMultibulkLen = math.MaxInt32 // redis rejects a count above INT_MAX
	DefaultMaxInlineSize   = 64 << 10      // PROTO_INLINE_MAX_SIZE
)

// Thresholds that apply before AUTH when a password is required (redis 7.0).
const (
	unauthMaxMultibulkLen = 10
	unauthMaxBulkLen      = 16384
)

// keepArgs and keepScratch bound what a Parser keeps between requests: the
// tables of a bigger request are dropped once it is returned, so one huge MSET
// or inline line does not pin its memory for the life of the connection.
const (
	keepArgs    = 4096
	keepScratch = 64 << 10
)

// Limits bound what a request may declare. A zero field takes the default.
type Limits struct {
	// MaxBulkLen is the largest accepted "$<len>" (proto-max-bulk-len).
	MaxBulkLen int64
	// MaxMultibulkLen is the largest accepted "*<count>"; redis has no
	// setting and rejects only counts above INT_MAX.
	MaxMultibulkLen int64
	// MaxInlineSize is how many bytes may be pending without the end of a
	// line: an inline request's '\n', or the '\r' of a "*<count>" or
	// "$<len>" header. As in redis it is checked only while the end is
	// missing, so a longer line that arrives whole is accepted.
	MaxInlineSize int
}

func (l Limits) withDefaults() Limits {
	if l.MaxBulkLen <= 0 {
		l.MaxBulkLen = DefaultMaxBulkLen
	}
	l.MaxBulkLen = min(l.MaxBulkLen, math.MaxInt64/2) // room for the "\r\n" sums
	if l.MaxMultibulkLen <= 0 {
		l.MaxMultibulkLen = DefaultMaxMultibulkLen
	}
	if l.MaxInlineSize <= 0 {
		l.MaxInlineSize = DefaultMaxInlineSize
	}
	return l
}

// span locates one argument: buf[start:end], or scratch[start:end] when
// inScratch (an inline argument that had quotes or escapes).
// span is one argument: a range of the read buffer, or of the scratch
// buffer for an unescaped inline word.
type span = sdsargs.Span

// Parser is an incremental RESP request parser, one per connection. It
// reproduces redis-server 7.0 (networking.c processMultibulkBuffer and
// processInlineBuffer, sds.c sdssplitargs): what it accepts, what it waits
// for, and which error it gives. The zero value is not usable; use NewParser.
//
// Contract with the caller, who owns the bytes:
//
//   - Pass the whole unconsumed input each time, starting at the first byte
//     not yet consumed.
//   - After an incomplete result (n == 0, err == nil) the parser keeps its
//     progress through the partial request (arguments found, header lines
//     scanned): the next call must pass the same bytes again, with more
//     appended. They may have moved (the buffer grew or was compacted), but
//     their content must be unchanged. Parsing therefore costs O(len) in
//     total however finely a large request is split. A buffer shorter than
//     the progress makes the parser start the request over; anything else
//     that breaks this rule needs Reset.
//   - After n > 0 drop buf[:n] and pass the rest.
//   - After an error the connection is done: reply and close it (or Reset).
//
// The parser allocates nothing in steady state: it reuses its argument table,
// and grows it only as arguments arrive, never from a declared count, so
// "*2147483647\r\n" costs nothing. An inline request with quotes needs a
// scratch buffer, also reused.
type Parser struct {
	limits       Limits
	authRequired bool

	// Progress through a request that is not complete yet. Offsets are from
	// the start of the buffer passed to Next.
	multi   bool  // a "*<count>" line has been read
	pos     int   // first byte not yet parsed
	left    int64 // bulks still expected
	bulkLen int64 // length from the current "$<len>" line, or -1 before it
	scanned int   // bytes up to here were searched for the current line's end
	nul     bool  // that search hit a NUL byte: redis's strchr stops there

	spans   []span
	args    [][]byte
	scratch []byte
}

// NewParser returns a parser enforcing l (zero fields take the defaults).
func NewParser(l Limits) *Parser {
	p := &Parser{limits: l.withDefaults()}
	p.Reset()
	return p
}

// SetAuthRequired switches on or off the stricter limits redis applies to a
// client that still has to AUTH (requirepass set): at most 10 arguments, each
// at most 16384 bytes, else ErrProtoUnauthMultibulkLen / ErrProtoUnauthBulkLen.
func (p *Parser) SetAuthRequired(on bool) { p.authRequired = on }

// Reset forgets any partial request, e.g. when the caller discards its input.
func (p *Parser) Reset() {
	p.multi = false
	p.pos = 0
	p.left = 0
	p.bulkLen = -1
	p.scanned = 0
	p.nul = false
	if cap(p.spans) > keepArgs || cap(p.args) > keepArgs {
		p.spans, p.args = nil, nil
	}
	if cap(p.scratch) > keepScratch {
		p.scratch = nil
	}
	p.spans = p.spans[:0]
}

// Next parses one request from the start of buf (see the Parser contract).
//
//   - args, n, nil with n > 0: a request of len(args) arguments took buf[:n].
//     len(args) == 0 means an empty request ("*0\r\n", "*-1\r\n", a blank
//     inline line) that gets no reply: skip it. The next call to Next reuses
//     the args table and the scratch buffer, so run the command (or copy
//     args) before parsing the following one. The argument bytes alias buf,
//     except inline arguments that had quotes, which live in the scratch
//     buffer; capacity is clipped, so appending to one never writes into buf.
//     Whatever the engine keeps it must copy.
//   - nil, 0, nil: the request is incomplete; call again with more bytes.
//   - err != nil: a protocol error (a ProtocolError); reply "-ERR " +
//     err.Error() and close the connection.
func (p *Parser) Next(buf []byte) (args [][]byte, n int, err error) {
	if p.pos > len(buf) || p.scanned > len(buf) {
		p.Reset() // the caller passed fewer bytes than before: start over
	}
	if !p.multi {
		if len(buf) == 0 {
			return nil, 0, nil
		}
		if buf[0] != '*' {
			return p.inline(buf)
		}
		if err := p.readCount(buf); err != nil || !p.multi {
			if err != nil || p.pos == 0 {
				return nil, 0, err // error, or the count line is incomplete
			}
			n = p.pos // a count <= 0: an empty request
			p.Reset()
			return p.args[:0], n, nil
		}
	}
	for p.left > 0 {
		if p.bulkLen < 0 {
			ok, err := p.readBulkHeader(buf)
			if err != nil || !ok {
				return nil, 0, err
			}
		}
		if int64(len(buf)-p.pos) < p.bulkLen+2 {
			return nil, 0, nil
		}
		// Like redis, skip the two bytes after the data without checking
		// that they are "\r\n".
		end := p.pos + int(p.bulkLen)
		p.spans = append(p.spans, span{Start: p.pos, End: end})
		p.pos = end + 2
		p.bulkLen = -1
		p.left--
	}
	args = p.build(buf)
	n = p.pos
	p.Reset()
	return args, n, nil
}

// readCount reads the "*<count>" line at the start of buf. On success with a
// positive count it sets p.multi; with a count <= 0 it only advances p.pos;
// when the line is incomplete it leaves p.pos at 0.
func (p *Parser) readCount(buf []byte) error {
	cr := p.findLineEnd(buf, 0, '\r')
	if cr < 0 {
		if len(buf) > p.limits.MaxInlineSize {
			return ProtocolError(ErrProtoTooBigMbulkCount)
		}
		return nil
	}
	if cr > len(buf)-2 { // redis wants one more byte, whatever it is
		return nil
	}
	count, ok := num.ParseInt(buf[1:cr])
	if !ok || count > p.limits.MaxMultibulkLen || count > math.MaxInt32 {
		return ProtocolError(ErrProtoInvalidMultibulkLen)
	}
	if p.authRequired && count > unauthMaxMultibulkLen {
		return ProtocolError(ErrProtoUnauthMultibulkLen)
	}
	p.lineDone(cr + 2)
	if count > 0 {
		p.multi = true
		p.left = count
	}
	return nil
}

// readBulkHeader reads a "$<len>" line at p.pos. It reports false when the
// line is incomplete.
func (p *Parser) readBulkHeader(buf []byte) (bool, error) {
	cr := p.findLineEnd(buf, p.pos, '\r')
	if cr < 0 {
		if len(buf)-p.pos > p.limits.MaxInlineSize {
			return false, ProtocolError(ErrProtoTooBigBulkCount)
		}
		return false, nil
	}
	if cr > len(buf)-2 {
		return false, nil
	}
	if c := buf[p.pos]; c != '$' {
		if c == '\r' || c == '\n' {
			c = ' ' // redis maps newlines in error texts to spaces
		}
		return false, ProtocolError("Protocol error: expected '$', got '" + string([]byte{c}) + "'")
	}
	size, ok := num.ParseInt(buf[p.pos+1 : cr])
	if !ok || size < 0 || size > p.limits.MaxBulkLen {
		return false, ProtocolError(ErrProtoInvalidBulkLen)
	}
	if p.authRequired && size > unauthMaxBulkLen {
		return false, ProtocolError(ErrProtoUnauthBulkLen)
	}
	p.lineDone(cr + 2)
	p.bulkLen = size
	return true, nil
}

// findLineEnd returns the index of the first c in buf at or after from, or -1.
// Like redis's strchr over its NUL-terminated query buffer, the search stops
// at a NUL byte: a line with a NUL before its end never ends (until the
// pending size limit turns it into an error). Progress is kept in p.scanned
// and p.nul so that a line arriving in pieces is searched once.
func (p *Parser) findLineEnd(buf []byte, from int, c byte) int {
	if p.nul {
		return -1
	}
	from = max(from, p.scanned)
	rest := buf[from:]
	i := bytes.IndexByte(rest, c)
	if i < 0 {
		i = len(rest)
	}
	if z := bytes.IndexByte(rest[:i], 0); z >= 0 {
		p.nul = true
		p.scanned = from + z
		return -1
	}
	if i == len(rest) {
		p.scanned = len(buf)
		return -1
	}
	p.scanned = from + i
	return from + i
}

// lineDone moves past a header line whose next unparsed byte is next.
func (p *Parser) lineDone(next int) {
	p.pos = next
	p.scanned = next
	p.nul = false
}

// build turns p.spans into argument slices of buf or p.scratch.
func (p *Parser) build(buf []byte) [][]byte {
	args := p.args[:0]
	for _, s := range p.spans {
		src := buf
		if s.InScratch {
			src = p.scratch
		}
		args = append(args, src[s.Start:s.End:s.End])
	}
	p.args = args
	return args
}

// inline parses an inline request: one line split like redis's sdssplitargs.
func (p *Parser) inline(buf []byte) ([][]byte, int, error) {
	nl := p.findLineEnd(buf, 0, '\n')
	if nl < 0 {
		if len(buf) > p.limits.MaxInlineSize {
			return nil, 0, ProtocolError(ErrProtoTooBigInline)
		}
		return nil, 0, nil
	}
	end := nl
	if end > 0 && buf[end-1] == '\r' {
		end--
	}
	var ok bool
	if p.spans, p.scratch, ok = sdsargs.Split(buf[:end], p.spans, p.scratch); !ok {
		return nil, 0, ProtocolError(ErrProtoUnbalancedQuotes)
	}
	args := p.build(buf)
	p.Reset()
	return args, nl + 1, nil
}
