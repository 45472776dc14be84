package scripting

import (
	"fmt"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/pm"
)

// findForTest is string.find(src, pat, init) on the matcher with no Lua
// state, rendered as text: "start end cap…" (1-based, as Lua), "nil", or
// "error: <message>". It always matches the pattern: string.find's plain
// search of a pattern without special bytes is not the matcher's.
func findForTest(src, pat string, init int) (out string) {
	defer func() {
		if v := recover(); v != nil {
			e, ok := v.(patternError)
			if !ok {
				panic(v)
			}
			out = "error: " + string(e)
		}
	}()
	var ms matchState
	ms.reset(nil, src, pat)
	start, end := ms.search(init-1, ms.anchor())
	if start < 0 {
		return "nil"
	}
	parts := []string{fmt.Sprint(start+1, " ", end)}
	for i := 0; i < ms.captures(false); i++ {
		switch v := ms.captureValue(i, start, end).(type) {
		case lua.LNumber:
			parts = append(parts, fmt.Sprint(int(v)))
		default:
			parts = append(parts, fmt.Sprintf("%q", string(v.(lua.LString))))
		}
	}
	return strings.Join(parts, " ")
}

// TestPatternMatcher: the matcher alone. Expected results are Lua 5.1's,
// checked with string.find on redis-server 7.0.15 (init is 1 unless the
// case says otherwise).
func TestPatternMatcher(t *testing.T) {
	for _, c := range patternCases {
		if got := findForTest(c.src, c.pat, c.init); got != c.want {
			t.Errorf("find(%q, %q, %d) = %s, want %s", c.src, c.pat, c.init, got, c.want)
		}
	}
}

