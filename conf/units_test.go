package conf

import (
	"math"
	"testing"
)

func TestParseMemory(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"17", 17, true},
		{"017", 17, true},
		{"1b", 1, true},
		{"1B", 1, true},
		{"1k", 1000, true},
		{"1kb", 1024, true},
		{"1kB", 1024, true},
		{"1K", 1000, true},
		{"1m", 1000000, true},
		{"1mb", 1 << 20, true},
		{"1g", 1000000000, true},
		{"1gb", 1 << 30, true},
		{"1GB", 1 << 30, true},
		{"512mb", 512 << 20, true},
		{"", 0, true},   // redis memtoull accepts "" as 0
		{"kb", 0, true}, // and a unit without digits
		{"9223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", 0, false}, // redis wraps; Tandem refuses
		{"8589934592gb", 0, false},
		{"-1", 0, false},
		{"-0", 0, false},
		{"1xb", 0, false},
		{"1t", 0, false},
		{"1.5gb", 0, false},
		{" 1gb", 0, false},
		{"1gb ", 0, false},
		{"+5", 0, false},
		{"1 gb", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseMemory(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseMemory(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseInteger(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"5", 5, true},
		{"-2", -2, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"-0", 0, false},
		{"05", 0, false},
		{"+5", 0, false},
		{" 5", 0, false},
		{"5 ", 0, false},
		{"1.5", 0, false},
		{"1k", 0, false},
		{"0x10", 0, false},
		{"1_000", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseInteger(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseInteger(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseStrtoll(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"", 0, true},
		{"60", 60, true},
		{"+5", 5, true},
		{"-5", -5, true},
		{" 5", 5, true}, // strtoll skips leading space
		{"05", 5, true},
		{"5 ", 0, false},
		{" ", 0, false},
		{"+", 0, false},
		{"abc", 0, false},
		{"1k", 0, false},
		{"99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseStrtoll(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseStrtoll(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0B"},
		{200, "200B"},
		{1023, "1023B"},
		{1024, "1.00K"},
		{32768, "32.00K"},
		{988758, "965.58K"},
		{1<<20 - 1, "1024.00K"},
		{1 << 20, "1.00M"},
		{7110656, "6.78M"},
		{25275277312, "23.54G"},
		{1 << 40, "1.00T"},
		{1 << 50, "1.00P"},
		{1 << 60, "1152921504606846976B"},
		{-5, "-5B"},
	}
	for _, tt := range tests {
		if got := HumanBytes(tt.in); got != tt.want {
			t.Errorf("HumanBytes(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
