package scripting

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/tandemkv/tandem/internal/sdsargs"
)

// Flags are a script's or function's declared flags (the shebang's
// flags=… or register_function's flags), Redis 7.0's SCRIPT_FLAG_*.
type Flags uint32

const (
	FlagNoWrites Flags = 1 << iota
	FlagAllowOOM
	FlagAllowStale
	FlagNoCluster
	FlagAllowCrossSlot
	// FlagEvalCompat: an EVAL script without a shebang, which runs with
	// the pre-7.0 rules (no declared flags).
	FlagEvalCompat
)

// flagDefs are the flag names in Redis's order (FUNCTION LIST prints them
// in this order).
var flagDefs = []struct {
	flag Flags
	name string
}{
	{FlagNoWrites, "no-writes"},
	{FlagAllowOOM, "allow-oom"},
	{FlagAllowStale, "allow-stale"},
	{FlagNoCluster, "no-cluster"},
	{FlagAllowCrossSlot, "allow-cross-slot-keys"},
}

// Names lists the declared flags in Redis's order.
func (f Flags) Names() []string {
	var out []string
	for _, d := range flagDefs {
		if f&d.flag != 0 {
			out = append(out, d.name)
		}
	}
	return out
}

func flagByName(name string) (Flags, bool) {
	for _, d := range flagDefs {
		if d.name == name {
			return d.flag, true
		}
	}
	return 0, false
}

// Script is a compiled EVAL body.
type Script struct {
	SHA   string // lower-case hex SHA1 of Body
	Body  string
	Flags Flags
	proto *lua.FunctionProto
}

// SHA1Hex is the lower-case hex SHA1 of b, as redis.sha1hex and the script
// cache compute it.
func SHA1Hex(b []byte) string {
	sum := sha1.Sum(b)
	return hex.EncodeToString(sum[:])
}

// ShebangFlags reads an EVAL body's shebang as Redis 7.0's
// evalExtractShebangFlags: no "#!" means FlagEvalCompat; otherwise the
// first line must be "#!lua" followed by options, of which only
// flags=a,b,… is known. It returns the flags, the length of the shebang
// line (without its '\n') and the error text ("" when none).
func ShebangFlags(body string) (Flags, int, string) {
	if !strings.HasPrefix(body, "#!") {
		return FlagEvalCompat, 0, ""
	}
	end := strings.IndexByte(body, '\n')
	if end < 0 {
		return 0, 0, "Invalid script shebang"
	}
	parts, ok := sdsargs.Strings(body[:end])
	if !ok || len(parts) == 0 {
		return 0, 0, "Invalid engine in script shebang"
	}
	if parts[0] != "#!lua" {
		return 0, 0, "Unexpected engine in script shebang: " + parts[0]
	}
	var flags Flags
	for _, p := range parts[1:] {
		if !strings.HasPrefix(p, "flags=") {
			return 0, 0, "Unknown lua shebang option: " + p
		}
		list := p[len("flags="):]
		if list == "" {
			continue
		}
		for _, name := range strings.Split(list, ",") {
			f, ok := flagByName(name)
			if !ok {
				return 0, 0, "Unexpected flag in script shebang: " + name
			}
			flags |= f
		}
	}
	return flags, end, ""
}

// CompileScript compiles an EVAL body as Redis's luaCreateFunction: the
// shebang is checked and then blanked (its '\n' kept, so line numbers do
// not move), the rest compiled as chunk "@user_script". The error is the
// reply text without "-": "ERR Error compiling script (new function): …"
// or "ERR <shebang error>".
func CompileScript(body []byte) (*Script, string) {
	s := string(body)
	flags, shebangLen, msg := ShebangFlags(s)
	if msg != "" {
		return nil, "ERR " + msg
	}
	proto, err := compile(s[shebangLen:], "user_script")
	if err != "" {
		return nil, "ERR Error compiling script (new function): " + err
	}
	return &Script{SHA: SHA1Hex(body), Body: s, Flags: flags, proto: proto}, ""
}

// compile compiles Lua source into a function prototype, turning
// gopher-lua's parse errors into Lua 5.1's "name:line: message" form.
// Every EVAL script, FUNCTION library and loadstring chunk comes here.
func compile(src, name string) (*lua.FunctionProto, string) {
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, parseErrorText(err, name, src)
	}
	chunk = rewriteConcat(chunk) // `..` as a call that bounds its result (concat.go)
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			return nil, fmt.Sprintf("%s:%d: %s", name, ce.Line, ce.Message)
		}
		return nil, name + ": " + err.Error()
	}
	return proto, ""
}

// parseErrorText renders a gopher-lua syntax error the way Lua 5.1's
// luaX_syntaxerror does ("user_script:1: unexpected symbol near 'x'").
// gopher-lua's grammar reports fewer kinds of error than Lua's, so the
// message may be less specific than Redis's.
func parseErrorText(err error, name, src string) string {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return name + ": " + strings.TrimSpace(err.Error())
	}
	msg := pe.Message
	switch {
	case msg == "syntax error" || msg == "parse error":
		msg = "unexpected symbol"
	case strings.HasPrefix(msg, "unterminated string"):
		msg = "unfinished string"
	}
	line, tok := pe.Pos.Line, pe.Token
	if line == parse.EOF || line <= 0 {
		line = bytes.Count([]byte(src), []byte{'\n'}) + 1
		tok = "<eof>"
	}
	return fmt.Sprintf("%s:%d: %s near '%s'", name, line, msg, tok)
}

// Cache is the EVAL script cache: SHA1 → compiled script, safe for
// concurrent use. Redis caches every script EVAL or SCRIPT LOAD compiled
// until SCRIPT FLUSH.
type Cache struct {
	mu     sync.RWMutex
	m      map[string]*Script
	memory int64
	// charge, when set, is told each change of memory (SetMemoryCharge).
	charge func(delta int64)
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[string]*Script{}} }

// Get finds a script by SHA1, in any case.
func (c *Cache) Get(sha string) *Script {
	if len(sha) != 40 {
		return nil
	}
	c.mu.RLock()
	s := c.m[strings.ToLower(sha)]
	c.mu.RUnlock()
	return s
}

// Load returns the cached script of body, compiling and caching it first
// if needed. The error is as CompileScript's.
func (c *Cache) Load(body []byte) (*Script, string) {
	if s := c.Get(SHA1Hex(body)); s != nil {
		return s, ""
	}
	s, msg := CompileScript(body)
	if s == nil {
		return nil, msg
	}
	c.mu.Lock()
	if old := c.m[s.SHA]; old != nil {
		s = old
	} else {
		c.m[s.SHA] = s
		c.memory += scriptMemory(s)
		if c.charge != nil {
			c.charge(scriptMemory(s))
		}
	}
	c.mu.Unlock()
	return s, ""
}

// scriptMemory estimates what a cached script costs: its body, its SHA
// and the dictionary entry, as Redis's used_memory_scripts_eval counts.
func scriptMemory(s *Script) int64 { return int64(len(s.Body)) + 40 + 64 }

// Flush empties the cache.
func (c *Cache) Flush() {
	c.mu.Lock()
	c.m = map[string]*Script{}
	if c.charge != nil {
		c.charge(-c.memory)
	}
	c.memory = 0
	c.mu.Unlock()
}

// Len is the number of cached scripts (INFO number_of_cached_scripts).
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// Memory is the bytes the cached scripts take (INFO used_memory_scripts_eval).
func (c *Cache) Memory() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.memory
}
