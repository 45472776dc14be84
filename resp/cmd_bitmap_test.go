package resp

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The bitmap family's tests are scripts in the string family's format
// (see cmd_string_test.go): every expected reply was read from
// redis-server 7.0.15 for the same steps.

var bitmapScripts = []strScript{
	{"SetBitGetBit", []strStep{
		step(":0\r\n", "SETBIT", "k", "7", "1"),
		step(bulk("\x01"), "GET", "k"),
		step(bulk("raw"), "OBJECT", "ENCODING", "k"),
		step(":1\r\n", "SETBIT", "k", "7", "0"),
		step(":0\r\n", "SETBIT", "k", "100", "1"),
		step(":13\r\n", "STRLEN", "k"),
		step(":1\r\n", "GETBIT", "k", "100"),
		step(":0\r\n", "GETBIT", "k", "99"),
		step(":0\r\n", "GETBIT", "k", "1000000"),
		step(":0\r\n", "GETBIT", "nosuch", "3"),
		step(rOK, "SET", "n", "123"),
		step(":1\r\n", "GETBIT", "n", "2"),
		step(":0\r\n", "SETBIT", "n", "0", "0"),
		step(bulk("raw"), "OBJECT", "ENCODING", "n"),
		step(bulk("123"), "GET", "n"),
	}},
	{"SetBitErrors", []strStep{
		step(errReply(ErrBitOffset), "SETBIT", "k", "-1", "1"),
		step(errReply(ErrBitOffset), "SETBIT", "k", "x", "y"),
		step(errReply(ErrBitOffset), "SETBIT", "k", "4294967296", "1"),
		step(errReply(ErrBitValue), "SETBIT", "k", "1", "2"),
		step(errReply(ErrBitValue), "SETBIT", "k", "1", "-1"),
		step(errReply(ErrBitValue), "SETBIT", "k", "1", "01"),
		step(errReply(ErrBitOffset), "GETBIT", "k", "4294967296"),
		step(":0\r\n", "EXISTS", "k"),
		act("~config", "proto-max-bulk-len", "1mb"),
		step(":0\r\n", "SETBIT", "k", "8388607", "1"),
		step(errReply(ErrBitOffset), "SETBIT", "k", "8388608", "1"),
		step(":1048576\r\n", "STRLEN", "k"),
	}},
	{"SetBitKeepsTTL", []strStep{
		step(rOK, "SET", "k", "abc", "EX", "100"),
		act("~advance", "1000"),
		step(":1\r\n", "SETBIT", "k", "1", "0"),
		step(":99000\r\n", "~pttl", "k"),
		step(bulk("!bc"), "GET", "k"),
	}},
	{"BitCount", []strStep{
		step(rOK, "SET", "f", "foobar"),
		step(":26\r\n", "BITCOUNT", "f"),
		step(":4\r\n", "BITCOUNT", "f", "0", "0"),
		step(":6\r\n", "BITCOUNT", "f", "1", "1", "BYTE"),
		step(":17\r\n", "BITCOUNT", "f", "5", "30", "bit"),
		step(":0\r\n", "BITCOUNT", "f", "-1", "-2"),
		step(":0\r\n", "BITCOUNT", "nosuch", "a", "b"),
		step(rSyntax, "BITCOUNT", "f", "0"),
		step(rSyntax, "BITCOUNT", "f", "0", "1", "bits"),
		step(rNotInt, "BITCOUNT", "f", "a", "1", "foo"),
	}},
	{"BitPos", []strStep{
		step(rOK, "SET", "b", "\xff\xf0\x00"),
		step(":12\r\n", "BITPOS", "b", "0"),
		step(":0\r\n", "BITPOS", "b", "1"),
		step(":-1\r\n", "BITPOS", "b", "1", "2"),
		step(":16\r\n", "BITPOS", "b", "0", "2"),
		step(":-1\r\n", "BITPOS", "b", "0", "0", "0", "BIT"),
		step(":12\r\n", "BITPOS", "b", "0", "0", "12", "BIT"),
		step(":21\r\n", "BITPOS", "b", "0", "-3", "-1", "BIT"),
		step(rOK, "SET", "ones", "\xff\xff\xff"),
		step(":24\r\n", "BITPOS", "ones", "0"),
		step(":-1\r\n", "BITPOS", "ones", "0", "0", "-1"),
		step(":0\r\n", "BITPOS", "nosuch", "0", "x"),
		step(":-1\r\n", "BITPOS", "nosuch", "1"),
		step(errReply(ErrBitArgument), "BITPOS", "b", "2"),
		step(rNotInt, "BITPOS", "b", "0", "8", "BIT"),
		step(rSyntax, "BITPOS", "b", "0", "0", "x", "foo"),
	}},
	{"BitOp", []strStep{
		step(rOK, "SET", "f", "foobar"),
		step(":6\r\n", "BITOP", "AND", "d", "f", "nosuch"),
		step(bulk("\x00\x00\x00\x00\x00\x00"), "GET", "d"),
		step(":6\r\n", "BITOP", "not", "d", "f"),
		step(bulk("\x99\x90\x90\x9d\x9e\x8d"), "GET", "d"),
		step(rOK, "SET", "d", "x", "EX", "100"),
		step(":6\r\n", "BITOP", "OR", "d", "f", "f"),
		step(":-1\r\n", "~pttl", "d"),
		step(":0\r\n", "BITOP", "XOR", "d", "nosuch"),
		step(":0\r\n", "EXISTS", "d"),
		step(rSyntax, "BITOP", "NAND", "d", "f"),
		step(errReply(ErrBitOpNot), "BITOP", "NOT", "d", "f", "f"),
	}},
	{"BitField", []strStep{
		step("*3\r\n:0\r\n:3\r\n:147\r\n", "BITFIELD", "k", "SET", "i8", "0", "-100", "INCRBY", "u4", "4", "7", "GET", "u8", "0"),
		step(bulk("\x93"), "GET", "k"),
		step3("*2\r\n:-109\r\n$-1\r\n", "*2\r\n:-109\r\n_\r\n", "BITFIELD", "k", "GET", "i8", "0", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "-100"),
		step("*2\r\n:-128\r\n:127\r\n", "BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-100", "INCRBY", "i8", "0", "1000"),
		step("*1\r\n:0\r\n", "BITFIELD", "j", "GET", "u63", "0"),
		step(":0\r\n", "EXISTS", "j"),
		step3("*1\r\n$-1\r\n", "*1\r\n_\r\n", "BITFIELD", "j", "OVERFLOW", "FAIL", "SET", "u2", "100", "5"),
		step(":13\r\n", "STRLEN", "j"),
		step("*1\r\n:127\r\n", "BITFIELD_RO", "k", "GET", "i8", "#0"),
		step(errReply(ErrBitFieldRO), "BITFIELD_RO", "k", "SET", "i8", "0", "1"),
		step(errReply(ErrBitFieldType), "BITFIELD", "k", "GET", "u64", "0"),
		step(errReply(ErrBitFieldOverflow), "BITFIELD", "k", "OVERFLOW", "foo"),
		step(rSyntax, "BITFIELD", "k", "GET", "u8"),
		step(errReply(ErrBitOffset), "BITFIELD", "k", "GET", "u8", "#-1"),
		step(rNotInt, "BITFIELD", "k", "SET", "u8", "0", "x"),
	}},
}

