package compat

import "testing"

// Lua scripting: EVAL, EVALSHA, FCALL and their management commands.
// Scripts and functions outlive FLUSHALL, so cases that depend on the
// script cache start with SCRIPT FLUSH, function cases with FUNCTION
// FLUSH, and math.random cases with math.randomseed (the generator is
// one per server).
//
// Not compared: replies whose order comes from Lua's table traversal
// (maps and objects of more than one key: Redis follows Lua 5.1's hash
// order, Tandem gopher-lua's insertion order) and Lua's own error texts
// (compile errors and runtime errors such as "attempt to call a nil
// value", which gopher-lua words differently).

func TestRedisScripting(t *testing.T)  { runRedisCases(t, scriptingCases) }
func TestRedisScriptLibs(t *testing.T) { runRedisCases(t, scriptLibCases) }
func TestRedisFunctions(t *testing.T)  { runRedisCases(t, functionCases) }

func eval(body string, rest ...string) string {
	return cmd(append([]string{"EVAL", body}, rest...)...)
}

var scriptingCases = []redisCase{
	{name: "eval return types", cmds: cmds(
		eval("return 1", "0"),
		eval("return 'str'", "0"),
		eval("return 3.99", "0"),
		eval("return -3.99", "0"),
		eval("return true", "0"),
		eval("return false", "0"),
		eval("return nil", "0"),
		eval("return {1,2,3,'foo',nil,'bar'}", "0"),
		eval("return {true,false,1.5,{1,{2}}}", "0"),
		eval("return 1/0", "0"),
		eval("return {err='x y'}", "0"),
		eval("return {ok='x y'}", "0"),
		eval("return {err=''}", "0"),
	)},
	{name: "eval resp3 types", cmds: cmds(
		eval("return {double=1.5}", "0"),
		eval("return {big_number='123'}", "0"),
		eval("return {verbatim_string={format='txt', string='abc'}}", "0"),
		eval("return {map={a=1}}", "0"),
		eval("return {set={a=true}}", "0"),
		eval("redis.setresp(3); return true", "0"),
		eval("redis.setresp(3); return false", "0"),
		eval("redis.setresp(3); return nil", "0"),
	)},
	{name: "eval keys and argv", cmds: cmds(
		eval("return {KEYS[1], KEYS[2], ARGV[1], #KEYS, #ARGV}", "2", "a", "b", "c", "d"),
		eval("return 1", "-1"),
		eval("return 1", "2", "a"),
		eval("return 1", "abc"),
		eval("return #KEYS", "0"),
	)},
	{name: "redis.call conversions", cmds: cmds(
		eval("redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', KEYS[1])", "1", "k", "v"),
		eval("return redis.call('get', 'nokey')", "0"),
		eval("return type(redis.call('get', 'nokey'))", "0"),
		eval("redis.setresp(3); return type(redis.call('get', 'nokey'))", "0"),
		eval("redis.call('set','n',0.1); return redis.call('get','n')", "0"),
		eval("redis.call('set','n',1e20); return redis.call('get','n')", "0"),
		eval("return redis.call('incrby','cnt',5)", "0"),
		eval("return redis.call('ping')", "0"),
		eval("local r = redis.call('ping'); return {type(r), r.ok}", "0"),
		eval("redis.call('rpush','l','a','b'); return redis.call('lrange','l',0,-1)", "0"),
		eval("redis.call('hset','h','f','1'); return redis.call('hgetall','h')", "0"),
		eval("redis.setresp(3); local r = redis.call('hgetall','h'); return {type(r.map), r.map.f}", "0"),
		eval("redis.setresp(3); return redis.call('hgetall','h')", "0"),
		eval("redis.call('sadd','s','m'); redis.setresp(3); local r = redis.call('smembers','s'); return tostring(r.set.m)", "0"),
		eval("redis.call('zadd','z','1.5','a'); redis.setresp(3); local r = redis.call('zscore','z','a'); return {type(r), r.double}", "0"),
		eval("redis.setresp(3); return redis.call('zscore','z','a')", "0"),
		eval("return redis.call('zscore','z','a')", "0"),
	)},
	{name: "redis.call errors", cmds: cmds(
		eval("return redis.call('get')", "0"),
		eval("return redis.call('nosuch')", "0"),
		eval("return redis.call('nosuch', 'a')", "0"),
		eval("redis.call('set','k','v'); return redis.call('lpush','k','x')", "0"),
		eval("return redis.pcall('lpush','k','x')", "0"),
		eval("return redis.pcall('lpush','k','x')['err']", "0"),
		eval("return redis.pcall('nosuch')", "0"),
		eval("return redis.call('eval','return 1','0')", "0"),
		eval("return redis.call('multi')", "0"),
		eval("return redis.call('blpop','l','0')", "0"),
		eval("return redis.call('config','nosub')", "0"),
		eval("return redis.call()", "0"),
		eval("return redis.call('set','k',{})", "0"),
		eval("return redis.pcall('set','k',{})", "0"),
		eval("local ok = pcall(redis.call, 'nosuch') return ok", "0"),
	)},
	{name: "script errors", cmds: cmds(
		eval("error('boom')", "0"),
		eval("error({err='MYERR custom'})", "0"),
		eval("error()", "0"),
		eval("error(12)", "0"),
		eval("return redis.error_reply('My Error')", "0"),
		eval("return redis.error_reply('-My Error')", "0"),
		eval("return redis.error_reply('nospace')", "0"),
		eval("return redis.error_reply(1)", "0"),
		eval("return redis.status_reply('FINE')", "0"),
		eval("return redis.status_reply()", "0"),
		eval("redis.setresp(4)", "0"),
		eval("return redis.log(99, 'x')", "0"),
		eval("return redis.log(1)", "0"),
		eval("return redis.set_repl(99)", "0"),
		eval("return redis.sha1hex('abc')", "0"),
		eval("return redis.sha1hex()", "0"),
	)},
	{name: "sandbox", cmds: cmds(
		eval("x = 1", "0"),
		eval("return x", "0"),
		eval("_G.x = 1", "0"),
		eval("rawset(_G, 'x', 1)", "0"),
		eval("local t = {}; setmetatable(_G, t)", "0"),
		eval("string.foo = 1", "0"),
		eval("redis.foo = 1", "0"),
		eval("function f() end", "0"),
		eval("local function f() return 2 end return f()", "0"),
		eval("return type(os)", "0"),
		eval("return type(io)", "0"),
		eval("return type(debug)", "0"),
		eval("return type(require)", "0"),
		eval("return type(loadfile)", "0"),
		eval("return type(dofile)", "0"),
		eval("return type(print)", "0"),
		eval("return {type(loadstring), type(coroutine), type(unpack), type(redis.foo)}", "0"),
		eval("return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}", "0"),
	)},
	{name: "shebang flags", cmds: cmds(
		eval("#!lua flags=no-writes\nreturn redis.call('get','k')", "0"),
		eval("#!lua flags=no-writes\nreturn redis.call('set','k','v')", "0"),
		eval("#!lua flags=bad\nreturn 1", "0"),
		eval("#!lua foo=bar\nreturn 1", "0"),
		eval("#!js\nreturn 1", "0"),
		eval("#!lua", "0"),
		eval("#!lua\nerror('x')", "0"),
		cmd("EVAL_RO", "return redis.call('set','k','v')", "0"),
		cmd("EVAL_RO", "#!lua\nreturn 1", "0"),
		cmd("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"),
		cmd("EVAL_RO", "return redis.call('get','k')", "0"),
	)},
	{name: "script cache", cmds: cmds(
		mbs("SCRIPT FLUSH"),
		cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
		cmd("SCRIPT", "LOAD", "return 1"),
		cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
		cmd("EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"),
		cmd("EVALSHA_RO", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
		cmd("EVALSHA", "abc", "0"),
		cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "x"),
		mbs("SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db ffffffffffffffffffffffffffffffffffffffff E0E1F9FABFC9D4800C877A703B823AC0578FF8DB"),
		eval("return 2", "0"),
		mbs("SCRIPT EXISTS 7f923f79fe76194c868d7e1d0820de36700eb649"),
		mbs("SCRIPT FLUSH foo", "SCRIPT FLUSH SYNC ASYNC", "SCRIPT FLUSH ASYNC", "SCRIPT FLUSH SYNC"),
		mbs("SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db"),
		cmd("SCRIPT", "LOAD", "return {"),
		// SCRIPT DEBUG is left out: Tandem has no Lua debugger, and Redis
		// refuses it in a pipeline, which two of the write modes are.
		mbs("SCRIPT KILL", "SCRIPT KILL x", "SCRIPT", "SCRIPT foo", "SCRIPT HELP"),
		mbs("SCRIPT FLUSH"),
	)},
	{name: "math random", cmds: cmds(
		eval("math.randomseed(42); return {tostring(math.random()), math.random(100), math.random(5,10)}", "0"),
		eval("return tostring(math.random())", "0"),
		eval("math.randomseed(7); return math.random(1000000)", "0"),
	)},
	// redis.acl_check_cmd answers false for what the caller's user may
	// not run (a command, a key), and raises only for an unknown command.
	{name: "acl_check_cmd", cmds: cmds(
		mbs("ACL SETUSER scriptbob reset on >123 +@scripting +set ~x*", "AUTH scriptbob 123"),
		eval("return redis.acl_check_cmd('set','xx',1)", "1", "xx"),
		eval("return redis.acl_check_cmd('hset','xx','f',1)", "1", "xx"),
		eval("return redis.acl_check_cmd('set','yy',1)", "0"),
		eval("return redis.acl_check_cmd('invalid-cmd','arg')", "0"),
		eval("return redis.acl_check_cmd()", "0"),
		mbs("AUTH default x", "ACL DELUSER scriptbob"),
	)},
	// DEBUG SET-DISABLE-DENY-SCRIPTS lets scripts call noscript commands
	// (Redis's tests run DEBUG PROTOCOL from Lua with it).
	{name: "debug set-disable-deny-scripts", cmds: cmds(
		eval("return redis.call('debug','protocol','bignum')", "0"),
		mbs("DEBUG SET-DISABLE-DENY-SCRIPTS 1"),
		eval("redis.setresp(3); return redis.call('debug','protocol','bignum')", "0"),
		eval("redis.setresp(3); return redis.call('debug','protocol','double')", "0"),
		mbs("DEBUG SET-DISABLE-DENY-SCRIPTS 0"),
		eval("return redis.call('debug','protocol','bignum')", "0"),
	)},
	// maxmemory counts the script cache, as Redis's used_memory does: an
	// empty keyspace with a cached script is over a maxmemory of 1, so a
	// script's first denyoom write is refused; allow-oom scripts run.
	{name: "scripts at maxmemory", cmds: cmds(
		mbs("SCRIPT FLUSH"),
		cmd("SCRIPT", "LOAD", "return 1"),
		mbs("CONFIG SET maxmemory 1"),
		eval("return redis.call('set','x',1)", "0"),
		eval("return redis.pcall('set','x',1)['err']", "0"),
		eval("#!lua flags=allow-oom\nreturn redis.call('set','x',1)", "0"),
		eval("return redis.call('get','x')", "0"),
		mbs("CONFIG SET maxmemory 0", "SCRIPT FLUSH"),
	)},
	// SORT BY nosort of a set, from a script, sorts the members as ALPHA,
	// as for STORE, so the reply is the same wherever the script runs.
	{name: "sort by constant in a script", cmds: cmds(
		mbs("SADD myset a b c d e f g h i l m n o p q r s t u v z aa aaa azz"),
		eval("return redis.call('sort',KEYS[1],'by','_')", "1", "myset"),
		eval("return redis.call('sort',KEYS[1],'by','_','get','#','get','_:*')", "1", "myset"),
		eval("return redis.call('sort',KEYS[1],'by','_','desc','limit','0','3')", "1", "myset"),
		mbs("RPUSH mylist c a b"),
		eval("return redis.call('sort',KEYS[1],'by','_')", "1", "mylist"),
	)},
	// string.dump exists; no loader takes a binary chunk (Redis's Lua
	// reads it as text and stops at the ESC).
	{name: "string.dump and binary chunks", cmds: cmds(
		eval("local f, e = loadstring(string.dump(function() return 1 end)); return {type(f), e}", "0"),
		eval("return string.dump(1)", "0"),
		eval("return string.dump(string.len)", "0"),
		eval("return {loadstring('\\27Lua junk')}", "0"),
		eval("return {loadstring('\\27x', '=name')}", "0"),
		eval("return string.sub(string.dump(function() end), 1, 4)", "0"),
	)},
	// A command a script calls counts its error, or its refusal, in INFO's
	// error statistics whether the script catches it or not; the script's
	// reply of that same error is not counted again.
	{name: "script errors in errorstats", cmds: cmds(
		mbs("SET a 1", "CONFIG RESETSTAT"),
		eval("return redis.pcall('nosuch')['err']", "0"),
		eval("return redis.pcall('lpush','a','x')['err']", "0"),
		eval("return redis.pcall('lpush','a','x')", "0"),
		eval("return redis.call('lpush','a','x')", "0"),
		eval("return redis.pcall('get')['err']", "0"),
		eval("return {err='MY own'}", "0"),
		eval("error('boom')", "0"),
		eval("return redis.call()", "0"),
		mbs("CONFIG SET maxmemory 1"),
		eval("return redis.pcall('set','x','y')['err']", "1", "x"),
		eval("return redis.call('set','x','y')", "1", "x"),
		mbs("CONFIG SET maxmemory 0", "INFO errorstats"),
	)},
	{name: "scripting getkeys", cmds: cmds(
		cmd("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "c"),
		cmd("COMMAND", "GETKEYS", "FCALL", "f", "1", "a", "b"),
		cmd("COMMAND", "GETKEYS", "EVAL", "return 1", "0"), // *0: no_mandatory_keys
		cmd("COMMAND", "GETKEYS", "FCALL", "f", "0"),
	)},
}

var scriptLibCases = []redisCase{
	{name: "cjson encode", cmds: cmds(
		eval("return cjson.encode({})", "0"),
		eval("return cjson.encode({1,2,3})", "0"),
		eval("return cjson.encode({a=1})", "0"),
		eval("return cjson.encode({1.5, 0.1, 1e20, 123456789012345678, -0.0, 3.14159265358979})", "0"),
		eval("return cjson.encode('a\"b/c\\n\\1\\127')", "0"),
		eval("return cjson.encode({[1]=1,[3]=3})", "0"),
		eval("return cjson.encode({[1]=1,[2]=2,[20]=3})", "0"),
		eval("return cjson.encode(cjson.null)", "0"),
		eval("return cjson.encode(1/0)", "0"),
		eval("return cjson.encode(function() end)", "0"),
		eval("return cjson.encode({[true]=1})", "0"),
		eval("local t = {} t[1]=t return cjson.encode(t)", "0"),
		eval("return cjson.encode({a={b={c={}}}})", "0"),
	)},
	{name: "cjson decode", cmds: cmds(
		eval(`local t = cjson.decode('{"a":[1,2,{"b":null}],"c":1.5e3}'); return {t.a[1], t.a[3].b == cjson.null, t.c, type(t.a[3].b)}`, "0"),
		eval("return cjson.decode('[1,2')", "0"),
		eval("return cjson.decode('')", "0"),
		eval("return cjson.decode('nul')", "0"),
		eval(`return cjson.decode('"\\u00e9\\ud83d\\ude00"')`, "0"),
		eval("return cjson.decode('[1,2] x')", "0"),
		eval("return cjson.decode('{1:2}')", "0"),
		eval("return cjson.decode('0x10')", "0"),
		eval("return cjson.decode('1e')", "0"),
		eval("return cjson.decode('[1,]')", "0"),
		eval("return cjson.decode('\"abc')", "0"),
		eval("return cjson.decode('\"\\\\q\"')", "0"),
		eval("return cjson.encode(cjson.decode('[[[[1]]]]'))", "0"),
	)},
	// The configuration functions change the table's encode and decode
	// until SCRIPT FLUSH starts a new Lua state.
	{name: "cjson configuration", cmds: cmds(
		mbs("SCRIPT FLUSH"),
		eval("return {cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision(), cjson.encode_keep_buffer(), cjson.decode_invalid_numbers()}", "0"),
		eval("return {cjson.encode_sparse_array()}", "0"),
		eval("return cjson.encode_invalid_numbers()", "0"),
		eval("return cjson.encode_max_depth(0)", "0"),
		eval("return cjson.encode_max_depth('x')", "0"),
		eval("return cjson.encode_max_depth(1, 2)", "0"),
		eval("return cjson.encode_sparse_array(true, -1)", "0"),
		eval("return cjson.encode_invalid_numbers('bad')", "0"),
		eval("return cjson.encode_number_precision(15)", "0"),
		eval("cjson.encode_max_depth(1); return cjson.encode({1})", "0"),
		eval("return cjson.encode({{1}})", "0"),
		eval("cjson.decode_max_depth(1); return cjson.decode('[1]')", "0"),
		eval("return cjson.decode('[[1]]')", "0"),
		eval("return cjson.encode_invalid_numbers('null')", "0"),
		eval("return cjson.encode({1/0, 0/0})", "0"),
		eval("cjson.encode_invalid_numbers(true); return cjson.encode({1/0, -1/0, 0/0})", "0"),
		eval("cjson.encode_number_precision(3); return cjson.encode({3.14159, 1234567})", "0"),
		eval("return {cjson.encode_sparse_array(true)}", "0"),
		eval("return cjson.encode({[1]=1, [20]=2})", "0"),
		eval("cjson.encode_sparse_array(false, 0); return cjson.encode({[1]=1, [40]=2})", "0"),
		eval("cjson.decode_invalid_numbers(false); return cjson.decode('0x10')", "0"),
		eval("return cjson.decode('nan')", "0"),
		eval("return cjson.decode('-Infinity')", "0"),
		eval("return cjson.decode('12')", "0"),
		mbs("SCRIPT FLUSH"),
		eval("return cjson.encode({{1}, 1/0 ~= nil})", "0"),
	)},
	{name: "cmsgpack", cmds: cmds(
		eval("return cmsgpack.pack({1,2,3}, 'abc', 1.5, -1, 300, true, nil, {a=1})", "0"),
		eval("return {cmsgpack.unpack(cmsgpack.pack({1,2,{'x'}}, 'abc', 1.5, -33, 70000))}", "0"),
		eval("return cmsgpack.unpack('\\220')", "0"),
		eval("return cmsgpack.unpack('\\193')", "0"),
		eval("return {cmsgpack.unpack_one(cmsgpack.pack(1,2))}", "0"),
		eval("return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3),2,1)}", "0"),
		eval("return cmsgpack.pack(0.1, 2^40, -2^40, 2^64, string.rep('x', 40))", "0"),
		eval("return cmsgpack.pack()", "0"),
	)},
	{name: "bit", cmds: cmds(
		eval("return {bit.band(0xff, 0x0f), bit.bor(1,2,4), bit.bxor(3,1), bit.bnot(0), bit.lshift(1,31), bit.rshift(-1, 28), bit.arshift(-16, 2), bit.rol(1, 33), bit.ror(1,1), bit.bswap(0x12345678), bit.tobit(2^32+5), bit.tohex(-1), bit.tohex(65535, -4)}", "0"),
		eval("return bit.band('x')", "0"),
		eval("return bit.tobit()", "0"),
	)},
	{name: "struct", cmds: cmds(
		eval("return struct.pack('>i2', 258)", "0"),
		eval("return {struct.unpack('>i2 <I4 b', struct.pack('>i2 <I4 b', -2, 7, -1))}", "0"),
		eval("return {struct.size('i!4d'), struct.size('bhl')}", "0"),
		eval("return {struct.unpack('>d f', struct.pack('>d f', 1.5, 0.25))}", "0"),
		eval("return struct.pack('z', 1)", "0"),
		eval("return struct.unpack('i4', 'ab')", "0"),
		eval("return struct.pack('i40', 1)", "0"),
		eval("return struct.size('s')", "0"),
		eval("return struct.unpack('i4', 'abcdabcd', 0)", "0"),
		eval("return struct.pack('!3i')", "0"),
		eval("return struct.pack('c5', 'ab')", "0"),
	)},
}

var functionCases = []redisCase{
	// FUNCTION LOAD and RESTORE are denyoom, and the libraries count in
	// used memory as Redis's used_memory_functions: with one loaded, a
	// maxmemory of 1 refuses both; an allow-oom function writes anyway.
	{name: "functions at maxmemory", cmds: cmds(
		mbs("FUNCTION FLUSH"),
		cmd("FUNCTION", "LOAD", "#!lua name=oomlib\nredis.register_function{function_name='oomset', callback=function(keys) return redis.call('set', keys[1], '1') end, flags={'allow-oom'}}\n"+
			"redis.register_function('plainset', function(keys) return redis.call('set', keys[1], '1') end)"),
		mbs("SET a 1", "CONFIG SET maxmemory 1"),
		cmd("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('f1', function() return 1 end)"),
		mbs("FUNCTION RESTORE bad", "FCALL plainset 1 x", "FCALL oomset 1 x", "GET x"),
		mbs("CONFIG SET maxmemory 0", "FUNCTION FLUSH"),
	)},
	{name: "function load and call", cmds: cmds(
		mbs("FUNCTION FLUSH"),
		cmd("FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('f1', function(keys, args) return {keys[1], args[1]} end)\n"+
			"redis.register_function{function_name='f2', callback=function() return redis.call('set','x','1') end, flags={'no-writes'}, description='desc2'}"),
		mbs("FCALL f1 1 k a", "FCALL F1 1 k a", "FCALL f2 0", "FCALL_RO f1 0", "FCALL nosuch 0", "FCALL f1 x", "FCALL f1 -1", "FCALL f1 5"),
		mbs("FUNCTION STATS", "FUNCTION LIST LIBRARYNAME nomatch", "FUNCTION LIST foo"),
		cmd("FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('f1', function() return 1 end)"),
		mbs("FUNCTION DELETE nosuch", "FUNCTION DELETE mylib", "FCALL f1 0"),
		mbs("FUNCTION FLUSH"),
	)},
	{name: "function list single", cmds: cmds(
		mbs("FUNCTION FLUSH"),
		cmd("FUNCTION", "LOAD", "#!lua name=one\nredis.register_function{function_name='g', callback=function() return 1 end, flags={'allow-oom', 'no-writes'}}"),
		mbs("FUNCTION LIST", "FUNCTION LIST WITHCODE LIBRARYNAME o*"),
		mbs("FUNCTION FLUSH"),
	)},
	{name: "function load errors", cmds: cmds(
		mbs("FUNCTION FLUSH"),
		cmd("FUNCTION", "LOAD", "return 1"),
		cmd("FUNCTION", "LOAD", "#!lua\nreturn 1"),
		cmd("FUNCTION", "LOAD", "#!lua name=x\nreturn 1"),
		cmd("FUNCTION", "LOAD", "#!lua name=x\nredis.call('ping')"),
		cmd("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('bad name', function() return 1 end)"),
		cmd("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('g', 1)"),
		cmd("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function{function_name='g', callback=function() end, flags={'bad'}}"),
		cmd("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function{function_name='g', callback=function() end, foo=1}"),
		cmd("FUNCTION", "LOAD", "#!lua name=x foo=bar\nredis.register_function('g', function() end)"),
		cmd("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('g', function() end) x = 1"),
		cmd("FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('g', function() end) local a = KEYS"),
		cmd("FUNCTION", "LOAD", "#!lua name=t1\nlocal s = string.format('%d', 1)\nredis.register_function('t1f', function() return s end)"),
		cmd("FUNCTION", "LOAD", "#!js name=x\n"),
		cmd("FUNCTION", "LOAD", "badarg", "#!lua name=lib3\n"),
		mbs("FUNCTION FLUSH bad", "FUNCTION FLUSH SYNC extra", "FUNCTION FLUSH"),
	)},
	{name: "function errors and replace", cmds: cmds(
		mbs("FUNCTION FLUSH"),
		cmd("FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('h', function(k, a) error('oops') end)\nredis.register_function('h2', function(k, a) return redis.call('nosuch') end)"),
		mbs("FCALL h 0", "FCALL h2 0"),
		cmd("FUNCTION", "LOAD", "REPLACE", "#!lua name=lib2\nredis.register_function('h', function(k, a) return {#k, #a, type(KEYS)} end)"),
		mbs("FCALL h 1 a b c", "FCALL h2 0"),
		cmd("FUNCTION", "LOAD", "#!lua name=lib4\nredis.register_function('rf', function() return type(redis.register_function) end)"),
		mbs("FCALL rf 0"),
		mbs("FUNCTION FLUSH"),
	)},
}
