package scripting

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The cjson library: lua-cjson 2.1.0 as Redis bundles it. Its defaults:
// numbers encode with 14 significant digits, NaN and Inf refuse to
// encode, sparse arrays (max index > 2 × items and > 10) refuse to
// encode, nesting stops at 1000 both ways, an empty table encodes as {},
// and decoding accepts what strtod accepts for a number (hex, inf, nan)
// and maps null to cjson.null, a userdata. The configuration functions
// (encode_max_depth …) change these for the table's own encode and
// decode, as lua-cjson's upvalue does: the settings live as long as the
// Lua state (SCRIPT FLUSH, or a FUNCTION state's life).

const (
	cjsonMaxDepth    = 1000
	cjsonSparseRatio = 2
	cjsonSparseSafe  = 10
	cjsonPrecision   = 14
	cjsonIntMax      = math.MaxInt32
)

// Values of encode_invalid_numbers: "off", "on", "null".
const (
	cjsonInvalidOff = iota
	cjsonInvalidOn
	cjsonInvalidNull
)

// cjsonConfig is lua-cjson's json_config_t, less its buffers.
type cjsonConfig struct {
	sparseConvert  int // a boolean option: 0 or 1
	sparseRatio    int
	sparseSafe     int
	encodeMaxDepth int
	decodeMaxDepth int
	precision      int
	keepBuffer     int
	encodeInvalid  int // cjsonInvalidOff, On or Null
	decodeInvalid  int
}

// defaultCjsonConfig is lua-cjson's DEFAULT_* settings.
func defaultCjsonConfig() cjsonConfig {
	return cjsonConfig{
		sparseRatio: cjsonSparseRatio, sparseSafe: cjsonSparseSafe,
		encodeMaxDepth: cjsonMaxDepth, decodeMaxDepth: cjsonMaxDepth,
		precision: cjsonPrecision, keepBuffer: 1, decodeInvalid: 1,
	}
}

// cjsonState is one cjson table's: its null and its configuration.
type cjsonState struct {
	null *lua.LUserData
	cfg  cjsonConfig
}

