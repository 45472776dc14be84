package scripting

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The cmsgpack library: lua-cmsgpack 0.4.0 as Redis bundles it (pack,
// unpack, unpack_one, unpack_limit).

// msgpackMaxNesting is LUACMSGPACK_MAX_NESTING: deeper tables pack as nil.
const msgpackMaxNesting = 16

// msgpackMaxDecodeDepth bounds unpack's recursion (the C code has none but
// the C stack); input nested deeper is reported as bad data.
const msgpackMaxDecodeDepth = 10000

func newCmsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(msgpackPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return msgpackUnpack(L, 0, 0, true) }))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		off := int(luaInteger(optNumber(L, 2, 0, "unpack_one")))
		L.SetTop(1)
		return msgpackUnpack(L, 1, off, false)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := int(luaInteger(checkNumber(L, 2, "unpack_limit")))
		off := int(luaInteger(optNumber(L, 3, 0, "unpack_limit")))
		L.SetTop(1)
		return msgpackUnpack(L, limit, off, limit == 0 && off == 0)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

// optNumber is luaL_optnumber.
func optNumber(L *lua.LState, n int, def float64, fn string) float64 {
	if v := L.Get(n); v == lua.LNil {
		return def
	}
	return checkNumber(L, n, fn)
}

func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "pack", "MessagePack pack needs input.")
	}
	var out []byte
	check := encodeCheck(L)
	for i := 1; i <= n; i++ {
		out = msgpackEncodeChecked(out, L.Get(i), 0, check)
	}
	L.Push(lua.LString(out))
	return 1
}

// MsgpackEncode appends the MessagePack encoding of v as lua-cmsgpack
// does (exported for tests).
func msgpackEncode(b []byte, v lua.LValue, level int) []byte {
	return msgpackEncodeChecked(b, v, level, nil)
}

// msgpackEncodeChecked is msgpackEncode calling check (when not nil) with
// the output's length after each value.
func msgpackEncodeChecked(b []byte, v lua.LValue, level int, check func(int)) []byte {
	if check != nil {
		defer func() { check(len(b)) }()
	}
	switch x := v.(type) {
	case lua.LString:
		return msgpackBytes(b, []byte(x))
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if !math.IsInf(f, 0) && !math.IsNaN(f) && f >= -9223372036854775808.0 && f < 9223372036854775808.0 && float64(int64(f)) == f {
			return msgpackInt(b, int64(f))
		}
		if float64(float32(f)) == f || math.IsNaN(f) {
			b = append(b, 0xca)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if msgpackIsArray(x) {
			n := x.Len()
			b = msgpackHeader(b, n, 0x90, 0xdc, 0xdd)
			for i := 1; i <= n; i++ {
				b = msgpackEncodeChecked(b, x.RawGetInt(i), level+1, check)
			}
			return b
		}
		var keys, vals []lua.LValue
		x.ForEach(func(k, v lua.LValue) {
			keys = append(keys, k)
			vals = append(vals, v)
		})
		b = msgpackHeader(b, len(keys), 0x80, 0xde, 0xdf)
		for i := range keys {
			b = msgpackEncodeChecked(b, keys[i], level+1, check)
			b = msgpackEncodeChecked(b, vals[i], level+1, check)
		}
		return b
	}
	return append(b, 0xc0)
}

// msgpackIsArray is table_is_an_array: every key a positive integer and
// the largest equal to the count (so an empty table is an array).
func msgpackIsArray(t *lua.LTable) bool {
	count, max := 0, 0.0
	ok := true
	t.ForEach(func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		if !isNum || n <= 0 || float64(int64(n)) != float64(n) {
			ok = false
			return
		}
		if float64(n) > max {
			max = float64(n)
		}
		count++
	})
	return ok && max == float64(count)
}

func msgpackHeader(b []byte, n int, fix, b16, b32 byte) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
}

func msgpackBytes(b, s []byte) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func msgpackInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(int8(n)))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(n)))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(n)))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// msgpackError is a decoding failure.
type msgpackError int

const (
	msgpackOK msgpackError = iota
	msgpackEOF
	msgpackBadFormat
)

// msgpackDecoder reads MessagePack values into Lua values.
type msgpackDecoder struct {
	L   *lua.LState
	buf []byte
	pos int
	err msgpackError
}

func (d *msgpackDecoder) need(n int) bool {
	if n < 0 || len(d.buf)-d.pos < n {
		d.err = msgpackEOF
		return false
	}
	return true
}

func (d *msgpackDecoder) take(n int) []byte {
	s := d.buf[d.pos : d.pos+n]
	d.pos += n
	return s
}

