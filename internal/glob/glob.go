// Package glob matches byte strings against Redis-style glob patterns
// (KEYS, SCAN MATCH, CONFIG GET, PSUBSCRIBE): '*', '?', '[abc]', '[^a]',
// '[a-z]' and backslash escapes, with the same edge cases as Redis's
// stringmatchlen: an unterminated '[' matches up to the end of the pattern
// and a trailing backslash matches a literal backslash.
package glob

// Match reports whether s matches pattern. It never allocates. Like Redis's
// callers (KEYS, SCAN), a lone "*" matches everything, even the empty key,
// which the matching loop itself would refuse.
func Match(pattern, s []byte, nocase bool) bool {
	if len(pattern) == 1 && pattern[0] == '*' {
		return true
	}
	var skip bool
	return match(pattern, s, nocase, 0, &skip)
}

// MatchString is Match for strings.
func MatchString(pattern, s string, nocase bool) bool {
	return Match([]byte(pattern), []byte(s), nocase)
}

// maxNesting bounds the recursion that '*' causes, as Redis does, so a
// hostile pattern like "a*a*a*a*...b" cannot take exponential time.
const maxNesting = 1000

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// match is Redis's algorithm; skipLonger is set once a '*' has tried every
// suffix of the string without success, because then no caller can succeed
// by giving the '*' more characters: it turns exponential patterns linear.
func match(p, s []byte, nocase bool, nesting int, skipLonger *bool) bool {
	if nesting > maxNesting {
		return false
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if match(p[1:], s, nocase, nesting+1, skipLonger) {
					return true
				}
				if *skipLonger {
					return false
				}
				s = s[1:]
			}
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			matched := false
			for {
				if len(p) == 0 {
					// Unterminated class: Redis steps back so the loop's
					// advance lands at the end of the pattern.
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						matched = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					start, end := p[0], p[2]
					if start > end {
						start, end = end, start
					}
					c := s[0]
					if nocase {
						start, end, c = lower(start), lower(end), lower(c)
					}
					p = p[2:]
					if c >= start && c <= end {
						matched = true
					}
				} else if nocase {
					if lower(p[0]) == lower(s[0]) {
						matched = true
					}
				} else if p[0] == s[0] {
					matched = true
				}
				p = p[1:]
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			s = s[1:]
			if len(p) == 0 {
				// Unterminated class consumed the rest of the pattern.
				return len(s) == 0
			}
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if nocase {
				if lower(p[0]) != lower(s[0]) {
					return false
				}
			} else if p[0] != s[0] {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}