func newCjson(L *lua.LState) *lua.LTable {
	st := &cjsonState{null: L.NewUserData(), cfg: defaultCjsonConfig()}
	t := L.NewTable()
	set := func(name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set("encode", st.encode)
	set("decode", st.decode)
	t.RawSetString("null", st.null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	cfg := &st.cfg
	set("encode_sparse_array", func(L *lua.LState) int {
		cjsonArgInit(L, 3, "encode_sparse_array")
		cjsonEnumOption(L, 1, &cfg.sparseConvert, nil, "encode_sparse_array")
		cjsonIntOption(L, 2, &cfg.sparseRatio, 0, cjsonIntMax, "encode_sparse_array")
		cjsonIntOption(L, 3, &cfg.sparseSafe, 0, cjsonIntMax, "encode_sparse_array")
		return 3
	})
	intOption := func(name string, setting *int, lo, hi int) {
		set(name, func(L *lua.LState) int {
			cjsonArgInit(L, 1, name)
			cjsonIntOption(L, 1, setting, lo, hi, name)
			return 1
		})
	}
	intOption("encode_max_depth", &cfg.encodeMaxDepth, 1, cjsonIntMax)
	intOption("decode_max_depth", &cfg.decodeMaxDepth, 1, cjsonIntMax)
	intOption("encode_number_precision", &cfg.precision, 1, cjsonPrecision)
	enumOption := func(name string, setting *int, options []string) {
		set(name, func(L *lua.LState) int {
			cjsonArgInit(L, 1, name)
			cjsonEnumOption(L, 1, setting, options, name)
			return 1
		})
	}
	enumOption("encode_keep_buffer", &cfg.keepBuffer, nil)
	enumOption("encode_invalid_numbers", &cfg.encodeInvalid, []string{"off", "on", "null"})
	enumOption("decode_invalid_numbers", &cfg.decodeInvalid, nil)
	set("new", func(L *lua.LState) int {
		L.Push(newCjson(L))
		return 1
	})
	return t
}

// cjsonArgInit is json_arg_init: at most n arguments, missing ones nil.
func cjsonArgInit(L *lua.LState, n int, fn string) {
	if L.GetTop() > n {
		argError(L, n+1, fn, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

// cjsonIntOption is json_integer_option: a non-nil argument i sets the
// setting when within [lo, hi] (the error names argument 1 whichever i
// is, as lua-cjson's does); the setting is pushed.
func cjsonIntOption(L *lua.LState, i int, setting *int, lo, hi int, fn string) {
	if v := L.Get(i); v != lua.LNil {
		n := luaInt(checkNumber(L, i, fn)) // luaL_checkinteger
		if n < lo || n > hi {
			argError(L, 1, fn, "expected integer between "+itoa(lo)+" and "+itoa(hi))
		}
		*setting = n
	}
	L.Push(lua.LNumber(*setting))
}

// cjsonEnumOption is json_enum_option with bool_true 1: a boolean, or one
// of options by name (off/on when options is nil); the setting is pushed
// as a boolean when it is 0 or 1, else as its name.
func cjsonEnumOption(L *lua.LState, i int, setting *int, options []string, fn string) {
	if options == nil {
		options = []string{"off", "on"}
	}
	switch v := L.Get(i).(type) {
	case *lua.LNilType:
	case lua.LBool:
		*setting = 0
		if v {
			*setting = 1
		}
	default:
		name := checkString(L, i, fn)
		found := -1
		for j, o := range options {
			if o == name {
				found = j
			}
		}
		if found < 0 {
			argError(L, i, fn, "invalid option '"+name+"'")
		}
		*setting = found
	}
	if *setting <= 1 {
		L.Push(lua.LBool(*setting == 1))
	} else {
		L.Push(lua.LString(options[*setting]))
	}
}

func (st *cjsonState) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "encode", "expected 1 argument")
	}
	e := &cjsonEncoder{L: L, null: st.null, cfg: &st.cfg, check: encodeCheck(L)}
	e.value(L.Get(1), 0)
	L.Push(lua.LString(e.buf))
	return 1
}

type cjsonEncoder struct {
	L    *lua.LState
	null *lua.LUserData
	cfg  *cjsonConfig
	buf  []byte
	// check bounds the output and checks the context (encodeCheck).
	check func(int)
}

func (e *cjsonEncoder) fail(v lua.LValue, reason string) {
	e.L.RaiseError("Cannot serialise %s: %s", v.Type().String(), reason)
}

func (e *cjsonEncoder) value(v lua.LValue, depth int) {
	if e.check != nil {
		defer func() { e.check(len(e.buf)) }()
	}
	switch x := v.(type) {
	case lua.LString:
		e.buf = appendJSONString(e.buf, string(x))
	case lua.LNumber:
		e.number(x)
	case lua.LBool:
		if x {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case *lua.LTable:
		depth++
		if depth > e.cfg.encodeMaxDepth {
			e.L.RaiseError("Cannot serialise, excessive nesting (%d)", depth)
		}
		n := e.arrayLength(x)
		if n > 0 {
			e.buf = append(e.buf, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					e.buf = append(e.buf, ',')
				}
				e.value(x.RawGetInt(i), depth)
			}
			e.buf = append(e.buf, ']')
			return
		}
		e.buf = append(e.buf, '{')
		first := true
		for k, val := x.Next(lua.LNil); k != lua.LNil; k, val = x.Next(k) {
			if !first {
				e.buf = append(e.buf, ',')
			}
			first = false
			switch kk := k.(type) {
			case lua.LNumber:
				e.buf = append(e.buf, '"')
				e.number(kk)
				e.buf = append(e.buf, '"', ':')
			case lua.LString:
				e.buf = appendJSONString(e.buf, string(kk))
				e.buf = append(e.buf, ':')
			default:
				e.fail(k, "table key must be a number or string")
			}
			e.value(val, depth)
		}
		e.buf = append(e.buf, '}')
	case *lua.LUserData:
		if x == e.null {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.fail(v, "type not supported")
	default:
		e.fail(v, "type not supported")
	}
}

// number is json_append_number: "%.<precision>g", NaN and Inf as
// encode_invalid_numbers says.
func (e *cjsonEncoder) number(n lua.LNumber) {
	f := float64(n)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch e.cfg.encodeInvalid {
		case cjsonInvalidOff:
			e.fail(n, "must not be NaN or Inf")
		case cjsonInvalidNull:
			e.buf = append(e.buf, "null"...)
		case cjsonInvalidOn:
			if math.IsNaN(f) {
				e.buf = append(e.buf, "nan"...)
			} else {
				e.buf = append(e.buf, formatNumber(f)...) // C's inf, -inf
			}
		}
		return
	}
	e.buf = strconv.AppendFloat(e.buf, f, 'g', e.cfg.precision, 64)
}

// arrayLength is lua_array_length: the largest index when every key is an
// integer >= 1, -1 for an object; a too sparse array is an error.
func (e *cjsonEncoder) arrayLength(t *lua.LTable) int {
	max, items := 0.0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		if !ok || math.Floor(float64(n)) != float64(n) || n < 1 {
			return -1
		}
		if float64(n) > max {
			max = float64(n)
		}
		items++
	}
	if c := e.cfg; c.sparseRatio > 0 && max > float64(items)*float64(c.sparseRatio) && max > float64(c.sparseSafe) {
		if c.sparseConvert == 0 {
			e.fail(t, "excessively sparse array")
		}
		return -1
	}
	if max > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(max)
}

// appendJSONString appends s quoted, escaping as lua-cjson's char2escape:
// control characters, '"', '\\', '/' and DEL.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '/':
			b = append(b, '\\', '/')
		case '\b':
			b = append(b, '\\', 'b')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\f':
			b = append(b, '\\', 'f')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			if c < 0x20 || c == 0x7f {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}

// JSON tokens, named as lua-cjson names them in its errors.
type jsonToken int

const (
	tObjBegin jsonToken = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenNames = []string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"}

type jsonTok struct {
	typ   jsonToken
	index int
	str   string  // string value, or the error for tError
	num   float64 // number value
	b     bool
}

type cjsonDecoder struct {
	L     *lua.LState
	null  *lua.LUserData
	cfg   *cjsonConfig
	data  string
	pos   int
	depth int
}

func (st *cjsonState) decode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "decode", "expected 1 argument")
	}
	s := checkString(L, 1, "decode")
	L.Push(cjsonDecode(L, st.null, &st.cfg, s))
	return 1
}

