package scripting

import (
	"bytes"
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The struct library: Roberto Ierusalimschy's struct 0.2 as Redis
// bundles it (pack, unpack, size), for a 64-bit little-endian host: short
// 2 bytes, int 4, long and size_t 8, native alignment up to 8.

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	big   bool
	align int
}

func newStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

// structFormat walks a format string.
type structFormat struct {
	L   *lua.LState
	fmt string
	i   int
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// num reads an optional decimal count (getnum).
func (f *structFormat) num(def int) int {
	if f.i >= len(f.fmt) || !isDigit(f.fmt[f.i]) {
		return def
	}
	a := 0
	for f.i < len(f.fmt) && isDigit(f.fmt[f.i]) {
		d := int(f.fmt[f.i] - '0')
		if a > (math.MaxInt32/10) || a*10 > math.MaxInt32-d {
			f.L.RaiseError("integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

// optSize is optsize: the size of an option, reading its count.
func (f *structFormat) optSize(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T':
		return 8
	case 'f':
		return 4
	case 'd':
		return 8
	case 'x':
		return 1
	case 'c':
		return f.num(1)
	case 'i', 'I':
		sz := f.num(4)
		if sz > structMaxIntSize {
			f.L.RaiseError("integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

// toAlign is gettoalign.
func toAlign(length int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (length & (size - 1))) & (size - 1)
}

// control is controloptions: endianness, alignment, blanks; anything else
// is an invalid option.
func (f *structFormat) control(opt byte, h *structHeader, fn string) {
	switch opt {
	case ' ':
	case '>':
		h.big = true
	case '<':
		h.big = false
	case '!':
		a := f.num(structMaxAlign)
		if a == 0 || a&(a-1) != 0 {
			f.L.RaiseError("alignment %d is not a power of 2", a)
		}
		h.align = a
	default:
		argError(f.L, 1, fn, "invalid format option '"+string(opt)+"'")
	}
}

func structPack(L *lua.LState) int {
	f := &structFormat{L: L, fmt: checkString(L, 1, "pack")}
	h := structHeader{align: 1}
	arg := 2
	var out []byte
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.optSize(opt)
		pad := toAlign(len(out), &h, opt, size)
		for ; pad > 0; pad-- {
			out = append(out, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := structNumber(L, arg, "pack")
			arg++
			var v uint64
			if n < 0 {
				v = uint64(luaInteger(n))
			} else if n >= 18446744073709551616.0 || math.IsNaN(n) {
				v = 1 << 63
			} else {
				v = uint64(n)
			}
			buf := make([]byte, size)
			for i := 0; i < size; i++ {
				idx := i
				if h.big {
					idx = size - 1 - i
				}
				buf[idx] = byte(v)
				v >>= 8
			}
			out = append(out, buf...)
		case 'x':
			out = append(out, 0)
		case 'f':
			n := structNumber(L, arg, "pack")
			arg++
			out = appendUint(out, uint64(math.Float32bits(float32(n))), 4, h.big)
		case 'd':
			n := structNumber(L, arg, "pack")
			arg++
			out = appendUint(out, math.Float64bits(n), 8, h.big)
		case 'c', 's':
			s := structString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			out = append(out, s[:size]...)
			if opt == 's' {
				out = append(out, 0)
			}
		default:
			f.control(opt, &h, "pack")
		}
	}
	L.Push(lua.LString(out))
	return 1
}

// structNumber is luaL_checknumber where b_pack has pushed a nil after
// its arguments: one past the end reads "got nil".
func structNumber(L *lua.LState, n int, fn string) float64 {
	if n == L.GetTop()+1 {
		argError(L, n, fn, "number expected, got nil")
	}
	return checkNumber(L, n, fn)
}

func structString(L *lua.LState, n int, fn string) string {
	if n == L.GetTop()+1 {
		argError(L, n, fn, "string expected, got nil")
	}
	return checkString(L, n, fn)
}

func appendUint(out []byte, v uint64, size int, big bool) []byte {
	var buf [8]byte
	if big {
		binary.BigEndian.PutUint64(buf[:], v)
		return append(out, buf[8-size:]...)
	}
	binary.LittleEndian.PutUint64(buf[:], v)
	return append(out, buf[:size]...)
}

// structInteger is getinteger: size bytes as an unsigned or sign-extended
// integer, kept in 64 bits as the C code does.
func structInteger(b []byte, big, signed bool) float64 {
	var l uint64
	size := len(b)
	if big {
		for i := 0; i < size; i++ {
			l = l<<8 | uint64(b[i])
		}
	} else {
		for i := size - 1; i >= 0; i-- {
			l = l<<8 | uint64(b[i])
		}
	}
	if !signed {
		return float64(l)
	}
	// The C shift count is taken modulo 64 on x86-64 for sizes above 8.
	mask := ^uint64(0) << (uint(size*8-1) % 64)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	f := &structFormat{L: L, fmt: checkString(L, 1, "unpack")}
	data := checkString(L, 2, "unpack")
	ld := len(data)
	start := 1
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		start = int(luaInteger(checkNumber(L, 3, "unpack")))
	}
	pos := start - 1
	if pos < 0 || pos > ld {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	h := structHeader{align: 1}
	var results []lua.LValue
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.optSize(opt)
		pos += toAlign(pos, &h, opt, size)
		if size > ld || pos > ld-size {
			argError(L, 2, "unpack", "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a' && opt <= 'z'
			results = append(results, lua.LNumber(structInteger([]byte(data[pos:pos+size]), h.big, signed)))
		case 'x':
		case 'f':
			var v uint32
			if h.big {
				v = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			} else {
				v = binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			}
			results = append(results, lua.LNumber(math.Float32frombits(v)))
		case 'd':
			var v uint64
			if h.big {
				v = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				v = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			}
			results = append(results, lua.LNumber(math.Float64frombits(v)))
		case 'c':
			if size == 0 {
				if len(results) == 0 {
					L.RaiseError("format 'c0' needs a previous size")
				}
				prev, ok := results[len(results)-1].(lua.LNumber)
				if !ok {
					if s, isStr := results[len(results)-1].(lua.LString); isStr {
						if v, okNum := strToNumber(string(s)); okNum {
							prev, ok = lua.LNumber(v), true
						}
					}
				}
				if !ok {
					L.RaiseError("format 'c0' needs a previous size")
				}
				results = results[:len(results)-1]
				sz := luaInteger(float64(prev))
				if sz < 0 || sz > int64(ld) || pos > ld-int(sz) {
					argError(L, 2, "unpack", "data string too short")
				}
				size = int(sz)
			}
			results = append(results, lua.LString(data[pos:pos+size]))
		case 's':
			e := bytes.IndexByte([]byte(data[pos:]), 0)
			if e < 0 {
				L.RaiseError("unfinished string in data")
			}
			size = e + 1
			results = append(results, lua.LString(data[pos:pos+e]))
		default:
			f.control(opt, &h, "unpack")
		}
		pos += size
	}
	for _, r := range results {
		L.Push(r)
	}
	L.Push(lua.LNumber(pos + 1))
	return len(results) + 1
}

func structSize(L *lua.LState) int {
	f := &structFormat{L: L, fmt: checkString(L, 1, "size")}
	h := structHeader{align: 1}
	pos := 0
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.optSize(opt)
		pos += toAlign(pos, &h, opt, size)
		if opt == 's' {
			argError(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.control(opt, &h, "size")
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}

func isAlnum(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