var patternCases = []struct {
	src, pat string
	init     int
	want     string
}{
	{"hello world", "o", 1, "5 5"},
	{"hello world", "o", 6, "8 8"},
	{"hello world", "l+", 1, "3 4"},
	{"hello", "xyz", 1, "nil"},
	{"hello", "", 1, "1 0"},
	{"hello", "", 6, "6 5"},
	{"", "", 1, "1 0"},
	{"hello", "^h", 1, "1 1"},
	{"hello", "^e", 1, "nil"},
	{"hello", "^e", 2, "2 2"},
	{"hello", "o$", 1, "5 5"},
	{"hello", "l$", 1, "nil"},
	{"a$b", "a$b", 1, "1 3"},
	{"a^b", "a^b", 1, "1 3"},
	{"hello", "$", 1, "6 5"},
	// Classes, complements, escapes.
	{"abc123 !@#", "%d+", 1, "4 6"},
	{"abc123 !@#", "%p+", 1, "8 10"},
	{"abc123 !@#", "%S+", 1, "1 6"},
	{"\x80\xffabc", "%a+", 1, "3 5"},
	{"\x80\xffabc", "%W+", 1, "1 2"},
	{"a\x00b", "%z", 1, "2 2"},
	{"a\x01\x7fb", "%c+", 1, "2 3"},
	{"xyz0fAFg", "%x+", 1, "4 7"},
	{"a.b", "%.", 1, "2 2"},
	{"ggg", "%g+", 1, "1 3"}, // %g is no class in Lua 5.1: it is 'g'
	// Sets.
	{"hello-123", "[%w-]+", 1, "1 9"},
	{"a]b", "[]]", 1, "2 2"},
	{"a]b", "[^]]+", 1, "1 1"},
	{"a-c", "[%a-z]+", 1, "1 3"},
	{"abc]", "[a-%]]+", 1, "4 4"},
	{"abc", "[c-a]+", 1, "nil"},
	{"d-", "[a-c-e]+", 1, "2 2"},
	{"abc", "[", 1, "error: malformed pattern (missing ']')"},
	{"abc", "[a%", 1, "error: malformed pattern (missing ']')"},
	{"abc", "[]", 1, "error: malformed pattern (missing ']')"},
	// Quantifiers.
	{"aaab", "a-b", 1, "1 4"},
	{"b", "a+b", 1, "nil"},
	{"<a><b>", "<(.-)>", 1, `1 3 "a"`},
	{"<a><b>", "<(.*)>", 1, `1 6 "a><b"`},
	{"aaa", "(a-)(a*)", 1, `1 3 "" "aaa"`},
	{"a", "a**", 1, "nil"},
	{"*a", "*a", 1, "1 2"},
	// Captures and back-references.
	{"hello", "()ll()", 1, "3 4 3 5"},
	{"abcabc", "(a(b)c)%1%2", 1, "nil"},
	{"abcabcb", "(a(b)c)%1%2", 1, `1 7 "abc" "b"`},
	{"hello", "%1", 1, "error: invalid capture index"},
	{"hello", "(l%1)", 1, "error: invalid capture index"},
	{"hello", "(l)%0", 1, "error: invalid capture index"},
	{"hello", "()%1", 1, "nil"}, // a position capture matches nothing
	{"abc", ".)", 1, "error: invalid pattern capture"},
	{"abc", "(a", 1, "error: unfinished capture"},
	{"xyz", "(a", 1, "nil"},
	{strings.Repeat("a", 40), strings.Repeat("()", 32), 1, "1 0" + strings.Repeat(" 1", 32)},
	{strings.Repeat("a", 40), strings.Repeat("()", 33), 1, "error: too many captures"},
	// %b and %f.
	{"f(a(b)c)d", "%b()", 1, "2 8"},
	{"f(a(b)c", "%b()", 1, "4 6"},
	{"aXbXc", "%bXX", 1, "2 4"},
	{"abc", "%ba", 1, "error: unbalanced pattern"},
	{"xyz", "a%b", 1, "nil"}, // the match never reaches the bad item
	{"THE (quick) fox", "%f[%a]%a+", 1, "1 3"},
	{"THE (quick) fox", "%f[%l]%a+", 1, "6 10"},
	{"hello", "%f[%z]", 1, "6 5"},
	{"hello", "%f[^%z]", 1, "1 0"},
	{"aaa", "%f[a]", 2, "nil"},
	{"hello", "%f", 1, "error: missing '[' after '%f' in pattern"},
	// Malformed, and the pattern's end at a NUL.
	{"abc", "a%", 1, "error: malformed pattern (ends with '%')"},
	{"xbc", "a%", 1, "nil"},
	{"axb", "a.\x00.", 1, "1 2"},
	{"a", "(\x00)", 1, "error: unfinished capture"},
}

// TestPatternDepth: recursion stops at maxMatchDepth, with an error, not
// by exhausting the goroutine's stack.
func TestPatternDepth(t *testing.T) {
	n := maxMatchDepth / 2
	if got := findForTest(strings.Repeat("a", n), strings.Repeat("a?", n), 1); got != fmt.Sprint("1 ", n) {
		t.Errorf("depth %d: %s", n, got)
	}
	n = maxMatchDepth + 1
	if got, want := findForTest(strings.Repeat("a", n), strings.Repeat("a?", n), 1), "error: "+errPatternComplex; got != want {
		t.Errorf("depth %d: %s, want %s", n, got, want)
	}
}

