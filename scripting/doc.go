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
//   - vm.go: VM, one gopher-lua state with Redis's sandbox and redis.* API.
//   - run.go: running a script or function, the error handler, kill.
//   - convert.go: RESP reply → Lua value, Lua value → reply.
//   - function.go: FUNCTION libraries: loading, registry.
//   - cjson.go, cmsgpack.go, bit.go, structlib.go: the libraries.
//   - rand.go: math.random as Redis's redisLrand48.
package scripting
