// Package sdsargs splits a line into words as Redis's sdssplitargs does:
// blanks separate words, double quotes allow \n \r \t \b \a \\ \" and
// \xHH escapes, single quotes allow \', and a closing quote must be followed
// by a blank or the end. Inline RESP requests and config-file lines both
// use these rules, so both front-end and conf use this one implementation.
package sdsargs

import "bytes"

// Span is one word of a split line: bytes [Start, End) of the line, or of
// the scratch buffer when InScratch (a word with quotes, unescaped).
type Span struct {
	Start, End int
	InScratch  bool
}

// Strings splits line and returns the words as strings.
func Strings(line string) ([]string, bool) {
	b := []byte(line)
	spans, scratch, ok := Split(b, nil, nil)
	if !ok {
		return nil, false
	}
	words := make([]string, len(spans))
	for i, s := range spans {
		src := b
		if s.InScratch {
			src = scratch
		}
		words[i] = string(src[s.Start:s.End])
	}
	return words, true
}

// IsSpace is C's isspace in the C locale.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// Split splits line into spans exactly as redis 7.0's sdssplitargs does,
// reporting false for unbalanced quotes. It reuses spans and scratch
// (pass them back in to avoid allocating) and returns them grown. line holds no NUL byte (the
// line search stops at one), so the end of line plays the part of C's NUL.
//
// Words between blanks alias line. A word with a quoted part is unescaped into
// scratch; unescaping never lengthens text, so reserving len(line) up front
// keeps the scratch from moving while spans point into it.
func Split(line []byte, spans []Span, scratch []byte) ([]Span, []byte, bool) {
	// A C string ends at its first NUL, and so does the line for us.
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	at := func(i int) byte { // C's *p: 0 past the end
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	spans = spans[:0]
	scratch = scratch[:0]
	i := 0
	for {
		for i < len(line) && IsSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return spans, scratch, true
		}
		start, wordEnd := i, i // the word, while it aliases line
		quoted := -1           // its start in scratch once a quote is met
		var inDouble, inSingle, done bool
		for !done {
			c := at(i)
			switch {
			case inDouble:
				switch {
				case c == '\\' && at(i+1) == 'x' && isHex(at(i+2)) && isHex(at(i+3)):
					scratch = append(scratch, hexVal(at(i+2))<<4|hexVal(at(i+3)))
					i += 3
				case c == '\\' && at(i+1) != 0:
					i++
					e := line[i]
					switch e {
					case 'n':
						e = '\n'
					case 'r':
						e = '\r'
					case 't':
						e = '\t'
					case 'b':
						e = '\b'
					case 'a':
						e = '\a'
					}
					scratch = append(scratch, e)
				case c == '"':
					// The closing quote must be followed by a blank or the end.
					if n := at(i + 1); n != 0 && !IsSpace(n) {
						return spans, scratch, false
					}
					done = true
				case c == 0:
					return spans, scratch, false
				default:
					scratch = append(scratch, c)
				}
			case inSingle:
				switch {
				case c == '\\' && at(i+1) == '\'':
					i++
					scratch = append(scratch, '\'')
				case c == '\'':
					if n := at(i + 1); n != 0 && !IsSpace(n) {
						return spans, scratch, false
					}
					done = true
				case c == 0:
					return spans, scratch, false
				default:
					scratch = append(scratch, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0: // not '\v' nor '\f': redis keeps those in a word
					wordEnd = i
					done = true
				case '"', '\'':
					inDouble, inSingle = c == '"', c == '\''
					if cap(scratch) < len(line) {
						scratch = make([]byte, 0, len(line))
					}
					quoted = len(scratch)
					scratch = append(scratch, line[start:i]...)
				}
			}
			if at(i) != 0 {
				i++
			}
		}
		if quoted >= 0 {
			spans = append(spans, Span{Start: quoted, End: len(scratch), InScratch: true})
		} else {
			spans = append(spans, Span{Start: start, End: wordEnd})
		}
	}
}
