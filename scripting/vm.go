package scripting

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Version is the Redis version scripts see (redis.REDIS_VERSION).
const (
	Version    = "7.0.15"
	VersionNum = 0x07000f
)

// Host runs what a script asks of the server.
type Host interface {
	// Call runs args as one command for redis.call or redis.pcall, with
	// its reply in RESP version proto (redis.setresp). refusal is set,
	// and reply nil, when the command was refused before running: a
	// reply text either "-CODE message" or a bare message (code ERR).
	// The host counts a refusal or an error reply in the error
	// statistics, as Redis does whether the script catches it or not.
	Call(args [][]byte, proto int) (reply []byte, refusal string)
	// Log writes msg to the server log at level (0 debug … 3 warning).
	Log(level int, msg string)
	// ACLCheck is redis.acl_check_cmd: known reports whether args names a
	// command (and subcommand) of the table, allowed whether the script's
	// caller may run it on those arguments.
	ACLCheck(args [][]byte) (known, allowed bool)
}

// Kind tells the two Lua worlds apart: EVAL scripts and FUNCTION
// libraries each have their own state, as in Redis.
type Kind int

const (
	KindEval Kind = iota
	KindFunction
)

// Redis's redis.log levels.
const (
	LogDebug = iota
	LogVerbose
	LogNotice
	LogWarning
)

// Error texts of the sandbox, as Redis 7.0 words them.
const (
	errReadonly      = "Attempt to modify a readonly table"
	errGlobalMissing = "Script attempted to access nonexistent global variable '%s'"
	errKilled        = "ERR Script killed by user with SCRIPT KILL..."
)

// VM is one Lua state set up as Redis 7.0 sets up its interpreter: the
// base, table, string, math, coroutine, cjson, cmsgpack, bit and struct
// libraries; no os, io, debug, print, loadfile, dofile, require, module,
// setfenv, getfenv, newproxy; every global and library table read-only;
// reading a missing global an error. A VM is not safe for concurrent use:
// scripts run one at a time, inside the server's exclusive section.
type VM struct {
	L    *lua.LState
	kind Kind
	// globals holds the real globals; env, a read-only proxy of it, is
	// the environment every script and function runs in (its _G).
	globals, env *lua.LTable
	// envMeta is env's metatable. For a FUNCTION LOAD its __index is
	// switched to loadAPI, the only globals a library's body may see.
	envMeta, loadAPI *lua.LTable
	readonly         map[*lua.LTable]bool
	// real maps a proxy to the table it protects; shownMeta is what
	// getmetatable answers for a proxy (nil when absent), stringMeta what
	// it answers for a string (sandbox.go).
	real       map[*lua.LTable]*lua.LTable
	shownMeta  map[*lua.LTable]lua.LValue
	stringMeta lua.LValue
	handler    *lua.LFunction

	run     *Run        // the running script or function
	loading *loadingLib // the FUNCTION LOAD in progress
}

// NewVM returns a sandboxed Lua state for EVAL scripts or for functions.
func NewVM(kind Kind) *VM {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:    true,
		CallStackSize:   200,
		RegistrySize:    1024,
		RegistryMaxSize: 1 << 22,
	})
	vm := &VM{L: L, kind: kind, readonly: map[*lua.LTable]bool{},
		real: map[*lua.LTable]*lua.LTable{}, shownMeta: map[*lua.LTable]lua.LValue{}}
	self := L.NewUserData()
	self.Value = vm
	L.G.Registry.RawSetString(vmRegistryKey, self)
	for _, open := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(open.fn))
		L.Push(lua.LString(open.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	vm.globals = g
	for _, name := range []string{"print", "dofile", "loadfile", "require", "module", "setfenv",
		"getfenv", "newproxy", "_printregs", "_GOPHER_LUA_VERSION", "channel", "package"} {
		g.RawSetString(name, lua.LNil)
	}
	g.RawSetString("rawset", L.NewFunction(vm.rawset))
	g.RawSetString("setmetatable", L.NewFunction(vm.setmetatable))
	g.RawSetString("tostring", L.NewFunction(luaToStringFn))
	g.RawSetString("error", L.NewFunction(luaErrorFn))
	g.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	if m, ok := g.RawGetString("math").(*lua.LTable); ok {
		m.RawSetString("random", L.NewFunction(mathRandom))
		m.RawSetString("randomseed", L.NewFunction(mathRandomSeed))
	}
	g.RawSetString("cjson", newCjson(L))
	g.RawSetString("cmsgpack", newCmsgpack(L))
	g.RawSetString("bit", newBit(L))
	g.RawSetString("struct", newStruct(L))
	g.RawSetString("redis", vm.newRedisTable(false))
	vm.installSandboxBuiltins(g)
	vm.installBoundedBuiltins(g)
	g.RawSetString(concatBuiltin, L.NewFunction(vm.concatOp))

	// Protect every library table, then the globals themselves.
	for _, name := range []string{"string", "math", "table", "coroutine", "cjson", "cmsgpack", "bit", "struct", "redis"} {
		if t, ok := g.RawGetString(name).(*lua.LTable); ok {
			g.RawSetString(name, vm.protect(t))
		}
	}
	if s, ok := g.RawGetString("string").(*lua.LTable); ok {
		vm.protectStringMeta(s)
	}
	globalsMeta := vm.setMissingError(g)
	vm.env = vm.protect(g)
	vm.shownMeta[vm.env] = vm.protect(globalsMeta)
	vm.envMeta = L.GetMetatable(vm.env).(*lua.LTable)
	g.RawSetString("_G", vm.env)
	vm.handler = L.NewFunction(vm.errorHandler)
	if kind == KindFunction {
		loadRedis := vm.newRedisTable(true)
		vm.setMissingError(loadRedis)
		api := L.NewTable()
		api.RawSetString("redis", vm.protect(loadRedis))
		api.RawSetString(concatBuiltin, g.RawGetString(concatBuiltin)) // a library's body may use `..`
		vm.setMissingError(api)
		vm.loadAPI = api
	}
	return vm
}

// Close frees the Lua state.
func (vm *VM) Close() { vm.L.Close() }

// protect returns a read-only view of t: an empty table whose metatable
// reads through to t and refuses every write.
func (vm *VM) protect(t *lua.LTable) *lua.LTable {
	L := vm.L
	p := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(errReadonly)
		return 0
	}))
	L.SetMetatable(p, mt)
	vm.readonly[p] = true
	vm.readonly[mt] = true
	vm.real[p] = t
	return p
}

