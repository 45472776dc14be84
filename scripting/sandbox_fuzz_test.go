package scripting

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// FuzzLuaSandbox runs scripts generated from a small grammar over the
// sandbox's libraries (string, table, math, coroutine, cjson, cmsgpack,
// bit, struct, redis.*) and attempts on its walls, every statement inside
// a pcall so one error does not end the script. The grammar has only
// bounded loops and no recursion, and each run has a string and memory
// limit, so a script that runs for seconds is a defect (a builtin that
// loops without bound). After each script: nothing panicked, the globals,
// the library tables, their proxies and the strings' metatable are what
// they were, and a reference script still gives its reply.

// luaGen turns fuzz bytes into Lua source; when the bytes run out every
// choice is 0.
type luaGen struct {
	in     []byte
	b      strings.Builder
	locals int // locals v1..v<locals> are declared
	depth  int
}

func (g *luaGen) byte() int {
	if len(g.in) == 0 {
		return 0
	}
	c := g.in[0]
	g.in = g.in[1:]
	return int(c)
}

func (g *luaGen) pick(opts []string) string { return opts[g.byte()%len(opts)] }

var luaStrings = []string{`""`, `"a"`, `"hello"`, `"%d"`, `"%s|%5.2f"`, `"\0\1\255"`, `"a.b.c"`, `"(%a+)"`, `"%"`,
	`"[a-"`, `"{\"a\":[1,2,{\"b\":null}]}"`, `"[1,2"`, `"\147\1\2\3"`, `"\222\0\1"`, `">i2 <I4"`, `"!8 d"`, `"c3 s"`,
	`"12"`, `"-0x10"`, `"1e308"`, `"nan"`, `"ÿé"`, `"\r\n"`, `"KEYS"`, `"_G"`, `"string"`, `"__index"`}

// luaPatterns have no unanchored repetition, so matching is linear in
// the subject.
var luaPatterns = []string{`"a"`, `"%d"`, `"(%a)"`, `"a.b"`, `"^h%a*"`, `"^(%d+)"`, `"[%w_]"`, `"o$"`, `"%"`, `"[a-"`,
	`"(()"`, `"%f[%a]"`, `"(h)(e)"`, `"%z"`, `"[^%s]"`, `"%1"`, `"^.-$"`, `"%x%x"`}

var luaNumbers = []string{"0", "1", "-1", "2", "3", "7", "31", "32", "64", "100", "1000", "-1000", "2147483647", "-2147483648",
	"4294967296", "1e308", "-1e308", "0.5", "(0/0)", "(1/0)", "(-1/0)", "1e15", "2^53", "-0"}

