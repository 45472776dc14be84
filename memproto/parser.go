package memproto

import (
	"bytes"
	"math"
)

// Protocol constants of memcached 1.6.
const (
	// MaxKeyLen is KEY_MAX_LENGTH. For meta b keys it bounds the encoded
	// form, as memcached checks the token before decoding it.
	MaxKeyLen = 250
	// maxTokens is MAX_TOKENS: a line is split into at most 23 tokens; the
	// rest of a longer line stays unsplit (get and gets go on splitting it).
	maxTokens = 24
	// metaMaxTokens is MFLAG_MAX_OPT_LENGTH: meta commands with more
	// tokens (command, key and flags, plus memcached's terminal token) are
	// refused.
	metaMaxTokens = 20
	// maxOpaqueLen bounds an O token, the 'O' included.
	maxOpaqueLen = 32
	// itemHeaderSize is what memcached 1.6 adds to key and value when it
	// sizes an item on 64-bit with CAS on: a 48-byte header, an 8-byte
	// CAS, the key's NUL, the value's "\r\n", and 4 bytes of client flags
	// when they are not 0. An item over item-size-max is refused, so the
	// largest value under the default 1 MB and key "big" is 1048514 bytes.
	itemHeaderSize = 48 + 8
	// readBufferSize is memcached's read buffer: a line longer than this
	// can never be seen whole, and memcached closes the connection.
	readBufferSize = 16384
	// multigetMaxIndent: a long line may be a get/gets only if its command
	// starts within this many spaces.
	multigetMaxIndent = 100
	// keepKeys bounds the key table a Request keeps between requests.
	keepKeys = 4096
)

// DefaultLimits are memcached's defaults.
var DefaultLimits = Limits{MaxLine: 2048, ItemSizeMax: 1 << 20}

// Limits bound a request. A zero field takes the default.
type Limits struct {
	// MaxLine: a connection whose pending bytes hold no '\n' within this
	// many bytes is closed without a reply, unless the line is a get or
	// gets (large multigets are allowed). As in memcached the check is on
	// the pending partial line, so a longer line that arrives whole is
	// accepted, up to readBufferSize.
	MaxLine int
	// ItemSizeMax is the largest item (memcached -I): see itemHeaderSize.
	ItemSizeMax int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxLine <= 0 {
		l.MaxLine = DefaultLimits.MaxLine
	}
	if l.ItemSizeMax <= 0 {
		l.ItemSizeMax = DefaultLimits.ItemSizeMax
	}
	return l
}

// Status is what Parser.Next found.
type Status uint8

// Parser results.
const (
	// Incomplete: more bytes are needed; nothing was consumed.
	Incomplete Status = iota
	// Parsed: one request was parsed into the Request (its Err may be set).
	Parsed
	// Close: close the connection without a reply, as memcached does for
	// an over-long line and for an HTTP request line.
	Close
)

// Parser cuts a connection's bytes into requests, as memcached 1.6's
// try_read_command_ascii and process_command_ascii do. One per connection.
//
// Contract: pass the whole unconsumed input each time. After Incomplete
// the next call must pass the same bytes with more appended (they may have
// moved); the parser remembers how far it has looked for the end of the
// line, so a long multiget arriving in pieces costs O(len) in total.
type Parser struct {
	lim     Limits
	cmds    map[string]*command // the front-end's table (rename.go); nil: commandTable
	scanned int                 // bytes at the start of the input known to hold no '\n'
	// last is the last command found and its name: a pipeline repeats
	// one command, and comparing a few bytes costs less than hashing them
	// into the table (3 % of a pipelined get).
	last     *command
	lastName [16]byte
	lastLen  int
}

// NewParser returns a parser with the given limits.
func NewParser(lim Limits) *Parser { return &Parser{lim: lim.withDefaults()} }

// Next parses the request at the start of in into r. It returns the bytes
// consumed and the status. r's byte slices alias in (or r's own buffers)
// and are valid until the next call.
//
// A request with r.Err set is malformed: the reply is r.Err (unless
// r.NoReply), then r.Swallow more bytes of input are to be discarded (the
// data block of a storage command refused before its data was read).
func (p *Parser) Next(in []byte, r *Request) (int, Status) {
	from := min(p.scanned, len(in))
	eol := bytes.IndexByte(in[from:], '\n')
	if eol < 0 {
		p.scanned = len(in)
		if len(in) > p.lim.MaxLine && !isMultigetLine(in) {
			p.scanned = 0
			return 0, Close
		}
		return 0, Incomplete
	}
	eol += from
	p.scanned = 0
	if eol >= max(readBufferSize, p.lim.MaxLine) && !isMultigetLine(in) {
		return 0, Close
	}
	line := in[:eol]
	if len(line) > 1 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i] // memcached's tokenizer stops at a NUL
	}
	r.reset()
	r.tokenize(line)
	n, st := p.parseLine(in, eol+1, r)
	if st == Incomplete {
		// Only a storage command waiting for its data gets here: look for
		// the line again next time, it is short.
		return 0, Incomplete
	}
	return n, st
}

