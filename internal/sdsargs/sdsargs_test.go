package sdsargs

import (
	"slices"
	"testing"
)

func TestStrings(t *testing.T) {
	cases := []struct {
		line string
		want []string
		ok   bool
	}{
		{"", []string{}, true},
		{"  a  b ", []string{"a", "b"}, true},
		{`set "a b" 'c d'`, []string{"set", "a b", "c d"}, true},
		{`"\x41\n\t\\"`, []string{"A\n\t\\"}, true},
		{`'it\'s'`, []string{"it's"}, true},
		{`foo"bar baz"`, []string{"foobar baz"}, true},
		{`"a"b`, nil, false},
		{`"unterminated`, nil, false},
		{"a\x00b c", []string{"a"}, true}, // a C string ends at NUL
		{"\x00\x00\x01", []string{}, true},
	}
	for _, c := range cases {
		got, ok := Strings(c.line)
		if ok != c.ok || (ok && !slices.Equal(got, c.want)) {
			t.Errorf("Strings(%q) = %q, %v; want %q, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}
