package scripting

import (
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// DefaultMaxString is the longest string a builtin may build when the run
// names no limit: Redis's proto-max-bulk-len default.
const DefaultMaxString = 512 << 20

// errStringTooLarge is the error of a builtin whose result would pass the
// string limit (Lua 5.2's wording: Lua 5.1 has no limit but memory).
const errStringTooLarge = "resulting string too large"

// errNoMemory is the error of a builtin whose result would pass what the
// script may still allocate: Lua's LUA_ERRMEM message.
const errNoMemory = "not enough memory"

// maxString is the string limit of the running script.
func (vm *VM) maxString() int64 {
	if r := vm.run; r != nil && r.MaxString > 0 {
		return r.MaxString
	}
	return DefaultMaxString
}

// checkStringSize raises errStringTooLarge when a builtin's result of n
// bytes would pass the string limit.
func (vm *VM) checkStringSize(L *lua.LState, n int64) {
	if n > vm.maxString() || n < 0 {
		L.RaiseError(errStringTooLarge)
	}
	if r := vm.run; r != nil && r.watch != nil && n > r.watch.remaining() {
		L.RaiseError(errNoMemory)
	}
}

// Builtins that loop or allocate in proportion to an argument. gopher-lua
// checks the script's context (SCRIPT KILL, the memory watchdog) between
// Lua instructions only, never inside a Go function, so each of these is
// replaced by a version that keeps Lua 5.1's limits and messages, checks
// the size of what it builds before building it, and checks the context
// as it loops.

// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK: the most values a C function
// may push (unpack's limit).
const luaMaxCStack = 8000

// killCheckEvery is how many loop steps a builtin runs between checks of
// the script's context.
const killCheckEvery = 1024

// checkKilled raises the context's error when the script was killed or
// ran out of memory, as gopher-lua does between instructions.
func checkKilled(L *lua.LState) {
	if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
		L.RaiseError("%s", ctx.Err().Error())
	}
}

// luaInt is luaL_checkint's conversion: the number truncated to
// lua_Integer (64 bits), then to C's int (32 bits).
func luaInt(f float64) int {
	return int(int32(int64(f)))
}