// setMissingError makes reading a missing key of t an error, as Redis's
// luaSetErrorMetatable. It returns the metatable.
func (vm *VM) setMissingError(t *lua.LTable) *lua.LTable {
	mt := vm.L.NewTable()
	mt.RawSetString("__index", vm.L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(errGlobalMissing, luaToString(L.Get(2)))
		return 0
	}))
	vm.L.SetMetatable(t, mt)
	vm.readonly[mt] = true
	return mt
}

// rawset is Lua's rawset, refusing read-only tables.
func (vm *VM) rawset(L *lua.LState) int {
	t := L.CheckTable(1)
	if vm.readonly[t] {
		L.Error(lua.LString(errReadonly), 0)
	}
	k := L.CheckAny(2)
	v := L.CheckAny(3)
	if k == lua.LNil {
		L.RaiseError("table index is nil")
	}
	t.RawSet(k, v)
	L.SetTop(1)
	return 1
}

// setmetatable is Lua's setmetatable, refusing read-only tables.
func (vm *VM) setmetatable(L *lua.LState) int {
	t := L.CheckTable(1)
	if vm.readonly[t] {
		L.Error(lua.LString(errReadonly), 0)
	}
	mt := L.Get(2)
	if _, ok := mt.(*lua.LTable); !ok && mt != lua.LNil {
		argError(L, 2, "setmetatable", "nil or table expected")
	}
	if old, ok := L.GetMetatable(t).(*lua.LTable); ok && old.RawGetString("__metatable") != lua.LNil {
		L.RaiseError("cannot change a protected metatable")
	}
	L.SetMetatable(t, mt)
	L.SetTop(1)
	return 1
}

// argError raises Lua's "bad argument #n to 'fn' (msg)".
func argError(L *lua.LState, n int, fn, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, fn, msg)
}

// typeError raises Lua's "bad argument #n to 'fn' (want expected, got x)".
func typeError(L *lua.LState, n int, fn, want string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	argError(L, n, fn, want+" expected, got "+got)
}

// checkNumber is luaL_checknumber: a number or a numeric string.
func checkNumber(L *lua.LState, n int, fn string) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := strToNumber(string(v)); ok {
			return f
		}
	}
	typeError(L, n, fn, "number")
	return 0
}

// checkString is luaL_checklstring: a string, or a number as its text.
func checkString(L *lua.LState, n int, fn string) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return formatNumber(float64(v))
	}
	typeError(L, n, fn, "string")
	return ""
}

// strToNumber is Lua 5.1's string to number coercion (lua_str2number
// with strtod, or hex).
func strToNumber(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, false
	}
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		u, err := strconv.ParseUint(t[2:], 16, 64)
		return float64(u), err == nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	low := strings.ToLower(t)
	if strings.Contains(low, "inf") || strings.Contains(low, "nan") || strings.Contains(low, "_") {
		// Go accepts these spellings; Lua 5.1 (strtod) takes inf and nan too.
		return f, !strings.Contains(low, "_")
	}
	return f, true
}

// formatNumber is Lua 5.1's number to string conversion, "%.14g".
func formatNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	}
	return formatG(f, 14)
}

// formatG is C's "%.<prec>g".
func formatG(f float64, prec int) string {
	return strconv.FormatFloat(f, 'g', prec, 64)
}

// luaToString is Lua's tostring for the values the sandbox produces.
func luaToString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LNumber:
		return formatNumber(float64(x))
	case lua.LString:
		return string(x)
	}
	return v.String()
}

// luaToStringFn is tostring: numbers as Lua 5.1 prints them, __tostring
// honoured.
func luaToStringFn(L *lua.LState) int {
	v := L.CheckAny(1)
	if n, ok := v.(lua.LNumber); ok {
		L.Push(lua.LString(formatNumber(float64(n))))
		return 1
	}
	L.Push(L.ToStringMeta(v))
	return 1
}

// luaErrorFn is Lua 5.1's error(message [, level]): a string or number
// message gets the position of the caller, any other value (nil too) is
// raised as it is.
func luaErrorFn(L *lua.LState) int {
	v := L.Get(1)
	level := L.OptInt(2, 1)
	switch x := v.(type) {
	case lua.LNumber:
		L.Error(lua.LString(formatNumber(float64(x))), level)
	case lua.LString:
		L.Error(x, level)
	}
	L.Error(v, level)
	return 0
}

// mathRandom is redis_math_random.
func mathRandom(L *lua.LState) int {
	r := globalRand.float()
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := int(int32(checkNumber(L, 1, "random")))
		if u < 1 {
			argError(L, 1, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l := int(int32(checkNumber(L, 1, "random")))
		u := int(int32(checkNumber(L, 2, "random")))
		if l > u {
			argError(L, 2, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

// mathRandomSeed is redis_math_randomseed.
func mathRandomSeed(L *lua.LState) int {
	globalRand.seed(int32(int64(checkNumber(L, 1, "randomseed"))))
	return 0
}