// expr writes one expression.
func (g *luaGen) expr() {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 4 {
		g.atom()
		return
	}
	switch g.byte() % 21 {
	case 0, 1, 2:
		g.atom()
	case 3:
		g.call(g.pick([]string{"string.rep", "string.sub", "string.byte", "string.format",
			"string.upper", "string.lower", "string.len", "string.reverse", "string.char"}), 1+g.byte()%3)
	case 20:
		// Patterns come from a list: a backtracking pattern is not
		// stopped by SCRIPT KILL (docs/fuzzing.md), so a generated one
		// could run for minutes.
		g.b.WriteString(g.pick([]string{"string.find", "string.match", "string.gsub", "string.gmatch"}) + "(")
		g.expr()
		g.b.WriteString(", " + g.pick(luaPatterns))
		if g.byte()%2 == 0 {
			g.b.WriteString(", ")
			g.atom()
		}
		g.b.WriteString(")")
	case 4:
		g.call(g.pick([]string{"table.concat", "table.insert", "table.remove", "table.sort", "table.getn", "table.maxn", "unpack", "select", "#"}), 1+g.byte()%3)
	case 5:
		g.call(g.pick([]string{"math.floor", "math.ceil", "math.abs", "math.max", "math.min", "math.fmod", "math.pow",
			"math.sqrt", "math.log", "math.exp", "math.huge+", "math.random", "math.randomseed", "math.frexp", "math.ldexp", "math.modf"}), 1+g.byte()%2)
	case 6:
		g.call(g.pick([]string{"cjson.encode", "cjson.decode", "cjson.encode_keep_buffer", "cjson.decode_max_depth", "cjson.encode_max_depth"}), 1)
	case 7:
		g.call(g.pick([]string{"cmsgpack.pack", "cmsgpack.unpack", "cmsgpack.unpack_one", "cmsgpack.unpack_limit"}), 1+g.byte()%2)
	case 8:
		g.call(g.pick([]string{"bit.band", "bit.bor", "bit.bxor", "bit.bnot", "bit.lshift", "bit.rshift", "bit.arshift",
			"bit.rol", "bit.ror", "bit.tohex", "bit.tobit", "bit.bswap"}), 1+g.byte()%2)
	case 9:
		g.call(g.pick([]string{"struct.pack", "struct.unpack", "struct.size"}), 1+g.byte()%3)
	case 10:
		g.b.WriteString(g.pick([]string{"redis.call", "redis.pcall"}))
		g.b.WriteString("(" + g.pick([]string{`"GET"`, `"SET"`, `"HGETALL"`, `"INCR"`, `"ZSCORE"`, `"PING"`, `"NOPE"`, `"EXISTS"`}))
		for n := g.byte() % 3; n > 0; n-- {
			g.b.WriteString(", ")
			g.expr()
		}
		g.b.WriteString(")")
	case 11:
		g.call(g.pick([]string{"redis.sha1hex", "redis.error_reply", "redis.status_reply", "redis.setresp", "redis.log",
			"redis.acl_check_cmd", "redis.set_repl", "redis.replicate_commands", "redis.breakpoint", "redis.debug"}), 1+g.byte()%2)
	case 12:
		g.call(g.pick([]string{"tostring", "tonumber", "type", "rawget", "rawequal", "next", "getmetatable", "pcall", "error",
			"assert", "loadstring", "load", "collectgarbage", "gcinfo", "ipairs", "pairs", "setmetatable", "rawset", "unpack"}), 1+g.byte()%3)
	case 13:
		g.expr()
		g.b.WriteString(g.pick([]string{" .. ", " + ", " - ", " * ", " / ", " % ", " ^ ", " == ", " < ", " <= ", " and ", " or "}))
		g.expr()
	case 14:
		g.b.WriteString(g.pick([]string{"not ", "-", "#"}))
		g.atom()
	case 15:
		g.b.WriteString("{")
		for n := g.byte() % 4; n > 0; n-- {
			if g.byte()%2 == 0 {
				g.b.WriteString("[")
				g.atom()
				g.b.WriteString("] = ")
			}
			g.expr()
			g.b.WriteString(", ")
		}
		g.b.WriteString("}")
	case 16:
		g.atom()
		g.b.WriteString(g.pick([]string{"[1]", ".a", "[\"__index\"]", ":upper()", ":rep(3)", ":len()", ":format(1)"}))
	case 17:
		g.b.WriteString("(function(...) return ")
		g.expr()
		g.b.WriteString(" end)(")
		g.atom()
		g.b.WriteString(")")
	case 18:
		g.b.WriteString(g.pick([]string{"coroutine.wrap(function(a) coroutine.yield(a) return 2 end)(",
			"coroutine.resume(coroutine.create(function(a) return a end), ", "select(\"#\", ", "select(-1, "}))
		g.expr()
		g.b.WriteString(")")
	default:
		g.b.WriteString(g.pick([]string{"_G", "string", "table", "math", "cjson", "cmsgpack", "bit", "struct", "redis",
			"coroutine", "KEYS", "ARGV", "cjson.null", "getmetatable(\"\")", "getmetatable(_G)", "redis.REDIS_VERSION"}))
	}
}

// atom writes a literal or a local.
func (g *luaGen) atom() {
	switch c := g.byte() % 5; {
	case c == 0 && g.locals > 0:
		g.b.WriteString("v" + strconv.Itoa(1+g.byte()%g.locals))
	case c <= 1:
		g.b.WriteString(g.pick(luaStrings))
	case c == 2:
		g.b.WriteString(g.pick(luaNumbers))
	case c == 3:
		g.b.WriteString(g.pick([]string{"nil", "true", "false", "{}", "{1, 2, \"a\"}", "{a = 1, b = {c = 2}}", "KEYS[1]", "ARGV[1]", "cjson.null"}))
	default:
		g.b.WriteString(g.pick(luaStrings))
	}
}

func (g *luaGen) call(fn string, args int) {
	if strings.HasSuffix(fn, "+") || fn == "#" { // an operator, not a call
		g.b.WriteString(strings.TrimSuffix(fn, "+"))
		g.b.WriteString(" ")
		g.atom()
		return
	}
	g.b.WriteString(fn + "(")
	for i := 0; i < args; i++ {
		if i > 0 {
			g.b.WriteString(", ")
		}
		g.expr()
	}
	g.b.WriteString(")")
}

