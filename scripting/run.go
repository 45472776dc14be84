package scripting

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Engine is a server's scripting state: the EVAL script cache and Lua
// state, the FUNCTION libraries and their Lua state, and the script that
// runs now (for SCRIPT KILL, FUNCTION KILL and FUNCTION STATS, which come
// from other connections while it runs).
type Engine struct {
	Cache     *Cache
	Functions *Functions

	mu     sync.Mutex // guards evalVM
	evalVM *VM

	running atomic.Pointer[Running]
}

// NewEngine returns an engine with empty caches.
func NewEngine() *Engine {
	return &Engine{Cache: NewCache(), Functions: newFunctions()}
}

// SetMemoryCharge makes the script cache and the libraries report each
// change of their memory (used_memory_scripts_eval, used_memory_functions)
// to charge, as a delta: Redis allocates both with zmalloc, so they count
// in used_memory and against maxmemory (the Lua states' own memory, Lua's
// allocator, does not). Call it before any script is loaded.
func (e *Engine) SetMemoryCharge(charge func(delta int64)) {
	e.Cache.charge = charge
	e.Functions.charge = charge
}

// FlushScripts empties the script cache and starts a fresh Lua state for
// EVAL (SCRIPT FLUSH).
func (e *Engine) FlushScripts() {
	e.Cache.Flush()
	e.mu.Lock()
	if e.evalVM != nil {
		e.evalVM.Close()
		e.evalVM = nil
	}
	e.mu.Unlock()
}

// Running describes the script in execution.
type Running struct {
	Name    string   // the script's SHA1 or the function's name
	Eval    bool     // EVAL (not FCALL)
	Command [][]byte // the command that started it
	Start   time.Time

	wrote  atomic.Bool
	killed atomic.Bool
	watch  atomic.Pointer[memWatch]
	cancel context.CancelFunc
}

// MarkWrite records that the script ran a write command: it can no longer
// be killed.
func (r *Running) MarkWrite() { r.wrote.Store(true) }

// Wrote reports whether the script ran a write command.
func (r *Running) Wrote() bool { return r.wrote.Load() }

// Running returns the script in execution, nil if none.
func (e *Engine) Running() *Running { return e.running.Load() }

// Error replies of SCRIPT KILL and FUNCTION KILL, Redis 7.0's.
const (
	ErrNotBusy    = "NOTBUSY No scripts in execution right now."
	ErrUnkillable = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	ErrBusyEval   = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ErrBusyFunc   = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
)

// Kill is SCRIPT KILL (eval) or FUNCTION KILL: it stops the running
// script, or returns the error text that refuses to ("" when killed).
func (e *Engine) Kill(eval bool) string {
	r := e.running.Load()
	switch {
	case r == nil:
		return ErrNotBusy
	case r.wrote.Load():
		return ErrUnkillable
	case eval && !r.Eval:
		return ErrBusyFunc
	case !eval && r.Eval:
		return ErrBusyEval
	}
	r.killed.Store(true)
	r.cancel()
	return ""
}

// Run is one execution of a script or function.
type Run struct {
	Host       Host
	Keys, Args [][]byte
	// Command is the EVAL or FCALL command line (FUNCTION STATS shows it).
	Command [][]byte
	// MaxString bounds the strings builtins build (proto-max-bulk-len);
	// 0 is DefaultMaxString.
	MaxString int64
	// MemoryLimit bounds how much the script may grow the heap (the
	// memory watchdog, watchdog.go); 0 is DefaultMemoryLimit.
	MemoryLimit int64

	name, source string
	proto        int // redis.setresp
	running      *Running
	watch        *memWatch
}

// Started is called once the run is registered as the running script,
// before any Lua runs: the front-end arms its busy timer there.
type Started func(r *Running)

// RunScript runs an EVAL script; its result or error goes to w.
func (e *Engine) RunScript(s *Script, run *Run, w ReplyWriter, started Started) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.evalVM == nil {
		e.evalVM = NewVM(KindEval)
	}
	vm := e.evalVM
	run.name, run.source = s.SHA, "@user_script"
	fn := vm.L.NewFunctionFromProto(s.proto)
	fn.Env = vm.env
	vm.globals.RawSetString("KEYS", vm.stringArray(run.Keys))
	vm.globals.RawSetString("ARGV", vm.stringArray(run.Args))
	e.call(vm, fn, nil, run, true, w, started)
}

