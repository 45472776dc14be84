package scripting

import (
	"strings"
	"testing"
	"time"
)

// Replies captured from redis-server 7.0.15.
func TestBoundedBuiltins(t *testing.T) {
	const tooMany = "-ERR user_script:1: too many results to unpack script: <sha>, on @user_script:1.\r\n"
	runEvalCases(t, []evalCase{
		{body: "return select('#', unpack({}, 1, 7997))", want: ":7997\r\n"},
		{body: "return select('#', unpack({}, 1, 7998))", want: tooMany},
		{body: "return select('#', unpack({}, 1, 1e8))", want: tooMany},
		{body: "return select('#', unpack({}, 1, 2^31))", want: ":0\r\n"},
		{body: "return select('#', unpack({}, -2^31, 2^31-1))", want: tooMany},
		{body: "local a = {} for i=1,7999 do a[i] = 1 end return select('#', unpack(a))", want: ":7999\r\n"},
		{body: "local a = {} for i=1,8000 do a[i] = 1 end return select('#', unpack(a))", want: tooMany},
		{body: "return select('#', unpack({}, -5, 3))", want: ":9\r\n"},
		{body: "return #string.rep('x', 2^31)", want: ":0\r\n"},
		{body: "return #string.rep('x', 2^40)", want: ":0\r\n"},
		{body: "return #string.rep('x', 2^32+5)", want: ":5\r\n"},
		{body: "return #string.rep('x', -1)", want: ":0\r\n"},
		{body: "return table.concat({1,{}})", want: "-ERR user_script:1: invalid value (table) at index 2 in table for 'concat' script: <sha>, on @user_script:1.\r\n"},
		{body: "return table.concat({1,2,3}, ',', 2)", want: "$3\r\n2,3\r\n"},
		{body: "return table.concat({1,2}, ',', 1, 5)", want: "-ERR user_script:1: invalid value (nil) at index 3 in table for 'concat' script: <sha>, on @user_script:1.\r\n"},
		{body: "return table.concat({}, ',', 1, 1e9)", want: "-ERR user_script:1: invalid value (nil) at index 1 in table for 'concat' script: <sha>, on @user_script:1.\r\n"},
		{body: "return string.format('%100d', 1)", want: "-ERR user_script:1: invalid format (width or precision too long) script: <sha>, on @user_script:1.\r\n"},
		{body: "return string.format('%5.100f', 1)", want: "-ERR user_script:1: invalid format (width or precision too long) script: <sha>, on @user_script:1.\r\n"},
		{body: "return string.format('%------d', 1)", want: "-ERR user_script:1: invalid format (repeated flags) script: <sha>, on @user_script:1.\r\n"},
		{body: "return string.format('%-----d|', 1)", want: "$2\r\n1|\r\n"},
		{body: "return string.format('%99.99f', 1e308):len()", want: ":409\r\n"},
		{body: "return {string.gsub('hello world', '(o)', '%1%1%%')}", want: "*2\r\n$15\r\nhelloo% woo%rld\r\n:2\r\n"},
		{body: "return {string.gsub('abc', '', '-')}", want: "*2\r\n$7\r\n-a-b-c-\r\n:4\r\n"},
		{body: "return {string.gsub('abc', '%w', {a='1', b=true})}", want: "-ERR user_script:1: invalid replacement value (a boolean) script: <sha>, on @user_script:1.\r\n"},
		{body: "return {string.gsub('abc', '^a', 'x')}", want: "*2\r\n$3\r\nxbc\r\n:1\r\n"},
		{body: "return {string.gsub('abc', '(b)', '%2')}", want: "-ERR user_script:1: invalid capture index script: <sha>, on @user_script:1.\r\n"},
		{body: "return {string.gsub('abc', 'b', {b={}})}", want: "-ERR user_script:1: invalid replacement value (a table) script: <sha>, on @user_script:1.\r\n"},
		{body: "return {string.gsub('abc', '(b)()', '%2')}", want: "*2\r\n$3\r\na3c\r\n:1\r\n"},
		{body: "return {string.gsub('abc', 'b', '%')}", want: "*2\r\n$3\r\na\x00c\r\n:1\r\n"},
		{body: "return {string.gsub('abc', 'b', '%x')}", want: "*2\r\n$3\r\naxc\r\n:1\r\n"},
		{body: "return {string.gsub('hello world', '%w+', '<%0>', 1)}", want: "*2\r\n$13\r\n<hello> world\r\n:1\r\n"},
		{body: "return {string.gsub('abc', '%w', function(c) if c=='b' then return nil end return c:upper() end)}", want: "*2\r\n$3\r\nAbC\r\n:3\r\n"},
		{body: "local r={} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do r[#r+1]=k..v end return r", want: "*2\r\n$2\r\na1\r\n$2\r\nb2\r\n"},
		{body: "local t={3,1,2} table.sort(t) return t", want: "*3\r\n:1\r\n:2\r\n:3\r\n"},
		{body: "local t={3,1,2} table.sort(t, function(a,b) return a>b end) return t", want: "*3\r\n:3\r\n:2\r\n:1\r\n"},
		{body: "return tostring(collectgarbage('count') > 0)", want: "$4\r\ntrue\r\n"},
		{body: "return collectgarbage()", want: ":0\r\n"},
	})
}

// runLimited runs body as EVAL with the given bounds and a deadline: a
// run that does not end in time fails the test (and leaves the script
// running, which the process exit ends).
func runLimited(t *testing.T, e *Engine, body string, maxString, memory int64) string {
	t.Helper()
	s, msg := e.Cache.Load([]byte(body))
	if s == nil {
		t.Fatalf("compile: %s", msg)
	}
	w := &respWriter{proto: 2}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.RunScript(s, &Run{Host: &fakeHost{}, MaxString: maxString, MemoryLimit: memory}, w, nil)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: still running after 60s", body)
	}
	return w.b.String()
}

