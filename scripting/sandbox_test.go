package scripting

import (
	"strings"
	"testing"
)

// The cases of redis 7.0.15's tests/unit/scripting.tcl "Try trick global
// protection 1–4", "Try trick readonly table on … table" and "Test … are
// not available", and the metatable tricks around them; replies captured
// from redis-server 7.0.15.
func TestSandboxTricks(t *testing.T) {
	const ro = "-ERR user_script:1: Attempt to modify a readonly table script: <sha>, on @user_script:1.\r\n"
	const roC = "-ERR Attempt to modify a readonly table script: <sha>, on @user_script:1.\r\n"
	missing := func(name string) string {
		return "-ERR user_script:1: Script attempted to access nonexistent global variable '" + name + "' script: <sha>, on @user_script:1.\r\n"
	}
	runEvalCases(t, []evalCase{
		{body: "setmetatable(_G, {})", want: roC},
		{body: "local g = getmetatable(_G)\ng.__index = {}", want: strings.ReplaceAll(ro, ":1", ":2")},
		{body: "local g = getmetatable(_G); g.__index = {}", want: ro},
		{body: "redis = function() return 1 end", want: ro},
		{body: "_G = {}", want: ro},
		{body: "redis.call = function() return 1 end", want: ro},
		{body: "cjson.encode = function() return 1 end", want: ro},
		{body: "cmsgpack.pack = function() return 1 end", want: ro},
		{body: "bit.lshift = function() return 1 end", want: ro},
		{body: "struct.pack = 1", want: ro},
		{body: "math.floor = 1", want: ro},
		{body: "table.insert = 1", want: ro},
		{body: "string.rep = 1", want: ro},
		{body: "coroutine.wrap = 1", want: ro},
		{body: "loadfile('some file')", want: missing("loadfile")},
		{body: "dofile('some file')", want: missing("dofile")},
		{body: "print('some data')", want: missing("print")},
		{body: "return type(getmetatable(_G))", want: "$5\r\ntable\r\n"},
		{body: "local g = getmetatable(_G); return type(g.__index)", want: "$8\r\nfunction\r\n"},
		{body: "local g = getmetatable(_G); return tostring(g.__newindex)", want: "$3\r\nnil\r\n"},
		{body: "return type(getmetatable(getmetatable(_G)))", want: "$3\r\nnil\r\n"},
		{body: "getmetatable(_G).__metatable = 1", want: ro},
		{body: "setmetatable(getmetatable(_G), nil)", want: roC},
		{body: "rawset(getmetatable(_G), '__index', {})", want: roC},
		{body: "return tostring(getmetatable('').__index == string)", want: "$4\r\ntrue\r\n"},
		{body: "getmetatable('').__index = {} return 1", want: ro},
		{body: "getmetatable('').__index.upper = nil", want: ro},
		{body: "getmetatable('').foo = 1", want: ro},
		{body: "rawset(getmetatable(''), '__index', {})", want: roC},
		{body: "setmetatable(getmetatable(''), {})", want: roC},
		{body: "return {type(getmetatable(string)), type(getmetatable(redis)), type(getmetatable(cjson))}", want: "*3\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
		{body: "return getmetatable(cjson.null)", want: "$-1\r\n"},
		{body: "table.insert(_G, 1)", want: roC},
		{body: "table.insert(redis, 'x')", want: roC},
		{body: "table.remove(string)", want: "$-1\r\n"},
		{body: "table.sort(redis)", want: "$-1\r\n"},
		{body: "loadstring('redis = 1')() return type(redis)", want: "-ERR [string \"redis = 1\"]:1: Attempt to modify a readonly table script: <sha>, on @[string \"redis = 1\"]:1.\r\n"},
		{body: "return loadstring('return 1')()", want: ":1\r\n"},
		{body: "return type(rawget(_G, 'redis'))", want: "$5\r\ntable\r\n"},
		{body: "return tostring(next(redis) ~= nil)", want: "$4\r\ntrue\r\n"},
		{body: "return ('x'):upper()", want: "$1\r\nX\r\n"},
	})
}

// TestSandboxAcrossScripts runs hostile scripts and then ordinary ones in
// one engine: whatever the first tried, the second sees the sandbox as
// it was (one engine is every client's Lua state).
func TestSandboxAcrossScripts(t *testing.T) {
	hostile := []string{
		"local g = getmetatable(_G); g.__index = {}",
		"local g = getmetatable(_G); rawset(g, '__index', {})",
		"local g = getmetatable(_G); g.__newindex = function() end",
		"getmetatable('').__index = {}",
		"getmetatable('').__index.upper = function() return 'forged' end",
		"rawget(_G, 'redis').call = function() return 'forged' end",
		"for k, v in pairs(_G) do pcall(function() _G[k] = nil end) end",
		"for k, v in pairs(redis) do pcall(rawset, redis, k, nil) end",
		"loadstring('redis = nil')()",
		"pcall(loadstring('string.upper = nil'))",
		"load(function() return nil end)",
		"table.insert(_G, function() end)",
		"local t = getmetatable(_G).__index; pcall(setmetatable, _G, nil)",
		"coroutine.wrap(function() redis = nil end)()",
		"KEYS.x = 1; ARGV.y = 1",
	}
	normal := []evalCase{
		{body: "return redis.call('ping')", want: "+PONG\r\n"},
		{body: "return ('x'):upper() .. string.upper('y')", want: "$2\r\nXY\r\n"},
		{body: "return type(cjson.encode)", want: "$8\r\nfunction\r\n"},
		{body: "return x", want: "-ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: <sha>, on @user_script:1.\r\n"},
		{body: "return {#KEYS, #ARGV, tostring(rawget(KEYS, 'x'))}", want: "*3\r\n:0\r\n:0\r\n$3\r\nnil\r\n"},
		{body: "return rawget(_G, 1)", want: "$-1\r\n"},
	}
	e := NewEngine()
	h := &fakeHost{replies: map[string]string{"ping": "+PONG\r\n"}}
	for _, bad := range hostile {
		evalOn(t, e, h, 2, bad, nil, nil)
		for _, c := range normal {
			want := strings.ReplaceAll(c.want, "<sha>", SHA1Hex([]byte(c.body)))
			if got := evalOn(t, e, h, 2, c.body, nil, nil); got != want {
				t.Errorf("after %q, %s:\n got %q\nwant %q", bad, c.body, got, want)
			}
		}
	}
}

// TestFunctionSandboxAcrossLibraries checks the FUNCTION Lua state the
// same way: a function that tries to break out, then another library's.
func TestFunctionSandboxAcrossLibraries(t *testing.T) {
	e := NewEngine()
	h := &fakeHost{replies: map[string]string{"ping": "+PONG\r\n"}}
	fcall := func(name string) string {
		f := e.Functions.Get(name)
		if f == nil {
			t.Fatalf("no function %s", name)
		}
		w := &respWriter{proto: 2}
		e.RunFunction(f, &Run{Host: h}, w, nil)
		return w.b.String()
	}
	load := func(code string) {
		if _, msg := e.Functions.Load([]byte(code), false, h); msg != "" {
			t.Fatalf("load: %s", msg)
		}
	}
	load("#!lua name=evil\n" +
		"redis.register_function('g', function() local g = getmetatable(_G); g.__index = {} end)\n" +
		"redis.register_function('s', function() getmetatable('').__index = {} end)\n" +
		"redis.register_function('l', function() loadstring('redis = nil')() end)\n" +
		"redis.register_function('r', function() rawget(_G, 'redis').call = nil end)\n")
	load("#!lua name=good\nredis.register_function('ok', function() return {redis.call('ping'), ('x'):upper()} end)\n")
	wantRO := "-ERR user_function:2: Attempt to modify a readonly table script: g, on @user_function:2.\r\n"
	if got := fcall("g"); got != wantRO {
		t.Errorf("g: got %q want %q", got, wantRO)
	}
	for _, name := range []string{"s", "l", "r"} {
		if got := fcall(name); !strings.Contains(got, "Attempt to modify a readonly table") {
			t.Errorf("%s: got %q", name, got)
		}
	}
	if got, want := fcall("ok"), "*2\r\n+PONG\r\n$1\r\nX\r\n"; got != want {
		t.Errorf("ok after the hostile functions: got %q want %q", got, want)
	}
	// A library's body may not reach the globals either.
	_, msg := e.Functions.Load([]byte("#!lua name=body\nlocal g = getmetatable(_G)\n"), false, h)
	if !strings.Contains(msg, "nonexistent global variable 'getmetatable'") {
		t.Errorf("load body: %q", msg)
	}
}