// cjsonDecode is json_decode; it raises Lua errors for bad input.
func cjsonDecode(L *lua.LState, null *lua.LUserData, cfg *cjsonConfig, s string) lua.LValue {
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		L.RaiseError("JSON parser does not support UTF-16 or UTF-32")
	}
	d := &cjsonDecoder{L: L, null: null, cfg: cfg, data: s}
	tok := d.next()
	v := d.value(tok)
	tok = d.next()
	if tok.typ != tEnd {
		d.fail("the end", tok)
	}
	return v
}

func (d *cjsonDecoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

func (d *cjsonDecoder) fail(expected string, tok jsonTok) {
	found := tok.str
	if tok.typ != tError {
		found = jsonTokenNames[tok.typ]
	}
	d.L.RaiseError("Expected %s but found %s at character %d", expected, found, tok.index+1)
}

func (d *cjsonDecoder) errTok(msg string) jsonTok {
	return jsonTok{typ: tError, index: d.pos, str: msg}
}

var singleTokens = map[byte]jsonToken{'{': tObjBegin, '}': tObjEnd, '[': tArrBegin, ']': tArrEnd, ',': tComma, ':': tColon}

// next is json_next_token.
func (d *cjsonDecoder) next() jsonTok {
	for {
		c := d.at(d.pos)
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		d.pos++
	}
	c := d.at(d.pos)
	tok := jsonTok{index: d.pos}
	if t, ok := singleTokens[c]; ok {
		tok.typ = t
		d.pos++
		return tok
	}
	rest := d.data[min(d.pos, len(d.data)):]
	switch {
	case c == 0:
		tok.typ = tEnd
		return tok
	case c == '"':
		return d.stringToken()
	case c == '-' || (c >= '0' && c <= '9'):
		if d.cfg.decodeInvalid == 0 && invalidJSONNumber(rest) {
			return d.errTok("invalid number")
		}
		return d.numberToken()
	case strings.HasPrefix(rest, "true"):
		d.pos += 4
		return jsonTok{typ: tBoolean, index: tok.index, b: true}
	case strings.HasPrefix(rest, "false"):
		d.pos += 5
		return jsonTok{typ: tBoolean, index: tok.index}
	case strings.HasPrefix(rest, "null"):
		d.pos += 4
		return jsonTok{typ: tNull, index: tok.index}
	case d.cfg.decodeInvalid != 0 && invalidJSONNumber(rest):
		return d.numberToken()
	}
	return d.errTok("invalid token")
}

// invalidJSONNumber is json_is_invalid_number: what strtod may read but
// JSON forbids (a '+', hex, leading zeros, inf, nan).
func invalidJSONNumber(p string) bool {
	if p == "" {
		return false
	}
	if p[0] == '+' {
		return true
	}
	if p[0] == '-' {
		p = p[1:]
	}
	if p == "" {
		return false
	}
	if p[0] == '0' {
		if len(p) > 1 {
			c := p[1]
			return c|0x20 == 'x' || (c >= '0' && c <= '9')
		}
		return false
	}
	if p[0] <= '9' {
		return false
	}
	l := strings.ToLower(p[:min(3, len(p))])
	return l == "inf" || l == "nan"
}

func (d *cjsonDecoder) numberToken() jsonTok {
	f, n := strtod(d.data[d.pos:])
	if n == 0 {
		return d.errTok("invalid number")
	}
	tok := jsonTok{typ: tNumber, index: d.pos, num: f}
	d.pos += n
	return tok
}

var jsonEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', 'u': 'u'}

// stringToken is json_next_string_token.
func (d *cjsonDecoder) stringToken() jsonTok {
	index := d.pos
	d.pos++
	var b []byte
	for {
		c := d.at(d.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			return d.errTok("unexpected end of string")
		}
		if c == '\\' {
			esc := jsonEscapes[d.at(d.pos+1)]
			if esc == 'u' {
				var ok bool
				if b, ok = d.unicodeEscape(b); !ok {
					return d.errTok("invalid unicode escape code")
				}
				continue
			}
			if esc == 0 {
				return d.errTok("invalid escape code")
			}
			d.pos++
			c = esc
		}
		b = append(b, c)
		d.pos++
	}
	d.pos++
	return jsonTok{typ: tString, index: index, str: string(b)}
}

func (d *cjsonDecoder) hex4(at int) int {
	v := 0
	for i := 0; i < 4; i++ {
		c := d.at(at + i)
		var h int
		switch {
		case c >= '0' && c <= '9':
			h = int(c - '0')
		case c >= 'a' && c <= 'f':
			h = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			h = int(c-'A') + 10
		default:
			return -1
		}
		v = v<<4 | h
	}
	return v
}

// unicodeEscape is json_append_unicode_escape.
func (d *cjsonDecoder) unicodeEscape(b []byte) ([]byte, bool) {
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return b, false
	}
	escLen := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 {
			return b, false
		}
		if d.at(d.pos+6) != '\\' || d.at(d.pos+7) != 'u' {
			return b, false
		}
		low := d.hex4(d.pos + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return b, false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		escLen = 12
	}
	switch {
	case cp <= 0x7F:
		b = append(b, byte(cp))
	case cp <= 0x7FF:
		b = append(b, byte(0xC0|cp>>6), byte(0x80|cp&0x3F))
	case cp <= 0xFFFF:
		b = append(b, byte(0xE0|cp>>12), byte(0x80|(cp>>6)&0x3F), byte(0x80|cp&0x3F))
	default:
		b = append(b, byte(0xF0|cp>>18), byte(0x80|(cp>>12)&0x3F), byte(0x80|(cp>>6)&0x3F), byte(0x80|cp&0x3F))
	}
	d.pos += escLen
	return b, true
}