// isMultigetLine reports whether a long line may continue: memcached lets
// "get " and "gets " lines grow without bound.
func isMultigetLine(in []byte) bool {
	i := 0
	for i < len(in) && in[i] == ' ' {
		i++
	}
	if i > multigetMaxIndent {
		return false
	}
	rest := in[i:]
	return bytes.HasPrefix(rest, []byte("get ")) || bytes.HasPrefix(rest, []byte("gets "))
}

// Request is one parsed request. The zero value is ready to use; reuse one
// Request per connection so that steady-state parsing allocates nothing.
type Request struct {
	Cmd *command // nil when the command is unknown (Err is then set)

	// Keys holds every key of a retrieval command; Key is the single key
	// of the others (base64-decoded for meta commands with b).
	Keys [][]byte
	Key  []byte
	// BadKey is the index in Keys of the first key over MaxKeyLen, the
	// last in Keys, or -1: memcached serves the keys before it, then
	// answers an error alone.
	BadKey int

	Flags   uint32
	Exptime int32 // as memcached reads it; see expiry.go
	CAS     uint64
	Delta   uint64
	NoReply bool
	Data    []byte // storage commands: the data block without its "\r\n"

	Meta MetaFlags

	// Err is the reply to a malformed request, "" when it is valid.
	Err string
	// Swallow is how many bytes after the line are to be discarded.
	Swallow int
	// TooLarge: the item is over item-size-max. memcached then also drops
	// the key's current value for set (and every ms mode).
	TooLarge bool

	// nt is memcached's ntokens: tokens found (at most 23) plus one.
	nt   int
	toks [maxTokens][]byte
	rest []byte // the unsplit remainder of a line of more than 23 tokens

	keyBuf [MaxKeyLen]byte // decoded base64 key
}

// Args returns the tokens after the command name (at most 22).
func (r *Request) Args() [][]byte { return r.toks[1 : r.nt-1] }

func (r *Request) reset() {
	keys := r.Keys[:0]
	if cap(keys) > keepKeys {
		keys = nil
	}
	*r = Request{Keys: keys, BadKey: -1}
}

// tokenize splits line on spaces as memcached's tokenize_command does:
// empty tokens are skipped, at most maxTokens-1 are cut, and r.rest holds
// the remainder (starting after the space that ended the last token).
func (r *Request) tokenize(line []byte) {
	n := 0
	start := 0
	for i := 0; i < len(line); i++ {
		if line[i] != ' ' {
			continue
		}
		if i > start {
			r.toks[n] = line[start:i]
			n++
			if n == maxTokens-1 {
				if i+1 < len(line) {
					r.rest = line[i+1:]
				}
				r.nt = n + 1
				return
			}
		}
		start = i + 1
	}
	if start < len(line) {
		r.toks[n] = line[start:]
		n++
	}
	r.nt = n + 1
}

// parseLine interprets the tokenized line whose '\n' ends at lineEnd.
func (p *Parser) parseLine(in []byte, lineEnd int, r *Request) (int, Status) {
	if r.nt < 2 || len(r.toks[0]) < 2 {
		r.Err = errUnknown
		return lineEnd, Parsed
	}
	name := r.toks[0]
	cmds := p.cmds
	if cmds == nil {
		cmds = commandTable
	}
	cmd := p.last
	if cmd == nil || len(name) != p.lastLen || !bytes.Equal(name, p.lastName[:p.lastLen]) {
		cmd = cmds[string(name)]
		if cmd != nil && len(name) <= len(p.lastName) {
			p.last, p.lastLen = cmd, copy(p.lastName[:], name)
		}
	}
	if cmd == nil {
		if closesOnHTTP(name) && bytes.HasPrefix(r.toks[r.nt-2], []byte("HTTP/")) {
			return lineEnd, Close
		}
		r.Err = errUnknown
		return lineEnd, Parsed
	}
	r.Cmd = cmd
	if (cmd.minTokens > 0 && r.nt < cmd.minTokens) || (cmd.maxTokens > 0 && r.nt > cmd.maxTokens) {
		r.Err = errUnknown
		return lineEnd, Parsed
	}
	switch cmd.shape {
	case shapeRetrieve:
		p.parseRetrieve(r, false)
	case shapeRetrieveTouch:
		p.parseRetrieve(r, true)
	case shapeStore, shapeStoreCAS:
		return p.parseStore(in, lineEnd, r)
	case shapeArith:
		r.NoReply = r.isNoReply(r.nt - 2)
		if len(r.toks[1]) > MaxKeyLen {
			r.Err = errBadFormat
		} else if d, ok := parseUint64(r.toks[2]); !ok {
			r.Err = errBadDelta
		} else {
			r.Key, r.Delta = r.toks[1], d
		}
	case shapeDelete:
		p.parseDelete(r)
	case shapeTouch:
		r.NoReply = r.isNoReply(r.nt - 2)
		if len(r.toks[1]) > MaxKeyLen {
			r.Err = errBadFormat
		} else if t, ok := parseInt32(r.toks[2]); !ok {
			r.Err = errBadExptime
		} else {
			r.Key, r.Exptime = r.toks[1], t
		}
	case shapeMetaGet, shapeMetaDelete, shapeMetaArith:
		p.parseMeta(r)
	case shapeMetaSet:
		return p.parseMetaSet(in, lineEnd, r)
	case shapeMetaDebug:
		p.parseMetaDebug(r)
	}
	return lineEnd, Parsed
}