// TestPatternFunctions: string.find, match, gmatch and gsub through EVAL;
// replies captured from redis-server 7.0.15 (internal/compat compares
// several hundred more against the real server).
func TestPatternFunctions(t *testing.T) {
	runEvalCases(t, []evalCase{
		{body: "return {string.find('a+b', '+', 1, true)}", want: "*2\r\n:2\r\n:2\r\n"},
		{body: "return {string.find('a)b', ')')}", want: "*2\r\n:2\r\n:2\r\n"},
		{body: "return string.match('a)b', ')')", want: "-ERR user_script:1: invalid pattern capture script: <sha>, on @user_script:1.\r\n"},
		{body: "return {string.find('hello', '', 10)}", want: "*2\r\n:6\r\n:5\r\n"},
		{body: "return {string.match('abc', '()', -1)}", want: "*1\r\n:3\r\n"},
		{body: "local r = {} for w in string.gmatch('^a^a', '^a') do r[#r+1] = w end return r", want: "*2\r\n$2\r\n^a\r\n$2\r\n^a\r\n"},
		{body: "return {string.gsub('hello world', 'o', '0', -1)}", want: "*2\r\n$11\r\nhello world\r\n:0\r\n"},
		{body: "return {string.gsub('hello', 'l', true)}", want: "-ERR user_script:1: bad argument #3 to 'gsub' (string/function/table expected) script: <sha>, on @user_script:1.\r\n"},
		{body: "return {string.gsub('hello', 'l', true, 'x')}", want: "-ERR user_script:1: bad argument #4 to 'gsub' (number expected, got string) script: <sha>, on @user_script:1.\r\n"},
		{body: "return {string.gsub('hello', '(l', 'x')}", want: "*2\r\n$5\r\nhexxo\r\n:2\r\n"},
		{body: "return {string.gsub('hello', '(l', '%1')}", want: "-ERR user_script:1: unfinished capture script: <sha>, on @user_script:1.\r\n"},
		{body: "return {string.gsub('hello', '%w*', '-')}", want: "*2\r\n$2\r\n--\r\n:2\r\n"},
		{body: "return {string.gsub('hello', '()l', {[3] = 'T'})}", want: "*2\r\n$5\r\nheTlo\r\n:2\r\n"},
		{body: "return string.find(string.rep('a', 30000), string.rep('a?', 30000))", want: "-ERR user_script:1: pattern too complex script: <sha>, on @user_script:1.\r\n"},
	})
}

// FuzzPattern compares the matcher with gopher-lua's (pm) on short
// patterns and subjects. pm is not Lua 5.1: where they differ, Lua 5.1
// (redis-server 7.0.15) is the reference, and these places where pm is
// known to differ are left out (each checked on redis-server):
//   - pm reads the whole pattern first and rejects a malformed one even
//     where Lua never reaches the bad item ("a%" against "b" is nil in
//     Lua), and its error texts are its own: when either side fails, only
//     ours is checked to be one of Lua's errors.
//   - A back-reference to a capture still open: Lua's "invalid capture
//     index", a slice out of range in pm (a panic, taken as its error).
//   - A back-reference to a position capture: pm matches its position as
//     text, Lua never matches ("()%1" against "0" is nil).
//   - pm has no %f.
//   - Sets: pm makes a range of a class and a byte ("[%a-z]" is %a, '-'
//     and 'z' in Lua), of a range and a byte ("[0-0-0]" matches '-' in
//     Lua, nothing in pm), and "[0--]" (an empty range in Lua) holds '0'
//     and '-' in pm.
//   - pm's pattern goes on past a NUL; Lua 5.1's ends there.
func FuzzPattern(f *testing.F) {
	for _, seed := range [][2]string{
		{"hello world", "(o)(.)"}, {"aaab", "a-b"}, {"f(a(b)c)", "%b()"},
		{"key = val", "(%w+)%s*=%s*(%w+)"}, {"a.b", "[%.%a]+$"}, {"abab", "^(ab)%1"},
		{"x", "[]]"}, {"a-", "[a-]"}, {"aaa", "()a*()"},
	} {
		f.Add(seed[1], seed[0])
	}
	f.Fuzz(func(t *testing.T, pat, src string) {
		if len(pat) > 12 || len(src) > 24 {
			return
		}
		if strings.Contains(pat, "%f") || strings.IndexByte(pat, 0) >= 0 || pmSetDiffers(pat) || positionBackref(pat) {
			return
		}
		ours := findForTest(src, pat, 1)
		theirs := pmFind(src, pat)
		if strings.HasPrefix(ours, "error: ") || theirs == "error" {
			if msg, ok := strings.CutPrefix(ours, "error: "); ok && !isPatternError(msg) {
				t.Fatalf("find(%q, %q): unknown error %q", src, pat, msg)
			}
			return
		}
		if ours != theirs {
			t.Fatalf("find(%q, %q): ours %s, pm %s", src, pat, ours, theirs)
		}
	})
}

