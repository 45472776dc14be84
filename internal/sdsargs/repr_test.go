package sdsargs

import "testing"

func TestRepr(t *testing.T) {
	for in, want := range map[string]string{
		"":             `""`,
		"dump.rdb":     `"dump.rdb"`,
		"a b\"c\\":     `"a b\"c\\"`,
		"\n\r\t\a\b":   `"\n\r\t\a\b"`,
		"\x00\x7f\xff": `"\x00\x7f\xff"`,
	} {
		if got := Repr(in); got != want {
			t.Errorf("Repr(%q) = %s, want %s", in, got, want)
		}
		if back, ok := Strings(Repr(in)); !ok || len(back) != 1 || back[0] != in {
			t.Errorf("Strings(Repr(%q)) = %q, %v", in, back, ok)
		}
	}
}
