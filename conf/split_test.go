package conf

import (
	"reflect"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string // nil: unbalanced quotes
	}{
		{"", []string{}},
		{"   ", []string{}},
		{"port 6379", []string{"port", "6379"}},
		{"  save   900  1 ", []string{"save", "900", "1"}},
		{"a\tb", []string{"a", "b"}},
		{`requirepass "p a s s"`, []string{"requirepass", "p a s s"}},
		{`x "a\"b"`, []string{"x", `a"b`}},
		{`x "\x41\x4a"`, []string{"x", "AJ"}},
		{`x "\x4"`, []string{"x", "x4"}}, // not two hex digits: \x is x
		{`x "\n\r\t\b\a\\\q"`, []string{"x", "\n\r\t\b\a\\q"}},
		{`x 'it\'s'`, []string{"x", "it's"}},
		{`x 'a\nb'`, []string{"x", `a\nb`}},
		{`save ""`, []string{"save", ""}},
		{`x ''`, []string{"x", ""}},
		{`foo"bar baz"`, []string{"foobar baz"}},
		{`x "a"b`, nil},
		{`x 'a'b`, nil},
		{`x "abc`, nil},
		{`x 'abc`, nil},
		{`x "abc\`, nil},
		{"x\v\fy", []string{"x\v\fy"}}, // inside a word only ' ' \t \n \r separate, as sdssplitargs
		{"\v x", []string{"x"}},
	}
	for _, tt := range tests {
		got, ok := splitArgs(tt.in)
		if tt.want == nil {
			if ok {
				t.Errorf("splitArgs(%q) = %q, want unbalanced", tt.in, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitArgs(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}
