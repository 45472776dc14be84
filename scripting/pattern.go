package scripting

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's pattern matcher, for string.find, string.match, string.gmatch
// and string.gsub. gopher-lua's (package pm) compiles each pattern into a
// program and backtracks inside Go with no way to stop it: a pattern such
// as string.rep('%a-', 6)..'b' against 40 letters runs for hours, and
// SCRIPT KILL cannot end it. This one reads the pattern as Lua 5.1 does,
// item by item while it matches (so a malformed pattern is an error only
// when the match reaches the bad item, as in Lua), counts its steps and
// checks the script's context every killCheckEvery of them.
//
// Everything is Lua 5.1.5's semantics, as redis-server 7.0 runs them: the
// C locale's character classes, a pattern that ends at its first NUL byte
// (Lua 5.1 reads it as a C string; %z matches a NUL), '^' an anchor only
// where find, match and gsub look for it, and the error texts.

// maxCaptures is Lua 5.1's LUA_MAXCAPTURES.
const maxCaptures = 32

// maxMatchDepth bounds the matcher's recursion. Lua 5.1 has no bound: each
// '?', '*', '+', '-' item and each capture boundary that the match goes
// through is one more C call, so a long enough pattern overflows
// redis-server's stack (string.rep('a?', 200000) against as many 'a's
// kills it; 100000 passes). A goroutine's stack grows instead, but to at
// most 1 GB before the whole process dies, so the depth needs a bound.
// Each level is one pattern item, so only a pattern of more than this
// many items that matches that deeply fails, with "pattern too complex"
// (Lua 5.2's text for its bound of 200, which real patterns never
// approach either). A level takes 200 to 400 bytes of stack, which Go
// grows by doubling: the deepest match needs 4 MB (measured).
const maxMatchDepth = 10000

// Special values of a capture's length.
const (
	capUnfinished = -1 // opened, not closed yet
	capPosition   = -2 // a position capture, ()
)

// Error texts of the matcher, Lua 5.1's.
const (
	errPatternEndsEsc   = "malformed pattern (ends with '%')"
	errPatternMissingBr = "malformed pattern (missing ']')"
	errPatternFrontier  = "missing '[' after '%f' in pattern"
	errPatternBalance   = "unbalanced pattern"
	errCaptureIndex     = "invalid capture index"
	errPatternCapture   = "invalid pattern capture"
	errCaptureOpen      = "unfinished capture"
	errTooManyCaptures  = "too many captures"
	errPatternComplex   = "pattern too complex"
)

// patternSpecials are the bytes that make string.find match a pattern
// rather than search for the plain text (Lua 5.1's SPECIALS).
const patternSpecials = "^$*+?.([%-"

// Character classes of the C locale, one bit per class letter.
const (
	clAlpha uint16 = 1 << iota
	clCntrl
	clDigit
	clLower
	clPunct
	clSpace
	clUpper
	clAlnum
	clXdigit
	clZero
)

// classOfByte holds, for each byte, the classes it belongs to; classBit,
// for each lower-case class letter, its bit (0 for other bytes).
var classOfByte, classBit = func() (of [256]uint16, bit [256]uint16) {
	for c := 0; c < 256; c++ {
		var m uint16
		lower, upper, digit := 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9'
		if lower || upper {
			m |= clAlpha
		}
		if c < 32 || c == 127 {
			m |= clCntrl
		}
		if digit {
			m |= clDigit
		}
		if lower {
			m |= clLower
		}
		if c > 32 && c < 127 && !lower && !upper && !digit {
			m |= clPunct
		}
		if c == ' ' || (c >= '\t' && c <= '\r') {
			m |= clSpace
		}
		if upper {
			m |= clUpper
		}
		if lower || upper || digit {
			m |= clAlnum
		}
		if digit || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F') {
			m |= clXdigit
		}
		if c == 0 {
			m |= clZero
		}
		of[c] = m
	}
	for i, l := range "acdlpsuwxz" {
		bit[l] = 1 << i
	}
	return
}()

// matchClass reports whether byte c is in class %cl: a class letter (its
// upper case the complement), or any other byte standing for itself.
func matchClass(c, cl byte) bool {
	// cl|0x20 is a lower-case letter only when cl is a letter.
	bit := classBit[cl|0x20]
	if bit == 0 {
		return cl == c
	}
	return (classOfByte[c]&bit != 0) == (cl >= 'a')
}