// escapes are statements that try to change what the next script sees.
var escapes = []string{
	`x = 1`, `_G.x = 1`, `_G.string = nil`, `string.upper = nil`, `string.x = 1`, `rawset(_G, "x", 1)`,
	`rawset(string, "upper", nil)`, `setmetatable(_G, nil)`, `setmetatable(_G, {})`, `setmetatable(string, {})`,
	`getmetatable("").__index = {}`, `getmetatable("").__index.upper = nil`, `getmetatable("").x = 1`,
	`getmetatable(_G).__index = nil`, `getmetatable(_G).__newindex = nil`, `table.insert(_G, 1)`, `table.insert(string, 1)`,
	`table.remove(_G)`, `table.sort(string)`, `redis.call = nil`, `cjson.encode = nil`, `bit.band = print`,
	`loadstring("x = 1")()`, `load(function() return "x = 1" end)()`, `loadstring("string.upper = nil")()`,
	`for k in pairs(_G) do _G[k] = nil end`, `for k, v in pairs(string) do rawset(string, k, nil) end`,
	`local mt = getmetatable(_G) rawset(mt, "__index", nil)`, `local s = rawget(_G, "string") s.upper = nil`,
	`local s = rawget(_G, "string") rawset(s, "upper", nil)`, `KEYS[1] = "x"`, `ARGV = nil`,
	`coroutine.wrap(function() string.upper = nil end)()`, `string.format = function() return "" end`,
	`cjson.decode_max_depth(1)`, `cjson.encode_max_depth(1)`, `redis.setresp(3)`, `math.randomseed(7)`,
	`next(_G, "string")`, `rawget(_G, "__proto")`, `getfenv(1).x = 1`, `setfenv(1, {})`, `debug.getregistry()`,
	`io.write("x")`, `os.exit()`, `require("os")`, `module("x")`, `dofile("/etc/passwd")`, `newproxy(true)`,
	`string.dump(function() end)`, `collectgarbage("stop")`, `getmetatable(cjson.null)`,
	`error(_G)`, `error(string)`, `error(getmetatable(""))`, `error(getmetatable(_G))`, `error(redis, 2)`,
}

// stmt writes one statement, inside a pcall.
func (g *luaGen) stmt(nest int) {
	g.b.WriteString("pcall(function() ")
	switch c := g.byte() % 8; {
	case c <= 2:
		g.b.WriteString("local r = ")
		g.expr()
	case c == 3:
		g.b.WriteString(g.pick(escapes))
	case c == 4 && nest < 2:
		g.b.WriteString("for i = 1, " + strconv.Itoa(1+g.byte()%8) + " do ")
		g.stmt(nest + 1)
		g.b.WriteString(" end")
	case c == 5 && nest < 2:
		g.b.WriteString("for k, v in pairs(")
		g.b.WriteString(g.pick([]string{"_G", "string", "{1, 2, x = 3}", "redis", "cjson", "getmetatable(\"\")", "KEYS"}))
		g.b.WriteString(") do ")
		g.stmt(nest + 1)
		g.b.WriteString(" end")
	case c == 6:
		g.b.WriteString("for w in string.gmatch(")
		g.atom()
		g.b.WriteString(", " + g.pick(luaPatterns))
		g.b.WriteString(") do local r = w end")
	default:
		g.b.WriteString("local r = ")
		g.expr()
		g.b.WriteString(" r = ")
		g.expr()
	}
	g.b.WriteString(" end)\n")
}

// script writes a whole script: a few locals, statements, a return.
func (g *luaGen) script() string {
	for n := g.byte() % 4; n > 0; n-- {
		g.b.WriteString("local v" + strconv.Itoa(g.locals+1) + " = ")
		g.expr()
		g.b.WriteString("\n")
		g.locals++
	}
	for n := 1 + g.byte()%8; n > 0; n-- {
		g.stmt(0)
	}
	g.b.WriteString("return ")
	g.expr()
	return g.b.String()
}