// closesOnHTTP reports whether an unknown command named name is checked for
// a trailing "HTTP/..." token: memcached only does it for names it did not
// first route by their initial letter.
func closesOnHTTP(name []byte) bool {
	switch name[0] {
	case 'g', 's', 'a', 'c', 'i', 'd', 't':
		return false
	case 'm':
		return len(name) != 2
	}
	return true
}

// isNoReply reports whether token i is "noreply" (memcached's
// set_noreply_maybe looks at the last token only).
func (r *Request) isNoReply(i int) bool {
	return i >= 1 && string(r.toks[i]) == "noreply"
}

// parseRetrieve: get/gets/bget <key>*, gat/gats <exptime> <key>*.
func (p *Parser) parseRetrieve(r *Request, touch bool) {
	first := 1
	if touch {
		t, ok := parseInt32(r.toks[1])
		if !ok {
			r.Err = errBadExptime
			return
		}
		r.Exptime = t
		first = 2
	}
	// Keys stop at the first one over MaxKeyLen: memcached answers its
	// error there and looks at none after it.
	for i := first; i < r.nt-1 && r.BadKey < 0; i++ {
		r.addKey(r.toks[i])
	}
	// memcached splits the rest of a long line as it goes; every token of
	// it is a key.
	rest := r.rest
	for len(rest) > 0 && r.BadKey < 0 {
		i := bytes.IndexByte(rest, ' ')
		if i < 0 {
			r.addKey(rest)
			break
		}
		if i > 0 {
			r.addKey(rest[:i])
		}
		rest = rest[i+1:]
	}
}

func (r *Request) addKey(k []byte) {
	if len(k) > MaxKeyLen && r.BadKey < 0 {
		r.BadKey = len(r.Keys)
	}
	r.Keys = append(r.Keys, k)
}

// parseStore: set/add/replace/append/prepend <key> <flags> <exptime>
// <bytes> [noreply], cas ... <bytes> <cas> [noreply], then the data block.
func (p *Parser) parseStore(in []byte, lineEnd int, r *Request) (int, Status) {
	r.NoReply = r.isNoReply(r.nt - 2)
	key := r.toks[1]
	if len(key) > MaxKeyLen {
		r.Err = errBadFormat
		return lineEnd, Parsed
	}
	flags, ok1 := parseUint32(r.toks[2])
	exptime, ok2 := parseInt32(r.toks[3])
	vlen, ok3 := parseInt32(r.toks[4])
	if !ok1 || !ok2 || !ok3 {
		r.Err = errBadFormat
		return lineEnd, Parsed
	}
	if r.Cmd.shape == shapeStoreCAS {
		cas, ok := parseUint64(r.toks[5])
		if !ok {
			r.Err = errBadFormat
			return lineEnd, Parsed
		}
		r.CAS = cas
	}
	if vlen < 0 || vlen > math.MaxInt32-2 {
		r.Err = errBadFormat
		return lineEnd, Parsed
	}
	r.Key, r.Flags, r.Exptime = key, flags, exptime
	return p.readData(in, lineEnd, int(vlen), r)
}

// tooLarge is memcached's item_size_ok for a value of vlen bytes.
func (p *Parser) tooLarge(key []byte, flags uint32, vlen int) bool {
	size := int64(itemHeaderSize + len(key) + 1 + vlen + 2)
	if flags != 0 {
		size += 4
	}
	return size > p.lim.ItemSizeMax
}