// pmFind is findForTest on pm: "error" for its errors and its panics
// (a back-reference to an open capture slices out of range).
func pmFind(src, pat string) (out string) {
	defer func() {
		if recover() != nil {
			out = "error"
		}
	}()
	mds, err := pm.Find(pat, []byte(src), 0, 1)
	if err != nil {
		return "error"
	}
	if len(mds) == 0 {
		return "nil"
	}
	m := mds[0]
	parts := []string{fmt.Sprint(m.Capture(0)+1, " ", m.Capture(1))}
	for i := 2; i < m.CaptureLength(); i += 2 {
		if m.IsPosCapture(i) {
			parts = append(parts, fmt.Sprint(m.Capture(i)))
		} else {
			parts = append(parts, fmt.Sprintf("%q", src[m.Capture(i):m.Capture(i+1)]))
		}
	}
	return strings.Join(parts, " ")
}

// pmSetDiffers reports whether pat may have a set pm reads otherwise
// than Lua: one with a class escape next to a '-' (pm's range of a
// class), or with two '-' (pm makes a range of a range, "[0-0-0]", and
// ends "[0--]" at the second '-').
func pmSetDiffers(pat string) bool {
	return strings.Contains(pat, "[") && (strings.Count(pat, "-") > 1 ||
		strings.Contains(pat, "%") && strings.Contains(pat, "-"))
}

// positionBackref reports whether pat has a back-reference %1–%9 and a
// position capture (pm's back-reference to one is text).
func positionBackref(pat string) bool {
	for i := 0; i+1 < len(pat); i++ {
		if pat[i] == '%' {
			if pat[i+1] >= '1' && pat[i+1] <= '9' {
				return strings.Contains(pat, "()")
			}
			i++
		}
	}
	return false
}

func isPatternError(msg string) bool {
	switch msg {
	case errPatternEndsEsc, errPatternMissingBr, errPatternFrontier, errPatternBalance,
		errCaptureIndex, errPatternCapture, errCaptureOpen, errTooManyCaptures, errPatternComplex:
		return true
	}
	return false
}

// BenchmarkPattern: one string.find on the matcher against the same on
// gopher-lua's pm (parse, match, captures), for typical script patterns.
func BenchmarkPattern(b *testing.B) {
	long := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	for _, c := range []struct{ name, src, pat string }{
		{"key-value", "session=abc123; path=/", "(%w+)=(%w+)"},
		{"trim", "   some padded text   ", "^%s*(.-)%s*$"},
		{"date", "2024-01-15T10:20:30Z", "^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)Z$"},
		{"key-prefix", "user:1000:profile", "^user:(%d+):"},
		{"last-field", "a,b,c,d,e,f,g,h", "([^,]+)$"},
		{"scan-no-match", long, "x%d+"},
		{"balanced", "call(f(a, b), g(c))", "%b()"},
	} {
		b.Run(c.name+"/ours", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var ms matchState
				ms.reset(nil, c.src, c.pat)
				start, end := ms.search(0, ms.anchor())
				if start >= 0 {
					for i := 0; i < ms.captures(false); i++ {
						_ = ms.captureValue(i, start, end)
					}
				}
			}
		})
		b.Run(c.name+"/pm", func(b *testing.B) {
			b.ReportAllocs()
			src := []byte(c.src)
			for b.Loop() {
				mds, err := pm.Find(c.pat, src, 0, 1)
				if err != nil {
					b.Fatal(err)
				}
				if len(mds) > 0 {
					m := mds[0]
					for i := 2; i < m.CaptureLength(); i += 2 {
						_ = lua.LString(c.src[m.Capture(i):m.Capture(i+1)])
					}
				}
			}
		})
	}
}