// capture is one capture of a match: where it starts and its length, or
// capUnfinished or capPosition.
type capture struct{ init, len int }

// matchState is one match of a pattern against a subject in progress.
type matchState struct {
	L     *lua.LState // errors and kill checks; nil outside a script (tests)
	src   string
	pat   string // up to its first NUL
	level int    // captures opened
	depth int    // recursion depth of match
	steps int    // steps until the next check of the script's context
	cap   [maxCaptures]capture
}

// patternError is the panic of a matcher that runs without a Lua state.
type patternError string

func (e patternError) Error() string { return string(e) }

// reset prepares matching pat against src. The pattern ends at its first
// NUL byte, as Lua 5.1's C string.
func (ms *matchState) reset(L *lua.LState, src, pat string) {
	if i := strings.IndexByte(pat, 0); i >= 0 {
		pat = pat[:i]
	}
	*ms = matchState{L: L, src: src, pat: pat, steps: killCheckEvery}
}

// anchor strips a leading '^' from the pattern and reports whether there
// was one (find, match and gsub look for it; gmatch does not).
func (ms *matchState) anchor() bool {
	if strings.HasPrefix(ms.pat, "^") {
		ms.pat = ms.pat[1:]
		return true
	}
	return false
}

// fail raises a pattern error.
func (ms *matchState) fail(msg string) {
	if ms.L != nil {
		ms.L.RaiseError("%s", msg)
	}
	panic(patternError(msg))
}

// spend counts n steps, checking the script's context when they are due.
func (ms *matchState) spend(n int) {
	if ms.steps -= n; ms.steps < 0 {
		ms.steps = killCheckEvery
		if ms.L != nil {
			checkKilled(ms.L)
		}
	}
}

// at is the pattern's byte i, 0 past its end (the C string's terminator).
func (ms *matchState) at(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

// matchAt tries the pattern at subject position s: the end of the match,
// or -1. level must be 0.
func (ms *matchState) matchAt(s int) int {
	ms.level, ms.depth = 0, 0
	return ms.match(s, 0)
}

// search finds the first match at or after init (at init only when
// anchored): its start and end, or -1, -1.
func (ms *matchState) search(init int, anchored bool) (int, int) {
	for s := init; s <= len(ms.src); s++ {
		if e := ms.matchAt(s); e >= 0 {
			return s, e
		}
		if anchored {
			break
		}
	}
	return -1, -1
}

// match matches pattern position p at subject position s: the end of the
// match, or -1.
func (ms *matchState) match(s, p int) int {
	if ms.depth++; ms.depth > maxMatchDepth {
		ms.fail(errPatternComplex)
	}
	e := ms.doMatch(s, p)
	ms.depth--
	return e
}

func (ms *matchState) doMatch(s, p int) int {
	src, pat := ms.src, ms.pat
	for {
		ms.spend(1)
		if p >= len(pat) {
			return s // end of the pattern: a match
		}
		switch pat[p] {
		case '(':
			if ms.at(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case '$':
			if p+1 == len(pat) { // only a final '$' anchors
				if s == len(src) {
					return s
				}
				return -1
			}
		case '%':
			switch c := ms.at(p + 1); {
			case c == 'b':
				if s = ms.matchBalance(s, p+2); s < 0 {
					return -1
				}
				p += 4
				continue
			case c == 'f':
				p += 2
				if ms.at(p) != '[' {
					ms.fail(errPatternFrontier)
				}
				ep := ms.classEnd(p)
				var prev, cur byte // a NUL before the subject and after it
				if s > 0 {
					prev = src[s-1]
				}
				if s < len(src) {
					cur = src[s]
				}
				if ms.matchBracket(prev, p, ep-1) || !ms.matchBracket(cur, p, ep-1) {
					return -1
				}
				p = ep
				continue
			case c >= '0' && c <= '9':
				if s = ms.matchCapture(s, c); s < 0 {
					return -1
				}
				p += 2
				continue
			}
		}
		// A single-character item, perhaps with a quantifier.
		ep := ms.classEnd(p)
		m := s < len(src) && ms.singleMatch(src[s], p, ep)
		switch ms.at(ep) {
		case '?':
			if m {
				if e := ms.match(s+1, ep+1); e >= 0 {
					return e
				}
			}
			p = ep + 1
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if !m {
				return -1
			}
			return ms.maxExpand(s+1, p, ep)
		case '-':
			return ms.minExpand(s, p, ep)
		default:
			if !m {
				return -1
			}
			s++
			p = ep
		}
	}
}

// classEnd is the end of the single-character item at p: past '%x', past
// a set's ']', else p+1.
func (ms *matchState) classEnd(p int) int {
	switch ms.pat[p] {
	case '%':
		if p+1 >= len(ms.pat) {
			ms.fail(errPatternEndsEsc)
		}
		return p + 2
	case '[':
		p++
		if ms.at(p) == '^' {
			p++
		}
		// The first byte is in the set even when it is ']'; '%' escapes
		// the byte after it.
		for {
			if p >= len(ms.pat) {
				ms.fail(errPatternMissingBr)
			}
			c := ms.pat[p]
			p++
			if c == '%' && p < len(ms.pat) {
				p++
			}
			if ms.at(p) == ']' {
				return p + 1
			}
		}
	}
	return p + 1
}

// singleMatch reports whether byte c matches the item from p to ep.
func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch pc := ms.pat[p]; pc {
	case '.':
		return true
	case '%':
		return matchClass(c, ms.pat[p+1])
	case '[':
		return ms.matchBracket(c, p, ep-1)
	default:
		return pc == c
	}
}

// matchBracket reports whether c is in the set from '[' at p to ']' at ec.
func (ms *matchState) matchBracket(c byte, p, ec int) bool {
	pat := ms.pat
	in := true
	if pat[p+1] == '^' {
		in = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case pat[p] == '%':
			p++
			if matchClass(c, pat[p]) {
				return in
			}
		case pat[p+1] == '-' && p+2 < ec:
			p += 2
			if pat[p-2] <= c && c <= pat[p] {
				return in
			}
		case pat[p] == c:
			return in
		}
	}
	return !in
}

