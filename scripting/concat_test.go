package scripting

import (
	"math"
	"runtime"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// TestConcat: `..` as Lua 5.1 does it: numbers as "%.14g", strings and
// numbers joined, __concat called pairwise from the right, errors that
// name the operand's variable, on the line of the chain's last operand.
// Replies captured from redis-server 7.0.15.
func TestConcat(t *testing.T) {
	runEvalCases(t, []evalCase{
		{body: "return 1 .. 2", want: "$2\r\n12\r\n"},
		{body: "return 1.5 .. '|' .. 1e100 .. '|' .. 2^53 .. '|' .. 1/0 .. '|' .. -1/0 .. '|' .. 0.1 + 0.2", want: "$42\r\n1.5|1e+100|9.007199254741e+15|inf|-inf|0.3\r\n"},
		{body: "return 10 / 4 .. '|' .. -2 .. '|' .. 1e15 .. '|' .. 1e16 .. '|' .. 2^63", want: "$38\r\n2.5|-2|1e+15|1e+16|9.2233720368548e+18\r\n"},
		{body: "return {type(1 .. 2), 1 .. 2 == '12', 'a' .. 'b' < 'a' .. 'c'}", want: "*3\r\n$6\r\nstring\r\n:1\r\n:1\r\n"},
		{body: "local s = 'x' return s .. s .. s", want: "$3\r\nxxx\r\n"},
		{body: "local t = {['a' .. 'b'] = 'c' .. 'd', 'e' .. 'f'} return {t.ab, t[1]}", want: "*2\r\n$2\r\ncd\r\n$2\r\nef\r\n"},
		{body: "return {('a' .. 'b'):upper(), #('a' .. 'bc'), string.rep('x' .. 'y', 2) .. '!'}", want: "*3\r\n$2\r\nAB\r\n:3\r\n$5\r\nxyxy!\r\n"},
		{body: "local function f(...) return select('#', ...) end return f('a' .. 'b', 'c' .. 'd')", want: ":2\r\n"},
		{body: "local function f() return 'a', 'b', 'c' end return {'x' .. f(), f() .. 'x'}", want: "*2\r\n$2\r\nxa\r\n$2\r\nax\r\n"},
		{body: "local function f(...) return {'x' .. ..., select('#', ... .. 'x')} end return f('a', 'b')", want: "*2\r\n$2\r\nxa\r\n:1\r\n"},
		{body: "local t = {} for i = 1, 3 do t[i] = 'k' .. i .. (i == 2 and '!' or '') end return t", want: "*3\r\n$2\r\nk1\r\n$3\r\nk2!\r\n$2\r\nk3\r\n"},
		{body: "local function r(n) if n == 0 then return '' end return n .. r(n - 1) end return r(5)", want: "$5\r\n54321\r\n"},
		{body: "local t = {n = 'N'} function t:m(s) return self.n .. s end return t:m('x' .. 'y')", want: "$3\r\nNxy\r\n"},
		{body: "return (loadstring(\"return 1 .. 2 .. 'x'\"))()", want: "$3\r\n12x\r\n"},
		{body: "local log = {} local mt = {} mt.__concat = function(a, b) local sa = type(a) == 'table' and a.n or a local sb = type(b) == 'table' and b.n or b log[#log+1] = sa .. '+' .. sb return setmetatable({n = '(' .. sa .. sb .. ')'}, mt) end local function o(n) return setmetatable({n = n}, mt) end local r = 'a' .. o('B') .. 'c' .. 'd' .. o('E') .. 1 .. 2 return {r.n, unpack(log)}", want: "*6\r\n$17\r\n(a(B(c(d(E12)))))\r\n$4\r\nE+12\r\n$7\r\nd+(E12)\r\n$10\r\nc+(d(E12))\r\n$13\r\nB+(c(d(E12)))\r\n$16\r\na+(B(c(d(E12))))\r\n"},
		{body: "local log = {} local mt = {__concat = function(a, b) log[#log+1] = type(a) .. ':' .. type(b) return 'S' end} local o = setmetatable({}, mt) return {o .. 'x' .. o .. 'y' .. o, unpack(log)}", want: "*4\r\n$1\r\nS\r\n$12\r\nstring:table\r\n$12\r\ntable:string\r\n$12\r\ntable:string\r\n"},
		{body: "local mt = {__concat = function(a, b) return type(a) .. type(b) end} local t = setmetatable({}, mt) return {t .. 'x', 'x' .. t, 1 .. t, t .. 1, t .. t}", want: "*5\r\n$11\r\ntablestring\r\n$11\r\nstringtable\r\n$11\r\nnumbertable\r\n$11\r\ntablenumber\r\n$10\r\ntabletable\r\n"},
		{body: "local mt = {__concat = function(a, b) return 7 end} local o = setmetatable({}, mt) return 'x' .. o .. 'y'", want: "$2\r\nx7\r\n"},
		{body: "local mt = {__concat = setmetatable({}, {__call = function() return 'called' end})} local o = setmetatable({}, mt) return 'x' .. o", want: "$6\r\ncalled\r\n"},
		{body: "local mt = {__concat = 5} local o = setmetatable({}, mt) return 'x' .. o", want: "-ERR user_script:1: attempt to call a number value script: <sha>, on @user_script:1.\r\n"},
		{body: "local mt = {__concat = function(a, b) error('in mm') end} local o = setmetatable({}, mt) return 'x' .. o", want: "-ERR user_script:1: in mm script: <sha>, on @user_script:1.\r\n"},
		{body: "local mt = {__concat = function(a, b) return nil end} local o = setmetatable({}, mt) return 'x' .. o .. 'y'", want: "-ERR user_script:1: attempt to concatenate local 'o' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local x; return 'a' .. x", want: "-ERR user_script:1: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local x = 1; local y; return x .. y", want: "-ERR user_script:1: attempt to concatenate local 'y' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "return 'a' .. {}", want: "-ERR user_script:1: attempt to concatenate a table value script: <sha>, on @user_script:1.\r\n"},
		{body: "return 1 .. true", want: "-ERR user_script:1: attempt to concatenate a boolean value script: <sha>, on @user_script:1.\r\n"},
		{body: "return 'a' .. nil", want: "-ERR user_script:1: attempt to concatenate a nil value script: <sha>, on @user_script:1.\r\n"},
		{body: "local t = {} return 'a' .. t.y", want: "-ERR user_script:1: attempt to concatenate field 'y' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local t = {} return t['y'] .. 'a'", want: "-ERR user_script:1: attempt to concatenate field 'y' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local t = {} return 'a' .. t[1]", want: "-ERR user_script:1: attempt to concatenate field '?' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local t = {a = {}} return 'x' .. t.a.b", want: "-ERR user_script:1: attempt to concatenate field 'b' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "return 'a' .. redis", want: "-ERR user_script:1: attempt to concatenate global 'redis' (a table value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local x; local function f() return 'a' .. x end return f()", want: "-ERR user_script:1: attempt to concatenate upvalue 'x' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local x; return 'a' .. 'b' .. x", want: "-ERR user_script:1: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local x; return x .. 'a' .. 'b'", want: "-ERR user_script:1: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "local x = 1 do local x return 'a' .. x end", want: "-ERR user_script:1: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "for k, v in pairs({a = 1}) do return k .. v .. nil end", want: "-ERR user_script:1: attempt to concatenate a nil value script: <sha>, on @user_script:1.\r\n"},
		{body: "local t = {} function t:m() return self .. 'm' end return t:m()", want: "-ERR user_script:1: attempt to concatenate local 'self' (a table value) script: <sha>, on @user_script:1.\r\n"},
		{body: "return 'x' .. KEYS[1]", want: "-ERR user_script:1: attempt to concatenate field '?' (a nil value) script: <sha>, on @user_script:1.\r\n"},
		{body: "return 'x' .. cjson.null", want: "-ERR user_script:1: attempt to concatenate field 'null' (a userdata value) script: <sha>, on @user_script:1.\r\n"},
		{body: "return 'x' .. redis.call", want: "-ERR user_script:1: attempt to concatenate field 'call' (a function value) script: <sha>, on @user_script:1.\r\n"},
		{body: "return {pcall(function() local z return 'a' .. z end)}", want: "*2\r\n$-1\r\n$61\r\nuser_script:1: attempt to concatenate local 'z' (a nil value)\r\n"},
		{body: "local x\nreturn 'a' ..\n  x", want: "-ERR user_script:3: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:3.\r\n"},
		{body: "local x\nreturn x ..\n  'a'", want: "-ERR user_script:3: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:3.\r\n"},
		{body: "local x\nreturn 'a'\n  .. x\n  .. 'b'\n  .. 'c'", want: "-ERR user_script:5: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:5.\r\n"},
		{body: "local x\nreturn 'a' .. 'b' .. 'c'\n  .. 'd' .. x", want: "-ERR user_script:3: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:3.\r\n"},
		{body: "local x\nlocal y = x ..\n'a'\nreturn y", want: "-ERR user_script:3: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:3.\r\n"},
		{body: "local x\nreturn ('a' ..\n x) .. 'b'", want: "-ERR user_script:3: attempt to concatenate local 'x' (a nil value) script: <sha>, on @user_script:3.\r\n"},
		{body: "local t = {}\nreturn 'a' .. t\n  .b .. 'c'", want: "-ERR user_script:3: attempt to concatenate field 'b' (a nil value) script: <sha>, on @user_script:3.\r\n"},
		{body: "local function f()\n  local q\n  return 'in f' .. q\nend\nreturn f()", want: "-ERR user_script:3: attempt to concatenate local 'q' (a nil value) script: <sha>, on @user_script:3.\r\n"},
	})
}

// TestConcatMemoryBound: a chain of large operands is refused before its
// result is allocated (gopher-lua's OP_CONCAT built 1 GB here, before
// the watchdog could look).
func TestConcatMemoryBound(t *testing.T) {
	const maxString, memory = 64 << 20, 512 << 20
	e := NewEngine()
	body := "local s = string.rep('x', 2^26) return #(s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s)"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := runLimited(t, e, body, maxString, memory)
	runtime.ReadMemStats(&after)
	want := "-ERR user_script:1: " + errStringTooLarge + " script: " + SHA1Hex([]byte(body)) + ", on @user_script:1.\r\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// The script allocates its 64 MB operand; 1 GB would be the result.
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 3*maxString {
		t.Errorf("allocated %d MB running it", grown>>20)
	}
}

// TestConcatCompiledAway: no OP_CONCAT is left in any function of a chunk
// that uses `..` everywhere an expression may stand.
func TestConcatCompiledAway(t *testing.T) {
	src := `local a, b = 'a' .. 1, 2 .. 'b'
local t = {['k' .. a] = a .. b, a .. b, f = function(x, ...) return x .. ... end}
function t:m(y) return self.f(y .. 'm', y) .. a end
local function g() return (a .. b) .. (b .. a) end
for i = 1, #(a .. b) do a = a .. i end
for k, v in pairs({[a .. b] = 1}) do b = k .. v end
while a .. '' == '' do end
repeat local z = a .. b until z .. '' ~= ''
if a .. b == '' then elseif g() .. '' then else end
print(a .. b, not (a .. b), -(1 .. 2), #(a .. b), a .. b < b .. a, a .. b or b .. a)
return t[a .. b] .. t:m(a .. b)`
	proto, msg := compile(src, "user_script")
	if msg != "" {
		t.Fatal(msg)
	}
	var check func(p *lua.FunctionProto)
	check = func(p *lua.FunctionProto) {
		for pc, inst := range p.Code {
			if int(inst>>26) == lua.OP_CONCAT {
				t.Errorf("OP_CONCAT left at %s:%d", p.SourceName, p.DbgSourcePositions[pc])
			}
		}
		for _, sub := range p.FunctionPrototypes {
			check(sub)
		}
	}
	check(proto)
}

// TestConcatFunctions: `..` in a FUNCTION library's body, which sees only
// the loading API, and in its functions, with Lua 5.1's errors (replies
// captured from redis-server 7.0.15).
func TestConcatFunctions(t *testing.T) {
	e := NewEngine()
	h := &fakeHost{}
	code := "#!lua name=lib\nlocal pre = 'p' .. 1\nredis.register_function('f' .. 1, function(keys, args) return pre .. ':' .. args[1] end)\n" +
		"redis.register_function('g', function(keys, args)\n  local x\n  return 'a' ..\n   x\nend)"
	if _, msg := e.Functions.Load([]byte(code), false, h); msg != "" {
		t.Fatal(msg)
	}
	for _, c := range []struct{ name, want string }{
		{"f1", "$5\r\np1:zz\r\n"},
		{"g", "-ERR user_function:7: attempt to concatenate local 'x' (a nil value) script: g, on @user_function:7.\r\n"},
	} {
		w := &respWriter{proto: 2}
		e.RunFunction(e.Functions.Get(c.name), &Run{Host: h, Args: [][]byte{[]byte("zz")}}, w, nil)
		if w.b.String() != c.want {
			t.Errorf("FCALL %s: got %q, want %q", c.name, w.b.String(), c.want)
		}
	}
	_, msg := e.Functions.Load([]byte("#!lua name=lib2\nlocal y\nlocal pre = 'p' .. y"), false, h)
	if want := "Error registering functions: ERR user_function:3: attempt to concatenate local 'y' (a nil value)"; msg != want {
		t.Errorf("load: got %q, want %q", msg, want)
	}
}

// BenchmarkConcat: EVALs whose work is `..`, with chains compiled into
// concatBuiltin calls (call) and as gopher-lua compiles them (opconcat).
func BenchmarkConcat(b *testing.B) {
	for _, c := range []struct{ name, body, want string }{
		{"keys", `local n = 0
for i = 1, 1000 do
  local k = 'user:' .. i .. ':profile'
  local v = k .. '=' .. 'value' .. k .. ';'
  n = n + #v
end
return n`, ":38786\r\n"},
		{"strings", `local a, b, n = 'abc', 'defgh', 0
for i = 1, 1000 do
  local x = a .. b
  n = n + #(x .. a .. b .. x)
end
return n`, ":24000\r\n"},
	} {
		rewritten, msg := compile(c.body, "user_script")
		if msg != "" {
			b.Fatal(msg)
		}
		chunk, err := parse.Parse(strings.NewReader(c.body), "user_script")
		if err != nil {
			b.Fatal(err)
		}
		plain, err := lua.Compile(chunk, "user_script")
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range []struct {
			name  string
			proto *lua.FunctionProto
		}{{"call", rewritten}, {"opconcat", plain}} {
			b.Run(c.name+"/"+p.name, func(b *testing.B) {
				e := NewEngine()
				s := &Script{SHA: SHA1Hex([]byte(c.body)), Body: c.body, proto: p.proto}
				b.ReportAllocs()
				for b.Loop() {
					w := &respWriter{proto: 2}
					e.RunScript(s, &Run{Host: &fakeHost{}}, w, nil)
					if w.b.String() != c.want {
						b.Fatalf("got %q", w.b.String())
					}
				}
			})
		}
	}
}

// TestAppendNumber: appendNumber is formatNumber, integers' shortcut
// included.
func TestAppendNumber(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 42, 1e13, 99999999999999, 1e14 - 1, 1e14, -1e14, 123456789012345,
		1e15, 2.5, -0.1, 1e100, 2e-300, math.MaxInt64, math.MinInt64, math.Inf(1), math.Inf(-1), math.NaN(), 1 << 53} {
		if got, want := string(appendNumber(nil, f)), formatNumber(f); got != want {
			t.Errorf("%v: %q, want %q", f, got, want)
		}
	}
}

// TestConcatBuiltinReadable: scripts can read the builtin through _G (Redis
// has no such global) but not replace it, and calling it with any
// arguments is harmless.
func TestConcatBuiltinReadable(t *testing.T) {
	runEvalCases(t, []evalCase{
		{body: "return {_G['concat operator'](), _G['concat operator']('', 'a', 1), type(_G['concat operator'](1, {}))}", want: "*3\r\n$0\r\n\r\n$2\r\na1\r\n$5\r\ntable\r\n"},
		{body: "_G['concat operator'] = nil", want: "-ERR user_script:1: Attempt to modify a readonly table script: <sha>, on @user_script:1.\r\n"},
	})
}