// decode reads one value (mp_decode_to_lua_type).
func (d *msgpackDecoder) decode(depth int) lua.LValue {
	if depth > msgpackMaxDecodeDepth {
		d.err = msgpackBadFormat
		return lua.LNil
	}
	if !d.need(1) {
		return lua.LNil
	}
	c := d.buf[d.pos]
	sized := func(n int) []byte {
		if !d.need(1 + n) {
			return nil
		}
		d.pos++
		return d.take(n)
	}
	switch {
	case c <= 0x7f:
		d.pos++
		return lua.LNumber(c)
	case c >= 0xe0:
		d.pos++
		return lua.LNumber(int8(c))
	case c >= 0xa0 && c <= 0xbf:
		return d.str(1, int(c&0x1f))
	case c >= 0x90 && c <= 0x9f:
		d.pos++
		return d.array(int(c&0xf), depth)
	case c >= 0x80 && c <= 0x8f:
		d.pos++
		return d.table(int(c&0xf), depth)
	}
	switch c {
	case 0xcc:
		if s := sized(1); s != nil {
			return lua.LNumber(s[0])
		}
	case 0xcd:
		if s := sized(2); s != nil {
			return lua.LNumber(binary.BigEndian.Uint16(s))
		}
	case 0xce:
		if s := sized(4); s != nil {
			return lua.LNumber(binary.BigEndian.Uint32(s))
		}
	case 0xcf:
		if s := sized(8); s != nil {
			return lua.LNumber(float64(binary.BigEndian.Uint64(s)))
		}
	case 0xd0:
		if s := sized(1); s != nil {
			return lua.LNumber(int8(s[0]))
		}
	case 0xd1:
		if s := sized(2); s != nil {
			return lua.LNumber(int16(binary.BigEndian.Uint16(s)))
		}
	case 0xd2:
		if s := sized(4); s != nil {
			return lua.LNumber(int32(binary.BigEndian.Uint32(s)))
		}
	case 0xd3:
		if s := sized(8); s != nil {
			return lua.LNumber(float64(int64(binary.BigEndian.Uint64(s))))
		}
	case 0xc0:
		d.pos++
		return lua.LNil
	case 0xc3:
		d.pos++
		return lua.LTrue
	case 0xc2:
		d.pos++
		return lua.LFalse
	case 0xca:
		if s := sized(4); s != nil {
			return lua.LNumber(math.Float32frombits(binary.BigEndian.Uint32(s)))
		}
	case 0xcb:
		if s := sized(8); s != nil {
			return lua.LNumber(math.Float64frombits(binary.BigEndian.Uint64(s)))
		}
	case 0xc4, 0xd9:
		if d.need(2) {
			return d.str(2, int(d.buf[d.pos+1]))
		}
	case 0xc5, 0xda:
		if d.need(3) {
			return d.str(3, int(binary.BigEndian.Uint16(d.buf[d.pos+1:])))
		}
	case 0xc6, 0xdb:
		if d.need(5) {
			return d.str(5, int(binary.BigEndian.Uint32(d.buf[d.pos+1:])))
		}
	case 0xdc:
		if s := sized(2); s != nil {
			return d.array(int(binary.BigEndian.Uint16(s)), depth)
		}
	case 0xdd:
		if s := sized(4); s != nil {
			return d.array(int(binary.BigEndian.Uint32(s)), depth)
		}
	case 0xde:
		if s := sized(2); s != nil {
			return d.table(int(binary.BigEndian.Uint16(s)), depth)
		}
	case 0xdf:
		if s := sized(4); s != nil {
			return d.table(int(binary.BigEndian.Uint32(s)), depth)
		}
	default:
		d.err = msgpackBadFormat
	}
	return lua.LNil
}

// str reads a string of n bytes after a header of hdr bytes.
func (d *msgpackDecoder) str(hdr, n int) lua.LValue {
	if !d.need(hdr + n) {
		return lua.LNil
	}
	d.pos += hdr
	return lua.LString(d.take(n))
}

func (d *msgpackDecoder) array(n, depth int) lua.LValue {
	t := d.L.CreateTable(min(n, 1024), 0)
	for i := 1; i <= n; i++ {
		v := d.decode(depth + 1)
		if d.err != msgpackOK {
			return lua.LNil
		}
		t.RawSetInt(i, v)
	}
	return t
}

// maxSparseIndex bounds how far past a table's array part an integer key
// of a decoded map may land (see table).
const maxSparseIndex = 1 << 16

func (d *msgpackDecoder) table(n, depth int) lua.LValue {
	t := d.L.NewTable()
	for i := 0; i < n; i++ {
		k := d.decode(depth + 1)
		if d.err != msgpackOK {
			return lua.LNil
		}
		v := d.decode(depth + 1)
		if d.err != msgpackOK {
			return lua.LNil
		}
		if k == lua.LNil {
			d.L.RaiseError("table index is nil")
		}
		if n, ok := k.(lua.LNumber); ok && math.IsNaN(float64(n)) {
			d.L.RaiseError("table index is NaN")
		}
		if n, ok := k.(lua.LNumber); ok && float64(n) > float64(t.Len()+maxSparseIndex) && n == lua.LNumber(int64(n)) && float64(n) < float64(math.MaxInt32) {
			// gopher-lua keeps integer keys up to 2^26 in a dense array,
			// so one such key would allocate up to 64M slots; Lua 5.1
			// would hash it. Refused rather than let a payload exhaust
			// memory.
			d.L.RaiseError("table index %v too sparse for a msgpack map", n)
		}
		t.RawSet(k, v)
	}
	return t
}

// msgpackUnpack is mp_unpack_full.
func msgpackUnpack(L *lua.LState, limit, offset int, all bool) int {
	s := checkString(L, 1, "unpack")
	if offset < 0 || limit < 0 {
		L.RaiseError("Invalid request to unpack with offset of %d and limit of %d.", offset, len(s))
	}
	if offset > len(s) {
		L.RaiseError("Start offset %d greater than input length %d.", offset, len(s))
	}
	if all {
		limit = math.MaxInt32
	}
	d := &msgpackDecoder{L: L, buf: []byte(s), pos: offset}
	var vals []lua.LValue
	for cnt := 0; d.pos < len(d.buf) && cnt < limit; cnt++ {
		v := d.decode(0)
		switch d.err {
		case msgpackEOF:
			L.RaiseError("Missing bytes in input.")
		case msgpackBadFormat:
			L.RaiseError("Bad data format in input.")
		}
		vals = append(vals, v)
	}
	if !all {
		next := d.pos
		if next == len(d.buf) {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range vals {
		L.Push(v)
	}
	if all {
		return len(vals)
	}
	return len(vals) + 1
}
