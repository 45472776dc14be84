package sdsargs

import "strings"

// Repr quotes s as Redis's sdscatrepr: in double quotes, \\ \" \n \r \t
// \a \b escaped, other bytes outside the printable ASCII range as \xHH.
// Strings reads the result back as s.
func Repr(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= ' ' && c <= '~' {
				b.WriteByte(c)
			} else {
				b.WriteString(`\x`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