// RunFunction runs a library function (FCALL).
func (e *Engine) RunFunction(f *Function, run *Run, w ReplyWriter, started Started) {
	fs := e.Functions
	fs.vmMu.Lock()
	defer fs.vmMu.Unlock()
	vm := fs.vm
	run.name, run.source = f.Name, "@user_function"
	args := []lua.LValue{vm.stringArray(run.Keys), vm.stringArray(run.Args)}
	e.call(vm, f.fn, args, run, false, w, started)
}

// call runs fn under the error handler and writes its result, as Redis's
// luaCallFunction.
func (e *Engine) call(vm *VM, fn *lua.LFunction, args []lua.LValue, run *Run, eval bool, w ReplyWriter, started Started) {
	L := vm.L
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &Running{Name: run.name, Eval: eval, Command: run.Command, Start: time.Now(), cancel: cancel}
	run.running, run.proto = r, 2
	vm.run = run
	e.running.Store(r)
	defer func() {
		e.running.Store(nil)
		vm.run = nil
		L.RemoveContext()
		L.SetTop(0)
	}()
	if started != nil {
		started(r)
	}
	run.watch = watchMemory(run.MemoryLimit, cancel)
	r.watch.Store(run.watch)
	defer run.watch.end()
	L.SetContext(ctx)
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	err := L.PCall(len(args), 1, vm.handler)
	L.RemoveContext()
	if err != nil && run.watch.over.Load() {
		w.Error(errOutOfMemory(run.name))
		return
	}
	if err != nil {
		var obj lua.LValue = lua.LNil
		if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
			obj = ae.Object
		} else {
			obj = lua.LString(err.Error())
		}
		t, isTable := obj.(*lua.LTable)
		writeError(w, vm.finalError(obj, run.name), isTable && statsCounted(t))
		return
	}
	vm.writeReply(w, L.Get(-1), run.proto, 0)
}

// finalError builds the reply text of an error that ended a script: the
// error's message, then " script: <name>, on <source>:<line>." when the
// handler could tell where it happened.
func (vm *VM) finalError(obj lua.LValue, name string) string {
	t, ok := obj.(*lua.LTable)
	if !ok {
		return "ERR " + luaToString(obj)
	}
	msg := fieldString(vm.L, t, "err")
	source := fieldString(vm.L, t, "source")
	line := fieldString(vm.L, t, "line")
	if source != "" && line != "" {
		msg += " script: " + name + ", on " + source + ":" + line + "."
	}
	return msg
}

// fieldString reads t[k] as lua_getfield and lua_tostring do (a number
// counts as its text); "" when it is neither a string nor a number.
func fieldString(L *lua.LState, t *lua.LTable, k string) string {
	switch v := L.GetField(t, k).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return formatNumber(float64(v))
	}
	return ""
}

// errorHandler is Redis's __redis__err__handler: the error becomes a
// table {err=…} ("ERR " prefixed when it was not one already) with the
// source and line of the Lua code that raised it (of its caller when it
// was raised by a Go function such as error or redis.call). A killed
// script's error, whatever Lua made of it, is the SCRIPT KILL error.
func (vm *VM) errorHandler(L *lua.LState) int {
	err := L.Get(1)
	if r := vm.run; r != nil && r.running != nil && r.running.killed.Load() {
		t := L.NewTable()
		t.RawSetString("err", lua.LString(errKilled))
		err = t
	}
	t, ok := err.(*lua.LTable)
	if !ok {
		t = L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+luaToString(err)))
	} else if vm.readonly[t] {
		// error(string), error(_G): the handler must not write source
		// and line into a protected table, where every later script
		// would see them. Its err is read through (raw: the globals' proxy
		// raises on a missing name).
		c := L.NewTable()
		c.RawSetString("err", vm.seeThrough(t).RawGetString("err"))
		t = c
	}
	source, line, found := vm.errorPosition()
	if found {
		t.RawSetString("source", lua.LString(source))
		t.RawSetString("line", lua.LNumber(line))
	}
	L.Push(t)
	return 1
}

