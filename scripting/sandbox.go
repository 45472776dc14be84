package scripting

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The sandbox's walls. Redis 7.0 flags its tables read-only inside the
// Lua VM (lua_enablereadonlytable); gopher-lua has no such flag, so a
// protected table is an empty proxy whose metatable reads through to the
// real table and refuses writes (vm.protect). What keeps one script from
// changing what the next one sees is that no script can reach a real
// table or a proxy's metatable:
//
//   - getmetatable answers as Redis does, never with a proxy's metatable:
//     for _G a read-only table whose __index is the missing-global error,
//     for a string a read-only {__index = string}, for the library tables
//     nil (vm.getmetatable).
//   - rawget, next and pairs see through a proxy to its table's contents
//     (which are themselves proxies or plain values); rawset, setmetatable
//     and table.insert refuse a proxy.
//   - Chunks that loadstring and load compile run in the script's
//     environment, not in gopher-lua's real globals (the Env its Go
//     functions carry).
//   - The strings' metatable, which gopher-lua keeps outside any table,
//     reads string functions through the protected string table.

// seeThrough returns the table a read-only proxy stands for, t otherwise.
func (vm *VM) seeThrough(t *lua.LTable) *lua.LTable {
	if r := vm.real[t]; r != nil {
		return r
	}
	return t
}

// refuseReadonly raises Redis's error when t is a protected table, as the
// read-only flag does in Redis's Lua for every C-level write.
func (vm *VM) refuseReadonly(L *lua.LState, t *lua.LTable) {
	if vm.readonly[t] {
		L.Error(lua.LString(errReadonly), 0)
	}
}

// installSandboxBuiltins replaces the base and table functions that could
// reach or change a protected table. It runs before the tables are
// protected.
func (vm *VM) installSandboxBuiltins(g *lua.LTable) {
	L := vm.L
	set := func(t *lua.LTable, name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set(g, "getmetatable", vm.getmetatable)
	set(g, "rawget", vm.rawget)
	next := L.NewFunction(vm.next)
	g.RawSetString("next", next)
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(next)
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	}))
	set(g, "loadstring", vm.loadstring)
	set(g, "load", vm.load)
	if str, ok := g.RawGetString("string").(*lua.LTable); ok {
		set(str, "dump", stringDump)
	}
	if tab, ok := g.RawGetString("table").(*lua.LTable); ok {
		// Only insert writes to an empty table: remove and sort find
		// nothing to move in a proxy, and Redis lets them run.
		for _, name := range []string{"insert"} {
			orig, ok := tab.RawGetString(name).(*lua.LFunction)
			if !ok {
				continue
			}
			set(tab, name, func(L *lua.LState) int {
				vm.refuseReadonly(L, L.CheckTable(1))
				return orig.GFunction(L)
			})
		}
	}
}

// protectStringMeta points the strings' metatable at the protected string
// table and makes the metatable getmetatable shows for a string read-only.
func (vm *VM) protectStringMeta(stringProxy *lua.LTable) {
	sm, ok := vm.L.GetMetatable(lua.LString("")).(*lua.LTable)
	if !ok {
		return
	}
	sm.RawSetString("__index", stringProxy)
	vm.stringMeta = vm.protect(sm)
}

// getmetatable is Lua's getmetatable as the Redis sandbox answers it.
func (vm *VM) getmetatable(L *lua.LState) int {
	switch x := L.CheckAny(1).(type) {
	case *lua.LTable:
		if vm.readonly[x] {
			if mt := vm.shownMeta[x]; mt != nil {
				L.Push(mt)
			} else {
				L.Push(lua.LNil)
			}
			return 1
		}
		mt := L.GetMetatable(x)
		if t, ok := mt.(*lua.LTable); ok {
			if p := t.RawGetString("__metatable"); p != lua.LNil {
				mt = p
			}
		}
		L.Push(mt)
	case lua.LString:
		if vm.stringMeta != nil {
			L.Push(vm.stringMeta)
		} else {
			L.Push(lua.LNil)
		}
	default:
		// Scripts cannot make userdata; the libraries' (cjson.null) have
		// no metatable a script may see, as lightuserdata in Redis.
		L.Push(lua.LNil)
	}
	return 1
}

