package num

import (
	"math"
	"testing"
)

func TestStrtollAtoi(t *testing.T) {
	for _, c := range []struct {
		s    string
		ll   int64
		atoi int
	}{
		{"12", 12, 12}, {" \t7x", 7, 7}, {"-3", -3, -3}, {"+4", 4, 4}, {"", 0, 0}, {"x", 0, 0}, {"- 1", 0, 0},
		{"9223372036854775807", math.MaxInt64, -1}, {"9223372036854775808", math.MaxInt64, -1},
		{"-9223372036854775808", math.MinInt64, 0}, {"-99999999999999999999", math.MinInt64, 0},
		{"4294967297", 4294967297, 1}, {"2147483648", 2147483648, math.MinInt32},
	} {
		if got := Strtoll(c.s); got != c.ll {
			t.Errorf("Strtoll(%q) = %d, want %d", c.s, got, c.ll)
		}
		if got := Atoi([]byte(c.s)); got != c.atoi {
			t.Errorf("Atoi(%q) = %d, want %d", c.s, got, c.atoi)
		}
	}
}