// installBoundedBuiltins replaces the unbounded builtins of the base,
// string and table libraries (before they are protected).
func (vm *VM) installBoundedBuiltins(g *lua.LTable) {
	L := vm.L
	set := func(t *lua.LTable, name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set(g, "unpack", luaUnpack)
	set(g, "collectgarbage", func(L *lua.LState) int {
		// No runtime.GC per call (gopher-lua's): a loop of them stalls
		// the whole process. "count" answers the script's heap growth.
		switch L.OptString(1, "collect") {
		case "count":
			L.Push(lua.LNumber(float64(vm.luaMemory()) / 1024))
		default:
			L.Push(lua.LNumber(0))
		}
		return 1
	})
	if s, ok := g.RawGetString("string").(*lua.LTable); ok {
		set(s, "rep", vm.strRep)
		// The pattern functions use the matcher of pattern.go, which
		// SCRIPT KILL can stop mid-match.
		set(s, "find", strFind)
		set(s, "match", strMatch)
		set(s, "gmatch", strGmatch)
		set(s, "gsub", vm.strGsub)
		if orig, ok := s.RawGetString("format").(*lua.LFunction); ok {
			set(s, "format", func(L *lua.LState) int {
				vm.checkFormat(L)
				return orig.GFunction(L)
			})
		}
	}
	if t, ok := g.RawGetString("table").(*lua.LTable); ok {
		set(t, "concat", vm.tableConcat)
		set(t, "sort", tableSort)
	}
}

// optInt is Lua's luaL_optint: argument n as an int, def when absent.
func optInt(L *lua.LState, n, def int, fname string) int {
	if L.Get(n) == lua.LNil {
		return def
	}
	return luaInt(checkNumber(L, n, fname))
}

// luaUnpack is Lua 5.1's unpack: at most LUAI_MAXCSTACK values.
func luaUnpack(L *lua.LState) int {
	t := L.CheckTable(1)
	i := optInt(L, 2, 1, "unpack")
	e := optInt(L, 3, t.Len(), "unpack")
	if i > e {
		return 0
	}
	n := int32(e) - int32(i) + 1 // C int arithmetic: n <= 0 is overflow
	if n <= 0 || int(n)+L.GetTop() > luaMaxCStack {
		L.RaiseError("too many results to unpack")
	}
	for k := i; k <= e; k++ {
		L.Push(t.RawGetInt(k))
	}
	return int(n)
}

// strRep is string.rep(s, n), refusing a result past the string limit.
func (vm *VM) strRep(L *lua.LState) int {
	s := checkString(L, 1, "rep")
	n := luaInt(checkNumber(L, 2, "rep"))
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	vm.checkStringSize(L, int64(len(s))*int64(n))
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// tableConcat is Lua 5.1's table.concat(t [, sep [, i [, j]]]).
func (vm *VM) tableConcat(L *lua.LState) int {
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = checkString(L, 2, "concat")
	}
	t := L.CheckTable(1)
	i := optInt(L, 3, 1, "concat")
	last := optInt(L, 4, t.Len(), "concat")
	var b strings.Builder
	for k := i; k <= last; k++ {
		var s string
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = formatNumber(float64(v))
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
		}
		size := int64(b.Len()) + int64(len(s))
		if k < last {
			size += int64(len(sep))
		}
		vm.checkStringSize(L, size)
		b.WriteString(s)
		if k < last {
			b.WriteString(sep)
		}
		if (k-i)%killCheckEvery == killCheckEvery-1 {
			checkKilled(L)
		}
		if k == last { // last may be math.MaxInt32
			break
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// checkFormat checks string.format's format as Lua 5.1's scanformat
// (flags, width and precision of two digits at most) and bounds the
// result's length before gopher-lua's formatter builds it.
func (vm *VM) checkFormat(L *lua.LState) {
	f := checkString(L, 1, "format")
	size := int64(len(f))
	arg := 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		start := i
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		if i-start >= 6 {
			L.RaiseError("invalid format (repeated flags)")
		}
		digits := func() {
			for n := 0; n < 2 && i < len(f) && f[i] >= '0' && f[i] <= '9'; n++ {
				i++
			}
		}
		digits()
		if i < len(f) && f[i] == '.' {
			i++
			digits()
		}
		if i < len(f) && f[i] >= '0' && f[i] <= '9' {
			L.RaiseError("invalid format (width or precision too long)")
		}
		arg++
		size += 99 + 330 // widest number: width 99, %f of 1e308
		if i < len(f) && (f[i] == 's' || f[i] == 'q') {
			if v, ok := L.Get(arg).(lua.LString); ok {
				size += 2*int64(len(v)) + 2
			}
		}
	}
	vm.checkStringSize(L, size)
}

// tableSort is table.sort(t [, comp]), checking the context as it
// compares: a large table sorted by Go alone is never interrupted.
func tableSort(L *lua.LState) int {
	t := L.CheckTable(1)
	var comp *lua.LFunction
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		comp = L.CheckFunction(2)
	}
	n := t.Len()
	items := make([]lua.LValue, n)
	for k := range items {
		items[k] = t.RawGetInt(k + 1)
	}
	steps := 0
	sort.Sort(luaSorter{items: items, less: func(a, b lua.LValue) bool {
		if steps++; steps%killCheckEvery == 0 {
			checkKilled(L)
		}
		if comp == nil {
			return L.LessThan(a, b)
		}
		L.Push(comp)
		L.Push(a)
		L.Push(b)
		L.Call(2, 1)
		r := L.Get(-1)
		L.Pop(1)
		return lua.LVAsBool(r)
	}})
	for k, v := range items {
		t.RawSetInt(k+1, v)
	}
	return 0
}

type luaSorter struct {
	items []lua.LValue
	less  func(a, b lua.LValue) bool
}

func (s luaSorter) Len() int           { return len(s.items) }
func (s luaSorter) Swap(i, j int)      { s.items[i], s.items[j] = s.items[j], s.items[i] }
func (s luaSorter) Less(i, j int) bool { return s.less(s.items[i], s.items[j]) }

// vmRegistryKey is where a VM leaves itself in its state's registry,
// which scripts cannot reach, for builtins that need its limits.
const vmRegistryKey = "tandem.vm"

// vmOf is the VM whose state L is (nil for a bare LState).
func vmOf(L *lua.LState) *VM {
	if ud, ok := L.G.Registry.RawGetString(vmRegistryKey).(*lua.LUserData); ok {
		vm, _ := ud.Value.(*VM)
		return vm
	}
	return nil
}

// encodeCheck is the check an encoder (cjson.encode, cmsgpack.pack) runs
// after each value it writes: the output against the string limit, and
// now and then the script's context.
func encodeCheck(L *lua.LState) func(int) {
	vm := vmOf(L)
	steps := 0
	return func(n int) {
		if vm != nil {
			vm.checkStringSize(L, int64(n))
		}
		if steps++; steps%killCheckEvery == 0 {
			checkKilled(L)
		}
	}
}