// maxExpand matches as many repetitions of the item p..ep from s as there
// are, then gives them back one at a time until the rest matches.
func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		i++
	}
	ms.spend(i)
	for ; i >= 0; i-- {
		if e := ms.match(s+i, ep+1); e >= 0 {
			return e
		}
	}
	return -1
}

// minExpand matches the rest after as few repetitions of the item p..ep
// as it can.
func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if e := ms.match(s, ep+1); e >= 0 {
			return e
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

// matchBalance is %bxy at p: from an x at s to the y that balances it.
func (ms *matchState) matchBalance(s, p int) int {
	open, close := ms.at(p), ms.at(p+1)
	if open == 0 || close == 0 {
		ms.fail(errPatternBalance)
	}
	src := ms.src
	if s >= len(src) || src[s] != open {
		return -1
	}
	depth := 1
	for i := s + 1; i < len(src); i++ {
		switch src[i] {
		case close:
			if depth--; depth == 0 {
				ms.spend(i - s)
				return i + 1
			}
		case open:
			depth++
		}
	}
	ms.spend(len(src) - s)
	return -1
}

func (ms *matchState) startCapture(s, p, what int) int {
	if ms.level >= maxCaptures {
		ms.fail(errTooManyCaptures)
	}
	ms.cap[ms.level] = capture{s, what}
	ms.level++
	e := ms.match(s, p)
	if e < 0 {
		ms.level--
	}
	return e
}

func (ms *matchState) endCapture(s, p int) int {
	l := -1
	for k := ms.level - 1; k >= 0; k-- {
		if ms.cap[k].len == capUnfinished {
			l = k
			break
		}
	}
	if l < 0 {
		ms.fail(errPatternCapture)
	}
	ms.cap[l].len = s - ms.cap[l].init
	e := ms.match(s, p)
	if e < 0 {
		ms.cap[l].len = capUnfinished
	}
	return e
}

// matchCapture is the back-reference %d at s.
func (ms *matchState) matchCapture(s int, d byte) int {
	c := ms.cap[ms.checkCapture(d)]
	if c.len < 0 || len(ms.src)-s < c.len || ms.src[s:s+c.len] != ms.src[c.init:c.init+c.len] {
		return -1 // a position capture matches nothing
	}
	return s + c.len
}

// checkCapture is the index of the closed capture digit d names.
func (ms *matchState) checkCapture(d byte) int {
	l := int(d) - '1'
	if l < 0 || l >= ms.level || ms.cap[l].len == capUnfinished {
		ms.fail(errCaptureIndex)
	}
	return l
}

// captures is how many values a match yields: its captures, or the whole
// match when it has none and whole is set.
func (ms *matchState) captures(whole bool) int {
	if ms.level == 0 && whole {
		return 1
	}
	return ms.level
}

// captureValue is capture i of the match s..e as Lua 5.1's
// push_onecapture: its text, its position (1-based) for a position
// capture, the whole match for capture 0 of a pattern without captures.
func (ms *matchState) captureValue(i, s, e int) lua.LValue {
	if i >= ms.level {
		if i != 0 {
			ms.fail(errCaptureIndex)
		}
		return lua.LString(ms.src[s:e])
	}
	switch c := ms.cap[i]; c.len {
	case capUnfinished:
		ms.fail(errCaptureOpen)
	case capPosition:
		return lua.LNumber(c.init + 1)
	default:
		return lua.LString(ms.src[c.init : c.init+c.len])
	}
	return lua.LNil
}

// pushCaptures pushes the match's captures (the whole match s..e when it
// has none and whole is set) and returns how many.
func (ms *matchState) pushCaptures(whole bool, s, e int) int {
	n := ms.captures(whole)
	for i := 0; i < n; i++ {
		ms.L.Push(ms.captureValue(i, s, e))
	}
	return n
}

// findInit is string.find's and string.match's init argument as a 0-based
// offset: luaL_optinteger, negative from the end, clamped to the subject.
func findInit(L *lua.LState, n int, fname string, length int) int {
	init := int64(1)
	if L.Get(n) != lua.LNil {
		init = int64(checkNumber(L, n, fname))
	}
	if init < 0 {
		init += int64(length) + 1
	}
	init--
	if init < 0 {
		return 0
	}
	return int(min(init, int64(length)))
}

// strFind is string.find(s, pattern [, init [, plain]]).
func strFind(L *lua.LState) int { return strFindAux(L, true) }

// strMatch is string.match(s, pattern [, init]).
func strMatch(L *lua.LState) int { return strFindAux(L, false) }

func strFindAux(L *lua.LState, find bool) int {
	fname := "match"
	if find {
		fname = "find"
	}
	s := checkString(L, 1, fname)
	pat := checkString(L, 2, fname)
	init := findInit(L, 3, fname, len(s))
	var ms matchState
	ms.reset(L, s, pat)
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(ms.pat, patternSpecials)) {
		// A plain search, for the whole pattern (NULs included).
		if i := strings.Index(s[init:], pat); i >= 0 {
			L.Push(lua.LNumber(init + i + 1))
			L.Push(lua.LNumber(init + i + len(pat)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	anchored := ms.anchor()
	start, end := ms.search(init, anchored)
	if start < 0 {
		L.Push(lua.LNil)
		return 1
	}
	if find {
		L.Push(lua.LNumber(start + 1))
		L.Push(lua.LNumber(end))
		return ms.pushCaptures(false, start, end) + 2
	}
	return ms.pushCaptures(true, start, end)
}

// gmatchIter is a string.gmatch iterator's state.
type gmatchIter struct {
	ms  matchState
	s   string
	pat string
	off int // where the next search starts
}

// strGmatch is string.gmatch(s, pattern): each call of the iterator finds
// the next match. A leading '^' is no anchor here (Lua 5.1's gmatch does
// not look for one): it matches a '^'.
func strGmatch(L *lua.LState) int {
	it := &gmatchIter{s: checkString(L, 1, "gmatch"), pat: checkString(L, 2, "gmatch")}
	L.Push(L.NewFunction(it.next))
	return 1
}

func (it *gmatchIter) next(L *lua.LState) int {
	ms := &it.ms
	ms.reset(L, it.s, it.pat)
	start, end := ms.search(it.off, false)
	if start < 0 {
		return 0
	}
	it.off = end
	if end == start {
		it.off++ // an empty match: go on one byte further
	}
	return ms.pushCaptures(true, start, end)
}