// errorPosition finds where the error happened: the frame below the
// handler, or the one below that when the first is a Go function.
func (vm *VM) errorPosition() (string, int, bool) {
	L := vm.L
	for level := 1; level <= 2; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return "", 0, false
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			return "", 0, false
		}
		if dbg.What == "G" {
			if level == 2 {
				return "=[C]", -1, true
			}
			continue
		}
		src := dbg.Source
		if !strings.HasPrefix(src, "@") && !strings.HasPrefix(src, "=") {
			src = "@" + src
		}
		return src, dbg.CurrentLine, true
	}
	return "", 0, false
}

// stringArray makes a Lua array of strings (KEYS, ARGV).
func (vm *VM) stringArray(items [][]byte) *lua.LTable {
	t := vm.L.CreateTable(len(items), 0)
	for i, it := range items {
		t.RawSetInt(i+1, lua.LString(it))
	}
	return t
}

// errorTable is Redis's luaPushErrorBuff: "-CODE message" keeps its code,
// a bare message gets ERR; the message is trimmed of CR and LF.
func errorTable(L *lua.LState, s string) *lua.LTable {
	code, msg := "ERR", s
	if strings.HasPrefix(s, "-") {
		if i := strings.IndexByte(s, ' '); i < 0 {
			msg = s[1:]
		} else {
			code, msg = s[1:i], s[i+1:]
		}
	}
	msg = strings.Trim(msg, "\r\n")
	t := L.NewTable()
	t.RawSetString("err", lua.LString(code+" "+msg))
	return t
}

// raiseError raises an error table built from s (luaPushError + luaError).
func raiseError(L *lua.LState, s string) {
	L.Error(errorTable(L, s), 0)
}

// newRedisTable builds the redis table: the script API, or for a
// library's body (load) only register_function, log and the constants.
func (vm *VM) newRedisTable(load bool) *lua.LTable {
	L := vm.L
	t := L.NewTable()
	set := func(name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set("log", vm.redisLog)
	t.RawSetString("LOG_DEBUG", lua.LNumber(LogDebug))
	t.RawSetString("LOG_VERBOSE", lua.LNumber(LogVerbose))
	t.RawSetString("LOG_NOTICE", lua.LNumber(LogNotice))
	t.RawSetString("LOG_WARNING", lua.LNumber(LogWarning))
	t.RawSetString("REDIS_VERSION", lua.LString(Version))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(VersionNum))
	if load {
		set("register_function", vm.registerFunction)
		return t
	}
	set("call", func(L *lua.LState) int { return vm.redisCall(L, true) })
	set("pcall", func(L *lua.LState) int { return vm.redisCall(L, false) })
	set("setresp", vm.setResp)
	set("error_reply", func(L *lua.LState) int {
		if L.GetTop() != 1 || L.Get(-1).Type() != lua.LTString {
			L.Push(errorTable(L, "wrong number or type of arguments"))
			return 1
		}
		s := string(L.Get(-1).(lua.LString))
		if !strings.HasPrefix(s, "-") {
			s = "-" + s
		}
		L.Push(errorTable(L, s))
		return 1
	})
	set("status_reply", func(L *lua.LState) int {
		if L.GetTop() != 1 || L.Get(-1).Type() != lua.LTString {
			L.Push(errorTable(L, "wrong number or type of arguments"))
			return 1
		}
		r := L.NewTable()
		r.RawSetString("ok", L.Get(-1))
		L.Push(r)
		return 1
	})
	set("sha1hex", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			raiseError(L, "wrong number of arguments")
		}
		var s string
		switch v := L.Get(1).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = formatNumber(float64(v))
		}
		L.Push(lua.LString(SHA1Hex([]byte(s))))
		return 1
	})
	set("set_repl", func(L *lua.LState) int {
		if vm.run == nil {
			raiseError(L, "redis.set_repl can only be called inside a script invocation")
		}
		if L.GetTop() != 1 {
			raiseError(L, "redis.set_repl() requires two arguments.")
		}
		f := int(toNumber(L.Get(-1)))
		if f&^3 != 0 {
			raiseError(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
		}
		return 0
	})
	set("replicate_commands", func(L *lua.LState) int {
		L.Push(lua.LTrue)
		return 1
	})
	set("breakpoint", func(L *lua.LState) int {
		L.Push(lua.LFalse)
		return 1
	})
	set("debug", func(*lua.LState) int { return 0 })
	set("acl_check_cmd", func(L *lua.LState) int {
		if vm.run == nil {
			raiseError(L, "redis.acl_check_cmd can only be called inside a script invocation")
		}
		args, msg := vm.commandArgs(L)
		if msg != "" {
			raiseError(L, msg)
		}
		known, allowed := vm.run.Host.ACLCheck(args)
		if !known {
			raiseError(L, "Invalid command passed to redis.acl_check_cmd()")
		}
		L.Push(lua.LBool(allowed))
		return 1
	})
	t.RawSetString("REPL_NONE", lua.LNumber(0))
	t.RawSetString("REPL_AOF", lua.LNumber(1))
	t.RawSetString("REPL_SLAVE", lua.LNumber(2))
	t.RawSetString("REPL_REPLICA", lua.LNumber(2))
	t.RawSetString("REPL_ALL", lua.LNumber(3))
	return t
}