func (d *cjsonDecoder) descend() {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth {
		d.L.RaiseError("Found too many nested data structures (%d) at character %d", d.depth, d.pos)
	}
}

// value is json_process_value.
func (d *cjsonDecoder) value(tok jsonTok) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return d.null
	case tObjBegin:
		d.descend()
		t := d.L.NewTable()
		tok = d.next()
		if tok.typ == tObjEnd {
			d.depth--
			return t
		}
		for {
			if tok.typ != tString {
				d.fail("object key string", tok)
			}
			key := tok.str
			tok = d.next()
			if tok.typ != tColon {
				d.fail("colon", tok)
			}
			v := d.value(d.next())
			t.RawSetString(key, v)
			tok = d.next()
			if tok.typ == tObjEnd {
				d.depth--
				return t
			}
			if tok.typ != tComma {
				d.fail("comma or object end", tok)
			}
			tok = d.next()
		}
	case tArrBegin:
		d.descend()
		t := d.L.NewTable()
		tok = d.next()
		if tok.typ == tArrEnd {
			d.depth--
			return t
		}
		for i := 1; ; i++ {
			t.RawSetInt(i, d.value(tok))
			tok = d.next()
			if tok.typ == tArrEnd {
				d.depth--
				return t
			}
			if tok.typ != tComma {
				d.fail("comma or array end", tok)
			}
			tok = d.next()
		}
	}
	d.fail("value", tok)
	return lua.LNil
}

