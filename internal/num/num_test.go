package num

import "testing"

func TestParseInt(t *testing.T) {
	good := map[string]int64{"0": 0, "1": 1, "-1": -1, "9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808, "120": 120}
	for s, want := range good {
		got, ok := ParseIntString(s)
		if !ok || got != want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", "+1", " 1", "1 ", "01", "-0", "00", "9223372036854775808", "-9223372036854775809", "1a", "99999999999999999999", "123456789012345678901", "18446744073709551616", "00"} {
		if v, ok := ParseIntString(s); ok {
			t.Errorf("ParseInt(%q) accepted as %d", s, v)
		}
	}
}

func TestIncrByFloatFormatting(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"10.5", "0.1", "10.6"},
		{"3.0e3", "2.0e2", "3200"},
		{"0", "-0", "0"},
		{"5", "-5", "0"},
		{"1.5", "1.5", "3"},
		{"0.1", "0.2", "0.3"},
		{"1e50", "1", "100000000000000000003583830118858923890798487404544"},
	}
	for _, c := range cases {
		a, _, ok1 := ParseLongDouble([]byte(c.a))
		b, _, ok2 := ParseLongDouble([]byte(c.b))
		if !ok1 || !ok2 {
			t.Fatalf("parse %q %q failed", c.a, c.b)
		}
		r, ok := AddLongDouble(a, b)
		if !ok {
			t.Fatalf("add overflowed")
		}
		if got := FormatLongDoubleHuman(r); got != c.want {
			t.Errorf("%s + %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	for _, s := range []string{"", " 1", "1 ", "nan", "abc", "1e", "1_0", "0b1"} {
		if _, _, ok := ParseLongDouble([]byte(s)); ok {
			t.Errorf("ParseLongDouble(%q) accepted", s)
		}
	}
	if _, inf, ok := ParseLongDouble([]byte("-inf")); !ok || inf != -1 {
		t.Errorf("-inf: inf=%d ok=%v", inf, ok)
	}
}

func TestParseFloat(t *testing.T) {
	if f, ok := ParseFloat([]byte("1.5")); !ok || f != 1.5 {
		t.Fatal("1.5")
	}
	for _, s := range []string{"", " 1", "nan", "1x", "1e999"} {
		if _, ok := ParseFloat([]byte(s)); ok {
			t.Errorf("ParseFloat(%q) accepted", s)
		}
	}
}
