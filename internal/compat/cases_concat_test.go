package compat

import "testing"

// The `..` operator through EVAL and FCALL, compared byte for byte with
// redis-server's Lua 5.1: numbers as "%.14g", __concat called pairwise
// from the right, and the errors, which name the operand's variable and
// give the line of the chain's last operand (Tandem compiles each chain
// into a call, scripting/concat.go).

func TestRedisConcat(t *testing.T) { runRedisCases(t, concatCases) }

var concatCases = []redisCase{
	{name: "concat numbers and strings", cmds: cmds(
		eval("return 1 .. 2", "0"),
		eval("return 1.5 .. '|' .. 1e100 .. '|' .. 2^53 .. '|' .. 1/0 .. '|' .. -1/0 .. '|' .. 0.1 + 0.2", "0"),
		eval("return 10 / 4 .. '|' .. -2 .. '|' .. 1e15 .. '|' .. 1e16 .. '|' .. 2^63", "0"),
		eval("return {type(1 .. 2), 1 .. 2 == '12', 'a' .. 'b' < 'a' .. 'c'}", "0"),
		eval("local s = 'x' return s .. s .. s", "0"),
		eval("local t = {['a' .. 'b'] = 'c' .. 'd', 'e' .. 'f'} return {t.ab, t[1]}", "0"),
		eval("return {('a' .. 'b'):upper(), #('a' .. 'bc'), string.rep('x' .. 'y', 2) .. '!'}", "0"),
		eval("local function f(...) return select('#', ...) end return f('a' .. 'b', 'c' .. 'd')", "0"),
		eval("local function f() return 'a', 'b', 'c' end return {'x' .. f(), f() .. 'x'}", "0"),
		eval("local function f(...) return {'x' .. ..., select('#', ... .. 'x')} end return f('a', 'b')", "0"),
		eval("local t = {} for i = 1, 3 do t[i] = 'k' .. i .. (i == 2 and '!' or '') end return t", "0"),
		eval("local function r(n) if n == 0 then return '' end return n .. r(n - 1) end return r(5)", "0"),
		eval("local t = {n = 'N'} function t:m(s) return self.n .. s end return t:m('x' .. 'y')", "0"),
		eval("return (loadstring(\"return 1 .. 2 .. 'x'\"))()", "0"),
		eval("return #('x' .. string.rep('y', 1000) .. 'z')", "0"),
		eval("local a = 'x' return #(a .. a .. a .. a .. a .. a .. a .. a)", "0"),
		eval("return 'x' .. -(-3) .. #'abc' .. (not nil and 1 or 2)", "0"),
	)},
	{name: "concat metamethods", cmds: cmds(
		eval("local log = {} local mt = {} mt.__concat = function(a, b) local sa = type(a) == 'table' and a.n or a local sb = type(b) == 'table' and b.n or b log[#log+1] = sa .. '+' .. sb return setmetatable({n = '(' .. sa .. sb .. ')'}, mt) end local function o(n) return setmetatable({n = n}, mt) end local r = 'a' .. o('B') .. 'c' .. 'd' .. o('E') .. 1 .. 2 return {r.n, unpack(log)}", "0"),
		eval("local log = {} local mt = {__concat = function(a, b) log[#log+1] = type(a) .. ':' .. type(b) return 'S' end} local o = setmetatable({}, mt) return {o .. 'x' .. o .. 'y' .. o, unpack(log)}", "0"),
		eval("local mt = {__concat = function(a, b) return type(a) .. type(b) end} local t = setmetatable({}, mt) return {t .. 'x', 'x' .. t, 1 .. t, t .. 1, t .. t}", "0"),
		eval("local mt = {__concat = function(a, b) return 7 end} local o = setmetatable({}, mt) return 'x' .. o .. 'y'", "0"),
		eval("local mt = {__concat = setmetatable({}, {__call = function() return 'called' end})} local o = setmetatable({}, mt) return 'x' .. o", "0"),
		eval("local mt = {__concat = 5} local o = setmetatable({}, mt) return 'x' .. o", "0"),
		eval("local mt = {__concat = function(a, b) error('in mm') end} local o = setmetatable({}, mt) return 'x' .. o", "0"),
		eval("local mt = {__concat = function(a, b) return nil end} local o = setmetatable({}, mt) return 'x' .. o .. 'y'", "0"),
	)},
	{name: "concat errors", cmds: cmds(
		eval("local x; return 'a' .. x", "0"),
		eval("local x = 1; local y; return x .. y", "0"),
		eval("return 'a' .. {}", "0"),
		eval("return 1 .. true", "0"),
		eval("return 'a' .. nil", "0"),
		eval("local t = {} return 'a' .. t.y", "0"),
		eval("local t = {} return t['y'] .. 'a'", "0"),
		eval("local t = {} return 'a' .. t[1]", "0"),
		eval("local t = {a = {}} return 'x' .. t.a.b", "0"),
		eval("return 'a' .. redis", "0"),
		eval("local x; local function f() return 'a' .. x end return f()", "0"),
		eval("local x; return 'a' .. 'b' .. x", "0"),
		eval("local x; return x .. 'a' .. 'b'", "0"),
		eval("local x = 1 do local x return 'a' .. x end", "0"),
		eval("for k, v in pairs({a = 1}) do return k .. v .. nil end", "0"),
		eval("local t = {} function t:m() return self .. 'm' end return t:m()", "0"),
		eval("return 'x' .. KEYS[1]", "0"),
		eval("return 'x' .. cjson.null", "0"),
		eval("return 'x' .. redis.call", "0"),
		eval("return {pcall(function() local z return 'a' .. z end)}", "0"),
	)},
	{name: "concat error lines", cmds: cmds(
		eval("local x\nreturn 'a' ..\n  x", "0"),
		eval("local x\nreturn x ..\n  'a'", "0"),
		eval("local x\nreturn 'a'\n  .. x\n  .. 'b'\n  .. 'c'", "0"),
		eval("local x\nreturn 'a' .. 'b' .. 'c'\n  .. 'd' .. x", "0"),
		eval("local x\nlocal y = x ..\n'a'\nreturn y", "0"),
		eval("local x\nreturn ('a' ..\n x) .. 'b'", "0"),
		eval("local t = {}\nreturn 'a' .. t\n  .b .. 'c'", "0"),
		eval("local function f()\n  local q\n  return 'in f' .. q\nend\nreturn f()", "0"),
		eval("local t = {}\nreturn 'a' .. t['b'] ..\n  'c'", "0"),
	)},
	{name: "concat in functions", cmds: cmds(
		cmd("FUNCTION", "FLUSH"),
		cmd("FUNCTION", "LOAD", "#!lua name=catlib\nlocal pre = 'p' .. 1\nredis.register_function('f' .. 1, function(keys, args) return pre .. ':' .. args[1] end)\nredis.register_function('g', function(keys, args)\n  local x\n  return 'a' ..\n   x\nend)"),
		cmd("FCALL", "f1", "0", "zz"),
		cmd("FCALL", "g", "0"),
		cmd("FUNCTION", "LOAD", "#!lua name=catlib2\nlocal y\nlocal pre = 'p' .. y"),
		cmd("FUNCTION", "LOAD", "#!lua name=catlib3\nlocal pre = 'p' .. redis"),
		cmd("FUNCTION", "FLUSH"),
	)},
}
