package sdsargs

// Repr quotes s as Redis's sdscatrepr: in double quotes, \\ \" \n \r \t
// \a \b escaped, other bytes outside the printable ASCII range as \xHH.
// Strings reads the result back as s.
func Repr(s string) string {
	return string(AppendRepr(make([]byte, 0, len(s)+2), []byte(s)))
}

const hexDigits = "0123456789abcdef"

// AppendRepr appends s quoted as Repr quotes it (CONFIG REWRITE's values,
// MONITOR's arguments).
func AppendRepr(b, s []byte) []byte {
	b = append(b, '"')
	for _, c := range s {
		switch c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f {
				b = append(b, c)
			} else {
				b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			}
		}
	}
	return append(b, '"')
}
