package scripting

import lua "github.com/yuin/gopher-lua"

// DefaultMaxString is the longest string a builtin may build when the run
// names no limit: Redis's proto-max-bulk-len default.
const DefaultMaxString = 512 << 20

// errStringTooLarge is the error of a builtin whose result would pass the
// string limit (Lua 5.2's wording: Lua 5.1 has no limit but memory).
const errStringTooLarge = "resulting string too large"

// maxString is the string limit of the running script.
func (vm *VM) maxString() int64 {
	if r := vm.run; r != nil && r.MaxString > 0 {
		return r.MaxString
	}
	return DefaultMaxString
}

// checkStringSize raises errStringTooLarge when a builtin's result of n
// bytes would pass the string limit.
func (vm *VM) checkStringSize(L *lua.LState, n int64) {
	if n > vm.maxString() || n < 0 {
		L.RaiseError(errStringTooLarge)
	}
}
