package glob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		nocase     bool
		want       bool
	}{
		{"*", "", false, true},
		{"*", "anything", false, true},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h*llo", "heeeello", false, true},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-b]llo", "hbllo", false, true},
		{"h[b-a]llo", "hallo", false, true},
		{"h[a-b]llo", "hcllo", false, false},
		{`h\*llo`, "h*llo", false, true},
		{`h\*llo`, "hello", false, false},
		{`a\`, `a\`, false, true},
		{"a[bc", "ab", false, true},
		{"a[bc", "abc", false, false},
		{"HELLO", "hello", true, true},
		{"HELLO", "hello", false, false},
		{"[A-C]x", "bx", true, true},
		{"user:*:name", "user:42:name", false, true},
		{"user:*:name", "user:42:mail", false, false},
		{"a*b*c", "aXXbYYc", false, true},
		{"a*b*c", "aXXbYY", false, false},
		{"", "", false, true},
		{"", "a", false, false},
		{"a**", "a", false, true},
	}
	for _, c := range cases {
		if got := MatchString(c.pattern, c.s, c.nocase); got != c.want {
			t.Errorf("Match(%q, %q, nocase=%v) = %v, want %v", c.pattern, c.s, c.nocase, got, c.want)
		}
	}
}

// A pattern that is exponential without the skip-longer-matches rule must
// still answer at once.
func TestMatchPathologicalPattern(t *testing.T) {
	p := strings.Repeat("a*", 30) + "b"
	s := strings.Repeat("a", 60)
	if MatchString(p, s, false) {
		t.Fatal("unexpected match")
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("h[a-", "hb")
	f.Add(`\`, `\`)
	f.Add("*?[^]", "xyz")
	f.Fuzz(func(t *testing.T, p, s string) {
		MatchString(p, s, false)
		MatchString(p, s, true)
		if !strings.ContainsAny(p, `*?[\`) && MatchString(p, s, false) != (p == s) {
			t.Fatalf("literal pattern %q vs %q", p, s)
		}
	})
}
