package scripting

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/tandemkv/tandem/internal/sdsargs"
)

// Function is one function a library registered.
type Function struct {
	Name        string
	Description *string // nil when none was given
	Flags       Flags
	Library     *Library
	fn          *lua.LFunction
}

// Library is a FUNCTION LOAD'ed library.
type Library struct {
	Name      string
	Code      string
	Functions []*Function // in registration order
}

// Functions is the FUNCTION libraries registry and its Lua state.
type Functions struct {
	mu    sync.RWMutex // guards libs and funcs
	libs  map[string]*Library
	funcs map[string]*Function // by lower-case name: FCALL is case-insensitive

	vmMu sync.Mutex // guards vm: a load or a call at a time
	vm   *VM

	// charge, when set, is told each change of Memory (SetMemoryCharge);
	// charged is what it was told so far. Under mu.
	charge  func(delta int64)
	charged int64
}

func newFunctions() *Functions {
	return &Functions{libs: map[string]*Library{}, funcs: map[string]*Function{}, vm: NewVM(KindFunction)}
}

// loadingLib is the library a FUNCTION LOAD builds.
type loadingLib struct {
	lib   *Library
	host  Host
	names map[string]bool
}

// loadTimeout is Redis's LOAD_TIMEOUT_MS.
const loadTimeout = 500 * time.Millisecond

// Get finds a function by name, in any case.
func (fs *Functions) Get(name string) *Function {
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	return fs.funcs[strings.ToLower(name)]
}

// Counts returns how many libraries and functions are loaded.
func (fs *Functions) Counts() (libs, funcs int) {
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	return len(fs.libs), len(fs.funcs)
}

// Libraries returns the loaded libraries sorted by name.
func (fs *Functions) Libraries() []*Library {
	fs.mu.RLock()
	out := make([]*Library, 0, len(fs.libs))
	for _, l := range fs.libs {
		out = append(out, l)
	}
	fs.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Memory estimates the bytes the libraries take.
func (fs *Functions) Memory() int64 {
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	return fs.memoryLocked()
}

// chargeLocked tells charge how the libraries' memory changed since it
// was last told; every change of libs ends with it. Under mu.
func (fs *Functions) chargeLocked() {
	if fs.charge == nil {
		return
	}
	n := fs.memoryLocked()
	fs.charge(n - fs.charged)
	fs.charged = n
}

func (fs *Functions) memoryLocked() int64 {
	var n int64
	for _, l := range fs.libs {
		n += int64(len(l.Code)) + 64
		for _, f := range l.Functions {
			n += int64(len(f.Name)) + 64
		}
	}
	return n
}

// Delete removes a library; false when there is none of that name.
func (fs *Functions) Delete(name string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	lib, ok := fs.libs[name]
	if !ok {
		return false
	}
	fs.unlinkLocked(lib)
	fs.chargeLocked()
	return true
}

func (fs *Functions) unlinkLocked(lib *Library) {
	delete(fs.libs, lib.Name)
	for _, f := range lib.Functions {
		delete(fs.funcs, strings.ToLower(f.Name))
	}
}

// Flush removes every library and starts a fresh Lua state.
func (fs *Functions) Flush() {
	fs.vmMu.Lock()
	fs.mu.Lock()
	fs.libs = map[string]*Library{}
	fs.funcs = map[string]*Function{}
	fs.chargeLocked()
	fs.mu.Unlock()
	fs.vm.Close()
	fs.vm = NewVM(KindFunction)
	fs.vmMu.Unlock()
}

// validName is Redis's functionsVerifyName: letters, digits and '_', at
// least one.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

const errBadName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

// Load is FUNCTION LOAD [REPLACE] code, as Redis 7.0's
// functionsCreateWithLibraryCtx: it returns the library's name, or the
// error text (without the "ERR " the reply adds).
func (fs *Functions) Load(code []byte, replace bool, host Host) (string, string) {
	src := string(code)
	name, end, msg := libraryHeader(src)
	if msg != "" {
		return "", msg
	}
	fs.mu.RLock()
	old := fs.libs[name]
	fs.mu.RUnlock()
	if old != nil && !replace {
		return "", "Library '" + name + "' already exists"
	}

	fs.vmMu.Lock()
	defer fs.vmMu.Unlock()
	lib, msg := fs.runLibrary(name, src, src[end:], host)
	if msg != "" {
		return "", msg
	}
	if len(lib.Functions) == 0 {
		return "", "No functions registered"
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, f := range lib.Functions {
		if other := fs.funcs[strings.ToLower(f.Name)]; other != nil && other.Library != old {
			return "", "Function " + f.Name + " already exists"
		}
	}
	if cur := fs.libs[name]; cur != nil {
		fs.unlinkLocked(cur)
	}
	fs.libs[name] = lib
	for _, f := range lib.Functions {
		fs.funcs[strings.ToLower(f.Name)] = f
	}
	fs.chargeLocked()
	return name, ""
}

// libraryHeader reads a library's first line, "#!lua name=<name>", as
// Redis's functionExtractLibMetaData and the checks after it: the name,
// where the line ends, or the error text.
func libraryHeader(src string) (name string, end int, msg string) {
	if !strings.HasPrefix(src, "#!") {
		return "", 0, "Missing library metadata"
	}
	end = strings.IndexByte(src, '\n')
	if end < 0 {
		return "", 0, "Invalid library metadata"
	}
	parts, ok := sdsargs.Strings(src[:end])
	if !ok || len(parts) == 0 {
		return "", 0, "Invalid library metadata"
	}
	engine := parts[0][2:]
	named := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if named {
				return "", 0, "Invalid metadata value, name argument was given multiple times"
			}
			name, named = p[5:], true
			continue
		}
		return "", 0, "Invalid metadata value given: " + p
	}
	if !named {
		return "", 0, "Library name was not given"
	}
	if !validName(name) {
		return "", 0, errBadName
	}
	if !strings.EqualFold(engine, "lua") {
		return "", 0, "Engine '" + engine + "' not found"
	}
	return name, end, ""
}

