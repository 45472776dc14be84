package scripting

import (
	"strings"
	"testing"
)

func TestRestore(t *testing.T) {
	e := NewEngine()
	h := &fakeHost{}
	lib := func(name string, fns ...string) []byte {
		var b strings.Builder
		b.WriteString("#!lua name=" + name + "\n")
		for _, f := range fns {
			b.WriteString("redis.register_function('" + f + "', function() return 1 end)\n")
		}
		return []byte(b.String())
	}
	names := func() string {
		var out []string
		for _, l := range e.Functions.Libraries() {
			fs := make([]string, len(l.Functions))
			for i, f := range l.Functions {
				fs[i] = f.Name
			}
			out = append(out, l.Name+":"+strings.Join(fs, ","))
		}
		return strings.Join(out, " ")
	}
	if _, msg := e.Functions.Load(lib("a", "fa"), false, h); msg != "" {
		t.Fatal(msg)
	}
	for _, tc := range []struct {
		codes  [][]byte
		policy RestorePolicy
		msg    string
		after  string
	}{
		// Errors inside the payload come first, under any policy.
		{[][]byte{[]byte("no header")}, RestoreFlush, "Missing library metadata", "a:fa"},
		{[][]byte{lib("b", "fb"), lib("b", "fc")}, RestoreFlush, "Library 'b' already exists", "a:fa"},
		{[][]byte{lib("b", "fb"), lib("c", "fb")}, RestoreFlush, "Function fb already exists", "a:fa"},
		{[][]byte{lib("b")}, RestoreAppend, "No functions registered", "a:fa"},
		// Then the join with what is loaded.
		{[][]byte{lib("a", "fx")}, RestoreAppend, "Library a already exists", "a:fa"},
		{[][]byte{lib("b", "fa")}, RestoreReplace, "Function fa already exists", "a:fa"},
		{[][]byte{lib("b", "fb")}, RestoreAppend, "", "a:fa b:fb"},
		{[][]byte{lib("a", "fb", "fz")}, RestoreReplace, "Function fb already exists", "a:fa b:fb"},
		{[][]byte{lib("a", "fa2"), lib("c", "fc")}, RestoreReplace, "", "a:fa2 b:fb c:fc"},
		{[][]byte{lib("z", "fz")}, RestoreFlush, "", "z:fz"},
		{nil, RestoreFlush, "", ""},
	} {
		if msg := e.Functions.Restore(tc.codes, tc.policy, h); msg != tc.msg {
			t.Errorf("restore %q (%d): %q, want %q", tc.codes, tc.policy, msg, tc.msg)
		}
		if got := names(); got != tc.after {
			t.Errorf("after restore %q (%d): %q, want %q", tc.codes, tc.policy, got, tc.after)
		}
	}
	if _, msg := e.Functions.Load(lib("y", "fy"), false, h); msg != "" || e.Functions.Get("FY") == nil {
		t.Errorf("a load after a restore: %q", msg)
	}
}
