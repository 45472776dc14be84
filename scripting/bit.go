package scripting

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The bit library: LuaBitOp 1.0 as Redis bundles it. Every operation works
// on 32-bit integers and returns a signed 32-bit result.

func newBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	reg := func(name string, fn func(L *lua.LState) int) { t.RawSetString(name, L.NewFunction(fn)) }
	reg("tobit", func(L *lua.LState) int { return pushBits(L, bitArg(L, 1, "tobit")) })
	reg("bnot", func(L *lua.LState) int { return pushBits(L, ^bitArg(L, 1, "bnot")) })
	fold := func(name string, op func(a, b uint32) uint32) {
		reg(name, func(L *lua.LState) int {
			b := bitArg(L, 1, name)
			for i := L.GetTop(); i > 1; i-- {
				b = op(b, bitArg(L, i, name))
			}
			return pushBits(L, b)
		})
	}
	fold("band", func(a, b uint32) uint32 { return a & b })
	fold("bor", func(a, b uint32) uint32 { return a | b })
	fold("bxor", func(a, b uint32) uint32 { return a ^ b })
	shift := func(name string, op func(b, n uint32) uint32) {
		reg(name, func(L *lua.LState) int {
			b := bitArg(L, 1, name)
			n := bitArg(L, 2, name) & 31
			return pushBits(L, op(b, n))
		})
	}
	shift("lshift", func(b, n uint32) uint32 { return b << n })
	shift("rshift", func(b, n uint32) uint32 { return b >> n })
	shift("arshift", func(b, n uint32) uint32 { return uint32(int32(b) >> n) })
	shift("rol", func(b, n uint32) uint32 { return b<<n | b>>(32-n) })
	shift("ror", func(b, n uint32) uint32 { return b>>n | b<<(32-n) })
	reg("bswap", func(L *lua.LState) int {
		b := bitArg(L, 1, "bswap")
		return pushBits(L, b>>24|(b>>8)&0xff00|(b&0xff00)<<8|b<<24)
	})
	reg("tohex", func(L *lua.LState) int {
		b := bitArg(L, 1, "tohex")
		n := int32(8)
		if L.GetTop() >= 2 {
			n = int32(bitArg(L, 2, "tohex"))
		}
		digits := "0123456789abcdef"
		if n < 0 {
			n = -n
			digits = "0123456789ABCDEF"
		}
		if n > 8 {
			n = 8
		}
		buf := make([]byte, n)
		for i := int(n) - 1; i >= 0; i-- {
			buf[i] = digits[b&15]
			b >>= 4
		}
		L.Push(lua.LString(buf))
		return 1
	})
	return t
}

// bitArg is LuaBitOp's barg: the number's low 32 bits after rounding, as
// adding 2^52+2^51 to a double leaves them.
func bitArg(L *lua.LState, n int, fn string) uint32 {
	v := L.Get(n)
	var f float64
	isNum := false
	switch x := v.(type) {
	case lua.LNumber:
		f, isNum = float64(x), true
	case lua.LString:
		f, isNum = strToNumber(string(x))
		if !isNum {
			f = 0
		}
	}
	b := toBits(f)
	if b == 0 && !isNum {
		typeError(L, n, fn, "number")
	}
	return b
}

// toBits keeps the low 32 bits of the mantissa of f + 2^52 + 2^51.
func toBits(f float64) uint32 {
	return uint32(math.Float64bits(f + 6755399441055744.0))
}

func pushBits(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}