// rawget is Lua's rawget, reading a protected table's contents.
func (vm *VM) rawget(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(vm.seeThrough(t).RawGet(L.CheckAny(2)))
	return 1
}

// next is Lua's next, walking a protected table's contents.
func (vm *VM) next(L *lua.LState) int {
	t := vm.seeThrough(L.CheckTable(1))
	k, v := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

// loadstring is Lua 5.1's loadstring(s [, chunkname]), compiled as
// scripts are and run in the script's environment.
func (vm *VM) loadstring(L *lua.LState) int {
	src := checkString(L, 1, "loadstring")
	return vm.loadChunk(L, src, L.OptString(2, src))
}

// load is Lua 5.1's load(func [, chunkname]): the pieces func returns,
// up to the script string limit, compiled as loadstring does.
func (vm *VM) load(L *lua.LState) int {
	fn := L.CheckFunction(1)
	name := L.OptString(2, "=(load)")
	var b strings.Builder
	for {
		L.Push(fn)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		if v == lua.LNil {
			break
		}
		s, ok := v.(lua.LString)
		if !ok {
			if n, isNum := v.(lua.LNumber); isNum {
				s = lua.LString(formatNumber(float64(n)))
			} else {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
		}
		if s == "" {
			break
		}
		vm.checkStringSize(L, int64(b.Len())+int64(len(s)))
		b.WriteString(string(s))
	}
	return vm.loadChunk(L, b.String(), name)
}

// luaSignature starts a Lua 5.1 binary chunk (LUA_SIGNATURE).
const luaSignature = "\x1bLua"

// stringDump is string.dump: gopher-lua has no bytecode to give, so a Lua
// function dumps to the header of a Lua 5.1 chunk alone (Redis's 64-bit
// one), which no loader takes (loadChunk), as Redis's loaders take no
// binary chunk; a Go function cannot be dumped, as a C one in Lua 5.1.
func stringDump(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		typeError(L, 1, "dump", "function")
	}
	if fn.IsG {
		L.RaiseError("unable to dump given function")
	}
	L.Push(lua.LString(luaSignature + "Q\x00\x01\x04\x08\x04\x08\x00"))
	return 1
}

// loadChunk compiles src as chunk name; nil and the message on a syntax
// error, as Lua's load functions. A binary chunk is text to Redis's Lua
// (it loads no bytecode), whose lexer stops at the signature's ESC.
func (vm *VM) loadChunk(L *lua.LState, src, name string) int {
	if strings.HasPrefix(src, luaSignature[:1]) {
		L.Push(lua.LNil)
		L.Push(lua.LString(chunkID(name) + ":1: unexpected symbol near 'char(27)'"))
		return 2
	}
	proto, msg := compile(src, chunkID(name))
	if msg != "" {
		L.Push(lua.LNil)
		L.Push(lua.LString(msg))
		return 2
	}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = vm.env
	L.Push(fn)
	return 1
}

// chunkID is Lua 5.1's luaO_chunkid for the names loadstring gives: "=x"
// is x, "@x" is x, a source string is [string "first line..."].
func chunkID(name string) string {
	switch {
	case strings.HasPrefix(name, "="), strings.HasPrefix(name, "@"):
		return name[1:]
	}
	const max = 60 - len(`[string "..."]`)
	line := name
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i] // a C string: its end, no cut
	}
	cut := false
	if i := strings.IndexAny(line, "\r\n"); i >= 0 {
		line, cut = line[:i], true
	}
	if len(line) > max {
		line, cut = line[:max], true
	}
	if cut {
		return `[string "` + line + `..."]`
	}
	return `[string "` + line + `"]`
}