// readData takes the data block of vlen bytes after the line, or refuses a
// too-large item and has its block swallowed.
func (p *Parser) readData(in []byte, lineEnd, vlen int, r *Request) (int, Status) {
	if p.tooLarge(r.Key, r.Flags, vlen) {
		r.Err, r.TooLarge, r.Swallow = errTooLarge, true, vlen+2
		return lineEnd, Parsed
	}
	end := lineEnd + vlen + 2
	if len(in) < end {
		return 0, Incomplete
	}
	r.Data = in[lineEnd : lineEnd+vlen : lineEnd+vlen]
	if in[end-2] != '\r' || in[end-1] != '\n' {
		r.Err = errBadDataChunk
	}
	return end, Parsed
}

// parseDelete: delete <key> [0] [noreply]. The "0" is the hold time
// memcached still tolerates; anything else there is refused.
func (p *Parser) parseDelete(r *Request) {
	if r.nt > 3 {
		holdIsZero := string(r.toks[2]) == "0"
		r.NoReply = r.isNoReply(r.nt - 2)
		valid := (r.nt == 4 && (holdIsZero || r.NoReply)) || (r.nt == 5 && holdIsZero && r.NoReply)
		if !valid {
			r.Err = errDeleteUsage
			return
		}
	}
	if len(r.toks[1]) > MaxKeyLen {
		r.Err = errBadFormat
		return
	}
	r.Key = r.toks[1]
}

// parseMeta: mg, md, ma <key> <flag>*.
func (p *Parser) parseMeta(r *Request) {
	if len(r.toks[1]) > MaxKeyLen {
		r.Err = errBadFormat
		return
	}
	if r.nt > metaMaxTokens {
		if r.Cmd.shape == shapeMetaGet {
			r.Err = errMgFlagsTooLong
		} else {
			r.Err = errFlagsTooLong
		}
		return
	}
	r.Key = r.toks[1]
	if err := r.parseMetaFlags(2); err != "" {
		if r.Cmd.shape != shapeMetaGet {
			err = errInvalidOrDupMDA // md and ma do not say which
		}
		r.Err = err
		return
	}
	if r.Cmd.shape == shapeMetaArith {
		switch r.Meta.Mode {
		case 0, 'I', '+', 'D', '-':
		default:
			r.Err = errMaMode
			return
		}
	}
	if r.Meta.opaqueTooLong() {
		r.Err = errOpaqueTooLong
		return
	}
	r.NoReply = r.Meta.NoReply
}

// parseMetaSet: ms <key> <datalen> <flag>*, then the data block. Once the
// length is known, every error has the data block swallowed.
func (p *Parser) parseMetaSet(in []byte, lineEnd int, r *Request) (int, Status) {
	if len(r.toks[1]) > MaxKeyLen || r.nt == 3 {
		r.Err = errBadFormat
		return lineEnd, Parsed
	}
	if r.nt > metaMaxTokens {
		r.Err = errFlagsTooLong
		return lineEnd, Parsed
	}
	vlen, ok := parseInt32(r.toks[2])
	if !ok || vlen < 0 || vlen > math.MaxInt32-2 {
		r.Err = errBadFormat
		return lineEnd, Parsed
	}
	r.Key = r.toks[1]
	swallow := func(err string) (int, Status) {
		r.Err, r.NoReply, r.Swallow = err, false, int(vlen)+2
		return lineEnd, Parsed
	}
	if err := r.parseMetaFlags(3); err != "" {
		return swallow(err)
	}
	// memcached checks the mode before it acts on a long opaque.
	switch r.Meta.Mode {
	case 0, 'S', 'E', 'A', 'P', 'R':
	default:
		return swallow(errMsMode)
	}
	if r.Meta.opaqueTooLong() {
		return swallow(errOpaqueTooLong)
	}
	r.NoReply = r.Meta.NoReply
	r.Flags = r.Meta.ClientFlags
	n, st := p.readData(in, lineEnd, int(vlen), r)
	if r.Err != "" {
		r.NoReply = false // ms errors are always sent
	}
	return n, st
}

// parseMetaDebug: me <key> [b].
func (p *Parser) parseMetaDebug(r *Request) {
	if r.nt < 3 || len(r.toks[1]) > MaxKeyLen {
		r.Err = errBadFormat
		return
	}
	r.Key = r.toks[1]
	if r.nt >= 4 && string(r.toks[2]) == "b" {
		n := decodeKey(r.keyBuf[:], r.Key)
		if n == 0 {
			r.Err = errBadFormat
			return
		}
		r.Key = r.keyBuf[:n]
		r.Meta.Base64 = true
	}
}
