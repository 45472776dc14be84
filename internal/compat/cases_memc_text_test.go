package compat

import (
	"strings"
	"testing"
)

// memcached text protocol: retrieval, storage, counters, touch, admin
// commands and the parser's limits.

func TestMemcachedText(t *testing.T)   { runMemcCases(t, memcTextCases) }
func TestMemcachedLimits(t *testing.T) { runMemcCases(t, memcLimitCases) }

// ln terminates each line with CRLF: ln("set k 0 0 1", "x") is a set and
// its data block.
func ln(lines ...string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l + "\r\n"
	}
	return out
}

var memcTextCases = []memcCase{
	{name: "get missing", send: ln("get k")},
	{name: "set get", send: ln("set k 0 0 5", "hello", "get k")},
	{name: "set flags", send: ln("set k 42 0 1", "x", "get k")},
	{name: "set max flags", send: ln("set k 4294967295 0 1", "x", "get k")},
	{name: "set flags overflow", send: ln("set k 4294967296 0 1", "x", "get k")},
	{name: "set negative flags", send: ln("set k -1 0 1", "x", "get k")},
	{name: "set empty value", send: ln("set k 0 0 0", "", "get k")},
	{name: "set value with crlf inside", send: ln("set k 0 0 4", "a\r\nb", "get k")},
	{name: "set binary value", send: []string{"set k 0 0 3\r\n\x00\xff\n\r\nget k\r\n"}},
	{name: "set overwrite", send: ln("set k 1 0 1", "a", "set k 2 0 2", "bb", "get k")},
	{name: "set noreply", send: ln("set k 0 0 1 noreply", "x", "get k")},
	{name: "set bad noreply token", send: ln("set k 0 0 1 norep", "x", "get k")},
	{name: "set missing args", send: ln("set k 0 0", "set k", "set")},
	{name: "set bad numbers", send: ln("set k 0 0 abc", "set k x 0 1", "x", "set k 0 x 1", "x", "get k")},
	{name: "set too many args", send: ln("set k 0 0 1 noreply extra", "x", "get k")},
	{name: "set negative exptime expires", send: ln("set k 0 -1 1", "x", "get k")},
	{name: "set absolute exptime in the past", send: ln("set k 0 2592001 1", "x", "get k")},
	{name: "set thirty days is relative", send: ln("set k 0 2592000 1", "x", "get k")},
	{name: "set bad data chunk", send: ln("set k 0 0 1", "xyz", "get k")},
	{name: "set bad data chunk short", send: []string{"set k 0 0 3\r\nab\r\n\r\nget k\r\n"}},
	{name: "set bad data chunk noreply", send: ln("set k 0 0 1 noreply", "xyz", "get k")},
	{name: "set negative length", send: ln("set k 0 0 -1", "get k")},
	{name: "set key 250 bytes", send: ln("set "+strings.Repeat("k", 250)+" 0 0 1", "x", "get "+strings.Repeat("k", 250))},
	{name: "set key 251 bytes", send: ln("set "+strings.Repeat("k", 251)+" 0 0 1", "x", "get k")},
	{name: "get key 251 bytes", send: ln("get " + strings.Repeat("k", 251))},
	{name: "get no key", send: ln("get", "gets")},
	{name: "get multi", send: ln("set a 0 0 1", "1", "set c 3 0 1", "3", "get a b c a")},
	{name: "get multi all missing", send: ln("get a b c")},
	{name: "key with tab is one key", send: ln("set a\tb 0 0 1", "z", "get a\tb", "get a")},
	{name: "key with control byte", send: ln("set a\x01b 0 0 1", "z", "get a\x01b")},
	{name: "get extra spaces", send: ln("set a 0 0 1", "1", "get  a   a ")},
	{name: "gets", send: ln("set k 5 0 1", "x", "gets k nosuch k"), loose: []memcLoosening{maskCAS}},
	{name: "gets cas changes on write", send: ln("set k 0 0 1", "x", "gets k", "set k 0 0 1", "y", "gets k"), loose: []memcLoosening{maskCAS}},
	{name: "gat", send: ln("set k 7 0 1", "x", "gat 100 k nosuch", "gat 0 k")},
	{name: "gats", send: ln("set k 7 0 1", "x", "gats 100 k"), loose: []memcLoosening{maskCAS}},
	{name: "gat missing", send: ln("gat 100 nosuch", "gats 100 nosuch")},
	{name: "gat negative expires", send: ln("set k 0 0 1", "x", "gat -1 k", "get k")},
	{name: "gat bad exptime", send: ln("set k 0 0 1", "x", "gat abc k", "gat 10")},
	{name: "add", send: ln("add k 0 0 1", "a", "add k 0 0 1", "b", "get k")},
	{name: "add expired key", send: ln("set k 0 -1 1", "a", "add k 0 0 1", "b", "get k")},
	{name: "add noreply", send: ln("add k 0 0 1 noreply", "a", "add k 0 0 1 noreply", "b", "get k")},
	{name: "replace", send: ln("replace k 0 0 1", "a", "set k 0 0 1", "a", "replace k 9 0 1", "b", "get k")},
	{name: "replace noreply", send: ln("replace k 0 0 1 noreply", "a", "get k")},
	{name: "append", send: ln("append k 0 0 1", "a", "set k 5 0 2", "ab", "append k 9 0 2", "cd", "get k")},
	{name: "prepend", send: ln("prepend k 0 0 1", "a", "set k 5 0 2", "ab", "prepend k 9 0 2", "xy", "get k")},
	{name: "append noreply", send: ln("set k 0 0 1", "a", "append k 0 0 1 noreply", "b", "prepend k 0 0 1 noreply", "c", "get k")},
	{name: "append keeps flags and cas changes", send: ln("set k 3 0 1", "a", "gets k", "append k 0 0 1", "b", "gets k"), loose: []memcLoosening{maskCAS}},
	{name: "cas", send: ln("set k 0 0 1", "a", "gets k", "cas k 0 0 1 $CAS", "b", "cas k 0 0 1 $CAS", "c", "get k")},
	{name: "cas missing", send: ln("cas k 0 0 1 12345", "x", "get k")},
	{name: "cas wrong unique", send: ln("set k 0 0 1", "a", "cas k 0 0 1 999999999999", "b", "cas k 0 0 1 0", "c", "get k")},
	{name: "cas bad unique", send: ln("set k 0 0 1", "a", "cas k 0 0 1 abc", "b", "cas k 0 0 1", "get k")},
	{name: "cas noreply", send: ln("set k 0 0 1", "a", "gets k", "cas k 0 0 1 $CAS noreply", "b", "get k")},
	{name: "cas after touch still valid", send: ln("set k 0 0 1", "a", "gets k", "touch k 100", "cas k 0 0 1 $CAS", "b", "get k")},
	{name: "cas after delete", send: ln("set k 0 0 1", "a", "gets k", "delete k", "cas k 0 0 1 $CAS", "b", "get k")},
	{name: "cas after flush_all", send: ln("set k 0 0 1", "a", "gets k", "flush_all", "cas k 0 0 1 $CAS", "b", "get k")},
	{name: "delete", send: ln("set k 0 0 1", "a", "delete k", "delete k", "get k")},
	{name: "delete noreply", send: ln("set k 0 0 1", "a", "delete k noreply", "get k")},
	{name: "delete legacy time", send: ln("set k 0 0 1", "a", "delete k 0", "set k 0 0 1", "a", "delete k 1", "delete k 0 noreply", "get k")},
	{name: "delete no key", send: ln("delete")},
	{name: "incr decr", send: ln("set n 0 0 2", "10", "incr n 5", "decr n 3", "get n")},
	{name: "incr missing", send: ln("incr n 1", "decr n 1")},
	{name: "incr non numeric", send: ln("set n 0 0 3", "abc", "incr n 1", "decr n 1")},
	{name: "incr wraps at 2^64", send: ln("set n 0 0 20", "18446744073709551615", "incr n 1", "get n")},
	{name: "incr large delta wraps", send: ln("set n 0 0 1", "2", "incr n 18446744073709551615", "get n")},
	{name: "decr below zero is zero", send: ln("set n 0 0 1", "3", "decr n 10", "get n")},
	{name: "decr shrinks with trailing spaces", send: ln("set n 0 0 3", "100", "decr n 1", "get n", "incr n 1", "get n")},
	{name: "incr grows length", send: ln("set n 0 0 2", "99", "incr n 1", "get n")},
	{name: "incr huge delta invalid", send: ln("set n 0 0 1", "3", "incr n 18446744073709551616", "incr n abc", "incr n -1", "decr n 1.5", "get n")},
	{name: "incr leading space value", send: ln("set n 0 0 2", " 1", "incr n 1", "get n")},
	{name: "incr trailing space value", send: ln("set n 0 0 2", "1 ", "incr n 1", "get n")},
	{name: "incr value digits end at a NUL", send: ln("set n 0 0 7", " 5\x00\xffbin", "incr n 5", "get n", "set m 0 0 3", "5\x00x", "decr m 1",
		"set z 0 0 2", "\x005", "incr z 1", "set s 0 0 3", "-\x001", "incr s 1", "ms v 3", "7\x00a", "ma v v")},
	{name: "incr value too big", send: ln("set n 0 0 21", "123456789012345678901", "incr n 1", "set m 0 0 20", "18446744073709551616", "incr m 1")},
	{name: "incr empty value", send: ln("set n 0 0 0", "", "incr n 1")},
	{name: "incr keeps flags", send: ln("set n 77 0 1", "1", "incr n 1", "get n")},
	{name: "incr changes cas", send: ln("set n 0 0 1", "1", "gets n", "incr n 1", "cas n 0 0 1 $CAS", "5", "get n")},
	{name: "incr noreply missing", send: ln("incr nosuch 1 noreply", "decr nosuch 1 noreply", "get nosuch")},
	{name: "incr noreply", send: ln("set n 0 0 1", "1", "incr n 5 noreply", "decr n 1 noreply", "get n")},
	{name: "incr missing args", send: ln("incr n", "incr", "decr")},
	{name: "touch", send: ln("set k 0 0 1", "a", "touch k 100", "touch nosuch 100", "get k")},
	{name: "touch negative expires", send: ln("set k 0 0 1", "a", "touch k -1", "get k")},
	{name: "touch bad exptime", send: ln("set k 0 0 1", "a", "touch k abc", "touch k", "get k")},
	{name: "touch absolute past expires", send: ln("set k 0 0 1", "a", "touch k 2592001", "get k")},
	{name: "touch noreply", send: ln("set k 0 0 1", "a", "touch k 100 noreply", "get k")},
	{name: "flush_all", send: ln("set a 0 0 1", "1", "set b 0 0 1", "2", "flush_all", "get a b")},
	{name: "flush_all zero delay", send: ln("set a 0 0 1", "1", "flush_all 0", "get a")},
	{name: "flush_all noreply", send: ln("set a 0 0 1", "1", "flush_all noreply", "get a")},
	{name: "flush_all zero delay noreply", send: ln("set a 0 0 1", "1", "flush_all 0 noreply", "get a")},
	{name: "flush_all bad delay", send: ln("set a 0 0 1", "1", "flush_all abc", "get a")},
	{name: "set after flush_all", send: ln("flush_all", "set a 0 0 1", "1", "get a")},
	{name: "version", send: ln("version"), loose: []memcLoosening{versionAny}},
	{name: "verbosity", send: ln("verbosity 1", "verbosity 0", "verbosity 1 noreply", "verbosity")},
	{name: "verbosity bad level", send: ln("verbosity abc", "verbosity 1 2 3")},
	{name: "stats", send: ln("stats"), loose: []memcLoosening{statsShape}},
	{name: "stats settings", send: ln("stats settings"), loose: []memcLoosening{statsShape}},
	{name: "stats unknown", send: ln("stats nosuchgroup")},
	{name: "unknown command", send: ln("foo", "foo bar baz")},
	{name: "commands are case sensitive", send: ln("GET k", "SET k 0 0 1", "x")},
	{name: "empty line", send: ln("", "get k")},
	{name: "shutdown disabled", send: ln("shutdown")},
	{name: "quit", send: ln("set k 0 0 1", "x", "quit"), closes: true},
	{name: "quit discards rest", send: ln("quit", "get k"), closes: true},
}