// toNumber is lua_tonumber: 0 for what is not a number.
func toNumber(v lua.LValue) float64 {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x)
	case lua.LString:
		if f, ok := strToNumber(string(x)); ok {
			return f
		}
	}
	return 0
}

// commandArgs converts redis.call's arguments as luaArgsToRedisArgv:
// strings as they are, numbers as "%.17g".
func (vm *VM) commandArgs(L *lua.LState) ([][]byte, string) {
	n := L.GetTop()
	if n == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	args := make([][]byte, n)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			args[i-1] = []byte(v)
		case lua.LNumber:
			args[i-1] = []byte(formatG17(float64(v)))
		default:
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
	}
	return args, ""
}

// formatG17 is C's "%.17g", as Redis formats a number given to redis.call.
func formatG17(f float64) string {
	s := formatNumber(f)
	if s == "inf" || s == "-inf" || s == "nan" || s == "-nan" {
		return s
	}
	return formatG(f, 17)
}

// redisCall is redis.call (raise) and redis.pcall.
func (vm *VM) redisCall(L *lua.LState, raise bool) int {
	run := vm.run
	if run == nil {
		raiseError(L, "redis.call/pcall can only be called inside a script invocation")
	}
	args, msg := vm.commandArgs(L)
	if msg != "" {
		t := errorTable(L, msg)
		if raise {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	reply, refusal := run.Host.Call(args, run.proto)
	if refusal != "" {
		t := errorTable(L, refusal)
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		if raise {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	v, _ := vm.parseReply(reply, 0)
	if raise && len(reply) > 0 && reply[0] == '-' {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// setResp is redis.setresp.
func (vm *VM) setResp(L *lua.LState) int {
	if vm.run == nil {
		raiseError(L, "redis.setresp can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		raiseError(L, "redis.setresp() requires one argument.")
	}
	p := int(toNumber(L.Get(1)))
	if p != 2 && p != 3 {
		raiseError(L, "RESP version must be 2 or 3.")
	}
	vm.run.proto = p
	return 0
}

// redisLog is redis.log(level, message, ...).
func (vm *VM) redisLog(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		raiseError(L, "redis.log() requires two arguments or more.")
	}
	lv := L.Get(1)
	if _, ok := lv.(lua.LNumber); !ok {
		if s, isStr := lv.(lua.LString); !isStr {
			raiseError(L, "First argument must be a number (log level).")
		} else if _, ok := strToNumber(string(s)); !ok {
			raiseError(L, "First argument must be a number (log level).")
		}
	}
	level := int(toNumber(lv))
	if level < LogDebug || level > LogWarning {
		raiseError(L, "Invalid debug level.")
	}
	var b strings.Builder
	for i := 2; i <= n; i++ {
		var s string
		switch v := L.Get(i).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = formatNumber(float64(v))
		default:
			continue
		}
		if i != 2 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	var host Host
	if vm.run != nil {
		host = vm.run.Host
	} else if vm.loading != nil {
		host = vm.loading.host
	}
	if host != nil {
		host.Log(level, b.String())
	}
	return 0
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }
