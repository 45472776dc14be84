// Package scripting is Tandem's Lua scripting engine: EVAL scripts and
// FUNCTION libraries as redis-server 7.0 runs them, on gopher-lua.
//
// It knows nothing of sockets or of the RESP front-end. A script reaches the
// keyspace through a Host, which runs one command for redis.call and hands
// back the command's RESP reply; the script's own result goes to a
// ReplyWriter. Everything between is Redis 7.0's behaviour: the sandbox
// (read-only globals, no os/io/require), the redis.* API, the conversion
// rules between RESP and Lua values, the error texts, and the libraries
// scripts use: cjson, cmsgpack, bit and struct, written here in Go.
//
// Files:
//   - script.go: Script (compiled EVAL body, shebang flags), Cache (SHA1 → Script).
//   - concat.go: the `..` operator, rewritten at compile time into a call
//     that checks its result's size before building it.
//   - vm.go: VM, one gopher-lua state with Redis's sandbox and redis.* API.
//   - sandbox.go: what keeps a script from reaching the real globals and
//     library tables through metatables, raw access or loadstring.
//   - limits.go: the bounds on what builtins may build.
//   - pattern.go, gsub.go: Lua 5.1's pattern matcher (string.find, match,
//     gmatch, gsub), which SCRIPT KILL and the memory watchdog can stop.
//   - run.go: running a script or function, the error handler, kill.
//   - convert.go: RESP reply → Lua value, Lua value → reply.
//   - function.go: FUNCTION libraries: loading, registry.
//   - restore.go: FUNCTION RESTORE's libraries, created apart and then
//     joined to the loaded ones by its policy.
//   - cjson.go, cmsgpack.go, bit.go, structlib.go: the libraries.
//   - rand.go: math.random as Redis's redisLrand48.
//
// # Known differences from Redis 7.0
//
// The differential suite (internal/compat) checks scripts against
// redis-server; these are the places where Tandem answers differently, on
// purpose or because gopher-lua is not Lua 5.1's C implementation:
//
//   - Syntax errors: parseErrorText (script.go) gives Lua 5.1's form,
//     "user_script:1: unexpected symbol near 'x'", but gopher-lua's parser
//     tells fewer kinds of error apart, so the message can be less specific
//     than Redis's for the same script.
//   - Table iteration order: pairs and next, and so cjson.encode and
//     cmsgpack.pack of a table with non-array keys, visit keys in
//     gopher-lua's order, which is not Lua 5.1's. Scripts that depend on
//     the order of a hash table's keys get them in another order.
//   - cmsgpack.unpack refuses a map whose integer key lies far past the
//     table's array part ("table index … too sparse for a msgpack map"):
//     gopher-lua would allocate the array up to it, where Lua 5.1 hashes it.
//   - A pattern that makes the matcher recurse more than 10000 levels
//     (maxMatchDepth, pattern.go) fails with "pattern too complex" (Lua
//     5.2's text); redis-server's Lua 5.1 has no bound and crashes on
//     a stack overflow somewhere past 100000.
//   - An error raised by a builtin that pcall calls directly, as in
//     pcall(string.rep), carries the script's position
//     ("user_script:1: bad argument #1 to 'rep' …"); Lua 5.1 gives it
//     none there, as pcall is a C function, and names the function '?'.
//     Called from Lua code, inside pcall(function() … end) too, the texts
//     are the same.
//   - `..` is a call of the global "concat operator" (concat.go), which
//     _G["concat operator"] shows (Redis has no such global); no script
//     can name it as a variable, and calling it concatenates. A chain's
//     error gives the line of its last operand as Lua 5.1 does, but when
//     that operand ends with a bracket on a later line than anything
//     inside it (t[\n1\n]), the line is the inside's.
//   - string.dump gives only the 12-byte header of a Lua 5.1 chunk
//     (gopher-lua has no Lua 5.1 bytecode); as in Redis, whose loaders
//     take no binary chunk, loadstring reads it as text and fails at the
//     ESC with Redis's message.
//   - No Lua debugger: SCRIPT DEBUG NO answers OK, SCRIPT DEBUG YES and
//     SYNC are refused (resp/cmd_scripting.go, ErrScriptDebug).
//   - FUNCTION DUMP lists the libraries by name, Redis in its
//     dictionary's order: a payload of one library is Redis's byte for
//     byte, one of several the same libraries in another order.
//   - COMMAND INFO shows no key specs for EVAL, EVALSHA, FCALL and their
//     _RO variants: Redis declares a keynum key spec the command table
//     cannot express yet.
package scripting
