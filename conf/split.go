package conf

// splitArgs splits a configuration line into words exactly as redis
// sdssplitargs does: words are separated by white space; "double quotes"
// understand \xHH, \n, \r, \t, \b, \a and \<any>; 'single quotes' understand
// only \'; a closing quote must be followed by white space or the end of the
// line; a quote may start in the middle of a word (foo"bar baz" is one word).
// ok is false for unbalanced quotes.
func splitArgs(line string) (words []string, ok bool) {
	p := 0
	n := len(line)
	words = []string{}
	for {
		for p < n && isSpace(line[p]) {
			p++
		}
		if p >= n {
			return words, true
		}
		var cur []byte
		inDouble, inSingle := false, false
		for done := false; !done; {
			var c byte // 0 plays the role of C's terminating NUL
			if p < n {
				c = line[p]
			}
			switch {
			case inDouble:
				switch {
				case c == '\\' && p+3 < n && line[p+1] == 'x' && isHex(line[p+2]) && isHex(line[p+3]):
					cur = append(cur, unhex(line[p+2])<<4|unhex(line[p+3]))
					p += 3
				case c == '\\' && p+1 < n:
					p++
					switch e := line[p]; e {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, e)
					}
				case c == '"':
					if p+1 < n && !isSpace(line[p+1]) {
						return nil, false
					}
					done = true
				case p >= n:
					return nil, false
				default:
					cur = append(cur, c)
				}
			case inSingle:
				switch {
				case c == '\\' && p+1 < n && line[p+1] == '\'':
					p++
					cur = append(cur, '\'')
				case c == '\'':
					if p+1 < n && !isSpace(line[p+1]) {
						return nil, false
					}
					done = true
				case p >= n:
					return nil, false
				default:
					cur = append(cur, c)
				}
			default:
				switch {
				case p >= n, c == ' ', c == '\n', c == '\r', c == '\t':
					done = true
				case c == '"':
					inDouble = true
				case c == '\'':
					inSingle = true
				default:
					cur = append(cur, c)
				}
			}
			if p < n {
				p++
			}
		}
		words = append(words, string(cur))
	}
}

// isSpace is C isspace in the "C" locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
