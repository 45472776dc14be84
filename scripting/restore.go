package scripting

import "strings"

// FUNCTION RESTORE's libraries, as Redis 7.0's functionRestoreCommand:
// every library of the payload is first created on its own, in a library
// context of the payload's (errors there come first, and leave the loaded
// libraries untouched), then the context replaces the loaded one (FLUSH)
// or joins it (APPEND, REPLACE), which checks every collision before
// changing anything.

// RestorePolicy is how FUNCTION RESTORE treats the libraries loaded.
type RestorePolicy int

// Restore policies.
const (
	RestoreAppend  RestorePolicy = iota // a library of the same name is an error
	RestoreReplace                      // a library of the same name is replaced
	RestoreFlush                        // the loaded libraries go first
)

// Restore creates the libraries of codes (their sources, in the payload's
// order) and puts them in place by policy. It returns the error text
// (without the "ERR " the reply adds), "" when the libraries are in.
func (fs *Functions) Restore(codes [][]byte, policy RestorePolicy, host Host) string {
	fs.vmMu.Lock()
	defer fs.vmMu.Unlock()
	libs := map[string]*Library{}
	funcs := map[string]*Function{}
	var order []*Library
	for _, code := range codes {
		src := string(code)
		name, end, msg := libraryHeader(src)
		if msg != "" {
			return msg
		}
		if libs[name] != nil {
			return "Library '" + name + "' already exists"
		}
		lib, msg := fs.runLibrary(name, src, src[end:], host)
		if msg != "" {
			return msg
		}
		if len(lib.Functions) == 0 {
			return "No functions registered"
		}
		for _, f := range lib.Functions {
			if funcs[strings.ToLower(f.Name)] != nil {
				return "Function " + f.Name + " already exists"
			}
		}
		libs[name] = lib
		order = append(order, lib)
		for _, f := range lib.Functions {
			funcs[strings.ToLower(f.Name)] = f
		}
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	defer fs.chargeLocked() // after the libraries change, or do not
	if policy == RestoreFlush {
		fs.libs, fs.funcs = libs, funcs
		return ""
	}
	// libraryJoin: the libraries that collide (an error unless REPLACE),
	// then the functions of the others that collide with a new one.
	replaced := map[*Library]bool{}
	for _, lib := range order {
		if old := fs.libs[lib.Name]; old != nil {
			if policy != RestoreReplace {
				return "Library " + lib.Name + " already exists"
			}
			replaced[old] = true
		}
	}
	for _, lib := range order {
		for _, f := range lib.Functions {
			if old := fs.funcs[strings.ToLower(f.Name)]; old != nil && !replaced[old.Library] {
				return "Function " + f.Name + " already exists"
			}
		}
	}
	for old := range replaced {
		fs.unlinkLocked(old)
	}
	for _, lib := range order {
		fs.libs[lib.Name] = lib
		for _, f := range lib.Functions {
			fs.funcs[strings.ToLower(f.Name)] = f
		}
	}
	return ""
}