// TestScriptKillStopsBuiltins: SCRIPT KILL stops a script that spends
// its time inside builtins (gopher-lua checks the context only between
// instructions; gsub over a long string once took time quadratic in its
// matches, unpack of 1e8 values never returned, and a backtracking
// pattern in gopher-lua's matcher ran for hours).
func TestScriptKillStopsBuiltins(t *testing.T) {
	for _, body := range []string{
		"local s = string.rep('a', 4000000) while true do string.gsub(s, 'a', 'b') end",
		"local t = {} for i = 1, 300000 do t[i] = -i end while true do table.sort(t) table.sort(t, function(a, b) return a > b end) end",
		"local s = string.rep('ab', 2000000) while true do for w in string.gmatch(s, 'a') do end end",
		"local t = {} for i = 1, 1000000 do t[i] = 'x' end while true do table.concat(t, ',') end",
		// Backtracking: each call runs for seconds here, for hours in pm.
		"while true do string.find(string.rep('a', 40), string.rep('%a-', 6) .. 'b') end",
		"while true do string.match(string.rep('a', 60), string.rep('a*', 8) .. 'b') end",
		"while true do string.gsub(string.rep('a', 60), string.rep('(a-)', 8) .. 'b', '') end",
		"while true do for w in string.gmatch(string.rep('ab', 30), string.rep('.-', 8) .. 'c') do end end",
		// Quadratic scans inside one item: %b and a maximal expansion.
		"local s = string.rep('(', 2^20) while true do string.find(s, '%b()') end",
		"local s = string.rep('a', 2^20) while true do string.find(s, 'a*b') end",
	} {
		e := NewEngine()
		s, _ := e.Cache.Load([]byte(body))
		w := &respWriter{proto: 2}
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.RunScript(s, &Run{Host: &fakeHost{}}, w, nil)
		}()
		for e.Running() == nil {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		if msg := e.Kill(true); msg != "" {
			t.Fatalf("kill: %s", msg)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: SCRIPT KILL did not stop it within 5s", body)
		}
		want := "-" + errKilled + " script: " + s.SHA
		if !strings.HasPrefix(w.b.String(), want) {
			t.Errorf("%s: got %q, want prefix %q", body, w.b.String(), want)
		}
	}
}

// TestScriptMemoryBound: scripts that would allocate without bound get an
// error, and the process never allocates what they asked for. The limits
// are small (64 MB strings, 128 MB of heap) so a failure cannot exhaust
// the machine before the test sees it.
func TestScriptMemoryBound(t *testing.T) {
	const maxString, memory = 64 << 20, 128 << 20
	e := NewEngine()
	sha := func(body string) string { return SHA1Hex([]byte(body)) }
	tooLarge := func(body string) string {
		return "-ERR user_script:1: resulting string too large script: " + sha(body) + ", on @user_script:1.\r\n"
	}
	for _, body := range []string{
		"return #string.rep('x', 2^31 - 1)",
		"return #string.rep('xxxxxxxx', 2^28)",
		"local s = string.rep('x', 2^20) local t = {} for i = 1, 100 do t[i] = s end return #table.concat(t)",
		"local s = string.rep('x', 2^20) return #table.concat({s, s}, string.rep(',', 2^26))",
		"local s = string.rep('x', 2^25) return #string.format('%s%s%s', s, s, s)",
		"local s = string.rep('x', 2^20) local t = {} for i = 1, 100 do t[i] = s end return #cjson.encode(t)",
		"local s = string.rep('x', 2^20) local t = {} for i = 1, 100 do t[i] = s end return #cmsgpack.pack(t)",
		"local s = string.rep('x', 2^16) return #string.gsub(string.rep('a', 2^12), 'a', s)",
		"local s = string.rep('x', 2^16) return #string.gsub(string.rep('a', 2^12), 'a', {a = s})",
	} {
		if got := runLimited(t, e, body, maxString, 4*memory); got != tooLarge(body) {
			t.Errorf("%s:\n got %q\nwant %q", body, got, tooLarge(body))
		}
	}
	// `..` checks its result's size before building it, as the builtins
	// do (concat.go): here against what the watchdog still allows.
	noMemory := "local s = 'x' for i = 1, 40 do s = s .. s end return #s"
	want := "-ERR user_script:1: " + errNoMemory + " script: " + sha(noMemory) + ", on @user_script:1.\r\n"
	if got := runLimited(t, e, noMemory, maxString, memory/4); got != want {
		t.Errorf("%s:\n got %q\nwant %q", noMemory, got, want)
	}
	// Table growth: the watchdog stops it. With strings of 1 MB in the
	// table, the `..` that builds the next one may see the limit first.
	for _, body := range []string{
		"local t = {} for i = 1, 1e9 do t[i] = i end return #t",
		"local t = {} for i = 1, 1e9 do t[i] = {} end return #t",
		"local s = string.rep('x', 2^20) local t = {} for i = 1, 1e9 do t[i] = s .. i end return #t",
	} {
		want := "-" + errOutOfMemory(sha(body)) + "\r\n"
		orConcat := "-ERR user_script:1: " + errNoMemory + " script: " + sha(body) + ", on @user_script:1.\r\n"
		if got := runLimited(t, e, body, maxString, memory/4); got != want && !(strings.Contains(body, "..") && got == orConcat) {
			t.Errorf("%s:\n got %q\nwant %q", body, got, want)
		}
	}
	// The state is usable afterwards.
	if got := runLimited(t, e, "return #string.rep('x', 1000)", maxString, memory); got != ":1000\r\n" {
		t.Errorf("after: got %q", got)
	}
}