// memcLimitCases probe the parser's limits.
var memcLimitCases = []memcCase{
	{name: "line without newline over 2048 closes", send: []string{strings.Repeat("a", 3000)}, closes: true},
	{name: "set line without newline over 2048 closes", send: []string{"set k 0 0 1 " + strings.Repeat("9", 3000)}, closes: true},
	{name: "long line under 2048 with newline", send: ln("foo " + strings.Repeat("a", 2000))},
	{name: "long multiget line", send: ln("set k0 0 0 1", "0", "get "+strings.TrimSpace(strings.Repeat("k0 k1 ", 1000)))},
	{name: "item too large swallowed", send: ln("set big 0 0 2000000", strings.Repeat("x", 2000000), "get big", "set k 0 0 1", "x", "get k"), wholeOnly: true},
	{name: "item just under limit", send: ln("set big 0 0 1048000", strings.Repeat("y", 1048000), "set k 0 0 1", "x", "get k"), wholeOnly: true},
	{name: "item too large noreply", send: ln("set big 0 0 2000000 noreply", strings.Repeat("x", 2000000), "get big"), wholeOnly: true},
	{name: "append beyond item size", send: ln("set big 0 0 1040000", strings.Repeat("x", 1040000), "append big 0 0 20000", strings.Repeat("y", 20000), "mg big s"), wholeOnly: true},
}
