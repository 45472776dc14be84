package scripting

import (
	"strconv"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/pm"
)

// string.gsub and string.gmatch over gopher-lua's pattern matcher, one
// match at a time. gopher-lua's own versions find every match before
// using any (memory in proportion to the matches) and gsub splices each
// replacement into a copy of the whole string (time quadratic in the
// matches); these build the result once, bounded by the string limit,
// and check the script's context between matches.

// readOnlyBytes views s as bytes for pm, which only reads them.
func readOnlyBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// findOne is the first match of pat in src at or after off; nil when none.
func findOne(L *lua.LState, pat string, src []byte, off int) *pm.MatchData {
	mds, err := pm.Find(pat, src, off, 1)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	if len(mds) == 0 {
		return nil
	}
	return mds[0]
}

// capture is capture k (1-based; 0 the whole match) of m as a Lua value:
// the text, or the position of a position capture.
func capture(L *lua.LState, m *pm.MatchData, s string, k int) lua.LValue {
	idx := 2 * k
	if idx >= m.CaptureLength() {
		if k == 1 {
			idx = 0
		} else {
			L.RaiseError("invalid capture index")
		}
	}
	if m.IsPosCapture(idx) {
		return lua.LNumber(m.Capture(idx))
	}
	return lua.LString(s[m.Capture(idx):m.Capture(idx+1)])
}

func (vm *VM) strGsub(L *lua.LState) int {
	s := checkString(L, 1, "gsub")
	pat := checkString(L, 2, "gsub")
	repl := L.Get(3)
	switch repl.(type) {
	case lua.LString, lua.LNumber, *lua.LTable, *lua.LFunction:
	default:
		typeError(L, 3, "gsub", "string/function/table")
	}
	limit := -1
	if L.Get(4) != lua.LNil {
		limit = luaInt(checkNumber(L, 4, "gsub"))
	}
	anchored := strings.HasPrefix(pat, "^")
	src := readOnlyBytes(s)
	var b strings.Builder
	add := func(piece string) {
		vm.checkStringSize(L, int64(b.Len())+int64(len(piece)))
		b.WriteString(piece)
	}
	n, last, off := 0, 0, 0
	for off <= len(s) && (limit < 0 || n < limit) {
		m := findOne(L, pat, src, off)
		if m == nil {
			break
		}
		start, end := m.Capture(0), m.Capture(1)
		n++
		add(s[last:start])
		add(vm.replacement(L, repl, m, s))
		last = end
		off = max(start+1, end)
		if anchored {
			break
		}
		if n%killCheckEvery == 0 {
			checkKilled(L)
		}
	}
	add(s[last:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// replacement is what gsub puts in place of match m, as Lua 5.1's add_s
// and add_value.
func (vm *VM) replacement(L *lua.LState, repl lua.LValue, m *pm.MatchData, s string) string {
	whole := s[m.Capture(0):m.Capture(1)]
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LNumber:
		return vm.expandRepl(L, formatNumber(float64(r)), m, s)
	case lua.LString:
		return vm.expandRepl(L, string(r), m, s)
	case *lua.LTable:
		v = L.GetTable(r, capture(L, m, s, 1))
	case *lua.LFunction:
		L.Push(r)
		nargs := m.CaptureLength()/2 - 1
		if nargs == 0 {
			L.Push(lua.LString(whole))
			nargs = 1
		} else {
			for k := 1; k <= nargs; k++ {
				L.Push(capture(L, m, s, k))
			}
		}
		L.Call(nargs, 1)
		v = L.Get(-1)
		L.Pop(1)
	}
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return formatNumber(float64(x))
	case *lua.LNilType:
		return whole
	case lua.LBool:
		if !bool(x) {
			return whole
		}
	}
	L.RaiseError("invalid replacement value (a %s)", v.Type().String())
	return ""
}

// expandRepl expands a replacement string: %0 the match, %1–%9 the
// captures, % before any other character that character (a final %
// a NUL, as Lua 5.1 reads its string's terminator).
func (vm *VM) expandRepl(L *lua.LState, r string, m *pm.MatchData, s string) string {
	if strings.IndexByte(r, '%') < 0 {
		return r
	}
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(r) {
			b.WriteByte(0) // Lua 5.1 copies the terminating NUL
			continue
		}
		i++
		c = r[i]
		if c < '0' || c > '9' {
			b.WriteByte(c)
			continue
		}
		var piece string
		if c == '0' {
			piece = s[m.Capture(0):m.Capture(1)]
		} else {
			switch v := capture(L, m, s, int(c-'0')).(type) {
			case lua.LNumber:
				piece = strconv.Itoa(int(v))
			case lua.LString:
				piece = string(v)
			}
		}
		vm.checkStringSize(L, int64(b.Len())+int64(len(piece)))
		b.WriteString(piece)
	}
	return b.String()
}

// gmatchState is a string.gmatch iterator's position.
type gmatchState struct {
	s, pat string
	off    int
	done   bool
}

// strGmatch is string.gmatch: the iterator finds one match per call.
func strGmatch(L *lua.LState) int {
	st := &gmatchState{s: checkString(L, 1, "gmatch"), pat: checkString(L, 2, "gmatch")}
	L.Push(L.NewFunction(func(L *lua.LState) int {
		if st.done || st.off > len(st.s) {
			return 0
		}
		m := findOne(L, st.pat, readOnlyBytes(st.s), st.off)
		if m == nil {
			st.done = true
			return 0
		}
		start, end := m.Capture(0), m.Capture(1)
		st.off = max(start+1, end)
		n := m.CaptureLength()/2 - 1
		if n == 0 {
			L.Push(lua.LString(st.s[start:end]))
			return 1
		}
		for k := 1; k <= n; k++ {
			L.Push(capture(L, m, st.s, k))
		}
		return n
	}))
	return 1
}
