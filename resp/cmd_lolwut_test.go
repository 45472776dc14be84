package resp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLolwut(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("$18\r\nRedis ver. 7.0.15\n\r\n", "LOLWUT")
	c.expect("$18\r\nRedis ver. 7.0.15\n\r\n", "LOLWUT", "VERSION", "7", "1", "2")
	c.expect("-ERR value is not an integer or out of range\r\n", "LOLWUT", "VERSION", "x")
	// One square on a two-column canvas, as redis-server 7.0.15 draws it.
	c.expect("$70\r\n\u280b\n\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n\r\n", "LOLWUT", "VERSION", "5", "1", "1", "1")
	// 4294967301 is 5 once cut to 32 bits, as Redis's "%u".
	c.expect("$70\r\n\u280b\n\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n\r\n", "LOLWUT", "VERSION", "4294967301", "1", "1", "1")
	c.do("HELLO", "3")
	r := c.do("LOLWUT", "VERSION", "5")
	if !strings.HasPrefix(r, "=") || !strings.HasSuffix(r, "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n\r\n") {
		t.Fatalf("LOLWUT VERSION 5: %q", r)
	}
	// 66 columns of braille; 8 squares a row and 12 a column make a
	// canvas of 196 pixel rows: 49 lines, then a blank line, the footer,
	// and the reply's end.
	body := r[strings.Index(r, "txt:")+4:]
	lines := strings.Split(body, "\n")
	if len(lines) != 53 || utf8.RuneCountInString(lines[0]) != 66 || lines[49] != "" {
		t.Errorf("LOLWUT VERSION 5: %d lines, the first of %d characters", len(lines), utf8.RuneCountInString(lines[0]))
	}
	r = c.do("LOLWUT", "VERSION", "6", "10", "5")
	if n := strings.Count(r, "\x1b[0m"); n != 50 || !strings.Contains(r, "\nDedicated to the 8 bit game developers of past and present.\nOriginal 8 bit image from Plaguemon by hikikomori. Redis ver. 7.0.15\n") {
		t.Errorf("LOLWUT VERSION 6 10 5: %d cells: %q", n, r)
	}
}
