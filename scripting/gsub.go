package scripting

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// string.gsub over the matcher of pattern.go, as Lua 5.1's str_gsub: one
// match at a time, the result built once and bounded by the string limit.
// (gopher-lua's found every match before using any and spliced each
// replacement into a copy of the whole string, time quadratic in the
// matches.)

func (vm *VM) strGsub(L *lua.LState) int {
	s := checkString(L, 1, "gsub")
	pat := checkString(L, 2, "gsub")
	repl := L.Get(3)
	// Lua 5.1 reads the limit before it checks the replacement's type.
	maxN := len(s) + 1
	if L.Get(4) != lua.LNil {
		maxN = luaInt(checkNumber(L, 4, "gsub"))
	}
	switch r := repl.(type) {
	case lua.LString, *lua.LTable, *lua.LFunction:
	case lua.LNumber:
		repl = lua.LString(formatNumber(float64(r)))
	default:
		argError(L, 3, "gsub", "string/function/table expected")
	}
	var ms matchState
	ms.reset(L, s, pat)
	anchored := ms.anchor()
	var b strings.Builder
	add := func(piece string) {
		vm.checkStringSize(L, int64(b.Len())+int64(len(piece)))
		b.WriteString(piece)
	}
	// keep is where the text not yet copied to b begins: the bytes that
	// no match replaced stay there until the next match or the end.
	n, src, keep := 0, 0, 0
scan:
	for n < maxN {
		e := ms.matchAt(src)
		if e >= 0 {
			n++
			add(s[keep:src])
			vm.addValue(L, &b, &ms, repl, src, e)
			keep = e
		}
		switch {
		case e > src: // a non-empty match: go on after it
			src = e
		case src < len(s): // no match, or an empty one: keep one byte
			src++
		default:
			break scan
		}
		if anchored {
			break
		}
	}
	add(s[keep:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// addValue appends what replaces the match s..e, as Lua 5.1's add_value:
// the expanded replacement string, or the table's value or the function's
// result for the first capture (false or nil keep the match).
func (vm *VM) addValue(L *lua.LState, b *strings.Builder, ms *matchState, repl lua.LValue, s, e int) {
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LString:
		vm.expandRepl(L, b, ms, string(r), s, e)
		return
	case *lua.LTable:
		v = L.GetTable(r, ms.captureValue(0, s, e))
	case *lua.LFunction:
		L.Push(r)
		L.Call(ms.pushCaptures(true, s, e), 1)
		v = L.Get(-1)
		L.Pop(1)
	}
	var piece string
	switch x := v.(type) {
	case lua.LString:
		piece = string(x)
	case lua.LNumber:
		piece = formatNumber(float64(x))
	default:
		if lua.LVAsBool(v) {
			L.RaiseError("invalid replacement value (a %s)", v.Type().String())
		}
		piece = ms.src[s:e]
	}
	vm.checkStringSize(L, int64(b.Len())+int64(len(piece)))
	b.WriteString(piece)
}

// expandRepl appends the replacement string r for the match s..e, as Lua
// 5.1's add_s: %0 the match, %1–%9 the captures, % before any other byte
// that byte (a final % a NUL, as Lua 5.1 reads its string's terminator).
// Lua 5.1 has no "invalid use of '%'" error (5.2 does).
func (vm *VM) expandRepl(L *lua.LState, b *strings.Builder, ms *matchState, r string, s, e int) {
	for len(r) > 0 {
		i := strings.IndexByte(r, '%')
		if i < 0 {
			i = len(r)
		}
		vm.checkStringSize(L, int64(b.Len())+int64(i))
		b.WriteString(r[:i])
		if i >= len(r)-1 {
			if i == len(r)-1 {
				b.WriteByte(0) // Lua 5.1 copies the terminating NUL
			}
			return
		}
		c := r[i+1]
		r = r[i+2:]
		var piece string
		switch {
		case c == '0':
			piece = ms.src[s:e]
		case c >= '1' && c <= '9':
			piece = luaToString(ms.captureValue(int(c-'1'), s, e))
		default:
			piece = string(c)
		}
		vm.checkStringSize(L, int64(b.Len())+int64(len(piece)))
		b.WriteString(piece)
	}
}