// runLibrary compiles and runs a library's body, which may see only the
// loading API (redis.register_function, redis.log, the constants).
func (fs *Functions) runLibrary(name, code, body string, host Host) (*Library, string) {
	vm := fs.vm
	proto, msg := compile(body, "user_function")
	if msg != "" {
		return nil, "Error compiling function: " + msg
	}
	L := vm.L
	lib := &Library{Name: name, Code: code}
	vm.loading = &loadingLib{lib: lib, host: host, names: map[string]bool{}}
	vm.envMeta.RawSetString("__index", vm.loadAPI)
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	defer func() {
		cancel()
		vm.loading = nil
		vm.envMeta.RawSetString("__index", vm.globals)
		L.RemoveContext()
		L.SetTop(0)
	}()
	fn := L.NewFunctionFromProto(proto)
	fn.Env = vm.env
	L.SetContext(ctx)
	L.Push(fn)
	err := L.PCall(0, 0, nil)
	L.RemoveContext()
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, "Error registering functions: ERR FUNCTION LOAD timeout"
		}
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
			obj = ae.Object
		}
		return nil, "Error registering functions: " + extractErrorMessage(L, obj)
	}
	return lib, ""
}

// extractErrorMessage is luaExtractErrorInformation's message: a string
// error gets "ERR ", a table gives its err field.
func extractErrorMessage(L *lua.LState, obj lua.LValue) string {
	switch v := obj.(type) {
	case lua.LString:
		return "ERR " + string(v)
	case lua.LNumber:
		return "ERR " + formatNumber(float64(v))
	case *lua.LTable:
		return fieldString(L, v, "err")
	}
	return ""
}

// registerFunction is redis.register_function, positional (name,
// callback) or named ({function_name=…, callback=…, flags={…},
// description=…}).
func (vm *VM) registerFunction(L *lua.LState) int {
	ld := vm.loading
	if ld == nil {
		raiseError(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &Function{Library: ld.lib}
	switch L.GetTop() {
	case 1:
		vm.namedFunctionArgs(L, f)
	case 2:
		name, ok := luaStringArg(L.Get(1))
		if !ok {
			raiseError(L, "first argument to redis.register_function must be a string")
		}
		cb, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			raiseError(L, "second argument to redis.register_function must be a function")
		}
		f.Name, f.fn = name, cb
	default:
		raiseError(L, "wrong number of arguments to redis.register_function")
	}
	if !validName(f.Name) {
		raiseError(L, errBadName)
	}
	key := strings.ToLower(f.Name)
	if ld.names[key] {
		raiseError(L, "Function already exists in the library")
	}
	ld.names[key] = true
	ld.lib.Functions = append(ld.lib.Functions, f)
	return 0
}

func (vm *VM) namedFunctionArgs(L *lua.LState, f *Function) {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		raiseError(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
	}
	named := false
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		key, ok := luaStringArg(k)
		if !ok {
			raiseError(L, "named argument key given to redis.register_function is not a string")
		}
		switch strings.ToLower(key) {
		case "function_name":
			s, ok := luaStringArg(v)
			if !ok {
				raiseError(L, "function_name argument given to redis.register_function must be a string")
			}
			f.Name, named = s, true
		case "description":
			s, ok := luaStringArg(v)
			if !ok {
				raiseError(L, "description argument given to redis.register_function must be a string")
			}
			f.Description = &s
		case "callback":
			cb, ok := v.(*lua.LFunction)
			if !ok {
				raiseError(L, "callback argument given to redis.register_function must be a function")
			}
			f.fn = cb
		case "flags":
			ft, ok := v.(*lua.LTable)
			if !ok {
				raiseError(L, "flags argument to redis.register_function must be a table representing function flags")
			}
			for i := 1; ; i++ {
				fv := L.GetTable(ft, lua.LNumber(i))
				if fv == lua.LNil {
					break
				}
				s, ok := luaStringArg(fv)
				flag, known := flagByName(strings.ToLower(s))
				if !ok || !known {
					raiseError(L, "unknown flag given")
				}
				f.Flags |= flag
			}
		default:
			raiseError(L, "unknown argument given to redis.register_function")
		}
	}
	if !named {
		raiseError(L, "redis.register_function must get a function name argument")
	}
	if f.fn == nil {
		raiseError(L, "redis.register_function must get a callback argument")
	}
}

// luaStringArg is lua_isstring + lua_tostring: strings and numbers.
func luaStringArg(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return formatNumber(float64(x)), true
	}
	return "", false
}