func TestBitmapCommands(t *testing.T) {
	for _, sc := range bitmapScripts {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/RESP"+strconv.Itoa(proto), func(t *testing.T) {
				runStringScript(t, proto, sc.steps)
			})
		}
	}
}

// TestBitmapWrongType: every bit command refuses a key of another type.
func TestBitmapWrongType(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	makeNonString(t, c, "l")
	for _, args := range [][]string{
		{"SETBIT", "l", "0", "1"}, {"GETBIT", "l", "0"}, {"BITCOUNT", "l"}, {"BITCOUNT", "l", "x", "y"},
		{"BITPOS", "l", "1"}, {"BITOP", "AND", "d", "l"}, {"BITFIELD", "l"}, {"BITFIELD", "l", "SET", "u8", "0", "1"},
		{"BITFIELD_RO", "l", "GET", "u8", "0"},
	} {
		c.expect(rWrongType, args...)
	}
	c.expect(":0\r\n", "BITOP", "AND", "l", "nosuch")
	c.expect(":0\r\n", "EXISTS", "l")
}

// TestBitmapCommandTable checks each declaration against redis-server
// 7.0.15's COMMAND INFO.
func TestBitmapCommandTable(t *testing.T) {
	want := map[string]string{
		"setbit":      "4 write,denyoom 1 1 1 @write,@bitmap,@slow",
		"getbit":      "3 readonly,fast 1 1 1 @read,@bitmap,@fast",
		"bitcount":    "-2 readonly 1 1 1 @read,@bitmap,@slow",
		"bitpos":      "-3 readonly 1 1 1 @read,@bitmap,@slow",
		"bitop":       "-4 write,denyoom 2 -1 1 @write,@bitmap,@slow",
		"bitfield":    "-2 write,denyoom 1 1 1 @write,@bitmap,@slow",
		"bitfield_ro": "-2 readonly,fast 1 1 1 @read,@bitmap,@fast",
		"pfadd":       "-2 write,denyoom,fast 1 1 1 @write,@hyperloglog,@fast",
		"pfcount":     "-2 readonly 1 -1 1 @read,@hyperloglog,@slow",
		"pfmerge":     "-2 write,denyoom 1 -1 1 @write,@hyperloglog,@slow",
	}
	cmds := slices.Concat(bitmapCommands(), hllCommands())
	if len(cmds) != len(want) {
		t.Errorf("%d commands declared, want %d", len(cmds), len(want))
	}
	for _, cmd := range cmds {
		got := strconv.Itoa(cmd.Arity) + " " + strings.Join(cmd.Flags.Names(), ",") + " " +
			strconv.Itoa(cmd.FirstKey) + " " + strconv.Itoa(cmd.LastKey) + " " + strconv.Itoa(cmd.KeyStep) + " " +
			strings.Join(cmd.ACLCategories(), ",")
		if got != want[cmd.Name] {
			t.Errorf("%s: %q, want %q", cmd.Name, got, want[cmd.Name])
		}
		if (cmd.Group != "bitmap" && cmd.Group != "hyperloglog") || cmd.Since == "" || cmd.Summary == "" || cmd.Run == nil {
			t.Errorf("%s: incomplete declaration %+v", cmd.Name, cmd)
		}
	}
}

// TestSetBitAllocs: a SETBIT that changes nothing writes nothing.
func TestSetBitAllocs(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":0\r\n", "SETBIT", "k", "100000", "1")
	args := [][]byte{[]byte("SETBIT"), []byte("k"), []byte("100000"), []byte("1")}
	cmd := env.fe.table.Lookup(args[0], nil)
	allocs := testing.AllocsPerRun(100, func() {
		c.c.w.Buf = c.c.w.Buf[:0]
		cmd.Run(c.c, args)
	})
	if allocs > 0 {
		t.Errorf("SETBIT that changes nothing: %v allocations, want 0", allocs)
	}
}