// sandboxState is what no script may change: each global's name and
// value (tables and functions by identity), the same for each library
// table's contents (through its proxy), the proxies' own contents and
// metatables, and the strings' metatable.
func sandboxState(vm *VM) map[string]lua.LValue {
	m := map[string]lua.LValue{}
	dump := func(prefix string, t *lua.LTable) {
		t.ForEach(func(k, v lua.LValue) { m[prefix+k.String()] = v })
		if mt, ok := vm.L.GetMetatable(t).(*lua.LTable); ok {
			m[prefix+"<meta>"] = mt
			mt.ForEach(func(k, v lua.LValue) { m[prefix+"<meta>."+k.String()] = v })
		}
	}
	vm.globals.ForEach(func(k, v lua.LValue) {
		name := k.String()
		if name == "KEYS" || name == "ARGV" {
			return // each run's own
		}
		m["_G."+name] = v
		if t, ok := v.(*lua.LTable); ok && name != "_G" {
			m["readonly "+name] = lua.LBool(vm.readonly[t])
			dump(name+".", vm.seeThrough(t))
			dump("proxy "+name+" ", t)
		}
	})
	dump("env ", vm.env)
	if sm, ok := vm.L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		dump("string-meta ", sm)
	}
	return m
}

// stateDiff lists what differs between two sandbox states, "" if nothing.
func stateDiff(a, b map[string]lua.LValue) string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "- "+k)
		} else if w != v {
			out = append(out, fmt.Sprintf("~ %s: %v -> %v", k, v, w))
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("+ %s = %v", k, w))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// referenceScript touches every library; its reply must never change.
const referenceScript = `return {string.upper("ab"), table.concat({1, 2}, "-"), cjson.encode({1, "x"}),
	bit.band(7, 3), math.floor(2.5), redis.call("GET", "k"), type(_G), #KEYS, ARGV[1],
	string.format("%5.1f", 3.14159), ("x"):rep(3), cmsgpack.unpack(cmsgpack.pack(5)),
	struct.unpack(">i2", "\0\7"), redis.sha1hex("a"), tostring(cjson.decode("[1]")[1]),
	pcall(function() x = 1 end), type(string.gsub), select("#", unpack({1, 2, 3}))}`

func FuzzLuaSandbox(f *testing.F) {
	for _, s := range []string{"", "\x03\x05\x01\x02", "\x01\x03\x03\x03\x03\x03\x03\x03", "\x02\x13\x00\x0d\x0a\x0b\x0c",
		"\x00\x07\x04\x07\x03\x10\x05\x00\x03\x2a", "\x03\x0f\x04\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e",
		"\x00\x08\x05\x03\x06\x01\x01\x03\x03\x05\x07\x09", "\x01\x0a\x03\x22\x0c\x01\x0b\x0c\x0d"} {
		f.Add([]byte(s))
	}
	for i := range escapes {
		f.Add([]byte{0, 1, 3, byte(i)})
	}
	e := NewEngine()
	h := &fakeHost{replies: map[string]string{
		"get@2": "$1\r\nv\r\n", "get@3": "$1\r\nv\r\n", "set@2": "+OK\r\n", "set@3": "+OK\r\n",
		"incr@2": ":1\r\n", "incr@3": ":1\r\n", "ping@2": "+PONG\r\n", "ping@3": "+PONG\r\n",
		"hgetall@2": "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "hgetall@3": "%1\r\n$1\r\na\r\n$1\r\nb\r\n",
		"zscore@2": "$3\r\n1.5\r\n", "zscore@3": ",1.5\r\n", "exists@2": ":0\r\n", "exists@3": ":0\r\n",
	}}
	run := func(t *testing.T, body string) (string, time.Duration) {
		s, msg := e.Cache.Load([]byte(body))
		if s == nil {
			return "-" + msg, 0
		}
		w := &respWriter{proto: 2}
		killer := time.AfterFunc(5*time.Second, func() { e.Kill(true) })
		start := time.Now()
		e.RunScript(s, &Run{Host: h, Keys: [][]byte{[]byte("k")}, Args: [][]byte{[]byte("a")},
			MaxString: 4096, MemoryLimit: 64 << 20}, w, nil)
		killer.Stop()
		h.calls, h.logs = h.calls[:0], h.logs[:0]
		return w.b.String(), time.Since(start)
	}
	want, _ := run(nil, referenceScript)
	if !strings.HasPrefix(want, "*18\r\n") {
		f.Fatalf("reference script: %q", want)
	}
	base := sandboxState(e.evalVM)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 512 {
			return
		}
		g := &luaGen{in: in}
		body := g.script()
		if _, took := run(t, body); took > 4*time.Second {
			t.Fatalf("script ran %v:\n%s", took, body)
		}
		if d := stateDiff(base, sandboxState(e.evalVM)); d != "" {
			t.Fatalf("script changed the sandbox:\n%s\n%s", body, d)
		}
		if got, _ := run(t, referenceScript); got != want {
			t.Fatalf("after\n%s\nthe reference script replies %q, want %q", body, got, want)
		}
		e.Cache.Flush() // the cache of scripts is not what this tests; keep it small
	})
}