// strtod reads the longest prefix of s that C's strtod accepts (no
// leading blanks here: the caller stands on the number) and returns its
// value and length, 0 when there is none.
func strtod(s string) (float64, int) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	lower := strings.ToLower(s[i:min(len(s), i+8)])
	neg := i > 0 && s[0] == '-'
	switch {
	case strings.HasPrefix(lower, "infinity"):
		return signed(math.Inf(1), neg), i + 8
	case strings.HasPrefix(lower, "inf"):
		return signed(math.Inf(1), neg), i + 3
	case strings.HasPrefix(lower, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			j := n + 1
			for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				n = j + 1
			}
		}
		return signed(math.NaN(), neg), n
	}
	if i+1 < len(s) && s[i] == '0' && (s[i+1]|0x20) == 'x' {
		if n, f, ok := hexFloat(s[i+2:]); ok {
			return signed(f, neg), i + 2 + n
		}
		return signed(0, neg), i + 1
	}
	start := i
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if i < len(s) && (s[i]|0x20) == 'e' {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	f, err := strconv.ParseFloat(s[start:i], 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0
		}
	}
	return signed(f, neg), i
}

func signed(f float64, neg bool) float64 {
	if neg {
		return -f
	}
	return f
}

// hexFloat reads the hex digits, point and binary exponent after "0x".
func hexFloat(s string) (int, float64, bool) {
	i, digits := 0, 0
	for i < len(s) && isHex(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isHex(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	mant := s[:i]
	exp := "p0"
	if i < len(s) && (s[i]|0x20) == 'p' {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			exp = s[i:j]
			i = j
		}
	}
	if strings.HasSuffix(mant, ".") {
		mant += "0"
	}
	if strings.HasPrefix(mant, ".") {
		mant = "0" + mant
	}
	f, err := strconv.ParseFloat("0x"+mant+exp, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0, false
		}
	}
	return i, f, true
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
