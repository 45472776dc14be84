package conf

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		nocase     bool
		want       bool
	}{
		{"*", "", false, true}, // a lone "*" matches everything, as KEYS and SCAN treat it
		{"*", "maxmemory", false, true},
		{"maxmemory*", "maxmemory", false, true},
		{"maxmemory*", "maxmemory-policy", false, true},
		{"*max-*-entries*", "hash-max-listpack-entries", false, true},
		{"*max-*-entries*", "set-max-intset-entries", false, true},
		{"*max-*-entries*", "maxmemory", false, false},
		{"h?", "hz", false, true},
		{"h?", "h", false, false},
		{"[lm]axmemory", "maxmemory", false, true},
		{"[^l]axmemory", "maxmemory", false, true},
		{"[^m]axmemory", "maxmemory", false, false},
		{"maxmemory-polic[a-z]", "maxmemory-policy", false, true},
		{"maxmemory-polic[z-a]", "maxmemory-policy", false, true}, // reversed range
		{"[A-Z]z", "hz", true, true},
		{"[A-Z]z", "hz", false, false},
		{"HZ", "hz", true, true},
		{"HZ", "hz", false, false},
		{`maxmemory\-policy`, "maxmemory-policy", false, true},
		{`\*`, "*", false, true},
		{`\*`, "a", false, false},
		{`[\]]`, "]", false, true},
		{"[abc", "a", false, true}, // unterminated set ends the pattern
		{"[abc", "ab", false, false},
		{"a*b*c", "axxbyyc", false, true},
		{"a*b*c", "axxbyy", false, false},
		{"**a", "ba", false, true},
		{"a**", "a", false, true},
		{"", "", false, true},
		{"", "a", false, false},
		{"a", "", false, false},
		{"?*", "", false, false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s, tt.nocase); got != tt.want {
			t.Errorf("globMatch(%q, %q, %v) = %v, want %v", tt.pattern, tt.s, tt.nocase, got, tt.want)
		}
	}
}
