package conf

import "github.com/tandemkv/tandem/internal/glob"

// globMatch reports whether a directive name matches a CONFIG GET pattern
// (Redis glob rules, see internal/glob).
func globMatch(pattern, s string, nocase bool) bool {
	return glob.MatchString(pattern, s, nocase)
}
